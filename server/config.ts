/**
 * Server configuration: read once from flags and environment (bin/interchange.ts), validated here,
 * frozen, and passed down to createApp. Nothing else in server/ reads the environment.
 */
import { join } from "node:path";
import type { FlagSpec, FlagValues } from "../config/flags.ts";
import { UsageError } from "../config/flags.ts";

/** Log levels, least severe first (--log-level). */
export const LOG_LEVELS = ["info", "warn", "error"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface ServerConfig {
  readonly dataDir: string;
  /** where the catalog index cache files are written and mapped (default <data>/indexes) */
  readonly indexDir: string;
  readonly host: string;
  readonly port: number;
  /** JSON file: [{ key, account, rate_limit_per_minute }] */
  readonly apiKeysFile: string | null;
  /** explicit opt-out of API keys (demo / local use) */
  readonly noAuth: boolean;
  /** base URL of an external Valhalla-compatible engine, e.g. http://localhost:8002 */
  readonly valhallaUrl: string | null;
  readonly valhallaTimeoutMs: number;
  /** Valhalla service_limits.allow_hard_exclusions */
  readonly allowHardExclusions: boolean;
  /** embedded engine: calls running at once (null: the cores less one) */
  readonly engineConcurrency: number | null;
  /** embedded street engine: calls in a supervised pool of engine processes (a crash costs one call) or in this process */
  readonly engineIsolation: "process" | "none";
  /** most a street call waits for an engine slot before 503 with Retry-After */
  readonly engineWaitMs: number;
  readonly engineTimeoutMs: number;
  /** street engine calls one account may have running or waiting at once (beyond: 429 with Retry-After); 0 = no limit */
  readonly engineAccountConcurrency: number;
  /** rate limit for accounts whose key entry has none (requests per minute); 0 = unlimited */
  readonly defaultRateLimitPerMinute: number;
  /** Redis for rate limits shared by every process and machine (null: each process limits alone) */
  readonly redisUrl: string | null;
  /** JSON file of realtime feeds to poll ([{feed_id, alerts_url, trip_updates_url, vehicle_positions_url, interval_s}]), or null */
  readonly realtimeFeedsFile: string | null;
  /** realtime snapshots older than this (header timestamp) are refused by the poller and not served */
  readonly realtimeMaxAgeS: number;
  /** realtime snapshot partitions older than this many days are removed (0 keeps all) */
  readonly realtimeRetentionDays: number;
  /** time-out of one realtime fetch */
  readonly realtimeTimeoutMs: number;
  /** port of the Prometheus /metrics listener (null: none; 0: any free port) */
  readonly metricsPort: number | null;
  /** address the /metrics listener binds to */
  readonly metricsHost: string;
  /** server processes on the port (server/workers.ts; 1: this process serves, no supervisor) */
  readonly workers: number;
  /** the service's public base URL (scheme, host, optional port and path prefix, no trailing slash) for absolute links; null: links are relative */
  readonly publicUrl: string | null;
  /** addresses (IPs or IPv4 CIDR blocks) of proxies whose X-Forwarded-Proto/-Host are believed; empty: none is */
  readonly trustedProxies: readonly string[];
  /** worker i also listens on workerPort + i, its own port (a proxy balancing over the workers per request); null: none */
  readonly workerPort: number | null;
  /** least severe log level written (info: everything) */
  readonly logLevel: LogLevel;
  /** share of requests given a request log line: 1 every request, 0 none, 0.1 every 10th (5xx answers always) */
  readonly requestLog: number;
}

export const SERVE_FLAGS: FlagSpec[] = [
  { name: "data", env: "INTERCHANGE_DATA", type: "string", default: "data", description: "dataset folder written by `interchange import`" },
  { name: "index-dir", env: "INTERCHANGE_INDEX_DIR", type: "string", description: "folder of the catalog index cache files (default DATA/indexes)" },
  { name: "host", env: "INTERCHANGE_HOST", type: "string", default: "0.0.0.0", description: "address to listen on" },
  { name: "port", env: "PORT", type: "number", default: 8080, description: "TCP port (0 = any free port)" },
  { name: "api-keys", env: "INTERCHANGE_API_KEYS", type: "string", description: "JSON file of API keys: [{key, account, rate_limit_per_minute}]" },
  { name: "no-auth", env: "INTERCHANGE_NO_AUTH", type: "boolean", default: false, description: "serve without API keys (required when --api-keys is absent)" },
  { name: "valhalla-url", env: "VALHALLA_URL", type: "string", description: "external Valhalla-compatible engine to forward street routing to (default: the embedded engine over the dataset's street tiles)" },
  { name: "valhalla-timeout-ms", env: "VALHALLA_TIMEOUT_MS", type: "number", default: 30000, description: "time-out for a request to the routing engine" },
  { name: "engine-concurrency", env: "INTERCHANGE_ENGINE_CONCURRENCY", type: "number", description: "embedded street engine: calls running at once (default: cores - 1, at least 1)" },
  { name: "engine-isolation", env: "INTERCHANGE_ENGINE_ISOLATION", type: "string", default: "process", description: "embedded street engine: process (calls run in a supervised pool of engine processes: a crash of the engine fails only its request) or none (in the server's process)" },
  { name: "engine-wait-ms", env: "INTERCHANGE_ENGINE_WAIT_MS", type: "number", default: 2000, description: "most a street request waits for a free engine slot before 503 with Retry-After" },
  { name: "engine-timeout-ms", env: "INTERCHANGE_ENGINE_TIMEOUT_MS", type: "number", default: 20000, description: "embedded street engine: most one engine call may run (100 to 28000, under the server's 30 s idle time-out); a call past it is answered 503 and, with --engine-isolation process, its engine process is ended and replaced" },
  { name: "engine-account-concurrency", env: "INTERCHANGE_ENGINE_ACCOUNT_CONCURRENCY", type: "number", default: 4, description: "street engine calls one account may have running or waiting at once; more are refused 429 with Retry-After (0 = no limit)" },
  { name: "allow-hard-exclusions", env: "INTERCHANGE_ALLOW_HARD_EXCLUSIONS", type: "boolean", default: false, description: "pass exclude_bridges/tolls/... to the engine instead of dropping them with a warning" },
  { name: "redis-url", env: "INTERCHANGE_REDIS_URL", type: "string", description: "Redis URL (redis://host:6379): rate limits shared by every process and machine; without it each process limits on its own" },
  { name: "default-rate-limit", env: "INTERCHANGE_DEFAULT_RATE_LIMIT", type: "number", default: 0, description: "requests per minute for keys without rate_limit_per_minute (0 = unlimited)" },
  { name: "realtime", env: "INTERCHANGE_REALTIME", type: "string", description: "JSON file of GTFS-Realtime feeds to poll: [{feed_id, alerts_url, trip_updates_url, vehicle_positions_url, interval_s}]" },
  { name: "realtime-max-age-s", env: "INTERCHANGE_REALTIME_MAX_AGE_S", type: "number", default: 600, description: "realtime snapshots older than this many seconds (header timestamp) are refused and no longer served" },
  { name: "realtime-retention-days", env: "INTERCHANGE_REALTIME_RETENTION_DAYS", type: "number", default: 7, description: "remove realtime snapshot partitions older than this many days (0 = keep all)" },
  { name: "realtime-timeout-ms", env: "INTERCHANGE_REALTIME_TIMEOUT_MS", type: "number", default: 10000, description: "time-out for one fetch of a realtime feed" },
  { name: "metrics-port", env: "INTERCHANGE_METRICS_PORT", type: "number", description: "serve Prometheus metrics at GET /metrics on this port, apart from the API (default: no metrics listener)" },
  { name: "workers", env: "INTERCHANGE_WORKERS", type: "number", description: "server processes sharing the port (SO_REUSEPORT) under a supervisor that restarts them (default: one per core; 1 = a single process, no supervisor)" },
  { name: "public-url", env: "INTERCHANGE_PUBLIC_URL", type: "string", description: "the service's public base URL (https://api.example.org) for the absolute links it writes (catalog `meta.next`, `Link`); without it links are relative to the request, never built from the client's Host header" },
  { name: "trusted-proxies", env: "INTERCHANGE_TRUSTED_PROXIES", type: "string", description: "comma-separated addresses or IPv4 CIDR blocks of proxies (nginx) whose X-Forwarded-Proto and X-Forwarded-Host build absolute links when --public-url is not set (default: none)" },
  { name: "worker-port", env: "INTERCHANGE_WORKER_PORT", type: "number", description: "worker i also listens on this port + i, its own (a proxy then balances per request over the workers, deploy/nginx.conf; on the shared --port the kernel spreads connections, not requests)" },
  { name: "log-level", env: "INTERCHANGE_LOG_LEVEL", type: "string", default: "info", description: "least severe log lines written to stderr: info (everything, the request log included), warn or error" },
  { name: "request-log", env: "INTERCHANGE_REQUEST_LOG", type: "string", default: "on", description: "request log lines (info): on (every request), off, or a share 0..1 (0.1 = every 10th request; a 5xx answer is always logged)" },
  { name: "metrics-host", env: "INTERCHANGE_METRICS_HOST", type: "string", default: "127.0.0.1", description: "address the metrics listener binds to (0.0.0.0 for a scraper on another machine)" },
];

/**
 * The server's configuration of its flags, checked (a bad value is a UsageError naming the flag,
 * in this order): port and keys, the street engine, realtime, the listeners, links, log.
 */
export function serverConfigFrom(values: FlagValues): ServerConfig {
  const port = Number(values.port ?? 8080);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be an integer 0..65535, got ${values.port}`);
  const apiKeysFile = (values.apiKeys as string | undefined) ?? null;
  const noAuth = Boolean(values.noAuth);
  if (!apiKeysFile && !noAuth) {
    throw new UsageError("no API keys configured: pass --api-keys FILE (env INTERCHANGE_API_KEYS), or --no-auth to serve without keys");
  }
  const { timeout, engineConcurrency, engineIsolation, engineWaitMs, engineTimeoutMs, engineAccountConcurrency, valhallaUrl } = engineConfig(values);
  const { realtimeMaxAgeS, realtimeRetentionDays, realtimeTimeoutMs } = realtimeConfig(values);
  const { metricsPort, workers } = listenerConfig(values, port);
  const publicUrl = parsePublicUrl(values.publicUrl as string | undefined);
  const trustedProxies = parseTrustedProxies(values.trustedProxies as string | undefined);
  const workerPort = workerPortOf(values, port, metricsPort, workers);
  const logLevel = String(values.logLevel ?? "info") as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(", ")}, got ${values.logLevel}`);
  const requestLog = requestLogShare(String(values.requestLog ?? "on"));
  return Object.freeze({
    dataDir: String(values.data ?? "data"),
    indexDir: String(values.indexDir ?? join(String(values.data ?? "data"), "indexes")),
    host: String(values.host ?? "0.0.0.0"),
    port,
    apiKeysFile,
    noAuth,
    valhallaUrl,
    valhallaTimeoutMs: timeout,
    allowHardExclusions: Boolean(values.allowHardExclusions),
    engineConcurrency: engineConcurrency ?? null,
    engineIsolation,
    engineWaitMs,
    engineTimeoutMs,
    engineAccountConcurrency,
    defaultRateLimitPerMinute: Number(values.defaultRateLimit ?? 0),
    redisUrl: (values.redisUrl as string | undefined) || null,
    realtimeFeedsFile: (values.realtime as string | undefined) || null,
    realtimeMaxAgeS,
    realtimeRetentionDays,
    realtimeTimeoutMs,
    metricsPort,
    metricsHost: String(values.metricsHost ?? "127.0.0.1"),
    workers,
    publicUrl,
    trustedProxies,
    workerPort,
    logLevel,
    requestLog,
  });
}

