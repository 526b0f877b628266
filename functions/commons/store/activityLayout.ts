import type { ActivityEntry } from '#domain/entities';
import { EARLIER_LAYOUT, PROJECT_ACTIVITY_SHARDS, TASK_ACTIVITY_SHARDS } from './activityKeys';
import { type Key, keys } from './keys';
import { shardOf } from './shards';

/**
 * Where an entry's items go, as the workspace's history is laid out when it is written (activityKeys.ts). This
 * version spreads the history over more shards than the one before (the workspace's 8, 8 per project, 4 per task,
 * the marks' 8), and reads all of them. Until every function runs it, a function of the version before (still
 * running during a deploy, or back after a rollback) reads only the shards it knew. So a workspace's history is
 * written as before for SPREAD_AFTER_MS after this version first writes it (the position's `sharded_since`), and
 * spread only after: no reader, of either version, misses an entry of that time.
 *
 * A mark made as before (or by the version before) is found by a record delivered again after the spread: an event
 * that happened before it began is also looked for where its mark was made before.
 */

/** Longer than a deploy takes to bring every function of the stack to this version (or a failed one to roll back). */
export const SPREAD_AFTER_MS = 15 * 60_000;

/** A workspace that has recorded nothing has no entry of before: spread from its first. */
const NEVER_LAID_OUT_BEFORE = new Date(0).toISOString();

/** An entry before it has a place: what the stream side makes of one event. */
export type NewEntry = Omit<ActivityEntry, 'sequence' | 'recorded_at'>;

export interface Layout {
  /** Since when this version writes the workspace's history (kept on its position). */
  shardedSince: string;
  /** Whether entries recorded now are spread over this version's shards. */
  spread: boolean;
  /** When the spread began (epoch ms): an event that happened before may have its mark where it was made before. */
  spreadAt: number;
}

/** The layout of entries recorded at `at`, in a workspace whose position says `shardedSince` (undefined: no position). */
export function layoutAt(at: string, position: { sharded_since?: string } | undefined): Layout {
  const shardedSince = position === undefined ? NEVER_LAID_OUT_BEFORE : (position.sharded_since ?? at);
  const spreadAt = Date.parse(shardedSince) + SPREAD_AFTER_MS;
  return { shardedSince, spread: Date.parse(at) >= spreadAt, spreadAt };
}

/**
 * How a transaction's entries share a copy's shards: in turn, from the transaction's first place (`first`) moved by a hash
 * of the copy. A batch's entries of one project (or task) fill its shards evenly, whatever entries of other projects lie
 * between them; a choice by each entry's own place would not (two projects changed in turn would each get every other
 * place, and so half the shards). And the batches of one busy copy follow each other round the shards, as places do.
 * Where an entry went matters to no one: reads merge every shard, and its mark keeps it from being written twice.
 */
export function copyTurns(first: number): (partition: string, shards: number) => number {
  const next = new Map<string, number>();
  return (partition, shards) => {
    const turn = next.get(partition) ?? first + shardOf(partition, shards);
    next.set(partition, turn + 1);
    return turn % shards;
  };
}

/** The copies an entry is kept in: its workspace's (the shard its place falls in), its project's and its task's (their turn). */
export function copiesOf(ws: string, e: NewEntry, sequence: number, sortKey: string, turn?: ReturnType<typeof copyTurns>): Key[] {
  // Without turns, as the version before wrote them: 4 workspace shards, each copy in its shard 0.
  const shardOfCopy = (partition: string, shards: number) => (turn ? turn(partition, shards) : 0);
  return [
    keys.activity(ws, sequence, sortKey, turn ? undefined : EARLIER_LAYOUT.workspace),
    ...(e.project_id === null
      ? []
      : [keys.projectActivity(ws, e.project_id, shardOfCopy(`project ${e.project_id}`, PROJECT_ACTIVITY_SHARDS), sortKey)]),
    ...(e.task_uuid === null
      ? []
      : [keys.taskActivity(ws, e.task_uuid, shardOfCopy(`task ${e.task_uuid}`, TASK_ACTIVITY_SHARDS), sortKey)]),
  ];
}

/** Where the event's mark is made, and where else to make sure it was not made before (an event older than the spread). */
export function markOf(ws: string, e: NewEntry, layout: Layout): { mark: Key; earlier?: Key } {
  const now = keys.activityMark(ws, e.event_id);
  const before = keys.earlierActivityMark(ws, e.event_id);
  if (!layout.spread) return { mark: before ?? now };
  return before && Date.parse(e.occurred_at) < layout.spreadAt ? { mark: now, earlier: before } : { mark: now };
}

/** Every place an event's mark may be, whichever layout made it. */
export const markPlaces = (ws: string, eventId: string): Key[] =>
  [keys.activityMark(ws, eventId), keys.earlierActivityMark(ws, eventId) ?? []].flat();
