import { keys } from '#store/keys';
import { itemShardsOf, pastShardZero, shardedNameOf, shardFamilyOf } from '#store/shardedKeys';
import type { Call, Touch } from './recorder.ts';
import type { Measured } from './scenarios.ts';
import { patternOf } from './patterns.ts';

const touchesOf = (calls: Call[]) => calls.flatMap((c) => c.touches);

/**
 * The capacity model: what one request (or message) of each row draws on each partition, and the rate
 * at which one partition key value reaches its partition's limit. DynamoDB serves at most 3,000 read
 * units and 1,000 write units a second from one partition; adaptive capacity moves a table's capacity
 * to a hot partition, but never beyond that. Split for heat divides a hot item collection by sort key,
 * minutes later: what it cannot divide is one item, so the busiest single item is the ceiling it leaves.
 */
export const PARTITION_LIMITS = { read: 3_000, write: 1_000 } as const;

/** Units a piece of work draws on one partition (or one item). */
export interface Load {
  read: number;
  write: number;
}

/** The kinds of partition key value the table and its indexes have (functions/commons/store/keys.ts; the due index's are the stage's). */
export const KEY_KINDS = [
  'workspace',
  'status index',
  'name index',
  'project',
  'stats',
  'label',
  'token',
  'webhooks',
  'webhook',
  'history',
  'due index',
] as const;
type KeyKind = (typeof KEY_KINDS)[number];
/** Two kinds of single item the doc follows on their own: the label id counter, and a task's items (in its project's collection). */
export const ITEM_KINDS = ['counter', 'task'] as const;
type ItemKind = (typeof ITEM_KINDS)[number];

function itemKindOf(item: string): ItemKind | undefined {
  if (item.startsWith('COUNTER#')) return 'counter';
  if (item.startsWith('TASK#')) return 'task';
  return undefined;
}

const KIND_OF_PREFIX: [prefix: string, kind: KeyKind][] = [
  ['WS#', 'workspace'],
  ['PROJECT#', 'project'],
  ['STATS#', 'stats'],
  ['LABEL#', 'label'],
  ['TOKEN#', 'token'],
  ['HOOKS#', 'webhooks'],
  ['WEBHOOK#', 'webhook'],
  ['ACTIVITY#', 'history'],
];

/** The kind of a shared key; a key the model does not know is an error, not a guess. */
function kindOf(t: Touch): KeyKind {
  if (t.index === 'GSI1') return 'status index';
  if (t.index === 'GSI2') return 'name index';
  if (t.index === 'GSI3') return 'due index';
  const found = KIND_OF_PREFIX.find(([prefix]) => t.key.startsWith(prefix));
  if (!found) throw new Error(`the capacity model knows no kind of key ${t.key} (lib/capacity/model.ts)`);
  return found[1];
}

