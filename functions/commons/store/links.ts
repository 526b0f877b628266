import { randomUUID } from 'node:crypto';
import { deleteKeys } from './batches';
import { labelStillAsRead } from './labels';
import { num, str } from './codec';
import { ItemType, keys } from './keys';
import { labelLinkShard, labelLinksLayoutItem, labelShardOf, stillInShard } from './labelLinkLayout';
import { serviceSpreadAt } from './serviceLayouts';
import { queryAll, type Item, type KeyRange } from './query';
import { transact, tx, type TransactItem } from './transactions';
import type { Actor, LabelRecord } from '#domain/entities';

/**
 * Task-label links. A link is two items written and deleted together in one transaction:
 *   task side   PROJECT#<projectId> / TASK#<task>#LABEL#<labelId>   (a task's labels: one Query)
 *   label side  LABEL#<ws>#<labelId>[#SHARD#<n>] / PROJECT#<projectId>#TASK#<task> (a label's tasks: a merged read)
 * Both are base-table items, so every read that decides a write is strongly consistent. Per task, a
 * version item that every attach bumps keeps concurrent attaches from taking a task past the limit.
 * Nothing else is on the request path: per-label use counters and `labels_count` follow from the
 * table's stream (store/counters.ts), so attaches of one label to many tasks never contend.
 * A detach also writes a short-lived note naming who detached what: its `Label Detached` event.
 */
export interface ProjectRef {
  id: string;
  slug: string;
}
export interface LabelRef {
  id: number;
  slug: string;
  /** The label as the change read it: kept on the items its event is made from, so its history names it as it was then. */
  title?: string;
  color?: string;
}

/** What a link's event item keeps of its label as it was when the link changed (labels read before that have none). */
export function labelAsItWas(label: LabelRef): Record<string, string> {
  return label.title === undefined || label.color === undefined ? {} : { label_title: label.title, label_color: label.color };
}

/** A label a task carries, and the shard of its link's label side (labelLinkLayout.ts), as its task side names it. */
interface TaskLink extends LabelRef {
  shard: number;
}

/** A task's links as read before a change, with the version that guards its label limit. */
export interface TaskState {
  task: string;
  links: TaskLink[];
  /** The task's version item (absent before the task's first attach). */
  version: number | undefined;
}

/** The items of a link and its bookkeeping, as attach writes them (benchmarks seed with these too). */
export function taskLinkItem(
  ws: string,
  project: ProjectRef,
  label: LabelRef,
  task: string,
  createdAt: string,
  actor?: Actor,
  labelShard = 0,
): Item {
  return {
    ...keys.taskLink(project.id, task, label.id),
    type: ItemType.taskLink,
    workspace: ws,
    project_id: project.id,
    project_slug: project.slug,
    task_uuid: task,
    label_id: label.id,
    label_slug: label.slug,
    ...labelAsItWas(label),
    created_at: createdAt,
    ...(actor ? { created_by: actor } : {}),
    ...(labelShard === 0 ? {} : { label_shard: labelShard }),
  };
}

export function labelLinkItem(ws: string, project: ProjectRef, label: LabelRef, task: string, createdAt: string, shard = 0): Item {
  return {
    ...keys.labelLink(ws, label.id, project.id, task, shard),
    type: ItemType.labelLink,
    workspace: ws,
    project_id: project.id,
    project_slug: project.slug,
    task_uuid: task,
    label_id: label.id,
    created_at: createdAt,
  };
}

/** Stored attribute `v` is the version. */
export function taskVersionItem(ws: string, projectId: string, task: string, version: number): Item {
  return {
    ...keys.taskVersion(projectId, task),
    type: ItemType.taskVersion,
    workspace: ws,
    project_id: projectId,
    task_uuid: task,
    v: version,
  };
}

export async function readTask(projectId: string, task: string): Promise<TaskState> {
  const items = await queryAll({ partition: keys.projectCollection(projectId), sortPrefix: keys.taskSkPrefix(task) });
  const version = items.find((i) => i.type === ItemType.taskVersion);
  return {
    task,
    links: items
      .filter((i) => i.type === ItemType.taskLink)
      .map((i) => ({ id: num(i, 'label_id'), slug: str(i, 'label_slug'), shard: labelShardOf(i) })),
    version: version ? num(version, 'v') : undefined,
  };
}

/**
 * An attach needs the label and the project to exist and be the same ones (not namesakes): a delete
 * removes the item at once, so no link can be written once its label or project is deleted.
 */
export const LABEL_LIVE = 'id = :id';
export const PROJECT_LIVE = 'id = :pid';

/** How long a detach note outlives its detach: the stream hands it on within seconds; a day is ample. */
const NOTE_TTL_SECONDS = 24 * 3600;

/**
 * Links the label to the tasks of `adding` (none of which carries it) in one transaction,
 * conditional on what was read: each task's version. Parts: `label` and `project` (still live),
 * and per task `version:`, `link:`, `labelLink:`.
 */