/** The street engine's flags, checked: Valhalla URL and time-out, the embedded engine's concurrency, isolation, waits and time-out. */
function engineConfig(values: FlagValues): {
  timeout: number; engineConcurrency: number | undefined; engineIsolation: ServerConfig["engineIsolation"]; engineWaitMs: number; engineTimeoutMs: number;
  engineAccountConcurrency: number; valhallaUrl: string | null;
} {
  const timeout = Number(values.valhallaTimeoutMs ?? 30000);
  if (!(timeout > 0)) throw new UsageError("--valhalla-timeout-ms must be > 0");
  const engineConcurrency = values.engineConcurrency as number | undefined;
  if (engineConcurrency !== undefined && !(Number.isInteger(engineConcurrency) && engineConcurrency >= 1)) throw new UsageError("--engine-concurrency must be an integer >= 1");
  const engineIsolation = String(values.engineIsolation ?? "process");
  if (engineIsolation !== "process" && engineIsolation !== "none") throw new UsageError(`--engine-isolation must be process or none, got ${engineIsolation}`);
  const engineWaitMs = Number(values.engineWaitMs ?? 2000);
  if (!(Number.isFinite(engineWaitMs) && engineWaitMs >= 0)) throw new UsageError("--engine-wait-ms must be a number >= 0");
  const engineTimeoutMs = Number(values.engineTimeoutMs ?? 20000);
  if (!(Number.isFinite(engineTimeoutMs) && engineTimeoutMs >= 100 && engineTimeoutMs <= 28000)) throw new UsageError("--engine-timeout-ms must be a number from 100 to 28000 (the server cuts a connection idle for 30 s)");
  const engineAccountConcurrency = Number(values.engineAccountConcurrency ?? 4);
  if (!(Number.isInteger(engineAccountConcurrency) && engineAccountConcurrency >= 0)) throw new UsageError("--engine-account-concurrency must be an integer >= 0");
  let valhallaUrl = (values.valhallaUrl as string | undefined) ?? null;
  if (valhallaUrl) {
    try {
      new URL(valhallaUrl);
    } catch {
      throw new UsageError(`--valhalla-url is not a URL: ${valhallaUrl}`);
    }
    valhallaUrl = valhallaUrl.replace(/\/+$/, "");
  }
  return { timeout, engineConcurrency, engineIsolation, engineWaitMs, engineTimeoutMs, engineAccountConcurrency, valhallaUrl };
}

