import { mapInFlight } from '#store/batches';
import { keys } from '#store/keys';
import { type DueDelivery, dueBefore, endLostDelivery } from '#webhooks/store/dueDeliveries';
import { attemptMessage, type WebhookQueue } from './queue';
import { requeue } from './recovery';
import { LOST_AFTER_MS } from './settings';

/**
 * The sweeper: no delivery stays pending forever. A schedule's message can be lost (it went to the
 * dead-letter queue before its schedule was recorded, or the deliverer crashed between a schedule and
 * its message); the delivery then waits, pending, for a message that never comes. A `sweep` message,
 * which a schedule puts on the retry lane every few minutes (lib/cdk/webhooks.ts; `npm start` does the
 * same), reads the due index (every delivery with an attempt to come, by when it is due) for deliveries
 * past due by LOST_AFTER_MS and queues each again, as a recovery does: the attempt then sends it, or ends
 * it (its webhook deleted or turned off, its retries spent). A delivery an attempt holds, or one that
 * moved on since the index was read, is left as it is; two sweeps at once queue nothing twice. One
 * found lost MAX_SWEEPS times since its last recorded attempt (its attempts keep failing before they are recorded) is ended,
 * failed, and described on the dead-letter queue, instead of being queued again for its 30 days.
 */

/** Times a sweep queues one delivery again before it ends it. */
export const MAX_SWEEPS = 3;

/** Shards read at once, and deliveries queued at once within one. */
const SHARDS_IN_FLIGHT = 4;
const IN_FLIGHT = 8;
/** How long one sweep runs, well inside the deliverer's 30 s: what is left waits for the next sweep. */
const BUDGET_MS = 20_000;

export interface Sweep {
  /** Deliveries past due found, those queued again and those ended (the others moved on, or an attempt held them). */
  found: number;
  requeued: number;
  ended: number;
  /** Whether the sweep ran out of time with more to read. */
  more: boolean;
}

export async function sweepDeliveries(lane: WebhookQueue, opts: { now?: number; lostAfterMs?: number } = {}): Promise<Sweep> {
  const now = opts.now ?? Date.now();
  const before = new Date(now - (opts.lostAfterMs ?? LOST_AFTER_MS)).toISOString();
  const due = new Date(now).toISOString();
  const started = Date.now();
  const sweep: Sweep = { found: 0, requeued: 0, ended: 0, more: false };
  const take = async (d: DueDelivery) => {
    if (await requeue({ ...d, status: 'pending' }, due, lane, MAX_SWEEPS)) return void sweep.requeued++;
    // Left: moved on, held, or swept MAX_SWEEPS times since its last recorded attempt (then it ends here).
    const why = `Lost ${MAX_SWEEPS + 1} times: its attempts kept failing before they were recorded.`;
    if (!(await endLostDelivery(d, due, why, MAX_SWEEPS))) return;
    sweep.ended++;
    await lane.deadLetter(JSON.stringify(attemptMessage(d, d.next_attempt_at)), why);
  };
  // A read or a queueing that fails fails the sweep at once: the shards in flight stop too, rather than read on to the
  // budget for a sweep that is failing anyway (its message is delivered again, and that sweep starts over).
  let failed = false;
  const failing = async <T>(work: Promise<T>): Promise<T> => {
    try {
      return await work;
    } catch (error) {
      failed = true;
      throw error;
    }
  };
  await mapInFlight(keys.dueShards(), SHARDS_IN_FLIGHT, async (shard) => {
    let start: Record<string, unknown> | undefined;
    do {
      if (failed) return;
      if (Date.now() - started > BUDGET_MS) return void (sweep.more = true);
      const page = await failing(dueBefore(shard, before, start));
      sweep.found += page.deliveries.length;
      await mapInFlight(page.deliveries, IN_FLIGHT, async (d) => {
        if (failed) return;
        if (Date.now() - started > BUDGET_MS) return void (sweep.more = true);
        await failing(take(d));
      });
      start = page.next;
    } while (start);
  });
  return sweep;
}
