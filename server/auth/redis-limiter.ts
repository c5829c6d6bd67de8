/**
 * Token buckets shared by every process and machine through Redis: each request runs one atomic
 * Lua script (EVALSHA; reloaded after NOSCRIPT, e.g. a Redis restart) that refills and takes from
 * the account's bucket with Redis's own clock, so replicas on machines whose clocks differ still
 * share one rate. The bucket rule is the in-process limiter's (token-bucket.ts).
 *
 * When Redis does not answer (down, unreachable, slower than the time-out), requests fail open to
 * the in-process limiter: each replica then allows the full rate on its own until Redis is back.
 * That is a choice for availability over strictness, said in /health and logged (once a minute).
 */
import { RedisClient } from "bun";
import type { Logger } from "../feature.ts";
import type { Account } from "./keys.ts";
import type { RateDecision, RateLimiter } from "./rate-limit.ts";
import { TokenBucketLimiter } from "./token-bucket.ts";

/** KEYS[1] the bucket; ARGV per_minute, burst_seconds. Returns {allowed 0|1, retry_ms as text}. */
export const BUCKET_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local per_minute = tonumber(ARGV[1])
local per_ms = per_minute / 60000
local capacity = math.max(1, per_minute * tonumber(ARGV[2]) / 60)
local b = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(b[1]) or capacity
local ts = tonumber(b[2]) or now
tokens = math.min(capacity, tokens + math.max(0, now - ts) * per_ms)
if now > ts then ts = now end
local allowed = 0
local retry = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
else
  retry = (1 - tokens) / per_ms
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', tostring(ts))
redis.call('PEXPIRE', KEYS[1], math.ceil(capacity / per_ms) + 1000)
return {allowed, tostring(retry)}
`;

export interface RedisLimiterOptions {
  url: string;
  /** bucket size in seconds of allowance (the in-process limiter's burstSeconds) */
  burstSeconds?: number;
  /** a Redis answer slower than this fails open (default 250 ms) */
  timeoutMs?: number;
  /** key prefix (default "interchange:rl:") */
  prefix?: string;
  log: Logger;
}

export class RedisTokenBucketLimiter implements RateLimiter {
  private readonly client: RedisClient;
  private readonly local: TokenBucketLimiter;
  private readonly burstSeconds: number;
  private readonly timeoutMs: number;
  private readonly prefix: string;
  private sha: string | null = null;
  private failingSince: number | null = null;
  private lastError = "";
  private lastLog = 0;
  /** requests decided by the local limiter because Redis did not answer */
  failOpen = 0;

  constructor(private readonly opts: RedisLimiterOptions) {
    this.burstSeconds = opts.burstSeconds ?? 60;
    this.timeoutMs = opts.timeoutMs ?? 250;
    this.prefix = opts.prefix ?? "interchange:rl:";
    this.local = new TokenBucketLimiter({ burstSeconds: this.burstSeconds });
    this.client = new RedisClient(opts.url, { connectionTimeout: this.timeoutMs * 4, enableOfflineQueue: false, autoReconnect: true, maxRetries: 1_000_000 });
  }

  async take(account: Account, nowMs: number): Promise<RateDecision> {
    const perMinute = account.rateLimitPerMinute;
    if (!perMinute || perMinute <= 0) return { allowed: true, retryAfterSec: 0 };
    try {
      const [allowed, retryMs] = await this.withTimeout(this.evalBucket(account.account, perMinute));
      if (this.failingSince !== null) {
        this.opts.log.info("rate limiter: Redis answers again; buckets are shared", { failed_open_for_s: Math.round((Date.now() - this.failingSince) / 1000) });
        this.failingSince = null;
      }
      return { allowed: allowed === 1, retryAfterSec: Number(retryMs) / 1000 };
    } catch (e) {
      this.noteFailure(e);
      this.failOpen++;
      return this.local.take(account, nowMs);
    }
  }

  health(): Record<string, unknown> {
    return {
      limiter: "redis",
      redis: this.failingSince === null ? "ok" : `unreachable since ${new Date(this.failingSince).toISOString()} (${this.lastError}): each process limits on its own`,
      failed_open_requests: this.failOpen,
    };
  }

  close(): void {
    this.client.close();
  }

  private async evalBucket(account: string, perMinute: number): Promise<[number, string]> {
    if (!this.client.connected) await this.client.connect();
    const args = ["1", this.prefix + account, String(perMinute), String(this.burstSeconds)];
    if (this.sha) {
      try {
        return (await this.client.send("EVALSHA", [this.sha, ...args])) as [number, string];
      } catch (e) {
        // the script cache is empty after a Redis restart or SCRIPT FLUSH: load it again
        if (!String((e as Error).message).includes("NOSCRIPT")) throw e;
      }
    }
    this.sha = (await this.client.send("SCRIPT", ["LOAD", BUCKET_SCRIPT])) as string;
    return (await this.client.send("EVALSHA", [this.sha, ...args])) as [number, string];
  }

  private withTimeout<T>(p: Promise<T>): Promise<T> {
    let timer: ReturnType<typeof setTimeout>;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${this.timeoutMs} ms`)), this.timeoutMs);
    });
    p.catch(() => {}); // a late failure after the time-out is already handled
    return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
  }

  private noteFailure(e: unknown): void {
    const now = Date.now();
    this.lastError = String((e as Error)?.message ?? e);
    if (this.failingSince === null) this.failingSince = now;
    if (now - this.lastLog >= 60_000) {
      this.lastLog = now;
      this.opts.log.warn("rate limiter: Redis unreachable; failing open to the in-process limiter", { error: this.lastError });
    }
  }
}
