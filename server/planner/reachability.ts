/**
 * Transit reachability: GET /api/v2/routing/otp/reachability. From a point at a time, the earliest
 * arrival at every stop reachable within `maxTravelTime` minutes (access on foot or by bicycle,
 * rides, transfers), for isochrone-like maps of the transit network ("stops coloured by travel
 * time"). One forward RAPTOR iteration without a destination: the core's earliestArrivals
 * (raptor/index.ts, the same search behind the plan's includeEarliestArrivals), bounded by the
 * travel time, so it costs about one plan search.
 *
 * Access is the plan's (plan-service.ts, street-legs.ts): the stops within maxWalkDistance as the
 * crow flies, measured on the streets where a street network covers the origin (one matrix),
 * straight lines at walkSpeed otherwise. Parameters are zod schemas (the plan's own for the ones
 * the plan has, server/params.ts), a bad one is the planner's 400 BOGUS_PARAMETER naming it.
 * Rides follow the realtime trip updates served, as plans do (realtime.ts). No HTTP here:
 * routes.ts serves it.
 */
import { UNREACHED, type StopIdx, type StopWalk, type SearchQuery } from "./api.ts";
import { PLAN_PARAMS, DEFAULTS, LIMITS, TRANSIT_MODES, type Place } from "./plan-params.ts";
import { earliestArrivals } from "./raptor/index.ts";
import { dayToIso, localParts, localToUnix } from "./timetable/calendar.ts";
import type { PlanService } from "./plan-service.ts";
import { streetCandidates } from "./street-legs.ts";
import { scopedId } from "./ids.ts";
import { param, parseParams, reject, type ParamValues } from "../params.ts";
import { haversineM } from "../../shared/geo.ts";
import { invalidParameter } from "../errors.ts";
import type { StreetCost, StreetPaths } from "../street-paths.ts";

export const REACHABILITY_PATH = "/api/v2/routing/otp/reachability";

/** The longest travel time asked for, minutes. */
export const MAX_TRAVEL_TIME_MIN = 240;
/** Default travel time, minutes. */
export const DEFAULT_TRAVEL_TIME_MIN = 60;
/** Points farther than this from every stop reach nothing (the plan's OUTSIDE_BOUNDS margin). */
const OUTSIDE_M = 10_000;

const bounded = (name: string, dflt: number, min: number, max: number, integer: boolean, description: string) =>
  param({ type: integer ? "integer" : "number", minimum: min, maximum: max, default: dflt }, description, dflt, (raw, ctx) => {
    const n = Number(raw.trim());
    if (raw.trim() === "" || !Number.isFinite(n) || (integer && !Number.isInteger(n))) return reject(ctx, `${name} must be ${integer ? "an integer" : "a number"}, got ${JSON.stringify(raw)}`);
    if (n < min || n > max) return reject(ctx, `${name} must be between ${min} and ${max}, got ${n}`);
    return n;
  });

/** The endpoint's parameters, in validation order (the plan's schemas where the plan has the parameter). */
export const REACHABILITY_PARAMS = {
  fromPlace: PLAN_PARAMS.fromPlace,
  date: PLAN_PARAMS.date,
  time: PLAN_PARAMS.time,
  mode: PLAN_PARAMS.mode,
  maxTravelTime: bounded("maxTravelTime", DEFAULT_TRAVEL_TIME_MIN, 1, MAX_TRAVEL_TIME_MIN, true, `minutes from the departure: stops reached later are left out (1..${MAX_TRAVEL_TIME_MIN}, default ${DEFAULT_TRAVEL_TIME_MIN})`),
  maxWalkDistance: bounded("maxWalkDistance", DEFAULTS.maxWalkDistance, 0, LIMITS.maxWalkDistance, false, `meters walked (cycled) from fromPlace to the first stop (0..${LIMITS.maxWalkDistance}, default ${DEFAULTS.maxWalkDistance})`),
  walkSpeed: PLAN_PARAMS.walkSpeed,
  bikeSpeed: bounded("bikeSpeed", 5, 0.1, 50, false, "bicycle speed to the first stop, m/s, with mode BICYCLE,TRANSIT (default 5)"),
  maxTransfers: bounded("maxTransfers", DEFAULTS.maxTransfers, 0, LIMITS.maxTransfers, true, `transfers at most (0..${LIMITS.maxTransfers}, default ${DEFAULTS.maxTransfers})`),
  wheelchair: PLAN_PARAMS.wheelchair,
};

