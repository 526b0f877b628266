import { count } from '#observability/counts';
import { deleteKeys, putItems } from '#store/batches';
import {
  finishJob,
  keyOf,
  labelSidesOf,
  nextRound,
  readLabelCollectionPage,
  readProjectCollectionPage,
  taskSidesOf,
} from '#store/collections';
import { num, optStr, str } from '#store/codec';
import { ItemType, keys } from '#store/keys';
import { detachNoteItem, type LabelRef } from '#store/linkItems';
import type { Item } from '#store/query';
import { readTaskLayout } from '#store/taskLayoutReads';
import { homeShard } from '#store/taskShardLayout';
import type { Actor } from './entities';

/**
 * What a delete takes with it, outside the request. The delete removed the project or label item and
 * wrote its deletion job in one transaction; the job's stream record runs a round, each round removes
 * up to CASCADE_ROUND items and bumps the job, whose new stream record runs the next round, until
 * nothing is left and the job goes. A round is short (one stream record's work), so a cascade of any
 * size interleaves with the other changes of its stream shard instead of holding them up.
 *
 * Resumable and idempotent: far halves go before near ones, so an interruption anywhere leaves every
 * remaining item findable from the collection the next round reads; a redelivered round deletes
 * what is already gone (nothing) and finds the job moved on.
 */
const CASCADE_ROUND = 400;

export interface DeletionJob {
  ws: string;
  round: number;
}

/** One round of a deleted project's cascade: both halves of its links, label sets, counters, versions, notes, receipts. */
export async function projectCascadeRound(job: DeletionJob & { projectId: string }): Promise<'next' | 'done'> {
  const { items, more } = await readProjectCollectionPage(job.projectId, CASCADE_ROUND);
  const sides = labelSidesOf(job.ws, job.projectId, items);
  await deleteKeys(sides);
  await deleteKeys(items.map(keyOf));
  count('CascadeItemsRemoved', sides.length + items.length);
  return finishRound(keys.projectDeletion(job.projectId), job.round, more);
}

/**
 * One round of a deleted label's cascade: off every task and label set of every project, each with the
 * detach note a detach writes (its `Label Detached` event and history entry, by the delete's actor,
 * naming the label as it was deleted), before the links go: an interrupted round that runs again finds
 * the links and puts the same notes again (keyed by label and task), which makes no second event. The
 * use counters and `labels_count` follow from the links' own stream records, like any detach.
 */
export async function labelCascadeRound(job: DeletionJob & { labelId: number; label: LabelRef; actor: Actor }): Promise<'next' | 'done'> {
  const { items, more } = await readLabelCollectionPage(job.ws, job.labelId, CASCADE_ROUND);
  await putItems(items.flatMap((item) => cascadeNote(job, item)));
  const sides = taskSidesOf(job.labelId, items, await readTaskLayout(false));
  await deleteKeys(sides.first);
  await deleteKeys(sides.then);
  await deleteKeys(items.map(keyOf));
  count('CascadeItemsRemoved', sides.first.length + sides.then.length + items.length);
  return finishRound(keys.labelDeletion(job.ws, job.labelId), job.round, more);
}

/** The note of one link or set membership a label's delete takes away (none for anything else in its collection). */
function cascadeNote(job: { ws: string; labelId: number; label: LabelRef; actor: Actor }, item: Item): Item[] {
  if (item.type !== ItemType.labelLink && item.type !== ItemType.labelProject) return [];
  const project = { id: str(item, 'project_id'), slug: str(item, 'project_slug') };
  const task = optStr(item, 'task_uuid');
  const noteId = `label-deleted#${num(item, 'label_id')}#${task ?? 'SET'}`;
  return [detachNoteItem(job.ws, project, job.label, task, job.actor, noteId, task === undefined ? 0 : homeShard(task))];
}

async function finishRound(job: ReturnType<typeof keys.projectDeletion>, round: number, more: boolean): Promise<'next' | 'done'> {
  if (more) {
    await nextRound(job, round);
    return 'next';
  }
  await finishJob(job);
  return 'done';
}
