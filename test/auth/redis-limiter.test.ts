/**
 * FEATURE UNDER TEST: rate limits shared through a real Redis (Debian's redis-server, started here
 * on its own port): two limiters (two processes' worth) hold an account to its rate in total; the
 * script survives a SCRIPT FLUSH and a Redis restart (NOSCRIPT); an unreachable Redis fails open to
 * the in-process limiter and says so.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { RedisClient } from "bun";
import { RedisTokenBucketLimiter } from "../../server/auth/redis-limiter.ts";
import type { Account } from "../../server/auth/keys.ts";
import { quietLog, startGateway } from "../support/street-server.ts";
import { type RedisServer, startRedis } from "../support/services.ts";

const account = (name: string, perMinute: number): Account => ({ account: name, rateLimitPerMinute: perMinute }) as Account;

describe("Redis token buckets", () => {
  let redis: RedisServer;
  const limiters: RedisTokenBucketLimiter[] = [];
  const limiter = () => {
    const l = new RedisTokenBucketLimiter({ url: redis.url, log: quietLog, timeoutMs: 500 });
    limiters.push(l);
    return l;
  };
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    for (const l of limiters) l.close();
    await redis?.stop();
  });

  test("two limiters sharing Redis allow an account its rate in total, not each", async () => {
    const [a, b] = [limiter(), limiter()];
    const acct = account("shared", 60);
    let allowed = 0;
    for (let i = 0; i < 100; i++) if ((await (i % 2 ? a : b).take(acct, Date.now())).allowed) allowed++;
    expect(allowed).toBe(60);
    const refused = await a.take(acct, Date.now());
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfterSec).toBeGreaterThan(0);
    expect(refused.retryAfterSec).toBeLessThanOrEqual(1.05); // one token per second at 60/min
    expect(a.failOpen + b.failOpen).toBe(0);
  });

  test("accounts have buckets of their own; unlimited accounts never touch Redis", async () => {
    const l = limiter();
    for (let i = 0; i < 3; i++) expect((await l.take(account("small", 3), Date.now())).allowed).toBe(true);
    expect((await l.take(account("small", 3), Date.now())).allowed).toBe(false);
    expect((await l.take(account("other", 3), Date.now())).allowed).toBe(true);
    expect((await l.take(account("free", 0), Date.now())).allowed).toBe(true);
  });

  test("the script is loaded again after SCRIPT FLUSH (NOSCRIPT)", async () => {
    const l = limiter();
    expect((await l.take(account("flush", 10), Date.now())).allowed).toBe(true);
    const admin = new RedisClient(redis.url);
    await admin.send("SCRIPT", ["FLUSH"]);
    admin.close();
    expect((await l.take(account("flush", 10), Date.now())).allowed).toBe(true);
    expect(l.failOpen).toBe(0);
  });

  test("Redis down: requests fail open to the in-process limiter, /health says so; back again after a restart", async () => {
    const l = limiter();
    expect((await l.take(account("outage", 600), Date.now())).allowed).toBe(true);
    await redis.kill();
    const during = await l.take(account("outage", 600), Date.now());
    expect(during.allowed).toBe(true);
    expect(l.failOpen).toBe(1);
    expect(String(l.health().redis)).toContain("unreachable");
    // the local limiter still limits
    for (let i = 0; i < 3; i++) await l.take(account("tiny", 2), Date.now());
    expect((await l.take(account("tiny", 2), Date.now())).allowed).toBe(false);
    await redis.start(); // an empty Redis: no script, no buckets
    let back = false;
    for (let i = 0; i < 50 && !back; i++) {
      await l.take(account("outage", 600), Date.now());
      back = l.health().redis === "ok";
      if (!back) await Bun.sleep(100);
    }
    expect(back).toBe(true);
  }, 20_000);

  test("two servers with --redis-url hold an account to its rate_limit_per_minute in total; /health says which limiter", async () => {
    const keys = [{ key: "shared-key-123", account: "two-servers", rate_limit_per_minute: 10 }];
    const [a, b] = [await startGateway({ keys, redisUrl: redis.url }), await startGateway({ keys, redisUrl: redis.url })];
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 16; i++) {
        const r = await fetch(`${(i % 2 ? a : b).url}/api/v2/rest/stops?limit=1`, { headers: { apikey: "shared-key-123" } });
        await r.text();
        statuses.push(r.status);
      }
      expect(statuses.filter((s) => s === 200).length).toBe(10);
      expect(statuses.filter((s) => s === 429).length).toBe(6);
      // /health's details (the limiter among them) go to a request with a key
      const health = (await (await fetch(`${a.url}/health`, { headers: { apikey: "shared-key-123" } })).json()) as { rate_limit: { limiter: string; redis: string } };
      expect(health.rate_limit).toMatchObject({ limiter: "redis", redis: "ok" });
    } finally {
      await a.stop();
      await b.stop();
    }
  });
});
