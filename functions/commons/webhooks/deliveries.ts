import { createHash } from 'node:crypto';
import { isOperationalType } from '#domain/eventNames';
import { rescheduleDelivery } from '#webhooks/store/dueDeliveries';
import { keys } from '#store/keys';
import { claimDelivery, putNewDelivery, readDelivery, recordAttempt, releaseClaim } from '#webhooks/store/webhookDeliveries';
import { webhookBreaker } from '#webhooks/store/webhookBreaker';
import { readWebhook, readWebhooks } from '#webhooks/store/webhooks';
import { outcomeOf, sendAttempt, settleAttempt } from './attempts';
import type { DeliveryRecord, WebhookRecord } from './entities';
import { subscribesTo } from './eventTypes';
import { type AttemptMessage, attemptMessage, type WebhookQueue } from './queue';
import { breakerGate } from './breaker';
import { requeue } from './recovery';
import { decide, retryWait } from './decide';
import { ATTEMPT_HOLD_MS, deliverySettings, MAX_QUEUE_DELAY_MS } from './settings';

/**
 * Deliveries: each event the service publishes, to every active webhook of its workspace that wants
 * it, one delivery per event and webhook (its id, the `webhook-id` header, derived from both, so a
 * redelivered event makes no second delivery); the first attempt at once, retries on the settings'
 * schedule through the queue, until the last fails it (the customer's endpoint, not ours: counted, never paged).
 */

/** An event as the bus carries it: its type and its detail (which names its workspace). */
export interface PublishedEvent {
  type: string;
  detail: { event_id: string; company_slug: string; occurred_at: string } & Record<string, unknown>;
}

/** How a delivery finds the webhooks of a workspace (readWebhooks, or the consumer's read shared by a batch). */
export type WebhooksOf = (workspace: string) => Promise<WebhookRecord[]>;

/** What became of a delivery's turn: sent (and how it went), parked behind an open breaker (breaker.ts), or nothing to do. */
export type Outcome = 'delivered' | 'retrying' | 'failed' | 'parked' | 'skipped';

/** Time first (12 hex digits of milliseconds), so a webhook's deliveries sort by their event's time. */
export function deliveryId(atMs: number, ...parts: string[]): string {
  const hash = createHash('sha256').update(parts.join('\n')).digest('hex').slice(0, 20);
  return `${keys.deliveryIdPrefix(atMs)}${hash}`;
}

/** The slugs of the projects an event is about (none for a workspace's label events). */
function projectsOf({ type, detail }: PublishedEvent): unknown[] {
  if (type.startsWith('Project ')) return [(detail.data as { slug?: unknown } | undefined)?.slug, detail.source_slug];
  return [detail.project_slug];
}

/** The webhook an operational event is about (`Webhook Failing`, ...): never its own receiver, whatever it subscribes to. */
const aboutWebhook = ({ type, detail }: PublishedEvent) =>
  isOperationalType(type) ? (detail.data as { id?: unknown } | undefined)?.id : undefined;

/**
 * Whether the webhook existed when the event happened: one made after it (while the stream or the bus
 * still carried the event, a lag of up to seconds) gets only what happens from its creation on.
 */
const existedAt = (webhook: WebhookRecord, event: PublishedEvent) => Date.parse(webhook.created_at) <= Date.parse(event.detail.occurred_at);

function wants(webhook: WebhookRecord, event: PublishedEvent): boolean {
  if (!webhook.active || !existedAt(webhook, event) || aboutWebhook(event) === webhook.id) return false;
  if (!subscribesTo(webhook, event.type)) return false;
  return webhook.project_slug === undefined || projectsOf(event).includes(webhook.project_slug);
}

export function newDelivery(webhook: WebhookRecord, type: string, eventId: string, id: string, payload: unknown): DeliveryRecord {
  const now = new Date().toISOString();
  return {
    id,
    webhook_id: webhook.id,
    workspace: webhook.workspace,
    event_type: type,
    event_id: eventId,
    payload: JSON.stringify(payload),
    status: 'pending',
    attempts: 0,
    next_attempt_at: now,
    created_at: now,
  };
}

const later = (ms: number) => new Date(Date.now() + ms).toISOString();

