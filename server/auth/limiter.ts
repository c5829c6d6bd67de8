/**
 * Chooses the rate limiter implementation. Today: the in-process token bucket (one per account).
 * A store shared by replicas would implement the same RateLimiter interface and be chosen here.
 */
import type { RateLimiter } from "./rate-limit.ts";
import { TokenBucketLimiter, type TokenBucketOptions } from "./token-bucket.ts";

export function createRateLimiter(opts: TokenBucketOptions = {}): RateLimiter {
  return new TokenBucketLimiter(opts);
}
