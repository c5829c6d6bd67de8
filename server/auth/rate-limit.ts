/**
 * Per-account rate limiting behind an interface, so a store shared across replicas can replace the
 * in-process one later. (Issue 5 implements the token bucket.)
 */
import type { Account } from "./keys.ts";

export interface RateDecision {
  allowed: boolean;
  /** seconds until one more request would be allowed (when refused) */
  retryAfterSec: number;
}

export interface RateLimiter {
  take(account: Account, nowMs: number): RateDecision | Promise<RateDecision>;
  /** what /health says about it */
  health?(): Record<string, unknown>;
  close?(): void;
}

/** Limiter used until the token bucket lands: never refuses. */
export const unlimited: RateLimiter = { take: () => ({ allowed: true, retryAfterSec: 0 }) };
