import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '#store/client';
import { SPREAD_AFTER_MS } from '#store/deployWindow';
import { conditionally } from '#store/errors';
import { keys } from '#store/keys';
import { tableName } from '#store/table';
import { type DeliveriesSpreadAt, deliveriesLayoutItem, deliveryShard } from './deliveryLayout';

/** When this version began to spread deliveries, as the service's LAYOUT item says (deliveryLayout.ts), and a delivery's shard from it. */

/** By table: found or made, the item never changes, so a function reads it once. */
const known = new Map<string, DeliveriesSpreadAt>();

async function readSince(table: string): Promise<string | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: table, Key: keys.deliveriesLayout(), ConsistentRead: true }));
  return Item?.sharded_since as string | undefined;
}

/**
 * When deliveries began to spread. A reader (`making` false) that finds no item yet takes Infinity (every delivery is
 * in shard 0 until one is made, and one made now spreads nothing for 15 minutes) and asks again next time; a writer
 * makes it, as of now.
 */
export async function deliveriesSpreadAt(making: boolean): Promise<DeliveriesSpreadAt> {
  const table = tableName();
  const cached = known.get(table);
  if (cached !== undefined) return cached;
  let since = await readSince(table);
  if (since === undefined) {
    if (!making) return Number.POSITIVE_INFINITY;
    const now = new Date().toISOString();
    const put = new PutCommand({ TableName: table, Item: deliveriesLayoutItem(now), ConditionExpression: 'attribute_not_exists(PK)' });
    since = (await conditionally(db.send(put))) ? now : await readSince(table);
    if (since === undefined) throw new Error('the deliveries layout item was made by another writer and is gone');
  }
  const at = Date.parse(since) + SPREAD_AFTER_MS;
  known.set(table, at);
  return at;
}

/** The shard of a delivery's items (a writer of a new one makes the service's layout item, if none). */
export const shardOfDelivery = async (id: string, making = false) => deliveryShard(id, await deliveriesSpreadAt(making));
