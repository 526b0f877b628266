import type { SQSBatchResponse, SQSRecord } from 'aws-lambda';
import { EVENT_SOURCE, OUTBOUND_TYPES } from '#domain/eventNames';
import { nestsDeeperThan } from '#domain/jsonDepth';
import { MAX_JSON_DEPTH } from '#domain/limits';
import { observeBatch } from '#events/observeBatch';
import { logger } from '#observability/log';
import { sourceMapped } from '#observability/stacks';
import { readWebhooks } from '#webhooks/store/webhooks';
import type { WebhookRecord } from './entities';
import { continueDelivery, deliverEvent, type Outcome, PartlyDelivered, type PublishedEvent, type WebhooksOf } from './deliveries';
import { probeEndpoint, releaseWaiting } from './probes';
import type { AttemptMessage, ProbeMessage, ReleaseMessage, WebhookQueue } from './queue';
import { sweepDeliveries } from './sweeper';
import { allSettled } from '#store/settled';

/**
 * The deliveries queue's consumer (on Lambda and under `npm start` alike): the service's own events,
 * as the bus rule delivers them, the attempts it scheduled itself, a failing endpoint's probes and releases (probes.ts),
 * and the schedule's sweeps (sweeper.ts). Every message of a batch is
 * handled at once, so one slow endpoint delays no other; a message that fails (the database busy,
 * say) is reported for redelivery alone; one that is neither is dead-lettered with its reason. A
 * batch's events of one workspace share one read of its webhooks (`sharedReads`).
 */
const OUTBOUND: ReadonlySet<string> = new Set(OUTBOUND_TYPES);

type Message =
  | { kind: 'event'; event: PublishedEvent }
  | { kind: 'attempt'; attempt: AttemptMessage }
  | { kind: 'probe'; probe: ProbeMessage }
  | { kind: 'release'; release: ReleaseMessage }
  | { kind: 'sweep' };

/** What a message body holds, or a sentence saying why it is neither kind. */
function parseMessage(body: string): Message | string {
  if (nestsDeeperThan(body, MAX_JSON_DEPTH)) return `the message nests more than ${MAX_JSON_DEPTH} levels deep`;
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(body) as Record<string, unknown>;
  } catch {
    return 'the message is not JSON';
  }
  if (json.kind === 'sweep') return { kind: 'sweep' };
  if (json.kind === 'attempt') {
    const { workspace, webhook_id, delivery_id, due_at } = json;
    if ([workspace, webhook_id, delivery_id, due_at].every((v) => typeof v === 'string'))
      return { kind: 'attempt', attempt: json as unknown as AttemptMessage };
    return 'an attempt message needs workspace, webhook_id, delivery_id and due_at';
  }
  if (json.kind === 'release') {
    const { workspace, webhook_id, since, after } = json;
    const fields = [workspace, webhook_id, since].every((v) => typeof v === 'string') && (after === undefined || typeof after === 'string');
    if (fields && !Number.isNaN(Date.parse(since as string))) return { kind: 'release', release: json as unknown as ReleaseMessage };
    return 'a release message needs workspace, webhook_id and since (a date-time)';
  }
  if (json.kind === 'probe') {
    const { workspace, webhook_id, due_at } = json;
    if ([workspace, webhook_id, due_at].every((v) => typeof v === 'string') && !Number.isNaN(Date.parse(due_at as string)))
      return { kind: 'probe', probe: json as unknown as ProbeMessage };
    return 'a probe message needs workspace, webhook_id and due_at (a date-time)';
  }
  const type = json['detail-type'];
  const detail = json.detail as PublishedEvent['detail'] | undefined;
  if (json.source !== EVENT_SOURCE || typeof type !== 'string' || !OUTBOUND.has(type)) return 'not an event of this service';
  if (typeof detail?.event_id !== 'string' || typeof detail.company_slug !== 'string' || typeof detail.occurred_at !== 'string')
    return 'the event lacks event_id, company_slug or occurred_at';
  if (Number.isNaN(Date.parse(detail.occurred_at))) return `detail.occurred_at ${JSON.stringify(detail.occurred_at)} is not a date-time`;
  return { kind: 'event', event: { type, detail } };
}

