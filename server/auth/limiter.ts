/** Chooses the rate limiter implementation (in-process until issue 5 adds the token bucket). */
import { unlimited, type RateLimiter } from "./rate-limit.ts";

export function createRateLimiter(): RateLimiter {
  return unlimited;
}
