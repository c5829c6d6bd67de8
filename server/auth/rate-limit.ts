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

/**
 * Take `units` more requests of an account's rate at once (a GraphQL request's extra plans): the
 * first refusal is the answer (the requests taken before it stay taken).
 */
export async function takeMore(limiter: RateLimiter, account: Account, units: number, nowMs: number): Promise<RateDecision> {
  for (let i = 0; i < units; i++) {
    const d = await limiter.take(account, nowMs);
    if (!d.allowed) return d;
  }
  return { allowed: true, retryAfterSec: 0 };
}
