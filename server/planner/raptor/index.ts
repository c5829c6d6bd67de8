// Purpose: the public entry of the RAPTOR core (prepare, searchJourneys, earliestArrivals, raptorRequest).
/**
 * Entry point of the planner core. `prepare(cores)` derives what the search needs from a timetable
 * once, when it loads; `searchJourneys(prepared, query, pool, config)` then runs a forward range
 * RAPTOR, or, for arriveBy, the same algorithm on the mirrored core, and hands back journeys in
 * forward order with times relative to query.epochSec. Nothing is kept between calls but what the
 * caller holds (the prepared timetable and its pool of scratch states). Imports only the planner api
 * and timetable interface.
 */
import { DEFAULT_RAPTOR_CONFIG, UNREACHED, type Journey, type JourneyLeg, type RaptorConfig, type RaptorRequest, type RaptorResult, type RaptorStats, type SearchQuery, type TripIdx } from "../api.ts";
import type { TransitCore } from "../timetable/types.ts";
import type { Prepared } from "./prepare.ts";
import { searchByCost } from "./mc.ts";
import { searchForward } from "./range.ts";
import { searchSteps } from "./minutes.ts";
import type { RaptorStatePool } from "./state.ts";

export { prepare, prepareCore, type Cores, type Prepared, type PreparedCore } from "./prepare.ts";
export { RaptorStatePool } from "./state.ts";
export { nonDominated } from "./paths.ts";
export { journeyCost } from "./mc.ts";
export type { SearchQuery } from "../api.ts";

/**
 * The one translation of a plan query into the forward RaptorRequest the core runs: departure
 * window and horizon to relative bounds, transfers to rides and, for arriveBy (`mirrored`), the
 * query in the mirrored core's time (negated times and offsets, access and egress swapped, the
 * slacks before the first and after the last ride swapped, and, given the mirrored core `back`,
 * trip masks in its trip order).
 */
export function raptorRequest(q: SearchQuery, mirrored: boolean, back?: TransitCore): RaptorRequest {
  const maxRides = q.maxTransfers + 1;
  const common = {
    epochSec: q.epochSec,
    windowSec: q.windowSec,
    maxRides,
    walkSpeed: q.walkSpeed,
    routeAllowed: q.routeAllowed,
    wheelchair: q.wheelchair,
    keepEarliest: q.keepEarliest,
    stopRules: q.stopRules,
    transferSlackSec: q.transferSlackSec ?? 0,
    maxDurationSec: q.maxDurationSec,
    noDestinationPruning: q.noDestinationPruning,
  };
  if (!mirrored) {
    const maxArrivalSec = q.timeSec + q.windowSec + q.horizonSec;
    return {
      ...common,
      departSec: q.timeSec,
      maxArrivalSec: q.arrivalLimitSec === undefined ? maxArrivalSec : Math.min(maxArrivalSec, q.arrivalLimitSec + 1),
      access: q.access,
      egress: q.egress,
      days: q.days,
      tripAllowed: q.tripAllowed,
      tripStopBans: q.tripStopBans,
      accessSlackSec: q.boardSlackSec ?? 0,
      egressSlackSec: q.alightSlackSec ?? 0,
      costs: q.costs,
    };
  }
  const offsetSec = new Int32Array(q.days.offsetSec.length);
  for (let i = 0; i < offsetSec.length; i++) offsetSec[i] = -q.days.offsetSec[i]!;
  const maxArrivalSec = -q.timeSec + q.windowSec + q.horizonSec;
  if ((q.tripAllowed || q.tripStopBans) && !back) throw new Error("raptorRequest: trip masks of a mirrored request need the mirrored core");
  return {
    ...common,
    departSec: -q.timeSec,
    maxArrivalSec: q.arrivalLimitSec === undefined ? maxArrivalSec : Math.min(maxArrivalSec, -q.arrivalLimitSec + 1),
    access: q.egress,
    egress: q.access,
    days: { nSlots: q.days.nSlots, offsetSec, active: q.days.active, realtime: q.days.realtime },
    ...mirrorTrips(back, q.tripAllowed, q.tripStopBans),
    accessSlackSec: q.alightSlackSec ?? 0,
    egressSlackSec: q.boardSlackSec ?? 0,
    costs: q.costs && q.costs.startSec !== undefined ? { ...q.costs, startSec: -q.costs.startSec } : q.costs,
  };
}

