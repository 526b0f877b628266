import { isTransient, StoreUnavailable } from '#store/errors';
import { Busy, DomainError } from './errors';

/**
 * Any failure in the domain's words: its own errors as they are, a busy or briefly unavailable
 * database (however the store or the SDK said it) as Busy, anything else unchanged (unexpected).
 */
export function inDomainTerms(error: unknown): unknown {
  if (error instanceof DomainError) return error;
  if (isTransient(error)) return error instanceof StoreUnavailable ? new Busy(error.message, error.retryAfterSeconds) : new Busy();
  return error;
}
