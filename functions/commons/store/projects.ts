import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { db } from './client';
import { conditionally, isConditionFailure, TransactionCancelled } from './errors';
import { ItemType, keys } from './keys';
import { tableName } from './table';
import { projectTombstones } from './tombstones';
import { transact, tx } from './transactions';
import { decodeProject, projectItem, type NameKey } from './projectItem';
import type { Actor, ProjectPatch, ProjectRecord } from '#domain/entities';

/** Every read and write of a project item (its shape: projectItem.ts). */

/** Writes a new project unless its slug is taken; false when it is. */
export function putNewProject(record: ProjectRecord, nameKey: NameKey): Promise<boolean> {
  return conditionally(
    db.send(
      new PutCommand({ TableName: tableName(), Item: projectItem(record, nameKey), ConditionExpression: 'attribute_not_exists(PK)' }),
    ),
  );
}

/** The project, read strongly consistent (callers expect to see their own writes), or undefined. */
export async function readProject(ws: string, slug: string): Promise<ProjectRecord | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: tableName(), Key: keys.project(ws, slug), ConsistentRead: true }));
  return Item ? decodeProject(Item) : undefined;
}

/**
 * The condition that the item is still the one `read` (same project, same revision), for a write
 * a client made conditional (If-Match). Adds its names and values to the given maps.
 */
function sameRevision(
  read: { id: string; rev?: number | undefined },
  names: Record<string, string>,
  values: Record<string, unknown>,
): string {
  names['#rev'] = 'rev';
  values[':readId'] = read.id;
  if (read.rev === undefined) return 'id = :readId AND attribute_not_exists(#rev)';
  values[':readRev'] = read.rev;
  return 'id = :readId AND #rev = :readRev';
}

/** What an update found: the project after it, and whether it changed (false: it had those values already). */
export interface ProjectUpdate {
  project: ProjectRecord;
  changed: boolean;
}

/**
 * Applies a partial update, writing only the fields it names and only when one of them differs,
 * and counts it in the item's revision. An update that changes nothing writes nothing and answers
 * the project as it is. Undefined when there is no such project (or, given `asRead`, when it is no
 * longer that revision).
 */
export async function updateProjectItem(
  ws: string,
  slug: string,
  patch: ProjectPatch,
  nameKey: NameKey,
  actor: Actor,
  asRead?: ProjectRecord,
): Promise<ProjectUpdate | undefined> {
  const sets: string[] = ['updated_at = :now', 'updated_by = :by', '#rev = if_not_exists(#rev, :zero) + :one'];
  const names: Record<string, string> = { '#rev': 'rev' };
  const values: Record<string, unknown> = { ':now': new Date().toISOString(), ':by': actor, ':zero': 0, ':one': 1 };
  const differs: string[] = [];
  const set = (path: string, value: unknown, compared = true) => {
    const id = path.replace(/\W/g, '_');
    const ref = path
      .split('.')
      .map((part) => {
        names[`#${part}`] = part;
        return `#${part}`;
      })
      .join('.');
    values[`:${id}`] = value;
    sets.push(`${ref} = :${id}`);
    if (compared) differs.push(`${ref} <> :${id}`, `attribute_not_exists(${ref})`);
  };
  if (patch.name !== undefined) {
    set('name', patch.name);
    set('GSI2SK', nameKey(patch.name), false);
  }
  if (patch.description !== undefined) set('description', patch.description);
  if (patch.visibility !== undefined) set('visibility', patch.visibility);
  if (patch.status !== undefined) {
    set('status', patch.status);
    set('GSI1PK', keys.projectStatusPartition(ws, patch.status), false);
  }
  if (patch.settings?.default_workflow !== undefined) set('settings.default_workflow', patch.settings.default_workflow);
  if (patch.settings?.task_prefix !== undefined) set('settings.task_prefix', patch.settings.task_prefix);
  if (differs.length === 0) {
    const project = await readProject(ws, slug);
    return project && (!asRead || project.rev === asRead.rev) ? { project, changed: false } : undefined;
  }
  const conditions = ['attribute_exists(PK)', `(${differs.join(' OR ')})`];
  if (asRead) conditions.push(sameRevision(asRead, names, values));
  try {
    const { Attributes } = await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.project(ws, slug),
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: conditions.join(' AND '),
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return Attributes ? { project: decodeProject(Attributes), changed: true } : undefined;
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    // Not there, not the revision read, or already as asked (nothing to write).
    const returned = (error as { Item?: Record<string, AttributeValue> }).Item;
    const project = returned ? decodeProject(unmarshall(returned)) : await readProject(ws, slug);
    if (!project || (asRead && (project.id !== asRead.id || project.rev !== asRead.rev))) return undefined;
    return unchangedBy(project, patch) ? { project, changed: false } : undefined;
  }
}

/** Whether every field `patch` names already has its value in `project`. */
function unchangedBy(project: ProjectRecord, patch: ProjectPatch): boolean {
  return (
    (patch.name === undefined || patch.name === project.name) &&
    (patch.description === undefined || patch.description === project.description) &&
    (patch.visibility === undefined || patch.visibility === project.visibility) &&
    (patch.status === undefined || patch.status === project.status) &&
    (patch.settings?.default_workflow === undefined || patch.settings.default_workflow === project.settings.default_workflow) &&
    (patch.settings?.task_prefix === undefined || patch.settings.task_prefix === project.settings.task_prefix)
  );
}

/**
 * Deletes the project item (if it is still this project, not a namesake) and writes its deletion job
 * in the same transaction: from then on every read answers 404, its slug is free, and the job's
 * stream record starts the cascade that removes everything keyed to its id. False when the project
 * was gone already (a concurrent delete won) or, `asRead`, is no longer the revision read. Parts:
 * `project`, `job`, `stats` (its kept stats go with it), `mark:<shard>` (its tombstones, tombstones.ts).
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