/** Trip masks in the mirrored core's trip order (its trips keep their forward index in tripOrig; positions count from the other end). */
function mirrorTrips(back: TransitCore | undefined, allowed?: Uint8Array, bans?: Map<number, Set<number>>): { tripAllowed?: Uint8Array; tripStopBans?: Map<number, Set<number>> } {
  if (!back || (!allowed && !bans)) return {};
  const out: { tripAllowed?: Uint8Array; tripStopBans?: Map<number, Set<number>> } = {};
  if (allowed) {
    const m = new Uint8Array(back.nTrips);
    for (let t = 0; t < m.length; t++) m[t] = allowed[back.tripOrig[t]!]!;
    out.tripAllowed = m;
  }
  if (bans) {
    const mirrorOf = new Int32Array(back.nTrips);
    for (let t = 0; t < back.nTrips; t++) mirrorOf[back.tripOrig[t]!] = t;
    const m = new Map<number, Set<number>>();
    for (const [trip, positions] of bans) {
      const t = mirrorOf[trip]!;
      // the route holding trip t (routeTripStart is ascending)
      let lo = 0;
      let hi = back.nRoutes - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >>> 1;
        if (back.routeTripStart[mid]! <= t) lo = mid;
        else hi = mid - 1;
      }
      const nS = back.routeStopStart[lo + 1]! - back.routeStopStart[lo]!;
      m.set(t, new Set([...positions].map((pos) => nS - 1 - pos)));
    }
    out.tripStopBans = m;
  }
  return out;
}

/**
 * The journeys of a plan query (forward order, times relative to q.epochSec). With q.costs the
 * generalized-cost mode runs (mc.ts: the range search and the cost search, the keepEarliest
 * cheapest kept); otherwise the range search alone.
 */
export function searchJourneys(prepared: Prepared, q: SearchQuery, pool: RaptorStatePool, config: RaptorConfig = DEFAULT_RAPTOR_CONFIG): RaptorResult {
  const pc = q.arriveBy ? prepared.backward() : prepared.forward;
  const req = raptorRequest(q, q.arriveBy, q.arriveBy ? pc.core : undefined);
  const st = pool.get(pc, req.maxRides);
  const res = req.costs ? searchByCost(pc, req, st, config) : searchForward(pc, req, st, config);
  if (!q.arriveBy) return res;
  return { journeys: res.journeys.map((j) => unmirror(pc.core, j)), stats: res.stats };
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
  const out: Journey = { departSec: -j.arriveSec, arriveSec: -j.departSec, rides: j.rides, legs };
  if (j.cost !== undefined) out.cost = j.cost;
  return out;
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
  // footpaths of transfer rule pairs are not in the boarding labels (transfer-rules.ts): the walk after a ride over them
  const rules = pc.rules;
  if (rules !== null) {
    for (let e = 0; e < rules.nEntries; e++) {
      const f = rules.eFoot[e]!, s = rules.eSrc[e]!, q = rules.eTgt[e]!;
      if (f < 0) continue;
      for (let k = 1; k <= req.maxRides; k++) {
        const a = st.ride[k * n + s]!;
        if (a < UNREACHED && a + st.footSec[f]! < out[q]!) out[q] = a + st.footSec[f]!;
      }
    }
  }
  return out;
}

/**
 * Range RAPTOR at every step of a departure window (minutes.ts): departures q.timeSec + i * stepSec,
 * i = nSteps - 1 down to 0; after each, `onStep(i, departSec, arrivals, changed, nChanged)` with the
 * earliest arrival by a ride at each of `stops` (relative seconds, UNREACHED when none; the array is
 * kept from step to step) and the indices into `stops` whose arrival fell in that step
 * (changed[0 .. nChanged)). For travel-time analyses (server/planner/analysis/).
 */
export function stepArrivals(
  prepared: Prepared, q: SearchQuery, pool: RaptorStatePool, nSteps: number, stepSec: number, stops: Int32Array,
  onStep: (i: number, departSec: number, arrivals: Int32Array, changed: Int32Array, nChanged: number) => void, config: RaptorConfig = DEFAULT_RAPTOR_CONFIG,
): RaptorStats {
  const pc = prepared.forward;
  const req = raptorRequest({ ...q, arriveBy: false, windowSec: (nSteps - 1) * stepSec, egress: [], keepEarliest: undefined, costs: undefined }, false);
  return searchSteps(pc, req, pool.get(pc, req.maxRides), config, nSteps, stepSec, stops, onStep);
}
