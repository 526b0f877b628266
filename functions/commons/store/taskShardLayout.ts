import { ItemType, keys, TASK_SHARDS } from './keys';
import { shardOf } from './shards';

/**
 * Which shard of its project's collection a task's items are in (taskKeys.ts). A task lives where its version item is:
 * shard 0, the one partition the collection had before shards, for a task made before this version spread tasks; the
 * shard a hash of the task gives (its home, one of 1 to TASK_SHARDS: shard 0 keeps the project's use counters and label
 * set, read together once no task is left there) for one made since. A member's or sprint's state goes by its name alike.
 *
 * A function of the version before (still running during a deploy, or back after a rollback) reads and writes every task
 * in shard 0. So new tasks are made in shard 0 until SPREAD_AFTER_MS after this version first writes a task on the table
 * (the service's LAYOUT item, `PROJECT#` / `LAYOUT`). Until `npm run rekey` has moved every task made before to its home
 * and said so on that item (`rekeyed_at`), a task is looked for in shard 0 and its home. A table the local tools make
 * new has the item as of long ago, rekeyed. Pure: store/taskLayoutReads.ts reads the item.
 */
export interface TaskLayout {
  /** When new tasks began to go to their homes (epoch ms; Infinity: not yet). */
  spreadAt: number;
  /** Whether no task is left outside its home (`npm run rekey` moved them all). */
  rekeyed: boolean;
}

/** The shard a hash of a task (or a member's or sprint's name) gives, never 0: where it lives once spread. */
export const homeShard = (subject: string): number => 1 + shardOf(subject, TASK_SHARDS);

/** The shard a task (or thing) that has no items yet is made in, at `now`. */
export const newShard = (subject: string, layout: TaskLayout, now = Date.now()): number => (now < layout.spreadAt ? 0 : homeShard(subject));

/** The shards a task's (or thing's) items may be in: its home and, until the table is rekeyed, shard 0. Home first. */
export function candidateShards(subject: string, layout: TaskLayout): number[] {
  return layout.rekeyed ? [homeShard(subject)] : [homeShard(subject), 0];
}

/**
 * The same shards in the order a move carries items (`npm run rekey`: from shard 0 to the home), shard 0 first: a reader
 * or a deleter that goes in it finds at home what a move carried between its two steps, and misses nothing.
 */
export const shardsInMoveOrder = (subject: string, layout: TaskLayout): number[] => candidateShards(subject, layout).reverse();

/** The service's LAYOUT item of task shards: since when this version writes them (and, once rekeyed, when). */
export const taskShardsLayoutItem = (since: string, rekeyedAt?: string) => ({
  ...keys.taskShardsLayout(),
  type: ItemType.taskShardsLayout,
  sharded_since: since,
  ...(rekeyedAt === undefined ? {} : { rekeyed_at: rekeyedAt }),
});
