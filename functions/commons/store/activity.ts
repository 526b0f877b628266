import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { ActivityEntry } from '#domain/entities';
import { db } from './client';
import { keys } from './keys';
import { type MergeBudget, readMerged } from './merged';
import type { Item } from './query';
import { TABLE, tableName } from './table';

/**
 * Reading the history's items (activityKeys.ts; activityLog.ts writes them): a workspace's shards
 * merged, or one project's or one task's partition, in key order. Entries expire (`ttl`); a read
 * never answers one whose time is up, whether or not the database has removed it yet.
 */

/** Which entries a read wants: the partitions, a range of sort keys (inclusive) and what else they must match. */
interface HistoryRange {
  partitions: string[];
  /** Sort keys from `lo` to `hi`, both included (time ranges: keys begin with the entry's time). */
  lo: string;
  hi: string;
  descending: boolean;
  /** Entries expired by then (epoch ms) are left out. */
  now: number;
  types?: readonly string[] | undefined;
  actor?: string | undefined;
  /** Entries of this project (by slug): a task's partition read in one project's context. */
  project?: string | undefined;
  /** Entries that happened in this range (`occurred_at`, inclusive): keys order entries by when they were recorded. */
  since?: string | undefined;
  until?: string | undefined;
}

/** Reads at most this many times per page: a filter that matches little answers a short page (and a cursor) rather than read on. */
const MAX_CALLS = 16;
/**
 * And at most this many read units (as DynamoDB reports them): a filter reads every entry it passes over,
 * so a page of a rare type among large entries would otherwise read up to 16 MB for a few lines. Checked
 * between rounds: a page reads at most this and one more round (a call per shard, about 4 MB in all: FILTERED_ROUND).
 */
export const HISTORY_READ_UNITS = 256;
/**
 * Items a filtered read evaluates per round, shared by the partitions it reads (a call each): 40 each of a
 * workspace's 8 shards, 80 of a task's 4. A round reads about 4 MB at most, as many partitions as it reads
 * (320 entries of a changed description's worth; a call of one partition stops at 1 MB anyway).
 */
const FILTERED_ROUND = 320;

function queryInput(range: HistoryRange): Omit<QueryCommandInput, 'ExclusiveStartKey' | 'Limit'> {
  const names: Record<string, string> = { '#pk': TABLE.partitionKey, '#sk': TABLE.sortKey, '#exp': 'expires_at' };
  const values: Record<string, unknown> = { ':lo': range.lo, ':hi': range.hi, ':now': range.now };
  const filters = ['#exp > :now'];
  if (range.types?.length) {
    Object.assign(names, { '#e': 'entry', '#type': 'type' });
    range.types.forEach((t, i) => (values[`:t${i}`] = t));
    filters.push(`#e.#type IN (${range.types.map((_, i) => `:t${i}`).join(', ')})`);
  }
  // A condition on a member of the entry: its path's names declared, its value bound.
  const entry = (path: string[], op: string, key: string, value: unknown) => {
    names['#e'] = 'entry';
    for (const name of path) names[`#${name}`] = name;
    values[`:${key}`] = value;
    filters.push(`#e.${path.map((name) => `#${name}`).join('.')} ${op} :${key}`);
  };
  if (range.actor !== undefined) entry(['actor', 'username'], '=', 'actor', range.actor);
  if (range.project !== undefined) entry(['project_slug'], '=', 'ps', range.project);
  if (range.since !== undefined) entry(['occurred_at'], '>=', 'since', range.since);
  if (range.until !== undefined) entry(['occurred_at'], '<=', 'until', range.until);
  return {
    TableName: tableName(),
    KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :lo AND :hi',
    FilterExpression: filters.join(' AND '),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
    ScanIndexForward: !range.descending,
  };
}

/** What one page of the history reads at most (merged.ts). */
const BUDGET: MergeBudget = { calls: MAX_CALLS, units: HISTORY_READ_UNITS, filteredRound: FILTERED_ROUND };

/**
 * One page of the history: every partition read in key order and merged (merged.ts), `after` the sort key a cursor
 * carries. `next` is where the following page starts, or undefined when nothing follows; each entry comes with its key.
 */
export async function readHistory(range: HistoryRange, limit: number, after?: string): Promise<{ entries: KeyedEntry[]; next?: string }> {
  const filtering =
    Boolean(range.types?.length) ||
    range.actor !== undefined ||
    range.project !== undefined ||
    range.since !== undefined ||
    range.until !== undefined;
  const merged = { input: queryInput(range), partitions: range.partitions, descending: range.descending, filtering, budget: BUDGET };
  const { items, next } = await readMerged(merged, limit, after);
  return { entries: items.map(entryOf), ...(next === undefined ? {} : { next }) };
}

/** Whether a history partition holds any entry (expired or not). */
export async function holdsAny(partition: string): Promise<boolean> {
  const { Items = [] } = await db.send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': TABLE.partitionKey },
      ExpressionAttributeValues: { ':pk': partition },
      ProjectionExpression: '#pk',
      Limit: 1,
    }),
  );
  return Items.length > 0;
}

/** The id of the newest project that took `slug` in the workspace, as the history's pointers say (undefined: none recorded). */
export async function slugsProject(ws: string, slug: string): Promise<string | undefined> {
  const { Items = [] } = await db.send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': TABLE.partitionKey },
      ExpressionAttributeValues: { ':pk': keys.projectSlugPointers(ws, slug) },
      ScanIndexForward: false,
      Limit: 1,
    }),
  );
  return Items[0]?.project_id as string | undefined;
}

/** An entry and its place (its sort key: where a page after it begins). */
export interface KeyedEntry {
  entry: ActivityEntry;
  key: string;
}

/** An entry as kept, its members in the order docs/api.md shows them (a map keeps no order). */
function entryOf(item: Item): KeyedEntry {
  return { entry: viewOf(item.entry as ActivityEntry), key: item[TABLE.sortKey] as string };
}

function viewOf(e: ActivityEntry): ActivityEntry {
  return {
    id: e.id,
    type: e.type,
    occurred_at: e.occurred_at,
    actor: e.actor,
    company_slug: e.company_slug,
    project_slug: e.project_slug,
    project_id: e.project_id ?? null,
    project: e.project && { slug: e.project.slug, name: e.project.name },
    label: e.label && labelOf(e.label),
    task_uuid: e.task_uuid,
    changes: e.changes,
    event_id: e.event_id,
    request_id: e.request_id,
    idempotency_key: e.idempotency_key,
    // Entries recorded before positions existed have none; they were readable when they happened.
    sequence: e.sequence ?? null,
    recorded_at: e.recorded_at ?? e.occurred_at,
  };
}

function labelOf(l: NonNullable<ActivityEntry['label']>): NonNullable<ActivityEntry['label']> {
  return {
    id: l.id,
    slug: l.slug,
    ...(l.title === undefined ? {} : { title: l.title }),
    ...(l.color === undefined ? {} : { color: l.color }),
  };
}
