/**
 * Starts the real server (port 0) for street tests: in front of a given engine URL, or with the
 * embedded engine over `dataDir` (an empty data dir when none is given).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serverConfigFrom } from "../../server/config.ts";
import type { Logger } from "../../server/feature.ts";
import { startServer } from "../../server/main.ts";

export const quietLog: Logger = { info() {}, warn() {}, error() {} };

export interface GatewayOptions {
  valhallaUrl?: string | null;
  /** data dir for the embedded engine (default: a new empty one) */
  dataDir?: string;
  engineConcurrency?: number;
  /** --engine-isolation (default process) */
  engineIsolation?: "process" | "none";
  /** --engine-wait-ms (default 2000) */
  engineWaitMs?: number;
  /** --engine-account-concurrency (default 4) */
  engineAccountConcurrency?: number;
  redisUrl?: string;
  valhallaTimeoutMs?: number;
  allowHardExclusions?: boolean;
  /** writes a keys file; without it the server runs with --no-auth */
  keys?: Array<{ key: string; account: string; rate_limit_per_minute?: number }>;
  now?: () => number;
}

export interface Gateway {
  readonly url: string;
  /** base of the street routes, e.g. http://127.0.0.1:1234/api/v2/routing/valhalla */
  readonly street: string;
  post(action: string, body: unknown, headers?: Record<string, string>): Promise<Response>;
  get(action: string, json?: unknown, headers?: Record<string, string>): Promise<Response>;
  stop(): Promise<void>;
}

export async function startGateway(opts: GatewayOptions = {}): Promise<Gateway> {
  const dir = mkdtempSync(join(tmpdir(), "interchange-street-"));
  let apiKeys: string | undefined;
  if (opts.keys) {
    apiKeys = join(dir, "keys.json");
    writeFileSync(apiKeys, JSON.stringify(opts.keys));
  }
  const config = serverConfigFrom({
    data: opts.dataDir ?? join(dir, "data"),
    engineConcurrency: opts.engineConcurrency,
    engineIsolation: opts.engineIsolation,
    engineWaitMs: opts.engineWaitMs,
    engineAccountConcurrency: opts.engineAccountConcurrency,
    redisUrl: opts.redisUrl,
    port: 0,
    host: "127.0.0.1",
    noAuth: !opts.keys,
    apiKeys,
    valhallaUrl: opts.valhallaUrl ?? undefined,
    valhallaTimeoutMs: opts.valhallaTimeoutMs ?? 2000,
    allowHardExclusions: opts.allowHardExclusions ?? false,
  });
  const server = await startServer(config, { log: quietLog, now: opts.now });
  const street = `${server.url}/api/v2/routing/valhalla`;
  return {
    url: server.url,
    street,
    post: (action, body, headers = {}) =>
      fetch(`${street}/${action}`, { method: "POST", body: typeof body === "string" ? body : JSON.stringify(body), headers: { "content-type": "application/json", ...headers } }),
    get: (action, json, headers = {}) =>
      fetch(json === undefined ? `${street}/${action}` : `${street}/${action}?json=${encodeURIComponent(typeof json === "string" ? json : JSON.stringify(json))}`, { headers }),
    async stop() {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
