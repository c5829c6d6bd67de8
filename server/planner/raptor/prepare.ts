// Purpose: everything derived from a timetable once, at load, passed to every search.
/**
 * What the search derives from a timetable, computed once when the timetable loads (`prepare`) and
 * handed to every search by the caller, which keeps it next to the timetable: the core keeps no
 * state of its own between calls (OTP: "Raptor keeps no data or state between calls").
 */
import { NO_PICKUP, arrAt, depAt, flagsAt, type TransitCore } from "../timetable/types.ts";
import { DayViews } from "./day-view.ts";
import { hopGraph, RealtimeHops, type HopGraph } from "./heuristic.ts";
import { ruleIndex, type RuleIndex } from "./transfer-rules.ts";

/** The cores a timetable is searched on: forward, and the mirror (timetable/reverse.ts) for arriveBy. */
export interface Cores {
  forward: TransitCore;
  /** mirrored core (timetable/reverse.ts), needed for arriveBy */
  backward: () => TransitCore;
}

/** One core and everything the search derives from it. */
export interface PreparedCore {
  readonly core: TransitCore;
  /** route -> 1 when along every trip no arrival is earlier than the arrival or departure at the stop before (monotoneRoutes) */
  readonly monotone: Uint8Array;
  /** route stop -> stop * 2 + 1 when boarding there can lead somewhere (boardingPositions), stop * 2 otherwise */
  readonly routeStopBoard: Int32Array;
  /** stop -> [bpStart[p], bpStart[p+1]) in bpRoutePos: (route, position) pairs where boarding can lead somewhere */
  readonly bpStart: Int32Array;
  readonly bpRoutePos: Int32Array;
  /** incoming footpaths: stop q -> [start[q], start[q+1]) in from (the stop walked from) and edge (its outgoing footpath index) */
  readonly footIn: { start: Int32Array; from: Int32Array; edge: Int32Array };
  /** the relaxed ride network of the destination bounds (heuristic.ts) */
  readonly hops: HopGraph;
  /** that network with realtime trips' faster rides taken in (built per list of them, the last one kept) */
  readonly rtHops: RealtimeHops;
  /** per-service-day trip views and the boarding lists of the sets of them searched (built on first use per day) */
  readonly days: DayViews;
  /** the transfer rules naming routes or trips, indexed for the search (transfer-rules.ts); null when the timetable has none */
  readonly rules: RuleIndex | null;
}

/** A timetable prepared for searching: the forward core, and the mirrored one prepared on the first arriveBy search. */
export interface Prepared {
  readonly forward: PreparedCore;
  backward(): PreparedCore;
}

export function prepare(cores: Cores): Prepared {
  const forward = prepareCore(cores.forward);
  let backward: PreparedCore | undefined;
  return { forward, backward: () => (backward ??= prepareCore(cores.backward(), true)) };
}

/** `mirrored`: the core is the mirror of the forward one (timetable/reverse.ts), whose realtime trip times day views mirror too. */
export function prepareCore(core: TransitCore, mirrored = false): PreparedCore {
  const { canBoard, stopStart, route, pos } = boardingPositions(core);
  const routeStopBoard = new Int32Array(core.routeStops.length);
  for (let i = 0; i < routeStopBoard.length; i++) routeStopBoard[i] = core.routeStops[i]! * 2 + (canBoard[i] ? 1 : 0);
  const bpStart = new Int32Array(stopStart.length);
  for (let i = 0; i < stopStart.length; i++) bpStart[i] = 2 * stopStart[i]!;
  const bpRoutePos = new Int32Array(2 * route.length);
  for (let i = 0; i < route.length; i++) {
    bpRoutePos[2 * i] = route[i]!;
    bpRoutePos[2 * i + 1] = pos[i]!;
  }
  const hops = hopGraph(core);
  return { core, monotone: monotoneRoutes(core), routeStopBoard, bpStart, bpRoutePos, footIn: incomingFootpaths(core), hops, rtHops: new RealtimeHops(hops, mirrored), days: new DayViews(core, mirrored), rules: ruleIndex(core) };
}

