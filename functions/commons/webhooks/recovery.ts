import { Busy, Conflict } from '#domain/errors';
import { mapInFlight } from '#store/batches';
import { randomUUID } from 'node:crypto';
import { webhookBreaker } from '#webhooks/store/webhookBreaker';
import { type Recoverable, recoverableSince, rescheduleDelivery } from '#webhooks/store/dueDeliveries';
import { PING_TYPE } from './eventTypes';
import { attemptMessage, retryLane, type WebhookQueue } from './queue';
import { LOST_AFTER_MS } from './settings';
import { freeRecoveryLease, takeRecoveryLease } from './store/recoveryLease';
import { type CarryGuard, urlSetAt, type WebhookRecord } from './entities';
import { getWebhook } from './subscriptions';

/** Deliveries one recovery takes at most: a longer outage is recovered in calls (each answers whether more are left). */
const MAX_RECOVERED = 500;
/** Schedules written and messages sent at once. */
const IN_FLIGHT = 16;
/** How long one call spends queueing, well inside the function's 20 s and API Gateway's 29 s: what is left waits for the next call. */
const BUDGET_MS = 8_000;
/** A recovery's lease: longer than a call can run (its budget, and its reads before it), so a second call waits for the first. */
const LEASE_SECONDS = 30;

/**
 * A recovery after an outage (as Svix's): every delivery of the webhook's events since `since` that
 * was not delivered (failed, waiting for a retry, or lost: long overdue) is due again now and queued on
 * the retry lane, which sends them at its own pace beside the other retries. A waiting delivery's old
 * schedule is marked superseded so its message, when it comes, sends nothing. Pings, deliveries due
 * already (queued) and those an attempt holds right now are left as they are, so a second recovery
 * queues nothing twice; a call that takes 500, or runs out of its time, says `more`: call again.
 * Only deliveries made since the webhook's URL was set are taken, and only for a caller who may read
 * what the webhook carries (`mayCarry`).
 */
export async function recoverDeliveries(
  ws: string,
  id: string,
  sinceMs: number,
  mayCarry: CarryGuard,
): Promise<{ queued: number; more: boolean }> {
  const webhook = await getWebhook(ws, id);
  mayCarry(webhook.events);
  const holder = randomUUID();
  const lease = await takeRecoveryLease(ws, id, LEASE_SECONDS, holder);
  if (!lease.taken)
    throw new Conflict(
      'A recovery of this webhook is under way; call again once it ends (it answers `more` when deliveries are left).',
      // When the call holding it should have ended (its budget), or its lease, whichever comes first.
      Math.max(1, Math.min(lease.until - Math.floor(Date.now() / 1000), Math.ceil(BUDGET_MS / 1000) + 1)),
    );
  try {
    return await recoverUnderLease(webhook, sinceMs);
  } finally {
    // Should freeing fail, the lease ends by itself: the answer stands.
    await freeRecoveryLease(ws, id, holder).catch(() => undefined);
  }
}

async function recoverUnderLease(webhook: WebhookRecord, sinceMs: number): Promise<{ queued: number; more: boolean }> {
  const { workspace: ws, id } = webhook;
  if (!webhook.active)
    throw new Conflict('The webhook is turned off: turn it on (PUT with "active": true) before recovering its deliveries.');
  const breaker = await webhookBreaker.read(ws, id);
  if (breaker.open && breaker.probe_at !== undefined)
    throw new Conflict(
      `The endpoint is failing and its circuit breaker is open: its deliveries wait for the next probe (due ${breaker.probe_at}), which sends them all, oldest first, once it gets a 2xx. A ping that gets a 2xx ends the run of failures; recover after it.`,
    );
  const lane = retryLane();
  if (!lane) throw new Busy('No retry lane is configured for this function (WEBHOOK_RETRY_QUEUE_URL).', 60);
  const started = Date.now();
  const found = await recoverableSince(ws, id, sinceMs, {
    limit: MAX_RECOVERED,
    now: started,
    overdueMs: LOST_AFTER_MS,
    ping: PING_TYPE,
    // Only deliveries made for the URL as it is now: none made for an earlier receiver goes to this one.
    madeSince: urlSetAt(webhook),
    // Eventually consistent: a delivery that changed in the last second is left or queued as it was read, and
    // queueing is conditional on its schedule (rescheduleDelivery): it is never queued twice.
    eventually: true,
  });
  const due = new Date(started).toISOString();
  let queued = 0;
  let left = false;
  await mapInFlight(found.deliveries, IN_FLIGHT, async (d) => {
    if (Date.now() - started > BUDGET_MS) return void (left = true);
    if (await requeue(d, due, lane)) queued++;
  });
  return { queued, more: found.more || left };
}

/**
 * A delivery due again at `due` (now), queued on the lane: the schedule first, then its message (a
 * message ahead of its schedule would find an older one and be dropped); a waiting delivery's old
 * schedule is marked superseded. Should the message not go, the delivery is due with none: overdue,
 * the sweeper or a later recovery takes it. False when it was left (delivered, held by an attempt, or
 * moved on since it was read). `sweptUnder`: a sweep's, counted on the delivery and left when the
 * count (of sweeps since its last recorded attempt) reached it (sweeper.ts).
 */
export async function requeue(d: Recoverable, due: string, lane: WebhookQueue, sweptUnder?: number): Promise<boolean> {
  const stale = d.status === 'pending' ? d.next_attempt_at : undefined;
  if (!(await rescheduleDelivery(d, due, due, stale, sweptUnder))) return false;
  await lane.later(attemptMessage(d, due), 0);
  return true;
}
