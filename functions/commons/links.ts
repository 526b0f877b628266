import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db } from './db';
import { NotFound, ValidationFailed } from './errors';
import { ItemType, keys } from './keys';
import { byTitle, getLabelsBySlug, labelView, type LabelView } from './labels';
import { queryAll, queryPage, type Page } from './paging';
import { tableName } from './table';
import { deleteKeys, cancellationReasons, transact, tx, withOptimisticRetry, type TransactItem } from './writes';

/**
 * Task-label links. A link is two items written and deleted together in one transaction:
 *   task side   PROJECT#<projectId> / TASK#<task>#LABEL#<labelId>   (a task's labels: one Query)
 *   label side  LABEL#<ws>#<labelId> / PROJECT#<projectId>#TASK#<task> (a label's tasks: one Query)
 * Both are base-table items, so every read that decides a write is strongly consistent.
 * Beside them, per project: one use counter per label (how many of its tasks carry the label),
 * which exists exactly while that count is positive and keeps `labels_count` exact; per task, a
 * version item that every attach bumps, so concurrent attaches cannot take a task past the limit.
 */
export const MAX_LABELS_PER_TASK = 100;
export const MAX_TASKS_PER_REQUEST = 100;

export interface ProjectRef {
  id: string;
  slug: string;
}
export interface LabelRef {
  id: number;
  slug: string;
}

interface TaskLinkRef {
  label_id: number;
  label_slug: string;
}

interface TaskState {
  task: string;
  links: TaskLinkRef[];
  version: number | undefined;
}

/** An attach needs the label and the project to exist, be the same ones (not namesakes) and not be under deletion. */
const LABEL_LIVE = 'id = :id AND attribute_not_exists(deleting)';
const PROJECT_LIVE = 'id = :pid AND attribute_not_exists(deleting)';

/** Tasks per transaction: attach writes 3 items per task plus 3, detach 2 plus 2 (limit 100). */
const ATTACH_CHUNK = 32;
const DETACH_CHUNK = 48;

/** The items of a link and its bookkeeping, as attach writes them (benchmarks seed with these too). */
export function taskLinkItem(ws: string, project: ProjectRef, label: LabelRef, task: string, createdAt: string) {
  return {
    ...keys.taskLink(project.id, task, label.id),
    type: ItemType.taskLink,
    workspace: ws,
    project_id: project.id,
    project_slug: project.slug,
    task_uuid: task,
    label_id: label.id,
    label_slug: label.slug,
    created_at: createdAt,
  };
}

export function labelLinkItem(ws: string, project: ProjectRef, label: LabelRef, task: string, createdAt: string) {
  return {
    ...keys.labelLink(ws, label.id, project.id, task),
    type: ItemType.labelLink,
    workspace: ws,
    project_id: project.id,
    project_slug: project.slug,
    task_uuid: task,
    label_id: label.id,
    created_at: createdAt,
  };
}

export function taskVersionItem(ws: string, projectId: string, task: string, version: number) {
  return { ...keys.taskVersion(projectId, task), type: ItemType.taskVersion, workspace: ws, project_id: projectId, task_uuid: task, v: version };
}

export function labelUseItem(ws: string, projectId: string, labelId: number, n: number) {
  return { ...keys.labelUse(projectId, labelId), type: ItemType.labelUse, workspace: ws, project_id: projectId, label_id: labelId, n };
}

async function readTask(projectId: string, task: string): Promise<TaskState> {
  const items = await queryAll(keys.projectCollection(projectId), keys.taskSkPrefix(task));
  const version = items.find((i) => i.type === ItemType.taskVersion);
  return {
    task,
    links: items
      .filter((i) => i.type === ItemType.taskLink)
      .map((i) => ({ label_id: i.label_id as number, label_slug: i.label_slug as string })),
    version: version ? (version.v as number) : undefined,
  };
}

async function readUse(projectId: string, labelId: number): Promise<number | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: tableName(), Key: keys.labelUse(projectId, labelId), ConsistentRead: true }));
  return Item ? (Item.n as number) : undefined;
}

function chunks<T>(list: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}

/** A cancelled transaction whose label or project condition failed: that resource is gone. */
function goneReference(error: unknown, label: LabelRef, project: ProjectRef): Error | null {
  const reasons = cancellationReasons(error);
  if (reasons?.[0] === 'ConditionalCheckFailed') return new NotFound(`No label "${label.slug}" in this workspace.`);
  if (reasons?.[1] === 'ConditionalCheckFailed') return new NotFound(`No project "${project.slug}" in this workspace.`);
  return null;
}

