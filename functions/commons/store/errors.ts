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
