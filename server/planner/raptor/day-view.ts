// Purpose: per-service-day views of the trips that run, built on first use and kept by the prepared timetable.
/**
 * Per-service-day trip filtering (r5's per-date pattern filtering): for one timezone's service day
 * (one "slot" of a search) the trips of each route that run that day, in departure order, plus the
 * route's first departure and last arrival over those trips, and a dense copy of their stop times.
 * A route scan then reads and binary-searches active trips only, and routes with no active trip in
 * any slot are never marked. Views are built in O(stop times) on first use (~30 ms on all MTA
 * feeds) and kept by the prepared timetable (a handful of days), so queries pay nothing.
 *
 * Realtime (GTFS-Realtime trip updates, ServiceDays.realtime): a day with updated trips gets a view
 * of its own, made from the scheduled one: canceled trips left out, updated trips with their
 * realtime times (mirrored in the mirrored core), each route's trips in order of their departure at
 * its first stop. A delayed trip that overtakes another one of its route breaks the order the
 * trip search relies on at later stops: the search then may board a later trip than it could
 * (never one that has left), as OTP2's Raptor does with overtaking realtime trips.
 */
import type { RealtimeTrip } from "../api.ts";
import { arrAt, depAt, NO_DROP_OFF, NO_PICKUP, type TransitCore } from "../timetable/types.ts";

export interface DayView {
  /** distinct per view of one DayViews (keys the boarding lists of a set of views) */
  id: number;
  /** route -> [tripStart[r], tripStart[r+1]) in trips; empty when the route does not run that day */
  tripStart: Int32Array;
  /** route-relative trip indexes (0 = the route's first trip) of the active trips */
  trips: Int32Array;
  /**
   * the active trips' stop times, packed like TransitCore.stopTimes: route by route, active trip i
   * (0-based in the route's list) at position j at time0[r] + i * nStops(r) + j. A day runs a small
   * share of a feed's trips (about a quarter on the MTA feeds), so scans and trip searches read a
   * dense copy and no trip index
   */
  times: Int32Array;
  time0: Int32Array;
  /** route -> first departure / last arrival / last departure of its active trips (service-day seconds) */
  minDep: Int32Array;
  maxArr: Int32Array;
  maxDep: Int32Array;
  /**
   * a realtime view's routes with updated or canceled trips (1), whose active trips' stop times are
   * in `extraTimes` (at time0[r], packed as in `times`); the other routes' stay in `times`, the
   * scheduled view's own array, shared and not copied. Null in a scheduled view.
   */
  extraRoutes: Uint8Array | null;
  extraTimes: Int32Array | null;
}

/** The array that holds route r's active stop times in view v (routes of a realtime view with updated trips: its extraTimes). */
export function routeTimes(v: DayView, r: number): Int32Array {
  return v.extraRoutes !== null && v.extraRoutes[r] === 1 ? v.extraTimes! : v.times;
}

/** The boarding lists (prepare.ts boardingPositions) without the routes that run on none of a set of views. */
export interface DayBoarding {
  bpStart: Int32Array;
  bpRoutePos: Int32Array;
}

/** views kept per core: a search uses one per service-day slot (yesterday, today, tomorrow); each holds its trips' stop times (~16 MB on all MTA feeds) */
const MAX_VIEWS = 6;
/** day-boarding lists kept per core (each ~1 MB on all MTA feeds) */
const MAX_DAY_BOARDING = 8;

/**
 * The day views of one core and the boarding lists of the sets of views searches used, least
 * recently used dropped first. Owned by the prepared timetable (prepare.ts): what it holds is a pure
 * function of the timetable and the day, so whether a view is kept or rebuilt never changes a result.
 */
export class DayViews {
  private readonly views = new Map<string, DayView>();
  private readonly boarding = new Map<string, DayBoarding>();
  private nextId = 0;

  /** `mirrored`: the core is the mirror of the forward timetable (realtime trips are given in the forward one) */
  constructor(
    private readonly core: TransitCore,
    private readonly mirrored = false,
  ) {}

