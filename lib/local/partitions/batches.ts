import type { Draw } from './buckets';
import type { Images } from './images';
import { deleteDraws, putDraws, readDraw, writeOf } from './units';
import { keyOf, type Wire, type WireItem } from './wire';

/**
 * BatchWriteItem and BatchGetItem as DynamoDB throttles them: each request of the batch on its own. The
 * requests whose partitions have units go; the others come back unprocessed (UnprocessedItems,
 * UnprocessedKeys) for the caller to send again; when none can go, the whole call is refused.
 */
export interface Batch {
  entries: BatchEntry[];
  /** The batch's request with only `kept` of its entries. */
  withOnly(kept: readonly BatchEntry[]): Wire;
  /** The batch's answer with `left` added to what it left unprocessed. */
  withUnprocessed(output: Wire, left: readonly BatchEntry[]): Wire;
  /** What `kept` consumed, once the answer is known (a read by the size of the item it found; a write by its images, when given). */
  consumed(kept: readonly BatchEntry[], output: Wire | undefined, images?: Images): Draw[];
}

/** One request of a batch: its table, its wire form (a write request, or a key to get) and what it draws. */
interface BatchEntry {
  table: string;
  request: Wire;
  draws: Draw[];
  /** A write's item key. */
  key?: WireItem;
}

function byTable(entries: readonly BatchEntry[]): Map<string, Wire[]> {
  const tables = new Map<string, Wire[]>();
  for (const e of entries) tables.set(e.table, [...(tables.get(e.table) ?? []), e.request]);
  return tables;
}

const sameKey = (item: WireItem, key: WireItem) =>
  Object.entries(key).every(([name, v]) => JSON.stringify(item[name]) === JSON.stringify(v));

function batchWrite(input: Wire): Batch {
  const requestItems = input.RequestItems as Record<string, Wire[]>;
  const entries = Object.entries(requestItems).flatMap(([table, requests]) =>
    requests.map((request) => {
      const put = request.PutRequest as { Item: WireItem } | undefined;
      const key = put ? keyOf(put.Item) : (request.DeleteRequest as { Key: WireItem }).Key;
      return { table, request, key, draws: put ? putDraws(table, put.Item) : deleteDraws(table, key) };
    }),
  );
  return {
    entries,
    withOnly: (kept) => ({ ...input, RequestItems: Object.fromEntries(byTable(kept)) }),
    withUnprocessed: (output, left) => {
      const unprocessed = { ...((output.UnprocessedItems ?? {}) as Record<string, Wire[]>) };
      for (const [table, requests] of byTable(left)) unprocessed[table] = [...(unprocessed[table] ?? []), ...requests];
      return { ...output, UnprocessedItems: unprocessed };
    },
    consumed: (kept, _output, images) => kept.flatMap((e) => writeOf(e.table, e.key!, images, () => e.draws)),
  };
}

function batchGet(input: Wire): Batch {
  const requestItems = input.RequestItems as Record<string, Wire & { Keys: WireItem[] }>;
  const entries = Object.entries(requestItems).flatMap(([table, { Keys, ConsistentRead }]) =>
    Keys.map((key) => ({ table, request: key, draws: readDraw(table, key, ConsistentRead === true) })),
  );
  const keysOf = (entries: readonly BatchEntry[], keys = new Map<string, Wire[]>()) => {
    for (const [table, more] of byTable(entries)) keys.set(table, [...(keys.get(table) ?? []), ...more]);
    return keys;
  };
  return {
    entries,
    withOnly: (kept) => ({
      ...input,
      RequestItems: Object.fromEntries([...keysOf(kept)].map(([table, Keys]) => [table, { ...requestItems[table], Keys }])),
    }),
    withUnprocessed: (output, left) => {
      const unprocessed = (output.UnprocessedKeys ?? {}) as Record<string, { Keys: Wire[] }>;
      const keys = keysOf(left, new Map(Object.entries(unprocessed).map(([table, { Keys }]) => [table, Keys])));
      const tables = [...keys].map(([table, Keys]) => [table, { ...requestItems[table], ...unprocessed[table], Keys }]);
      return { ...output, UnprocessedKeys: Object.fromEntries(tables) };
    },
    consumed: (kept, output) => {
      const responses = (output?.Responses ?? {}) as Record<string, WireItem[]>;
      return kept.flatMap(({ table, request }) => {
        const found = responses[table]?.find((item) => sameKey(item, request as WireItem));
        return readDraw(table, request as WireItem, requestItems[table]!.ConsistentRead === true, found);
      });
    },
  };
}

/** The batch a BatchWriteItem or BatchGetItem request is; undefined for any other operation. */
export function batchOf(operation: string, input: Wire): Batch | undefined {
  if (operation === 'BatchWriteItem') return batchWrite(input);
  if (operation === 'BatchGetItem') return batchGet(input);
  return undefined;
}
