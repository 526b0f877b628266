import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { ProjectRecord } from '#domain/entities';
import { chunk } from './batches';
import { STREAM_RECORD_LIFE_MS } from './deployWindow';
import { db } from './client';
import { optNum, optStr } from './codec';
import { TransactionCancelled } from './errors';
import { ItemType, keys } from './keys';
import type { ProjectRef } from './linkItems';
import { receiptPart, RECEIPTS_PER_TRANSACTION } from './receipts';
import { AGAIN, RETRY, withRetries } from './retry';
import { serviceSpreadAt } from './serviceLayouts';
import { statsLayoutItem } from './statsLayout';
import { tombstonesLayoutItem } from './tombstoneLayout';
import { projectItemCheck, projectMarkCheck } from './tombstones';
import { tableName } from './table';
import { transact, tx, type TransactItem } from './transactions';

/**
 * A project's five counters, kept off its item. The project item (`WS#<ws>`, the workspace's hottest item: every read
 * of a project reads it, and both project indexes carry it) keeps the counters as they stood when this version began
 * counting through the stream (its base, moved only by a function of the version before). What changed them since is
 * summed here, one item per project (`STATS#<ws>#<slug>`, tagged with the project's id), by the stream processor once
 * per batch and project, each record applied once (a receipt). A project's stats are the two added up.
 *
 * Keyed by slug so a read of the project reads it beside the item, not after it; the project's delete takes it in
 * its transaction, and a read takes it only when it names the project read (a stale one, left by a version that did
 * not know it, counts for nothing and the stream's next write replaces it).
 *
 * A function of the version before counts on the project item: the inbound consumer and the stream processor go on
 * doing so until SPREAD_AFTER_MS after this version first counts on the table (the service's LAYOUT item, `STATS#` /
 * `LAYOUT`); a table the local tools make new counts through the stream from the start.
 */

export const STAT_NAMES = ['tasks_count', 'completed_count', 'members_count', 'sprints_count', 'labels_count'] as const;
type StatName = (typeof STAT_NAMES)[number];
export type StatsDelta = Partial<Record<StatName, number>>;

/** A change of a project's counters, made by one stream record (its id, for the receipt). */
export interface RecordDelta {
  eventId: string;
  delta: StatsDelta;
}

/** Whether a change made now counts through the stream (true) or on the project item, as the version before counts. */
export async function statsOnStream(now = Date.now()): Promise<boolean> {
  return now >= (await serviceSpreadAt(keys.statsLayout(), statsLayoutItem, true));
}

/** The counters the stream kept for the project of `slug`, with the id of the project they are of; undefined: none. */
export type KeptStats = { projectId: string | undefined; delta: StatsDelta } | undefined;

export async function readKeptStats(ws: string, slug: string): Promise<KeptStats> {
  const { Item } = await db.send(new GetCommand({ TableName: tableName(), Key: keys.projectStats(ws, slug), ConsistentRead: true }));
  return Item ? keptOf(Item) : undefined;
}

export function keptOf(item: Record<string, unknown>): KeptStats {
  return { projectId: optStr(item, 'project_id'), delta: Object.fromEntries(STAT_NAMES.map((n) => [n, optNum(item, n) ?? 0])) };
}

/** The project with its stats whole: its item's base plus what the stream kept for it (nothing, for a stale item). */
export function withKeptStats(project: ProjectRecord, kept: KeptStats): ProjectRecord {
  if (!kept || kept.projectId !== project.id) return project;
  const whole = { ...project };
  for (const name of STAT_NAMES) whole[name] = project[name] + (kept.delta[name] ?? 0);
  return whole;
}

/** The transaction part (`stats`) that adds `delta` to the project's kept counters, making the item where there is none. */
export function statsPart(ws: string, project: ProjectRef, delta: StatsDelta): TransactItem {
  const moved = STAT_NAMES.filter((n) => (delta[n] ?? 0) !== 0);
  const values: Record<string, unknown> = { ':type': ItemType.projectStats, ':ws': ws, ':pid': project.id, ':slug': project.slug };
  moved.forEach((n) => (values[`:${n}`] = delta[n]));
  const add = moved.length ? ` ADD ${moved.map((n) => `${n} :${n}`).join(', ')}` : '';
  return tx.update(
    keys.projectStats(ws, project.slug),
    `SET #type = :type, workspace = :ws, project_id = :pid, project_slug = :slug${add}`,
    {
      condition: 'attribute_not_exists(PK) OR project_id = :pid',
      names: { '#type': 'type' },
      values,
    },
  );
}