/** Names in code-unit order: the same on every machine, whatever its locale. */
export const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Requests per second at which `load` per request uses up a partition (Infinity for none), beside
 * `fixed` units a second it spends whatever the request rate (the stream's once-per-batch work).
 */
export function saturation(load: Load, fixed: Load = { read: 0, write: 0 }): number {
  const rate = (c: 'read' | 'write') => (load[c] > 0 ? Math.max(0, PARTITION_LIMITS[c] - fixed[c]) / load[c] : Number.POSITIVE_INFINITY);
  return Math.min(rate('read'), rate('write'));
}

/** Which of the two limits `load` reaches first. */
export const boundBy = (load: Load): 'read' | 'write' =>
  load.read / PARTITION_LIMITS.read >= load.write / PARTITION_LIMITS.write ? 'read' : 'write';

/** Item placeholders whose items differ from request to request (one per task, event, note...): load spread over many items. */
const SPREAD = /<(task|event|note|member|sprint|delivery|name|title|id)>/;

/** Whether a touch is of one item many requests share (a counter, a project's or a label's own item), not one of its own. */
export const onSharedItem = (t: Touch) => t.item !== undefined && !SPREAD.test(patternOf(`${t.key}#${t.item}`));

/** Whether a partition key is one of its own per request or record (a receipt, an idempotency key): it never gathers load. */
const ownKey = (t: Touch) => keys.singleUsePk(t.key);

/**
 * What a piece of work draws at saturation: all its request's draws, and of its stream work what is
 * done once per record. The stream processor applies a batch's records key by key: a use counter or
 * a project's label count is written once per batch and key, however many records of that key the
 * batch holds; at saturation the stream is behind and its batches are full, so that work is shared by
 * many records and left out here (it is in the stream columns, and in the cost). Lambda reads a shard at
 * most a few times a second, so that work costs a key a few units a second whatever the request rate.
 * Keys of their own per request or record (RECEIPT#<event id>, IDEMPOTENCY#<ws>#<hash>) never gather
 * load: left out too.
 */
export const atSaturation = (m: { request: Call[]; stream: Call[] }): Touch[] =>
  [...touchesOf(m.request), ...touchesOf(m.stream).filter((t) => !onSharedItem(t))].filter((t) => !ownKey(t));

/** The stream work done once per batch and key: what atSaturation leaves out (the mix counts it per second, mix.ts). */
export const oncePerBatch = (m: { stream: Call[] }): Touch[] => touchesOf(m.stream).filter((t) => onSharedItem(t) && !ownKey(t));

/**
 * The share of a touch's load one partition of its kind takes when many requests are summed by key
 * pattern: a sharded key (functions/commons/store/shardedKeys.ts) spreads its values' load over its shards,
 * so each takes that fraction of it (the workspace's history and a project's and a task's copies by their
 * entries' turn, the marks of their events and the due index's entries by a hash; the due index is shared by
 * every workspace: one workspace alone gets that much of it); every other key takes all of its load, and so does an
 * item or a Query's range a sharded key keeps in its shard 0 (a webhook's health, a label's set memberships, a project's use counters). What one request draws on
 * several shards of one value (a read of each) is summed first (modelRow, and the mix by name).
 */
export const spreadOf = (t: Touch) => 1 / itemShardsOf(t.key, t.item ?? t.range, t.index);

/** A partition as the doc names it: its key pattern, with its index. */
export const partitionName = (t: Touch) => shardedNameOf(t.key, t.index) ?? (t.index ? `${t.index} ${patternOf(t.key)}` : patternOf(t.key));

export function addTo(loads: Map<string, Load>, id: string, t: Touch, share = 1): void {
  const load = loads.get(id) ?? { read: 0, write: 0 };
  load[t.capacity] += t.units * share;
  loads.set(id, load);
}

const unitsOf = (calls: Call[], capacity: 'read' | 'write') =>
  touchesOf(calls)
    .filter((t) => t.capacity === capacity)
    .reduce((sum, t) => sum + t.units, 0);

export interface RowModel {
  row: string;
  scenario: string;
  consumer: boolean;
  calls: number;
  operations: string;
  items: number;
  request: Load;
  stream: Load;
  streamCalls: number;
  records: number;
  events: number;
  /** Per kind, the rate at which the busiest key (or item) of that kind saturates (absent: the row draws on none). */
  kinds: Partial<Record<KeyKind | ItemKind, number>>;
  first: { partition: string; rate: number; bound: 'read' | 'write' };
  /** The busiest single item: the rate split for heat cannot lift. */
  item?: { name: string; rate: number };
  /** The answer's bytes (a request at the limits). */
  answerBytes?: number;
}

/** What each measured row draws, and where it saturates (its request and its stream work at saturation). */
export function modelRow(m: Measured): RowModel {
  const touches = atSaturation(m);
  const partitions = new Map<string, Load>();
  const named = new Map<string, Touch>();
  const items = new Map<string, Load>();
  for (const t of touches) {
    // A key whose spread skips shard 0 is two partitions: shard 0, and each past it (the busier is the key's).
    const id = JSON.stringify([t.index ?? '', shardFamilyOf(t.key, t.index), pastShardZero(t.key, t.item ?? t.range, t.index)]);
    // One request's entry lands in one shard of the history, but the route's requests in all of them: what a
    // request draws on a sharded key's shards, summed, is spread over them (a read of every shard, one of each).
    addTo(partitions, id, t, spreadOf(t));
    named.set(id, t);
    if (t.item !== undefined) addTo(items, JSON.stringify([t.key, t.item]), t);
  }
  const kinds: RowModel['kinds'] = {};
  let first: RowModel['first'] = { partition: '-', rate: Number.POSITIVE_INFINITY, bound: 'read' };
  for (const [id, load] of partitions) {
    const t = named.get(id)!;
    const rate = saturation(load);
    const kind = kindOf(t);
    kinds[kind] = Math.min(kinds[kind] ?? Number.POSITIVE_INFINITY, rate);
    // Ties go to the first name in order: calls made in parallel may be recorded in any order.
    const partition = partitionName(t);
    if (rate < first.rate || (rate === first.rate && partition < first.partition)) first = { partition, rate, bound: boundBy(load) };
  }
  let item: RowModel['item'];
  for (const [id, load] of items) {
    const [key, sk] = JSON.parse(id) as [string, string];
    const rate = saturation(load);
    const kind = itemKindOf(sk);
    if (kind) kinds[kind] = Math.min(kinds[kind] ?? Number.POSITIVE_INFINITY, rate);
    const name = `${shardedNameOf(key) ?? patternOf(key)} ${patternOf(sk)}`;
    if (!item || rate < item.rate || (rate === item.rate && name < item.name)) item = { name, rate };
  }
  const all = [...m.request, ...m.stream];
  return {
    row: m.row,
    scenario: m.scenario,
    consumer: m.consumer,
    calls: m.request.length,
    operations: operationsOf(m.request),
    items: m.request.reduce((sum, c) => sum + c.items, 0),
    request: { read: unitsOf(m.request, 'read'), write: unitsOf(m.request, 'write') },
    stream: { read: unitsOf(m.stream, 'read'), write: unitsOf(m.stream, 'write') },
    streamCalls: m.stream.length,
    records: m.records,
    events: m.events,
    kinds,
    first,
    ...(item && all.length ? { item } : {}),
    ...(m.answerBytes !== undefined ? { answerBytes: m.answerBytes } : {}),
  };
}

/** The order operations are named in (calls made in parallel are recorded in any order). */
const OPERATIONS = [
  'GetItem',
  'BatchGetItem',
  'TransactGetItems',
  'Query',
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'BatchWriteItem',
  'TransactWriteItems',
];

/** `2 GetItem + 1 Query`: how many calls of each operation. */
function operationsOf(calls: Call[]): string {
  const counts = new Map<string, number>();
  for (const c of calls) counts.set(c.operation, (counts.get(c.operation) ?? 0) + 1);
  const rank = (op: string) => (OPERATIONS.includes(op) ? OPERATIONS.indexOf(op) : OPERATIONS.length);
  return (
    [...counts]
      .sort(([a], [b]) => rank(a) - rank(b) || byName(a, b))
      .map(([op, n]) => `${n} ${op}`)
      .join(' + ') || 'none'
  );
}
