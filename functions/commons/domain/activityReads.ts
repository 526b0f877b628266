import { holdsAny, type KeyedEntry, readHistory, slugsProject } from '#store/activity';
import { CLOCK_SKEW_MS, STREAM_RECORD_LIFE_MS } from '#store/deployWindow';
import { readPosition } from '#store/activityLog';
import { readProject } from '#store/projects';
import { keys } from '#store/keys';
import { type ActivityEntry, type ActivityQuery, retentionMs } from './activity';
import { decodeCursor, encodeCursor, type CursorScope } from './cursors';
import { Gone, projectNotFound, ValidationFailed } from './errors';
import type { Page, PageRequest } from './paging';
import { allSettled } from '#store/settled';

/**
 * Reading the history: the workspace's (every shard, merged), one project's or one task's, in the
 * order entries became readable (newest first, or oldest first), between two times, of some types,
 * by one actor. A cursor carries the place to go on after, bound to the workspace and the whole query.
 *
 * Oldest first, the cursor is a sync token: the read goes no further than the workspace's position,
 * read first (activityLog.ts: every entry up to it is written), and `next_cursor` is never null: the
 * place after the last entry answered, or the position itself when everything up to it was read, so
 * calling again with it answers what became readable since, each entry once. A workspace with no
 * position has no entry with a place (only those kept before places existed); a read that finds a
 * position made while it read reads again, to that position.
 */
export async function listActivity(ws: string, q: ActivityQuery, req: PageRequest): Promise<Page<ActivityEntry>> {
  const ascending = q.order === 'asc';
  const partitions = await partitionsOf(ws, q);
  const scope: CursorScope = {
    fingerprint: [
      'activities',
      ws,
      q.context,
      q.projectSlug ?? '',
      q.task ?? '',
      (q.types ?? []).join(','),
      q.actor ?? '',
      q.since ?? '',
      q.until ?? '',
      q.order,
    ],
    keyNames: ['in', 'after'],
    // A token given where nothing was left to read: from when it is valid (entries after it are recorded after this).
    optionalNames: ['valid_from'],
    partition: { name: 'in', value: partitions[0]! },
  };
  const token = (after: string | undefined, validFrom?: string) =>
    encodeCursor(scope, after === undefined ? undefined : { in: partitions[0]!, after, ...(validFrom ? { valid_from: validFrom } : {}) });
  const cursor = decodeCursor(scope, req.cursor);
  const now = Date.now();
  // Entries older than the retention are expired (whatever a read finds): the range starts no earlier.
  const oldest = new Date(now - retentionMs()).toISOString();
  if (ascending && cursor !== undefined && (cursor.valid_from ?? keys.activityKeyTime(cursor.after!)) < oldest)
    throw new Gone(
      `This sync token is older than the history keeps (${keptFor(retentionMs())}): entries after it may have expired. Start again with since, from the last occurred_at you handled.`,
    );
  const range = keyRange(q, oldest);
  // Oldest first, no further than the position: every entry up to it is readable now.
  const position = ascending ? await readPosition(ws) : undefined;
  const horizon = position && keys.activitySortKey(position.at, position.sequence);
  const hi = horizon !== undefined && horizon < range.hi ? horizon : range.hi;
  // Entries after the position are recorded after it and after this read: from today on, the token is valid (the same all day, so a 304).
  const unit = Math.min(DAY_MS, Math.floor(retentionMs() / 10));
  const today = new Date(now - (now % unit)).toISOString();
  const validFrom = position && position.at > today ? position.at : today;
  // Where everything up to the read's end has been read: oldest first, the token to call again with.
  const caughtUp = () =>
    ascending ? (hi === horizon ? token(horizon, validFrom) : hi === range.hi && q.until !== undefined ? token(hi) : null) : null;
  const after = cursor?.after;
  // A place before the range: newest first, it expired and nothing is left; oldest first, the range starts after it anyway.
  const start = after !== undefined && after >= range.lo ? after : undefined;
  if (ascending && start !== undefined && start >= hi) {
    // Nothing recorded since the token: the same token again (the same answer, so a 304), made anew each day (a tenth of the retention, if shorter) so it never ages out.
    const stale = (cursor!.valid_from ?? keys.activityKeyTime(start)) < today;
    return { items: [], nextCursor: stale && hi === horizon ? token(start, validFrom) : req.cursor! };
  }
  if (range.lo > hi || (after !== undefined && after < range.lo && !ascending)) {
    if (q.context === 'project' && req.cursor === undefined) await projectWithHistory(ws, q, partitions);
    return { items: [], nextCursor: ascending ? (caughtUp() ?? req.cursor ?? token(START, today)) : null };
  }
  const skip = req.page !== undefined ? (req.page - 1) * req.limit : 0;
  const page = await readHistory(
    {
      partitions,
      lo: range.lo,
      hi,
      descending: !ascending,
      now,
      types: q.types,
      actor: q.actor,
      // A task's own partition holds its entries alone; one project's context keeps to that project's.
      project: q.task !== undefined && q.context === 'project' ? q.projectSlug : undefined,
      since: q.since,
      until: q.until,
    },
    // DynamoDB has no offset: page N reads through the N-1 pages before it (MAX_PAGE_DEPTH entries at most).
    skip + req.limit,
    start,
  );
  // No position, so no bound: an entry placed meanwhile may have been read past one still being written. Again, to the position.
  if (ascending && position === undefined && (await readPosition(ws)) !== undefined) return listActivity(ws, q, req);
  if (q.context === 'project' && page.entries.length === 0 && req.cursor === undefined) await projectWithHistory(ws, q, partitions);
  const kept = withinBytes(page.entries.slice(skip));
  const cut = kept.length < page.entries.length - skip;
  // A numbered page cut short would leave its rest to no page: the next one starts a whole page on.
  if (req.page !== undefined && cut)
    throw ValidationFailed.of(
      'page',
      `is over ${HISTORY_PAGE_BYTES} bytes of entries (they carry long texts); follow meta.next_cursor instead, or ask a smaller limit`,
    );
  const items = kept.map((k) => k.entry);
  // A page cut short by its size goes on after its last entry; a whole one where the read stopped.
  if (cut) return { items, nextCursor: token(kept.at(-1)!.key) };
  if (page.next !== undefined) return { items, nextCursor: token(page.next) };
  // Everything to the read's end was read: oldest first, the token is where it ended (or, without a position, the last entry read).
  return {
    items,
    nextCursor: caughtUp() ?? (ascending ? (token(kept.at(-1)?.key) ?? req.cursor ?? token(START, today)) : null),
  };
}

