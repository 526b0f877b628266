import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { db } from './client';
import { getItem } from './batches';
import { SPREAD_AFTER_MS } from './deployWindow';
import { conditionally } from './errors';
import type { Key } from './keys';
import { tableName } from './table';

/** Found or made, by table and item: a service's LAYOUT item never changes, so a function reads it once. */
const known = new Map<string, string>();

/**
 * Since when this version writes a key's new layout, as the service-wide LAYOUT item `key` says (`sharded_since`: the
 * history's, activityLayout.ts; the deliveries', webhooks/store/deliveryLayout.ts; label links', labelLinkLayout.ts). A writer (`makeAt` given) that
 * finds none makes it, as of then, unless another writer made it first; a reader gets undefined and asks again next
 * time.
 */
export async function serviceShardedSince(
  key: Key,
  itemOf: (since: string) => Record<string, unknown>,
  makeAt?: string,
): Promise<string | undefined> {
  const table = tableName();
  const cached = known.get(`${table}|${key.PK}|${key.SK}`);
  if (cached !== undefined) return cached;
  const read = async () => (await getItem(key))?.sharded_since as string | undefined;
  let since = await read();
  if (since === undefined) {
    if (makeAt === undefined) return undefined;
    const put = new PutCommand({ TableName: table, Item: itemOf(makeAt), ConditionExpression: 'attribute_not_exists(PK)' });
    since = (await conditionally(db.send(put))) ? makeAt : await read();
    if (since === undefined) throw new Error(`the layout item ${key.PK} / ${key.SK} was made by another writer and is gone`);
  }
  known.set(`${table}|${key.PK}|${key.SK}`, since);
  return since;
}

/**
 * When a key's layout began to spread (epoch ms): SPREAD_AFTER_MS after its LAYOUT item's time (serviceShardedSince).
 * A reader (`making` false) that finds no item yet takes Infinity (nothing has spread, and nothing made now spreads for
 * SPREAD_AFTER_MS) and asks again next time; a writer makes the item, as of now.
 */
export async function serviceSpreadAt(key: Key, itemOf: (since: string) => Record<string, unknown>, making: boolean): Promise<number> {
  const since = await serviceShardedSince(key, itemOf, making ? new Date().toISOString() : undefined);
  return since === undefined ? Number.POSITIVE_INFINITY : Date.parse(since) + SPREAD_AFTER_MS;
}
