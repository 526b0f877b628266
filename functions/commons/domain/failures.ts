import { isTransient, StoreUnavailable } from '#store/errors';
import { Busy, DomainError } from './errors';

/**
 * Any failure in the domain's words: its own errors as they are, a busy or briefly unavailable
 * database (however the store or the SDK said it) as Busy, anything else unchanged (unexpected).
 * A Busy keeps what the database said as its cause, for the 503's log line (which table or index
 * throttled, and why); the client's answer says none of it.
 */
export function inDomainTerms(error: unknown): unknown {
  if (error instanceof DomainError) return error;
  if (isTransient(error))
    return error instanceof StoreUnavailable
      ? new Busy(error.message, error.retryAfterSeconds, { cause: error })
      : new Busy(undefined, undefined, { cause: error });
  return error;
}