/** The realtime flags, checked: snapshot age, retention, fetch time-out. */
function realtimeConfig(values: FlagValues) {
  const realtimeMaxAgeS = Number(values.realtimeMaxAgeS ?? 600);
  if (!(realtimeMaxAgeS > 0)) throw new UsageError("--realtime-max-age-s must be > 0");
  const realtimeRetentionDays = Number(values.realtimeRetentionDays ?? 7);
  if (!(realtimeRetentionDays >= 0)) throw new UsageError("--realtime-retention-days must be >= 0");
  const realtimeTimeoutMs = Number(values.realtimeTimeoutMs ?? 10000);
  if (!(realtimeTimeoutMs > 0)) throw new UsageError("--realtime-timeout-ms must be > 0");
  return { realtimeMaxAgeS, realtimeRetentionDays, realtimeTimeoutMs };
}

/** The metrics port and the number of workers, checked against the port (worker i serves its metrics on metrics-port + i). */
function listenerConfig(values: FlagValues, port: number): { metricsPort: number | null; workers: number } {
  const metricsPort = values.metricsPort === undefined ? null : Number(values.metricsPort);
  if (metricsPort !== null && !(Number.isInteger(metricsPort) && metricsPort >= 0 && metricsPort <= 65535)) throw new UsageError(`--metrics-port must be an integer 0..65535, got ${values.metricsPort}`);
  if (metricsPort !== null && metricsPort !== 0 && metricsPort === port) throw new UsageError("--metrics-port must differ from --port: metrics are served apart from the API");
  const workers = values.workers === undefined ? Math.max(1, navigator.hardwareConcurrency || 1) : Number(values.workers);
  if (!(Number.isInteger(workers) && workers >= 1 && workers <= 256)) throw new UsageError(`--workers must be an integer 1..256, got ${values.workers}`);
  // worker i serves its metrics on metrics-port + i (server/workers.ts)
  if (metricsPort && workers > 1) {
    if (metricsPort + workers - 1 > 65535) throw new UsageError(`--metrics-port + --workers - 1 must be <= 65535 (worker i serves metrics on metrics-port + i)`);
    if (port >= metricsPort && port < metricsPort + workers) throw new UsageError(`--port must not be one of the metrics ports ${metricsPort}..${metricsPort + workers - 1} (worker i serves metrics on metrics-port + i)`);
  }
  return { metricsPort, workers };
}

