/**
 * The plan service: typed OTP1 parameters (plan-params.ts) in, OTP-style PlanResponse out. Resolves
 * places to access and egress stops (straight-line walks within maxWalkDistance), runs the RAPTOR
 * core, and renders itineraries (README, "Transit planner"). A plan that finds nothing is still an
 * answer (its `error` says why, as OTP does). No HTTP here: routes.ts parses the request, renders
 * the response and, with its error renderer, the OTP bodies of a bad parameter or a missing timetable.
 */
import { UNREACHED, type Journey, type StopIdx, type StopWalk } from "./api.ts";
import { type Place, type PlanParams, modeOfRouteType } from "./plan-params.ts";
import { RaptorStatePool, earliestArrivals, nonDominated, prepare, searchJourneys, type Prepared, type SearchQuery } from "./raptor/index.ts";
import { buildServiceDays, localParts, localToUnix } from "./timetable/calendar.ts";
import { reverseCore } from "./timetable/reverse.ts";
import type { Timetable } from "./timetable/types.ts";
import { renderItinerary, type Itinerary } from "./itinerary.ts";
import { dayToIso } from "../calendar.ts";
import { haversineM } from "../geo.ts";

export interface OtpError {
  id: number;
  msg: string;
  message: OtpErrorName;
  noPath: boolean;
  missing?: string[];
}

/** OTP's answer: the plan (absent when the request could not be planned at all) and why nothing was found. */
export interface PlanResponse {
  plan?: { date: number; from: Place; to: Place; itineraries: Itinerary[] };
  earliestArrivals?: Record<string, unknown>[];
  error?: OtpError;
}

const ERRORS = {
  PATH_NOT_FOUND: [404, "No trip found. There may be no transit service within the maximum specified distance or at the specified time, or your start or end point might not be safely accessible."],
  OUTSIDE_BOUNDS: [400, "Trip is not possible. Your start or end point might be outside the area covered by the loaded transit data."],
  NO_TRANSIT_TIMES: [406, "No transit times available. The date may be past or too far in the future, or there may not be transit service for your trip at the time you chose."],
  BOGUS_PARAMETER: [413, "There was a problem with a request parameter."],
  GRAPH_UNAVAILABLE: [503, "The planner's timetable is not loaded yet (no feeds imported, or the timetable is being compiled)."],
} satisfies Record<string, [number, string]>;
export type OtpErrorName = keyof typeof ERRORS;

/** OTP's error object: its id and text, with `detail` in parentheses. */
export function otpError(message: OtpErrorName, detail?: string, missing?: string[]): OtpError {
  const [id, msg] = ERRORS[message];
  const error: OtpError = { id, msg: detail ? `${msg} (${detail})` : msg, message, noPath: true };
  if (missing) error.missing = missing;
  return error;
}

/** Points farther than this from the timetable's bounding box are OUTSIDE_BOUNDS. */
const BOUNDS_MARGIN_M = 10_000;
/** A walk-only itinerary is offered up to this distance (or maxWalkDistance, if larger). */
export const WALK_ONLY_MAX_M = 5_000;
/** How far past the requested time a search looks. */
const HORIZON_SEC = 24 * 3600;

export class PlanService {
  readonly pool = new RaptorStatePool();
  /** what the RAPTOR core derives from the timetable, prepared once at load and passed to every search */
  readonly prepared: Prepared;
  private readonly bbox: [number, number, number, number];
  private readonly tz: string;
  /**
   * Service days searched, relative to the request's local date: yesterday, today, tomorrow, and
   * earlier days when trips run past 48:00 (a trip at 49:10 of a service day runs two days later).
   */
  private readonly dayDeltas: number[];

  constructor(readonly tt: Timetable) {
    let [s, w, n, e] = [90, 180, -90, -180];
    const { stopLat, stopLon } = tt.meta;
    for (let i = 0; i < stopLat.length; i++) {
      s = Math.min(s, stopLat[i]!);
      n = Math.max(n, stopLat[i]!);
      w = Math.min(w, stopLon[i]!);
      e = Math.max(e, stopLon[i]!);
    }
    this.bbox = [s, w, n, e];
    this.tz = tt.meta.timezones[0] ?? "UTC";
    let maxArr = 0;
    for (let r = 0; r < tt.core.nRoutes; r++) maxArr = Math.max(maxArr, tt.core.routeMaxArrSec[r]!);
    const back = Math.max(1, Math.floor(maxArr / 86400));
    this.dayDeltas = Array.from({ length: back + 2 }, (_, i) => i - back);
    this.prepared = prepare(this.cores());
  }

  cores() {
    const tt = this.tt;
    return { forward: tt.core, backward: () => (tt.reversed ??= reverseCore(tt.core)) };
  }

