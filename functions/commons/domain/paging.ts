import { type MergeBudget, readMerged } from '#store/merged';
import { keyNamesOf, queryInput, queryPage, type Item, type KeyRange } from '#store/query';
import { TABLE } from '#store/table';
import { decodeCursor, encodeCursor, type CursorScope } from './cursors';

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export interface PageRequest {
  limit: number;
  cursor?: string | undefined;
  /** 1-based page number (GitScrum clients page this way); never with a cursor. */
  page?: number | undefined;
}

/**
 * One page of a key-ordered range, continued from an opaque cursor. The cursor is bound to the
 * range and `fingerprint` (what identifies the query beyond it), so one from another query or
 * workspace, or one pointing outside the range, is refused (422) before anything is read.
 */
export async function readPage<T>(range: KeyRange, fingerprint: string[], req: PageRequest, decode: (item: Item) => T): Promise<Page<T>> {
  const scope = scopeOf(range, fingerprint);
  // DynamoDB has no offset: page N reads through the N-1 pages before it and keeps the last one.
  const skip = req.page !== undefined ? (req.page - 1) * req.limit : 0;
  const page = await queryPage(range, skip + req.limit, decodeCursor(scope, req.cursor));
  return { items: page.items.slice(skip).map(decode), nextCursor: encodeCursor(scope, page.lastKey) };
}

/**
 * The same over a key's shards (`partitions`, the range's own first: its shard 0), merged in key order (merged.ts).
 * Its cursors are those of the range's shard 0 (a cursor given before the key had shards goes on), its sort key the
 * same place in every shard. A filtered page stops at `budget` and may then be short, with where to go on.
 */
export async function readMergedPage<T>(
  range: KeyRange,
  partitions: readonly string[],
  budget: { filtered: MergeBudget; unfiltered: MergeBudget },
  fingerprint: string[],
  req: PageRequest,
  decode: (item: Item) => T,
): Promise<Page<T>> {
  const scope = scopeOf(range, fingerprint);
  const skip = req.page !== undefined ? (req.page - 1) * req.limit : 0;
  const start = decodeCursor(scope, req.cursor);
  const filtering = range.filter !== undefined;
  const merged = { input: queryInput(range), partitions, descending: range.descending === true, filtering };
  const page = await readMerged(
    { ...merged, budget: filtering ? budget.filtered : budget.unfiltered },
    skip + req.limit,
    start?.[TABLE.sortKey] as string | undefined,
  );
  const lastKey = page.next === undefined ? undefined : { [TABLE.partitionKey]: range.partition, [TABLE.sortKey]: page.next };
  return { items: page.items.slice(skip).map(decode), nextCursor: encodeCursor(scope, lastKey) };
}

/** What a range's cursors are bound to: the range and `fingerprint` (what identifies the query beyond it). */
function scopeOf(range: KeyRange, fingerprint: string[]): CursorScope {
  const names = keyNamesOf(range);
  return {
    fingerprint: [range.index ?? 'table', range.partition, range.sortPrefix ?? '', ...(range.descending ? ['desc'] : []), ...fingerprint],
    keyNames: names.continuationKey,
    partition: { name: names.partitionKey, value: range.partition },
    ...(range.sortPrefix !== undefined ? { sortPrefix: { name: names.sortKey, prefix: range.sortPrefix } } : {}),
  };
}
