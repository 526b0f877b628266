import { TransactionCancelled } from './errors';
import { ItemType, keys } from './keys';
import { detachNoteItem, labelAsItWas, type LabelRef, type ProjectRef } from './linkItems';
import { labelStillAsRead } from './labels';
import { stillLive } from './links';
import { transact, tx, type TransactItem } from './transactions';
import type { Actor, LabelRecord } from '#domain/entities';

/**
 * Project label sets: labels attached to a project itself, not to a task (GitScrum's model). A
 * membership is two items written together, like a link: the project's side in its collection,
 * the label's side in the label's, so a label's delete finds every set it is in.
 */

/**
 * Adds the label to the project's label set (both sides, conditional on label and project being
 * live); false when it was in the set already. Parts: `label...`, `project...` (tombstones.ts), `member`, `labelSide`.
 */
export async function writeProjectLabel(ws: string, project: ProjectRef, label: LabelRef, actor: Actor): Promise<boolean> {
  const now = new Date().toISOString();
  const base = {
    workspace: ws,
    project_id: project.id,
    project_slug: project.slug,
    label_id: label.id,
    label_slug: label.slug,
    created_at: now,
  };
  try {
    await transact([
      // Both sides are written in shard 0 of their collections, so their marks are looked for there (tombstones.ts).
      ...(await stillLive(ws, project, label, { projectShard: 0, labelShard: 0 })),
      [
        'member',
        tx.put(
          { ...keys.projectLabel(project.id, label.id), type: ItemType.projectLabel, ...base, ...labelAsItWas(label), created_by: actor },
          { condition: 'attribute_not_exists(PK)' },
        ),
      ],
      [
        'labelSide',
        tx.put(
          { ...keys.labelProject(ws, label.id, project.id), type: ItemType.labelProject, ...base },
          { condition: 'attribute_not_exists(PK)' },
        ),
      ],
    ]);
    return true;
  } catch (error) {
    if (
      error instanceof TransactionCancelled &&
      !error.conditionFailed('label') &&
      !error.conditionFailed('project') &&
      error.conditionFailed('member')
    )
      return false;
    throw error;
  }
}

/**
 * Removes the label from the project's label set (both sides, and a note for its event); false,
 * and nothing written, when it was not in the set. Parts: `member`, `labelSide`, `note`; given
 * `asRead` (If-Match), `labelAsRead` (the label is still that revision).
 */
export async function deleteProjectLabel(
  ws: string,
  project: ProjectRef,
  label: LabelRef,
  actor: Actor,
  asRead?: LabelRecord,
): Promise<boolean> {
  try {
    await transact([
      ...(asRead ? [['labelAsRead', labelStillAsRead(ws, asRead)] as [string, TransactItem]] : []),
      ['member', tx.delete(keys.projectLabel(project.id, label.id), { condition: 'attribute_exists(PK)' })],
      ['labelSide', tx.delete(keys.labelProject(ws, label.id, project.id))],
      ['note', tx.put(detachNoteItem(ws, project, label, undefined, actor))],
    ]);
    return true;
  } catch (error) {
    if (error instanceof TransactionCancelled && error.conditionFailed('member')) return false;
    throw error;
  }
}
