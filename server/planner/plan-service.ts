/**
 * The plan service: a typed query (plan-params.ts) in, the plan model's PlanResult (model.ts) out. Resolves
 * places to access and egress stops (the walks street-legs.ts measured on the streets, else straight
 * lines within maxWalkDistance), runs the RAPTOR
 * core (widening the search until numItineraries are found, as OTP1's GraphPathFinder repeats its
 * searches), drops dominated itineraries (loops, rides that walking beats) and makes the rest model
 * itineraries (itinerary.ts; README, "Transit planner"). A plan that finds nothing is still an
 * answer: no itineraries, a typed error saying why. No HTTP and no wire format here: routes.ts
 * parses the request and renders the result with otp1/.
 */
import { UNREACHED, type Journey, type StopIdx, type StopWalk } from "./api.ts";
import { type PlanParams, modeOfRouteType } from "./plan-params.ts";
import { RaptorStatePool, earliestArrivals, nonDominated, prepare, searchJourneys, type Prepared, type SearchQuery } from "./raptor/index.ts";
import { buildServiceDays, localParts, localToUnix } from "./timetable/calendar.ts";
import { reverseCore } from "./timetable/reverse.ts";
import type { Timetable } from "./timetable/types.ts";
import { directItinerary, journeyItinerary, type LegAlerts } from "./itinerary.ts";
import { failedPlan, type EarliestArrival, type Itinerary, type PlanResult } from "./model.ts";
import { applyTripUpdates, NO_REALTIME, NOTHING_APPLIED, tripIndex, type AppliedUpdates, type PlannerRealtime, type TripIndex } from "./realtime.ts";
import type { RealtimeDays, ServiceDays } from "./api.ts";
import { searchCriteria } from "./criteria.ts";
import { haversineM } from "../../shared/geo.ts";

/** Walks measured on the streets (street-legs.ts): access and egress stops, and walking all the way. */
export interface StreetInputs {
  access?: StopWalk[];
  egress?: StopWalk[];
  /** walking from the origin to the destination on the streets */
  direct?: { sec: number; meters: number };
}

/** Points farther than this from the timetable's bounding box are OUTSIDE_BOUNDS. */
const BOUNDS_MARGIN_M = 10_000;
/**
 * Origin and destination closer than this coincide: TOO_CLOSE. OTP1 has no distance for it: it
 * answers TOO_CLOSE when both places snap onto the same street edge (RoutingRequest.canSplitEdge) or
 * the path never moves (GraphPathToTripPlanConverter). Without a street network, "the same point"
 * (up to the ~1 m of 5-decimal coordinates) is what is left of that rule.
 */
export const TOO_CLOSE_M = 1;
/** A walk-only itinerary is offered up to this distance (or maxWalkDistance, if larger). */
export const WALK_ONLY_MAX_M = 5_000;
/** How far walking all the way is offered: WALK_ONLY_MAX_M, or maxWalkDistance if larger. */
export const walkOnlyCap = (p: { maxWalkDistance: number }) => Math.max(WALK_ONLY_MAX_M, p.maxWalkDistance);
/** How far past the requested time a search looks. */
const HORIZON_SEC = 24 * 3600;
/**
 * numItineraries: while fewer are found, the search goes on after the searched window (before it
 * for arriveBy), up to this far from the requested time (OTP1 repeats its searches until it has
 * them or times out; maxHours, when the parameters bring it, is the other bound).
 */