/** Attaches the label to each task; idempotent. Returns each task's label ids after the call. */
export async function attachLabel(ws: string, project: ProjectRef, label: LabelRef, tasks: string[]): Promise<TaskState[]> {
  const after: TaskState[] = [];
  for (const chunk of chunks(tasks, ATTACH_CHUNK)) {
    after.push(...(await withOptimisticRetry(() => attachChunk(ws, project, label, chunk))));
  }
  return after;
}

async function attachChunk(ws: string, project: ProjectRef, label: LabelRef, tasks: string[]): Promise<TaskState[]> {
  const [states, use] = await Promise.all([Promise.all(tasks.map((t) => readTask(project.id, t))), readUse(project.id, label.id)]);
  const adding = states.filter((s) => !s.links.some((l) => l.label_id === label.id));
  const full = adding.filter((s) => s.links.length >= MAX_LABELS_PER_TASK);
  if (full.length) {
    throw new ValidationFailed(full.map((s) => ({ field: 'task_uuid', message: `task ${s.task} already carries ${MAX_LABELS_PER_TASK} labels, the most a task can carry` })));
  }
  if (adding.length === 0) return states;

  const now = new Date().toISOString();
  const items: TransactItem[] = [
    tx.check(keys.label(ws, label.slug), { condition: LABEL_LIVE, values: { ':id': label.id } }),
    use === undefined
      ? tx.update(keys.project(ws, project.slug), 'ADD labels_count :one', { condition: PROJECT_LIVE, values: { ':one': 1, ':pid': project.id } })
      : tx.check(keys.project(ws, project.slug), { condition: PROJECT_LIVE, values: { ':pid': project.id } }),
    use === undefined
      ? tx.put(labelUseItem(ws, project.id, label.id, adding.length), { condition: 'attribute_not_exists(PK)' })
      : tx.update(keys.labelUse(project.id, label.id), 'SET n = n + :k', { condition: 'n = :n', values: { ':k': adding.length, ':n': use } }),
  ];
  for (const s of adding) {
    items.push(
      tx.put(
        taskVersionItem(ws, project.id, s.task, (s.version ?? 0) + 1),
        s.version === undefined ? { condition: 'attribute_not_exists(PK)' } : { condition: 'v = :v', values: { ':v': s.version } },
      ),
      tx.put(
        taskLinkItem(ws, project, label, s.task, now),
        { condition: 'attribute_not_exists(PK)' },
      ),
      tx.put(
        labelLinkItem(ws, project, label, s.task, now),
        { condition: 'attribute_not_exists(PK)' },
      ),
    );
  }
  try {
    await transact(items);
  } catch (error) {
    throw goneReference(error, label, project) ?? error;
  }
  return states.map((s) => (adding.includes(s) ? { ...s, links: [...s.links, { label_id: label.id, label_slug: label.slug }] } : s));
}

/** Detaches the label from each task; idempotent. Returns each task's label ids after the call. */
export async function detachLabel(ws: string, project: ProjectRef, label: LabelRef, tasks: string[]): Promise<TaskState[]> {
  const after: TaskState[] = [];
  for (const chunk of chunks(tasks, DETACH_CHUNK)) {
    after.push(...(await withOptimisticRetry(() => detachChunk(ws, project, label, chunk))));
  }
  return after;
}

async function detachChunk(ws: string, project: ProjectRef, label: LabelRef, tasks: string[]): Promise<TaskState[]> {
  const [states, use] = await Promise.all([Promise.all(tasks.map((t) => readTask(project.id, t))), readUse(project.id, label.id)]);
  const removing = states.filter((s) => s.links.some((l) => l.label_id === label.id));
  if (removing.length === 0) return states;

  const k = removing.length;
  const n = use ?? 0;
  const items: TransactItem[] =
    n === k
      ? [
          tx.delete(keys.labelUse(project.id, label.id), { condition: 'n = :n', values: { ':n': n } }),
          tx.update(keys.project(ws, project.slug), 'ADD labels_count :minus', { condition: 'id = :pid', values: { ':minus': -1, ':pid': project.id } }),
        ]
      : [tx.update(keys.labelUse(project.id, label.id), 'SET n = n - :k', { condition: 'n = :n', values: { ':k': k, ':n': n } })];
  for (const s of removing) {
    items.push(
      tx.delete(keys.taskLink(project.id, s.task, label.id), { condition: 'attribute_exists(PK)' }),
      tx.delete(keys.labelLink(ws, label.id, project.id, s.task)),
    );
  }
  try {
    await transact(items);
  } catch (error) {
    const reasons = cancellationReasons(error);
    if (n === k && reasons?.[1] === 'ConditionalCheckFailed') throw new NotFound(`No project "${project.slug}" in this workspace.`);
    throw error;
  }
  return states.map((s) => (removing.includes(s) ? { ...s, links: s.links.filter((l) => l.label_id !== label.id) } : s));
}

