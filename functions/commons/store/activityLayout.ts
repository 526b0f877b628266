import type { ActivityEntry } from '#domain/entities';
import { EARLIER_LAYOUT, PROJECT_ACTIVITY_SHARDS, TASK_ACTIVITY_SHARDS } from './activityKeys';
import { CLOCK_SKEW_MS, SPREAD_AFTER_MS } from './deployWindow';
import { ItemType, type Key, keys } from './keys';

/**
 * Where an entry's items go, as the workspace's history is laid out when it is written (activityKeys.ts). This
 * version spreads the history over more shards than the one before (the workspace's 8, 8 per project, 4 per task,
 * the marks' 8), and reads all of them. Until every function runs it, a function of the version before (still
 * running during a deploy, or back after a rollback) reads only the shards it knew, and looks for a mark only where
 * it made them. So histories are written as before for SPREAD_AFTER_MS after this version first writes one (the
 * service's LAYOUT item, `sharded_since`), and spread only after: no reader of either version misses an entry of
 * that time, and no writer of either version misses a mark. A table made new (no version before ever wrote it) has
 * that item from its start, as of long ago. A workspace keeps the time it began with in a LAYOUT item of its own,
 * beside its position (the version before rewrites the position whole, never this): a workspace first written by
 * the version of before this layout item, or by one whose window is over, keeps its own.
 *
 * A mark made as before (or by the version before) is found by a record delivered again after the spread: an event
 * that may have been recorded before the spread began is also looked for where its mark was made before.
 */

/** An entry before it has a place: what the stream side makes of one event. */
export type NewEntry = Omit<ActivityEntry, 'sequence' | 'recorded_at'>;

export interface Layout {
  /** Since when this version writes the workspace's history (its LAYOUT item's, or the service's, when it has none: then made). */
  shardedSince: string;
  /** Whether the LAYOUT item is to be made (this version's first write of the workspace's history). */
  made: boolean;
  /** Whether entries recorded now are spread over this version's shards. */
  spread: boolean;
  /** When the spread began (epoch ms): an event that happened before (and a little after) may have its mark where it was made before. */
  spreadAt: number;
}

/** The layout of entries recorded at `at`, written since `shardedSince` (`made`: the workspace's LAYOUT item is to be made). */
export function layoutAt(at: string, shardedSince: string, made: boolean): Layout {
  const spreadAt = Date.parse(shardedSince) + SPREAD_AFTER_MS;
  return { shardedSince, made, spread: Date.parse(at) >= spreadAt, spreadAt };
}

/** The service's LAYOUT item: since when this version writes histories. */
export const serviceLayoutItem = (since: string) => ({
  ...keys.serviceActivityLayout(),
  type: ItemType.serviceActivityLayout,
  sharded_since: since,
});

/**
 * The copies an entry is kept in: its workspace's, its project's and its task's, each in the shard its place falls in.
 * A copy's entries are some of the workspace's, so a copy's shard never takes more than the workspace's shard of the
 * same number, however the projects' changes interleave (two projects changed in turn fill half the shards each, with
 * half the load): a copy of N shards is never hotter than N of the workspace's. And the same however the stream batches.
 */
export function copiesOf(ws: string, e: NewEntry, sequence: number, sortKey: string, spread = true): Key[] {
  // Not spread, as the version before wrote them: 4 workspace shards, each copy in its shard 0.
  const shard = (shards: number, before: number) => sequence % (spread ? shards : before);
  return [
    keys.activity(ws, sequence, sortKey, spread ? undefined : EARLIER_LAYOUT.workspace),
    ...(e.project_id === null
      ? []
      : [keys.projectActivity(ws, e.project_id, shard(PROJECT_ACTIVITY_SHARDS, EARLIER_LAYOUT.project), sortKey)]),
    ...(e.task_uuid === null ? [] : [keys.taskActivity(ws, e.task_uuid, shard(TASK_ACTIVITY_SHARDS, EARLIER_LAYOUT.task), sortKey)]),
  ];
}

/** Where the event's mark is made, and where else to make sure it was not made before (an event older than the spread). */
export function markOf(ws: string, e: NewEntry, layout: Layout): { mark: Key; earlier?: Key } {
  const now = keys.activityMark(ws, e.event_id);
  const before = keys.earlierActivityMark(ws, e.event_id);
  if (!layout.spread) return { mark: before ?? now };
  return before && Date.parse(e.occurred_at) < layout.spreadAt + CLOCK_SKEW_MS ? { mark: now, earlier: before } : { mark: now };
}

/** Every place an event's mark may be, whichever layout made it. */
export const markPlaces = (ws: string, eventId: string): Key[] =>
  [keys.activityMark(ws, eventId), keys.earlierActivityMark(ws, eventId) ?? []].flat();