/**
 * One read of each workspace's webhooks for a whole batch (up to ten events of a burst, a cascade's say, where
 * each made its own): sound, since every event of the batch was received, so had occurred, before the
 * read began; a webhook it does not see was made after all of them. A read that fails fails each event
 * that shares it (each comes again).
 */
function sharedReads(read: WebhooksOf): WebhooksOf {
  const reads = new Map<string, Promise<WebhookRecord[]>>();
  return (workspace) => {
    let webhooks = reads.get(workspace);
    if (webhooks === undefined) reads.set(workspace, (webhooks = read(workspace)));
    return webhooks;
  };
}

type Tally = Record<Outcome | 'malformed' | 'errors' | 'requeued' | 'released', number>;

export function consumeWebhookMessages(records: SQSRecord[], queue: WebhookQueue): Promise<SQSBatchResponse & { tally: Tally }> {
  return observeBatch(
    'webhook-deliverer',
    records.length,
    ['WebhookRecordRetries'],
    async () => {
      const tally: Tally = {
        delivered: 0,
        retrying: 0,
        failed: 0,
        parked: 0,
        skipped: 0,
        malformed: 0,
        errors: 0,
        requeued: 0,
        released: 0,
      };
      const webhooksOf = sharedReads(readWebhooks);
      const failures = await allSettled(records.map((record) => consumeOne(record, queue, tally, webhooksOf)));
      return { batchItemFailures: failures.filter((f) => f !== undefined).map((itemIdentifier) => ({ itemIdentifier })), tally };
    },
    ({ tally }) => ({
      fields: { ...tally },
      metrics: [
        ['WebhookAttempts', tally.delivered + tally.retrying + tally.failed],
        ['WebhookDeliveries', tally.delivered],
        ['WebhookAttemptsFailed', tally.retrying + tally.failed],
        ['WebhookDeliveriesFailed', tally.failed],
        ['WebhookDeliveriesRequeued', tally.requeued],
        ['WebhookDeliveriesParked', tally.parked],
      ],
    }),
  );
}

/** One message; its id when it must come again. */
async function consumeOne(record: SQSRecord, queue: WebhookQueue, tally: Tally, webhooksOf: WebhooksOf): Promise<string | undefined> {
  try {
    const message = parseMessage(record.body);
    if (typeof message === 'string') {
      tally.malformed++;
      await queue.deadLetter(record.body, message);
      logger.warn('webhook message dead-lettered', { message_id: record.messageId, reason: message });
      return undefined;
    }
    if (message.kind === 'sweep') {
      const sweep = await sweepDeliveries(queue);
      tally.requeued += sweep.requeued;
      if (sweep.found > 0) logger.warn('webhook deliveries found lost and queued again', { ...sweep });
      return undefined;
    }
    if (message.kind === 'release') {
      tally.released += await releaseWaiting(message.release, queue);
      return undefined;
    }
    const outcomes =
      message.kind === 'event'
        ? await deliverEvent(message.event, queue, webhooksOf)
        : [message.kind === 'probe' ? await probeEndpoint(message.probe, queue) : await continueDelivery(message.attempt, queue)];
    for (const outcome of outcomes) tally[outcome]++;
    return undefined;
  } catch (error) {
    tally.errors++;
    // The parts that did settle are counted now: their duplicates, when the message comes again, are skipped.
    if (error instanceof PartlyDelivered) for (const outcome of error.outcomes) tally[outcome]++;
    logger.warn('webhook message failed; it will be delivered again', {
      message_id: record.messageId,
      error: sourceMapped(error as Error),
    });
    return record.messageId;
  }
}
