import { chunk, mapInFlight } from '#store/batches';
import { readLabelsBySlug } from '#store/labels';

import type { LabelRef, ProjectRef } from '#store/linkItems';
import { deleteTaskVersion, readTask, writeAttach, writeDetach, type TaskState } from '#store/links';
import { readTaskLayout } from '#store/taskLayoutReads';
import type { TaskLayout } from '#store/taskShardLayout';
import { withOptimisticRetry } from '#store/transactions';
import { inDomainTerms } from './failures';
import { DomainError, LimitReached, PartlyApplied, type Precondition } from './errors';
import { byTitle } from './labels';
import { MAX_LABELS_PER_TASK } from './limits';
import { changedLabel, goneReference, linkEnds } from './linkEnds';
import { changeProjectLabels, type ProjectLabel } from './projectLabels';
import { getProject } from './projects';
import { type Actor, type LabelRecord, SYSTEM_ACTOR } from './entities';

/**
 * Tasks per transaction (limit 100): attach writes 3 items per task plus 2 checks (4 in a deploy's window,
 * store/tombstones.ts: 32 x 3 + 4 = 100), and until the table is rekeyed (taskShardLayout.ts) a new task's check of its
 * other shard (24 x 4 + 4); detach 3 per task.
 */
const ATTACH_CHUNK = 32;
const ATTACH_CHUNK_BEFORE_REKEY = 24;
const DETACH_CHUNK = 33;

interface TaskLabels {
  task_uuid: string;
  labels: LabelRecord[];
}

export interface TaskLabelChange {
  labelSlug: string;
  projectSlug: string;
  taskUuid?: string | undefined;
  taskUuids?: string[] | undefined;
}

/** What an attach or detach answers: one task's labels, each task's labels, or the project's labels. */
export type LabelChangeResult = { task: LabelRecord[] } | { tasks: TaskLabels[] } | { project: ProjectLabel[] };

/**
 * Attach or detach as the API does it: resolve the label and project (404 when either is unknown
 * in the workspace), apply the change, then answer with what changed. A single `task_uuid` answers
 * with that task's labels; `task_uuids` with one entry per task; no task at all changes the
 * project's label set and answers the project's labels.
 */
export async function changeLabels(
  change: 'attach' | 'detach',
  ws: string,
  req: TaskLabelChange,
  actor: Actor,
  precondition?: Precondition<LabelRecord>,
): Promise<LabelChangeResult> {
  if (req.taskUuid === undefined && req.taskUuids === undefined)
    return { project: await changeProjectLabels(change, ws, req.labelSlug, req.projectSlug, actor, precondition) };
  const { label, projectRef, labelRef } = await linkEnds(ws, req.labelSlug, req.projectSlug);
  await precondition?.(label);
  const asRead = precondition ? label : undefined;
  const tasks = [...new Set(req.taskUuids ?? [req.taskUuid!])];
  const field = req.taskUuids ? 'task_uuids' : 'task_uuid';
  const layout = await readTaskLayout(change === 'attach');
  const attachSize = layout.rekeyed ? ATTACH_CHUNK : ATTACH_CHUNK_BEFORE_REKEY;
  const chunks = chunk(tasks, change === 'attach' ? attachSize : DETACH_CHUNK);
  // Several chunks are several transactions: check every task's limit before writing any (and write on that read).
  let read: Map<string, TaskState> | undefined;
  if (change === 'attach' && chunks.length > 1) {
    const before = await readTasks(projectRef, tasks, layout);
    const full = before.filter((s) => !carries(s, labelRef) && s.links.length >= MAX_LABELS_PER_TASK);
    if (full.length) throw labelLimitReached(full, field);
    read = new Map(before.map((s) => [s.task, s]));
  }
  const states: TaskState[] = [];
  try {
    for (const part of chunks) {
      const step = () =>
        change === 'attach'
          ? attachChunk(ws, projectRef, labelRef, part, field, actor, layout, read)
          : detachChunk(ws, projectRef, labelRef, part, actor, layout, asRead);
      states.push(...(await withOptimisticRetry(step)));
    }
  } catch (error) {
    // A race after the checks failed a later chunk: say exactly which tasks the earlier ones changed.
    const applied = states.map((s) => s.task);
    throw applied.length ? partiallyApplied(error, applied) : error;
  }
  const result = await labelsOfTasks(ws, states);
  return req.taskUuids ? { tasks: result } : { task: result[0]!.labels };
}

/**
 * Toggles a label on one task: attached when absent, detached when present, in one optimistic
 * round on what was read, so concurrent toggles serialise (two of them leave the task as it was)
 * and never make a duplicate link. Answers the task's labels.
 */
export async function toggleTaskLabel(
  ws: string,
  labelSlug: string,
  projectSlug: string,
  task: string,
  actor: Actor,
): Promise<LabelRecord[]> {
  const { projectRef, labelRef } = await linkEnds(ws, labelSlug, projectSlug);
  const layout = await readTaskLayout(true);
  const [state] = await withOptimisticRetry(async () => {
    // One read decides and conditions the write: a concurrent toggle makes it fail and run again.
    const states = await readTasks(projectRef, [task], layout);
    if (carries(states[0]!, labelRef)) return detachRead(ws, projectRef, labelRef, states, actor);
    return attachRead(ws, projectRef, labelRef, states, 'task_uuid', actor);
  });
  const [result] = await labelsOfTasks(ws, [state!]);
  return result!.labels;
}

