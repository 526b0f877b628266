import type { SQSBatchResponse, SQSRecord } from 'aws-lambda';
import * as z from 'zod/mini';
import { INBOUND_TYPES, type InboundType } from '#domain/eventNames';
import { applyInboundEvent, type InboundEvent, type InboundOutcome } from '#domain/inbound';
import { nestsDeeperThan } from '#domain/jsonDepth';
import { INBOUND_EARLIEST, INBOUND_FUTURE_SKEW_MS, MAX_JSON_DEPTH } from '#domain/limits';
import { slugParam, taskUuid } from '#wire/validation';
import { logger } from '#observability/log';
import { sourceMapped } from '#observability/stacks';
import { observeBatch } from './observeBatch';

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

/** A task or sprint id of the other services (the task_uuid rule of the API). */
const subjectId = taskUuid;
/** A username as the product spells it (an e-mail address, say): 1-128 characters, no control characters. */
const username = z
  .string()
  .check(
    z.minLength(1),
    z.maxLength(128),
    z.regex(/^[^\p{Cc}\p{Cf}\p{Zl}\p{Zp}]+$/u, 'must be 1-128 characters without control or format characters'),
  );
const SUBJECT: Record<InboundType, 'task_uuid' | 'username' | 'sprint_uuid'> = {
  'Task Created': 'task_uuid',
  'Task Completed': 'task_uuid',
  'Task Reopened': 'task_uuid',
  'Task Deleted': 'task_uuid',
  'Member Added': 'username',
  'Member Removed': 'username',
  'Sprint Created': 'sprint_uuid',
  'Sprint Deleted': 'sprint_uuid',
};

const envelope = z.object({
  id: z.optional(z.string()),
  time: z.optional(z.string()),
  'detail-type': z.enum(INBOUND_TYPES),
  detail: z.object({
    event_id: z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
    occurred_at: z.optional(z.iso.datetime({ offset: true })),
    company_slug: slugParam,
    project_slug: slugParam,
    task_uuid: z.optional(subjectId),
    username: z.optional(username),
    sprint_uuid: z.optional(subjectId),
  }),
});

/** The event in an SQS message body (an EventBridge event), or MalformedEvent saying why not. */
function parseInbound(body: string): InboundEvent {
  let json: unknown;
  if (nestsDeeperThan(body, MAX_JSON_DEPTH)) throw new MalformedEvent(`the message body nests more than ${MAX_JSON_DEPTH} levels deep`);
  try {
    json = JSON.parse(body);
  } catch {
    throw new MalformedEvent('the message body is not JSON');
  }
  const parsed = envelope.safeParse(json);
  if (!parsed.success)
    throw new MalformedEvent(parsed.error.issues.map((i) => `${i.path.join('.') || '(event)'}: ${i.message}`).join('; '));
  const { detail, 'detail-type': type } = parsed.data;
  const subject = detail[SUBJECT[type]];
  if (subject === undefined) throw new MalformedEvent(`detail.${SUBJECT[type]}: required for ${type}`);
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

/** An ISO 8601 date-time with its offset (Z or ±hh:mm): the only spelling of an instant accepted. */
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

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

/** One SQS batch: each message applied on its own; the failures listed for redelivery. */
export function consumeInbound(records: SQSRecord[], deadLetters: DeadLetters): Promise<ConsumeOutcome> {
  return observeBatch(
    'inbound-consumer',
    records.length,
    ['ConflictRetries'],
    () => consumeEach(records, deadLetters),
    ({ counts }) => ({
      fields: { ...counts },
      metrics: [
        ['EventsApplied', counts.applied],
        ['EventsDropped', counts['unknown project'] + counts['before the project']],
        ['EventsDeadLettered', counts.malformed],
      ],
    }),
  );
}

async function consumeEach(records: SQSRecord[], deadLetters: DeadLetters): Promise<ConsumeOutcome> {
  const counts = { applied: 0, unchanged: 0, 'unknown project': 0, 'before the project': 0, malformed: 0, failed: 0 };
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
      counts[await applyInboundEvent(event)]++;
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
