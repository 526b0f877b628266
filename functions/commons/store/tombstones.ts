import { ItemType, keys, LABEL_LINK_SHARDS, TASK_SHARDS, type Key } from './keys';
import { serviceSpreadAt } from './serviceLayouts';
import { tombstonesLayoutItem } from './tombstoneLayout';
import type { LabelRef, ProjectRef } from './linkItems';
import { tx, type TransactItem } from './transactions';

/**
 * Tombstones: a deleted project or label leaves a mark (`GONE`) in every shard of its collection, written by its
 * delete's transaction, and expiring after TOMBSTONE_TTL_SECONDS. A write that adds to a collection (a link, a
 * label-set membership) checks in its transaction that the shard it writes to has no mark. That is the check of a live
 * project and label, made where the write goes (the task's shard, the label side's shard), instead of on their items
 * in the workspace's collection: `WS#<ws>` is the partition every read of the workspace reads, and every attach wrote
 * two checks there. Ids are never reused, so a mark speaks for its project or label alone (a new project of the slug
 * has another id), and a delete marks every shard at once, so any one shard answers for all.
 *
 * The mark outlives any write that read the project or label before the delete (a function runs for minutes at most):
 * a write that finds it fails as the item's check did (404). The cascade leaves marks alone (collections.ts); they expire.
 *
 * A function of the version before deletes without marking. So until SPREAD_AFTER_MS after this version first links,
 * counts or creates a project on the table (the service's LAYOUT item, `PROJECT#` / `LAYOUT#GONE`) a write also checks the items, as before
 * (a counter's write, a day more: projectStats.ts); a table
 * the local tools make new has the item as of long ago (tombstoneLayout.ts). A rollback is safe: the version before checks the items, and a
 * delete of this version removes them as before.
 */

/**
 * A mark lives two days: far longer than a write can take between its read and its transaction, and than a stream
 * record lives after the write that made it (a counter's write checks the project's mark too: projectStats.ts).
 */
export const TOMBSTONE_TTL_SECONDS = 48 * 3600;

/**
 * Whether a write may check the marks alone (no function of the version before can be deleting without marking: the
 * deploy's window after this version's first write that checks them has passed). A writer: it makes the LAYOUT item.
 */
export const marksAlone = async (): Promise<boolean> =>
  Date.now() >= (await serviceSpreadAt(keys.tombstonesLayout(), tombstonesLayoutItem, true));

/** An attach needs the label and the project to be the same ones it read (not namesakes): the checks on their items. */
const LABEL_LIVE = 'id = :id';
const PROJECT_LIVE = 'id = :pid';

const NO_MARK = { condition: 'attribute_not_exists(PK)' };

/** A check that the project's item is still this project (not gone, not a namesake): what a write checked before marks. */
export const projectItemCheck = (ws: string, project: ProjectRef): TransactItem =>
  tx.check(keys.project(ws, project.slug), { condition: PROJECT_LIVE, values: { ':pid': project.id } });

/** A check that shard `shard` of a project's collection has no mark: the project is not deleted. */
export const projectMarkCheck = (projectId: string, shard: number): TransactItem =>
  tx.check(keys.projectTombstone(projectId, shard), NO_MARK);

function marks(keysOf: Key[], item: Record<string, unknown>, deletedAt: string): [string, TransactItem][] {
  const ttl = Math.floor(Date.parse(deletedAt) / 1000) + TOMBSTONE_TTL_SECONDS;
  return keysOf.map((key, n) => [`mark:${n}`, tx.put({ ...key, type: ItemType.tombstone, ...item, deleted_at: deletedAt, ttl })]);
}

/** A deleted project's marks: one in each shard of its collection (parts `mark:<shard>`). */
export function projectTombstones(ws: string, project: ProjectRef, deletedAt: string): [string, TransactItem][] {
  const shards = Array.from({ length: TASK_SHARDS + 1 }, (_, n) => keys.projectTombstone(project.id, n));
  return marks(shards, { workspace: ws, project_id: project.id, project_slug: project.slug }, deletedAt);
}

/**
 * A deleted label's marks: one in each shard of its collection (parts `mark:<shard>`). Each names a project and a task
 * that are none (NO_LINK): the label's cascade of the version before (a rollback, or its stream processor still running
 * mid-deploy) reads every item of the collection but its job as a link or a membership, and would stop on a mark
 * without them; with them it deletes a task side that does not exist, then the mark, and goes on.
 */
export function labelTombstones(ws: string, label: LabelRef, deletedAt: string): [string, TransactItem][] {
  const shards = Array.from({ length: LABEL_LINK_SHARDS }, (_, n) => keys.labelTombstone(ws, label.id, n));
  return marks(shards, { workspace: ws, label_id: label.id, label_slug: label.slug, project_id: NO_LINK, task_uuid: NO_LINK }, deletedAt);
}

/** The project and task a label's mark names for the version before: a project's id is a UUID, a task's begins with a letter or digit. */
const NO_LINK = '-';

/**
 * The parts of a transaction that adds to the collections of `project` and `label`, in shard `projectShard` of the
 * project's and `labelShard` of the label's: no mark in either (`project:gone`, `label:gone`), and, unless `marksAlone`
 * (a function of the version before may still delete: store/links.ts says), their items still the ones read
 * (`project`, `label`). A failed part's name begins with `project` or `label`: which one is gone.
 */
export function liveParts(
  ws: string,
  project: ProjectRef,
  label: LabelRef,
  where: { projectShard: number; labelShard: number },
  marksAlone: boolean,
): [string, TransactItem][] {
  const parts: [string, TransactItem][] = [
    ['label:gone', tx.check(keys.labelTombstone(ws, label.id, where.labelShard), NO_MARK)],
    ['project:gone', projectMarkCheck(project.id, where.projectShard)],
  ];
  if (marksAlone) return parts;
  return [
    ['label', tx.check(keys.label(ws, label.slug), { condition: LABEL_LIVE, values: { ':id': label.id } })],
    ['project', projectItemCheck(ws, project)],
    ...parts,
  ];
}
