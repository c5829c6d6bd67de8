// Purpose: the public entry of the RAPTOR core (prepare, searchJourneys, earliestArrivals, raptorRequest).
/**
 * Entry point of the planner core. `prepare(cores)` derives what the search needs from a timetable
 * once, when it loads; `searchJourneys(prepared, query, pool, config)` then runs a forward range
 * RAPTOR, or, for arriveBy, the same algorithm on the mirrored core, and hands back journeys in
 * forward order with times relative to query.epochSec. Nothing is kept between calls but what the
 * caller holds (the prepared timetable and its pool of scratch states). Imports only the planner api
 * and timetable interface.
 */
import { DEFAULT_RAPTOR_CONFIG, UNREACHED, type Journey, type JourneyLeg, type RaptorConfig, type RaptorRequest, type RaptorResult, type SearchQuery, type TripIdx } from "../api.ts";
import type { TransitCore } from "../timetable/types.ts";
import type { Prepared } from "./prepare.ts";
import { searchForward } from "./range.ts";
import type { RaptorStatePool } from "./state.ts";

export { prepare, prepareCore, type Cores, type Prepared, type PreparedCore } from "./prepare.ts";
export { RaptorStatePool } from "./state.ts";
export { nonDominated } from "./paths.ts";
export type { SearchQuery } from "../api.ts";

/**
 * The one translation of a plan query into the forward RaptorRequest the core runs: departure
 * window and horizon to relative bounds, transfers to rides and, for arriveBy (`mirrored`), the
 * query in the mirrored core's time (negated times and offsets, access and egress swapped).
 */
export function raptorRequest(q: SearchQuery, mirrored: boolean): RaptorRequest {
  const maxRides = q.maxTransfers + 1;
  if (!mirrored) {
    return {
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
  }
  const offsetSec = new Int32Array(q.days.offsetSec.length);
  for (let i = 0; i < offsetSec.length; i++) offsetSec[i] = -q.days.offsetSec[i]!;
  return {
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
}

export function searchJourneys(prepared: Prepared, q: SearchQuery, pool: RaptorStatePool, config: RaptorConfig = DEFAULT_RAPTOR_CONFIG): RaptorResult {
  const req = raptorRequest(q, q.arriveBy);
  if (!q.arriveBy) return searchForward(prepared.forward, req, pool.get(prepared.forward, req.maxRides), config);
  const back = prepared.backward();
  const res = searchForward(back, req, pool.get(back, req.maxRides), config);
  return { journeys: res.journeys.map((j) => unmirror(back.core, j)), stats: res.stats };
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
          trip: back.tripOrig[l.trip]! as TripIdx,
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
export function earliestArrivals(prepared: Prepared, q: SearchQuery, pool: RaptorStatePool, config: RaptorConfig = DEFAULT_RAPTOR_CONFIG): Int32Array {
  const pc = prepared.forward;
  const req: RaptorRequest = { ...raptorRequest({ ...q, windowSec: 0, egress: [], keepEarliest: undefined }, false), everyStop: true };
  const st = pool.get(pc, req.maxRides);
  searchForward(pc, req, st, config);
  const n = pc.core.nStops;
  const out = new Int32Array(n).fill(UNREACHED);
  for (let k = 0; k <= req.maxRides; k++) {
    const base = k * n;
    for (let p = 0; p < n; p++) {
      const t = Math.min(st.board[base + p]!, st.ride[base + p]!);
      if (t < out[p]!) out[p] = t;
    }
  }
  return out;
}
