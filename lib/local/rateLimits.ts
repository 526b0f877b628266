import type { RateLimit } from '#domain/tokens';

/**
 * The local stand-in for API Gateway usage-plan throttling: a token bucket per API key (the
 * authorizer's usageIdentifierKey), holding up to `burst` requests and refilled at `rate` per second.
 * A request that finds the bucket empty is refused with the seconds until a request would be let in.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** 0 when the request may go; otherwise the whole seconds (at least 1) to wait before retrying. */
  take(key: string, limit: RateLimit): number {
    const now = this.now();
    const bucket = this.buckets.get(key) ?? { tokens: limit.burst, at: now };
    bucket.tokens = Math.min(limit.burst, bucket.tokens + ((now - bucket.at) / 1000) * limit.rate);
    bucket.at = now;
    this.buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / limit.rate));
  }
}
