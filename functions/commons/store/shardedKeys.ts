import { ACTIVITY_SHARDS, MARK_SHARDS, PROJECT_ACTIVITY_SHARDS, TASK_ACTIVITY_SHARDS } from './activityKeys';
import { DELIVERY_SHARDS, DUE_SHARDS, LABEL_LINK_SHARDS, TASK_SHARDS, WORKSPACE_COPIES } from './keys';

/**
 * Every partition key the table (or an index) spreads over shards: one registry, read by the capacity
 * model (lib/capacity) and shown by docs/capacity.md, so a key sharded in keys.ts or activityKeys.ts
 * is known to the model by its pattern, not by a guess from its spelling. A key not listed here is one
 * partition per value.
 */
export interface ShardedKey {
  /** The key as the capacity model names it (lib/capacity/patterns.ts). */
  name: string;
  /** The index whose partition key it is; absent for the table's. */
  index?: 'GSI3';
  /** Whether a partition key value is one of this key's shards. */
  matches: (key: string) => boolean;
  /** The part of a shard's value that names its shard (what `family` takes off: the shards of one value share the rest). */
  shardPart: RegExp;
  shards: number;
  /** What chooses the shard an item goes to. */
  chosenBy: string;
  /** Items of the key (by sort key, or a Query's sort-key prefix) that are never spread: shard 0 takes all of their load. */
  inShardZero?: (item: string) => boolean;
  /**
   * Whether the spread items skip shard 0 (a project's tasks: their homes are shards 1 to TASK_SHARDS), so that shard 0
   * takes only what is written in it (the inShardZero items, and its own copy of an item every shard has).
   */
  spreadPastZero?: true;
  /** Shared by every workspace of the stage: one workspace alone gets its share of each shard, and the others theirs. */
  stageWide?: true;
  /**
   * Whether the stream processor acts on the records of its items: a sharded key whose items it acts on feeds it from
   * each shard (each a stream shard of its own, read on its own). The history's entries and marks are written by the
   * processor and filtered out of its stream (events/streamFilter.ts); an index makes no records.
   */
  feedsProcessor: boolean;
}

