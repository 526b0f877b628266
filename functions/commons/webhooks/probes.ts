import { MINUTE } from '#domain/durations';
import { mapInFlight } from '#store/batches';
import { recoverableSince, rescheduleDelivery } from '#webhooks/store/dueDeliveries';
import { claimDelivery, readDelivery } from '#webhooks/store/webhookDeliveries';
import { webhookBreaker } from '#webhooks/store/webhookBreaker';
import { readWebhook } from '#webhooks/store/webhooks';
import { parkedUntil, probeWait, queueProbe, retriesSpanMs } from './breaker';
import { RECHECK_MS } from './decide';
import { attemptScheduled, type Outcome } from './deliveries';
import { PING_TYPE } from './eventTypes';
import { attemptMessage, type ProbeMessage, type ReleaseMessage, type WebhookQueue } from './queue';
import { ATTEMPT_HOLD_MS, deliverySettings } from './settings';

/**
 * The breaker's probes and what follows them (breaker.ts). A probe message, when due, takes the probe
 * (once, however often it comes; the same message delivered again takes it up again) and attempts the
 * webhook's oldest waiting delivery: a success closes the breaker and queues the release of every
 * waiting delivery, oldest first, onto the retry lane; a failure parks that delivery again and arms the
 * next probe; nothing waiting ends the chain (the next delivery to wait arms another). A probe that
 * finds the breaker closed (a success ended the run meanwhile, a manual one say) or its webhook turned
 * off queues the release too (each waiting delivery's attempt then sends it, or ends it unsent); one
 * that finds another time armed, or its webhook deleted, ends.
 */

/** Deliveries one release message queues at most; a further message goes on after the last. */
const RELEASED_PER_MESSAGE = 200;
/** Schedules written at once. */
const IN_FLIGHT = 16;
/**
 * A delivery due this long ago still has its message on the way (a release's, say); one due longer ago is
 * waiting all the same (a park whose horizon passed, a message lost): the probe takes it, a release queues it.
 */
const QUEUED_MS = MINUTE;

/** Where a release that does not know the run looks from: the longest a run lasts, and the retries before it. */
const anyRunSince = (now: number) => new Date(now - deliverySettings().deactivateAfterMs - retriesSpanMs()).toISOString();

const waiting = (ws: string, id: string, sinceMs: number, now: number, limit: number, after?: string) =>
  recoverableSince(ws, id, sinceMs, { limit, now, overdueMs: QUEUED_MS, ping: PING_TYPE, waitingOnly: true, after });

/** The release of the webhook's waiting deliveries of events since `since`, queued. */
const queueRelease = (lane: WebhookQueue, ws: string, id: string, since: string, after?: string) =>
  lane.later({ kind: 'release', workspace: ws, webhook_id: id, since, ...(after ? { after } : {}) }, 0);

/**
 * The oldest delivery waiting: from the retries under way when the run began on; should that read stop
 * short of the range's end (a busy webhook's delivered ones before the run), from the run's start.
 */
async function oldestWaiting(ws: string, id: string, failingSince: string, now: number) {
  const began = Date.parse(failingSince);
  const before = await waiting(ws, id, began - retriesSpanMs(), now, 1);
  if (before.deliveries[0] || !before.more) return before.deliveries[0];
  return (await waiting(ws, id, began, now, 1)).deliveries[0];
}

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
    await queueRelease(lane, ws, id, anyRunSince(now)); // turned off (for failing, say): each waiting delivery ends unsent
    return 'skipped';
  }
  const until = new Date(now + ATTEMPT_HOLD_MS).toISOString();
  const { taken, breaker } = await webhookBreaker.take(ws, id, due, new Date(now).toISOString(), until);
  if (!taken || !breaker.open) {
    if (!breaker.open) await queueRelease(lane, ws, id, anyRunSince(now));
    return 'skipped';
  }
  const { retriesMs } = deliverySettings();
  /**
   * The next probe of this chain, `wait` from now, the `probes`-th failed so far: its message first, then
   * the write it looks for (a message whose write was lost takes nothing; one whose run ended meanwhile,
   * a ping's success say, finds the breaker closed and releases the waiting deliveries).
   */
  const next = async (probes: number, wait: number): Promise<void> => {
    const at = new Date(Date.now() + wait).toISOString();
    await queueProbe(lane, webhook, at, Date.now());
    await webhookBreaker.again(ws, id, until, at, probes);
  };
  const oldest = await oldestWaiting(ws, id, breaker.failing_since, now);
  const delivery = oldest && (await readDelivery(ws, id, oldest.id));
  if (!delivery?.next_attempt_at) {
    // Nothing waits: the chain ends, and the next delivery to wait arms another. One that parked while this
    // probe looked (it saw the probe out, and armed nothing) is looked for once more.
    await webhookBreaker.disarm(ws, id, until);
    if (await oldestWaiting(ws, id, breaker.failing_since, Date.now())) await next(breaker.probes, probeWait(breaker.probes, retriesMs));
    return 'skipped';
  }
  if (!(await claimDelivery(delivery, delivery.next_attempt_at, new Date(now).toISOString(), until))) {
    await next(breaker.probes, RECHECK_MS); // an attempt on request holds it right now: look again in a moment
    return 'skipped';
  }
  const outcome = await attemptScheduled(delivery, webhook, lane, until, parkedUntil(now));
  if (outcome === 'delivered') {
    await queueRelease(lane, ws, id, new Date(Date.parse(breaker.failing_since) - retriesSpanMs()).toISOString());
  } else await next(breaker.probes + 1, probeWait(breaker.probes + 1, retriesMs));
  return outcome;
}

/**
 * A release: the webhook's waiting deliveries (parked, or scheduled for a retry) due now on the retry
 * lane, oldest first: the schedules written at once (a waiting schedule superseded, so that its own
 * message sends nothing: rescheduleDelivery), then the messages queued one after another in the
 * deliveries' order; a further release message goes on after the last one read. A message lost between
 * its schedule and its send leaves the delivery due with none: the sweeper's.
 */
export async function releaseWaiting(message: ReleaseMessage, lane: WebhookQueue): Promise<number> {
  const { workspace: ws, webhook_id: id } = message;
  const now = Date.now();
  const found = await waiting(ws, id, Date.parse(message.since), now, RELEASED_PER_MESSAGE, message.after);
  const due = new Date(now).toISOString();
  const scheduled = await mapInFlight(found.deliveries, IN_FLIGHT, async (d) =>
    (await rescheduleDelivery(d, due, due, d.next_attempt_at)) ? d : undefined,
  );
  const released = scheduled.filter((d) => d !== undefined);
  for (const d of released) await lane.later(attemptMessage(d, due), 0);
  if (found.next) await queueRelease(lane, ws, id, message.since, found.next);
  return released.length;
}
