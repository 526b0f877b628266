import { CLOCK_SKEW_MS } from '#store/deployWindow';
import { DELIVERY_SHARDS, ItemType, keys } from '#store/keys';
import { shardOf } from '#store/shards';

/**
 * Which shard of a webhook's deliveries a delivery is in (keys.webhookDelivery): shard 0, the one partition they had
 * before shards, or, for a delivery whose event happened after this version began to spread them, the shard a hash
 * of its id gives. Its payload and its attempts are beside it, so any function that has its id finds all of them.
 *
 * A function of the version before (still running during a deploy, or back after a rollback) writes and reads every
 * delivery in shard 0, and a delivery's id is the same whichever version makes it (a redelivered event makes it
 * again, and its condition finds the one there). So deliveries go on in shard 0 until SPREAD_AFTER_MS after this
 * version first writes one on the table (the service's LAYOUT item, `HOOKS#` / `LAYOUT`); then those of events
 * from that time on (its id's time, and the minute a writer's clock may run ahead: CLOCK_SKEW_MS) are spread. A
 * delivery's shard follows from its id and that time alone: a delivery of an earlier event stays in shard 0 for good.
 * A table the local tools make new has the item as of long ago. Pure: deliverySpread.ts reads the item.
 */

/** When deliveries began to spread (epoch ms); Infinity while no function of this version has written one. */
export type DeliveriesSpreadAt = number;

/** The time a delivery id begins with (its event's), or undefined for an id of another shape. */
function deliveryTime(id: string): number | undefined {
  const found = /^msg_([0-9a-f]{12})/.exec(id);
  return found ? Number.parseInt(found[1]!, 16) : undefined;
}

/** The shard a delivery is in, given when deliveries began to spread. */
export function deliveryShard(id: string, spreadAt: DeliveriesSpreadAt): number {
  const at = deliveryTime(id);
  return at === undefined || at < spreadAt + CLOCK_SKEW_MS ? 0 : shardOf(id, DELIVERY_SHARDS);
}

/** The service's LAYOUT item of the deliveries: since when this version writes them. */
export const deliveriesLayoutItem = (since: string) => ({
  ...keys.deliveriesLayout(),
  type: ItemType.deliveriesLayout,
  sharded_since: since,
});