/**
 * One event to every webhook of its workspace that wants it, concurrently: a slow endpoint holds up
 * no other, and one that fails cuts no other short. The first attempt is made at once, held by the delivery's creation (a duplicate of the
 * event finds the delivery made and sends nothing), except to an endpoint already failing: its
 * delivery goes to the retry lane at once, so the fresh lane serves healthy endpoints only, or, once
 * its breaker is open, parks behind the breaker's probe (breaker.ts) with no message at all. The
 * workspace's webhooks are read after the event was received (`webhooksOf`: the consumer shares one read among a batch's events),
 * and those made after it happened are left out (`existedAt`).
 */
export async function deliverEvent(event: PublishedEvent, queue: WebhookQueue, webhooksOf: WebhooksOf = readWebhooks): Promise<Outcome[]> {
  const { detail } = event;
  const webhooks = (await webhooksOf(detail.company_slug)).filter((w) => wants(w, event));
  const at = Date.parse(detail.occurred_at);
  const payload = { type: event.type, timestamp: detail.occurred_at, data: detail };
  const settled = await Promise.allSettled(
    webhooks.map(async (webhook): Promise<Outcome> => {
      const failing = webhook.failing_since !== undefined;
      const fresh = newDelivery(webhook, event.type, detail.event_id, deliveryId(at, webhook.id, detail.event_id), payload);
      const breaker = failing ? await breakerGate(webhook, fresh.id, queue, Date.now()) : { open: false as const };
      if (breaker.open) {
        const { created, delivery } = await putNewDelivery({ ...fresh, next_attempt_at: breaker.until });
        return created ? stillParked(delivery, webhook, queue) : claimAndAttempt(delivery, webhook, queue);
      }
      const until = later(ATTEMPT_HOLD_MS);
      const { created, delivery } = await putNewDelivery(failing ? fresh : { ...fresh, claimed_until: until });
      if (!created) return claimAndAttempt(delivery, webhook, queue); // the event came again: only an abandoned attempt is taken up
      if (!failing) return held(delivery, until, () => attemptScheduled(delivery, webhook, queue, until));
      await queue.later(messageOf(delivery), 0);
      return 'skipped';
    }),
  );
  // Each webhook's part settles on its own: one that failed (the message comes again, and its duplicate
  // finds the others' deliveries made) never cuts short another's send or record still in flight.
  const outcomes = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed) throw new PartlyDelivered(outcomes, failed.reason);
  return outcomes;
}

/** An event some of whose webhooks' parts failed (the message comes again): what the others' parts did. */
export class PartlyDelivered extends Error {
  override readonly name = 'PartlyDelivered';
  constructor(
    readonly outcomes: Outcome[],
    override readonly cause: unknown,
  ) {
    super(`A webhook's part of the event failed: ${cause instanceof Error ? cause.message : String(cause)}`);
  }
}

const messageOf = (d: DeliveryRecord): AttemptMessage => attemptMessage(d, d.next_attempt_at ?? new Date().toISOString());

/**
 * The automatic attempt due now, if decide.ts says so and this caller can hold it (the claim's condition
 * holds the decision); parked instead while the endpoint's breaker is open (breaker.ts).
 */
async function claimAndAttempt(delivery: DeliveryRecord, webhook: WebhookRecord | undefined, queue: WebhookQueue): Promise<Outcome> {
  const due = delivery.next_attempt_at;
  const now = Date.now();
  if (due === undefined || decide(delivery, due, now).do !== 'attempt') return 'skipped';
  const breaker = webhook?.active ? await breakerGate(webhook, delivery.id, queue, now) : { open: false as const };
  // Parked: its schedule moves to the breaker's horizon (this message's, superseded, sends nothing).
  if (breaker.open) {
    const parked = await rescheduleDelivery(delivery, breaker.until, new Date(now).toISOString(), due);
    return parked ? stillParked({ ...delivery, next_attempt_at: breaker.until }, webhook!, queue) : 'skipped';
  }
  const until = later(ATTEMPT_HOLD_MS);
  if (!(await claimDelivery(delivery, due, new Date().toISOString(), until))) return 'skipped';
  return held(delivery, until, () => attemptScheduled(delivery, webhook, queue, until));
}

/**
 * A delivery just parked, as the breaker is now: still open with a probe armed, it waits; open with
 * none (the chain ended, nothing waiting, as this park was being written), it arms one; closed (a
 * probe's release read the waiting deliveries before this park was written), it is due again at once.
 */
