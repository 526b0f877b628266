import { holdsAny, readHistory } from '#store/activity';
import { readProject } from '#store/projects';
import { ACTIVITY_SHARDS, keys } from '#store/keys';
import { type ActivityEntry, type ActivityQuery, retentionMs } from './activity';
import { decodeCursor, encodeCursor, type CursorScope } from './cursors';
import { projectNotFound, ValidationFailed } from './errors';
import type { Page, PageRequest } from './paging';

/**
 * Reading the history: the workspace's (every shard, merged) or one project's, newest or oldest
 * first, between two times, of some types, by one actor, of one task. A cursor carries the sort key
 * to go on after, bound to the workspace and the whole query.
 */
export async function listActivity(ws: string, q: ActivityQuery, req: PageRequest): Promise<Page<ActivityEntry>> {
  const partitions =
    q.context === 'project'
      ? [keys.projectActivityPartition(ws, q.projectSlug!)]
      : Array.from({ length: ACTIVITY_SHARDS }, (_, n) => keys.activityShard(ws, n));
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
    partition: { name: 'in', value: partitions[0]! },
  };
  const after = decodeCursor(scope, req.cursor)?.after;
  const skip = req.page !== undefined ? (req.page - 1) * req.limit : 0;
  const now = Date.now();
  // Entries older than the retention are expired (whatever a read finds): the range starts no earlier.
  const oldest = new Date(now - retentionMs()).toISOString();
  const lo = keys.activityTimeKey(q.since !== undefined && q.since > oldest ? q.since : oldest);
  // An entry's key is its time and then `#<event id>`: every key of the `until` instant sorts below this.
  const hi = keys.activityTimeKey(q.until === undefined ? '~' : `${q.until}#~`);
  // A cursor made before its place expired: newest first, nothing is left; oldest first, the range starts after it anyway.
  const expired = after !== undefined && after < lo;
  if (lo > hi || (expired && q.order === 'desc')) {
    if (q.context === 'project' && req.cursor === undefined) await projectWithHistory(ws, q.projectSlug!, partitions[0]!);
    return { items: [], nextCursor: null };
  }
  const page = await readHistory(
    {
      partitions,
      lo,
      hi,
      descending: q.order === 'desc',
      now,
      types: q.types,
      actor: q.actor,
      task: q.task,
    },
    // DynamoDB has no offset: page N reads through the N-1 pages before it (MAX_PAGE_DEPTH entries at most).
    skip + req.limit,
    expired ? undefined : after,
  );
  if (q.context === 'project' && page.entries.length === 0 && req.cursor === undefined)
    await projectWithHistory(ws, q.projectSlug!, partitions[0]!);
  const items = withinBytes(page.entries.slice(skip));
  const cut = items.length < page.entries.length - skip;
  // A numbered page cut short would leave its rest to no page: the next one starts a whole page on.
  if (req.page !== undefined && cut)
    throw ValidationFailed.of(
      'page',
      `is over ${HISTORY_PAGE_BYTES} bytes of entries (they carry long texts); follow meta.next_cursor instead, or ask a smaller limit`,
    );
  // A page cut short by its size goes on after its last entry; a whole one where the read stopped.
  const next = cut ? keys.activitySortKey(items.at(-1)!.occurred_at, items.at(-1)!.event_id) : page.next;
  return { items, nextCursor: encodeCursor(scope, next === undefined ? undefined : { in: partitions[0]!, after: next }) };
}

/**
 * The most a page of the history answers, in bytes of its entries as JSON: an entry carries whole `from`
 * and `to` values (a description's change, up to 80 KB), so a page stops early, before the entry that would
 * cross this, and its cursor goes on from there (one entry is always answered).
 */
export const HISTORY_PAGE_BYTES = 1_000_000;

function withinBytes(entries: ActivityEntry[]): ActivityEntry[] {
  let bytes = 0;
  for (const [i, entry] of entries.entries()) {
    bytes += Buffer.byteLength(JSON.stringify(entry)) + 1;
    if (bytes > HISTORY_PAGE_BYTES && i > 0) return entries.slice(0, i);
  }
  return entries;
}

/**
 * A project's history answers while the project is there or its entries are (a deleted project's
 * trail, until it expires); a slug that names neither in this workspace is a 404, as on every project
 * route. Asked only when a first page comes back empty.
 */
async function projectWithHistory(ws: string, slug: string, partition: string): Promise<void> {
  if ((await readProject(ws, slug)) !== undefined || (await holdsAny(partition))) return;
  throw projectNotFound(slug);
}
