/**
 * startServer: builds the dependencies from a frozen ServerConfig, creates the app and listens.
 * Used by `interchange serve`, `npm start` and the end-to-end tests (port 0).
 */
import { resolve } from "node:path";
import type { Server } from "bun";
import { type AppDeps, createApp, healthDetails } from "./app.ts";
import type { ServerConfig } from "./config.ts";
import { loadKeys, noAuth } from "./auth/keys.ts";
import { createRateLimiter } from "./auth/limiter.ts";
import { takeMore } from "./auth/rate-limit.ts";
import { consoleLogger, type Feature, type FeatureContext, type Logger } from "./feature.ts";
import { createCatalogFeature } from "./catalog/index.ts";
import { createGraphqlFeature } from "./graphql/index.ts";
import { createPlannerFeature } from "./planner/index.ts";
import { createStreetFeature } from "./street/index.ts";
import { createRealtimeFeature } from "./realtime/index.ts";
import { createMapFeature } from "./map/index.ts";
import { createGeocoderFeature } from "./geocoder/index.ts";
import { createEngine } from "./street/create-engine.ts";
import { streetPaths } from "./street/paths.ts";
import { watchManifest } from "../pipeline/schema/manifest.ts";
import { Ops } from "./ops/index.ts";
import { listenOwnPort, workerLogger } from "./workers.ts";
import { withCorsHeader } from "./cors.ts";
import { gate, serveOptions } from "./gate.ts";
import { publicOrigin } from "./origin.ts";

export interface RunningServer {
  readonly url: string;
  readonly port: number;
  /** the Prometheus listener's base URL (GET /metrics), null without --metrics-port */
  readonly metricsUrl: string | null;
  stop(): Promise<void>;
  /** read the realtime status files now (the poller calls it after each snapshot; a file watch does it too) */
  refreshRealtime(): Promise<void>;
  /** every route the app answers (method, path pattern): the security tests walk them all */
  readonly routes: readonly { method: string; path: string }[];
}

export interface StartOptions {
  log?: Logger;
  now?: () => number;
  /** one of `serve --workers N`'s processes (server/workers.ts): its lines name it, its metrics listen on metrics-port + index */
  worker?: { index: number };
}

/** Start the features and listen: the HTTP port (and --worker-port), the metrics listener, the manifest watch. */
export async function startServer(config: ServerConfig, opts: StartOptions = {}): Promise<RunningServer> {
  const now = opts.now ?? Date.now;
  const baseLog = opts.worker ? workerLogger(opts.log ?? consoleLogger, opts.worker.index) : (opts.log ?? consoleLogger);
  // metrics and the request log (server/ops): the logger, engine and rate limiter are wrapped to be measured
  const ops = new Ops({ dataDir: config.dataDir, log: baseLog, now, logLevel: config.logLevel, requestLog: config.requestLog });
  const log = ops.tapLog(baseLog);
  const origin = publicOrigin(config);
  const ctx: FeatureContext = { config, log, now, origin };
  const auth = config.apiKeysFile ? loadKeys(config.apiKeysFile, config.defaultRateLimitPerMinute) : noAuth();
  if (!auth.enabled) log.warn("serving WITHOUT API keys (--no-auth)");
  // one street engine: the street endpoints' and the planner's (walks, rides and drives on the streets)
  const engine = ops.timeEngine(createEngine(config, log, { onCrash: ops.engineCrashed, onTimeout: ops.engineTimedOut }));
  const { features, realtime, rateLimiter } = await createFeatures(ctx, ops, auth, engine);
  const appDeps: AppDeps = { auth, rateLimiter, features, log, now, onAuthenticated: ops.noteAccount, worker: { index: opts.worker?.index ?? 0, pid: process.pid }, dataDir: resolve(config.dataDir) };
  const app = createApp(appDeps);
  const started = now();
  ops.follow(features, engine);
  const { server, own } = listen(config, opts, app, ops, origin, log);
  // one metrics listener per process: worker i on metrics-port + i (a shared port would show a scrape one worker at a time)
  const metricsPort = config.metricsPort ? config.metricsPort + (opts.worker?.index ?? 0) : config.metricsPort;
  const metrics = metricsPort === null ? null : ops.listen(config.metricsHost, metricsPort, () => healthDetails(appDeps, started));
  const stopWatching = reloadOnManifestChange(config, features, log);
  const host = config.host === "0.0.0.0" ? "127.0.0.1" : config.host;
  const metricsUrl = metrics ? `http://${config.metricsHost === "0.0.0.0" ? "127.0.0.1" : config.metricsHost}:${metrics.port}` : null;
  log.info("listening", { url: `http://${host}:${server.port}`, address: config.host, data: config.dataDir, ...(metricsUrl ? { metrics: `${metricsUrl}/metrics` } : {}) });
  return {
    url: `http://${host}:${server.port}`,
    port: server.port!,
    metricsUrl,
    routes: app.routes.map((r) => ({ method: r.method, path: r.path })),
    refreshRealtime: () => realtime.store.refresh(),
    async stop() {
      stopWatching();
      await server.stop(true);
      await own?.stop(true);
      await metrics?.stop(true);
      for (const f of features) await f.close?.();
      rateLimiter.close?.();
    },
  };
}