export const WIDEN_MAX_SEC = 24 * 3600;

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
  readonly dayDeltas: number[];

  /** trip_id -> trips of the timetable, for trip updates (built on the first snapshot) */
  private tripIx: TripIndex | null = null;
  /** the trip updates applied last (kept while the snapshots served stay the same) */
  private applied: AppliedUpdates = NOTHING_APPLIED;
  /** each served snapshot's trip updates applied on their own (a feed's new snapshot re-applies only that feed's) */
  private readonly appliedBySnapshot = new Map<string, AppliedUpdates>();

  /** `realtime`: the trip updates and alerts served (the realtime feature's, handed over by server/main.ts) */
  constructor(
    readonly tt: Timetable,
    private readonly realtime: PlannerRealtime = NO_REALTIME,
  ) {
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

  /** The trip updates served at `nowMs`, applied to the timetable (once per set of snapshots). */
  appliedUpdates(nowMs: number): AppliedUpdates {
    const snaps = this.realtime.tripUpdates(nowMs);
    if (snaps.length === 0) {
      this.appliedBySnapshot.clear();
      return (this.applied = NOTHING_APPLIED);
    }
    const key = snaps.map((x) => `${x.feed}=${x.key}`).join(";");
    if (key !== this.applied.key) this.applied = applyTripUpdates(this.tt, (this.tripIx ??= tripIndex(this.tt)), snaps, nowMs, this.appliedBySnapshot);
    return this.applied;
  }

  /** The service days a search from `aroundUnix` rides on (times relative to `epochSec`), with the realtime trips of `applied`. */
  searchDays(epochSec: number, aroundUnix: number, applied: AppliedUpdates = NOTHING_APPLIED): ServiceDays {
    const days = buildServiceDays(this.tt, epochSec, aroundUnix, this.dayDeltas);
    if (applied.byDay.size === 0) return days;
    const { nTz } = this.tt.core;
    const rt: RealtimeDays = { key: [], trips: [], fasterHops: applied.fasterHops };
    for (let z = 0; z < nTz; z++) {
      const today = localParts(aroundUnix, this.tt.meta.timezones[z]!).day;
      this.dayDeltas.forEach((delta, slot) => {
        const trips = applied.byDay.get(today + delta) ?? null;
        rt.key[slot * nTz + z] = trips ? `${applied.key}@${today + delta}` : null;
        rt.trips[slot * nTz + z] = trips;
      });
    }
    return { ...days, realtime: rt };
  }

  /** For /health: what the trip updates applied last came to. */
  realtimeHealth(): Record<string, unknown> {
    const a = this.applied;
    return { trip_updates: a.counts, ...(a.lastRejection ? { last_rejection: a.lastRejection } : {}) };
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

  /**
   * Answer a plan request at `nowMs` (the time and date default to now). `streets`: the walks
   * measured on the streets (street-legs.ts); without them, straight lines. Steps: the requested
   * time, the refusals, the transit itineraries, then walking all the way where it belongs.
   */
  plan(p: PlanParams, nowMs: number, streets: StreetInputs = {}): PlanResult {
    const tz = this.tzNear(p.from.lat, p.from.lon);
    const timeUnix = requestedTime(p, nowMs, tz);
    const directM = haversineM(p.from.lat, p.from.lon, p.to.lat, p.to.lon);
    const refused = this.refusal(p, timeUnix, tz, directM);
    if (refused) return refused;

    const epochSec = timeUnix - (this.dayDeltas.length - 1) * 86400;
    const walkDirectSec = streets.direct?.sec ?? Math.ceil(directM / p.walkSpeed);
    const walkDirectM = streets.direct?.meters ?? directM;
    // walking all the way is offered up to walkCap: a ride arriving no earlier (leaving no later, for
    // arriveBy) is then dominated by it
    // (a ride or a drive all the way, measured on the streets, has no cap)
    const walkCap = p.streetMode === "WALK" ? walkOnlyCap(p) : Infinity;
    const walkReach = walkDirectM <= walkCap ? walkDirectSec : null;
    // realtime (realtime.ts): the trip updates served now, unless ignoreRealtimeUpdates; the alerts always
    const applied = p.ignoreRealtimeUpdates ? NOTHING_APPLIED : this.appliedUpdates(nowMs);
    const alerts: LegAlerts = { lookup: this.realtime.alerts(nowMs), all: p.disableAlertFiltering, language: p.locale };
    const transit: TransitItineraries = p.walkOnly
      ? { itineraries: [], durations: [], costRanked: false, earliest: undefined }
      : this.transitItineraries(p, streets, timeUnix, epochSec, walkReach, applied, alerts);
    const { itineraries, durations, costRanked, earliest, searchedSec } = transit;
    // walk-only: when asked for, when walking beats the best transit itinerary, or when transit finds nothing
    const bestTransitSec = durations.length ? Math.min(...durations) : Infinity;
    // ranked by cost, walking still leads when it arrives first (leaves last, for arriveBy), as in
    // OTP1, whose plans are ordered by arrival (PathComparator) whatever the optimization
    const walkFirst = walkDirectSec < bestTransitSec || (costRanked && itineraries.length > 0 && walkArrivesFirst(itineraries, timeUnix, walkDirectSec, p.arriveBy));
    if ((p.walkOnly || walkFirst || itineraries.length === 0) && walkDirectM <= walkCap) {
      const start = p.arriveBy ? timeUnix - walkDirectSec : timeUnix;
      const walk = directItinerary(this.tt, p, { startSec: start, durationSec: walkDirectSec, distanceM: walkDirectM, tz });
      if (walkFirst) itineraries.unshift(walk);
      else itineraries.push(walk);
      if (itineraries.length > p.numItineraries) itineraries.pop();
    }
    const result: PlanResult = { query: p, timetable: this.tt, timeSec: timeUnix, from: p.from, to: p.to, itineraries };
    if (earliest) result.earliestArrivals = earliest;
    if (p.windowOnly) result.searchedSec = searchedSec ?? p.searchWindow;
    if (itineraries.length === 0) result.error = { kind: "PATH_NOT_FOUND" };
    return result;
  }

  /**
   * The failed plan a request gets before any search, or null. OTP1's order: places not found
   * (OUTSIDE_BOUNDS), then both on one street edge (TOO_CLOSE), then a date the calendars do not
   * serve (NO_TRANSIT_TIMES); nothing found (PATH_NOT_FOUND) comes after the search.
   */
  private refusal(p: PlanParams, timeUnix: number, tz: string, directM: number): PlanResult | null {
    const missing = [...(this.outside(p.from.lat, p.from.lon) ? ["from"] : []), ...(this.outside(p.to.lat, p.to.lon) ? ["to"] : [])];
    if (missing.length) return failedPlan(p, this.tt, { kind: "OUTSIDE_BOUNDS", missing });
    if (directM < TOO_CLOSE_M) return failedPlan(p, this.tt, { kind: "TOO_CLOSE" });
    const localDay = localParts(timeUnix, tz).day;
    // a feed's trips run up to (days back searched) days after its last service day
    const backDays = -this.dayDeltas[0]!;
    const inService = this.tt.meta.feeds.some((_, f) => localDay >= this.tt.meta.feedStartDay[f]! - 1 && localDay <= this.tt.meta.feedEndDay[f]! + backDays);
    if (!inService && !p.walkOnly) return failedPlan(p, this.tt, { kind: "NO_TRANSIT_TIMES" });
    return null;
  }

  /**
   * The transit itineraries (searchWidening's journeys as itineraries, with their durations),
   * whether they are ranked by generalized cost, and the earliest arrivals when asked for.
   */
  private transitItineraries(
    p: PlanParams, streets: StreetInputs, timeUnix: number, epochSec: number, walkReach: number | null, applied: AppliedUpdates, alerts: LegAlerts,
  ): TransitItineraries {
    const itineraries: Itinerary[] = [];
    /** per itinerary: its duration (seconds) */
    const durations: number[] = [];
    let earliest: EarliestArrival[] | undefined;
    let searchedSec: number | undefined;
    const access = streets.access ?? this.walkStops(p.from.lat, p.from.lon, p.maxWalkDistance, p.walkSpeed, p.wheelchair);
    const egress = streets.egress ?? this.walkStops(p.to.lat, p.to.lon, p.maxWalkDistance, p.walkSpeed, p.wheelchair);
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
      days: this.searchDays(epochSec, timeUnix, applied),
      routeAllowed: this.routeFilter(p.transitModes),
      wheelchair: p.wheelchair,
      // selectJourneys keeps the numItineraries earliest arrivals (latest departures for arriveBy)
      keepEarliest: p.numItineraries,
      // OTP1's routing criteria (criteria.ts): route, trip and stop masks, slacks, maxHours, costs
      ...searchCriteria(this.tt, p, () => this.routeFilter(p.transitModes), timeUnix - epochSec),
    };
    // ranked by generalized cost (optimize=TRANSFERS, cost parameters)
    const costRanked = q.costs !== undefined;
    if (q.access.length && q.egress.length) {
      const found = p.windowOnly ? this.searchWindow(q, p.numItineraries, p.windowFill) : { journeys: this.searchWidening(q, p.numItineraries, walkReach), searchedSec: undefined };
      searchedSec = found.searchedSec;
      for (const j of found.journeys) {
        const it = journeyItinerary(this.tt, j, epochSec, p, q.days, alerts);
        itineraries.push(it);
        durations.push(itineraryDuration(it));
      }
    }
    if (p.includeEarliestArrivals) earliest = this.earliest({ ...q, arriveBy: false, timeSec: timeUnix - epochSec }, epochSec);
    return { itineraries, durations, costRanked, earliest, ...(searchedSec !== undefined ? { searchedSec } : {}) };
  }

  /**
   * The plan's journeys, best first: the request's window, then, while fewer than n undominated
   * journeys are found, the span after it (before it for arriveBy), each window twice as long as the
   * one before, until WIDEN_MAX_SEC from the requested time or, when walking is within reach
   * (`walkSec`), until walking would arrive (no ride leaving later can arrive earlier). A window
   * that finds nothing is followed by one departure searched from its end: nothing found means no
   * service for the rest of the span (one can wait at the origin), else the next window starts at
   * that journey's departure (every journey leaving before it is dominated by it). Walking
   * dominates only when it is in the answer, i.e. when no ride arrives before it: once a ride does
   * and fewer than n were found, the search runs again without walking's bound.
   */
  private searchWidening(q: SearchQuery, n: number, walkReach: number | null): Journey[] {
    // ranked by generalized cost (q.costs), walking is weighed by the costs, not its arrival
    const walkSec = q.costs ? null : walkReach;
    const found = this.widen(q, n, walkSec);
    // a ride found arrives before walking would, so walking is not in the answer (plan): it
    // dominates nothing, and the rides arriving after it count too (OTP1 searches on until it has n)
    if (walkSec !== null && found.length > 0 && found.length < n) return this.widen(q, n, null);
    return found;
  }

  /**
   * A window-only search (OTP2's paged searches): every ride of the window, whatever walking would
   * do, no widening after it. With `fill`, the first WINDOW_FILL_FIRST_SEC of the window are
   * searched first, and a longer part of it, from its start again, only while no more than `fill`
   * rides are found (a page of `fill` then holds the same rides as a search of that part alone
   * would give): the part grows by what the rides found so far suggest, at least twice, up to the
   * whole window.
   */
  private searchWindow(q: SearchQuery, n: number, fill: number | undefined): { journeys: Journey[]; searchedSec: number } {
    let span = fill === undefined ? q.windowSec : Math.min(q.windowSec, WINDOW_FILL_FIRST_SEC);
    for (;;) {
      const journeys = this.widen({ ...q, windowSec: span }, n, null, span);
      // widen adds the first journey after an empty part: only those leaving (arriving) in it count
      const inPart = journeys.filter((j) => {
        const at = q.arriveBy ? q.timeSec - j.arriveSec : j.departSec - q.timeSec;
        return at >= 0 && at < span;
      }).length;
      if (span >= q.windowSec || inPart > fill!) return { journeys, searchedSec: span };
      const guess = inPart === 0 ? q.windowSec : Math.ceil((span * (fill! + 1)) / inPart);
      span = Math.min(q.windowSec, Math.max(2 * span, guess));
    }
  }

  /**
   * searchWidening's search: `walkSec` (not null) drops the rides walking dominates and bounds the
   * windows by it; `maxSpan` bounds the widening (the window itself, for a window-only search).
   */
  private widen(q: SearchQuery, n: number, walkSec: number | null, maxSpan = WIDEN_MAX_SEC): Journey[] {
    const dir = q.arriveBy ? -1 : 1;
    // maxHours from the requested time (q.arrivalLimitSec): nothing departing after it can arrive by it
    const maxHoursSpan = q.arrivalLimitSec === undefined ? Infinity : dir * (q.arrivalLimitSec - q.timeSec);
    const limit = Math.min(maxSpan, walkSec ?? Infinity, maxHoursSpan);
    // arrivals (departures for arriveBy) past walking are useless: the searches' bound
    const horizon = (off: number, w: number) => (walkSec === null ? HORIZON_SEC : Math.max(0, walkSec - off - w));
    const all: Journey[] = [];
    let off = 0;
    let w = Math.min(q.windowSec, limit);
    let keep = n;
    for (;;) {
      const res = searchJourneys(this.prepared, { ...q, timeSec: q.timeSec + dir * off, windowSec: w, horizonSec: horizon(off, w), keepEarliest: keep }, this.pool);
      const before = all.length;
      all.push(...res.journeys);
      const { chosen, loops } = this.choose(all, n, q, off + w, walkSec);
      if (chosen.length >= n) return chosen;
      // keepEarliest may have cut journeys that the dropped loops hid: this window once more, keeping more
      if (loops > 0 && keep < n + loops && res.journeys.length > 0) {
        keep = n + loops;
        all.length = before; // the window's journeys come again, with more kept
        continue;
      }
      off += w + 1;
      if (off > limit) return chosen;
      if (res.journeys.length === 0) {
        const probe = searchJourneys(this.prepared, { ...q, timeSec: q.timeSec + dir * off, windowSec: 0, horizonSec: horizon(off, 0), keepEarliest: undefined }, this.pool);
        if (probe.journeys.length === 0) return chosen;
        all.push(...probe.journeys);
        const at = Math.min(...probe.journeys.map((j) => dir * ((q.arriveBy ? j.arriveSec : j.departSec) - q.timeSec)));
        off = Math.max(off, at);
        if (off > limit) return this.choose(all, n, q, off, walkSec).chosen;
      }
      w = Math.min(2 * Math.max(w, MIN_WIDEN_WINDOW_SEC), limit - off);
    }
  }

  /**
   * The n best of `js` (searched `span` seconds from the requested time): selectJourneys, then
   * without the dominated ones: loops (a stop or station visited twice) and, with walking within
   * reach, rides arriving no earlier than walking would (leaving no later, for arriveBy).
   */
  private choose(js: Journey[], n: number, q: SearchQuery, span: number, walkSec: number | null): { chosen: Journey[]; loops: number } {
    let loops = 0;
    const chosen: Journey[] = [];
    for (const j of selectJourneys(js, Infinity, q.arriveBy, { timeSec: q.timeSec, windowSec: span })) {
      if (walkSec !== null && (q.arriveBy ? j.departSec <= q.timeSec - walkSec : j.arriveSec >= q.timeSec + walkSec)) continue;
      if (revisits(j, this.tt.meta.stopStation)) {
        loops++;
        continue;
      }
      chosen.push(j);
      if (chosen.length === n) break;
    }
    return { chosen, loops };
  }

  /**
   * Timezone of the agency of the stop nearest to a point: the agency of a route serving that stop
   * (a feed may hold agencies in several timezones), else the feed's first agency, else the
   * dataset's first timezone.
   */
  tzNear(lat: number, lon: number): string {
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
    for (let r = 0; r < allowed.length; r++) {
      const m = modeOfRouteType(this.tt.meta.routeType[r]!);
      allowed[r] = modes.has(m) ? 1 : 0;
    }
    return allowed;
  }

  private earliest(q: SearchQuery, epochSec: number): EarliestArrival[] {
    const arr = earliestArrivals(this.prepared, q, this.pool);
    const out: EarliestArrival[] = [];
    for (let s = 0; s < arr.length; s++) if (arr[s]! < UNREACHED) out.push({ stop: s as StopIdx, arrivalSec: epochSec + arr[s]! });
    out.sort((a, b) => a.arrivalSec - b.arrivalSec);
    return out;
  }
}

