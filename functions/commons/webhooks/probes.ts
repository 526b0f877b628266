import { MINUTE } from '#domain/durations';
import { mapInFlight } from '#store/batches';
import { recoverableSince, rescheduleDelivery } from '#store/dueDeliveries';
import { claimDelivery, readDelivery } from '#store/webhookDeliveries';
import { webhookBreaker } from '#store/webhookBreaker';
import { readWebhook } from '#store/webhooks';
import { parkedUntil, probeWait, queueProbe } from './breaker';
import { RECHECK_MS } from './decide';
import { attemptScheduled, type Outcome } from './deliveries';
import { PING_TYPE } from './eventTypes';
import { attemptMessage, type ProbeMessage, type WebhookQueue } from './queue';
import { ATTEMPT_HOLD_MS, deliverySettings, LOST_AFTER_MS } from './settings';

/**
 * The breaker's probes and what follows them (breaker.ts). A probe message, when due, takes the probe
 * (once, however often it comes) and attempts the webhook's oldest waiting delivery: a success closes
 * the breaker and releases every waiting delivery, oldest first, onto the retry lane; a failure parks
 * that delivery again and arms the next probe. A probe that finds the breaker closed (a success ended
 * the run meanwhile, a manual one say, or this probe's own message came again after it released some)
 * releases what still waits, as one that finds its webhook turned off does (each waiting delivery's
 * attempt then ends it unsent); one that finds another time armed, or its webhook deleted, ends.
 */

/** Deliveries one release queues at most; a longer backlog is released by a further probe message, queued at once. */
const RELEASED_PER_MESSAGE = 200;
/** Schedules written and messages sent at once. */
const IN_FLIGHT = 16;

/** How far back a webhook's deliveries may still wait: the longest a run lasts, and the retries of the deliveries it found under way. */
function waitingSinceMs(now: number): number {
  const { retriesMs, deactivateAfterMs } = deliverySettings();
  return now - deactivateAfterMs - 1.2 * retriesMs.reduce((a, b) => a + b, 0) - LOST_AFTER_MS;
}

/**
 * A delivery due this long ago still has its message on the way (a release's, say); one due longer ago is
 * waiting all the same (a park whose horizon passed, a message lost): the probe takes it, a release queues it.
 */
const QUEUED_MS = MINUTE;

const waiting = (ws: string, id: string, now: number, limit: number) =>
  recoverableSince(ws, id, waitingSinceMs(now), { limit, now, overdueMs: QUEUED_MS, ping: PING_TYPE, waitingOnly: true });

export async function probeEndpoint(message: ProbeMessage, lane: WebhookQueue): Promise<Outcome> {
  const { workspace: ws, webhook_id: id, due_at: due } = message;
  const now = Date.now();
  if (Date.parse(due) > now) {
    await queueProbe(lane, { workspace: ws, id }, due, now); // a hop of a wait longer than the queue's
    return 'skipped';
  }
  const webhook = await readWebhook(ws, id);
  if (!webhook) return 'skipped'; // deleted, and its deliveries with it
  if (!webhook.active) {
    // Turned off (for failing, say): its waiting deliveries come due, and each attempt ends it unsent.
    await releaseWaiting(ws, id, lane);
    return 'skipped';
  }
  const until = new Date(now + ATTEMPT_HOLD_MS).toISOString();
  const { taken, breaker } = await webhookBreaker.take(ws, id, due, until);
  if (!taken) {
    if (!breaker.open) await releaseWaiting(ws, id, lane);
    return 'skipped';
  }
  const failed = breaker.open ? breaker.probes : 0;
  const { retriesMs } = deliverySettings();
  /** The next probe of this chain, `wait` from now, the `probes`-th failed so far (unless the run ended meanwhile). */
  const next = async (probes: number, wait: number): Promise<void> => {
    const at = new Date(Date.now() + wait).toISOString();
    if (await webhookBreaker.again(ws, id, until, at, probes)) await queueProbe(lane, webhook, at, Date.now());
  };
  const [oldest] = (await waiting(ws, id, now, 1)).deliveries;
  const delivery = oldest && (await readDelivery(ws, id, oldest.id));
  console.error(
    'PROBE-PICK',
    Date.now(),
    JSON.stringify(delivery && { s: delivery.status, n: delivery.next_attempt_at, c: delivery.claimed_until }),
  );
  if (!delivery?.next_attempt_at) {
    await next(failed, probeWait(failed, retriesMs)); // nothing waits: the breaker stays open, the next probe looks again
    return 'skipped';
  }
  if (!(await claimDelivery(delivery, delivery.next_attempt_at, new Date(now).toISOString(), until))) {
    await next(failed, RECHECK_MS); // an attempt on request holds it right now: look again in a moment
    return 'skipped';
  }
  const outcome = await attemptScheduled(delivery, webhook, lane, until, parkedUntil(now));
  if (outcome === 'delivered') await releaseWaiting(ws, id, lane);
  else await next(failed + 1, probeWait(failed + 1, retriesMs));
  return outcome;
}

/**
 * Every delivery of the webhook still waiting (parked, or scheduled for a retry) due now on the retry
 * lane, oldest first: the schedules written at once (a waiting schedule superseded, so that its own
 * message sends nothing: rescheduleDelivery), then the messages queued one after another in the
 * deliveries' order; past RELEASED_PER_MESSAGE, a probe message due now goes on with the rest. A
 * message lost between its schedule and its send leaves the delivery due with none: the sweeper's.
 */
async function releaseWaiting(ws: string, id: string, lane: WebhookQueue): Promise<number> {
  const now = Date.now();
  const found = await waiting(ws, id, now, RELEASED_PER_MESSAGE);
  const due = new Date(now).toISOString();
  const scheduled = await mapInFlight(found.deliveries, IN_FLIGHT, async (d) =>
    (await rescheduleDelivery(d, due, due, d.next_attempt_at)) ? d : undefined,
  );
  const released = scheduled.filter((d) => d !== undefined);
  for (const d of released) await lane.later(attemptMessage(d, due), 0);
  if (found.more) await queueProbe(lane, { workspace: ws, id }, due, now);
  return released.length;
}
