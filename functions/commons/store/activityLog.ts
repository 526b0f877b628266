import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { ActivityEntry } from '#domain/entities';
import { copiesOf, layoutAt, markOf, markPlaces, type NewEntry, serviceLayoutItem } from './activityLayout';
import { getItems } from './batches';
import { db } from './client';
import { TransactionCancelled } from './errors';
import { ItemType, keys } from './keys';
import { AGAIN, RETRY, withRetries } from './retry';
import { serviceShardedSince } from './serviceLayouts';
import { TABLE, tableName } from './table';
import { type TransactItem, transact, tx } from './transactions';

/**
 * Writing the history in the order entries become readable. Each workspace has a position (its
 * SEQUENCE item: the last entry's sequence number and the time it was recorded); entries are written
 * in one transaction with the position's move, conditioned on the position read, so a sequence number
 * is given once, in commit order, and never without its entries. A reader that reads the position first
 * and no further (activity.ts, readHorizon) finds every entry below it already written: no entry
 * appears later behind one a reader has already passed. The recorded time only grows too (the later
 * of the clock and the last entry's), so the sort key (time, then sequence) follows the sequence.
 *
 * A stream record delivered again finds its entry's mark (EVENT#<event id>, written in the same
 * transaction) and writes nothing: one entry per event, whatever the retries.
 */

/** Items in one transaction: DynamoDB takes 100; one is the position, and one may be the layout. */
const MAX_ITEMS = 98;
/** Bytes of entries in one transaction: DynamoDB takes 4 MB in all. */
const MAX_BYTES = 3_000_000;

interface Position {
  sequence: number;
  at: string;
}

/** Records the entries, in the order given (a batch's stream order), each event once. Answers how many entries it wrote. */
export async function appendActivity(entries: NewEntry[], retentionMs: number): Promise<number> {
  const byWorkspace = new Map<string, NewEntry[]>();
  for (const e of entries) byWorkspace.set(e.company_slug, [...(byWorkspace.get(e.company_slug) ?? []), e]);
  let written = 0;
  for (const [ws, list] of byWorkspace) {
    for (let rest = list; rest.length > 0; ) {
      const part = transactionOf(rest);
      written += await appendPart(ws, part, retentionMs);
      rest = rest.slice(part.length);
    }
  }
  return written;
}

/** A project's create points its slug at its id (the newest pointer is the slug's project: reads by slug follow it). */
const PROJECT_CREATES: ReadonlySet<string> = new Set(['Project Created', 'Project Duplicated']);
const pointsSlug = (e: NewEntry) => PROJECT_CREATES.has(e.type) && e.project_id !== null && e.project_slug !== null;

/** As many entries from the start of `list` as one transaction holds (at least one). */
function transactionOf(list: NewEntry[]): NewEntry[] {
  let items = 0;
  let bytes = 0;
  for (const [i, e] of list.entries()) {
    const copies = copiesOf(e.company_slug, e, 0, '').length + (pointsSlug(e) ? 1 : 0);
    // Its mark, and the check of where its mark was made before, when that is another key (activityLayout.ts).
    items += copies + 1 + (keys.earlierActivityMark(e.company_slug, e.event_id) ? 1 : 0);
    bytes += copies * Buffer.byteLength(JSON.stringify(e));
    if (i > 0 && (items > MAX_ITEMS || bytes > MAX_BYTES)) return list.slice(0, i);
  }
  return list;
}

