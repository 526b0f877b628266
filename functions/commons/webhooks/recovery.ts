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
 * was not delivered, failed or waiting for a retry, is due again now and queued on the retry lane,
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
    // The message first, then the schedule it carries (as the deliverer does): a failure in between leaves
    // a message no schedule matches (it sends nothing) and the delivery as it was, for a retry to recover.
    await lane.later({ kind: 'attempt', workspace: ws, webhook_id: id, delivery_id: d.id, due_at: due }, 0);
    if (await rescheduleDelivery(d, due, due, stale)) queued++;
  }
  return { queued, more };
}

/** Not delivered: failed, or pending with a retry still to come (not a ping, not due already). */
function recoverable(d: DeliveryRecord, now: number): boolean {
  if (d.event_type === PING_TYPE) return false;
  if (d.status === 'failed') return true;
  return d.status === 'pending' && d.next_attempt_at !== undefined && Date.parse(d.next_attempt_at) > now;
}
