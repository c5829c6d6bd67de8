/**
 * The mirrored core for backward (arriveBy) searches: every route runs backwards, times are negated
 * (so "latest departure" becomes "earliest arrival"), pickup and drop-off swap, footpaths point the
 * other way. A forward RAPTOR on the mirror is a backward RAPTOR on the original; trips keep their
 * forward index in tripOrig. Built once per loaded timetable.
 */
import { NO_DROP_OFF, NO_PICKUP, type TransitCore } from "./types.ts";

/** The mirror of core `c` (see the file's comment), step by step. */
export function reverseCore(c: TransitCore): TransitCore {
  const { routeStops, stopTimes, tripService, tripWheelchair, tripOrig } = reverseRoutes(c);
  const stopRoutePos = reverseStopRoutePos(c);
  const { footStart, footTo, footDistM, footWalkM, footMinSec } = incomingFootpaths(c);
  const transferRules = mirroredRules(c, tripOrig);
  const { routeMinDepSec, routeMaxArrSec } = reverseRouteBounds(c);
  return {
    ...c,
    routeStops,
    stopTimes,
    tripService,
    tripWheelchair,
    tripOrig,
    stopRoutePos,
    footStart,
    footTo,
    footDistM,
    footWalkM,
    footMinSec,
    routeMinDepSec,
    routeMaxArrSec,
    transferRules,
  };
}

/** Every route backwards: its stops reversed, its trips in reverse order with their stop times negated and pickup / drop-off swapped. */
function reverseRoutes(c: TransitCore) {
  const routeStops = new Int32Array(c.routeStops.length);
  const stopTimes = new Int32Array(c.stopTimes.length);
  const src = c.stopTimes;
  const tripService = new Int32Array(c.nTrips);
  const tripWheelchair = new Uint8Array(c.nTrips);
  const tripOrig = new Int32Array(c.nTrips);
  for (let r = 0; r < c.nRoutes; r++) {
    const s0 = c.routeStopStart[r]!;
    const nS = c.routeStopStart[r + 1]! - s0;
    for (let j = 0; j < nS; j++) routeStops[s0 + j] = c.routeStops[s0 + nS - 1 - j]!;
    const t0 = c.routeTripStart[r]!;
    const nT = c.routeTripStart[r + 1]! - t0;
    const time0 = c.routeTime0[r]!;
    for (let i = 0; i < nT; i++) {
      const srcTrip = nT - 1 - i;
      tripService[t0 + i] = c.tripService[t0 + srcTrip]!;
      tripWheelchair[t0 + i] = c.tripWheelchair[t0 + srcTrip]!;
      tripOrig[t0 + i] = c.tripOrig[t0 + srcTrip]!;
      for (let j = 0; j < nS; j++) {
        const from = time0 + srcTrip * nS + (nS - 1 - j);
        const to = time0 + i * nS + j;
        const f = src[2 * from]! & 3;
        const g = (f & NO_PICKUP ? NO_DROP_OFF : 0) | (f & NO_DROP_OFF ? NO_PICKUP : 0);
        // arrival = -departure, departure = -arrival, pickup and drop-off swapped
        stopTimes[2 * to] = -(src[2 * from + 1]! >> 2) * 4 + g;
        stopTimes[2 * to + 1] = -(src[2 * from]! >> 2) * 4 + g;
      }
    }
  }
  return { routeStops, stopTimes, tripService, tripWheelchair, tripOrig };
}

/** Each (stop, route) entry's position counted from the route's other end. */
function reverseStopRoutePos(c: TransitCore): Int32Array {
  const stopRoutePos = new Int32Array(c.stopRoutePos.length);
  for (let e = 0; e < stopRoutePos.length; e++) {
    const r = c.stopRouteRoute[e]!;
    const nS = c.routeStopStart[r + 1]! - c.routeStopStart[r]!;
    stopRoutePos[e] = nS - 1 - c.stopRoutePos[e]!;
  }
  return stopRoutePos;
}

/** The footpaths turned round: each stop's incoming footpaths as its outgoing ones (CSR by the old to stop). */
function incomingFootpaths(c: TransitCore) {
  const nF = c.footTo.length;
  const footStart = new Int32Array(c.nStops + 1);
  for (let e = 0; e < nF; e++) footStart[c.footTo[e]! + 1]!++;
  for (let s = 0; s < c.nStops; s++) footStart[s + 1]! += footStart[s]!;
  const fill = footStart.slice(0, c.nStops);
  const footTo = new Int32Array(nF);
  const footDistM = new Float64Array(nF);
  const footWalkM = new Float64Array(nF);
  const footMinSec = new Int32Array(nF);
  for (let s = 0; s < c.nStops; s++) {
    for (let e = c.footStart[s]!; e < c.footStart[s + 1]!; e++) {
      const q = c.footTo[e]!;
      const at = fill[q]!++;
      footTo[at] = s;
      footDistM[at] = c.footDistM[e]!;
      footWalkM[at] = c.footWalkM[e]!;
      footMinSec[at] = c.footMinSec[e]!;
    }
  }
  return { footStart, footTo, footDistM, footWalkM, footMinSec };
}

/** Transfer rules: the mirror rides the departing trip first, so each rule's sides swap (null: none). */
function mirroredRules(c: TransitCore, tripOrig: Int32Array): TransitCore["transferRules"] {
  const tr = c.transferRules;
  if (!tr) return null;
  const tripRule = new Int32Array(c.nTrips);
  for (let t = 0; t < c.nTrips; t++) tripRule[t] = tr.tripRule[tripOrig[t]!]!;
  return { ...tr, fromStop: tr.toStop, toStop: tr.fromStop, fromRoute: tr.toRoute, toRoute: tr.fromRoute, fromTrip: tr.toTrip, toTrip: tr.fromTrip, tripRule };
}

/** A route's earliest departure and latest arrival, negated and swapped. */
function reverseRouteBounds(c: TransitCore): { routeMinDepSec: Int32Array; routeMaxArrSec: Int32Array } {
  const routeMinDepSec = new Int32Array(c.nRoutes);
  const routeMaxArrSec = new Int32Array(c.nRoutes);
  for (let r = 0; r < c.nRoutes; r++) {
    routeMinDepSec[r] = -c.routeMaxArrSec[r]!;
    routeMaxArrSec[r] = -c.routeMinDepSec[r]!;
  }
  return { routeMinDepSec, routeMaxArrSec };
}
