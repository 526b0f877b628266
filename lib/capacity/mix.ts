import {
  addTo,
  atSaturation,
  boundBy,
  byName,
  type Load,
  oncePerBatch,
  onSharedItem,
  partitionName,
  saturation,
  spreadOf,
} from './model.ts';
import { patternOf } from './patterns.ts';
import type { Touch } from './recorder.ts';
import type { Measured } from './scenarios.ts';
import { pastShardZero, processorShardsOf } from '#store/shardedKeys';

/**
 * The realistic mix: what a team's day on the board sends one workspace, per 100 requests. The
 * official client opens a board by listing projects, reading one and its labels and then the labels
 * of the tasks it shows; people mostly label and unlabel tasks; projects and labels themselves change
 * a few times a day. The rest of the product sends task, member and sprint events beside it.
 */
export const MIX_REQUESTS: readonly [row: string, per100: number][] = [
  ['GET /projects', 12],
  ['GET /projects/{slug}', 10],
  ['GET /projects/{slug}/stats', 5],
  ['GET /projects-labels', 15],
  ['GET /projects-labels/{slug}', 3],
  ['GET /task-labels', 23],
  ['GET /projects-labels/{slug}/tasks', 5],
  ['GET /search', 5],
  ['GET /activities', 2],
  ['POST /projects-labels/{slug}/attach', 8],
  ['DELETE /projects-labels/{slug}/detach', 4],
  ['POST /task-labels/{slug}/toggle', 3],
  ['POST /projects', 1],
  ['PUT /projects/{slug}', 1.5],
  ['POST /projects/{slug}/duplicate', 0.25],
  ['DELETE /projects/{slug}', 0.25],
  ['POST /projects-labels', 1],
  ['PUT /projects-labels/{slug}', 0.5],
  ['DELETE /projects-labels/{slug}', 0.5],
];

/** Beside every 100 requests: inbound events, and the authorizer's cache misses (a 5-minute cache per token). */
export const MIX_MESSAGES: readonly [row: string, per100: number][] = [
  ['inbound: Task Created', 4],
  ['inbound: Task Completed', 3],
  ['inbound: Task Reopened', 1],
  ['inbound: Task Deleted', 0.5],
  ['inbound: Member Added', 0.5],
  ['inbound: Member Removed', 0.25],
  ['inbound: Sprint Created', 0.5],
  ['inbound: Sprint Deleted', 0.25],
  ['authorizer', 1],
];

/** Webhooks subscribed to every event of the workspace: each event becomes one delivery per webhook. */
export const MIX_WEBHOOKS = 1;

/**
 * The share of the mix's requests that name a project which name the hottest one (the rest spread over
 * projects enough that none is hotter): 1, every one on the same project, the most one team can put on it.
 */
const MIX_HOT_PROJECT_SHARE = 1;

/** Whether a key or an item is one project's own: the hot project takes only its share of the mix's load on it. */
const ofOneProject = (name: string) => name.includes('<project>');

/**
 * Batches a second the stream processor gets of a shard that is behind: Lambda polls each shard of a
 * DynamoDB stream four times a second. A key's once-per-batch work (a use counter, a project's label
 * count) is done at most that often, whatever the request rate: a load of units a second, taken off
 * its partition's limit before the requests share the rest.
 */
export const STREAM_BATCHES_PER_SECOND = 4;

/**
 * How many stream shards a row's records come from, each read by Lambda on its own: one per partition
 * its request writes, so a sharded key whose records the processor acts on (shardedKeys.ts), written by the
 * requests of a row, feeds it from that many shards, and its once-per-batch work is done that many times as
 * often. The most shards among the table keys the request writes (an upper bound: not every record it writes
 * moves every such item). `shards` is the registry's, or a test's.
 */
export const feedingShards = (m: Pick<Measured, 'request'>, shards: (key: string) => number = processorShardsOf) =>
  Math.max(1, ...m.request.flatMap((c) => c.touches).flatMap((t) => (t.capacity === 'write' && !t.index ? [shards(t.key)] : [])));

/**
 * Where a touch's load lands: its partition, or, for a spread item of a key whose spread skips shard 0 (a project's
 * tasks, shardedKeys.ts), the shards past it, apart from what shard 0 keeps (its use counters, the stream's
 * once-per-batch work on them): each is a partition of its own, and the key saturates with the busier.
 */
const PAST_ZERO = ' (past shard 0)';
export const slotOf = (t: Touch) => `${partitionName(t)}${pastShardZero(t.key, t.item ?? t.range, t.index) ? PAST_ZERO : ''}`;

interface MixPartition {
  name: string;
  /** Units per request of the mix. */
  load: Load;
  /** Units a second the stream's once-per-batch work spends on it, whatever the rate. */
  perSecond: Load;
  /** Requests of the mix per second at which this partition saturates. */
  rate: number;
  bound: 'read' | 'write';
  /** The busiest single item of it (the ceiling split for heat leaves), when one item is hit by many requests. */
  item?: { name: string; rate: number };
}