/** Writes one transaction's entries after the workspace's position, again on fresh reads while others move it first. */
async function appendPart(ws: string, part: NewEntry[], retentionMs: number): Promise<number> {
  let pending = part;
  return withRetries(RETRY.counters, 'The history stayed busy; the batch is retried.', async () => {
    if (pending.length === 0) return 0;
    const { position, shardedSince } = await readState(ws);
    const at = laterOf(new Date().toISOString(), position?.at);
    const since = shardedSince ?? (await serviceShardedSince(keys.serviceActivityLayout(), serviceLayoutItem, at))!;
    const layout = layoutAt(at, since, shardedSince === undefined);
    const first = (position?.sequence ?? 0) + 1;
    const expiresAt = Date.parse(at) + retentionMs;
    const ttl = Math.ceil(expiresAt / 1000);
    const parts: [string, TransactItem][] = [
      [
        'position',
        tx.put(
          {
            ...keys.activitySequence(ws),
            type: ItemType.activitySequence,
            workspace: ws,
            sequence: first + pending.length - 1,
            at,
          },
          position === undefined
            ? { condition: 'attribute_not_exists(PK)' }
            : { condition: '#s = :s', names: { '#s': 'sequence' }, values: { ':s': position.sequence } },
        ),
      ],
    ];
    if (layout.made) {
      const item = { ...keys.activityLayout(ws), type: ItemType.activityLayout, workspace: ws, sharded_since: layout.shardedSince };
      parts.push(['layout', tx.put(item, { condition: 'attribute_not_exists(PK)' })]);
    }
    pending.forEach((e, i) => {
      const entry: ActivityEntry = { ...e, sequence: first + i, recorded_at: at };
      const sortKey = keys.activitySortKey(at, first + i);
      const body = { type: ItemType.activity, workspace: ws, entry, expires_at: expiresAt, [TABLE.timeToLive]: ttl };
      const { mark: markKey, earlier } = markOf(ws, e, layout);
      const mark = {
        ...markKey,
        type: ItemType.activityMark,
        workspace: ws,
        sort_key: sortKey,
        [TABLE.timeToLive]: ttl,
      };
      parts.push([`mark:${i}`, tx.put(mark, { condition: 'attribute_not_exists(PK)' })]);
      if (earlier) parts.push([`mark:${i}:earlier`, tx.check(earlier, { condition: 'attribute_not_exists(PK)' })]);
      for (const [n, key] of copiesOf(ws, e, first + i, sortKey, layout.spread).entries())
        parts.push([`copy:${i}:${n}`, tx.put({ ...key, ...body })]);
      if (pointsSlug(e)) {
        const pointer = {
          ...keys.projectSlugPointer(ws, e.project_slug!, sortKey),
          type: ItemType.activitySlug,
          workspace: ws,
          project_id: e.project_id,
          [TABLE.timeToLive]: ttl,
        };
        parts.push([`slug:${i}`, tx.put(pointer)]);
      }
    });
    try {
      await transact(parts);
      return pending.length;
    } catch (error) {
      if (!(error instanceof TransactionCancelled)) throw error;
      // An entry recorded meanwhile (the same record in another delivery): leave it out and go on with the rest.
      if (error.conditionFailed('mark')) pending = await unrecorded(ws, pending);
      else if (!error.conditionFailed('position') && !error.conditionFailed('layout') && !error.conflicted) throw error;
      return AGAIN;
    }
  });
}

/** The entries whose event has no mark yet, in any place a layout makes it. */
async function unrecorded(ws: string, entries: NewEntry[]): Promise<NewEntry[]> {
  const marks = await getItems(entries.flatMap((e) => markPlaces(ws, e.event_id)));
  // A mark's sort key names its event, whichever shard it is in.
  const recorded = new Set(marks.map((m) => m[TABLE.sortKey]));
  return entries.filter((e) => !recorded.has(keys.activityMark(ws, e.event_id).SK));
}

/**
 * Workspaces whose history is spread, and since when, by table: a LAYOUT item is never moved once made, and a spread
 * layout stays spread, so a function reads it once and then the position alone (a read unit a batch, not two, on the
 * position's partition, which every batch of the workspace reads). At most MAX_KNOWN_LAYOUTS, the oldest let go first.
 */
const spreadLayouts = new Map<string, string>();
const MAX_KNOWN_LAYOUTS = 10_000;

/** The workspace's position and since when this version writes its history (its LAYOUT), in one strong read of both items. */
async function readState(ws: string): Promise<{ position?: Position; shardedSince?: string }> {
  const known = `${tableName()}|${ws}`;
  const spreadSince = spreadLayouts.get(known);
  if (spreadSince !== undefined) {
    const position = await readPosition(ws);
    return { ...(position ? { position } : {}), shardedSince: spreadSince };
  }
  const items = await getItems([keys.activitySequence(ws), keys.activityLayout(ws)]);
  const item = (sk: string) => items.find((i) => i[TABLE.sortKey] === sk);
  const position = positionOf(item(keys.activitySequence(ws).SK));
  const shardedSince = item(keys.activityLayout(ws).SK)?.sharded_since as string | undefined;
  if (shardedSince !== undefined && layoutAt(new Date().toISOString(), shardedSince, false).spread) {
    if (spreadLayouts.size >= MAX_KNOWN_LAYOUTS) spreadLayouts.delete(spreadLayouts.keys().next().value!);
    spreadLayouts.set(known, shardedSince);
  }
  return { ...(position ? { position } : {}), ...(shardedSince !== undefined ? { shardedSince } : {}) };
}

/** The workspace's position, read strongly (undefined before its first entry). */
export async function readPosition(ws: string): Promise<Position | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: tableName(), Key: keys.activitySequence(ws), ConsistentRead: true }));
  return positionOf(Item);
}

const positionOf = (item: Record<string, unknown> | undefined): Position | undefined =>
  item === undefined ? undefined : { sequence: item.sequence as number, at: item.at as string };

const laterOf = (a: string, b: string | undefined) => (b !== undefined && b > a ? b : a);
