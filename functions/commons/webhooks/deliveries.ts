import { createHash, randomUUID } from 'node:crypto';
import type * as z from 'zod';
import { NotFound } from '#domain/errors';
import { readPage, type PageRequest } from '#domain/paging';
import { decodeDelivery, deliveriesRange } from '#store/webhookItem';
import { putNewDelivery, readDelivery, readWebhook, readWebhooks, recordAttempt } from '#store/webhooks';
import type { WebhookPingData } from './answers';
import { attemptNow, noteHealth, outcomeOf, sendAttempt } from './attempts';
import type { DeliveryRecord, WebhookRecord } from './entities';
import { ALL_EVENTS, PING_TYPE } from './eventTypes';
import type { AttemptMessage, WebhookQueue } from './queue';
import { deliverySettings, MAX_QUEUE_DELAY_MS } from './settings';
import { getWebhook } from './subscriptions';

/**
 * Deliveries: each event the service publishes, to every active webhook of its workspace that wants
 * it, one delivery per event and webhook (its id, the `webhook-id` header, derived from both, so a
 * redelivered event makes no second delivery); the first attempt at once, retries on the settings'
 * schedule through the queue, the last failure dead-lettered.
 */

/** An event as the bus carries it: its type and its detail (which names its workspace). */
export interface PublishedEvent {
  type: string;
  detail: { event_id: string; company_slug: string; occurred_at: string } & Record<string, unknown>;
}

export type Outcome = 'delivered' | 'retrying' | 'failed' | 'skipped';

/** Time first (12 hex digits of milliseconds), so a webhook's deliveries sort by their event's time. */
function deliveryId(atMs: number, ...parts: string[]): string {
  const hash = createHash('sha256').update(parts.join('\n')).digest('hex').slice(0, 20);
  return `msg_${Math.max(0, atMs).toString(16).padStart(12, '0')}${hash}`;
}

/** The slugs of the projects an event is about (none for a workspace's label events). */
function projectsOf({ type, detail }: PublishedEvent): unknown[] {
  if (type.startsWith('Project ')) return [(detail.data as { slug?: unknown } | undefined)?.slug, detail.source_slug];
  return [detail.project_slug];
}

function wants(webhook: WebhookRecord, event: PublishedEvent): boolean {
  if (!webhook.active) return false;
  if (!webhook.events.includes(ALL_EVENTS) && !webhook.events.includes(event.type)) return false;
  return webhook.project_slug === undefined || projectsOf(event).includes(webhook.project_slug);
}

