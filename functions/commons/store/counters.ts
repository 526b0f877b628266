import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { chunk } from './batches';
import { db } from './client';
import { num } from './codec';
import { TransactionCancelled } from './errors';
import { ItemType, keys } from './keys';
import type { ProjectRef } from './links';
import type { Item } from './query';
import { AGAIN, RETRY, withRetries } from './retry';
import { tableName } from './table';
import { transact, tx, type TransactItem } from './transactions';

/**
 * The counters derived from links, kept by the stream processor (never on the request path):
 *   use counter   PROJECT#<projectId> / USE#<labelId>: `n` tasks of the project carry the label; exists while n > 0
 *   labels_count  on the project item: how many use counters the project has
 * Each link stream record is applied exactly once: with its change, a receipt keyed by the record's
 * event id (a partition of its own, RECEIPT#<event id>) is written conditionally, so a redelivered
 * record is recognised and skipped. Changes to one
 * (project, label) commute, so records of different tasks may arrive in any order.
 */

/** Receipts outlive the stream's 24-hour retention, so no redelivery can come after its receipt expired. */
const RECEIPT_TTL_SECONDS = 2 * 24 * 3600;
/** Receipts per transaction, beside the use counter and the project (DynamoDB's limit is 100 items). */
const RECEIPTS_PER_TRANSACTION = 90;

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
 * goes, to the project's `labels_count`, together with their receipts, in optimistic rounds. Returns
 * how many records changed the counters (the rest were applied before); 'project gone' when the
 * project was deleted (its cascade removes its counters, nothing to keep).
 */
export async function applyLinkDeltas(
  ws: string,
  project: ProjectRef,
  labelId: number,
  deltas: LinkDelta[],
): Promise<number | 'project gone'> {
  let applied = 0;
  for (const part of chunk(deltas, RECEIPTS_PER_TRANSACTION)) {
    let pending = part;
    const outcome = await withRetries(RETRY.counters, 'Counter updates keep conflicting; the stream will deliver them again.', async () => {
      if (pending.length === 0) return 0;
      const n = await readUse(project.id, labelId);
      try {
        await transact(counterParts(ws, project, labelId, pending, n));
        return pending.length;
      } catch (error) {
        if (!(error instanceof TransactionCancelled)) throw error;
        if (error.conditionFailed('project')) return 'project gone' as const;
        // Records applied by an earlier delivery: drop them and apply the rest.
        pending = pending.filter((d) => !error.conditionFailed(`receipt:${d.eventId}`));
        return AGAIN;
      }
    });
    if (outcome === 'project gone') return outcome;
    applied += outcome;
  }
  return applied;
}

function counterParts(
  ws: string,
  project: ProjectRef,
  labelId: number,
  pending: LinkDelta[],
  n: number | undefined,
): [string, TransactItem][] {
  const before = n ?? 0;
  // Never below zero, even if a record was lost to the failure destination (the checker reports drift).
  const after = Math.max(0, before + pending.reduce((sum, d) => sum + d.delta, 0));
  const expires = Math.floor(Date.now() / 1000) + RECEIPT_TTL_SECONDS;
  const parts: [string, TransactItem][] = pending.map((d) => [
    `receipt:${d.eventId}`,
    tx.put(
      { ...keys.streamReceipt(d.eventId), type: ItemType.streamReceipt, workspace: ws, project_id: project.id, ttl: expires },
      { condition: 'attribute_not_exists(PK)' },
    ),
  ]);
  const key = keys.labelUse(project.id, labelId);
  const counted = { condition: 'n = :n', values: { ':n': before } };
  if (n === undefined) {
    if (after > 0) parts.push(['use', tx.put(labelUseItem(ws, project.id, labelId, after), { condition: 'attribute_not_exists(PK)' })]);
  } else if (after > 0)
    parts.push(['use', tx.update(key, 'SET n = :after', { ...counted, values: { ...counted.values, ':after': after } })]);
  else parts.push(['use', tx.delete(key, counted)]);
  const live = { condition: 'id = :pid', values: { ':pid': project.id } };
  const change = (after > 0 ? 1 : 0) - (before > 0 ? 1 : 0);
  parts.push([
    'project',
    change === 0
      ? tx.check(keys.project(ws, project.slug), live)
      : tx.update(keys.project(ws, project.slug), 'ADD labels_count :change', { ...live, values: { ...live.values, ':change': change } }),
  ]);
  return parts;
}
