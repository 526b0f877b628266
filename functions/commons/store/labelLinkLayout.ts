import { optNum } from './codec';
import { ItemType, keys, LABEL_LINK_SHARDS } from './keys';
import { shardOf } from './shards';

/**
 * Which shard of a label's collection the label-side half of a link goes to (keys.labelLink): shard 0, the one
 * partition the collection had before shards, or, for a link made after this version began to spread them, the shard a
 * hash of the task gives. The attach that makes a link names its shard on the task-side half (`label_shard`, absent for
 * shard 0), so a detach, a task's removal and a project's cascade delete the label side where it is; a label's reads
 * (its tasks, its cascade) merge every shard.
 *
 * A function of the version before (still running during a deploy, or back after a rollback) writes, reads and deletes
 * every label side in shard 0. So links go on in shard 0 until SPREAD_AFTER_MS after this version first attaches on the
 * table (the service's LAYOUT item, `LABEL#` / `LAYOUT`); a link made before stays where it is for good. A table the
 * local tools make new has the item as of long ago. Pure: store/links.ts reads the item (serviceLayouts.ts).
 */

/** When label-side links began to spread (epoch ms). */
export type LabelLinksSpreadAt = number;

/** The shard of the label side of a link to `task` made at `now`, given when links began to spread. */
export function labelLinkShard(task: string, spreadAt: LabelLinksSpreadAt, now = Date.now()): number {
  return now < spreadAt ? 0 : shardOf(task, LABEL_LINK_SHARDS);
}

/** The shard of a task link's label side, as the task link names it. */
export const labelShardOf = (taskLink: Record<string, unknown>): number => optNum(taskLink, 'label_shard') ?? 0;

/** A task side still there and naming the shard read (absent: shard 0): a detach deletes the label side it read. */
export const stillInShard = (shard: number) =>
  shard === 0
    ? { condition: 'attribute_exists(PK) AND attribute_not_exists(label_shard)' }
    : { condition: 'attribute_exists(PK) AND label_shard = :shard', values: { ':shard': shard } };

/** The service's LAYOUT item of label-side links: since when this version writes them. */
export const labelLinksLayoutItem = (since: string) => ({
  ...keys.labelLinksLayout(),
  type: ItemType.labelLinksLayout,
  sharded_since: since,
});
