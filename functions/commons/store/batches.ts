import { BatchGetCommand, BatchWriteCommand, GetCommand, type BatchGetCommandOutput } from '@aws-sdk/lib-dynamodb';
import { db } from './client';
import type { Key } from './keys';
import { AGAIN, RETRY, withRetries } from './retry';
import { tableName } from './table';
import { allSettled } from './settled';

/** DynamoDB's per-call limits. */
const WRITE_BATCH = 25;
const GET_BATCH = 100;
/** Batches in flight at once for big deletes and writes. */
const WRITE_CONCURRENCY = 16;

/** `list` cut into runs of at most `size` (the one chunker: batches and transactions use it). */
export function chunk<T>(list: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}

/**
 * `fn` over every item, at most `inFlight` calls at a time (the one worker pool: a request never
 * fans out without bound, which would queue its calls behind each other's connections); the
 * results in the items' order. A failure stops it taking more, and is thrown once the calls in flight have ended.
 */
export async function mapInFlight<T, R>(items: readonly T[], inFlight: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    try {
      for (let i = next++; i < items.length && !failed; i = next++) results[i] = await fn(items[i]!);
    } catch (error) {
      failed = true;
      throw error;
    }
  };
  await allSettled(Array.from({ length: Math.min(inFlight, items.length) }, worker));
  return results;
}

/**
 * Deletes every key, 25 per BatchWriteItem, several batches in flight. Items DynamoDB leaves
 * unprocessed (throttling) are sent again under RETRY.unprocessed; if some are still unprocessed
 * after the last attempt the call fails with StoreUnavailable and the caller can retry safely
 * (deletes are idempotent).
 */
export async function deleteKeys(keys: Key[]): Promise<void> {
  // One key once: DynamoDB refuses a batch that names a key twice (a link's copy and its original share their label side).
  const once = [...new Map(keys.map((k) => [`${k.PK}\u0000${k.SK}`, k])).values()];
  await mapInFlight(chunk(once, WRITE_BATCH), WRITE_CONCURRENCY, (batch) =>
    writeBatch(
      batch.map((Key) => ({ DeleteRequest: { Key } })),
      'deletes',
    ),
  );
}

/** Puts every item (whole, unconditionally: for items a retry may put again as they were), as deleteKeys deletes. */
export async function putItems(items: Record<string, unknown>[]): Promise<void> {
  await mapInFlight(chunk(items, WRITE_BATCH), WRITE_CONCURRENCY, (batch) =>
    writeBatch(
      batch.map((Item) => ({ PutRequest: { Item } })),
      'writes',
    ),
  );
}

type WriteRequest = { DeleteRequest: { Key: Key } } | { PutRequest: { Item: Record<string, unknown> } };

async function writeBatch(batch: WriteRequest[], what: string): Promise<void> {
  let requests = batch;
  await withRetries(RETRY.unprocessed, `The database is throttling ${what}; retry the request.`, async () => {
    const out = await db.send(new BatchWriteCommand({ RequestItems: { [tableName()]: requests } }));
    const unprocessed = out.UnprocessedItems?.[tableName()] ?? [];
    if (unprocessed.length === 0) return undefined;
    requests = unprocessed as typeof requests;
    return AGAIN;
  });
}

/** The item stored under `key` (strongly consistent), or undefined where there is none. */
export async function getItem(key: Key): Promise<Record<string, unknown> | undefined> {
  return (await db.send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }))).Item;
}

/** The items stored under `keys` (strongly consistent), 100 per BatchGetItem; missing keys are simply absent. */
export async function getItems(keys: Key[]): Promise<Record<string, unknown>[]> {
  const found: Record<string, unknown>[] = [];
  for (const batch of chunk(keys, GET_BATCH)) {
    let request: Record<string, unknown>[] = batch;
    await withRetries(RETRY.unprocessed, 'The database is throttling reads; retry the request.', async () => {
      const out: BatchGetCommandOutput = await db.send(
        new BatchGetCommand({ RequestItems: { [tableName()]: { Keys: request, ConsistentRead: true } } }),
      );
      found.push(...(out.Responses?.[tableName()] ?? []));
      request = out.UnprocessedKeys?.[tableName()]?.Keys ?? [];
      return request.length ? AGAIN : undefined;
    });
  }
  return found;
}
