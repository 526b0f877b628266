import { shardOf } from './shards';

/**
 * How the history's keys are spelled (keys.ts takes them in; every other module asks there):
 *
 *   ACTIVITY#                          LAYOUT: since when this version writes histories, service-wide (activityLayout.ts)
 *   ACTIVITY#<ws>                      SEQUENCE: the workspace's history position (the last entry's place and time);
 *                                      LAYOUT: since when this version writes it (activityLayout.ts)
 *   ACTIVITY#<ws>#SHARD#<n>            the workspace's entries, spread over ACTIVITY_SHARDS partitions in turn
 *   ACTIVITY#<ws>#MARKS#<n>            the mark of each event recorded (EVENT#<event id>), spread by event
 *   ACTIVITY#<ws>#PROJECTID#<id>       the same entries of one project (by its stable id), a copy: its shard 0,
 *     ...#PROJECTID#<id>#SHARD#<n>     and its shards 1 to PROJECT_ACTIVITY_SHARDS - 1, by the entry's place
 *   ACTIVITY#<ws>#SLUG#<slug>          which projects had that slug: one pointer per create (its place), the newest last
 *   ACTIVITY#<ws>#PROJECT#<slug>       entries of a project recorded before ids were kept (read beside its id's)
 *   ACTIVITY#<ws>#TASK#<uuid>          the same entries of one task, a copy: its shard 0,
 *     ...#TASK#<uuid>#SHARD#<n>        and its shards 1 to TASK_ACTIVITY_SHARDS - 1
 *
 * A copy's shard 0 is the partition it had before copies were sharded: what was written there stays, read
 * beside the other shards (no entry moves, and a cursor, bound to shard 0, goes on). The same holds of the
 * workspace's shards and marks, whose counts grew from 4 to 8: the first 4 are those of before.
 *
 * An entry's sort key is its place in the workspace's order: the time it was recorded, then its
 * sequence number. Both only grow (activityLog.ts), so key order is the order entries became
 * readable. Entries recorded before sequences existed keep `AT#<occurred_at>#<event id>`: the same
 * time-first shape, so old and new sort together.
 */
const ACTIVITY = 'ACTIVITY#';
const AT = 'AT#';
const EVENT = 'EVENT#';

/**
 * How many partitions a workspace's history is spread over: every change of every project lands in it,
 * so one partition would cap a workspace's changes at about 1,000 entries' write units a second.
 */
export const ACTIVITY_SHARDS = 8;
/** How many partitions a project's copy of its entries is spread over, in turn (a hot project's changes are most of a workspace's). */
export const PROJECT_ACTIVITY_SHARDS = 8;
/** And a task's (its attaches and detaches: fewer, and a task's history is read whole more often than a project's). */
export const TASK_ACTIVITY_SHARDS = 4;
/** How many partitions the events' marks are spread over, by a hash of the event's id. */
export const MARK_SHARDS = 8;
/** How many they were spread over before (a mark made then is in shard `hash % 4`, which `hash % 8` is half the time). */
const EARLIER_MARK_SHARDS = 4;
/**
 * The shards the version before wrote: the workspace's 4, one partition per copy. A workspace's history is written so
 * for a while after this version first writes it (activityLog.ts), so that a function of the version before still
 * running meanwhile, or a rollback to it, reads every entry.
 */
export const EARLIER_LAYOUT = { workspace: 4, project: 1, task: 1 } as const;
/** Digits of a sequence number in a sort key (zero-padded, so text order is number order). */
const SEQUENCE_DIGITS = 15;

type Key = { PK: string; SK: string };

const activityShard = (ws: string, shard: number) => `${ACTIVITY}${ws}#SHARD#${shard}`;
const projectActivity = (ws: string, projectId: string) => `${ACTIVITY}${ws}#PROJECTID#${projectId}`;
const slugPointers = (ws: string, slug: string) => `${ACTIVITY}${ws}#SLUG#${slug}`;
const taskActivity = (ws: string, task: string) => `${ACTIVITY}${ws}#TASK#${task}`;
const markShard = (ws: string, shard: number) => `${ACTIVITY}${ws}#MARKS#${shard}`;

/** A copy's shard: shard 0 is the copy's own partition (as it was before shards), the others follow it. */
const copyShard = (partition: string, shard: number) => (shard === 0 ? partition : `${partition}#SHARD#${shard}`);
const copyShards = (partition: string, shards: number) => Array.from({ length: shards }, (_, n) => copyShard(partition, n));

