import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db } from './client';
import { num } from './codec';
import { ItemType, keys } from './keys';
import { applyOnce, projectLiveParts, statsPart } from './projectStats';
import type { ProjectRef } from './linkItems';
import type { Item } from './query';
import { tableName } from './table';
import { tx, type TransactItem } from './transactions';

/**
 * The counters derived from links, kept by the stream processor (never on the request path):
 *   use counter   PROJECT#<projectId> / USE#<labelId>: `n` tasks of the project carry the label; exists while n > 0
 *   labels_count  how many use counters the project has: among its kept stats (projectStats.ts), or on the project
 *                 item where the stats are not counted through the stream yet (`onStream` false)
 * Each link stream record is applied exactly once: with its change, its receipt (receipts.ts), so a redelivered record
 * is recognised and skipped. Changes to one (project, label) commute, so records of different tasks may arrive in any
 * order.
 */

/** A link record: +1 when a task of the project started carrying the label, -1 when one stopped. */
export interface LinkDelta {
  eventId: string;
  delta: 1 | -1;
}

/** Stored attribute `n` is the number of the project's tasks carrying the label. */
function labelUseItem(ws: string, projectId: string, labelId: number, count: number): Item {
  return {
    ...keys.labelUse(projectId, labelId),
    type: ItemType.labelUse,
    workspace: ws,
    project_id: projectId,
    label_id: labelId,
    n: count,
  };
}

async function readUse(projectId: string, labelId: number): Promise<number | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: tableName(), Key: keys.labelUse(projectId, labelId), ConsistentRead: true }));
  return Item ? num(Item, 'n') : undefined;
}

/**
 * Applies link records of one project and label to its use counter and, when the counter appears or
 * goes, to the project's `labels_count`, together with their receipts, in optimistic rounds (applyOnce). Returns
 * how many records changed the counters (the rest were applied before); 'project gone' when the
 * project was deleted (its cascade removes its counters, nothing to keep).
 */
export async function applyLinkDeltas(
  ws: string,
  project: ProjectRef,
  labelId: number,
  deltas: LinkDelta[],
  onStream: boolean,
): Promise<number | 'project gone'> {
  return applyOnce(ws, project, deltas, async (pending) =>
    counterParts(ws, project, labelId, pending, await readUse(project.id, labelId), onStream, await projectLiveParts(ws, project)),
  );
}

function counterParts(
  ws: string,
  project: ProjectRef,
  labelId: number,
  pending: LinkDelta[],
  n: number | undefined,
  onStream: boolean,
  live: [string, TransactItem][],
): [string, TransactItem][] {
  const before = n ?? 0;
  // Never below zero, even if a record was lost to the failure destination (the checker reports drift).
  const after = Math.max(0, before + pending.reduce((sum, d) => sum + d.delta, 0));
  const parts: [string, TransactItem][] = [];
  const key = keys.labelUse(project.id, labelId);
  const counted = { condition: 'n = :n', values: { ':n': before } };
  if (n === undefined) {
    if (after > 0) parts.push(['use', tx.put(labelUseItem(ws, project.id, labelId, after), { condition: 'attribute_not_exists(PK)' })]);
  } else if (after > 0)
    parts.push(['use', tx.update(key, 'SET n = :after', { ...counted, values: { ...counted.values, ':after': after } })]);
  else parts.push(['use', tx.delete(key, counted)]);
  const same = { condition: 'id = :pid', values: { ':pid': project.id } };
  const change = (after > 0 ? 1 : 0) - (before > 0 ? 1 : 0);
  if (change === 0) parts.push(...live);
  else if (onStream) parts.push(['stats', statsPart(ws, project, { labels_count: change })], ...live);
  else
    parts.push([
      'project',
      tx.update(keys.project(ws, project.slug), 'ADD labels_count :change', { ...same, values: { ...same.values, ':change': change } }),
    ]);
  return parts;
}