const DAY_MS = 86_400_000;

const keptFor = (ms: number) => (ms >= DAY_MS ? `${Math.round(ms / DAY_MS)} days` : `${Math.round(ms / 1000)} seconds`);

/** A place before every entry: the token of a workspace that has recorded none yet. */
const START = keys.activityTimeKey('0');

/** How long after it happened an entry may be recorded. A read to `until` goes this much further in key order. */
const RECORD_LAG_MS = STREAM_RECORD_LIFE_MS + CLOCK_SKEW_MS;

/** The range of keys (places: recorded time, then sequence) that can hold the query's entries. */
function keyRange(q: ActivityQuery, oldest: string): { lo: string; hi: string } {
  const shift = (at: string, ms: number) => new Date(Date.parse(at) + ms).toISOString();
  const from = q.since === undefined ? oldest : shift(q.since, -CLOCK_SKEW_MS);
  return {
    lo: keys.activityTimeKey(from > oldest ? from : oldest),
    // A key of an instant is `AT#<time>#...`: every key of the last instant sorts below this.
    hi: keys.activityTimeKey(q.until === undefined ? '~' : `${shift(q.until, RECORD_LAG_MS)}#~`),
  };
}

/**
 * The most a page of the history answers, in bytes of its entries as JSON: a page stops early, before
 * the entry that would cross this, and its cursor goes on from there (one entry is always answered).
 */
export const HISTORY_PAGE_BYTES = 1_000_000;

function withinBytes(entries: KeyedEntry[]): KeyedEntry[] {
  let bytes = 0;
  for (const [i, { entry }] of entries.entries()) {
    bytes += Buffer.byteLength(JSON.stringify(entry)) + 1;
    if (bytes > HISTORY_PAGE_BYTES && i > 0) return entries.slice(0, i);
  }
  return entries;
}

/**
 * The partitions a query reads: a task's; a project's, by its id (given, or that of the newest project
 * that took the slug: a slug taken again after a delete answers the new project's history alone); or the
 * workspace's shards. A project made before creates were pointed to has its entries of then under its
 * slug, read beside those under its id.
 */
async function partitionsOf(ws: string, q: ActivityQuery): Promise<string[]> {
  if (q.task !== undefined) return keys.taskActivityPartitions(ws, q.task);
  if (q.context !== 'project') return keys.activityShards(ws);
  if (q.projectId !== undefined) return keys.projectActivityPartitions(ws, q.projectId);
  const pointed = await slugsProject(ws, q.projectSlug!);
  if (pointed !== undefined) return keys.projectActivityPartitions(ws, pointed);
  const live = await readProject(ws, q.projectSlug!);
  const legacy = keys.legacyProjectActivityPartition(ws, q.projectSlug!);
  return live ? [...keys.projectActivityPartitions(ws, live.id), legacy] : [legacy];
}

/**
 * A project's history answers while the project is there or its entries are (a deleted project's
 * trail, until it expires); a slug (or id) that names neither in this workspace is a 404, as on every
 * project route. Asked only when a first page comes back empty.
 */
async function projectWithHistory(ws: string, q: ActivityQuery, partitions: string[]): Promise<void> {
  if (q.projectId === undefined && (await readProject(ws, q.projectSlug!)) !== undefined) return;
  if ((await allSettled(partitions.map(holdsAny))).some(Boolean)) return;
  throw projectNotFound(q.projectId === undefined ? q.projectSlug! : `${q.projectSlug} (id ${q.projectId})`);
}
