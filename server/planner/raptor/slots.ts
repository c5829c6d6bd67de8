// Purpose: per-query service-day slots (day views, live routes, per-(route, slot) trip ranges).
/**
 * A query's service-day slots: the day view of every (slot, timezone), which routes run inside the
 * searched span, and the per-(route, slot) trip ranges the route scan reads instead of the views.
 */
import type { RaptorRequest } from "../api.ts";
import type { DayView } from "./day-view.ts";
import type { PreparedCore } from "./prepare.ts";
import type { RaptorState } from "./state.ts";
import type { RuleIndex } from "./transfer-rules.ts";

/** What the route scan reads besides the labels: the prepared core's arrays and the query's day views. */
export interface ScanContext {
  /** route -> 1 when every trip's arrivals never decrease along the route (PreparedCore.monotone) */
  monotone: Uint8Array;
  /** route stop -> stop * 2 + 1 when boarding there can lead somewhere, stop * 2 otherwise */
  routeStopBoard: Int32Array;
  /** stop -> [bpStart[p], bpStart[p+1]) in bpRoutePos: (route, position) pairs where boarding can lead somewhere, on routes that run on the query's days */
  bpStart: Int32Array;
  bpRoutePos: Int32Array;
  /** (slot * nTz + tz) -> the day view's active trips and their stop times (DayView.trips, .times) */
  tripsOf: Int32Array[];
  timesOf: Int32Array[];
  /** (slot * nTz + tz) -> a realtime view's routes whose stop times are in extraTimesOf (DayView.extraRoutes, .extraTimes; null: none) */
  extraRoutesOf: (Uint8Array | null)[];
  extraTimesOf: (Int32Array | null)[];
  /** the transfer rules (PreparedCore.rules), null when none */
  rules: RuleIndex | null;
  /** the day views themselves (paths.ts reads a ridden trip's times from its view) */
  views: DayView[];
}

/** One day view per (slot, timezone): the trips that run on that service day (with its realtime trips, if any). */
export function dayViews(pc: PreparedCore, req: RaptorRequest): DayView[] {
  const { core, days } = pc;
  const { nSlots, active, realtime } = req.days;
  const out: DayView[] = [];
  for (let slot = 0; slot < nSlots; slot++) {
    for (let tz = 0; tz < core.nTz; tz++) {
      const v = slot * core.nTz + tz;
      const key = realtime?.key[v] ?? null;
      const trips = realtime?.trips[v] ?? null;
      out.push(days.get(tz, active, v * core.nServices, req.wheelchair, key !== null && trips !== null && trips.size > 0 ? { key, trips } : null));
    }
  }
  return out;
}

export function scanContext(pc: PreparedCore, views: DayView[]): ScanContext {
  const { bpStart, bpRoutePos } = pc.days.boardingOf(views, pc.bpStart, pc.bpRoutePos);
  return { monotone: pc.monotone, routeStopBoard: pc.routeStopBoard, bpStart, bpRoutePos, tripsOf: views.map((v) => v.trips), timesOf: views.map((v) => v.times), extraRoutesOf: views.map((v) => v.extraRoutes), extraTimesOf: views.map((v) => v.extraTimes), rules: pc.rules, views };
}

/**
 * Per (route, slot): first active trip, their count (0 when none runs inside the searched time span
 * or the mode filter excludes the route), first departure and last arrival. routeLive[r] = 1 when the
 * route runs on some slot; the others are never marked (routeMarkedPos -2).
 */
export function markLiveRoutes(pc: PreparedCore, req: RaptorRequest, st: RaptorState, views: DayView[]): void {
  const { routeLive: live, routeMarkedPos } = st;
  const { offsetSec, nSlots } = req.days;
  st.ensureSlots(nSlots);
  const { slotC0, slotNT, slotMin, slotMax, slotMaxDep, slotT0 } = st;
  const { nTz, nRoutes, routeTz } = pc.core;
  const from = req.departSec, to = req.maxArrivalSec;
  const allowed = req.routeAllowed;
  live.fill(0);
  for (let slot = 0; slot < nSlots; slot++) {
    for (let tz = 0; tz < nTz; tz++) {
      const { tripStart, minDep, maxArr, maxDep, time0 } = views[slot * nTz + tz]!;
      const off = offsetSec[slot * nTz + tz]!;
      for (let r = 0, si = slot; r < nRoutes; r++, si += nSlots) {
        if (routeTz[r] !== tz) continue;
        const c0 = tripStart[r]!;
        const nT = tripStart[r + 1]! - c0;
        const lo = off + minDep[r]!, hi = off + maxArr[r]!;
        // a slot without trips inside the searched span gets no trips (a scan skips it)
        const runs = nT > 0 && lo < to && hi >= from && (!allowed || allowed[r] !== 0);
        if (runs) live[r] = 1;
        slotC0[si] = c0;
        slotNT[si] = runs ? nT : 0;
        slotMin[si] = lo;
        slotMax[si] = hi;
        slotMaxDep[si] = off + maxDep[r]!;
        slotT0[si] = time0[r]!;
      }
    }
  }
  // the marking skips routes that are not live in this query
  for (let r = 0; r < nRoutes; r++) routeMarkedPos[r] = live[r] ? -1 : -2;
}
