/**
 * Per-service-day trip filtering (r5's per-date pattern filtering): for one timezone's service day
 * (one "slot" of a search) the trips of each route that run that day, in departure order, plus the
 * route's first departure and last arrival over those trips, and a dense copy of their stop times.
 * A route scan then reads and binary-searches active trips only, and routes with no active trip in
 * any slot are never marked. Views are built in O(stop times) on first use (~30 ms on all MTA
 * feeds) and cached per core (a handful of days), so queries pay nothing.
 */
import { arrAt, depAt, type TransitCore } from "../timetable/types.ts";

export interface DayView {
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
}

/** views kept per core: a search uses one per service-day slot (yesterday, today, tomorrow); each holds its trips' stop times (~16 MB on all MTA feeds) */
const MAX_VIEWS = 6;
const caches = new WeakMap<TransitCore, Map<string, DayView>>();

/**
 * The view of the routes of timezone `tz` for the services flagged in `active[base .. base + nServices)`;
 * `wheelchair` keeps only trips with wheelchair_accessible = 1.
 */
export function dayView(core: TransitCore, tz: number, active: Uint8Array, base: number, wheelchair: boolean): DayView {
  let cache = caches.get(core);
  if (!cache) {
    cache = new Map();
    caches.set(core, cache);
  }
  const key = `${tz}|${wheelchair ? 1 : 0}|${activeKey(active, base, core.nServices)}`;
  let v = cache.get(key);
  if (v) {
    // LRU: move to the end
    cache.delete(key);
    cache.set(key, v);
    return v;
  }
  v = buildView(core, tz, active, base, wheelchair);
  if (cache.size >= MAX_VIEWS) cache.delete(cache.keys().next().value!);
  cache.set(key, v);
  return v;
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

function buildView(core: TransitCore, tz: number, active: Uint8Array, base: number, wheelchair: boolean): DayView {
  const { nRoutes, routeTripStart, routeStopStart, routeTime0, routeTz, tripService, tripWheelchair, stopTimes } = core;
  const tripStart = new Int32Array(nRoutes + 1);
  const minDep = new Int32Array(nRoutes);
  const maxArr = new Int32Array(nRoutes);
  const maxDep = new Int32Array(nRoutes);
  const tmp = new Int32Array(core.nTrips);
  let n = 0;
  for (let r = 0; r < nRoutes; r++) {
    tripStart[r] = n;
    const t0 = routeTripStart[r]!;
    const nT = routeTripStart[r + 1]! - t0;
    const nS = routeStopStart[r + 1]! - routeStopStart[r]!;
    const time0 = routeTime0[r]!;
    let lo = 0x3fffffff, hi = -0x3fffffff, hiDep = -0x3fffffff;
    if (routeTz[r] === tz) {
      for (let i = 0; i < nT; i++) {
        if (!active[base + tripService[t0 + i]!]) continue;
        if (wheelchair && tripWheelchair[t0 + i] !== 1) continue;
        tmp[n++] = i;
        for (let j = time0 + i * nS, e = j + nS; j < e; j++) {
          const d = depAt(stopTimes, j);
          const a = arrAt(stopTimes, j);
          if (d < lo) lo = d;
          if (d > hiDep) hiDep = d;
          if (a > hi) hi = a;
        }
      }
    }
    minDep[r] = lo;
    maxArr[r] = hi;
    maxDep[r] = hiDep;
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
  return { tripStart, trips: tmp.slice(0, n), times, time0, minDep, maxArr, maxDep };
}