  /**
   * The view of the routes of timezone `tz` for the services flagged in `active[base .. base + nServices)`;
   * `wheelchair` keeps only trips with wheelchair_accessible = 1; `realtime`: that day's realtime
   * trips (forward trip index -> times) and the key naming them.
   */
  get(tz: number, active: Uint8Array, base: number, wheelchair: boolean, realtime: { key: string; trips: ReadonlyMap<number, RealtimeTrip> } | null = null): DayView {
    const scheduledKey = `${tz}|${wheelchair ? 1 : 0}|${activeKey(active, base, this.core.nServices)}`;
    const key = realtime ? `${scheduledKey}|rt|${realtime.key}` : scheduledKey;
    let v = this.views.get(key);
    if (v) {
      // LRU: move to the end
      this.views.delete(key);
      this.views.set(key, v);
      return v;
    }
    v = realtime
      ? withRealtime(this.core, this.mirrored, this.get(tz, active, base, wheelchair), tz, realtime.trips, this.nextId++)
      : buildView(this.core, tz, active, base, wheelchair, this.nextId++);
    if (this.views.size >= MAX_VIEWS) this.views.delete(this.views.keys().next().value!);
    this.views.set(key, v);
    return v;
  }

  /**
   * The (route, position) boarding lists without the routes that have no active trip in any of the
   * query's day views: such a route is never marked (slots.ts markLiveRoutes), yet on all MTA feeds
   * it made 31 % of the entries that collectRoutes read when marking stops (weekday searches pass
   * over the weekend-only patterns). The kept entries stay in their order, so routes are collected
   * exactly as before. Built in one pass over the lists, once per set of day views.
   */
  boardingOf(views: DayView[], bpStart: Int32Array, bpRoutePos: Int32Array): DayBoarding {
    const key = views.map((v) => v.id).join(",");
    const hit = this.boarding.get(key);
    if (hit) return hit;
    const { nRoutes, nTz, routeTz } = this.core;
    const runs = new Uint8Array(nRoutes);
    for (let i = 0; i < views.length; i++) {
      const tz = i % nTz;
      const { tripStart } = views[i]!;
      for (let r = 0; r < nRoutes; r++) if (routeTz[r] === tz && tripStart[r + 1]! > tripStart[r]!) runs[r] = 1;
    }
    const nStops = bpStart.length - 1;
    const start = new Int32Array(nStops + 1);
    const out = new Int32Array(bpRoutePos.length);
    let n = 0;
    for (let p = 0; p < nStops; p++) {
      start[p] = n;
      for (let e = bpStart[p]!, end = bpStart[p + 1]!; e < end; e += 2) {
        if (!runs[bpRoutePos[e]!]) continue;
        out[n++] = bpRoutePos[e]!;
        out[n++] = bpRoutePos[e + 1]!;
      }
    }
    start[nStops] = n;
    const made = { bpStart: start, bpRoutePos: out.slice(0, n) };
    if (this.boarding.size >= MAX_DAY_BOARDING) this.boarding.delete(this.boarding.keys().next().value!);
    this.boarding.set(key, made);
    return made;
  }
}

/** The active-service bytes as a compact string key (one char per 16 services). */
function activeKey(active: Uint8Array, base: number, n: number): string {
  const parts: number[] = [];
  for (let s = 0; s < n; s += 16) {
    let w = 0;
    const end = Math.min(n, s + 16);
    for (let i = s; i < end; i++) if (active[base + i]) w |= 1 << (i - s);
    parts.push(w);
  }
  let out = "";
  for (let i = 0; i < parts.length; i += 4096) out += String.fromCharCode(...parts.slice(i, i + 4096));
  return out;
}

/** A span no trip has widened yet: [first departure, last arrival, last departure]. */
const EMPTY_SPAN = [0x3fffffff, -0x3fffffff, -0x3fffffff];

/** Widen `span` ([first departure, last arrival, last departure]) by the `n` stop times packed at `words[2 * x0 ..]`. */
function widenSpan(words: Int32Array, x0: number, n: number, span: Int32Array): void {
  let lo = span[0]!, hi = span[1]!, hiDep = span[2]!;
  for (let j = x0, e = x0 + n; j < e; j++) {
    const d = depAt(words, j);
    const a = arrAt(words, j);
    if (d < lo) lo = d;
    if (d > hiDep) hiDep = d;
    if (a > hi) hi = a;
  }
  span[0] = lo;
  span[1] = hi;
  span[2] = hiDep;
}

