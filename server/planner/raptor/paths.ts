// Purpose: journeys rebuilt from the labels, and the Pareto filter over journeys.
/**
 * Paths: journeys rebuilt from the labels (OTP's path mapping), and the Pareto filter over journeys.
 */
import type { Journey, JourneyLeg, RaptorRequest, RouteIdx, StopIdx, TripIdx } from "../api.ts";
import { NO_DROP_OFF, arrAt, depAt, flagsAt, type TransitCore } from "../timetable/types.ts";
import { routeTimes } from "./day-view.ts";
import type { ScanContext } from "./slots.ts";
import { SRC_ACCESS, SRC_INHERITED, type RaptorState } from "./state.ts";
import { boardKey, keepsRules, ruleFor } from "./transfer-rules.ts";

/**
 * Journeys no other one dominates: another leaves no earlier, arrives no later, with no more rides
 * (and, when both have a generalized cost, costs no more), and is better in one of them (of equal
 * journeys the first is kept). Input order is kept.
 */
export function nonDominated(js: Journey[]): Journey[] {
  const costOk = (a: Journey, b: Journey) => a.cost === undefined || b.cost === undefined || b.cost <= a.cost;
  const costLess = (a: Journey, b: Journey) => a.cost !== undefined && b.cost !== undefined && b.cost < a.cost;
  return js.filter(
    (a, i) =>
      !js.some(
        (b, k) =>
          k !== i &&
          b.departSec >= a.departSec &&
          b.arriveSec <= a.arriveSec &&
          b.rides <= a.rides &&
          costOk(a, b) &&
          (b.departSec > a.departSec || b.arriveSec < a.arriveSec || b.rides < a.rides || costLess(a, b) || k < i),
      ),
  );
}

