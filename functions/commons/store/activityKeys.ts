import { shardOf } from './shards';

/**
 * How the history's keys are spelled (keys.ts takes them in; every other module asks there):
 *
 *   ACTIVITY#<ws>                      SEQUENCE: the workspace's history position (the last entry's place and time)
 *   ACTIVITY#<ws>#SHARD#<n>            the workspace's entries, spread over ACTIVITY_SHARDS partitions in turn
 *   ACTIVITY#<ws>#MARKS#<n>            the mark of each event recorded (EVENT#<event id>), spread by event
 *   ACTIVITY#<ws>#PROJECTID#<id>       the same entries of one project (by its stable id), a copy
 *   ACTIVITY#<ws>#SLUG#<slug>          which projects had that slug: one pointer per create (its place), the newest last
 *   ACTIVITY#<ws>#PROJECT#<slug>       entries of a project recorded before ids were kept (read beside its id's)
 *   ACTIVITY#<ws>#TASK#<uuid>          the same entries of one task, a copy
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
export const ACTIVITY_SHARDS = 4;
/** Digits of a sequence number in a sort key (zero-padded, so text order is number order). */
const SEQUENCE_DIGITS = 15;

type Key = { PK: string; SK: string };

const activityShard = (ws: string, shard: number) => `${ACTIVITY}${ws}#SHARD#${shard}`;
const projectActivity = (ws: string, projectId: string) => `${ACTIVITY}${ws}#PROJECTID#${projectId}`;
const slugPointers = (ws: string, slug: string) => `${ACTIVITY}${ws}#SLUG#${slug}`;
const taskActivity = (ws: string, task: string) => `${ACTIVITY}${ws}#TASK#${task}`;

export const activityKeys = {
  /** One entry of a workspace's history, in the shard its place falls in (each in turn). */
  activity: (ws: string, sequence: number, sortKey: string): Key => ({ PK: activityShard(ws, sequence % ACTIVITY_SHARDS), SK: sortKey }),
  activityShard: (ws: string, shard: number) => activityShard(ws, shard),
  /** The same entry in its project's history (entries of a project's changes and of its tasks' labels), by the project's id. */
  projectActivity: (ws: string, projectId: string, sortKey: string): Key => ({ PK: projectActivity(ws, projectId), SK: sortKey }),
  projectActivityPartition: (ws: string, projectId: string) => projectActivity(ws, projectId),
  /** Where a project recorded before ids were kept has its entries (by slug: a slug's earlier projects' too). */
  legacyProjectActivityPartition: (ws: string, slug: string) => `${ACTIVITY}${ws}#PROJECT#${slug}`,
  /** That the project `projectId` took the slug, at the place of its create (the newest pointer is the slug's project). */
  projectSlugPointer: (ws: string, slug: string, sortKey: string): Key => ({ PK: slugPointers(ws, slug), SK: sortKey }),
  projectSlugPointers: (ws: string, slug: string) => slugPointers(ws, slug),
  /** The same entry in its task's history (attaches and detaches): a task's history is read from here alone. */
  taskActivity: (ws: string, task: string, sortKey: string): Key => ({ PK: taskActivity(ws, task), SK: sortKey }),
  taskActivityPartition: (ws: string, task: string) => taskActivity(ws, task),
  /** The workspace's position: the sequence and time of its last entry, moved in the transaction that writes entries. */
  activitySequence: (ws: string): Key => ({ PK: `${ACTIVITY}${ws}`, SK: 'SEQUENCE' }),
  /** The mark that an event's entry was recorded (a stream record delivered again finds it and writes nothing). */
  activityMark: (ws: string, eventId: string): Key => ({
    PK: `${ACTIVITY}${ws}#MARKS#${shardOf(eventId, ACTIVITY_SHARDS)}`,
    SK: `${EVENT}${eventId}`,
  }),
  /** An entry's place: when it was recorded (ISO 8601, UTC, to the millisecond), then its sequence number. */
  activitySortKey: (recordedAt: string, sequence: number) => `${AT}${recordedAt}#${String(sequence).padStart(SEQUENCE_DIGITS, '0')}`,
  /** The place of an entry recorded before sequences existed. */
  legacyActivitySortKey: (occurredAt: string, eventId: string) => `${AT}${occurredAt}#${eventId}`,
  /** Where the entries of an instant begin in key order; every key of it sorts below `${it}#~`. */
  activityTimeKey: (at: string) => `${AT}${at}`,
  /** The time a place (a sort key) begins with. */
  activityKeyTime: (sortKey: string) => sortKey.slice(AT.length, AT.length + 24),
} as const;