  /** Stops within maxDist meters of a point, with walking seconds. */
  walkStops(lat: number, lon: number, maxDist: number, speed: number, wheelchair: boolean): StopWalk[] {
    const { stopLat, stopLon } = this.tt.meta;
    const out: StopWalk[] = [];
    const dLat = maxDist / 111_000 + 1e-9;
    const dLon = dLat / Math.max(0.05, Math.cos((lat * Math.PI) / 180));
    for (let i = 0; i < stopLat.length; i++) {
      const la = stopLat[i]!, lo = stopLon[i]!;
      if (Math.abs(la - lat) > dLat || Math.abs(lo - lon) > dLon) continue;
      if (wheelchair && this.tt.core.stopWheelchair[i] === 2) continue;
      const d = haversineM(lat, lon, la, lo);
      if (d <= maxDist) out.push({ stop: i as StopIdx, walkSec: Math.ceil(d / speed) });
    }
    return out;
  }

  private outside(lat: number, lon: number): boolean {
    const [s, w, n, e] = this.bbox;
    const cLat = Math.min(Math.max(lat, s), n), cLon = Math.min(Math.max(lon, w), e);
    return haversineM(lat, lon, cLat, cLon) > BOUNDS_MARGIN_M;
  }

  /** Answer a plan request at `nowMs` (the time and date default to now). */
  plan(p: PlanParams, nowMs: number): PlanResponse {
    const tz = this.tzNear(p.from.lat, p.from.lon);
    const nowSec = Math.floor(nowMs / 1000);
    const today = localParts(nowSec, tz);
    const day = p.date ?? today.day;
    const timeUnix = p.timeSec === null && p.date === null ? nowSec : localToUnix(day, p.timeSec ?? today.sec, tz);
    const plan: NonNullable<PlanResponse["plan"]> = {
      date: timeUnix * 1000,
      from: { name: p.from.name, lat: p.from.lat, lon: p.from.lon },
      to: { name: p.to.name, lat: p.to.lat, lon: p.to.lon },
      itineraries: [],
    };
    const missing = [...(this.outside(p.from.lat, p.from.lon) ? ["from"] : []), ...(this.outside(p.to.lat, p.to.lon) ? ["to"] : [])];
    if (missing.length) return { error: otpError("OUTSIDE_BOUNDS", undefined, missing) };
    const localDay = localParts(timeUnix, tz).day;
    // a feed's trips run up to (days back searched) days after its last service day
    const backDays = -this.dayDeltas[0]!;
    const inService = this.tt.meta.feeds.some((_, f) => localDay >= this.tt.meta.feedStartDay[f]! - 1 && localDay <= this.tt.meta.feedEndDay[f]! + backDays);
    if (!inService && !p.walkOnly) return { error: otpError("NO_TRANSIT_TIMES", `no feed has service on ${dayToIso(localDay)}`) };

    const epochSec = timeUnix - (this.dayDeltas.length - 1) * 86400;
    const directM = haversineM(p.from.lat, p.from.lon, p.to.lat, p.to.lon);
    const walkDirectSec = Math.ceil(directM / p.walkSpeed);
    const itineraries: Itinerary[] = [];
    let earliest: Record<string, unknown>[] | undefined;
    if (!p.walkOnly) {
      const access = this.walkStops(p.from.lat, p.from.lon, p.maxWalkDistance, p.walkSpeed, p.wheelchair);
      const egress = this.walkStops(p.to.lat, p.to.lon, p.maxWalkDistance, p.walkSpeed, p.wheelchair);
      const q: SearchQuery = {
        epochSec,
        timeSec: timeUnix - epochSec,
        arriveBy: p.arriveBy,
        windowSec: p.searchWindow,
        horizonSec: HORIZON_SEC,
        access,
        egress,
        maxTransfers: p.maxTransfers,
        walkSpeed: p.walkSpeed,
        days: buildServiceDays(this.tt, epochSec, timeUnix, this.dayDeltas),
        routeAllowed: this.routeFilter(p.transitModes),
        wheelchair: p.wheelchair,
        // selectJourneys keeps the numItineraries earliest arrivals (latest departures for arriveBy)
        keepEarliest: p.numItineraries,
      };
      if (access.length && egress.length) {
        const res = searchJourneys(this.prepared, q, this.pool);
        const chosen = selectJourneys(res.journeys, p.numItineraries, p.arriveBy, { timeSec: q.timeSec, windowSec: q.windowSec });
        for (const j of chosen) itineraries.push(renderItinerary(this.tt, j, epochSec, p, q.days));
      }
      if (p.includeEarliestArrivals) earliest = this.earliest({ ...q, arriveBy: false, timeSec: timeUnix - epochSec }, epochSec);
    }
    // walk-only: when asked for, when walking beats the best transit itinerary, or when transit finds nothing
    const walkCap = Math.max(WALK_ONLY_MAX_M, p.maxWalkDistance);
    const bestTransitSec = itineraries.length ? Math.min(...itineraries.map((i) => i.duration)) : Infinity;
    if ((p.walkOnly || walkDirectSec < bestTransitSec || itineraries.length === 0) && directM <= walkCap) {
      const start = p.arriveBy ? timeUnix - walkDirectSec : timeUnix;
      const walk = renderItinerary(this.tt, null, 0, p, null, { startSec: start, durationSec: walkDirectSec, distanceM: directM });
      if (walkDirectSec < bestTransitSec) itineraries.unshift(walk);
      else itineraries.push(walk);
      if (itineraries.length > p.numItineraries) itineraries.pop();
    }
    plan.itineraries = itineraries;
    const body: PlanResponse = { plan };
    if (earliest) body.earliestArrivals = earliest;
    if (itineraries.length === 0) body.error = otpError("PATH_NOT_FOUND");
    return body;
  }