/** An itinerary's end in Unix seconds: its last leg's end. */
function itineraryEnd(it: Itinerary): number {
  const last = it.legs[it.legs.length - 1]!;
  return last.kind === "street" ? last.startSec + last.durationSec : last.endSec;
}

/** An itinerary's duration in seconds: from its first leg's start to its last leg's end. */
export function itineraryDuration(it: Itinerary): number {
  return itineraryEnd(it) - it.legs[0]!.startSec;
}

/**
 * Walking all the way, leaving at `timeSec` (arriving then, for arriveBy) and taking `walkSec`,
 * arrives no later than every itinerary (leaves no earlier, for arriveBy).
 */
function walkArrivesFirst(its: Itinerary[], timeSec: number, walkSec: number, arriveBy: boolean): boolean {
  return arriveBy ? its.every((i) => timeSec - walkSec >= i.legs[0]!.startSec) : its.every((i) => timeSec + walkSec <= itineraryEnd(i));
}

/** The shortest widened window (numItineraries not found yet, searchWindow shorter or 0). */
const MIN_WIDEN_WINDOW_SEC = 1800;
/** searchWindow's first part of a window when a page needs only so many rides (windowFill) */
const WINDOW_FILL_FIRST_SEC = 900;

/**
 * A loop: the journey is at one stop twice (boarding or alighting), or at one station twice (stops
 * sharing a parent_station, `station`). A transfer inside a station (alight at one platform, board
 * at another) is one visit.
 */
