import { StoreUnavailable, TransactionCancelled } from '#store/errors';
import { ServiceError, ServiceUnavailable } from './errors';
import type { Problem } from './problems';

/** AWS SDK errors that mean "the database is overloaded or briefly unavailable: retry later". */
const RETRYABLE_AWS_ERRORS = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
  'TransactionConflictException',
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
]);

function isTransient(error: unknown): boolean {
  if (error instanceof StoreUnavailable) return true;
  if (error instanceof TransactionCancelled) return error.conflicted || error.throttled;
  if (!(error instanceof Error)) return false;
  if (RETRYABLE_AWS_ERRORS.has(error.name)) return true;
  const meta = (error as { $metadata?: { httpStatusCode?: number } }).$metadata;
  if (meta?.httpStatusCode !== undefined && meta.httpStatusCode >= 500) return true;
  return ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE'].includes((error as { code?: string }).code ?? '');
}

/**
 * Any thrown value as the Problem to answer: typed service errors as they are, a busy or briefly
 * unavailable database as 503 with Retry-After, anything else as a 500 that says nothing of the
 * cause (no stack, AWS error name or key ever reaches a client).
 */
export function toProblem(error: unknown): Problem {
  if (error instanceof ServiceError) return error.toProblem();
  if (isTransient(error)) {
    const retryAfter = error instanceof StoreUnavailable ? error.retryAfterSeconds : 1;
    return new ServiceUnavailable(error instanceof StoreUnavailable ? error.message : undefined, retryAfter).toProblem();
  }
  return { code: 'internal_error', detail: 'An unexpected error occurred.' };
}