function buildView(core: TransitCore, tz: number, active: Uint8Array, base: number, wheelchair: boolean, id: number): DayView {
  const { nRoutes, routeTripStart, routeStopStart, routeTime0, routeTz, tripService, tripWheelchair, stopTimes } = core;
  const tripStart = new Int32Array(nRoutes + 1);
  const minDep = new Int32Array(nRoutes);
  const maxArr = new Int32Array(nRoutes);
  const maxDep = new Int32Array(nRoutes);
  const tmp = new Int32Array(core.nTrips);
  /** the route's first departure, last arrival, last departure over its active trips */
  const span = new Int32Array(3);
  let n = 0;
  for (let r = 0; r < nRoutes; r++) {
    tripStart[r] = n;
    const t0 = routeTripStart[r]!;
    const nT = routeTripStart[r + 1]! - t0;
    const nS = routeStopStart[r + 1]! - routeStopStart[r]!;
    const time0 = routeTime0[r]!;
    span.set(EMPTY_SPAN);
    if (routeTz[r] === tz) {
      for (let i = 0; i < nT; i++) {
        if (!active[base + tripService[t0 + i]!]) continue;
        if (wheelchair && tripWheelchair[t0 + i] !== 1) continue;
        tmp[n++] = i;
        widenSpan(stopTimes, time0 + i * nS, nS, span);
      }
    }
    minDep[r] = span[0]!;
    maxArr[r] = span[1]!;
    maxDep[r] = span[2]!;
  }
  tripStart[nRoutes] = n;
  const time0 = new Int32Array(nRoutes);
  let size = 0;
  for (let r = 0; r < nRoutes; r++) {
    time0[r] = size;
    size += (tripStart[r + 1]! - tripStart[r]!) * (routeStopStart[r + 1]! - routeStopStart[r]!);
  }
  const times = new Int32Array(2 * size);
  for (let r = 0; r < nRoutes; r++) {
    const nS = routeStopStart[r + 1]! - routeStopStart[r]!;
    for (let i = tripStart[r]!, at = 2 * time0[r]!; i < tripStart[r + 1]!; i++) {
      for (let x = 2 * (routeTime0[r]! + tmp[i]! * nS), end = x + 2 * nS; x < end; x++) times[at++] = stopTimes[x]!;
    }
  }
  return { id, tripStart, trips: tmp.slice(0, n), times, time0, minDep, maxArr, maxDep, extraRoutes: null, extraTimes: null };
}

/**
 * The view `v` (scheduled) with a day's realtime trips: canceled trips left out, updated ones with
 * their times (forward words; in the mirrored core each position's words mirrored as
 * timetable/reverse.ts does), the trips of each changed route ordered by departure at its first
 * stop (stable), and the route's first departure and last arrival recomputed. The changed routes'
 * stop times are written to the view's extraTimes; the other routes' are read from `v`'s array (a
 * day's stop times are not copied for a snapshot that changes a few routes: at 6x New York a
 * view holds ~160 MB).
 */
