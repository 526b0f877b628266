import { sqsDeadLetters } from '#events/deadLetters';
import { lazySqsSend } from '#events/sqs';

/**
 * Where deliveries wait for their next attempt: the retry lane, a queue apart from the one the bus
 * rule fills, so retries and endpoints already failing never stand in the way of fresh events to
 * healthy ones (a message received after a delay of at most 15 minutes; longer waits are taken in
 * hops); and where the deliverer's own failures are described (the dead-letter queue, which alarms:
 * malformed messages, deliveries a sweep found lost a fourth time). SQS deployed; in-process locally (lib/local/webhookQueue.ts), behind this interface.
 */
export interface AttemptMessage {
  kind: 'attempt';
  workspace: string;
  webhook_id: string;
  delivery_id: string;
  /** When the attempt is due (ISO 8601). */
  due_at: string;
}

/** The message of a delivery's automatic attempt due at `due_at`. */
export const attemptMessage = (d: { workspace: string; webhook_id: string; id: string }, due_at: string): AttemptMessage => ({
  kind: 'attempt',
  workspace: d.workspace,
  webhook_id: d.webhook_id,
  delivery_id: d.id,
  due_at,
});

/** A failing endpoint's breaker's probe (breaker.ts): due at `due_at`, the time its chain armed it for. */
export interface ProbeMessage {
  kind: 'probe';
  workspace: string;
  webhook_id: string;
  due_at: string;
}

export const probeMessage = (w: { workspace: string; id: string }, due_at: string): ProbeMessage => ({
  kind: 'probe',
  workspace: w.workspace,
  webhook_id: w.id,
  due_at,
});

/**
 * The waiting deliveries of a webhook whose breaker closed (or that was turned off), to queue due now
 * (probes.ts): those of events since `since`, after the delivery `after` when a release goes on.
 */
export interface ReleaseMessage {
  kind: 'release';
  workspace: string;
  webhook_id: string;
  since: string;
  after?: string;
}

/** What the deliverer puts on the retry lane for itself. */
export type LaneMessage = AttemptMessage | ProbeMessage | ReleaseMessage;

export interface WebhookQueue {
  /** `message` received again after `delayMs` (at most 15 minutes). */
  later(message: LaneMessage, delayMs: number): Promise<void>;
  deadLetter(body: string, reason: string): Promise<void>;
}

/**
 * The lanes on SQS, its client loaded at the first message (events/sqs.ts): the deliverer sends only for
 * retries and dead letters, a recovery only when it has deliveries to queue. A send that fails (SQS
 * unreachable or not loaded) throws to the caller, as it did with a bundled client.
 */
export function sqsWebhookQueue(retryQueueUrl: string, deadLetterUrl: string, send = lazySqsSend()): WebhookQueue {
  const deadLetters = sqsDeadLetters(deadLetterUrl, send);
  return {
    async later(message, delayMs) {
      await send({
        QueueUrl: retryQueueUrl,
        MessageBody: JSON.stringify(message),
        DelaySeconds: Math.max(0, Math.min(900, Math.ceil(delayMs / 1000))),
      });
    },
    deadLetter: (body, reason) => deadLetters.put(body, reason),
  };
}

/** Where the local stack's in-process retry lane is registered (globalThis: one lane whatever copy of this module a handler loads). */
const LOCAL_LANE = Symbol.for('project-label-service.webhook-retry-lane');
type WithLane = { [LOCAL_LANE]?: WebhookQueue };

/** Registers the in-process retry lane of a local stack (lib/local/webhookQueue.ts), for routes that queue attempts. */
export function useLocalRetryLane(queue: WebhookQueue | undefined): void {
  (globalThis as WithLane)[LOCAL_LANE] = queue;
}

/**
 * The retry lane as a route sees it (a recovery queues its attempts there): the local stack's in-process
 * lane when one is registered, else SQS (WEBHOOK_RETRY_QUEUE_URL; the stack sets it on the routes that
 * send to it), else undefined: nowhere to queue.
 */
export function retryLane(env: NodeJS.ProcessEnv = process.env): WebhookQueue | undefined {
  const local = (globalThis as WithLane)[LOCAL_LANE];
  if (local) return local;
  const url = env.WEBHOOK_RETRY_QUEUE_URL;
  return url ? sqsWebhookQueue(url, env.WEBHOOK_DEAD_LETTER_QUEUE_URL ?? '') : undefined;
}
