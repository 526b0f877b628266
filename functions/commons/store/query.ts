import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { db } from './client';
import { TABLE, tableName, type IndexName } from './table';

export type Item = Record<string, unknown>;

/** What a Query reads: a partition of the table or of an index, optionally under a sort-key prefix. */
export interface KeyRange {
  index?: IndexName;
  partition: string;
  /** begins_with condition on the sort key. */
  sortPrefix?: string;
  /** Or a BETWEEN condition on it: both ends included. */
  sortBetween?: readonly [from: string, to: string];
  /** Newest first: the range in descending key order. */
  descending?: true;
  /** Only the items whose attribute `name` is `value` (a filter: the items between are read, and paid for, all the same). */
  filter?: { name: string; value: string };
}

/**
 * Reads of one filtered page at most, and the items each reads (a filter's Limit counts the items read,
 * not those kept): a page the filter leaves short after them ends there, with where to go on.
 */
const FILTERED_READS = 5;
const filteredReadSize = (limit: number) => Math.max(100, 4 * limit);

/** The key attribute names of a range's table or index, and those a continuation key carries. */
export function keyNamesOf(range: KeyRange) {
  const index = range.index ? TABLE.indexes[range.index] : undefined;
  return {
    partitionKey: index?.partitionKey ?? TABLE.partitionKey,
    sortKey: index?.sortKey ?? TABLE.sortKey,
    continuationKey: index ? [index.partitionKey, index.sortKey, TABLE.partitionKey, TABLE.sortKey] : [TABLE.partitionKey, TABLE.sortKey],
  };
}

/** The one Query builder: key condition, names, values, index and consistency for a range; with `keysOnly`, a projection to the keys. */
export function queryInput(range: KeyRange, keysOnly = false): QueryCommandInput {
  const { partitionKey, sortKey } = keyNamesOf(range);
  const names: Record<string, string> = { '#pk': partitionKey };
  const values: Record<string, unknown> = { ':pk': range.partition };
  let condition = '#pk = :pk';
  if (range.sortPrefix !== undefined || range.sortBetween !== undefined || keysOnly) names['#sk'] = sortKey;
  if (range.sortPrefix !== undefined) {
    values[':prefix'] = range.sortPrefix;
    condition += ' AND begins_with(#sk, :prefix)';
  } else if (range.sortBetween !== undefined) {
    [values[':from'], values[':to']] = range.sortBetween;
    condition += ' AND #sk BETWEEN :from AND :to';
  }
  return {
    TableName: tableName(),
    KeyConditionExpression: condition,
    ...(keysOnly ? { ProjectionExpression: '#pk, #sk' } : {}),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
    // Index reads are eventually consistent by definition; base-table reads see the caller's own writes,
    // but for a filter's (half the read units for the many items it reads and leaves out).
    ...(range.index ? { IndexName: TABLE.indexes[range.index].name } : range.filter ? {} : { ConsistentRead: true }),
    ...(range.descending ? { ScanIndexForward: false } : {}),
    ...(range.filter
      ? {
          FilterExpression: '#f = :f',
          ExpressionAttributeNames: { ...names, '#f': range.filter.name },
          ExpressionAttributeValues: { ...values, ':f': range.filter.value },
        }
      : {}),
  };
}

/**
 * Up to `limit` items of a range in key order, starting after `startKey`. Reads one item more than
 * asked so that `lastKey` (the key of the last returned item) is set exactly when more follow; a
 * page DynamoDB cuts short at its 1 MB limit is read on until full. A filtered range stops after
 * FILTERED_READS reads: its page may then be short, and `lastKey` is where the reading stopped.
 */
export async function queryPage(range: KeyRange, limit: number, startKey?: Item): Promise<{ items: Item[]; lastKey?: Item }> {
  const input = queryInput(range);
  const items: Item[] = [];
  let start = startKey;
  let reads = 0;
  do {
    const Limit = range.filter ? filteredReadSize(limit) : limit + 1 - items.length;
    const out = await db.send(new QueryCommand({ ...input, Limit, ExclusiveStartKey: start }));
    items.push(...(out.Items ?? []));
    start = out.LastEvaluatedKey;
    if (range.filter && ++reads >= FILTERED_READS && items.length <= limit && start) return { items, lastKey: start };
  } while (items.length <= limit && start);
  const pageItems = items.slice(0, limit);
  const last = pageItems[pageItems.length - 1];
  if (items.length <= limit || !last) return { items: pageItems };
  return { items: pageItems, lastKey: Object.fromEntries(keyNamesOf(range).continuationKey.map((k) => [k, last[k]])) };
}

/**
 * Every item of a base-table range, strongly consistent, all pages. With `keysOnly`, only the items' keys:
 * for a caller that needs no more (the slugs a family has taken, a count), the answer shrinks from the
 * items' size to a few bytes each (a family of projects with long descriptions answered megabytes to
 * every create that lost a slug race). DynamoDB still counts the read units by the items read.
 */
export async function queryAll(range: Omit<KeyRange, 'index'>, { keysOnly = false } = {}): Promise<Item[]> {
  const input = queryInput(range, keysOnly);
  const items: Item[] = [];
  let start: Item | undefined;
  do {
    const out = await db.send(new QueryCommand({ ...input, ExclusiveStartKey: start }));
    items.push(...(out.Items ?? []));
    start = out.LastEvaluatedKey;
  } while (start);
  return items;
}
