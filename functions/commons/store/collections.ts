import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db } from './client';
import { num, str } from './codec';
import { conditionally } from './errors';
import { ItemType, keys, type Key } from './keys';
import { labelShardOf } from './labelLinkLayout';
import { queryPage, type Item } from './query';
import { candidateShards, type TaskLayout } from './taskShardLayout';
import { tableName } from './table';

/**
 * Whole collections, read a page at a time and taken apart by the cascades of project and label
 * deletes, and the deletion jobs that drive them (one item per deleted project or label).
 */

/**
 * Up to `limit` items keyed to a project's internal id, the deletion job and marks left out; `more` when others follow: from its
 * shards in turn (taskShardLayout.ts), so a round that takes away what it read finds the rest from the first again.
 */
export function readProjectCollectionPage(projectId: string, limit: number): Promise<{ items: Item[]; more: boolean }> {
  return pageOfShards(keys.projectShards(projectId), limit);
}

/**
 * Up to `limit` label-side items of a label (links and label-set memberships), the deletion job and marks left out: from its
 * shards in turn (labelLinkLayout.ts), so a round that takes away what it read finds the rest from the first again.
 */
export function readLabelCollectionPage(ws: string, labelId: number, limit: number): Promise<{ items: Item[]; more: boolean }> {
  return pageOfShards(keys.labelCollectionShards(ws, labelId), limit);
}

async function pageOfShards(shards: string[], limit: number): Promise<{ items: Item[]; more: boolean }> {
  const items: Item[] = [];
  for (const partition of shards) {
    const page = await pageWithoutJob(partition, limit - items.length);
    items.push(...page.items);
    if (page.more || items.length >= limit) return { items, more: true };
  }
  return { items, more: false };
}

/** What a cascade leaves: the job that drives it, and the marks (tombstones.ts) that outlive it and expire. */
const LEFT = new Set<string>([ItemType.projectDeletion, ItemType.labelDeletion, ItemType.tombstone]);

async function pageWithoutJob(partition: string, limit: number): Promise<{ items: Item[]; more: boolean }> {
  // Two more than asked: the job and the shard's mark may be among them.
  const { items, lastKey } = await queryPage({ partition }, limit + 2);
  const rest = items.filter((i) => !LEFT.has(i.type as string));
  return { items: rest, more: lastKey !== undefined };
}

/** The label-side halves of the links and label-set memberships among `items` (a project collection). */
export function labelSidesOf(ws: string, projectId: string, items: Item[]): Key[] {
  return items.flatMap((item) =>
    item.type === ItemType.taskLink
      ? [keys.labelLink(ws, num(item, 'label_id'), projectId, str(item, 'task_uuid'), labelShardOf(item))]
      : item.type === ItemType.projectLabel
        ? [keys.labelProject(ws, num(item, 'label_id'), projectId)]
        : [],
  );
}

/**
 * The project-side halves of label-side items: label-set memberships, and task links in every shard their task may be
 * in (taskShardLayout.ts: a move under way may copy one to its task's home). To be deleted in that order, `first`
 * (shard 0's) before `then` (the homes'): a link a move copies between the two is deleted where it went.
 */
export function taskSidesOf(labelId: number, labelItems: Item[], layout: TaskLayout): { first: Key[]; then: Key[] } {
  const first: Key[] = [];
  const then: Key[] = [];
  for (const item of labelItems) {
    const projectId = str(item, 'project_id');
    if (item.type === ItemType.labelProject) first.push(keys.projectLabel(projectId, labelId));
    else {
      const task = str(item, 'task_uuid');
      for (const n of candidateShards(task, layout)) (n === 0 ? first : then).push(keys.taskLink(projectId, task, labelId, n));
    }
  }
  return { first, then };
}

export function keyOf(item: Item): Key {
  return { PK: str(item, 'PK'), SK: str(item, 'SK') };
}

/**
 * Schedules a job's next round: bumping `round` writes a stream record that runs it. False when the
 * job is no longer at `round` (a redelivered record of an older round: the newer one drives).
 */
export function nextRound(job: Key, round: number): Promise<boolean> {
  return conditionally(
    db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: job,
        UpdateExpression: 'SET round = :next',
        ConditionExpression: 'round = :round',
        ExpressionAttributeValues: { ':next': round + 1, ':round': round },
      }),
    ),
  );
}

/** The cascade is done: the job goes (idempotent). */
export async function finishJob(job: Key): Promise<void> {
  await db.send(new DeleteCommand({ TableName: tableName(), Key: job }));
}
