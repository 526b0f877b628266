import { keyNamesOf, queryPage, type Item, type KeyRange } from '#store/query';
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
  const names = keyNamesOf(range);
  const scope: CursorScope = {
    fingerprint: [range.index ?? 'table', range.partition, range.sortPrefix ?? '', ...(range.descending ? ['desc'] : []), ...fingerprint],
    keyNames: names.continuationKey,
    partition: { name: names.partitionKey, value: range.partition },
    ...(range.sortPrefix !== undefined ? { sortPrefix: { name: names.sortKey, prefix: range.sortPrefix } } : {}),
  };
  // DynamoDB has no offset: page N reads through the N-1 pages before it and keeps the last one.
  const skip = req.page !== undefined ? (req.page - 1) * req.limit : 0;
  const page = await queryPage(range, skip + req.limit, decodeCursor(scope, req.cursor));
  return { items: page.items.slice(skip).map(decode), nextCursor: encodeCursor(scope, page.lastKey) };
}
