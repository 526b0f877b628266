/**
 * What the store itself reports, beside the AWS SDK's own errors: the database stayed busy through
 * every retry this store allows (throttled batch items, optimistic rounds lost to other writers).
 * The domain maps it to the service's 503; nothing here knows about HTTP.
 */
export class StoreUnavailable extends Error {
  override readonly name = 'StoreUnavailable';
  constructor(
    message: string,
    readonly retryAfterSeconds = 1,
  ) {
    super(message);
  }
}

/** An item read from the table that does not have the shape its type promises (a bug or a hand edit). */
export class CorruptItem extends Error {
  override readonly name = 'CorruptItem';
}

export function isConditionFailure(error: unknown): boolean {
  return error instanceof Error && error.name === 'ConditionalCheckFailedException';
}

/** Whether a conditional write went through: false when its condition failed; any other error is thrown. */
export async function conditionally(write: Promise<unknown>): Promise<boolean> {
  try {
    await write;
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** Undefined instead of a failed condition (any other error is thrown). */
export async function unlessConditionFails<T>(write: () => Promise<T>): Promise<T | undefined> {
  try {
    return await write();
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}

/**
 * A cancelled transaction, its reasons read by the names its parts were given, never by position.
 * `conflicted` is true when another writer held one of the items (the round can run again).
 */
export class TransactionCancelled extends Error {
  override readonly name = 'TransactionCancelled';
  constructor(private readonly reasons: ReadonlyMap<string, string>) {
    super(
      `Transaction cancelled: ${[...reasons]
        .filter(([, code]) => code !== 'None')
        .map(([part, code]) => `${part} ${code}`)
        .join(', ')}`,
    );
  }
  /** Whether the condition of the named part (or of any part whose name starts with `name:`) failed. */
  conditionFailed(name: string): boolean {
    for (const [part, code] of this.reasons)
      if ((part === name || part.startsWith(`${name}:`)) && code === 'ConditionalCheckFailed') return true;
    return false;
  }
  get anyConditionFailed(): boolean {
    return [...this.reasons.values()].includes('ConditionalCheckFailed');
  }
  get conflicted(): boolean {
    return [...this.reasons.values()].some((code) => code === 'TransactionConflict');
  }
  get throttled(): boolean {
    return [...this.reasons.values()].some((code) => code === 'ThrottlingError' || code === 'ProvisionedThroughputExceeded');
  }
}

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

/**
 * Whether a failure of the database means "busy or briefly away: the same call later may work" (the
 * store's own StoreUnavailable, a transaction lost to a concurrent writer or throttled, the SDK's
 * throttling and 5xx errors after its retries, a dropped connection).
 */
export function isTransient(error: unknown): boolean {
  if (error instanceof StoreUnavailable) return true;
  if (error instanceof TransactionCancelled) return error.conflicted || error.throttled;
  if (!(error instanceof Error)) return false;
  if (RETRYABLE_AWS_ERRORS.has(error.name)) return true;
  const meta = (error as { $metadata?: { httpStatusCode?: number } }).$metadata;
  if (meta?.httpStatusCode !== undefined && meta.httpStatusCode >= 500) return true;
  return ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE'].includes((error as { code?: string }).code ?? '');
}