export function revisits(j: Journey, station?: Int32Array): boolean {
  const key = (s: number) => {
    const st = station ? station[s]! : -1;
    return st >= 0 ? -2 - st : s;
  };
  const seen: number[] = [];
  for (const l of j.legs) {
    if (l.kind !== "ride") continue;
    const b = key(l.fromStop);
    if (seen[seen.length - 1] !== b) {
      if (seen.includes(b)) return true;
      seen.push(b);
    }
    const a = key(l.toStop);
    if (seen.includes(a)) return true;
    seen.push(a);
  }
  return false;
}

/**
 * Best first: by arrival (departure, latest first, for arriveBy), then fewer rides; journeys of a
 * generalized-cost search (`cost` set) by cost first. Dominated journeys (leave no later, arrive no
 * earlier, no fewer rides, no more cost than another) are dropped.
 *
 * With `window` (the request's time and searchWindow, seconds from epochSec), a journey that
 * actually leaves after the window's end (arriveBy: arrives before its start) is dropped unless it
 * is the best one: a range iteration from a departure inside the window can end up waiting for a
 * trip of the next service day (the previous one for arriveBy), which is not an answer in the window.
 */
export function selectJourneys(js: Journey[], n: number, arriveBy: boolean, window?: { timeSec: number; windowSec: number }): Journey[] {
  const keep = nonDominated(js);
  keep.sort((a, b) => (a.cost ?? 0) - (b.cost ?? 0) || (arriveBy ? b.departSec - a.departSec : a.arriveSec - b.arriveSec) || a.rides - b.rides || (arriveBy ? a.arriveSec - b.arriveSec : b.departSec - a.departSec));
  if (!window) return keep.slice(0, n);
  const leaves = (j: Journey) => j.legs[0]?.depSec ?? j.departSec;
  const arrives = (j: Journey) => j.legs[j.legs.length - 1]?.arrSec ?? j.arriveSec;
  return keep.filter((j, i) => i === 0 || (arriveBy ? arrives(j) >= window.timeSec - window.windowSec : leaves(j) <= window.timeSec + window.windowSec)).slice(0, n);
}

/** A plan's transit itineraries (PlanService.transitItineraries). */
interface TransitItineraries {
  itineraries: Itinerary[];
  /** per itinerary: its duration (seconds) */
  durations: number[];
  /** ranked by generalized cost (optimize=TRANSFERS, cost parameters) */
  costRanked: boolean;
  earliest: EarliestArrival[] | undefined;
  /** a window-only search: the seconds of the window searched */
  searchedSec?: number;
}

/** The requested time (unix seconds): the request's date and time in `tz`, each defaulting to now's. */
function requestedTime(p: PlanParams, nowMs: number, tz: string): number {
  const nowSec = Math.floor(nowMs / 1000);
  const today = localParts(nowSec, tz);
  const day = p.date ?? today.day;
  return p.timeSec === null && p.date === null ? nowSec : localToUnix(day, p.timeSec ?? today.sec, tz);
}
