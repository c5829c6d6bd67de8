/**
 * The street parts of a plan, from the street engine through the StreetPaths port
 * (server/street-paths.ts), with straight lines where the streets do not reach. `StreetPlanner`
 * wraps the PlanService (which stays synchronous and engine-free):
 *
 * 1. before the search, one one-to-many matrix from the origin (and one to the destination)
 *    measures on foot the stops within maxWalkDistance as the crow flies (a street walk is never
 *    shorter): a stop farther than maxWalkDistance on foot, or one the streets do not connect, is
 *    no access (egress) stop; when the origin (destination) is off the street network, every stop
 *    keeps its straight-line walk. At the same time the engine's route between the two places
 *    measures walking (riding, driving) all the way, where that can be offered;
 * 2. the PlanService plans with those walks (and walking all the way takes the route's time; the
 *    walk-only itinerary is then drawn with that same route);
 * 3. each street leg of the plan's itineraries (model.ts StreetLeg) is drawn along the streets,
 *    before anything is rendered: geometry, distance, OTP1 WalkSteps and elevation; its duration
 *    stays the time the search budgeted for it. Transfers were measured on the streets at import
 *    (their footpaths).
 *
 * Each street leg says how it was drawn (`onStreets`), and the plan whether a street network
 * answered (`streetNetwork`).
 */
import type { StopIdx, StopWalk } from "./api.ts";
import { failedPlan, type Itinerary, type PlanResult, type StreetLeg } from "./model.ts";
import type { PlanParams } from "./plan-params.ts";
import { walkOnlyCap, type PlanService, type StreetInputs } from "./plan-service.ts";
import { haversineM } from "../../shared/geo.ts";
import { AppError } from "../errors.ts";
import type { LatLon, StreetCost, StreetPath, StreetPaths } from "../street-paths.ts";

/** The nearest stops (as the crow flies) always measured on the streets. */
const NEAREST_STOPS = 40;
/** Beyond those, the nearest stop of each route not yet reached, up to this share of the walk radius. */
const ROUTE_STOP_SHARE = 0.5;

/**
 * The access (egress) candidates worth a street measurement where stops are dense: the
 * NEAREST_STOPS nearest, and the nearest stop of every route not yet among them within
 * ROUTE_STOP_SHARE of the radius (as the crow flies). A farther stop of a route reached nearer
 * seldom helps, and the engine's one-to-many search grows with its farthest target: the 166 stops
 * within 1609 m of Mannheim's station took 79 ms, the 40 nearest 20 ms (AMD EPYC, loaded host).
 */
export function streetCandidates(core: { stopRouteStart: Int32Array; stopRouteRoute: Int32Array }, candidates: StopWalk[]): StopWalk[] {
  if (candidates.length <= NEAREST_STOPS) return candidates;
  const sorted = [...candidates].sort((a, b) => a.walkSec - b.walkSec);
  const farthest = ROUTE_STOP_SHARE * sorted[sorted.length - 1]!.walkSec;
  const seen = new Set<number>();
  const out: StopWalk[] = [];
  for (const [i, c] of sorted.entries()) {
    let newRoute = false;
    for (let k = core.stopRouteStart[c.stop]!; k < core.stopRouteStart[c.stop + 1]!; k++) {
      const r = core.stopRouteRoute[k]!;
      if (!seen.has(r)) {
        seen.add(r);
        newRoute = true;
      }
    }
    if (i < NEAREST_STOPS || (newRoute && c.walkSec <= farthest)) out.push(c);
  }
  return out;
}

/** The street cost of a plan's walks (transfers, and access and egress when the plan walks). */
const walkCost = (p: PlanParams): StreetCost => ({ mode: "WALK", speedMps: p.walkSpeed, wheelchair: p.wheelchair });

/** The street cost of access, egress and the street-only itinerary: the plan's street mode. */
function accessCost(p: PlanParams): StreetCost {
  if (p.streetMode === "BICYCLE") return { mode: "BICYCLE", speedMps: p.bikeSpeed, ...(p.bikeTriangle ? { triangle: p.bikeTriangle } : {}) };
  if (p.streetMode === "CAR") return { mode: "CAR" };
  return walkCost(p);
}

/**
 * Access (`direction` "from": place to stops) or egress ("to": stops to place) walks: the
 * straight-line `candidates` measured on the streets. Null when the place is off the streets.
 * (The other end of the trip is not among the targets: the one-to-many search grows with its
 * farthest target, and a destination 5 km away tripled its time. Walking all the way is the
 * engine's route instead, see StreetPlanner.plan.)
 */
async function measure(
  streets: StreetPaths, place: LatLon, candidates: StopWalk[], meta: { stopLat: Float64Array; stopLon: Float64Array }, cost: StreetCost, maxWalkM: number, direction: "from" | "to",
): Promise<StopWalk[] | null> {
  if (candidates.length === 0) return [];
  const points = candidates.map((c) => ({ lat: meta.stopLat[c.stop]!, lon: meta.stopLon[c.stop]! }));
  const reached = await streets.reach(place, points, cost, direction);
  if (!reached) return null;
  const walks: StopWalk[] = [];
  candidates.forEach((c, i) => {
    const r = reached[i];
    if (r && r.meters <= maxWalkM) walks.push({ stop: c.stop as StopIdx, walkSec: r.sec });
  });
  return walks;
}

