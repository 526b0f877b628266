import { randomUUID } from 'node:crypto';
import { ItemType, keys } from './keys';
import type { Item } from './query';
import type { Actor } from '#domain/entities';

/**
 * The items of a link and its bookkeeping, as attach and detach write them (benchmarks and samples build with these too).
 * `taskShard` is the shard of the project's collection the task lives in (taskShardLayout.ts), `labelShard` that of the
 * label's collection the link's label side is in (labelLinkLayout.ts).
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

export function taskLinkItem(
  ws: string,
  project: ProjectRef,
  label: LabelRef,
  task: string,
  createdAt: string,
  actor?: Actor,
  labelShard = 0,
  taskShard = 0,
): Item {
  return {
    ...keys.taskLink(project.id, task, label.id, taskShard),
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
export function taskVersionItem(ws: string, projectId: string, task: string, version: number, taskShard = 0): Item {
  return {
    ...keys.taskVersion(projectId, task, taskShard),
    type: ItemType.taskVersion,
    workspace: ws,
    project_id: projectId,
    task_uuid: task,
    v: version,
  };
}

/** How long a detach note outlives its detach: the stream hands it on within seconds; a day is ample. */
const NOTE_TTL_SECONDS = 24 * 3600;

/** The note a detach leaves for its event (`task` absent: the label left the project's label set, a note of shard 0). */
export function detachNoteItem(
  ws: string,
  project: ProjectRef,
  label: LabelRef,
  task: string | undefined,
  actor: Actor,
  noteId: string = randomUUID(),
  taskShard = 0,
): Item {
  const now = Date.now();
  return {
    ...keys.detachNote(project.id, noteId, taskShard),
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
