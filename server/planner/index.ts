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
import { reachabilityOf, type ReachabilityAnswer, type ReachabilityParams } from "./reachability.ts";
import { travelTimes, type TravelTimesAnswer, type TravelTimesRequest } from "./analysis/service.ts";
import type { PlanParams } from "./plan-params.ts";
import type { PlanResult } from "./model.ts";
import { NO_STREETS, type StreetPaths } from "../street-paths.ts";
import { NO_REALTIME, type PlannerRealtime } from "./realtime.ts";
import type { Planning } from "../planning.ts";

/**
 * The timetable named by manifest.timetable, loaded into a plan service (behind the street layer,
 * street-legs.ts); loaded again only when the manifest names another file. Without one, or after a
 * failed load, the services it gives throw UNAVAILABLE with the reason.
 */
class LoadedTimetable {
  /** the loaded timetable's plan service, behind the street layer (street-legs.ts) */
  service: StreetPlanner | null = null;
  planService: PlanService | null = null;
  loadedPath: string | null = null;
  loadError: string | null = null;

  constructor(private readonly ctx: FeatureContext, private readonly streets: StreetPaths, private readonly realtime: PlannerRealtime) {}

  /** Load the manifest's timetable if it is not the one loaded (a missing file keeps the loaded one). */
  async load(): Promise<void> {
    const { ctx } = this;
    const m = readManifest(ctx.config.dataDir);
    const rel = m.timetable?.path ?? null;
    if (!rel) {
      this.service = null;
      this.planService = null;
      this.loadedPath = null;
      return;
    }
    if (rel === this.loadedPath && this.service) return;
    const path = join(ctx.config.dataDir, rel);
    if (!existsSync(path)) {
      this.loadError = `timetable ${rel} is missing`;
      ctx.log.warn("planner timetable missing", { path });
      return;
    }
    const t0 = performance.now();
    const tt = loadTimetableFile(path);
    const plans = new PlanService(tt, this.realtime);
    this.service = new StreetPlanner(plans, this.streets);
    this.planService = plans;
    this.loadedPath = rel;
    this.loadError = null;
    ctx.log.info("planner timetable loaded", { path: rel, stops: tt.core.nStops, routes: tt.core.nRoutes, trips: tt.core.nTrips, ms: Math.round(performance.now() - t0) });
  }

  /** The plan function of the loaded timetable (plannerRoutes' `planner`). */
  planner(): (params: PlanParams, account?: string) => Promise<PlanResult> {
    const loaded = this.service;
    if (!loaded) throw new AppError("UNAVAILABLE", this.loadError ?? "");
    return (params, account) => loaded.plan(params, this.ctx.now(), this.streets.forAccount(account));
  }

  /** Transit reachability (reachability.ts) over the same loaded timetable. */
  reachability(): (params: ReachabilityParams, account?: string) => Promise<ReachabilityAnswer> {
    const loaded = this.planService;
    if (!loaded) throw new AppError("UNAVAILABLE", this.loadError ?? "");
    return (params, account) => reachabilityOf(loaded, this.streets).reach(params, this.ctx.now(), this.streets.forAccount(account));
  }

  /** Travel times over a departure window (analysis/service.ts) over the same loaded timetable. */
  analysis(): (req: TravelTimesRequest, account?: string) => Promise<TravelTimesAnswer> {
    const loaded = this.planService;
    if (!loaded) throw new AppError("UNAVAILABLE", this.loadError ?? "no timetable loaded");
    return (req, account) => travelTimes(loaded, this.streets.forAccount(account), req);
  }

  /** The port other APIs plan through (server/planning.ts): the same loaded service as the REST route. */
  planning(): Planning {
    return {
      plan: (query, account) => {
        const loaded = this.service;
        if (!loaded) return Promise.reject(new AppError("UNAVAILABLE", this.loadError ?? ""));
        return loaded.plan(query, this.ctx.now(), this.streets.forAccount(account));
      },
      timeZoneAt: (lat, lon) => this.planService?.tzNear(lat, lon) ?? null,
      stopsWithin: (lat, lon, meters) => this.planService?.walkStops(lat, lon, meters, 1, false).length ?? null,
    };
  }
}

/**
 * `streets`: the street engine's paths (server/main.ts hands the street feature's over), for walks
 * on the streets; `realtime`: the trip updates and alerts served (the realtime feature's), for
 * plans on realtime times with leg alerts (realtime.ts); `accountOf`: the API key's account of a
 * request, whose street calls the engine serves in turn with other accounts'.
 */
export async function createPlannerFeature(
  ctx: FeatureContext,
  streets: StreetPaths = NO_STREETS,
  realtime: PlannerRealtime = NO_REALTIME,
  accountOf: (request: Request) => string | undefined = () => undefined,
): Promise<Feature & { planning: Planning }> {
  const timetable = new LoadedTimetable(ctx, streets, realtime);
  try {
    await timetable.load();
  } catch (e) {
    timetable.loadError = String(e);
    ctx.log.error("planner timetable failed to load", { error: timetable.loadError });
  }
  return {
    name: "planner",
    planning: timetable.planning(),
    routes: plannerRoutes(() => timetable.planner(), () => timetable.reachability(), () => timetable.analysis(), accountOf),
    errors: plannerErrors,
    reload: () => timetable.load(),
    async close() {
      timetable.service = null;
      timetable.planService = null;
    },
    health: () => ({
      timetable: timetable.loadedPath,
      loaded: timetable.service !== null,
      ...(timetable.loadError ? { error: timetable.loadError } : {}),
      ...(timetable.planService ? { realtime: timetable.planService.realtimeHealth() } : {}),
    }),
  };
}