export interface ReachabilityParams {
  from: Place;
  date: number | null;
  timeSec: number | null;
  transitModes: Set<string> | null;
  streetMode: "WALK" | "BICYCLE";
  maxTravelTimeSec: number;
  maxWalkDistance: number;
  walkSpeed: number;
  bikeSpeed: number;
  maxTransfers: number;
  wheelchair: boolean;
}

/** Typed parameters of raw query values (empty = absent). Throws INVALID_PARAMETER naming the first bad one. */
export function parseReachabilityParams(q: Record<string, string | undefined>): ReachabilityParams {
  const v: ParamValues<typeof REACHABILITY_PARAMS> = parseParams(REACHABILITY_PARAMS, (name) => (q[name] === "" ? undefined : q[name]));
  const mode = v.mode ?? { walkOnly: false, transitModes: null, streetMode: "WALK" as const };
  if (mode.streetMode === "CAR") throw invalidParameter("mode", "mode CAR: reachability is of the transit network (park and ride is not available yet)");
  if (mode.walkOnly) throw invalidParameter("mode", `mode ${q.mode}: reachability is of the transit network; give TRANSIT or transit modes (${TRANSIT_MODES.join(", ")}), with WALK or BICYCLE`);
  return {
    from: v.fromPlace,
    date: v.date,
    timeSec: v.time,
    transitModes: mode.transitModes,
    streetMode: mode.streetMode,
    maxTravelTimeSec: v.maxTravelTime * 60,
    maxWalkDistance: v.maxWalkDistance,
    walkSpeed: v.walkSpeed,
    bikeSpeed: v.bikeSpeed,
    maxTransfers: v.maxTransfers,
    wheelchair: v.wheelchair,
  };
}

/** One stop reached. */
export interface ReachedStop {
  /** feed-scoped stop id, as the plan writes it (`feedId:stop_id`) */
  stopId: string;
  stopOnestopId: string;
  stopName: string;
  stopCode?: string;
  lat: number;
  lon: number;
  /** earliest arrival, ms since epoch (as the plan's times) */
  arrival: number;
  /** seconds from the departure */
  travelTime: number;
}

export interface ReachabilityAnswer {
  from: Place;
  /** the departure, ms since epoch */
  departure: number;
  /** local date and time of the departure, and the time zone they are in (the agency's nearest fromPlace) */
  date: string;
  time: string;
  timeZone: string;
  maxTravelTime: number;
  /** whether access was measured on the streets */
  streetNetwork: boolean;
  /** why nothing is reached, when nothing can be: OUTSIDE_BOUNDS, NO_TRANSIT_TIMES */
  error?: string;
  /** by travel time */
  stops: ReachedStop[];
}

const hms = (s: number) => [Math.floor(s / 3600), Math.floor(s / 60) % 60, s % 60].map((x) => String(x).padStart(2, "0")).join(":");

/**
 * The reachability of the loaded timetable: `service` is the plan service (its prepared timetable,
 * pool and stop search), `streets` the street paths for access on the streets.
 */
export class Reachability {
  /** the service days a search sees (the plan service's: yesterday, today, tomorrow, and earlier days for trips past 48:00) */
  private readonly dayDeltas: number[];
  constructor(
    private readonly service: PlanService,
    private readonly streets: StreetPaths,
  ) {
    this.dayDeltas = service.dayDeltas;
  }

