/**
 * Chooses the rate limiter implementation: token buckets in Redis, shared by every process and
 * machine, when a Redis URL is configured; otherwise the in-process token bucket (one per account).
 */
import type { Logger } from "../feature.ts";
import type { RateLimiter } from "./rate-limit.ts";
import { RedisTokenBucketLimiter } from "./redis-limiter.ts";
import { TokenBucketLimiter, type TokenBucketOptions } from "./token-bucket.ts";

export function createRateLimiter(opts: TokenBucketOptions & { redisUrl?: string | null; log?: Logger } = {}): RateLimiter {
  if (opts.redisUrl && opts.log) return new RedisTokenBucketLimiter({ url: opts.redisUrl, burstSeconds: opts.burstSeconds, log: opts.log });
  return new TokenBucketLimiter(opts);
}