/**
 * The features, in the order the app routes them, wired through their ports: the realtime store
 * to the catalog and the planner, the street engine to the street feature and the planner, the
 * catalog's data and the planner's plans to GraphQL; and the rate limiter GraphQL charges.
 */
async function createFeatures(ctx: FeatureContext, ops: Ops, auth: AppDeps["auth"], engine: ReturnType<Ops["timeEngine"]>) {
  const { config, log, now } = ctx;
  const streets = streetPaths(engine, () => engine.kind !== "embedded" || Boolean(engine.health().street_dataset));
  const realtime = await createRealtimeFeature(ctx);
  // the account of a request's key (absent without keys): street engine calls are shared fairly across accounts
  const accountOf = auth.enabled ? (r: Request) => ops.accounts.get(r) : () => undefined;
  // the catalog (DuckDB, its indexes) and the planner's timetable load side by side: a large dataset's start is the longer of the two
  const [catalog, planner] = await Promise.all([
    createCatalogFeature(ctx, realtime.store),
    createPlannerFeature(ctx, streets, { tripUpdates: (now) => realtime.store.tripUpdateSnapshots(now), alerts: (now) => realtime.store.alertDocs(now) }, accountOf),
  ]);
  const features: Feature[] = [catalog, planner, await createStreetFeature(ctx, engine, { accountOf }), realtime.feature];
  // the web map page (server/map): an example client of the API above, served beside it
  features.push(await createMapFeature(ctx));
  // Pelias's geocoding API over the dataset's places (server/geocoder)
  features.push(await createGeocoderFeature(ctx));
  const rateLimiter = ops.countRefusals(createRateLimiter({ redisUrl: config.redisUrl, log }));
  // OTP2's GTFS GraphQL API (server/graphql) over the catalog's dataset (the transit-data port) and
  // the planner's plans (the planning port); a request's plan fields after its first each take one
  // more request of the account's rate
  const charge = (request: Request, units: number) => takeMore(rateLimiter, auth.authenticate(request), units, now());
  features.push(await createGraphqlFeature(ctx, catalog.transitData, { planning: planner.planning, charge, accountOf }));
  return { features, realtime, rateLimiter };
}

/** The HTTP listener on the configured port, and this worker's own port with --worker-port. */
function listen(config: ServerConfig, opts: StartOptions, app: ReturnType<typeof createApp>, ops: Ops, origin: ReturnType<typeof publicOrigin>, log: Logger) {
  // Bun.serve over the app's fetch handler (app.listen would give routes native handlers that bypass
  // it), behind the request gate (a bad Host or request target is refused before routing, nothing
  // thrown reaches Bun's error page), which adds the CORS header to the answers and tells ops of
  // each request (metrics, the request log): one function, synchronous where the app's answer is
  const handle = gate(app.fetch, log, { answered: withCorsHeader, done: ops.requestDone });
  const fetch = origin.wantsPeers
    ? (request: Request, srv: Server<undefined>) => {
        origin.notePeer(request, srv.requestIP(request)?.address);
        return handle(request);
      }
    : handle;
  const server = Bun.serve({ hostname: config.host, port: config.port, reusePort: true, idleTimeout: 30, fetch, ...serveOptions(log) });
  const own = listenOwnPort(config, opts.worker?.index ?? 0, fetch, log); // --worker-port: this worker's own port too (server/workers.ts)
  return { server, own };
}

/** Reload every feature when the manifest changes (a failed reload keeps that feature's previous dataset); returns the unwatch. */
function reloadOnManifestChange(config: ServerConfig, features: Feature[], log: Logger): () => void {
  return watchManifest(config.dataDir, async () => {
    for (const f of features) {
      try {
        await f.reload?.();
      } catch (e) {
        log.error("reload failed; still serving the previous dataset", { feature: f.name, error: String(e) });
      }
    }
  });
}