export async function writeAttach(
  ws: string,
  project: ProjectRef,
  label: LabelRef,
  adding: TaskState[],
  actor: Actor,
): Promise<Map<string, number>> {
  const shards = new Map<string, number>();
  // When links began to spread: the attach makes the service's LAYOUT item, if none (labelLinkLayout.ts).
  const spreadAt = await serviceSpreadAt(keys.labelLinksLayout(), labelLinksLayoutItem, true);
  const at = Date.now();
  const now = new Date(at).toISOString();
  const parts: [string, TransactItem][] = [
    ['label', tx.check(keys.label(ws, label.slug), { condition: LABEL_LIVE, values: { ':id': label.id } })],
    ['project', tx.check(keys.project(ws, project.slug), { condition: PROJECT_LIVE, values: { ':pid': project.id } })],
  ];
  for (const s of adding) {
    const shard = labelLinkShard(s.task, spreadAt, at);
    shards.set(s.task, shard);
    parts.push(
      [
        `version:${s.task}`,
        tx.put(
          taskVersionItem(ws, project.id, s.task, (s.version ?? 0) + 1),
          s.version === undefined ? { condition: 'attribute_not_exists(PK)' } : { condition: 'v = :v', values: { ':v': s.version } },
        ),
      ],
      [`link:${s.task}`, tx.put(taskLinkItem(ws, project, label, s.task, now, actor, shard), { condition: 'attribute_not_exists(PK)' })],
      [`labelLink:${s.task}`, tx.put(labelLinkItem(ws, project, label, s.task, now, shard), { condition: 'attribute_not_exists(PK)' })],
    );
  }
  await transact(parts);
  return shards;
}

/** The note a detach leaves for its event (`task` absent: the label left the project's label set). */
export function detachNoteItem(
  ws: string,
  project: ProjectRef,
  label: LabelRef,
  task: string | undefined,
  actor: Actor,
  noteId: string = randomUUID(),
): Item {
  const now = Date.now();
  return {
    ...keys.detachNote(project.id, noteId),
    type: ItemType.detachNote,
    workspace: ws,
    project_id: project.id,
    project_slug: project.slug,
    label_id: label.id,
    label_slug: label.slug,
    ...labelAsItWas(label),
    ...(task === undefined ? {} : { task_uuid: task }),
    actor,
    at: new Date(now).toISOString(),
    ttl: Math.floor(now / 1000) + NOTE_TTL_SECONDS,
  };
}

/**
 * Unlinks the label from the tasks of `removing` (each carries it) in one transaction, with a note
 * per task for its event. Parts per task: `link:` (still there, naming the shard read), `labelLink:`, `note:`; given
 * `asRead` (If-Match), `labelAsRead` (the label is still that revision).
 */
export async function writeDetach(
  ws: string,
  project: ProjectRef,
  label: LabelRef,
  removing: TaskState[],
  actor: Actor,
  asRead?: LabelRecord,
): Promise<void> {
  const parts: [string, TransactItem][] = asRead ? [['labelAsRead', labelStillAsRead(ws, asRead)]] : [];
  for (const s of removing) {
    const shard = shardOfLink(s, label);
    parts.push(
      // Still the link as read: a link made again since may have its label side in another shard.
      [`link:${s.task}`, tx.delete(keys.taskLink(project.id, s.task, label.id), stillInShard(shard))],
      [`labelLink:${s.task}`, tx.delete(keys.labelLink(ws, label.id, project.id, s.task, shard))],
      [`note:${s.task}`, tx.put(detachNoteItem(ws, project, label, s.task, actor))],
    );
  }
  await transact(parts);
}

/** For every label some task of the project carries, how many tasks carry it (the use counters). */
export async function readLabelUses(projectId: string): Promise<Map<number, number>> {
  const items = await queryAll({ partition: keys.projectCollection(projectId), sortPrefix: keys.labelUseSkPrefix });
  return new Map(items.map((i) => [num(i, 'label_id'), num(i, 'n')]));
}

/** The label-side links of one project, in task order (the tasks carrying the label there), in shard 0: merge every shard. */
export function tasksWithLabelRange(ws: string, labelId: number, projectId: string): KeyRange {
  return { partition: keys.labelCollection(ws, labelId), sortPrefix: keys.labelLinkProjectPrefix(projectId) };
}

/** The shard of the label side of `label`'s link to the task of `s`, as read (a detach acts only on links read). */
function shardOfLink(s: TaskState, label: LabelRef): number {
  const link = s.links.find((l) => l.id === label.id);
  if (!link) throw new Error(`task ${s.task} was not read carrying label ${label.id}`);
  return link.shard;
}

export function taskOfLabelLink(item: Item): string {
  return str(item, 'task_uuid');
}

/** Removes a task's version item (its labels are gone: the task was deleted elsewhere). */
export async function deleteTaskVersion(projectId: string, task: string): Promise<void> {
  await deleteKeys([keys.taskVersion(projectId, task)]);
}
