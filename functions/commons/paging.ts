import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { decodeCursor, encodeCursor, type CursorScope } from './cursor';
import { db } from './db';
import { TABLE, tableName, type IndexName } from './table';

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 100;

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export interface PageQuery {
  /** Which index to query; the base table when absent. */
  index?: IndexName;
  partitionValue: string;
  /** begins_with condition on the sort key. */
  sortPrefix?: string;
  /** What identifies this query for cursor binding, beyond index and partition. */
  fingerprint: string[];
  limit: number;
  cursor?: string;
}

/**
 * One page of a key-ordered Query. Reads one item more than the page so that `nextCursor` is null
 * exactly when nothing follows, and builds the continuation key from the last returned item.
 */
export async function queryPage(q: PageQuery): Promise<Page<Record<string, unknown>>> {
  const index = q.index ? TABLE.indexes[q.index] : undefined;
  const pkName = index?.partitionKey ?? TABLE.partitionKey;
  const skName = index?.sortKey ?? TABLE.sortKey;
  const keyNames = index
    ? [index.partitionKey, index.sortKey, TABLE.partitionKey, TABLE.sortKey]
    : [TABLE.partitionKey, TABLE.sortKey];
  const scope: CursorScope = {
    fingerprint: [q.index ?? 'table', q.partitionValue, q.sortPrefix ?? '', ...q.fingerprint],
    keyNames,
    partition: { name: pkName, value: q.partitionValue },
    ...(q.sortPrefix !== undefined ? { sortPrefix: { name: skName, prefix: q.sortPrefix } } : {}),
  };
  const startKey = decodeCursor(scope, q.cursor);

  const names: Record<string, string> = { '#pk': pkName };
  const values: Record<string, unknown> = { ':pk': q.partitionValue };
  let condition = '#pk = :pk';
  if (q.sortPrefix !== undefined) {
    names['#sk'] = skName;
    values[':prefix'] = q.sortPrefix;
    condition += ' AND begins_with(#sk, :prefix)';
  }
  const input: QueryCommandInput = {
    TableName: tableName(),
    KeyConditionExpression: condition,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
    Limit: q.limit + 1,
    ExclusiveStartKey: startKey,
    // Index reads are eventually consistent by definition; base-table reads see the caller's own writes.
    ...(index ? { IndexName: index.name } : { ConsistentRead: true }),
  };
  const items: Record<string, unknown>[] = [];
  // A page can come back short when DynamoDB hits its 1 MB read limit; keep reading until full.
  do {
    const out = await db.send(new QueryCommand({ ...input, Limit: q.limit + 1 - items.length }));
    items.push(...(out.Items ?? []));
    input.ExclusiveStartKey = out.LastEvaluatedKey;
  } while (items.length <= q.limit && input.ExclusiveStartKey);

  const hasMore = items.length > q.limit;
  const pageItems = items.slice(0, q.limit);
  const last = pageItems[pageItems.length - 1];
  const lastKey = hasMore && last ? Object.fromEntries(keyNames.map((k) => [k, last[k]])) : undefined;
  return { items: pageItems, nextCursor: encodeCursor(scope, lastKey) };
}

/** Every item of a partition (optionally under a sort-key prefix), strongly consistent, all pages. */
export async function queryAll(partitionValue: string, sortPrefix?: string): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  const names: Record<string, string> = { '#pk': TABLE.partitionKey };
  const values: Record<string, unknown> = { ':pk': partitionValue };
  let condition = '#pk = :pk';
  if (sortPrefix !== undefined) {
    names['#sk'] = TABLE.sortKey;
    values[':prefix'] = sortPrefix;
    condition += ' AND begins_with(#sk, :prefix)';
  }
  let start: Record<string, unknown> | undefined;
  do {
    const out = await db.send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: condition,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    items.push(...(out.Items ?? []));
    start = out.LastEvaluatedKey;
  } while (start);
  return items;
}