/**
 * route -> 1 when along every trip of the route no arrival is earlier than the arrival or the
 * departure at the stop before (GTFS requires it; checked, not assumed): a trip then arrives
 * everywhere after boarding no earlier than its departure there.
 */
function monotoneRoutes(core: TransitCore): Uint8Array {
  const { nRoutes, routeStopStart, routeTripStart, routeTime0, stopTimes } = core;
  const m = new Uint8Array(nRoutes);
  for (let r = 0; r < nRoutes; r++) {
    const nS = routeStopStart[r + 1]! - routeStopStart[r]!;
    const end = routeTime0[r]! + (routeTripStart[r + 1]! - routeTripStart[r]!) * nS;
    let ok = 1;
    for (let b = routeTime0[r]!; b < end && ok; b += nS) for (let j = 1; j < nS; j++) if (arrAt(stopTimes, b + j) < arrAt(stopTimes, b + j - 1) || arrAt(stopTimes, b + j) < depAt(stopTimes, b + j - 1)) ok = 0;
    m[r] = ok;
  }
  return m;
}

/**
 * Route stop -> 1 when boarding there can reach another stop: it is not the route's last stop and
 * at least one trip of the route allows pickup there (any day). Marking a route at, or searching a
 * trip from, any other position cannot change a label. Also core.stopRouteStart/Route/Pos
 * restricted to those route stops (CSR per stop).
 */
function boardingPositions(core: TransitCore): { canBoard: Uint8Array; stopStart: Int32Array; route: Int32Array; pos: Int32Array } {
  const { nRoutes, routeStopStart, routeTripStart, routeTime0, stopTimes } = core;
  const m = new Uint8Array(core.routeStops.length);
  for (let r = 0; r < nRoutes; r++) {
    const s0 = routeStopStart[r]!;
    const nS = routeStopStart[r + 1]! - s0;
    const nT = routeTripStart[r + 1]! - routeTripStart[r]!;
    const t0 = routeTime0[r]!;
    for (let j = 0; j < nS - 1; j++) {
      for (let i = 0; i < nT; i++) {
        if (!(flagsAt(stopTimes, t0 + i * nS + j) & NO_PICKUP)) {
          m[s0 + j] = 1;
          break;
        }
      }
    }
  }
  const { nStops, stopRouteStart, stopRouteRoute, stopRoutePos } = core;
  const stopStart = new Int32Array(nStops + 1);
  const route = new Int32Array(stopRouteRoute.length);
  const pos = new Int32Array(stopRouteRoute.length);
  let n = 0;
  for (let p = 0; p < nStops; p++) {
    stopStart[p] = n;
    for (let e = stopRouteStart[p]!; e < stopRouteStart[p + 1]!; e++) {
      const r = stopRouteRoute[e]!;
      if (!m[routeStopStart[r]! + stopRoutePos[e]!]) continue;
      route[n] = r;
      pos[n++] = stopRoutePos[e]!;
    }
  }
  stopStart[nStops] = n;
  return { canBoard: m, stopStart, route: route.slice(0, n), pos: pos.slice(0, n) };
}

/** Incoming footpaths per stop (CSR), in the order of the stops walked from. */
function incomingFootpaths(core: TransitCore): { start: Int32Array; from: Int32Array; edge: Int32Array } {
  const { nStops, footStart, footTo } = core;
  const start = new Int32Array(nStops + 1);
  for (let e = 0; e < footTo.length; e++) start[footTo[e]! + 1]!++;
  for (let q = 0; q < nStops; q++) start[q + 1] = start[q + 1]! + start[q]!;
  const fill = start.slice(0, nStops);
  const edge = new Int32Array(footTo.length);
  const from = new Int32Array(footTo.length);
  for (let p = 0; p < nStops; p++) {
    for (let e = footStart[p]!; e < footStart[p + 1]!; e++) {
      const k = fill[footTo[e]!]!++;
      edge[k] = e;
      from[k] = p;
    }
  }
  return { start, from, edge };
}
