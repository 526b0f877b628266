import { ApiError, ConnectionError, TimeoutError } from './errors.js';
import type { ActivityEntry, Operations } from './generated.js';
import type { Answer } from './http.js';

export type FollowParams = Pick<
  Operations['listActivities']['params'],
  'from_context' | 'project_slug' | 'company_slug' | 'uuid' | 'type' | 'actor' | 'since'
>;
export interface FollowOptions {
  signal?: AbortSignal | undefined;
  /** How long to wait between polls once caught up (default 2 s). */
  pollMs?: number | undefined;
  /** Entries per read (default 100, the most a page holds). */
  limit?: number | undefined;
  /** A token this follower gave (`follower.token`), stored by the caller: go on after the last entry it had yielded (same params). */
  from?: string | undefined;
  /** The longest wait between reads while the service cannot be reached or fails (default 60 s). */
  maxBackoffMs?: number | undefined;
  /** Told of each failed read it will try again, and how long it waits first (for logs). */
  onRetry?: ((error: Error, waitMs: number) => void) | undefined;
}

/** The entries of a history, as they become readable, and where to go on from after the last one yielded. */
export interface ActivityFollower extends AsyncIterable<ActivityEntry> {
  /**
   * Where to go on from after the last entry yielded (undefined before the first): store it once that entry is
   * handled, and pass it as `from` to a new follower of the same params after a restart.
   */
  readonly token: string | undefined;
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

/** A failure the same read may get past later: no answer, a timeout, 408, 429 or a 5xx (the call's own retries spent). */
const passing = (error: unknown): error is Error =>
  error instanceof ConnectionError ||
  error instanceof TimeoutError ||
  (error instanceof ApiError && (error.status === 408 || error.status === 429 || error.status >= 500));

/** A follower's token: the server's sync token and how many entries of the page read from it were yielded. */
function parseToken(token: string | undefined): { cursor: string | undefined; skip: number } {
  if (token === undefined) return { cursor: undefined, skip: 0 };
  const match = /^([A-Za-z0-9_-]*)\.(\d{1,4})$/.exec(token);
  if (!match) throw new TypeError('from must be a token a follower gave (follower.token), as it was given');
  return { cursor: match[1] || undefined, skip: Number(match[2]) };
}

/**
 * The history oldest first, by the server's sync token (docs/api.md, "Reading history"): from `since` (or
 * its beginning), or from a stored `from`, then each entry as it becomes readable, each once, none missed,
 * whatever the stream's lag. Caught up, it polls every `pollMs` with `If-None-Match` (a 304 while nothing is
 * new). A read that fails for want of the service (no answer, 408, 429, 5xx) is tried again after a growing
 * wait (to `maxBackoffMs`); any other error (a 410: the token outlived the history) ends it by throwing.
 * Ends, without an error, when `signal` aborts, whether it was waiting or reading.
 */
export function followActivities(read: Read, params: FollowParams, options: FollowOptions): ActivityFollower {
  const { signal, pollMs = 2000, limit = 100, maxBackoffMs = 60_000, onRetry } = options;
  const state: { token: string | undefined } = { token: options.from };
  async function* entries(): AsyncGenerator<ActivityEntry> {
    if (!Number.isInteger(limit) || limit < 1 || limit > 100)
      throw new TypeError(`limit must be a whole number from 1 to 100, not ${limit}`);
    let { cursor, skip } = parseToken(options.from);
    /** The tag of the last answer, and the cursor it answered. */
    let tagged: { cursor: string | undefined; etag: string } | undefined;
    for (let failures = 0; ; ) {
      if (signal?.aborted) return;
      let answer: Answer;
      try {
        const query = { ...params, order: 'asc', limit, ...(cursor ? { cursor } : {}) };
        answer = await read(query, tagged && tagged.cursor === cursor ? tagged.etag : undefined, signal);
      } catch (error) {
        if (signal?.aborted) return;
        if (!passing(error)) throw error;
        const ms = Math.min(maxBackoffMs, pollMs * 2 ** failures++) * (0.5 + Math.random() / 2);
        onRetry?.(error, ms);
        await wait(ms, signal);
        continue;
      }
      failures = 0;
      if (answer.status === 304) {
        await wait(pollMs, signal);
        continue;
      }
      const page = answer.body as Page;
      tagged = answer.etag ? { cursor, etag: answer.etag } : undefined;
      for (const [i, entry] of page.data.slice(skip).entries()) {
        if (signal?.aborted) return;
        state.token = `${cursor ?? ''}.${skip + i + 1}`;
        yield entry;
      }
      const next = page.meta.next_cursor;
      const moved = next !== null && next !== cursor;
      if (moved) {
        cursor = next;
        skip = 0;
        state.token = `${cursor}.0`;
      }
      // Caught up (an empty page): wait, then ask again with the token it gave.
      if (!moved || page.data.length === 0) await wait(pollMs, signal);
    }
  }
  return {
    get token() {
      return state.token;
    },
    [Symbol.asyncIterator]: () => entries(),
  };
}