export const activityKeys = {
  /** One entry of a workspace's history, in the shard its place falls in (each in turn). */
  activity: (ws: string, sequence: number, sortKey: string, shards: number = ACTIVITY_SHARDS): Key => ({
    PK: activityShard(ws, sequence % shards),
    SK: sortKey,
  }),
  /** Every shard of a workspace's history (a read merges them). */
  activityShards: (ws: string) => Array.from({ length: ACTIVITY_SHARDS }, (_, n) => activityShard(ws, n)),
  /** The same entry in its project's history (entries of a project's changes and of its tasks' labels), by the project's id, in shard `shard`. */
  projectActivity: (ws: string, projectId: string, shard: number, sortKey: string): Key => ({
    PK: copyShard(projectActivity(ws, projectId), shard),
    SK: sortKey,
  }),
  /** Every shard of a project's history, its shard 0 first (what a cursor is bound to). */
  projectActivityPartitions: (ws: string, projectId: string) => copyShards(projectActivity(ws, projectId), PROJECT_ACTIVITY_SHARDS),
  /** Where a project recorded before ids were kept has its entries (by slug: a slug's earlier projects' too). */
  legacyProjectActivityPartition: (ws: string, slug: string) => `${ACTIVITY}${ws}#PROJECT#${slug}`,
  /** That the project `projectId` took the slug, at the place of its create (the newest pointer is the slug's project). */
  projectSlugPointer: (ws: string, slug: string, sortKey: string): Key => ({ PK: slugPointers(ws, slug), SK: sortKey }),
  projectSlugPointers: (ws: string, slug: string) => slugPointers(ws, slug),
  /** The same entry in its task's history (attaches and detaches): a task's history is read from its shards alone. */
  taskActivity: (ws: string, task: string, shard: number, sortKey: string): Key => ({
    PK: copyShard(taskActivity(ws, task), shard),
    SK: sortKey,
  }),
  /** Every shard of a task's history, its shard 0 first. */
  taskActivityPartitions: (ws: string, task: string) => copyShards(taskActivity(ws, task), TASK_ACTIVITY_SHARDS),
  /** The workspace's position: the sequence and time of its last entry, moved in the transaction that writes entries. */
  activitySequence: (ws: string): Key => ({ PK: `${ACTIVITY}${ws}`, SK: 'SEQUENCE' }),
  /** Since when this version has written the workspace's history (activityLayout.ts): beside the position, which the version before rewrites whole. */
  activityLayout: (ws: string): Key => ({ PK: `${ACTIVITY}${ws}`, SK: 'LAYOUT' }),
  /** Since when this version has written any workspace's history: what a workspace new to it takes as its own LAYOUT. */
  serviceActivityLayout: (): Key => ({ PK: ACTIVITY, SK: 'LAYOUT' }),
  /** The mark that an event's entry was recorded (a stream record delivered again finds it and writes nothing). */
  activityMark: (ws: string, eventId: string): Key => ({ PK: markShard(ws, shardOf(eventId, MARK_SHARDS)), SK: `${EVENT}${eventId}` }),
  /** Where the event's mark is made in the layout of before (EARLIER_LAYOUT), when that is another key (undefined: the same). */
  earlierActivityMark: (ws: string, eventId: string): Key | undefined => {
    const [now, then] = [shardOf(eventId, MARK_SHARDS), shardOf(eventId, EARLIER_MARK_SHARDS)];
    return now === then ? undefined : { PK: markShard(ws, then), SK: `${EVENT}${eventId}` };
  },
  /** An entry's place: when it was recorded (ISO 8601, UTC, to the millisecond), then its sequence number. */
  activitySortKey: (recordedAt: string, sequence: number) => `${AT}${recordedAt}#${String(sequence).padStart(SEQUENCE_DIGITS, '0')}`,
  /** The place of an entry recorded before sequences existed. */
  legacyActivitySortKey: (occurredAt: string, eventId: string) => `${AT}${occurredAt}#${eventId}`,
  /** Where the entries of an instant begin in key order; every key of it sorts below `${it}#~`. */
  activityTimeKey: (at: string) => `${AT}${at}`,
  /** The time a place (a sort key) begins with. */
  activityKeyTime: (sortKey: string) => sortKey.slice(AT.length, AT.length + 24),
} as const;
