import { count, type CountName } from '#observability/counts';
import { StoreUnavailable } from './errors';

/**
 * The one retry policy of the store: bounded attempts with exponential backoff and full jitter
 * between them. The SDK retries single calls itself (throttling, 5xx); this covers what it cannot:
 * batch items DynamoDB leaves unprocessed, optimistic rounds lost to a concurrent writer, and
 * claims (a slug) taken between a read and a conditional write.
 */
export interface RetryPolicy {
  attempts: number;
  baseMs: number;
  capMs: number;
  /** What a client is told to wait (Retry-After) when the attempts run out. */
  retryAfterSeconds: number;
  /** The metric each retry adds to, if any. */
  counted?: CountName;
}

export const RETRY = {
  /** Unprocessed batch items: the table is throttling; give it time. */
  unprocessed: { attempts: 8, baseMs: 25, capMs: 1_000, retryAfterSeconds: 2 },
  /** Optimistic read-then-write rounds on items other writers change too. */
  conflicts: { attempts: 12, baseMs: 10, capMs: 200, retryAfterSeconds: 1, counted: 'ConflictRetries' },
  /** The stream processor's counter rounds: off the request path, so they may wait longer. */
  counters: { attempts: 20, baseMs: 10, capMs: 500, retryAfterSeconds: 1, counted: 'ConflictRetries' },
  /** Conditional claims of a free name (slug) among concurrent creates. */
  claims: { attempts: 10, baseMs: 5, capMs: 100, retryAfterSeconds: 1, counted: 'ConflictRetries' },
} as const satisfies Record<string, RetryPolicy>;

/** Returned by an attempt that should run again. */
export const AGAIN: unique symbol = Symbol('again');

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Runs `attempt` (with its 0-based number) until it returns something other than AGAIN, sleeping
 * a jittered, growing delay before each retry; StoreUnavailable when the attempts run out.
 */
export async function withRetries<T>(
  policy: RetryPolicy,
  exhausted: string,
  attempt: (n: number) => Promise<T | typeof AGAIN>,
): Promise<T> {
  for (let n = 0; n < policy.attempts; n++) {
    if (n > 0) {
      if (policy.counted) count(policy.counted);
      await sleep(Math.random() * Math.min(policy.capMs, policy.baseMs * 2 ** n));
    }
    const result = await attempt(n);
    if (result !== AGAIN) return result;
  }
  throw new StoreUnavailable(exhausted, policy.retryAfterSeconds);
}