export const SHARDED_KEYS: readonly ShardedKey[] = [
  {
    name: 'ACTIVITY#<ws>#SHARD#<shard>',
    matches: (key) => /^ACTIVITY#[^#]+#SHARD#\d+$/.test(key),
    shardPart: /#SHARD#\d+$/,
    shards: ACTIVITY_SHARDS,
    chosenBy: "the entry's place in the workspace's order, each shard in turn",
    feedsProcessor: false,
  },
  {
    name: 'ACTIVITY#<ws>#MARKS#<shard>',
    matches: (key) => /^ACTIVITY#[^#]+#MARKS#\d+$/.test(key),
    shardPart: /#MARKS#\d+$/,
    shards: MARK_SHARDS,
    chosenBy: "a hash of the event's id",
    feedsProcessor: false,
  },
  {
    name: 'ACTIVITY#<ws>#PROJECTID#<project>',
    // Shard 0 is the project's partition as it was before shards; the others add their number.
    matches: (key) => /^ACTIVITY#[^#]+#PROJECTID#[^#]+(#SHARD#\d+)?$/.test(key),
    shardPart: /#SHARD#\d+$/,
    shards: PROJECT_ACTIVITY_SHARDS,
    chosenBy:
      "the entry's place in the workspace's order, as for the workspace's shards (so a copy's shard takes no more than the workspace's shards of its number)",
    feedsProcessor: false,
  },
  {
    name: 'ACTIVITY#<ws>#TASK#<task>',
    matches: (key) => /^ACTIVITY#[^#]+#TASK#[^#]+(#SHARD#\d+)?$/.test(key),
    shardPart: /#SHARD#\d+$/,
    shards: TASK_ACTIVITY_SHARDS,
    chosenBy:
      "the entry's place in the workspace's order, as for the workspace's shards (so a copy's shard takes no more than the workspace's shards of its number)",
    feedsProcessor: false,
  },
  {
    name: 'WEBHOOK#<ws>#<webhook>',
    // Shard 0 is the webhook's deliveries' partition as it was before shards (its health and recovery lease too).
    matches: (key) => /^WEBHOOK#[^#]+#[^#]+(#SHARD#\d+)?$/.test(key),
    shardPart: /#SHARD#\d+$/,
    shards: DELIVERY_SHARDS,
    chosenBy: "a hash of the delivery's id (its payload and attempts beside it)",
    inShardZero: (item) => item === 'HEALTH' || item === 'RECOVERY',
    feedsProcessor: false,
  },
  {
    name: 'LABEL#<ws>#<label>',
    // Shard 0 is the label's collection as it was before shards: its label-set memberships and deletion job stay there.
    matches: (key) => /^LABEL#[^#]+#\d+(#SHARD#\d+)?$/.test(key),
    shardPart: /#SHARD#\d+$/,
    shards: LABEL_LINK_SHARDS,
    chosenBy: 'a hash of the task (the label sides of links; its label-set memberships stay in the first)',
    // A deleted label's mark (GONE) is in every shard, and an attach checks the one its link goes to.
    inShardZero: (item) => !item.includes('#TASK#') && item !== 'GONE',
    // The processor acts on its label-set memberships and deletion job, both in shard 0; never on a label-side link.
    feedsProcessor: false,
  },
  {
    name: 'PROJECT#<project>',
    // Shard 0 is the project's collection as it was before shards: its use counters, label set and deletion job stay there;
    // the tasks' homes are the other TASK_SHARDS.
    matches: (key) => /^PROJECT#[^#]+(#SHARD#\d+)?$/.test(key),
    shardPart: /#SHARD#\d+$/,
    shards: TASK_SHARDS,
    chosenBy: "a hash of the task (its links, version, state and detach notes; a member's or sprint's state by its name)",
    inShardZero: (item) => /^(USE#|LABELSET#|DELETION)/.test(item),
    spreadPastZero: true,
    // The processor acts on the links, states and detach notes of every shard.
    feedsProcessor: true,
  },
  {
    name: 'WS#<ws>#COPY#<copy>',
    matches: (key) => /^WS#[^#]+#COPY#\d+$/.test(key),
    shardPart: /#COPY#\d+$/,
    shards: WORKSPACE_COPIES,
    chosenBy: "none: a label's or project's item has a copy in each (all written with it), and a read takes any one at random",
    // Copies make stream records the processor never sees (events/streamFilter.ts: not a type it acts on).
    feedsProcessor: false,
  },
  {
    name: 'GSI3 DUE#<due>',
    index: 'GSI3',
    matches: (key) => /^DUE#\d+$/.test(key),
    shardPart: /#\d+$/,
    shards: DUE_SHARDS,
    chosenBy: "a hash of the delivery's id",
    stageWide: true,
    feedsProcessor: false,
  },
];

/** The registry's entry of a partition key value (of `index`), if its key is sharded. */
const shardedKeyOf = (key: string, index?: string): ShardedKey | undefined =>
  SHARDED_KEYS.find((s) => (s.index ?? '') === (index ?? '') && s.matches(key));

/**
 * The shards of one value of a sharded key, named alike (its pattern's name and the value without its shard):
 * a request's draws on every shard of it are summed there, and spread over them (model.ts). Any other key: itself.
 */
export const shardFamilyOf = (key: string, index?: string): string => {
  const sharded = shardedKeyOf(key, index);
  return sharded ? `${sharded.name} ${key.replace(sharded.shardPart, '')}` : key;
};

/** The name of a sharded key's pattern, of a partition key value that is one of its shards. */
export const shardedNameOf = (key: string, index?: string): string | undefined => shardedKeyOf(key, index)?.name;

/** How many partitions the values of a key's pattern spread over: 1 for a key that is not sharded. */
export const shardsOf = (key: string, index?: string): number => shardedKeyOf(key, index)?.shards ?? 1;

/** How many partitions an item's load spreads over: its key's shards, or 1 for an item the key keeps in shard 0. */
export const itemShardsOf = (key: string, item: string | undefined, index?: string): number => {
  const sharded = shardedKeyOf(key, index);
  if (sharded === undefined || (item !== undefined && sharded.inShardZero?.(item))) return 1;
  // A key whose spread skips shard 0: what is written in shard 0 itself is shard 0's (an item in every shard, a mark).
  return sharded.spreadPastZero && !sharded.shardPart.test(key) ? 1 : sharded.shards;
};

/** Whether an item's load goes to the shards past shard 0 alone (a spread item of a key whose spread skips shard 0). */
export const pastShardZero = (key: string, item: string | undefined, index?: string): boolean =>
  shardedKeyOf(key, index)?.spreadPastZero === true && itemShardsOf(key, item, index) > 1;

/** How many stream shards the processor reads a table key's records from: its shards, when it acts on them; else 1. */
export const processorShardsOf = (key: string): number => {
  const sharded = shardedKeyOf(key);
  return sharded?.feedsProcessor ? sharded.shards : 1;
};