function newDelivery(webhook: WebhookRecord, type: string, eventId: string, id: string, payload: unknown): DeliveryRecord {
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

/** One event to every webhook of its workspace that wants it, concurrently: a slow endpoint holds up no other. */
export async function deliverEvent(event: PublishedEvent, queue: WebhookQueue): Promise<Outcome[]> {
  const { detail } = event;
  const webhooks = (await readWebhooks(detail.company_slug)).filter((w) => wants(w, event));
  const at = Date.parse(detail.occurred_at);
  const payload = { type: event.type, timestamp: detail.occurred_at, data: detail };
  return Promise.all(
    webhooks.map(async (webhook) => {
      const fresh = newDelivery(webhook, event.type, detail.event_id, deliveryId(at, webhook.id, detail.event_id), payload);
      const { created, delivery } = await putNewDelivery(fresh);
      if (created || isDue(delivery)) return attemptScheduled(delivery, webhook, queue);
      // The event came again: its delivery goes on as scheduled (the message is sent again in case it was lost).
      if (delivery.status === 'pending' && delivery.next_attempt_at)
        await queue.later(messageOf(delivery), waitUntil(delivery.next_attempt_at));
      return 'skipped';
    }),
  );
}

const isDue = (d: DeliveryRecord) =>
  d.status === 'pending' && d.next_attempt_at !== undefined && Date.parse(d.next_attempt_at) <= Date.now();
const waitUntil = (iso: string) => Math.min(MAX_QUEUE_DELAY_MS, Math.max(0, Date.parse(iso) - Date.now()));
const messageOf = (d: DeliveryRecord): AttemptMessage => ({
  kind: 'attempt',
  workspace: d.workspace,
  webhook_id: d.webhook_id,
  delivery_id: d.id,
  due_at: d.next_attempt_at ?? new Date().toISOString(),
});

/** A scheduled attempt's message: attempted when due, waited on in hops of 15 minutes, dropped when superseded. */
export async function continueDelivery(message: AttemptMessage, queue: WebhookQueue): Promise<Outcome> {
  const delivery = await readDelivery(message.workspace, message.webhook_id, message.delivery_id);
  if (!delivery || delivery.status !== 'pending') return 'skipped';
  if (delivery.next_attempt_at !== undefined && message.due_at < delivery.next_attempt_at) return 'skipped';
  if (Date.parse(message.due_at) > Date.now()) {
    await queue.later(message, waitUntil(message.due_at));
    return 'skipped';
  }
  return attemptScheduled(delivery, await readWebhook(message.workspace, message.webhook_id), queue);
}

/**
 * An automatic attempt. A failure schedules the next one (the message sent before the delivery records
 * it: a crash in between repeats an attempt, never loses one) or, after the last, dead-letters the
 * delivery and fails it. A webhook deleted or turned off meanwhile ends its pending deliveries unsent.
 */
async function attemptScheduled(delivery: DeliveryRecord, webhook: WebhookRecord | undefined, queue: WebhookQueue): Promise<Outcome> {
  if (!webhook || !webhook.active) {
    const why = webhook ? 'the webhook is turned off' : 'the webhook was deleted';
    await recordAttempt(delivery, { status: 'failed', last_error: `Not sent: ${why}.` }, ['next_attempt_at'], false);
    return 'skipped';
  }
  const attempt = await sendAttempt(delivery, webhook);
  const { set, remove } = outcomeOf(attempt);
  if (!attempt.ok) {
    const wait = deliverySettings().retriesMs[delivery.attempts];
    if (wait !== undefined) {
      const next = { ...delivery, next_attempt_at: new Date(Date.parse(attempt.at) + wait).toISOString() };
      await queue.later(messageOf(next), Math.min(wait, MAX_QUEUE_DELAY_MS));
      set.next_attempt_at = next.next_attempt_at;
    } else {
      set.status = 'failed';
      remove.push('next_attempt_at');
    }
  }
  if (set.status === 'failed') {
    // Described on the dead-letter queue before the delivery records its end: a crash in between repeats
    // the last attempt and its dead letter, never leaves a failure no alarm saw.
    const reason = `${delivery.attempts + 1} attempts failed; the last: ${attempt.result.error ?? `HTTP ${attempt.result.status}`}`;
    await queue.deadLetter(
      JSON.stringify({ ...messageOf(delivery), event_type: delivery.event_type, event_id: delivery.event_id }),
      reason,
    );
  }
  await recordAttempt(delivery, set, remove);
  await noteHealth(webhook, attempt);
  return attempt.ok ? 'delivered' : set.status === 'failed' ? 'failed' : 'retrying';
}

const deliveryNotFound = (id: string) => new NotFound(`No delivery "${id}" of this webhook.`, 'delivery');

/** A ping, now: the delivery is recorded like any other, and its one attempt answered. */
export async function pingWebhook(ws: string, id: string) {
  const webhook = await getWebhook(ws, id);
  const now = new Date().toISOString();
  const eventId = randomUUID();
  const data: z.infer<typeof WebhookPingData> = { webhook_id: webhook.id, company_slug: ws, event_id: eventId, occurred_at: now };
  const { delivery } = await putNewDelivery(
    newDelivery(webhook, PING_TYPE, eventId, deliveryId(Date.now(), webhook.id, eventId), { type: PING_TYPE, timestamp: now, data }),
  );
  const { attempt, delivery: after } = await attemptNow(delivery, webhook, true);
  return { attempt, delivery: after };
}

/** A delivery sent again now, whatever became of it (same `webhook-id`: it is the same event). */
export async function redeliver(ws: string, id: string, deliveryIdGiven: string): Promise<DeliveryRecord> {
  const webhook = await getWebhook(ws, id);
  const delivery = await readDelivery(ws, id, deliveryIdGiven);
  if (!delivery) throw deliveryNotFound(deliveryIdGiven);
  return (await attemptNow(delivery, webhook)).delivery;
}

export async function listDeliveries(ws: string, id: string, req: PageRequest) {
  await getWebhook(ws, id);
  return readPage(deliveriesRange(ws, id), ['deliveries'], req, decodeDelivery);
}