  /** `streets`: the street paths of this request (StreetPaths.forAccount); the service's own by default. */
  async reach(p: ReachabilityParams, nowMs: number, streets: StreetPaths = this.streets): Promise<ReachabilityAnswer> {
    const tt = this.service.tt;
    const m = tt.meta;
    const tz = this.service.tzNear(p.from.lat, p.from.lon);
    const nowSec = Math.floor(nowMs / 1000);
    const today = localParts(nowSec, tz);
    const day = p.date ?? today.day;
    const timeUnix = p.timeSec === null && p.date === null ? nowSec : localToUnix(day, p.timeSec ?? today.sec, tz);
    const local = localParts(timeUnix, tz);
    const answer: ReachabilityAnswer = {
      from: p.from, departure: timeUnix * 1000, date: dayToIso(local.day), time: hms(local.sec), timeZone: tz,
      maxTravelTime: p.maxTravelTimeSec / 60, streetNetwork: false, stops: [],
    };
    let nearest = Infinity;
    for (let s = 0; s < m.stopLat.length; s++) nearest = Math.min(nearest, haversineM(p.from.lat, p.from.lon, m.stopLat[s]!, m.stopLon[s]!));
    if (nearest > OUTSIDE_M) return { ...answer, error: "OUTSIDE_BOUNDS" };
    const backDays = -this.dayDeltas[0]!;
    if (!m.feeds.some((_, f) => local.day >= m.feedStartDay[f]! - 1 && local.day <= m.feedEndDay[f]! + backDays)) return { ...answer, error: "NO_TRANSIT_TIMES" };

    const speed = p.streetMode === "BICYCLE" ? p.bikeSpeed : p.walkSpeed;
    const crow = this.service.walkStops(p.from.lat, p.from.lon, p.maxWalkDistance, speed, p.wheelchair);
    let access: StopWalk[] = crow;
    if (streets.available() && crow.length) {
      const candidates = streetCandidates(tt.core, crow);
      const cost: StreetCost = p.streetMode === "BICYCLE" ? { mode: "BICYCLE", speedMps: p.bikeSpeed } : { mode: "WALK", speedMps: p.walkSpeed, wheelchair: p.wheelchair };
      const reached = await streets.reach(p.from, candidates.map((c) => ({ lat: m.stopLat[c.stop]!, lon: m.stopLon[c.stop]! })), cost, "from");
      if (reached) {
        answer.streetNetwork = true;
        access = [];
        candidates.forEach((c, i) => {
          const r = reached[i];
          if (r && r.meters <= p.maxWalkDistance) access.push({ stop: c.stop as StopIdx, walkSec: r.sec });
        });
      }
    }
    access = access.filter((a) => a.walkSec <= p.maxTravelTimeSec);
    if (!access.length) return answer;

    const epochSec = timeUnix - (this.dayDeltas.length - 1) * 86400;
    const q: SearchQuery = {
      epochSec,
      timeSec: timeUnix - epochSec,
      arriveBy: false,
      windowSec: 0,
      horizonSec: p.maxTravelTimeSec,
      access,
      egress: [],
      maxTransfers: p.maxTransfers,
      walkSpeed: p.walkSpeed,
      // on the realtime times of the trip updates served, as plans are (realtime.ts)
      days: this.service.searchDays(epochSec, timeUnix, this.service.appliedUpdates(nowMs)),
      routeAllowed: this.service.routeFilter(p.transitModes),
      wheelchair: p.wheelchair,
    };
    const arr = earliestArrivals(this.service.prepared, q, this.service.pool);
    const feedIds = m.feeds.map((f) => f.onestopId);
    for (let s = 0; s < arr.length; s++) {
      const t = arr[s]!;
      if (t >= UNREACHED) continue;
      const travel = t - q.timeSec;
      if (travel > p.maxTravelTimeSec) continue;
      const stop: ReachedStop = {
        stopId: scopedId(feedIds[m.stopFeed[s]!] ?? "", m.stopId[s]!),
        stopOnestopId: m.stopOnestopId[s] ?? "",
        stopName: m.stopName[s] ?? "",
        lat: m.stopLat[s]!,
        lon: m.stopLon[s]!,
        arrival: (epochSec + t) * 1000,
        travelTime: travel,
      };
      if (m.stopCode[s]) stop.stopCode = m.stopCode[s];
      answer.stops.push(stop);
    }
    answer.stops.sort((a, b) => a.travelTime - b.travelTime || a.stopId.localeCompare(b.stopId));
    return answer;
  }
}

const byService = new WeakMap<PlanService, Reachability>();
/** The reachability of a loaded plan service (one per timetable load, kept with it). */
export function reachabilityOf(service: PlanService, streets: StreetPaths): Reachability {
  let r = byService.get(service);
  if (!r) byService.set(service, (r = new Reachability(service, streets)));
  return r;
}