/** --worker-port, checked: the workers' own ports must fit and differ from --port and the metrics ports. */
function workerPortOf(values: FlagValues, port: number, metricsPort: number | null, workers: number): number | null {
  const workerPort = values.workerPort === undefined ? null : Number(values.workerPort);
  if (workerPort !== null) {
    if (!(Number.isInteger(workerPort) && workerPort >= 1 && workerPort + workers - 1 <= 65535)) throw new UsageError(`--worker-port must be an integer 1..65535 (and --worker-port + --workers - 1 <= 65535), got ${values.workerPort}`);
    const own = (p: number) => p >= workerPort && p < workerPort + workers;
    if (own(port) || (metricsPort !== null && [...Array(workers).keys()].some((i) => own(metricsPort + i)))) throw new UsageError(`--worker-port: the workers' own ports ${workerPort}..${workerPort + workers - 1} must differ from --port and the metrics ports`);
  }
  return workerPort;
}

/** --public-url: an http(s) URL without query or fragment; kept without its trailing slash. */
function parsePublicUrl(v: string | undefined): string | null {
  if (!v) return null;
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    throw new UsageError(`--public-url is not a URL: ${v}`);
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") throw new UsageError(`--public-url must be an http or https URL, got ${v}`);
  if (u.search || u.hash || u.username || u.password) throw new UsageError(`--public-url must have no query, fragment or credentials: ${v}`);
  return `${u.origin}${u.pathname}`.replace(/\/+$/, "");
}

