/**
 * startServer: builds the dependencies from a frozen ServerConfig, creates the app and listens.
 * Used by `interchange serve`, `npm start` and the end-to-end tests (port 0).
 */
import { createApp } from "./app.ts";
import type { ServerConfig } from "./config.ts";
import { loadKeys, noAuth } from "./auth/keys.ts";
import { createRateLimiter } from "./auth/limiter.ts";
import { consoleLogger, type Feature, type FeatureContext, type Logger } from "./feature.ts";
import { createCatalogFeature } from "./catalog/index.ts";
import { createPlannerFeature } from "./planner/index.ts";
import { createStreetFeature } from "./street/index.ts";
import { createEngine } from "./street/engine.ts";
import { streetPaths } from "./street/paths.ts";
import { watchManifest } from "../pipeline/schema/manifest.ts";

export interface RunningServer {
  readonly url: string;
  readonly port: number;
  stop(): Promise<void>;
}

export async function startServer(config: ServerConfig, opts: { log?: Logger; now?: () => number } = {}): Promise<RunningServer> {
  const log = opts.log ?? consoleLogger;
  const now = opts.now ?? Date.now;
  const ctx: FeatureContext = { config, log, now };
  const auth = config.apiKeysFile ? loadKeys(config.apiKeysFile, config.defaultRateLimitPerMinute) : noAuth();
  if (!auth.enabled) log.warn("serving WITHOUT API keys (--no-auth)");
  // one street engine: the street endpoints' and the planner's (walks, rides and drives on the streets)
  const engine = createEngine(config, log);
  const streets = streetPaths(engine, () => engine.kind !== "embedded" || Boolean(engine.health().street_dataset));
  const features: Feature[] = [await createCatalogFeature(ctx), await createPlannerFeature(ctx, streets), await createStreetFeature(ctx, engine)];
  const rateLimiter = createRateLimiter({ redisUrl: config.redisUrl, log });
  const app = createApp({ auth, rateLimiter, features, log, now });
  app.listen({ hostname: config.host, port: config.port });
  const server = app.server!;
  const stopWatching = watchManifest(config.dataDir, async () => {
    for (const f of features) {
      try {
        await f.reload?.();
      } catch (e) {
        log.error("reload failed; still serving the previous dataset", { feature: f.name, error: String(e) });
      }
    }
  });
  const host = config.host === "0.0.0.0" ? "127.0.0.1" : config.host;
  log.info("listening", { url: `http://${host}:${server.port}`, data: config.dataDir });
  return {
    url: `http://${host}:${server.port}`,
    port: server.port!,
    async stop() {
      stopWatching();
      await app.stop(true);
      for (const f of features) await f.close?.();
      rateLimiter.close?.();
    },
  };
}
