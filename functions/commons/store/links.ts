import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db } from './client';
import { num, str } from './codec';
import { ItemType, keys } from './keys';
import { queryAll, type Item, type KeyRange } from './query';
import { tableName } from './table';
import { transact, tx, type TransactItem } from './transactions';

/**
 * Task-label links. A link is two items written and deleted together in one transaction:
 *   task side   PROJECT#<projectId> / TASK#<task>#LABEL#<labelId>   (a task's labels: one Query)
 *   label side  LABEL#<ws>#<labelId> / PROJECT#<projectId>#TASK#<task> (a label's tasks: one Query)
 * Both are base-table items, so every read that decides a write is strongly consistent.
 * Beside them, per project: one use counter per label (how many of its tasks carry the label),
 * which exists exactly while that count is positive and keeps `labels_count` exact; per task, a
 * version item that every attach bumps, so concurrent attaches cannot take a task past the limit.
 */
export interface ProjectRef {
  id: string;
  slug: string;
}
export interface LabelRef {
  id: number;
  slug: string;
}

/** A task's links as read before a change, with the version that guards its label limit. */
export interface TaskState {
  task: string;
  links: LabelRef[];
  /** The task's version item (absent before the task's first attach). */
  version: number | undefined;
}

/** The items of a link and its bookkeeping, as attach writes them (benchmarks seed with these too). */
export function taskLinkItem(ws: string, project: ProjectRef, label: LabelRef, task: string, createdAt: string): Item {
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

export function labelLinkItem(ws: string, project: ProjectRef, label: LabelRef, task: string, createdAt: string): Item {
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

/** Stored attribute `n` is the number of the project's tasks carrying the label. */
export function labelUseItem(ws: string, projectId: string, labelId: number, count: number): Item {
  return {
    ...keys.labelUse(projectId, labelId),
    type: ItemType.labelUse,
    workspace: ws,
    project_id: projectId,
    label_id: labelId,
    n: count,
  };
}

export async function readTask(projectId: string, task: string): Promise<TaskState> {
  const items = await queryAll({ partition: keys.projectCollection(projectId), sortPrefix: keys.taskSkPrefix(task) });
  const version = items.find((i) => i.type === ItemType.taskVersion);
  return {
    task,
    links: items.filter((i) => i.type === ItemType.taskLink).map((i) => ({ id: num(i, 'label_id'), slug: str(i, 'label_slug') })),
    version: version ? num(version, 'v') : undefined,
  };
}

/** How many of the project's tasks carry the label (undefined: none, the counter does not exist). */
export async function readLabelUse(projectId: string, labelId: number): Promise<number | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: tableName(), Key: keys.labelUse(projectId, labelId), ConsistentRead: true }));
  return Item ? num(Item, 'n') : undefined;
}

/** An attach needs the label and the project to exist, be the same ones (not namesakes) and not be under deletion. */
export const LABEL_LIVE = 'id = :id AND attribute_not_exists(deleting)';
export const PROJECT_LIVE = 'id = :pid AND attribute_not_exists(deleting)';

/**
 * Links the label to the tasks of `adding` (none of which carries it) in one transaction,
 * conditional on what was read: each task's version, the project's use counter `use`. Parts:
 * `label` and `project` (still live), `use`, and per task `version:`, `link:`, `labelLink:`.
 */
export async function writeAttach(
  ws: string,
  project: ProjectRef,
  label: LabelRef,
  adding: TaskState[],
  use: number | undefined,
): Promise<void> {
  const now = new Date().toISOString();
  const parts: [string, TransactItem][] = [
    ['label', tx.check(keys.label(ws, label.slug), { condition: LABEL_LIVE, values: { ':id': label.id } })],
    [
      'project',
      use === undefined
        ? tx.update(keys.project(ws, project.slug), 'ADD labels_count :one', {
            condition: PROJECT_LIVE,
            values: { ':one': 1, ':pid': project.id },
          })
        : tx.check(keys.project(ws, project.slug), { condition: PROJECT_LIVE, values: { ':pid': project.id } }),
    ],
    [
      'use',
      use === undefined
        ? tx.put(labelUseItem(ws, project.id, label.id, adding.length), { condition: 'attribute_not_exists(PK)' })
        : tx.update(keys.labelUse(project.id, label.id), 'SET n = n + :k', {
            condition: 'n = :n',
            values: { ':k': adding.length, ':n': use },
          }),
    ],
  ];
  for (const s of adding) {
    parts.push(
      [
        `version:${s.task}`,
        tx.put(
          taskVersionItem(ws, project.id, s.task, (s.version ?? 0) + 1),
          s.version === undefined ? { condition: 'attribute_not_exists(PK)' } : { condition: 'v = :v', values: { ':v': s.version } },
        ),
      ],
      [`link:${s.task}`, tx.put(taskLinkItem(ws, project, label, s.task, now), { condition: 'attribute_not_exists(PK)' })],
      [`labelLink:${s.task}`, tx.put(labelLinkItem(ws, project, label, s.task, now), { condition: 'attribute_not_exists(PK)' })],
    );
  }
  await transact(parts);
}

/**
 * Unlinks the label from the tasks of `removing` (each carries it) in one transaction, conditional
 * on the use counter `use`; the last use releases the label from `labels_count`. Parts: `use`,
 * `project` (only on release: still this project), and per task `link:`, `labelLink:`.
 */
export async function writeDetach(
  ws: string,
  project: ProjectRef,
  label: LabelRef,
  removing: TaskState[],
  use: number | undefined,
): Promise<void> {
  const k = removing.length;
  const n = use ?? 0;
  const parts: [string, TransactItem][] =
    n === k
      ? [
          ['use', tx.delete(keys.labelUse(project.id, label.id), { condition: 'n = :n', values: { ':n': n } })],
          [
            'project',
            tx.update(keys.project(ws, project.slug), 'ADD labels_count :minus', {
              condition: 'id = :pid',
              values: { ':minus': -1, ':pid': project.id },
            }),
          ],
        ]
      : [['use', tx.update(keys.labelUse(project.id, label.id), 'SET n = n - :k', { condition: 'n = :n', values: { ':k': k, ':n': n } })]];
  for (const s of removing) {
    parts.push(
      [`link:${s.task}`, tx.delete(keys.taskLink(project.id, s.task, label.id), { condition: 'attribute_exists(PK)' })],
      [`labelLink:${s.task}`, tx.delete(keys.labelLink(ws, label.id, project.id, s.task))],
    );
  }
  await transact(parts);
}

/** For every label some task of the project carries, how many tasks carry it (the use counters). */
export async function readLabelUses(projectId: string): Promise<Map<number, number>> {
  const items = await queryAll({ partition: keys.projectCollection(projectId), sortPrefix: keys.labelUseSkPrefix });
  return new Map(items.map((i) => [num(i, 'label_id'), num(i, 'n')]));
}

/** The label-side links of one project, in task order (the tasks carrying the label there). */
export function tasksWithLabelRange(ws: string, labelId: number, projectId: string): KeyRange {
  return { partition: keys.labelCollection(ws, labelId), sortPrefix: keys.labelLinkProjectPrefix(projectId) };
}

export function taskOfLabelLink(item: Item): string {
  return str(item, 'task_uuid');
}
