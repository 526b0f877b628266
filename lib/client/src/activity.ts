import type { ActivityEntry, Operations } from './generated.js';
import type { Answer } from './http.js';

export type FollowParams = Pick<Operations['listActivities']['params'], 'from_context' | 'project_slug' | 'company_slug' | 'since'>;
export interface FollowOptions {
  signal?: AbortSignal;
  /** How long to wait between polls once caught up (default 2 s). */
  pollMs?: number;
  /** How far before the newest entry each poll reads again, for entries written late (default 60 s). */
  marginMs?: number;
  /** Entries per read (default 100, the most a page holds). */
  limit?: number;
}

type Page = { data: ActivityEntry[]; meta: { next_cursor: string | null } };
type Read = (query: Record<string, unknown>, ifNoneMatch: string | undefined, signal: AbortSignal | undefined) => Promise<Answer>;

/** Waits `ms`, or until `signal` aborts (at once if it has). */
const wait = (ms: number, signal: AbortSignal | undefined) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });

/**
 * The history, oldest first from `since` (or its beginning), then each new entry as it is written: it
 * reads to the end, then polls, each read starting `marginMs` before the newest entry it has seen
 * (entries are ordered by the time of their change but may be written late) and skipping the entries
 * it has yielded: each entry once; one read every `pollMs` once caught up. While the window fits on one page, a poll sends that page's ETag as
 * `If-None-Match` (a 304 costs no page); the ETag covers one page's entries, so a window of several
 * pages is read whole. Ends, without an error, when `signal` aborts.
 */
export async function* followActivities(read: Read, params: FollowParams, options: FollowOptions): AsyncGenerator<ActivityEntry> {
  // A page with fewer entries than `limit` holds every entry of its window.
  const { signal, pollMs = 2000, marginMs = 60_000, limit = 100 } = options;
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw new TypeError(`limit must be a whole number from 1 to 100, not ${limit}`);
  const seen = new Map<string, number>();
  let since = params.since;
  /** The ETag of the last read's window, when one page held all of it (and the window it was for). */
  let etag: { since: string | undefined; tag: string } | undefined;
  /** A read, or undefined once the caller has aborted (during the read or before it). */
  const readOrEnd = async (query: Record<string, unknown>, ifNoneMatch?: string) => {
    if (signal?.aborted) return undefined;
    try {
      return await read({ ...query, limit }, ifNoneMatch, signal);
    } catch (error) {
      if (signal?.aborted) return undefined;
      throw error;
    }
  };
  for (;;) {
    const base = { ...params, order: 'asc', ...(since ? { since } : {}) };
    const first = await readOrEnd(base, etag && etag.since === since ? etag.tag : undefined);
    if (!first) return;
    if (first.status !== 304) {
      etag = undefined;
      let newest = since ? Date.parse(since) + marginMs : 0;
      for (let page: Page | undefined = first.body as Page; page; ) {
        if (page === first.body && first.etag && !page.meta.next_cursor && page.data.length < limit) etag = { since, tag: first.etag };
        for (const entry of page.data) {
          if (signal?.aborted) return;
          const at = Date.parse(entry.occurred_at);
          newest = Math.max(newest, at);
          if (seen.has(entry.id)) continue;
          seen.set(entry.id, at);
          yield entry;
        }
        if (!page.meta.next_cursor) break;
        const next = await readOrEnd({ ...base, cursor: page.meta.next_cursor });
        if (!next) return;
        page = next.body as Page;
      }
      if (newest > 0) {
        const from = newest - marginMs;
        since = new Date(from).toISOString();
        for (const [id, at] of seen) if (at < from) seen.delete(id);
      }
    }
    // Caught up (each read follows its cursors to the end): the next read after pollMs, however much this one found.
    await wait(pollMs, signal);
  }
}
