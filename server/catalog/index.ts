/**
 * Catalog feature: the REST catalog of routes, trips (under a route), stops and a stop's
 * departures, served from the Parquet dataset (DuckDB at load, JS indexes per request), the feeds,
 * feed versions, agencies and operators (feeds.ts), and the downloads (downloads.ts: a version's zip, the latest realtime snapshot as a FeedMessage). See the README section "REST catalog" for the endpoints and their parameters.
 */
import { Elysia } from "elysia";
import type { Feature, FeatureContext } from "../feature.ts";
import { catalogErrors, catalogFormatPaths, catalogRoutes } from "./routes.ts";
import { CatalogService, FeedEndpoints } from "./service.ts";
import type { AlertSource } from "./alerts.ts";
import type { TripUpdateSource } from "../trip-updates.ts";
import type { TransitAlert, TransitData } from "../transit-data.ts";
import { catalogTransitData } from "./transit-data.ts";
import { downloadDocPaths, downloadRoutes } from "./downloads.ts";
import { NO_REALTIME_FEEDS, type RealtimeFeeds } from "../realtime-feeds.ts";

/**
 * `realtime` (server/realtime): the alerts the catalog attaches with include_alerts=true and the
 * trip updates behind schedule_relationship and the stop_times' realtime fields.
 */
export async function createCatalogFeature(
  ctx: FeatureContext,
  realtime?: AlertSource & TripUpdateSource & RealtimeFeeds & { alertRecords(nowMs: number): TransitAlert[] },
): Promise<Feature & { transitData: TransitData }> {
  const service = new CatalogService(ctx.config.dataDir, ctx.log, ctx.now, realtime, realtime, ctx.config.indexDir);
  try {
    await service.reload();
  } catch {
    // logged by the service; the endpoints answer 503 until a reload succeeds
  }
  return {
    name: "catalog",
    routes: new Elysia()
      .use(catalogRoutes(service, new FeedEndpoints(service, ctx.config.dataDir), ctx.origin))
      .use(downloadRoutes({ dataDir: ctx.config.dataDir, realtime: realtime ?? NO_REALTIME_FEEDS, now: ctx.now })),
    errors: catalogErrors,
    docPaths: { ...catalogFormatPaths(), ...downloadDocPaths() },
    reload: () => service.reload(),
    close: async () => service.close(),
    health: () => service.health(),
    /** the transit-data port (server/transit-data.ts) over this feature's dataset, for the GraphQL API */
    transitData: catalogTransitData(() => service.current(), realtime ? { updates: realtime, alerts: (now) => realtime.alertRecords(now) } : undefined),
  };
}