const IPV4 = /^(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}$/;

/** --trusted-proxies: IPv4 or IPv6 addresses, or IPv4 CIDR blocks (10.0.0.0/8). */
function parseTrustedProxies(v: string | undefined): string[] {
  if (!v) return [];
  const out: string[] = [];
  for (const raw of v.split(",")) {
    const item = raw.trim();
    if (!item) continue;
    const [ip, bits] = item.split("/");
    const okIp = IPV4.test(ip!) || (ip!.includes(":") && /^[0-9A-Fa-f:.]+$/.test(ip!));
    const okBits = bits === undefined || (IPV4.test(ip!) && /^\d{1,2}$/.test(bits) && Number(bits) <= 32);
    if (!okIp || !okBits) throw new UsageError(`--trusted-proxies: ${item} is not an IP address or an IPv4 CIDR block`);
    out.push(item.toLowerCase());
  }
  return out;
}

/** --request-log: on = 1, off = 0, or a share 0..1. */
function requestLogShare(raw: string): number {
  if (raw === "on") return 1;
  if (raw === "off") return 0;
  const share = Number(raw);
  if (raw.trim() === "" || !(share >= 0 && share <= 1)) throw new UsageError(`--request-log must be on, off or a share 0..1 (0.1 = every 10th request), got ${raw}`);
  return share;
}
