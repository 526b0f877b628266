import { deleteKeys } from './batches';
import { num, str } from './codec';
import { TransactionCancelled } from './errors';
import { ItemType, keys, type Key } from './keys';
import type { ProjectRef } from './links';
import { queryAll, type Item } from './query';
import { transact, tx } from './transactions';

/** Whole collections, read and taken apart by the cascades of project and label deletes. */

/** Everything keyed to a project's internal id: links (task side), use counters, task versions. */
export function readProjectCollection(projectId: string): Promise<Item[]> {
  return queryAll({ partition: keys.projectCollection(projectId) });
}

/** Every label-side link of a label, across projects. */
export function readLabelLinks(ws: string, labelId: number): Promise<Item[]> {
  return queryAll({ partition: keys.labelCollection(ws, labelId) });
}

/** The label-side halves of the links and label-set memberships among `items` (a project collection). */
export function labelSidesOf(ws: string, projectId: string, items: Item[]): Key[] {
  return items.flatMap((item) =>
    item.type === ItemType.taskLink
      ? [keys.labelLink(ws, num(item, 'label_id'), projectId, str(item, 'task_uuid'))]
      : item.type === ItemType.projectLabel
        ? [keys.labelProject(ws, num(item, 'label_id'), projectId)]
        : [],
  );
}

/** The project-side halves of label-side items: task links and label-set memberships. */
export function taskSidesOf(labelId: number, labelItems: Item[]): Key[] {
  return labelItems.map((item) =>
    item.type === ItemType.labelProject
      ? keys.projectLabel(str(item, 'project_id'), labelId)
      : keys.taskLink(str(item, 'project_id'), str(item, 'task_uuid'), labelId),
  );
}

/** The projects (id and slug) where tasks carry the label, from its label-side items. */
export function projectsOf(labelItems: Item[]): ProjectRef[] {
  const links = labelItems.filter((item) => item.type === ItemType.labelLink);
  return [...new Map(links.map((link) => [str(link, 'project_id'), str(link, 'project_slug')])).entries()].map(([id, slug]) => ({
    id,
    slug,
  }));
}

export function keyOf(item: Item): Key {
  return { PK: str(item, 'PK'), SK: str(item, 'SK') };
}

/**
 * Releases a label under deletion from a project: removes its use counter and decrements the
 * project's `labels_count` together. The counter already gone means a detach released it; the
 * project gone means its own cleanup owns the counter (removed here too, so nothing waits on it).
 */
export async function releaseLabelUse(ws: string, project: ProjectRef, labelId: number): Promise<void> {
  try {
    await transact([
      ['use', tx.delete(keys.labelUse(project.id, labelId), { condition: 'attribute_exists(PK)' })],
      [
        'project',
        tx.update(keys.project(ws, project.slug), 'ADD labels_count :minus', {
          condition: 'id = :pid',
          values: { ':minus': -1, ':pid': project.id },
        }),
      ],
    ]);
  } catch (error) {
    if (!(error instanceof TransactionCancelled)) throw error;
    if (error.conditionFailed('use')) return;
    if (error.conditionFailed('project')) return deleteKeys([keys.labelUse(project.id, labelId)]);
    throw error;
  }
}
