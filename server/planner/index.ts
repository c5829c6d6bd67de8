/**
 * Planner feature: loads the Arrow timetable named by manifest.timetable at start and on every
 * reload, and serves the OTP plan endpoint. Without a timetable it answers GRAPH_UNAVAILABLE
 * (UNAVAILABLE, rendered by routes.ts plannerErrors).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Feature, FeatureContext } from "../feature.ts";
import { readManifest } from "../../pipeline/schema/manifest.ts";
import { loadTimetableFile } from "./timetable/arrow-loader.ts";
import { AppError } from "../errors.ts";
import { PlanService } from "./plan-service.ts";
import { StreetPlanner } from "./street-legs.ts";
import { plannerErrors, plannerRoutes } from "./routes.ts";
import { reachabilityOf } from "./reachability.ts";
import { travelTimes } from "./analysis/service.ts";
import { NO_STREETS, type StreetPaths } from "../street-paths.ts";
import { NO_REALTIME, type PlannerRealtime } from "./realtime.ts";
import type { Planning } from "../planning.ts";

/**
 * `streets`: the street engine's paths (server/main.ts hands the street feature's over), for walks
 * on the streets; `realtime`: the trip updates and alerts served (the realtime feature's), for
 * plans on realtime times with leg alerts (realtime.ts).
 */
export async function createPlannerFeature(ctx: FeatureContext, streets: StreetPaths = NO_STREETS, realtime: PlannerRealtime = NO_REALTIME): Promise<Feature & { planning: Planning }> {
  /** the loaded timetable's plan service, behind the street layer (street-legs.ts) */
  let service: StreetPlanner | null = null;
  let planService: PlanService | null = null;
  let loadedPath: string | null = null;
  let loadError: string | null = null;

  const load = async () => {
    const m = readManifest(ctx.config.dataDir);
    const rel = m.timetable?.path ?? null;
    if (!rel) {
      service = null;
      planService = null;
      loadedPath = null;
      return;
    }
    if (rel === loadedPath && service) return;
    const path = join(ctx.config.dataDir, rel);
    if (!existsSync(path)) {
      loadError = `timetable ${rel} is missing`;
      ctx.log.warn("planner timetable missing", { path });
      return;
    }
    const t0 = performance.now();
    const tt = loadTimetableFile(path);
    const plans = new PlanService(tt, realtime);
    service = new StreetPlanner(plans, streets);
    planService = plans;
    loadedPath = rel;
    loadError = null;
    ctx.log.info("planner timetable loaded", { path: rel, stops: tt.core.nStops, routes: tt.core.nRoutes, trips: tt.core.nTrips, ms: Math.round(performance.now() - t0) });
  };
  try {
    await load();
  } catch (e) {
    loadError = String(e);
    ctx.log.error("planner timetable failed to load", { error: loadError });
  }

  /** the port other APIs plan through (server/planning.ts): the same loaded service as the REST route */
  const planning: Planning = {
    plan(query) {
      const loaded = service;
      if (!loaded) return Promise.reject(new AppError("UNAVAILABLE", loadError ?? ""));
      return loaded.plan(query, ctx.now());
    },
    timeZoneAt: (lat, lon) => planService?.tzNear(lat, lon) ?? null,
    stopsWithin: (lat, lon, meters) => planService?.walkStops(lat, lon, meters, 1, false).length ?? null,
  };

  return {
    name: "planner",
    planning,
    routes: plannerRoutes(() => {
      const loaded = service;
      if (!loaded) throw new AppError("UNAVAILABLE", loadError ?? "");
      return (params) => loaded.plan(params, ctx.now());
    }, () => {
      // transit reachability (reachability.ts) over the same loaded timetable
      const loaded = planService;
      if (!loaded) throw new AppError("UNAVAILABLE", loadError ?? "");
      return (params) => reachabilityOf(loaded, streets).reach(params, ctx.now());
    }, () => {
      // travel times over a departure window (analysis/service.ts) over the same loaded timetable
      const loaded = planService;
      if (!loaded) throw new AppError("UNAVAILABLE", loadError ?? "no timetable loaded");
      return (req) => travelTimes(loaded, streets, req);
    }),
    errors: plannerErrors,
    reload: load,
    async close() {
      service = null;
      planService = null;
    },
    health: () => ({ timetable: loadedPath, loaded: service !== null, ...(loadError ? { error: loadError } : {}), ...(planService ? { realtime: planService.realtimeHealth() } : {}) }),
  };
}