/** Each task with its labels as the API shows them, ordered by title. */
export async function labelsOfTasks(ws: string, states: TaskState[]): Promise<{ task_uuid: string; labels: LabelView[] }[]> {
  const labels = await getLabelsBySlug(ws, states.flatMap((s) => s.links.map((l) => ({ slug: l.label_slug, id: l.label_id }))));
  return states.map((s) => ({
    task_uuid: s.task,
    labels: s.links
      .map((l) => labels.get(l.label_id))
      .filter((l) => l !== undefined)
      .sort(byTitle)
      .map(labelView),
  }));
}

export async function labelsOfTask(ws: string, projectId: string, task: string): Promise<LabelView[]> {
  const [result] = await labelsOfTasks(ws, [await readTask(projectId, task)]);
  return result!.labels;
}

export async function tasksWithLabel(ws: string, projectId: string, labelId: number, opts: { limit: number; cursor?: string }): Promise<Page<string>> {
  const page = await queryPage({
    partitionValue: keys.labelCollection(ws, labelId),
    sortPrefix: keys.labelLinkProjectPrefix(projectId),
    fingerprint: ['label-tasks'],
    ...opts,
  });
  return { items: page.items.map((i) => i.task_uuid as string), nextCursor: page.nextCursor };
}

/**
 * Everything keyed to a project under deletion: both halves of its links, its use counters and
 * task versions. Runs after the project is marked `deleting`, so no new link can appear; reads
 * until empty. The label-side halves go first and the project's own collection last, so that an
 * interruption anywhere leaves every remaining item findable from the project: a retry finishes.
 */
export async function removeProjectLinks(ws: string, projectId: string): Promise<void> {
  for (;;) {
    const items = await queryAll(keys.projectCollection(projectId));
    if (items.length === 0) return;
    const labelSide = items
      .filter((item) => item.type === ItemType.taskLink)
      .map((item) => keys.labelLink(ws, item.label_id as number, projectId, item.task_uuid as string));
    await deleteKeys(labelSide);
    await deleteKeys(items.map((item) => ({ PK: item.PK as string, SK: item.SK as string })));
  }
}

/**
 * Removes a label under deletion from every task of every project. Per round: release each
 * affected project's use counter (with its `labels_count` decrement), delete the task-side halves,
 * then the label-side halves. The label's own collection goes last, so an interruption anywhere
 * leaves every remaining item findable from the label: a retried DELETE finishes the job.
 */
export async function removeLabelLinks(ws: string, labelId: number): Promise<void> {
  for (;;) {
    const links = await queryAll(keys.labelCollection(ws, labelId));
    if (links.length === 0) return;
    const projects = new Map(links.map((link) => [link.project_id as string, link.project_slug as string]));
    await Promise.all([...projects].map(([projectId, projectSlug]) => releaseLabelUse(ws, { id: projectId, slug: projectSlug }, labelId)));
    await deleteKeys(links.map((link) => keys.taskLink(link.project_id as string, link.task_uuid as string, labelId)));
    await deleteKeys(links.map((link) => ({ PK: link.PK as string, SK: link.SK as string })));
  }
}

async function releaseLabelUse(ws: string, project: ProjectRef, labelId: number): Promise<void> {
  await withOptimisticRetry(async () => {
    try {
      await transact([
        tx.delete(keys.labelUse(project.id, labelId), { condition: 'attribute_exists(PK)' }),
        tx.update(keys.project(ws, project.slug), 'ADD labels_count :minus', { condition: 'id = :pid', values: { ':minus': -1, ':pid': project.id } }),
      ]);
    } catch (error) {
      const reasons = cancellationReasons(error);
      // The counter already gone means a detach released it; the project gone means its own
      // cleanup owns the counter (removed here too, so nothing waits on that cleanup).
      if (reasons?.[0] === 'ConditionalCheckFailed') return;
      if (reasons?.[1] === 'ConditionalCheckFailed') return deleteKeys([keys.labelUse(project.id, labelId)]);
      throw error;
    }
  });
}
