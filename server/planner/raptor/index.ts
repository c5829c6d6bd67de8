/**
 * Entry point of the planner core: `searchJourneys(cores, query, pool)` runs a forward range RAPTOR,
 * or, for arriveBy, the same algorithm on the mirrored core, and hands back journeys in forward
 * order with times relative to query.epochSec. Imports only the planner api and timetable interface.
 */
import { UNREACHED, type Journey, type JourneyLeg, type RaptorRequest, type RaptorResult, type ServiceDays, type StopWalk } from "../api.ts";
import type { TransitCore } from "../timetable/types.ts";
import { searchForward } from "./search.ts";
import { RaptorStatePool } from "./state.ts";

export { RaptorStatePool } from "./state.ts";
export { destinationPruning } from "./heuristic.ts";
export { reachPruning } from "./search.ts";
export { nonDominated } from "./search.ts";

export interface SearchQuery {
  epochSec: number;
  /** departure time, or with arriveBy the latest arrival (relative seconds) */
  timeSec: number;
  arriveBy: boolean;
  /** departures (arrivals for arriveBy) in a window of this many seconds after (before) timeSec */
  windowSec: number;
  /** how far from timeSec the search looks, seconds */
  horizonSec: number;
  access: StopWalk[];
  egress: StopWalk[];
  maxTransfers: number;
  walkSpeed: number;
  days: ServiceDays;
  routeAllowed?: Uint8Array;
  wheelchair: boolean;
  /** only the n earliest arrivals (latest departures for arriveBy) are wanted (RaptorRequest.keepEarliest) */
  keepEarliest?: number;
}

export interface Cores {
  forward: TransitCore;
  /** mirrored core (timetable/reverse.ts), needed for arriveBy */
  backward: () => TransitCore;
}

export function searchJourneys(cores: Cores, q: SearchQuery, pool: RaptorStatePool): RaptorResult {
  const maxRides = q.maxTransfers + 1;
  if (!q.arriveBy) {
    const req: RaptorRequest = {
      epochSec: q.epochSec,
      departSec: q.timeSec,
      windowSec: q.windowSec,
      maxArrivalSec: q.timeSec + q.windowSec + q.horizonSec,
      access: q.access,
      egress: q.egress,
      maxRides,
      walkSpeed: q.walkSpeed,
      days: q.days,
      routeAllowed: q.routeAllowed,
      wheelchair: q.wheelchair,
      keepEarliest: q.keepEarliest,
    };
    return searchForward(cores.forward, req, pool.get(cores.forward, maxRides));
  }
  const back = cores.backward();
  const offsetSec = new Int32Array(q.days.offsetSec.length);
  for (let i = 0; i < offsetSec.length; i++) offsetSec[i] = -q.days.offsetSec[i]!;
  const req: RaptorRequest = {
    epochSec: q.epochSec,
    departSec: -q.timeSec,
    windowSec: q.windowSec,
    maxArrivalSec: -q.timeSec + q.windowSec + q.horizonSec,
    access: q.egress,
    egress: q.access,
    maxRides,
    walkSpeed: q.walkSpeed,
    days: { nSlots: q.days.nSlots, offsetSec, active: q.days.active },
    routeAllowed: q.routeAllowed,
    wheelchair: q.wheelchair,
    keepEarliest: q.keepEarliest,
  };
  const res = searchForward(back, req, pool.get(back, maxRides));
  return { journeys: res.journeys.map((j) => unmirror(back, j)), stats: res.stats };
}

/** Turn a journey found on the mirrored core into a forward journey. */
function unmirror(back: TransitCore, j: Journey): Journey {
  const legs: JourneyLeg[] = [];
  for (let i = j.legs.length - 1; i >= 0; i--) {
    const l = j.legs[i]!;
    switch (l.kind) {
      case "access":
        legs.push({ kind: "egress", stop: l.stop, depSec: -l.arrSec, arrSec: -l.depSec });
        break;
      case "egress":
        legs.push({ kind: "access", stop: l.stop, depSec: -l.arrSec, arrSec: -l.depSec });
        break;
      case "transfer":
        legs.push({ kind: "transfer", fromStop: l.toStop, toStop: l.fromStop, depSec: -l.arrSec, arrSec: -l.depSec });
        break;
      case "ride": {
        const nS = back.routeStopStart[l.route + 1]! - back.routeStopStart[l.route]!;
        legs.push({
          kind: "ride",
          route: l.route,
          trip: back.tripOrig[l.trip]!,
          slot: l.slot,
          boardPos: nS - 1 - l.alightPos,
          alightPos: nS - 1 - l.boardPos,
          fromStop: l.toStop,
          toStop: l.fromStop,
          depSec: -l.arrSec,
          arrSec: -l.depSec,
        });
        break;
      }
    }
  }
  return { departSec: -j.arriveSec, arriveSec: -j.departSec, rides: j.rides, legs };
}

/**
 * Earliest arrival at every stop (relative seconds, UNREACHED when not reached) for a departure at
 * q.timeSec: one forward iteration without a destination, so nothing is pruned by a target.
 */
export function earliestArrivals(core: TransitCore, q: SearchQuery, pool: RaptorStatePool): Int32Array {
  const maxRides = q.maxTransfers + 1;
  const st = pool.get(core, maxRides);
  searchForward(
    core,
    {
      epochSec: q.epochSec,
      departSec: q.timeSec,
      windowSec: 0,
      maxArrivalSec: q.timeSec + q.horizonSec,
      access: q.access,
      egress: [],
      maxRides,
      walkSpeed: q.walkSpeed,
      days: q.days,
      routeAllowed: q.routeAllowed,
      wheelchair: q.wheelchair,
      everyStop: true,
    },
    st,
  );
  const n = core.nStops;
  const out = new Int32Array(n).fill(UNREACHED);
  for (let k = 0; k <= maxRides; k++) {
    const base = k * n;
    for (let p = 0; p < n; p++) {
      const t = Math.min(st.board[base + p]!, st.ride[base + p]!);
      if (t < out[p]!) out[p] = t;
    }
  }
  return out;
}