/** Task reads in flight at once per request (a bulk change reads up to 100 tasks, one Query each). */
const TASK_READS_IN_FLIGHT = 8;

function readTasks(project: ProjectRef, tasks: string[], layout: TaskLayout): Promise<TaskState[]> {
  return mapInFlight(tasks, TASK_READS_IN_FLIGHT, (t) => readTask(project.id, t, layout));
}

const carries = (s: TaskState, label: LabelRef) => s.links.some((l) => l.id === label.id);

const FULL = `already carries ${MAX_LABELS_PER_TASK} labels, the most a task can carry; detach one of them first`;
function labelLimitReached(full: TaskState[], field: string): LimitReached {
  return new LimitReached(full.map((s) => ({ field, message: FULL, value: s.task })));
}

/** The error of a bulk change that stopped after some chunks were applied, naming the tasks they changed. */
function partiallyApplied(error: unknown, applied: string[]): unknown {
  // A busy database in any form (store retries exhausted, SDK throttling, a conflict) is Busy to say it on.
  const failure = inDomainTerms(error);
  return failure instanceof DomainError ? new PartlyApplied(failure, applied) : error;
}

/** Attaches the label to each task of one chunk (idempotent) on `read`'s states, once (a retry reads anew); its links after. */
async function attachChunk(
  ws: string,
  project: ProjectRef,
  label: LabelRef,
  tasks: string[],
  field: string,
  actor: Actor,
  layout: TaskLayout,
  read?: Map<string, TaskState>,
): Promise<TaskState[]> {
  const known = tasks.map((t) => read?.get(t));
  for (const t of tasks) read?.delete(t);
  const states = known.every((s): s is TaskState => s !== undefined) ? known : await readTasks(project, tasks, layout);
  return attachRead(ws, project, label, states, field, actor);
}

/** Attaches the label to the tasks of `states` as read (writes conditional on that read). */
async function attachRead(
  ws: string,
  project: ProjectRef,
  label: LabelRef,
  states: TaskState[],
  field: string,
  actor: Actor,
): Promise<TaskState[]> {
  const adding = states.filter((s) => !carries(s, label));
  const full = adding.filter((s) => s.links.length >= MAX_LABELS_PER_TASK);
  if (full.length) throw labelLimitReached(full, field);
  if (adding.length === 0) return states;
  let shards: Map<string, number>;
  try {
    shards = await writeAttach(ws, project, label, adding, actor);
  } catch (error) {
    throw goneReference(error, label.slug, project.slug);
  }
  return states.map((s) =>
    adding.includes(s) ? { ...s, links: [...s.links, { ...label, shard: shards.get(s.task)!, taskShard: s.linkShard }] } : s,
  );
}

/**
 * Detaches the label from each task of one chunk; idempotent. Returns each task's links after the
 * call. Given `asRead` (If-Match), only while the label is still that revision (else 412).
 */
async function detachChunk(
  ws: string,
  project: ProjectRef,
  label: LabelRef,
  tasks: string[],
  actor: Actor,
  layout: TaskLayout,
  asRead?: LabelRecord,
): Promise<TaskState[]> {
  return detachRead(ws, project, label, await readTasks(project, tasks, layout), actor, asRead);
}

/** Detaches the label from the tasks of `states` as read (writes conditional on that read). */
async function detachRead(
  ws: string,
  project: ProjectRef,
  label: LabelRef,
  states: TaskState[],
  actor: Actor,
  asRead?: LabelRecord,
): Promise<TaskState[]> {
  const removing = states.filter((s) => carries(s, label));
  if (removing.length === 0) return states;
  await writeDetach(ws, project, label, removing, actor, asRead).catch((error: unknown) => changedLabel(error, ws, label.slug));
  return states.map((s) => (removing.includes(s) ? { ...s, links: s.links.filter((l) => l.id !== label.id) } : s));
}

/** Each task with its labels, ordered by title; links to a label that is gone (or a namesake) are skipped. */
async function labelsOfTasks(ws: string, states: TaskState[]): Promise<TaskLabels[]> {
  const labels = await readLabelsBySlug(
    ws,
    states.flatMap((s) => s.links),
  );
  return states.map((s) => ({
    task_uuid: s.task,
    labels: s.links
      .map((l) => labels.get(l.id))
      .filter((l) => l !== undefined)
      .sort(byTitle),
  }));
}

/** The labels one task of a project carries. */
export async function labelsOfTask(ws: string, projectSlug: string, task: string): Promise<LabelRecord[]> {
  const project = await getProject(ws, projectSlug);
  const [result] = await labelsOfTasks(ws, [await readTask(project.id, task, await readTaskLayout(false))]);
  return result!.labels;
}

/**
 * Takes every label off a task that was deleted elsewhere, through detach's own writes (the links'
 * both halves and a note per label, so `Label Detached` events and the counters follow from the
 * stream as for any detach), then its version item (the per-task limit guard). Idempotent.
 */
export async function removeTaskLabels(ws: string, project: ProjectRef, task: string): Promise<void> {
  const layout = await readTaskLayout(false);
  await withOptimisticRetry(async () => {
    const state = await readTask(project.id, task, layout);
    // Each label as it is now, so its detach's entry names it as it was then.
    const now = await readLabelsBySlug(ws, state.links);
    for (const link of state.links) {
      const label = now.get(link.id);
      await writeDetach(ws, project, label ? { ...link, title: label.title, color: label.color } : link, [state], SYSTEM_ACTOR);
    }
    return undefined;
  });
  await deleteTaskVersion(project.id, task, layout);
}
