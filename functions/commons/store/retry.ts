import { count, type CountName } from '#observability/counts';
import { isTransient, StoreUnavailable } from './errors';

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
  /** The record of a webhook attempt already sent, in the deliverer: a few seconds of waiting out a throttle, inside its 30 s with the send's 10. */
  records: { attempts: 5, baseMs: 100, capMs: 2_000, retryAfterSeconds: 1, counted: 'WebhookRecordRetries' },
  /** The same on a request (a ping, a redelivery), inside its 20 s with the send's 10 and short of API Gateway's 29. */
  recordsOnRequest: { attempts: 3, baseMs: 100, capMs: 500, retryAfterSeconds: 1, counted: 'WebhookRecordRetries' },
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
    if (n > 0) await backOff(policy, n);
    const result = await attempt(n);
    if (result !== AGAIN) return result;
  }
  throw new StoreUnavailable(exhausted, policy.retryAfterSeconds);
}

/** The wait before retry `n` (full jitter under a growing cap), counted when the policy says so. */
function backOff(policy: RetryPolicy, n: number): Promise<void> {
  if (policy.counted) count(policy.counted);
  return sleep(Math.random() * Math.min(policy.capMs, policy.baseMs * 2 ** n));
}

/**
 * Runs `write` until it resolves, again after a transient failure (the SDK's own retries spent: a
 * throttle or an outage of seconds; errors.ts, isTransient), with the policy's backoff; any other
 * error, or the last one when the attempts run out, goes up. For a write that must follow what cannot
 * be taken back (a webhook attempt already sent): it must be safe to run twice.
 */
export async function untilWritten<T>(policy: RetryPolicy, write: () => Promise<T>): Promise<T> {
  for (let n = 0; ; n++) {
    if (n > 0) await backOff(policy, n);
    try {
      return await write();
    } catch (error) {
      if (n + 1 >= policy.attempts || !isTransient(error)) throw error;
    }
  }
}
