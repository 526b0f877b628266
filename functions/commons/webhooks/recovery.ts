import { Busy, Conflict } from '#domain/errors';
import { deliveriesSince, rescheduleDelivery } from '#store/webhookDeliveries';
import type { DeliveryRecord } from './entities';
import { PING_TYPE } from './eventTypes';
import { retryLane } from './queue';
import { getWebhook } from './subscriptions';

/** Deliveries one recovery takes at most: a longer outage is recovered in calls (each answers whether more are left). */
const MAX_RECOVERED = 1_000;

/**
 * A recovery after an outage (as Svix's): every delivery of the webhook's events since `since` that
 * was not delivered, failed or waiting for a retry (or lost: overdue), is due again now and queued on the retry lane,
 * which sends them at its own pace (its concurrency cap), beside the other retries. A waiting delivery's
 * old schedule is marked stale so its message, when it comes, sends nothing. Pings, deliveries due
 * already (queued) and those an attempt holds right now are left as they are, so a second recovery
 * queues nothing twice.
 */
export async function recoverDeliveries(ws: string, id: string, sinceMs: number): Promise<{ queued: number; more: boolean }> {
  const webhook = await getWebhook(ws, id);
  if (!webhook.active)
    throw new Conflict('The webhook is turned off: turn it on (PUT with "active": true) before recovering its deliveries.');
  const lane = retryLane();
  if (!lane) throw new Busy('No retry lane is configured for this function (WEBHOOK_RETRY_QUEUE_URL).', 60);
  const { deliveries, more } = await deliveriesSince(ws, id, sinceMs, MAX_RECOVERED);
  const now = new Date();
  const due = now.toISOString();
  let queued = 0;
  for (const d of deliveries.filter((d) => recoverable(d, now.getTime()))) {
    const stale = d.status === 'pending' ? d.next_attempt_at : undefined;
    // The schedule first, then its message (a message ahead of its schedule would find an older one and be
    // dropped). Should the message not go, the delivery is due with none: overdue, a later recovery takes it.
    if (!(await rescheduleDelivery(d, due, due, stale))) continue;
    await lane.later({ kind: 'attempt', workspace: ws, webhook_id: id, delivery_id: d.id, due_at: due }, 0);
    queued++;
  }
  return { queued, more };
}

/** How long past due a pending delivery must be to count as lost: its message would have taken it by then. */
const OVERDUE_MS = 5 * 60_000;

/**
 * Not delivered: failed, or pending with a retry still to come, or pending and long overdue (its message
 * was lost: a recovery that failed before sending it, a message set aside by the queue). Not a ping, and
 * not one due just now (its message is on its way).
 */
function recoverable(d: DeliveryRecord, now: number): boolean {
  if (d.event_type === PING_TYPE) return false;
  if (d.status === 'failed') return true;
  if (d.status !== 'pending' || d.next_attempt_at === undefined) return false;
  const due = Date.parse(d.next_attempt_at);
  return due > now || due < now - OVERDUE_MS;
}
