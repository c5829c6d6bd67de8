/**
 * In-process token bucket per account: a bucket holds up to one minute's allowance
 * (rate_limit_per_minute tokens) and refills continuously at that rate; each request takes a token.
 * Time comes from the caller (nowMs), so tests drive it with a fake clock.
 */
import type { Account } from "./keys.ts";
import type { RateDecision, RateLimiter } from "./rate-limit.ts";

interface Bucket {
  tokens: number;
  updatedMs: number;
}

export interface TokenBucketOptions {
  /** bucket size in seconds of allowance (default 60: a full minute's requests may come at once) */
  burstSeconds?: number;
}

export class TokenBucketLimiter implements RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly burstSeconds: number;

  constructor(opts: TokenBucketOptions = {}) {
    this.burstSeconds = opts.burstSeconds ?? 60;
    if (!(this.burstSeconds > 0)) throw new Error("burstSeconds must be > 0");
  }

  take(account: Account, nowMs: number): RateDecision {
    const perMinute = account.rateLimitPerMinute;
    if (!perMinute || perMinute <= 0) return { allowed: true, retryAfterSec: 0 };
    const perMs = perMinute / 60_000;
    // at least one token fits, whatever the rate, or a slow account could never send anything
    const capacity = Math.max(1, (perMinute * this.burstSeconds) / 60);
    let b = this.buckets.get(account.account);
    if (!b) {
      b = { tokens: capacity, updatedMs: nowMs };
      this.buckets.set(account.account, b);
    }
    const elapsed = Math.max(0, nowMs - b.updatedMs); // a clock stepping back refills nothing
    b.tokens = Math.min(capacity, b.tokens + elapsed * perMs);
    b.updatedMs = Math.max(b.updatedMs, nowMs);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return { allowed: true, retryAfterSec: 0 };
    }
    return { allowed: false, retryAfterSec: (1 - b.tokens) / perMs / 1000 };
  }
}
