import { mapInFlight } from '#store/batches';
import { keys } from '#store/keys';
import { dueBefore } from '#store/webhookDeliveries';
import type { WebhookQueue } from './queue';
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
 * moved on since the index was read, is left as it is; two sweeps at once queue nothing twice.
 */

/** Shards read at once, and deliveries queued at once within one. */
const SHARDS_IN_FLIGHT = 4;
const IN_FLIGHT = 8;
/** How long one sweep runs, well inside the deliverer's 30 s: what is left waits for the next sweep. */
const BUDGET_MS = 20_000;

export interface Sweep {
  /** Deliveries past due found, and those queued again (the others moved on, or an attempt held them). */
  found: number;
  requeued: number;
  /** Whether the sweep ran out of time with more to read. */
  more: boolean;
}

export async function sweepDeliveries(lane: WebhookQueue, opts: { now?: number; lostAfterMs?: number } = {}): Promise<Sweep> {
  const now = opts.now ?? Date.now();
  const before = new Date(now - (opts.lostAfterMs ?? LOST_AFTER_MS)).toISOString();
  const due = new Date(now).toISOString();
  const started = Date.now();
  const sweep: Sweep = { found: 0, requeued: 0, more: false };
  await mapInFlight(keys.dueShards(), SHARDS_IN_FLIGHT, async (shard) => {
    let start: Record<string, unknown> | undefined;
    do {
      if (Date.now() - started > BUDGET_MS) return void (sweep.more = true);
      const page = await dueBefore(shard, before, start);
      sweep.found += page.deliveries.length;
      await mapInFlight(page.deliveries, IN_FLIGHT, async (d) => {
        if (await requeue({ ...d, status: 'pending' }, due, lane)) sweep.requeued++;
      });
      start = page.next;
    } while (start);
  });
  return sweep;
}