/**
 * The parts (`project:gone`, `project`) that hold a counter's write to the project still being this one: no mark in its
 * first partition, where its use counters are (tombstones.ts), rather than its item in `WS#<ws>`. A record may be
 * handled a day after a write that read the project (STREAM_RECORD_LIFE_MS), so the item is checked as well until a day
 * after the deploy's window: a delete of the version before marks nothing, and a record of before it may come that late.
 */
export async function projectLiveParts(ws: string, project: ProjectRef): Promise<[string, TransactItem][]> {
  const gone: [string, TransactItem] = ['project:gone', projectMarkCheck(project.id, 0)];
  const spreadAt = await serviceSpreadAt(keys.tombstonesLayout(), tombstonesLayoutItem, true);
  if (Date.now() >= spreadAt + STREAM_RECORD_LIFE_MS) return [gone];
  return [gone, ['project', projectItemCheck(ws, project)]];
}

/**
 * Removes a kept item of another project of the slug (one left by a version that did not know it): `stats` failed. It
 * deletes the item it read, and only while the project is still this one, so it never takes a newer project's.
 */
async function clearStaleStats(ws: string, project: ProjectRef): Promise<void> {
  const kept = await readKeptStats(ws, project.slug);
  if (!kept || kept.projectId === project.id) return;
  await transact([
    [
      'stats',
      tx.delete(keys.projectStats(ws, project.slug), {
        condition: kept.projectId === undefined ? 'attribute_not_exists(project_id)' : 'project_id = :stale',
        ...(kept.projectId === undefined ? {} : { values: { ':stale': kept.projectId } }),
      }),
    ],
    ...(await projectLiveParts(ws, project)),
  ]).catch((error: unknown) => {
    // Changed meanwhile, or the project gone: the round that follows reads again.
    if (!(error instanceof TransactionCancelled)) throw error;
  });
}

/**
 * Applies a project's stream records (`records`, each with its event id) in optimistic rounds of at most
 * RECEIPTS_PER_TRANSACTION: each round writes what `partsOf` gives for the records still pending (read afresh each
 * round) with their receipts, so a record applied before (a redelivered or bisected batch) is dropped and the rest go
 * on. Returns how many records it applied; 'project gone' when the project was deleted (its counters went with it).
 * Parts `project` (the project still this one) and `stats` (its kept stats: one of another project of the slug is
 * cleared, then the round runs again) are understood.
 */
export async function applyOnce<R extends { eventId: string }>(
  ws: string,
  project: ProjectRef,
  records: R[],
  partsOf: (pending: R[]) => Promise<[string, TransactItem][]>,
): Promise<number | 'project gone'> {
  let applied = 0;
  for (const part of chunk(records, RECEIPTS_PER_TRANSACTION)) {
    let pending = part;
    const outcome = await withRetries(RETRY.counters, 'Counter updates keep conflicting; the stream will deliver them again.', async () => {
      if (pending.length === 0) return 0;
      const receipts = pending.map((d): [string, TransactItem] => [`receipt:${d.eventId}`, receiptPart(ws, project.id, d.eventId)]);
      try {
        await transact([...receipts, ...(await partsOf(pending))]);
        return pending.length;
      } catch (error) {
        if (!(error instanceof TransactionCancelled)) throw error;
        if (error.conditionFailed('project')) return 'project gone' as const;
        if (error.conditionFailed('stats')) await clearStaleStats(ws, project);
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

/** Adds the stream records' deltas of one project to its kept stats, summed per round, each record once (applyOnce). */
export function applyStatsDeltas(ws: string, project: ProjectRef, records: RecordDelta[]): Promise<number | 'project gone'> {
  return applyOnce(ws, project, records, async (pending) => {
    const sum: StatsDelta = {};
    for (const { delta } of pending) for (const n of STAT_NAMES) sum[n] = (sum[n] ?? 0) + (delta[n] ?? 0);
    return [['stats', statsPart(ws, project, sum)], ...(await projectLiveParts(ws, project))];
  });
}