export interface MixModel {
  /** The share of the requests naming a project that name the hot one. */
  hotProjectShare: number;
  /** Per request of the mix: units, DynamoDB calls, stream records, outbound events, webhook deliveries. */
  perRequest: Load & { calls: number; records: number; events: number; deliveries: number; inbound: number; authorizer: number };
  partitions: MixPartition[];
}

/**
 * The mix on one workspace, one label and one token, and on one project `hotProjectShare` of the requests
 * that name a project: the most one team can put on one key.
 */
export function modelMix(measured: Measured[], { hotProjectShare = MIX_HOT_PROJECT_SHARE } = {}): MixModel {
  const byRow = new Map(measured.map((m) => [m.row, m]));
  const row = (name: string) => byRow.get(name) ?? fail(`the mix names ${name}, which npm run capacity did not measure`);
  const shares: [Measured, number][] = [...MIX_REQUESTS, ...MIX_MESSAGES].map(([name, per100]) => [row(name), per100 / 100]);
  // Outbound events of the requests and of the inbound events (a deleted task's labels come off with events of their own).
  const events = [...MIX_REQUESTS, ...MIX_MESSAGES].reduce((sum, [name, per100]) => sum + (row(name).events * per100) / 100, 0);
  shares.push([row('webhook deliverer'), events * MIX_WEBHOOKS]);

  const partitions = new Map<string, Load>();
  const items = new Map<string, Load>();
  // Once per batch and item: a batch writes an item once, whichever rows' records it holds (the largest of them).
  const batchWork = new Map<string, Load & { partition: string }>();
  const perRequest = { read: 0, write: 0, calls: 0, records: 0, events, deliveries: events * MIX_WEBHOOKS, inbound: 0, authorizer: 0 };
  const hot = (name: string) => (ofOneProject(name) ? hotProjectShare : 1);
  for (const [m, share] of shares) {
    for (const t of [...m.request, ...m.stream].flatMap((c) => c.touches)) perRequest[t.capacity] += t.units * share;
    if (share > 0) {
      const batchesPerSecond = STREAM_BATCHES_PER_SECOND * feedingShards(m);
      for (const t of oncePerBatch(m)) {
        const id = JSON.stringify([slotOf(t), t.item]);
        const work = batchWork.get(id) ?? { partition: slotOf(t), read: 0, write: 0 };
        work[t.capacity] = Math.max(work[t.capacity], t.units * batchesPerSecond);
        batchWork.set(id, work);
      }
    }
    for (const t of atSaturation(m)) {
      const partition = partitionName(t);
      const item = t.item === undefined ? undefined : patternOf(t.item);
      addTo(partitions, slotOf(t), t, share * spreadOf(t) * hot(partition));
      // An item of a sharded key that is in every shard (a deleted project's mark) takes its shard's share alone, and
      // shard 0's copy is apart from the homes'.
      if (onSharedItem(t)) addTo(items, JSON.stringify([slotOf(t), item]), t, share * spreadOf(t) * hot(`${partition} ${item}`));
    }
    perRequest.calls += (m.request.length + m.stream.length) * share;
    perRequest.records += m.records * share;
    if (m.row.startsWith('inbound:')) perRequest.inbound += share;
    if (m.row === 'authorizer') perRequest.authorizer += share;
  }
  const perSecond = (name: string) =>
    [...batchWork.values()]
      .filter((w) => w.partition === name)
      .reduce((sum, w) => ({ read: sum.read + w.read, write: sum.write + w.write }), { read: 0, write: 0 });
  // A key of two slots is as busy as the busier: its shard 0, or each shard past it.
  const slots = [...partitions].map(([slot, load]) => ({ slot, name: slot.replace(PAST_ZERO, ''), load, fixed: perSecond(slot) }));
  const busiest = new Map<string, (typeof slots)[number] & { rate: number }>();
  for (const s of slots) {
    const rate = saturation(s.load, s.fixed);
    const known = busiest.get(s.name);
    if (!known || rate < known.rate) busiest.set(s.name, { ...s, rate });
  }
  const found = [...busiest.values()].map(({ name, load, fixed, rate }): MixPartition => {
    // Shard 0's copy of an item every shard has, and a home's, are two items.
    const own = [...items].filter(([id]) => (JSON.parse(id)[0] as string).replace(PAST_ZERO, '') === name);
    const hottest = own
      .map(([id, l]) => ({ name: JSON.parse(id)[1] as string, rate: saturation(l) }))
      .sort((a, b) => a.rate - b.rate || byName(a.name, b.name))[0];
    return { name, load, perSecond: fixed, rate, bound: boundBy(load), ...(hottest ? { item: hottest } : {}) };
  });
  return { hotProjectShare, perRequest, partitions: found.sort((a, b) => a.rate - b.rate || byName(a.name, b.name)) };
}

function fail(message: string): never {
  throw new Error(message);
}
