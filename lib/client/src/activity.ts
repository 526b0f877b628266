import type { ActivityEntry, Operations } from './generated.js';
import type { Answer } from './http.js';

export type FollowParams = Pick<Operations['listActivities']['params'], 'from_context' | 'project_slug' | 'company_slug' | 'since'>;
export interface FollowOptions {
  signal?: AbortSignal;
  /** How long to wait between polls once caught up (default 2 s). */
  pollMs?: number;
  /** How far before the newest entry each poll reads again, for entries written late (default 60 s). */
  marginMs?: number;
}

type Page = { data: ActivityEntry[]; meta: { next_cursor: string | null } };
type Read = (query: Record<string, unknown>, ifNoneMatch: string | undefined, signal: AbortSignal | undefined) => Promise<Answer>;

const wait = (ms: number, signal: AbortSignal | undefined) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });

/**
 * The history, oldest first from `since` (or its beginning), then each new entry as it is written: it
 * reads to the end, then polls with `If-None-Match` (a 304 costs no page), each read starting `marginMs`
 * before the newest entry it has seen (entries are ordered by the time of their change but may be
 * written late) and skipping the entries it has yielded: each entry once. Ends when `signal` aborts.
 */
export async function* followActivities(read: Read, params: FollowParams, options: FollowOptions): AsyncGenerator<ActivityEntry> {
  const { signal, pollMs = 2000, marginMs = 60_000 } = options;
  const seen = new Map<string, number>();
  let since = params.since;
  let etag: { since: string | undefined; tag: string } | undefined;
  while (!signal?.aborted) {
    const base = { ...params, order: 'asc', ...(since ? { since } : {}) };
    const first = await read(base, etag && etag.since === since ? etag.tag : undefined, signal);
    let fresh = 0;
    if (first.status !== 304) {
      if (first.etag) etag = { since, tag: first.etag };
      let newest = since ? Date.parse(since) + marginMs : 0;
      for (let page = first.body as Page; ; ) {
        for (const entry of page.data) {
          const at = Date.parse(entry.occurred_at);
          newest = Math.max(newest, at);
          if (seen.has(entry.id)) continue;
          seen.set(entry.id, at);
          fresh++;
          yield entry;
        }
        if (!page.meta.next_cursor || signal?.aborted) break;
        page = (await read({ ...base, cursor: page.meta.next_cursor }, undefined, signal)).body as Page;
      }
      if (newest > 0) {
        const from = newest - marginMs;
        since = new Date(from).toISOString();
        for (const [id, at] of seen) if (at < from) seen.delete(id);
      }
    }
    if (fresh === 0) await wait(pollMs, signal);
  }
}
