/**
 * Per-service-day trip filtering (r5's per-date pattern filtering): for one timezone's service day
 * (one "slot" of a search) the trips of each route that run that day, in departure order, plus the
 * route's first departure and last arrival over those trips. A route scan then binary-searches
 * active trips only, and routes with no active trip in any slot are never marked. Views are built
 * in O(trips) on first use and cached per core (a handful of days), so queries pay nothing.
 */
import { arrAt, depAt, type TransitCore } from "../timetable/types.ts";

export interface DayView {
  /** route -> [tripStart[r], tripStart[r+1]) in trips; empty when the route does not run that day */
  tripStart: Int32Array;
  /** route-relative trip indexes (0 = the route's first trip) of the active trips */
  trips: Int32Array;
  /** route -> first departure / last arrival / last departure of its active trips (service-day seconds) */
  minDep: Int32Array;
  maxArr: Int32Array;
  maxDep: Int32Array;
}

const MAX_VIEWS = 12;
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
  return { tripStart, trips: tmp.slice(0, n), minDep, maxArr, maxDep };
}
