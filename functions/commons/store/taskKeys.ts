/**
 * How a project's task-side keys are spelled (keys.ts takes them in; every other module asks there):
 *
 *   PROJECT#<projectId>              shard 0: the project's collection as it was before shards; its use counters
 *                                    (USE#), label set (LABELSET#) and deletion job stay here, and no task once rekeyed
 *   PROJECT#<projectId>#SHARD#<n>    shards 1 to TASK_SHARDS: the tasks' homes
 *   PROJECT# / LAYOUT                since when this version spreads tasks, and whether a table's tasks are all moved
 *   each shard's GONE                a deleted project's mark (tombstones.ts), until it expires
 *
 * A task's items (its links TASK#<task>#LABEL#<id>, its version TASK#<task>#VERSION, its state TASKSTATE#<task>, the
 * notes of its detaches DETACHED#<id>) live in one shard: the one its version item is in (taskShardLayout.ts), a
 * hash of the task for a task made since tasks spread. A member's or sprint's state: a hash of its name.
 */
const PROJECT = 'PROJECT#';
const TASK = 'TASK#';
const LABEL = 'LABEL#';
const THING_PREFIX = { task: 'TASKSTATE#', member: 'MEMBER#', sprint: 'SPRINTSTATE#' } as const;

/** Partitions a project's tasks are spread over (besides shard 0), by a hash of the task: each takes about 1,000 link writes a second. */
export const TASK_SHARDS = 16;

type Key = { PK: string; SK: string };

const projectShard = (projectId: string, shard: number) => `${PROJECT}${projectId}${shard === 0 ? '' : `#SHARD#${shard}`}`;

export const taskKeys = {
  /** Shard `shard` of a project's collection (0: the partition it had before shards). */
  projectShard,
  /** Every shard of a project's collection, shard 0 first. */
  projectShards: (projectId: string) => Array.from({ length: TASK_SHARDS + 1 }, (_, n) => projectShard(projectId, n)),
  /** The task-side half of a link: in its task's shard, so one Query gives a task's labels. */
  taskLink: (projectId: string, task: string, labelId: number, shard = 0): Key => ({
    PK: projectShard(projectId, shard),
    SK: `${TASK}${task}#${LABEL}${labelId}`,
  }),
  /** A task's version item: every attach bumps it, so concurrent attaches cannot exceed the label limit; where it is, the task is. */
  taskVersion: (projectId: string, task: string, shard = 0): Key => ({ PK: projectShard(projectId, shard), SK: `${TASK}${task}#VERSION` }),
  taskSkPrefix: (task: string) => `${TASK}${task}#`,
  taskLinkSkPrefix: (task: string) => `${TASK}${task}#${LABEL}`,
  /** Who detached what: written with a detach (in its task's shard), read from the stream as its `Label Detached` event, expires. */
  detachNote: (projectId: string, noteId: string, shard = 0): Key => ({ PK: projectShard(projectId, shard), SK: `DETACHED#${noteId}` }),
  /** What the rest of the product told us of one task, member or sprint of the project (inbound events), in its shard. */
  thingState: (projectId: string, thing: 'task' | 'member' | 'sprint', subject: string, shard = 0): Key => ({
    PK: projectShard(projectId, shard),
    SK: `${THING_PREFIX[thing]}${subject}`,
  }),
  thingStatePrefix: (thing: 'task' | 'member' | 'sprint') => THING_PREFIX[thing],
  /** A deleted project's mark in shard `shard` (tombstones.ts): a link is written in a shard only while it has none. */
  projectTombstone: (projectId: string, shard: number): Key => ({ PK: projectShard(projectId, shard), SK: 'GONE' }),
  /** The service's item of since when this version spreads a project's tasks (taskShardLayout.ts). */
  taskShardsLayout: (): Key => ({ PK: PROJECT, SK: 'LAYOUT' }),
} as const;