function withRealtime(core: TransitCore, mirrored: boolean, v: DayView, tz: number, trips: ReadonlyMap<number, RealtimeTrip>, id: number): DayView {
  const { nRoutes, routeTripStart, routeStopStart, routeTz, tripOrig } = core;
  // forward trip -> route: trips are numbered route by route
  const changed = new Map<number, Map<number, RealtimeTrip>>(); // route -> route-relative trip (this core) -> update
  for (const [t, u] of trips) {
    if (t < 0 || t >= core.nTrips) continue;
    let lo = 0, hi = nRoutes - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (routeTripStart[mid]! <= t) lo = mid;
      else hi = mid - 1;
    }
    const r = lo;
    if (routeTz[r] !== tz) continue;
    const nT = routeTripStart[r + 1]! - routeTripStart[r]!;
    let i = t - routeTripStart[r]!;
    // the mirror numbers a route's trips the other way round (reverse.ts)
    if (mirrored) i = nT - 1 - i;
    if (tripOrig[routeTripStart[r]! + i] !== t) continue;
    let m = changed.get(r);
    if (!m) changed.set(r, (m = new Map()));
    m.set(i, u);
  }
  if (changed.size === 0) return { ...v, id };
  const tripStart = new Int32Array(nRoutes + 1);
  const time0 = v.time0.slice();
  const minDep = v.minDep.slice(), maxArr = v.maxArr.slice(), maxDep = v.maxDep.slice();
  const extraRoutes = new Uint8Array(nRoutes);
  // sizes first (canceled trips leave); a changed route's trips move to extraTimes, the others'
  // stop times stay where they are in the scheduled view's array (only the trip lists are copied)
  let nTrips = 0, extraSize = 0;
  for (let r = 0; r < nRoutes; r++) {
    tripStart[r] = nTrips;
    let n = v.tripStart[r + 1]! - v.tripStart[r]!;
    const m = changed.get(r);
    if (m) {
      for (let c = v.tripStart[r]!; c < v.tripStart[r + 1]!; c++) if (m.get(v.trips[c]!)?.stopTimes === null) n--;
      extraRoutes[r] = 1;
      time0[r] = extraSize;
      extraSize += n * (routeStopStart[r + 1]! - routeStopStart[r]!);
    }
    nTrips += n;
  }
  tripStart[nRoutes] = nTrips;
  const outTrips = new Int32Array(nTrips);
  const extraTimes = new Int32Array(2 * extraSize);
  const span = new Int32Array(3);
  // unchanged routes: their trip lists in runs (one copy per run of consecutive unchanged routes)
  for (let r = 0; r < nRoutes; ) {
    if (extraRoutes[r]) {
      r++;
      continue;
    }
    let e = r;
    while (e < nRoutes && !extraRoutes[e]) e++;
    outTrips.set(v.trips.subarray(v.tripStart[r]!, v.tripStart[e]!), tripStart[r]!);
    r = e;
  }
  for (const [r, m] of changed) {
    const nS = routeStopStart[r + 1]! - routeStopStart[r]!;
    const c0 = v.tripStart[r]!, c1 = v.tripStart[r + 1]!;
    // the route's active trips with their words (scheduled: the view's; updated: realtime)
    const rows: { trip: number; words: Int32Array }[] = [];
    for (let c = c0; c < c1; c++) {
      const i = v.trips[c]!;
      const u = m.get(i);
      if (u?.stopTimes === null) continue;
      const at = 2 * (v.time0[r]! + (c - c0) * nS);
      rows.push({ trip: i, words: u ? (mirrored ? mirrorWords(u.stopTimes!, nS) : u.stopTimes!.subarray(0, 2 * nS)) : v.times.subarray(at, at + 2 * nS) });
    }
    rows.sort((a, b) => (a.words[1]! >> 2) - (b.words[1]! >> 2));
    span.set(EMPTY_SPAN);
    let at = 2 * time0[r]!;
    rows.forEach((row, k) => {
      outTrips[tripStart[r]! + k] = row.trip;
      extraTimes.set(row.words, at);
      at += 2 * nS;
      widenSpan(row.words, 0, nS, span);
    });
    minDep[r] = span[0]!;
    maxArr[r] = span[1]!;
    maxDep[r] = span[2]!;
  }
  return { id, tripStart, trips: outTrips, times: v.times, time0, minDep, maxArr, maxDep, extraRoutes, extraTimes };
}

/** A forward trip's words as the mirrored core holds them: positions reversed, times negated, arrival and departure, pickup and drop-off swapped. */
function mirrorWords(w: Int32Array, nS: number): Int32Array {
  const out = new Int32Array(2 * nS);
  for (let j = 0; j < nS; j++) {
    const from = nS - 1 - j;
    const f = w[2 * from]! & 3;
    const g = (f & NO_PICKUP ? NO_DROP_OFF : 0) | (f & NO_DROP_OFF ? NO_PICKUP : 0);
    out[2 * j] = -(w[2 * from + 1]! >> 2) * 4 + g;
    out[2 * j + 1] = -(w[2 * from]! >> 2) * 4 + g;
  }
  return out;
}