async function stillParked(delivery: DeliveryRecord, webhook: WebhookRecord, queue: WebhookQueue): Promise<Outcome> {
  const breaker = await webhookBreaker.read(delivery.workspace, delivery.webhook_id);
  if (breaker.open && (breaker.probe_at !== undefined || (await breakerGate(webhook, delivery.id, queue, Date.now())).open))
    return 'parked';
  await requeue(delivery, new Date().toISOString(), queue);
  return 'skipped';
}

/** Runs a held attempt; if it fails before recording, the hold is let go so that the message's next delivery takes it up. */
async function held(delivery: DeliveryRecord, until: string, attempt: () => Promise<Outcome>): Promise<Outcome> {
  try {
    return await attempt();
  } catch (error) {
    await releaseClaim(delivery, until).catch(() => undefined);
    throw error;
  }
}

/**
 * A message of the retry lane (a retry, a hop of a long wait, a recovery's or a sweep's re-queue), as
 * decide.ts says: attempted when due, sent back to wait (hops of at most 15 minutes) or to look again
 * for a schedule about to be recorded, or dropped.
 */
export async function continueDelivery(message: AttemptMessage, queue: WebhookQueue): Promise<Outcome> {
  const delivery = await readDelivery(message.workspace, message.webhook_id, message.delivery_id);
  const decision = decide(delivery, message.due_at, Date.now());
  if (decision.do === 'wait' || decision.do === 'recheck') await queue.later(message, decision.ms);
  if (decision.do !== 'attempt' || !delivery) return 'skipped';
  return claimAndAttempt(delivery, await readWebhook(message.workspace, message.webhook_id), queue);
}

/**
 * An automatic attempt, held by its caller. A failure schedules the next one on the retry lane (the
 * message sent before the delivery records it: a crash in between repeats an attempt, never loses
 * one), or, for a breaker's probe (`parkUntil`), parks the delivery again with no message; the
 * last fails the delivery. A webhook deleted or turned off meanwhile, or that no longer subscribes to
 * the delivery's type, ends its pending deliveries unsent.
 */
export async function attemptScheduled(
  delivery: DeliveryRecord,
  webhook: WebhookRecord | undefined,
  queue: WebhookQueue,
  until: string,
  parkUntil?: string,
): Promise<Outcome> {
  const unsubscribed = webhook && !subscribesTo(webhook, delivery.event_type);
  if (!webhook || !webhook.active || unsubscribed) {
    const why = !webhook
      ? 'the webhook was deleted'
      : unsubscribed
        ? `the webhook no longer subscribes to ${delivery.event_type}`
        : 'the webhook is turned off';
    await recordAttempt(delivery, { status: 'failed', last_error: `Not sent: ${why}.` }, ['next_attempt_at'], 'none', { heldUntil: until });
    return 'skipped';
  }
  const attempt = await sendAttempt(delivery, webhook);
  const { set, remove, logged } = outcomeOf(attempt, 'automatic');
  if (!attempt.ok) {
    const { retriesMs } = deliverySettings();
    const scheduled = retriesMs[delivery.auto_attempts ?? 0];
    const wait = scheduled === undefined ? undefined : retryWait(scheduled, attempt.result.retryAfterMs, Math.max(...retriesMs));
    if (wait !== undefined && parkUntil !== undefined) set.next_attempt_at = parkUntil;
    else if (wait !== undefined) {
      const next = { ...delivery, next_attempt_at: new Date(Date.parse(attempt.at) + wait).toISOString() };
      await queue.later(messageOf(next), Math.min(wait, MAX_QUEUE_DELAY_MS));
      set.next_attempt_at = next.next_attempt_at;
    } else {
      // Exhausted by the customer's endpoint: the delivery's log says so and the dashboard counts it
      // (WebhookDeliveriesFailed); nothing pages (the dead-letter queue is for the deliverer's own failures).
      set.status = 'failed';
      remove.push('next_attempt_at');
    }
  }
  await settleAttempt(webhook, attempt, () => recordAttempt(delivery, set, remove, 'automatic', { logged, heldUntil: until }));
  return attempt.ok ? 'delivered' : set.status === 'failed' ? 'failed' : 'retrying';
}
