import type { SQSBatchResponse, SQSRecord } from 'aws-lambda';
import { sentence } from '#domain/errors';
import { applyInboundEvent, type InboundEvent, type InboundOutcome } from '#domain/inbound';
import { nestsDeeperThan } from '#domain/jsonDepth';
import { INBOUND_EARLIEST, INBOUND_FUTURE_SKEW_MS, MAX_JSON_DEPTH } from '#domain/limits';
import { INBOUND_SUBJECT, inboundEnvelope, ISO_INSTANT } from '#wire/inboundSchemas';
import { logger } from '#observability/log';
import { sourceMapped } from '#observability/stacks';
import { observeBatch } from './observeBatch';
import { throughThrottling } from './patience';

/**
 * The inbound side: task, member and sprint events from the rest of the product, as an EventBridge
 * rule delivers them through SQS. Each message is parsed and validated; a malformed one goes to the
 * dead letters at once with its reason (retrying cannot fix it) and never holds up the rest of its
 * batch; an event for an unknown workspace or project is dropped and counted; any other failure
 * (the database busy, say) is reported as that message's failure, so only it is delivered again.
 */
export interface DeadLetters {
  put(body: string, reason: string): Promise<void>;
}

class MalformedEvent extends Error {
  override readonly name = 'MalformedEvent';
}

/** The event in an SQS message body (an EventBridge event), or MalformedEvent saying why not. */
export function parseInbound(body: string): InboundEvent {
  let json: unknown;
  if (nestsDeeperThan(body, MAX_JSON_DEPTH)) throw new MalformedEvent(`the message body nests more than ${MAX_JSON_DEPTH} levels deep`);
  try {
    json = JSON.parse(body);
  } catch {
    throw new MalformedEvent('the message body is not JSON');
  }
  const parsed = inboundEnvelope.safeParse(json, { reportInput: true });
  if (!parsed.success) {
    // Each reason as the API says a refused field: `detail.task_uuid: "a b" is not a task id; use ...`.
    const reasons = parsed.error.issues.map((i) => sentence({ field: i.path.join('.') || '(event)', message: i.message, value: i.input }));
    throw new MalformedEvent(reasons.map((r) => r.message).join('; '));
  }
  const { detail, 'detail-type': type } = parsed.data;
  const subject = detail[INBOUND_SUBJECT[type]];
  if (subject === undefined) throw new MalformedEvent(`detail.${INBOUND_SUBJECT[type]}: required for ${type}`);
  const eventId = detail.event_id ?? parsed.data.id;
  const occurredAt = detail.occurred_at ?? parsed.data.time;
  if (!eventId) throw new MalformedEvent('detail.event_id: required');
  const instant = instantOf(occurredAt);
  return {
    type,
    eventId,
    ws: detail.company_slug,
    projectSlug: detail.project_slug,
    occurredAt: new Date(instant).toISOString(),
    subject,
  };
}

/** occurred_at as milliseconds, inside the accepted window, or MalformedEvent saying why not. */
function instantOf(occurredAt: string | undefined): number {
  const instant = occurredAt !== undefined && ISO_INSTANT.test(occurredAt) ? Date.parse(occurredAt) : Number.NaN;
  if (Number.isNaN(instant))
    throw new MalformedEvent('detail.occurred_at: required, an ISO 8601 date-time with its offset (e.g. 2026-11-23T10:00:00Z)');
  if (instant < INBOUND_EARLIEST) throw new MalformedEvent(`detail.occurred_at: ${occurredAt} is before 2000-01-01`);
  if (instant > Date.now() + INBOUND_FUTURE_SKEW_MS)
    throw new MalformedEvent(`detail.occurred_at: ${occurredAt} is more than ${INBOUND_FUTURE_SKEW_MS / 60_000} minutes in the future`);
  return instant;
}

export interface ConsumeOutcome extends SQSBatchResponse {
  counts: Record<InboundOutcome | 'malformed' | 'failed', number>;
}

/**
 * One SQS batch: each message applied on its own; the failures listed for redelivery. A message the
 * table throttles is applied again until `deadline` (epoch ms; patience.ts); without one, it fails at once.
 */
export function consumeInbound(records: SQSRecord[], deadLetters: DeadLetters, deadline = 0): Promise<ConsumeOutcome> {
  return observeBatch(
    'inbound-consumer',
    records.length,
    ['ConflictRetries'],
    () => consumeEach(records, deadLetters, deadline),
    ({ counts }) => ({
      fields: { ...counts },
      metrics: [
        ['EventsApplied', counts.applied],
        ['EventsDropped', counts.unknown_project + counts.before_project],
        ['EventsDeadLettered', counts.malformed],
      ],
    }),
  );
}

async function consumeEach(records: SQSRecord[], deadLetters: DeadLetters, deadline: number): Promise<ConsumeOutcome> {
  const counts: ConsumeOutcome['counts'] = { applied: 0, unchanged: 0, unknown_project: 0, before_project: 0, malformed: 0, failed: 0 };
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of records) {
    try {
      let event: InboundEvent;
      try {
        event = parseInbound(record.body);
      } catch (error) {
        if (!(error instanceof MalformedEvent)) throw error;
        await deadLetters.put(record.body, error.message);
        logger.warn('inbound event dead-lettered', { message_id: record.messageId, reason: error.message });
        counts.malformed++;
        continue;
      }
      const parsed = event;
      counts[await throughThrottling(() => applyInboundEvent(parsed), deadline)]++;
    } catch (error) {
      counts.failed++;
      batchItemFailures.push({ itemIdentifier: record.messageId });
      logger.warn('inbound event failed; it will be delivered again', {
        message_id: record.messageId,
        error: sourceMapped(error as Error),
      });
    }
  }
  return { batchItemFailures, counts };
}