export class StreetPlanner {
  constructor(
    private readonly service: PlanService,
    private readonly streets: StreetPaths,
  ) {}

  /** `streets`: the street paths of this request (StreetPaths.forAccount: its account's calls); the planner's own by default. */
  async plan(p: PlanParams, nowMs: number, streets: StreetPaths = this.streets): Promise<PlanResult> {
    const mode = p.streetMode;
    if (!streets.available()) {
      // a bicycle or a car on straight lines would be a guess: refused, never replaced by walking
      if (mode !== "WALK") throw new AppError("INVALID_PARAMETER", `mode ${mode}: ${mode === "CAR" ? "car" : "bicycle"} legs need a street network, and none is loaded (import one with interchange import --osm FILE.osm.pbf)`, { parameter: "mode" });
      return this.withNetwork(this.service.plan(p, nowMs), false);
    }
    const cost = accessCost(p);
    const speed = mode === "BICYCLE" ? p.bikeSpeed : p.walkSpeed;
    const meta = this.service.tt.meta;
    const inputs: StreetInputs = {};
    // candidates within maxWalkDistance as the crow flies (OTP1's limit on walking or cycling to transit)
    const core = this.service.tt.core;
    const access = p.walkOnly ? [] : streetCandidates(core, this.service.walkStops(p.from.lat, p.from.lon, p.maxWalkDistance, speed, p.wheelchair));
    const egress = p.walkOnly ? [] : streetCandidates(core, this.service.walkStops(p.to.lat, p.to.lon, p.maxWalkDistance, speed, p.wheelchair));
    // one engine route per distinct leg: itineraries share their walks to and from the same stops,
    // and walking (riding, driving) all the way is the route the plan measured it with
    const paths = new Map<string, Promise<StreetPath | null>>();
    const path = (from: LatLon, to: LatLon, c: StreetCost) => {
      const key = `${from.lat},${from.lon}|${to.lat},${to.lon}|${c.mode}`;
      let v = paths.get(key);
      if (!v) paths.set(key, (v = streets.path(from, to, c)));
      return v;
    };
    // all the way on the streets: measured only where it can be offered (a street walk is never
    // shorter than the straight line, so one beyond the walk-only cap is not asked for)
    const directM = haversineM(p.from.lat, p.from.lon, p.to.lat, p.to.lon);
    const wantDirect = mode !== "WALK" || directM <= walkOnlyCap(p);
    const [accessWalks, egressWalks, direct] = await Promise.all([
      p.walkOnly ? Promise.resolve(null) : measure(streets, p.from, access, meta, cost, p.maxWalkDistance, "from"),
      p.walkOnly ? Promise.resolve(null) : measure(streets, p.to, egress, meta, cost, p.maxWalkDistance, "to"),
      wantDirect ? path(p.from, p.to, cost) : Promise.resolve(null),
    ]);
    if (accessWalks) inputs.access = accessWalks;
    if (egressWalks) inputs.egress = egressWalks;
    if (direct) inputs.direct = { sec: direct.sec, meters: direct.meters };
    if (mode === "BICYCLE") {
      // off the streets, the bicycle goes in a straight line at bikeSpeed (never at walking speed)
      inputs.access ??= access;
      inputs.egress ??= egress;
    }
    if (mode !== "WALK" && p.walkOnly && !inputs.direct) {
      // no ride or drive on the streets between the two places
      return failedPlan(p, this.service.tt, { kind: "PATH_NOT_FOUND", detail: `no ${mode === "CAR" ? "drive" : "bicycle route"} on the streets between these places` });
    }
    const body = this.service.plan(p, nowMs, inputs);
    await Promise.all(body.itineraries.map((it) => this.drawStreetLegs(it, p, path)));
    return this.withNetwork(body, true);
  }

  private withNetwork(body: PlanResult, network: boolean): PlanResult {
    if (body.itineraries.length) body.streetNetwork = network;
    return body;
  }

  /**
   * Street legs along the streets (those the streets reach). With a bicycle or a car, the legs to
   * the first ride and from the last one (or the only leg) take that mode; transfers are walked.
   */
  private async drawStreetLegs(it: Itinerary, p: PlanParams, path: (from: LatLon, to: LatLon, c: StreetCost) => Promise<StreetPath | null>): Promise<void> {
    const walks = it.legs.filter((l): l is StreetLeg => l.kind === "street");
    const costs = walks.map((l) => {
      const i = it.legs.indexOf(l);
      const end = i === 0 || i === it.legs.length - 1;
      if (end && p.streetMode !== "WALK") l.mode = p.streetMode;
      return end ? accessCost(p) : walkCost(p);
    });
    const drawn = await Promise.all(walks.map((l, i) => path({ lat: l.from.lat, lon: l.from.lon }, { lat: l.to.lat, lon: l.to.lon }, costs[i]!)));
    walks.forEach((l, i) => {
      const path = drawn[i];
      l.onStreets = path !== null;
      if (!path) return;
      l.geometry = path.points;
      l.distanceM = path.meters;
      l.steps = path.steps;
      l.elevationGainedM = path.elevationGained;
      l.elevationLostM = path.elevationLost;
    });
  }
}
