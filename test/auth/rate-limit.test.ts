/**
 * Per-account rate limit: the token bucket on its own (fake clock), then through the real server:
 * over the limit → 429 text/plain with Retry-After, and recovery once the clock has moved on.
 */
import { describe, expect, test } from "bun:test";
import type { Account } from "../../server/auth/keys.ts";
import { createRateLimiter } from "../../server/auth/limiter.ts";
import { TokenBucketLimiter } from "../../server/auth/token-bucket.ts";
import { startStandIn } from "../support/stand-in-engine.ts";
import { startGateway } from "../support/street-server.ts";

const acct = (account: string, rateLimitPerMinute: number): Account => ({ account, rateLimitPerMinute });

describe("TokenBucketLimiter", () => {
  test("allows a minute's allowance at once, then refuses with the time to the next token", () => {
    const l = new TokenBucketLimiter();
    const a = acct("a", 3);
    expect([0, 0, 0].map(() => l.take(a, 1_000).allowed)).toEqual([true, true, true]);
    const refused = l.take(a, 1_000);
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfterSec).toBeCloseTo(20, 6);
  });

  test("refills continuously at the per-minute rate", () => {
    const l = new TokenBucketLimiter();
    const a = acct("a", 60);
    for (let i = 0; i < 60; i++) expect(l.take(a, 0).allowed).toBe(true);
    expect(l.take(a, 0).allowed).toBe(false);
    expect(l.take(a, 999).allowed).toBe(false);
    expect(l.take(a, 1_000).allowed).toBe(true);
    expect(l.take(a, 1_000).allowed).toBe(false);
  });

  test("never holds more than one minute's allowance", () => {
    const l = new TokenBucketLimiter();
    const a = acct("a", 2);
    l.take(a, 0);
    const later = 3_600_000;
    expect([l.take(a, later), l.take(a, later), l.take(a, later)].map((d) => d.allowed)).toEqual([true, true, false]);
  });

  test("keeps one bucket per account and leaves unlimited accounts alone", () => {
    const l = createRateLimiter();
    const a = acct("a", 1);
    const b = acct("b", 1);
    expect(l.take(a, 0)).toEqual({ allowed: true, retryAfterSec: 0 });
    expect((l.take(a, 0) as { allowed: boolean }).allowed).toBe(false);
    expect((l.take(b, 0) as { allowed: boolean }).allowed).toBe(true);
    const free = acct("free", 0);
    for (let i = 0; i < 1000; i++) expect((l.take(free, 0) as { allowed: boolean }).allowed).toBe(true);
  });

  test("a clock stepping back refills nothing", () => {
    const l = new TokenBucketLimiter();
    const a = acct("a", 1);
    expect(l.take(a, 60_000).allowed).toBe(true);
    expect(l.take(a, 0).allowed).toBe(false);
    expect(l.take(a, 60_000).allowed).toBe(false);
    expect(l.take(a, 120_000).allowed).toBe(true);
  });

  test("burstSeconds shrinks the bucket", () => {
    const l = new TokenBucketLimiter({ burstSeconds: 10 });
    const a = acct("a", 60); // 10 tokens
    const allowed = Array.from({ length: 12 }, () => l.take(a, 0).allowed).filter(Boolean).length;
    expect(allowed).toBe(10);
  });
});

describe("rate limit over HTTP", () => {
  test("the 4th request of a 3-per-minute key gets 429 text/plain with Retry-After, and recovers", async () => {
    let nowMs = Date.UTC(2025, 0, 1);
    const engine = startStandIn();
    const gw = await startGateway({
      valhallaUrl: engine.url,
      keys: [
        { key: "key-slow-0001", account: "slow", rate_limit_per_minute: 3 },
        { key: "key-other-0002", account: "other", rate_limit_per_minute: 3 },
      ],
      now: () => nowMs,
    });
    try {
      const call = (key: string) => gw.get("status", undefined, { apikey: key });
      for (let i = 0; i < 3; i++) expect((await call("key-slow-0001")).status).toBe(200);
      const limited = await call("key-slow-0001");
      expect(limited.status).toBe(429);
      expect(limited.headers.get("content-type")).toStartWith("text/plain");
      expect(limited.headers.get("retry-after")).toBe("20");
      const text = await limited.text();
      expect(text).toContain("rate limit");
      expect(() => JSON.parse(text)).toThrow();
      expect(engine.received.length).toBe(3); // refused before the engine
      // another account is unaffected
      expect((await call("key-other-0002")).status).toBe(200);
      // key in the query string counts against the same bucket
      expect((await fetch(`${gw.street}/status?apikey=key-slow-0001`)).status).toBe(429);
      nowMs += 19_000;
      expect((await call("key-slow-0001")).status).toBe(429);
      nowMs += 1_000;
      expect((await call("key-slow-0001")).status).toBe(200);
      expect((await call("key-slow-0001")).status).toBe(429);
      nowMs += 60_000;
      for (let i = 0; i < 3; i++) expect((await call("key-slow-0001")).status).toBe(200);
      // CORS preflight is never limited
      expect((await fetch(`${gw.street}/route`, { method: "OPTIONS" })).status).toBe(204);
    } finally {
      await gw.stop();
      await engine.stop();
    }
  });

  test("a missing or wrong key gets 401 JSON before the limiter", async () => {
    const gw = await startGateway({ valhallaUrl: null, keys: [{ key: "key-slow-0001", account: "slow", rate_limit_per_minute: 1 }] });
    try {
      const res = await gw.get("status");
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ error: "missing API key: send it in the apikey header" });
      expect((await gw.get("status", undefined, { apikey: "wrong-key-xxxx" })).status).toBe(401);
    } finally {
      await gw.stop();
    }
  });
});