/** The route whose stop times hold index idx (routeTime0 is ascending). */
export function routeOfStopTime(core: TransitCore, idx: number): number {
  let lo = 0;
  let hi = core.nRoutes - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (core.routeTime0[mid]! <= idx) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * The boarding a stop-time index names: its route, the route's first route-stop `s0` and stop count
 * `nS`, the boarding position, the index of the trip's first stop time `tbase`, and the trip.
 */
export function boardingAt(core: TransitCore, bIdx: number) {
  const r = routeOfStopTime(core, bIdx);
  const s0 = core.routeStopStart[r]!;
  const nS = core.routeStopStart[r + 1]! - s0;
  const rel = bIdx - core.routeTime0[r]!;
  const boardPos = rel % nS;
  return { r, s0, nS, boardPos, tbase: bIdx - boardPos, trip: core.routeTripStart[r]! + (rel - boardPos) / nS };
}

/**
 * The stop times a ride read: those of `trip` (route r, this core's trip index) in the day view of
 * `slot` (its realtime times where the day has them), `tbase` the index of its first stop time in
 * `times`; the core's own when the view does not hold the trip.
 */
export function rideTimes(core: TransitCore, cx: ScanContext, slot: number, r: number, trip: number): { times: Int32Array; tbase: number } {
  const nS = core.routeStopStart[r + 1]! - core.routeStopStart[r]!;
  const rel = trip - core.routeTripStart[r]!;
  const v = cx.views[slot * core.nTz + core.routeTz[r]!];
  if (v) {
    for (let c = v.tripStart[r]!, end = v.tripStart[r + 1]!; c < end; c++) {
      if (v.trips[c] === rel) return { times: routeTimes(v, r), tbase: v.time0[r]! + (c - v.tripStart[r]!) * nS };
    }
  }
  return { times: core.stopTimes, tbase: core.routeTime0[r]! + rel * nS };
}

/**
 * Walk the labels back from the destination (round k, via egress stop e) to the access walk. A
 * boarding a transfer rule let happen (transfer-rules.ts, RuleState.boardFrom) continues from its
 * class label. Null when the journey breaks a transfer rule: class labels of a range search can be
 * improved, in a later iteration, by a ride of another trip of the class that a rule on a trip
 * treats otherwise (the README's approximation; such a journey is not returned).
 */
export function reconstruct(core: TransitCore, req: RaptorRequest, st: RaptorState, cx: ScanContext, k: number, e: number): Journey | null {
  const n = core.nStops;
  const legs: JourneyLeg[] = [];
  let egressWalk = 0;
  for (const eg of req.egress) if (eg.stop === e && (egressWalk === 0 || eg.walkSec < egressWalk)) egressWalk = eg.walkSec;
  const arrive = st.ride[k * n + e]!;
  // the egress entries hold the slack after the last ride (range.ts withSlacks): the walk starts after it
  legs.push({ kind: "egress", stop: e as StopIdx, depSec: arrive + req.egressSlackSec, arrSec: arrive + egressWalk });
  const rs = st.rules;
  let p = e;
  let round = k;
  let rides = 0;
  // the ride label followed: its arrival, boarding event and day slot
  let at = arrive;
  let bIdx = st.rideBoard[k * n + e]!;
  let slot = st.rideSlot[k * n + e]!;
  for (;;) {
    const { r, s0, nS, boardPos, trip } = boardingAt(core, bIdx);
    const off = req.days.offsetSec[slot * core.nTz + core.routeTz[r]!]!;
    const { times, tbase } = rideTimes(core, cx, slot, r, trip);
    // the alighting position: the first visit of p after boarding that arrives at the label's time
    let alightPos = boardPos + 1;
    while (alightPos < nS - 1 && !(core.routeStops[s0 + alightPos] === p && off + arrAt(times, tbase + alightPos) === at && !(flagsAt(times, tbase + alightPos) & NO_DROP_OFF))) alightPos++;
    const b = core.routeStops[core.routeStopStart[r]! + boardPos]!;
    const dep = off + depAt(times, tbase + boardPos);
    legs.push({ kind: "ride", route: r as RouteIdx, trip: trip as TripIdx, slot, boardPos, alightPos, fromStop: b as StopIdx, toStop: p as StopIdx, depSec: dep, arrSec: off + arrAt(times, tbase + alightPos) });
    rides++;
    const from = rs !== null && rs.boardFrom.size > 0 ? rs.boardFrom.get(boardKey(round, bIdx, slot)) : undefined;
    if (from !== undefined) {
      // boarded from the class label of round - 1 at the entry's source stop
      const ix = rs!.index;
      const ci = (round - 1) * rs!.nClasses + ix.eCls[from]!;
      const s = ix.eSrc[from]!;
      const a = rs!.clsRide[ci]!;
      const x = ruleFor(ix, from, rs!.clsTrip[ci]!, ix.routeGtfs[r]!, ix.tripRule[trip]!);
      if (rs!.walkLeg(from, x)) legs.push({ kind: "transfer", fromStop: s as StopIdx, toStop: b as StopIdx, depSec: a, arrSec: a + rs!.walk(from, x) });
      p = s;
      round--;
      at = a;
      bIdx = rs!.clsBoard[ci]!;
      slot = rs!.clsSlot[ci]!;
      continue;
    }
    let j = round - 1;
    while (j > 0 && st.boardSrc[j * n + b] === SRC_INHERITED) j--;
    const src = st.boardSrc[j * n + b]!;
    if (src === SRC_ACCESS || j === 0) {
      // the access walk (its slack before boarding included, range.ts withSlacks) ends in time to board
      const w = st.accessSec[b]!;
      legs.push({ kind: "access", stop: b as StopIdx, depSec: dep - w, arrSec: dep - req.accessSlackSec });
      break;
    }
    if (src !== b) {
      const from = st.ride[j * n + src]!;
      const walk = walkSec(core, req, src, b);
      legs.push({ kind: "transfer", fromStop: src as StopIdx, toStop: b as StopIdx, depSec: from, arrSec: from + walk });
    }
    p = src;
    round = j;
    at = st.ride[j * n + src]!;
    bIdx = st.rideBoard[j * n + src]!;
    slot = st.rideSlot[j * n + src]!;
  }
  legs.reverse();
  const journey = { departSec: legs[0]!.depSec, arriveSec: legs[legs.length - 1]!.arrSec, rides, legs };
  return rs === null || keepsRules(rs, journey) ? journey : null;
}

/** Walking seconds of the footpath from -> to at the request's speed (0 when there is none). */
export function walkSec(core: TransitCore, req: RaptorRequest, from: number, to: number): number {
  for (let e = core.footStart[from]!; e < core.footStart[from + 1]!; e++) {
    if (core.footTo[e] === to) return Math.max(core.footMinSec[e]!, Math.ceil(core.footWalkM[e]! / req.walkSpeed));
  }
  return 0;
}