  /**
   * Timezone of the agency of the stop nearest to a point: the agency of a route serving that stop
   * (a feed may hold agencies in several timezones), else the feed's first agency, else the
   * dataset's first timezone.
   */
  private tzNear(lat: number, lon: number): string {
    const { stopLat, stopLon, stopFeed, agencies, timezones } = this.tt.meta;
    const { stopRouteStart, stopRouteRoute, routeTz } = this.tt.core;
    let best = -1, bestD = Infinity, served = -1, servedD = Infinity;
    for (let i = 0; i < stopLat.length; i++) {
      const d = (stopLat[i]! - lat) ** 2 + (stopLon[i]! - lon) ** 2;
      if (d < bestD) {
        bestD = d;
        best = i;
      }
      if (d < servedD && stopRouteStart[i + 1]! > stopRouteStart[i]!) {
        servedD = d;
        served = i;
      }
    }
    if (best < 0) return this.tz;
    if (served >= 0 && stopFeed[served] === stopFeed[best]) return timezones[routeTz[stopRouteRoute[stopRouteStart[served]!]!]!] ?? this.tz;
    const a = agencies.find((ag) => ag.feed === stopFeed[best]);
    return a ? (timezones[a.tz] ?? this.tz) : this.tz;
  }

  routeFilter(modes: Set<string> | null): Uint8Array | undefined {
    if (!modes) return undefined;
    const allowed = new Uint8Array(this.tt.core.nRoutes);
    const family: Record<string, string> = { TROLLEYBUS: "BUS", COACH: "BUS", MONORAIL: "RAIL" };
    for (let r = 0; r < allowed.length; r++) {
      const m = modeOfRouteType(this.tt.meta.routeType[r]!);
      allowed[r] = modes.has(m) || modes.has(family[m] ?? "") ? 1 : 0;
    }
    return allowed;
  }

  private earliest(q: SearchQuery, epochSec: number): Record<string, unknown>[] {
    const arr = earliestArrivals(this.prepared, q, this.pool);
    const m = this.tt.meta;
    const out: Record<string, unknown>[] = [];
    for (let s = 0; s < arr.length; s++) {
      if (arr[s]! >= UNREACHED) continue;
      const e: Record<string, unknown> = { earliestArrival: epochSec + arr[s]!, lat: m.stopLat[s], lon: m.stopLon[s], stopId: m.stopId[s], stopName: m.stopName[s] };
      if (m.stopCode[s]) e.stop_code = m.stopCode[s];
      out.push(e);
    }
    out.sort((a, b) => (a.earliestArrival as number) - (b.earliestArrival as number));
    return out;
  }
}

/**
 * Best first: by arrival (departure, latest first, for arriveBy), then fewer rides. Dominated
 * journeys (leave no later, arrive no earlier, no fewer rides than another) are dropped.
 *
 * With `window` (the request's time and searchWindow, seconds from epochSec), a journey that
 * actually leaves after the window's end (arriveBy: arrives before its start) is dropped unless it
 * is the best one: a range iteration from a departure inside the window can end up waiting for a
 * trip of the next service day (the previous one for arriveBy), which is not an answer in the window.
 */
export function selectJourneys(js: Journey[], n: number, arriveBy: boolean, window?: { timeSec: number; windowSec: number }): Journey[] {
  const keep = nonDominated(js);
  keep.sort((a, b) => (arriveBy ? b.departSec - a.departSec : a.arriveSec - b.arriveSec) || a.rides - b.rides || (arriveBy ? a.arriveSec - b.arriveSec : b.departSec - a.departSec));
  if (!window) return keep.slice(0, n);
  const leaves = (j: Journey) => j.legs[0]?.depSec ?? j.departSec;
  const arrives = (j: Journey) => j.legs[j.legs.length - 1]?.arrSec ?? j.arriveSec;
  return keep.filter((j, i) => i === 0 || (arriveBy ? arrives(j) >= window.timeSec - window.windowSec : leaves(j) <= window.timeSec + window.windowSec)).slice(0, n);
}
