import type { DeliveryRecord } from './entities';
import { MAX_QUEUE_DELAY_MS } from './settings';

/**
 * The delivery engine's one decision, pure: given a delivery as last read, the schedule a message
 * stands for (its `due_at`) and the time, what the deliverer does with the message. Every message of
 * the lanes (a fresh event's redelivery, a retry, a hop of a long wait, a sweep's re-queue) goes
 * through it, and nothing else decides; the conditional writes that follow (the claim, the record)
 * hold the decision against whoever read the delivery at the same moment.
 *
 * - `attempt`: due now and free: claim it and send.
 * - `wait`: not due yet: the message comes back after `ms` (a hop of at most 15 minutes).
 * - `recheck`: due, but its schedule is not recorded yet (the message is sent just before the write
 *   that records it): look again after `ms`.
 * - `drop`: nothing to do, and `why`: finished, superseded by a later schedule, held by another attempt.
 */
export type Decision = { do: 'attempt' } | { do: 'wait'; ms: number } | { do: 'recheck'; ms: number } | { do: 'drop'; why: string };

/** What the decision reads of a delivery. */
export type DeliveryState = Pick<DeliveryRecord, 'status' | 'next_attempt_at' | 'superseded' | 'claimed_until'>;

/** A message that finds its schedule not yet recorded waits this long and looks again (the write is moments away). */
export const RECHECK_MS = 1_000;

export function decide(delivery: DeliveryState | undefined, due: string, now: number): Decision {
  if (!delivery) return { do: 'drop', why: 'no such delivery (deleted with its webhook, or expired)' };
  const recorded = delivery.next_attempt_at;
  if (delivery.status !== 'pending' || recorded === undefined) return { do: 'drop', why: `the delivery is ${delivery.status}` };
  if (due < recorded) return { do: 'drop', why: 'a later schedule replaced this one' };
  // A schedule a recovery or a sweep brought forward (recovery.ts): its message sends nothing.
  if (due !== recorded && delivery.superseded?.includes(due)) return { do: 'drop', why: 'a recovery brought this attempt forward' };
  const wait = Date.parse(due) - now;
  if (wait > 0) return { do: 'wait', ms: Math.min(MAX_QUEUE_DELAY_MS, wait) };
  if (due > recorded) {
    // Due after the recorded schedule: sent just before its schedule is written. Long past due, its
    // attempt crashed before recording: that attempt's own redelivered message makes a schedule of its own.
    return -wait < MAX_QUEUE_DELAY_MS ? { do: 'recheck', ms: RECHECK_MS } : { do: 'drop', why: 'its schedule was never recorded' };
  }
  if (delivery.claimed_until !== undefined && Date.parse(delivery.claimed_until) > now)
    return { do: 'drop', why: 'another attempt holds it' };
  return { do: 'attempt' };
}

/** How far the schedule's next retry may move either way, so an endpoint's retries do not arrive in lockstep. */
const JITTER = 0.2;
/**
 * The wait before a retry: the schedule's, moved by up to 20% either way at random (deliveries that
 * failed together, when an endpoint went down, come back spread out), and never less than the
 * endpoint's own `Retry-After` on a 429 or 503, up to `longestMs`, the schedule's longest wait: an
 * endpoint asking for more would otherwise make each of its failures look like a new outage (health
 * counts failures further apart than that as one), and never be turned off.
 */
export function retryWait(scheduledMs: number, retryAfterMs: number | undefined, longestMs: number, random = Math.random): number {
  const jittered = Math.round(scheduledMs * (1 - JITTER + 2 * JITTER * random()));
  return Math.max(jittered, Math.min(retryAfterMs ?? 0, longestMs));
}
