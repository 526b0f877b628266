import { keys } from '#store/keys';
import { serviceSpreadAt } from '#store/serviceLayouts';
import { type DeliveriesSpreadAt, deliveriesLayoutItem, deliveryShard } from './deliveryLayout';

/** When this version began to spread deliveries, as the service's LAYOUT item says (deliveryLayout.ts), and a delivery's shard from it. */

/** When deliveries began to spread: Infinity for a reader before any delivery of this version (every one in shard 0). */
export const deliveriesSpreadAt = (making: boolean): Promise<DeliveriesSpreadAt> =>
  serviceSpreadAt(keys.deliveriesLayout(), deliveriesLayoutItem, making);

/** The shard of a delivery's items (a writer of a new one makes the service's layout item, if none). */
export const shardOfDelivery = async (id: string, making = false) => deliveryShard(id, await deliveriesSpreadAt(making));
