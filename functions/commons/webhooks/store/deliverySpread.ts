import { SPREAD_AFTER_MS } from '#store/deployWindow';
import { keys } from '#store/keys';
import { serviceShardedSince } from '#store/serviceLayouts';
import { type DeliveriesSpreadAt, deliveriesLayoutItem, deliveryShard } from './deliveryLayout';

/** When this version began to spread deliveries, as the service's LAYOUT item says (deliveryLayout.ts), and a delivery's shard from it. */

/**
 * When deliveries began to spread. A reader (`making` false) that finds no item yet takes Infinity (every delivery is
 * in shard 0 until one is made, and one made now spreads nothing for 15 minutes) and asks again next time; a writer
 * makes it, as of now.
 */
export async function deliveriesSpreadAt(making: boolean): Promise<DeliveriesSpreadAt> {
  const since = await serviceShardedSince(keys.deliveriesLayout(), deliveriesLayoutItem, making ? new Date().toISOString() : undefined);
  return since === undefined ? Number.POSITIVE_INFINITY : Date.parse(since) + SPREAD_AFTER_MS;
}

/** The shard of a delivery's items (a writer of a new one makes the service's layout item, if none). */
export const shardOfDelivery = async (id: string, making = false) => deliveryShard(id, await deliveriesSpreadAt(making));
