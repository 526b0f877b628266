import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { count } from '#observability/counts';
import { db } from './client';
import { copiesPartition, copyDeletes, copyPuts } from './copies';
import { COPIED } from './copyLayouts';
import { conditionally, TransactionCancelled } from './errors';
import { ItemType, keys } from './keys';
import { tableName } from './table';
import { marksAlone, projectMarkCheck, projectTombstones } from './tombstones';
import { transact, tx, type TransactItem } from './transactions';
import { decodeProject, projectItem, sameRevision, type NameKey } from './projectItem';
import type { Actor, ProjectRecord } from '#domain/entities';

/** Every read and write of a project item but its updates (projectUpdates.ts; its shape: projectItem.ts). */

/**
 * Writes a new project unless its slug is taken (false when it is), then its copies (copies.ts). The item first, alone:
 * the create stands once it is written (DynamoDB Local was seen to lose an acknowledged transaction when killed, never a
 * put). Its copies follow in a transaction, each put only where none of its own is, with a check that it was not deleted
 * since (its mark, off the workspace's partition; its item still as created while a delete may not mark): a write that
 * came between (an update) put them from a newer item already, so they are never put back to the create's. If that transaction fails
 * COPY_ATTEMPTS times (throttled), the create still stands and answers, counted (ProjectCopiesPending): a read that finds
 * no copy reads the item (readProject), and its next update puts them (projectUpdates.ts), or `npm run rekey` does. A
 * create is never undone: a client told 503 would make the project again.
 */
export async function putNewProject(record: ProjectRecord, nameKey: NameKey): Promise<boolean> {
  const item = projectItem(record, nameKey);
  const put = new PutCommand({ TableName: tableName(), Item: item, ConditionExpression: 'attribute_not_exists(PK)' });
  if (!(await conditionally(db.send(put)))) return false;
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const asCreated = { condition: sameRevision(record, names, values), names, values };
  const parts: [string, TransactItem][] = [
    // Not deleted since (its mark, in its own partition, once deletes are all marked), or still as created (its item).
    ['project', (await marksAlone()) ? projectMarkCheck(record.id, 0) : tx.check(keys.project(record.workspace, record.slug), asCreated)],
    ...(await copyPuts(item, noCopyYet(record.id))),
  ];
  for (let attempt = 1; attempt <= COPY_ATTEMPTS; attempt++) {
    try {
      await transact(parts);
      break;
    } catch (error) {
      // Deleted, made again, or changed (and so copied) since: nothing of this create's is left to copy.
      if (error instanceof TransactionCancelled && error.anyConditionFailed) break;
      if (attempt === COPY_ATTEMPTS) count('ProjectCopiesPending');
    }
  }
  return true;
}

/**
 * A create's copies are put only where none of this project's is: one there was put by a write after it (an update,
 * from a newer item), or by this create's attempt before (its answer lost). Another project's (one of the slug deleted
 * by a version that left its copies, during a rollback) is written over: the check of the project holds the create to
 * being the slug's newest.
 */
const noCopyYet = (id: string) => ({ condition: 'attribute_not_exists(PK) OR id <> :id', values: { ':id': id } });

/** How many times a create tries to write its copies (a throttled or conflicted transaction goes again at once). */
const COPY_ATTEMPTS = 3;

/**
 * The project, read strongly consistent (callers expect to see their own writes), or undefined: from a copy, or
 * `fromItem` from its item (copiesPartition).
 */
export async function readProject(ws: string, slug: string, fromItem = false): Promise<ProjectRecord | undefined> {
  const Key = { PK: await copiesPartition(COPIED.project, ws, fromItem), SK: keys.project(ws, slug).SK };
  const { Item } = await db.send(new GetCommand({ TableName: tableName(), Key, ConsistentRead: true }));
  if (Item) return decodeProject(Item);
  // No copy: no project, or one whose copies are not written yet (putNewProject): its item says which.
  return Key.PK === keys.workspace(ws) ? undefined : readProject(ws, slug, true);
}

/**
 * Deletes the project item (if it is still this project, not a namesake) and writes its deletion job
 * in the same transaction: from then on every read answers 404, its slug is free, and the job's
 * stream record starts the cascade that removes everything keyed to its id. False when the project
 * was gone already (a concurrent delete won) or, `asRead`, is no longer the revision read. Parts:
 * `project`, `job`, `stats` (its kept stats go with it), `mark:<shard>` (its tombstones, tombstones.ts), `copy:<n>`.
 */
export async function deleteProjectItem(project: ProjectRecord, actor: Actor, asRead = false): Promise<boolean> {
  const deletedAt = new Date().toISOString();
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':id': project.id };
  const condition = asRead ? `id = :id AND ${sameRevision(project, names, values)}` : 'id = :id';
  try {
    await transact([
      ['project', tx.delete(keys.project(project.workspace, project.slug), { condition, names, values })],
      [
        'job',
        tx.put(
          {
            ...keys.projectDeletion(project.id),
            type: ItemType.projectDeletion,
            workspace: project.workspace,
            project_id: project.id,
            project_slug: project.slug,
            project,
            actor,
            deleted_at: deletedAt,
            round: 0,
          },
          { condition: 'attribute_not_exists(PK)' },
        ),
      ],
      // What the stream counted for it (projectStats.ts): a new project of the slug starts from nothing.
      ['stats', tx.delete(keys.projectStats(project.workspace, project.slug))],
      ...projectTombstones(project.workspace, project, deletedAt),
      ...copyDeletes(COPIED.project, project.workspace, project.slug),
    ]);
    return true;
  } catch (error) {
    if (error instanceof TransactionCancelled && error.anyConditionFailed) return false;
    throw error;
  }
}

/**
 * Claims a copy name for `seconds` (long enough for the new project to reach the name index):
 * false when a concurrent duplicate holds it. Claims expire by themselves (TTL).
 */
export function claimCopyName(ws: string, nameKey: string, seconds: number): Promise<boolean> {
  const now = Math.floor(Date.now() / 1000);
  return conditionally(
    db.send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keys.copyNameClaim(ws, nameKey),
          type: ItemType.copyNameClaim,
          workspace: ws,
          claimed_until: now + seconds,
          ttl: now + seconds + 3_600,
        },
        ConditionExpression: 'attribute_not_exists(PK) OR claimed_until < :now',
        ExpressionAttributeValues: { ':now': now },
      }),
    ),
  );
}
