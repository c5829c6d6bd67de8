/**
 * Range RAPTOR (Delling, Pajor, Werneck: "Round-Based Public Transit Routing", Transportation
 * Science 49(3), 2015, sections 3 and 4.1) on a TransitCore. Round k holds the best arrivals with
 * exactly k rides, so the labels at the destination form the Pareto set on (arrival, rides); the
 * range variant runs one iteration per departure in the window, latest first, keeping labels, so
 * each iteration only adds journeys that leave later or arrive earlier than all found so far.
 * Always searches "forward" in time; backward searches run it on the mirrored core (index.ts).
 */
import { UNREACHED, type Journey, type JourneyLeg, type RaptorRequest, type RaptorStats } from "../api.ts";
import { NO_DROP_OFF, NO_PICKUP, arrAt, depAt, flagsAt, type TransitCore } from "../timetable/types.ts";
import { dayView, type DayView } from "./day-view.ts";
import { destinationBounds, destinationPruning } from "./heuristic.ts";
import { RaptorState, REACH_LEVELS, SRC_ACCESS, SRC_INHERITED } from "./state.ts";

/** Limits of the last rounds' scans to what can still reach the destination (reachAhead); off only in tests that compare. */
export const reachPruning = { enabled: true };

/** Upper bound on range iterations; denser departure lists are thinned. */
const MAX_ITERATIONS = 90;

/** Shortest first window of a search that only wants the `keepEarliest` earliest arrivals (see searchForward). */
const FIRST_WINDOW_SEC = 900;
/** The first window holds at least this many departures per wanted journey. */
const FIRST_WINDOW_DEPARTURES_PER_JOURNEY = 4;

/**
 * Range RAPTOR over [departSec, departSec + windowSec]: one iteration per departure, latest first.
 *
 * When only the n = keepEarliest earliest arrivals are wanted and the window is long, a shorter
 * first window is tried: the first 15 minutes, or up to the 4n-th departure when that is later
 * (departures are thinned to MAX_ITERATIONS per window, so the short window samples them densely).
 * It answers when it finds n journeys and its first iteration (its latest departure d1) arrives
 * strictly after the n-th of them: the earliest arrival departing at or after d1 bounds every
 * journey leaving later in the window (one can wait at the origin), so none of those can arrive by
 * the n-th arrival or dominate a journey that does, and the n earliest are the same as over the
 * whole window. Otherwise the whole window is searched from scratch.
 */
export function searchForward(core: TransitCore, req: RaptorRequest, st: RaptorState): { journeys: Journey[]; stats: RaptorStats } {
  for (const a of req.access) {
    const prev = st.accessSec[a.stop]!;
    st.accessSec[a.stop] = prev < 0 ? a.walkSec : Math.min(prev, a.walkSec);
  }
  // per egress stop: the shortest walk, and the first egress entry with it (the destination check's tie order)
  for (let i = 0; i < req.egress.length; i++) {
    const eg = req.egress[i]!;
    const prev = st.egressSec[eg.stop]!;
    if (prev < 0 || eg.walkSec < prev) {
      st.egressSec[eg.stop] = eg.walkSec;
      st.egressIdx[eg.stop] = i;
    }
  }
  st.reachLevels = -1;
  if (!req.everyStop && reachPruning.enabled) reachAhead(core, req, st);
  const stats: RaptorStats = { iterations: 0, rounds: 0, routesScanned: 0, stopsVisited: 0, footpaths: 0 };
  try {
    const views = dayViews(core, req);
    markLiveRoutes(core, req, st, views);
    st.footpathSeconds(core, req.walkSpeed);
    const cx = scanContext(core, views);
    const { uniq, pairs } = departures(core, req, st, views);
    const keep = req.keepEarliest ?? 0;
    if (keep > 0 && req.windowSec > 2 * FIRST_WINDOW_SEC) {
      // uniq is latest first: the (4n)-th departure from the start is uniq[len - 4n]
      const nth = uniq[Math.max(0, uniq.length - FIRST_WINDOW_DEPARTURES_PER_JOURNEY * keep)]!;
      const end = req.departSec + Math.max(FIRST_WINDOW_SEC, nth - req.departSec);
      if (end - req.departSec <= req.windowSec / 2) {
        const first = iterate(core, req, st, cx, thin(uniq.filter((d) => d <= end)), pairs, stats);
        const arrivals = nonDominated(first.journeys).map((j) => j.arriveSec).sort((a, b) => a - b);
        if (arrivals.length >= keep && first.firstArrival > arrivals[keep - 1]!) return { journeys: first.journeys, stats: { ...stats, window: "short" } };
        stats.window = "short+full";
      }
    }
    const journeys = iterate(core, req, st, cx, thin(uniq), pairs, stats).journeys;
    if (keep > 0 && !stats.window) stats.window = "full";
    return { journeys, stats };
  } finally {
    for (const a of req.access) st.accessSec[a.stop] = -1;
    for (const eg of req.egress) st.egressSec[eg.stop] = -1;
    for (let l = 0; l < st.reachLast.length; l++) {
      const last = st.reachLast[l]!, routes = st.reachRoutes[l]!;
      for (let i = 0; i < st.nReachRoutes[l]!; i++) last[routes[i]!] = -1;
      st.nReachRoutes[l] = 0;
    }
  }
}

const reverseFootCache = new WeakMap<TransitCore, { start: Int32Array; from: Int32Array }>();

/** Incoming footpaths per stop (CSR), built once per core. */
function reverseFootpaths(core: TransitCore): { start: Int32Array; from: Int32Array } {
  let c = reverseFootCache.get(core);
  if (c) return c;
  const { nStops, footStart, footTo } = core;
  const start = new Int32Array(nStops + 1);
  for (let e = 0; e < footTo.length; e++) start[footTo[e]! + 1]!++;
  for (let p = 0; p < nStops; p++) start[p + 1]! += start[p]!;
  const at = start.slice(0, nStops);
  const from = new Int32Array(footTo.length);
  for (let p = 0; p < nStops; p++) for (let e = footStart[p]!; e < footStart[p + 1]!; e++) from[at[footTo[e]!]!++] = p;
  c = { start, from };
  reverseFootCache.set(core, c);
  return c;
}

/**
 * Per route, the last position where a ride label can still lead to the destination, for the last
 * rounds (st.reachLast[l]: round last - l). Level 0: the last egress stop (the last round's labels
 * are read only by the destination check: no transfers follow, journeys end at a ride label). Level
 * l: a ride label of round last - l is read by the destination check (egress stops) and by that
 * round's transfers, whose labels are read by the next round only where boarding can reach a level
 * l - 1 position: so only egress stops and stops with a stay or one footpath to such a boarding
 * stop matter, and a route only up to its last such stop. Exact: every label these limits skip is
 * one no journey to the destination within the remaining rounds can use.
 */
function reachAhead(core: TransitCore, req: RaptorRequest, st: RaptorState): void {
  const { reachLast, reachRoutes, nReachRoutes, reachMark, reachBoard, reachList } = st;
  const { stopRouteStart, stopRouteRoute, stopRoutePos, routeStopStart, routeStops } = core;
  const rev = reverseFootpaths(core);
  // level 0: egress stops' routes
  {
    const last = reachLast[0]!, routes = reachRoutes[0]!;
    let nr = 0;
    for (const eg of req.egress) {
      for (let e = stopRouteStart[eg.stop]!; e < stopRouteStart[eg.stop + 1]!; e++) {
        const r = stopRouteRoute[e]!;
        if (last[r]! < 0) routes[nr++] = r;
        if (stopRoutePos[e]! > last[r]!) last[r] = stopRoutePos[e]!;
      }
    }
    nReachRoutes[0] = nr;
  }
  const levels = Math.min(REACH_LEVELS, req.maxRides - 1);
  st.reachLevels = 0;
  for (let l = 1; l <= levels; l++) {
    const prevLast = reachLast[l - 1]!, prevRoutes = reachRoutes[l - 1]!;
    let n = 0;
    const mark = (q: number) => {
      if (!reachMark[q]) {
        reachMark[q] = 1;
        reachList[n++] = q;
      }
    };
    for (const eg of req.egress) mark(eg.stop);
    // boarding stops (before a route's level l - 1 position), then the stops a stay or footpath leaves them from
    for (let i = 0; i < nReachRoutes[l - 1]!; i++) {
      const r = prevRoutes[i]!;
      for (let x = routeStopStart[r]!, end = x + prevLast[r]!; x < end; x++) {
        const q = routeStops[x]!;
        if (reachBoard[q]) continue;
        reachBoard[q] = 1;
        mark(q);
      }
    }
    const nBoard = n;
    if (l > 1 && nBoard > core.nStops >> 3) {
      // the limits would cost more to compute than they save (they prune little when this many
      // stops can board toward the destination): the earlier rounds scan in full
      for (let i = 0; i < n; i++) reachMark[reachList[i]!] = reachBoard[reachList[i]!] = 0;
      break;
    }
    for (let i = 0; i < nBoard; i++) {
      const q = reachList[i]!;
      if (!reachBoard[q]) continue;
      for (let f = rev.start[q]!; f < rev.start[q + 1]!; f++) mark(rev.from[f]!);
    }
    const last = reachLast[l]!, routes = reachRoutes[l]!;
    let nr = 0;
    for (let i = 0; i < n; i++) {
      const p = reachList[i]!;
      reachMark[p] = 0;
      reachBoard[p] = 0;
      for (let e = stopRouteStart[p]!; e < stopRouteStart[p + 1]!; e++) {
        const r = stopRouteRoute[e]!;
        if (last[r]! < 0) routes[nr++] = r;
        if (stopRoutePos[e]! > last[r]!) last[r] = stopRoutePos[e]!;
      }
    }
    nReachRoutes[l] = nr;
    st.reachLevels = l;
  }
}

/**
 * Journeys no other one dominates: another leaves no earlier, arrives no later, with no more rides,
 * and is better in one of them (of equal journeys the first is kept). Input order is kept.
 */
export function nonDominated(js: Journey[]): Journey[] {
  return js.filter(
    (a, i) => !js.some((b, k) => k !== i && b.departSec >= a.departSec && b.arriveSec <= a.arriveSec && b.rides <= a.rides && (b.departSec > a.departSec || b.arriveSec < a.arriveSec || b.rides < a.rides || k < i)),
  );
}

/**
 * The range iterations over `times` (latest first) from cleared labels; firstArrival = the earliest
 * destination arrival of the first (latest) departure. `pairs` lists every access departure (see
 * departures()); those after times[0] are marked in the first iteration.
 */
function iterate(core: TransitCore, req: RaptorRequest, st: RaptorState, cx: ScanContext, times: number[], pairs: Float64Array, stats: RaptorStats): { journeys: Journey[]; firstArrival: number } {
  let firstArrival = UNREACHED;
  const rounds = req.maxRides + 1;
  st.reset(rounds, req.maxArrivalSec, req.windowSec > 0);
  const journeys: Journey[] = [];
  const improvedEgress = new Int32Array(rounds);
  // lower bounds to the destination (heuristic.ts): 0 (no pruning) until the destination is first
  // reached; only range searches with several departures compute them (one search costs about as
  // much as the bounds)
  st.toTarget.fill(0);
  st.boundsSet = false;
  st.boundsReady = req.egress.length === 0 || times.length < 2 || !destinationPruning.enabled;
  // access stops to mark in the current iteration (all in the first one)
  const accessMark = new Uint8Array(req.access.length).fill(1);
  let pi = pairs.length - 1;
  const keep = req.keepEarliest ?? 0;
  for (let it = 0; it < times.length; it++) {
    const dep = times[it]!;
    stats.iterations++;
    improvedEgress.fill(-1);
    // an access stop none of whose trips leaves in [dep, previous departure) (plus its walk) offers
    // the same trips as in the previous iteration: its label is lowered but it is not marked
    if (it > 0) accessMark.fill(0);
    for (; pi >= 0 && pairs[pi]! >= dep * PAIR; pi--) {
      const key = pairs[pi]!;
      accessMark[key - Math.floor(key / PAIR) * PAIR] = 1;
    }
    runIteration(core, req, st, cx, dep, accessMark, improvedEgress, stats);
    if (it === 0) for (let k = 0; k < rounds; k++) firstArrival = Math.min(firstArrival, st.targetBest[k]!);
    let found = false;
    for (let k = 1; k < rounds; k++) {
      if (improvedEgress[k]! >= 0) {
        journeys.push(reconstruct(core, req, st, k, improvedEgress[k]!));
        found = true;
      }
    }
    if (found && keep > 0 && journeys.length >= keep) capArrivals(journeys, keep, st.targetBest);
  }
  return { journeys, firstArrival };
}

/**
 * Only the `keep` earliest arrivals are wanted: a journey arriving after the keep-th earliest found so
 * far (A) is never among them, since later iterations (earlier departures) only add journeys. Range
 * RAPTOR never reports a journey dominated by a later-reported one (that one would have been found in
 * an earlier iteration and pruned it), so the found set only grows and A only falls. Lowering every
 * round's destination bound to A + 1 (ties may still win on rides) is then target pruning with a
 * smaller target: journeys arriving by A are found exactly as before.
 */
function capArrivals(journeys: Journey[], keep: number, targetBest: Int32Array): void {
  const arr = journeys.map((j) => j.arriveSec).sort((a, b) => a - b);
  const cap = arr[keep - 1]! + 1;
  for (let k = 0; k < targetBest.length; k++) if (cap < targetBest[k]!) targetBest[k] = cap;
}

const monotoneCache = new WeakMap<TransitCore, Uint8Array>();

/**
 * route -> 1 when along every trip of the route no arrival is earlier than the arrival or the
 * departure at the stop before (GTFS requires it; checked, not assumed): a trip then arrives
 * everywhere after boarding no earlier than its departure there.
 */
function monotoneRoutes(core: TransitCore): Uint8Array {
  let m = monotoneCache.get(core);
  if (m) return m;
  const { nRoutes, routeStopStart, routeTripStart, routeTime0, stopTimes } = core;
  m = new Uint8Array(nRoutes);
  for (let r = 0; r < nRoutes; r++) {
    const nS = routeStopStart[r + 1]! - routeStopStart[r]!;
    const end = routeTime0[r]! + (routeTripStart[r + 1]! - routeTripStart[r]!) * nS;
    let ok = 1;
    for (let b = routeTime0[r]!; b < end && ok; b += nS) for (let j = 1; j < nS; j++) if (arrAt(stopTimes, b + j) < arrAt(stopTimes, b + j - 1) || arrAt(stopTimes, b + j) < depAt(stopTimes, b + j - 1)) ok = 0;
    m[r] = ok;
  }
  monotoneCache.set(core, m);
  return m;
}

interface BoardingPositions {
  /** route stop (index into routeStops) -> 1 when boarding there can lead somewhere */
  canBoard: Uint8Array;
  /** core.stopRouteStart/Route/Pos restricted to those route stops (CSR per stop) */
  stopStart: Int32Array;
  route: Int32Array;
  pos: Int32Array;
}
const boardingCache = new WeakMap<TransitCore, BoardingPositions>();

/**
 * Route stop -> 1 when boarding there can reach another stop: it is not the route's last stop and
 * at least one trip of the route allows pickup there (any day). Marking a route at, or searching a
 * trip from, any other position cannot change a label.
 */
function boardingPositions(core: TransitCore): BoardingPositions {
  const cached = boardingCache.get(core);
  if (cached) return cached;
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
  const out = { canBoard: m, stopStart, route: route.slice(0, n), pos: pos.slice(0, n) };
  boardingCache.set(core, out);
  return out;
}

/** One day view per (slot, timezone): the trips that run on that service day. */
function dayViews(core: TransitCore, req: RaptorRequest): DayView[] {
  const { nSlots, active } = req.days;
  const out: DayView[] = [];
  for (let slot = 0; slot < nSlots; slot++) {
    for (let tz = 0; tz < core.nTz; tz++) out.push(dayView(core, tz, active, (slot * core.nTz + tz) * core.nServices, req.wheelchair));
  }
  return out;
}

/**
 * Per (route, slot): first active trip, their count (0 when none runs inside the searched time span
 * or the mode filter excludes the route), first departure and last arrival. routeLive[r] = 1 when the
 * route runs on some slot; the others are never marked (routeMarkedPos -2).
 */
function markLiveRoutes(core: TransitCore, req: RaptorRequest, st: RaptorState, views: DayView[]): void {
  const { routeLive: live, routeMarkedPos } = st;
  const { offsetSec, nSlots } = req.days;
  st.ensureSlots(nSlots);
  const { slotC0, slotNT, slotMin, slotMax, slotMaxDep, slotT0 } = st;
  const { nTz, nRoutes, routeTz } = core;
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

const PAIR = 65536;

/**
 * Departure times to iterate, latest first: each active trip leaving an access stop inside the
 * window (minus the walk), then departSec (thin() caps their number). `pairs` holds every such
 * departure as d * PAIR + access index, ascending, so iterations know which access stops gained a trip.
 */
function departures(core: TransitCore, req: RaptorRequest, st: RaptorState, views: DayView[]): { uniq: number[]; pairs: Float64Array } {
  if (req.windowSec <= 0 || req.access.length >= PAIR) return { uniq: [req.departSec], pairs: new Float64Array(0) };
  const out: number[] = [];
  const { offsetSec, nSlots } = req.days;
  const nTz = core.nTz;
  const { stopTimes } = core;
  const end = req.departSec + req.windowSec;
  for (let ai = 0; ai < req.access.length; ai++) {
    const a = req.access[ai]!;
    for (let e = core.stopRouteStart[a.stop]!; e < core.stopRouteStart[a.stop + 1]!; e++) {
      const r = core.stopRouteRoute[e]!;
      if (!st.routeLive[r]) continue;
      const pos = core.stopRoutePos[e]!;
      const nS = core.routeStopStart[r + 1]! - core.routeStopStart[r]!;
      const time0 = core.routeTime0[r]! + pos;
      const tz = core.routeTz[r]!;
      for (let slot = 0; slot < nSlots; slot++) {
        const v = views[slot * nTz + tz]!;
        const c0 = v.tripStart[r]!;
        const nT = v.tripStart[r + 1]! - c0;
        const off = offsetSec[slot * nTz + tz]!;
        if (nT === 0 || off + v.maxArr[r]! < req.departSec + a.walkSec || off + v.minDep[r]! > end + a.walkSec) continue;
        const want = req.departSec + a.walkSec - off;
        const last = end + a.walkSec - off;
        let lo = 0;
        let hi = nT;
        while (lo < hi) {
          const mid = (lo + hi) >>> 1;
          if (depAt(stopTimes, time0 + v.trips[c0 + mid]! * nS) < want) lo = mid + 1;
          else hi = mid;
        }
        for (let m = lo; m < nT; m++) {
          const idx = time0 + v.trips[c0 + m]! * nS;
          const d = depAt(stopTimes, idx);
          if (d > last) break;
          if (flagsAt(stopTimes, idx) & NO_PICKUP) continue;
          out.push((off + d - a.walkSec) * PAIR + ai);
        }
      }
    }
  }
  const pairs = Float64Array.from(out).sort();
  const uniq: number[] = [];
  for (let i = pairs.length - 1; i >= 0; i--) {
    const d = Math.floor(pairs[i]! / PAIR);
    if (uniq.length === 0 || uniq[uniq.length - 1]! !== d) uniq.push(d);
  }
  if (uniq.length === 0 || uniq[uniq.length - 1]! !== req.departSec) uniq.push(req.departSec);
  return { uniq, pairs };
}

/** Departures (latest first, ending with departSec) thinned to MAX_ITERATIONS, keeping the first and last. */
function thin(uniq: number[]): number[] {
  if (uniq.length <= MAX_ITERATIONS) return uniq;
  const step = uniq.length / MAX_ITERATIONS;
  const out: number[] = [];
  for (let i = 0; i < MAX_ITERATIONS - 1; i++) out.push(uniq[Math.floor(i * step)]!);
  out.push(uniq[uniq.length - 1]!);
  return out;
}

/** Per-core arrays of the scan (built once per core), and the query's day-view trip lists. */
interface ScanContext {
  /** route -> 1 when every trip's arrivals never decrease along the route (monotoneRoutes) */
  monotone: Uint8Array;
  /** route stop -> stop * 2 + 1 when boarding there can lead somewhere (boardingPositions), stop * 2 otherwise */
  routeStopBoard: Int32Array;
  /** stop -> [bpStart[p], bpStart[p+1]) in bpRoutePos: (route, position) pairs where boarding can lead somewhere */
  bpStart: Int32Array;
  bpRoutePos: Int32Array;
  /** (slot * nTz + tz) -> the day view's active trips and their stop times (DayView.trips, .times) */
  tripsOf: Int32Array[];
  timesOf: Int32Array[];
}

const scanCache = new WeakMap<TransitCore, Omit<ScanContext, "tripsOf" | "timesOf">>();

function scanContext(core: TransitCore, views: DayView[]): ScanContext {
  let c = scanCache.get(core);
  if (!c) {
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
    c = { monotone: monotoneRoutes(core), routeStopBoard, bpStart, bpRoutePos };
    scanCache.set(core, c);
  }
  return { ...c, ...dayBoarding(core, views, c.bpStart, c.bpRoutePos), tripsOf: views.map((v) => v.trips), timesOf: views.map((v) => v.times) };
}

/** per core: the boarding positions of the routes that run on a set of day views (key: the views' ids) */
const dayBoardingCache = new WeakMap<TransitCore, Map<string, { bpStart: Int32Array; bpRoutePos: Int32Array }>>();
const viewIds = new WeakMap<DayView, number>();
let nextViewId = 0;
/** day-boarding lists kept per core (each ~1 MB on all MTA feeds; day views are kept 6 per core) */
const MAX_DAY_BOARDING = 8;

/**
 * The (route, position) boarding lists without the routes that have no active trip in any of the
 * query's day views: such a route is never marked (markLiveRoutes), yet on all MTA feeds it made 31 %
 * of the entries that collectRoutes read when marking stops (weekday searches pass over the
 * weekend-only patterns). The kept entries stay in their order, so routes are collected exactly as
 * before. Built in one pass over the lists, once per set of day views.
 */
function dayBoarding(core: TransitCore, views: DayView[], bpStart: Int32Array, bpRoutePos: Int32Array): { bpStart: Int32Array; bpRoutePos: Int32Array } {
  let cache = dayBoardingCache.get(core);
  if (!cache) dayBoardingCache.set(core, (cache = new Map()));
  const key = views.map((v) => {
    let id = viewIds.get(v);
    if (id === undefined) viewIds.set(v, (id = nextViewId++));
    return id;
  }).join(",");
  const hit = cache.get(key);
  if (hit) return hit;
  const { nRoutes, nTz, routeTz } = core;
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
  if (cache.size >= MAX_DAY_BOARDING) cache.delete(cache.keys().next().value!);
  cache.set(key, made);
  return made;
}

/**
 * Note that stop q is marked: add every live route that can be boarded at q to the routes of the next
 * round (routeList[0..nRoutes)), widening its [first, last] marked positions. Returns the new count.
 */
function collectRoutes(q: number, nRoutes: number, bpStart: Int32Array, bpRoutePos: Int32Array, routeMarkedPos: Int32Array, routeMarkedLast: Int32Array, routeList: Int32Array): number {
  for (let e = bpStart[q]!, end = bpStart[q + 1]!; e < end; e += 2) {
    const r = bpRoutePos[e]!;
    const pos = bpRoutePos[e + 1]!;
    const cur = routeMarkedPos[r]!;
    if (cur >= 0) {
      if (pos < cur) routeMarkedPos[r] = pos;
      else if (pos > routeMarkedLast[r]!) routeMarkedLast[r] = pos;
    } else if (cur === -1) {
      // marked for the first time this round (-2: not live in this query, never scanned)
      routeList[nRoutes++] = r;
      routeMarkedPos[r] = pos;
      routeMarkedLast[r] = pos;
    }
  }
  return nRoutes;
}

function runIteration(core: TransitCore, req: RaptorRequest, st: RaptorState, cx: ScanContext, depart: number, accessMark: Uint8Array, improvedEgress: Int32Array, stats: RaptorStats): void {
  const n = core.nStops;
  const { board, boardUpTo, boardSrc, marked, markedList, boardable, ride, rideUpTo, rideBoard, rideSlot, rideMarked, rideList, routeMarkedPos, routeMarkedLast, routeList, targetBest, toTarget } = st;
  const { slotC0, slotNT, slotMin, slotMax, slotMaxDep, slotT0 } = st;
  const { egressSec, egressIdx } = st;
  const { routeStopStart, routeTime0, routeTz, stopWheelchair } = core;
  const { monotone, routeStopBoard, bpStart, bpRoutePos, tripsOf, timesOf } = cx;
  const { offsetSec, nSlots } = req.days;
  const nTz = core.nTz;
  const wheelchair = req.wheelchair;
  const departSec = req.departSec;
  const rounds = req.maxRides + 1;
  // toTarget holds lower bounds (else zeros: the checks skip reading it)
  let useH = st.boundsSet;
  // the "with at most k rides" rows: one per round in a range search, where labels of later
  // departures stay; a single departure fills rounds in order, so row 0 ("so far") is enough
  const upRow = req.windowSec > 0 ? n : 0;
  const upEnd = req.windowSec > 0 ? rounds * n : n;
  let nMarked = 0;
  // routes to scan in the next round, collected when a stop is marked
  let nRoutes = 0;
  for (let ai = 0; ai < req.access.length; ai++) {
    const a = req.access[ai]!;
    const t = depart + a.walkSec;
    if (t < board[a.stop]! && t + toTarget[a.stop]! < targetBest[0]!) {
      board[a.stop] = t;
      boardSrc[a.stop] = SRC_ACCESS;
      for (let o = a.stop; o < upEnd; o += n) if (t < boardUpTo[o]!) boardUpTo[o] = t;
      if (accessMark[ai] && !marked[a.stop]) {
        marked[a.stop] = 1;
        markedList[nMarked++] = a.stop;
        if (rounds > 1) nRoutes = collectRoutes(a.stop, nRoutes, bpStart, bpRoutePos, routeMarkedPos, routeMarkedLast, routeList);
      }
    }
  }
  let footpaths = 0;
  let visited = 0;
  for (let k = 1; k < rounds && nMarked > 0; k++) {
    stats.rounds++;
    const base = k * n;
    const prev = (k - 1) * n;
    const up = k * upRow;
    // carry the previous round's improvements into this round; they are where boarding may improve
    for (let i = 0; i < nMarked; i++) {
      const p = markedList[i]!;
      marked[p] = 0;
      boardable[p] = 1;
      if (board[prev + p]! < board[base + p]!) {
        board[base + p] = board[prev + p]!;
        boardSrc[base + p] = SRC_INHERITED;
      }
    }
    const nBoardable = nMarked;
    nMarked = 0;
    let bound = UNREACHED;
    for (let j = 0; j <= k; j++) if (targetBest[j]! < bound) bound = targetBest[j]!;
    let nRide = 0;
    // the last rounds (reachAhead): per route, the last position whose label can still matter
    const level = rounds - 1 - k;
    const limitPos = level > st.reachLevels ? null : st.reachLast[level]!;
    // route scans: each marked route from its first marked position, once per service-day slot
    // (active trips only)
    for (let ri = 0; ri < nRoutes; ri++) {
      const r = routeList[ri]!;
      const startPos = routeMarkedPos[r]!;
      let lastPos = routeMarkedLast[r]!;
      routeMarkedPos[r] = -1;
      const s0 = routeStopStart[r]!;
      const nS = routeStopStart[r + 1]! - s0;
      // the last round only sets labels for the destination check (no transfers follow it, and
      // journeys end at a ride label): a route matters there only up to its last egress stop, and
      // only when it boards before that stop; in the rounds before, only up to its last stop from
      // which the rides left can still reach the destination (reachAhead)
      let scanEnd = nS;
      if (limitPos !== null) {
        const eLast = limitPos[r]!;
        if (eLast <= startPos) continue;
        if (lastPos >= eLast) lastPos = eLast - 1;
        scanEnd = eLast + 1;
      }
      const time0 = routeTime0[r]!;
      const tz = routeTz[r]!;
      const mono = monotone[r] === 1;
      const sBase = r * nSlots;
      let prevEnd = 0;
      // monotone routes: the previous slot's first boarded trip's arrival at the last stop (none: UNREACHED)
      let prevTripEnd = UNREACHED;
      let prevScanned = false;
      // first position where the previous slot found no trip to board (nS: none)
      let firstFail = nS;
      for (let slot = 0; slot < nSlots; slot++) {
        const si = sBase + slot;
        const nT = slotNT[si]!;
        // no active trip inside the searched span that day, or none before the bound
        if (nT === 0 || slotMin[si]! >= bound || slotMax[si]! < departSec) {
          prevScanned = false;
          continue;
        }
        let from = startPos;
        if (prevScanned && (slotMin[si]! >= prevEnd || slotMin[si]! >= prevTripEnd)) {
          // every trip of this day runs after every trip of the previous day (or, on a monotone route,
          // after every arrival of the trips the previous day rode: its first boarded trip's arrival
          // at the last stop), which boarded wherever it could: only stops where it found no trip at
          // all (the first is firstFail) can gain
          if (firstFail >= nS) break;
          from = firstFail;
        }
        prevEnd = slotMax[si]!;
        prevTripEnd = UNREACHED;
        prevScanned = true;
        firstFail = nS;
        const off = offsetSec[slot * nTz + tz]!;
        // the day view's trips: vt[c0 + i] = route-relative index of active trip i; its stop times
        // (packed, types.ts: arrival [2x] >> 2, departure [2x + 1] >> 2, flags in the low bits) at
        // x = t0v + i * nS + position in vtm
        const vt = tripsOf[slot * nTz + tz]!;
        const vtm = timesOf[slot * nTz + tz]!;
        const t0v = slotT0[si]!;
        const c0 = slotC0[si]!;
        const lastDep = slotMaxDep[si]!;
        let trip = -1; // index into vt[c0 ..)
        let tripBase = 0; // index in vtm of the current trip's first stop
        let prevBase = -1; // the same for the active trip before it, -1 when none
        let boardIdx = 0; // stop-time index (core.stopTimes) of the boarding event
        let j = from;
        // not on a trip yet: boardable stops up to the last marked position. A stop not improved in
        // the previous round offers the same trips as when it was improved; where no trip picks up,
        // or at the last stop, boarding leads nowhere
        for (; j <= lastPos; j++) {
          const x = routeStopBoard[s0 + j]!;
          if (!(x & 1)) continue;
          const p = x >> 1;
          if (!boardable[p]) continue;
          const b = board[prev + p]!;
          if ((useH ? b + toTarget[p]! : b) >= bound || (wheelchair && stopWheelchair[p] === 2)) continue;
          // no trip of this day leaves any stop after b (no timetable read)
          if (b > lastDep) {
            if (firstFail === nS) firstFail = j;
            continue;
          }
          const want = b - off;
          // earliest active trip leaving p at or after b: lo
          let lo = 0;
          let hi = nT - 1;
          const dLast = (vtm[2 * (t0v + hi * nS + j) + 1]! >> 2);
          if (dLast < want) {
            if (firstFail === nS) firstFail = j; // no trip leaves this stop after b on this day
            continue;
          }
          const dFirst = (vtm[2 * (t0v + j) + 1]! >> 2);
          if (dFirst >= want) hi = 0;
          else if (hi > 8) {
            // interpolate, then gallop to bracket the answer: departures are roughly evenly spread
            let g = 1 + Math.floor(((want - dFirst) / (dLast - dFirst + 1)) * (hi - 1));
            let step = 1;
            if ((vtm[2 * (t0v + g * nS + j) + 1]! >> 2) >= want) {
              hi = g;
              for (g -= step; g > 0 && (vtm[2 * (t0v + g * nS + j) + 1]! >> 2) >= want; g -= step) {
                hi = g;
                step <<= 1;
              }
              lo = g < 0 ? 0 : g + 1;
            } else {
              lo = g + 1;
              for (g += step; g < hi && (vtm[2 * (t0v + g * nS + j) + 1]! >> 2) < want; g += step) {
                lo = g + 1;
                step <<= 1;
              }
              if (g < hi) hi = g;
            }
          }
          while (lo < hi) {
            const mid = (lo + hi) >>> 1;
            if ((vtm[2 * (t0v + mid * nS + j) + 1]! >> 2) < want) lo = mid + 1;
            else hi = mid;
          }
          for (let i = lo; i < nT; i++) {
            const tb = t0v + i * nS;
            if (vtm[2 * (tb + j) + 1]! & NO_PICKUP) continue;
            trip = i;
            tripBase = tb;
            prevBase = i > 0 ? t0v + (i - 1) * nS : -1;
            boardIdx = time0 + vt[c0 + i]! * nS + j;
            break;
          }
          if (trip >= 0) break;
          if (firstFail === nS) firstFail = j;
        }
        if (trip >= 0) {
          if (mono) prevTripEnd = off + (vtm[2 * (tripBase + nS - 1)]! >> 2);
          // on a trip: alight where it improves the ride label, and switch to an earlier trip where
          // one can be caught, up to the last marked position
          for (j++; j <= lastPos; j++) {
            const x = routeStopBoard[s0 + j]!;
            const p = x >> 1;
            const idx = tripBase + j;
            const a = off + (vtm[2 * idx]! >> 2);
            if (a < rideUpTo[up + p]! && (useH ? a + toTarget[p]! : a) < bound && !(vtm[2 * idx]! & NO_DROP_OFF) && !(wheelchair && stopWheelchair[p] === 2)) {
              ride[base + p] = a;
              rideUpTo[up + p] = a;
              for (let o = up + p + n; o < upEnd; o += n) if (a < rideUpTo[o]!) rideUpTo[o] = a;
              rideBoard[base + p] = boardIdx;
              rideSlot[base + p] = slot;
              if (!rideMarked[p]) {
                rideMarked[p] = 1;
                rideList[nRide++] = p;
              }
              // an egress stop: the rest of this round's scans need not set labels after this
              // destination arrival (ties are kept: the destination check below breaks them)
              const w = egressSec[p]!;
              if (w >= 0 && a + w + 1 < bound) bound = a + w + 1;
            }
            if (!(x & 1) || !boardable[p]) continue;
            const b = board[prev + p]!;
            if ((useH ? b + toTarget[p]! : b) >= bound || (wheelchair && stopWheelchair[p] === 2)) continue;
            const want = b - off;
            if (want > (vtm[2 * idx + 1]! >> 2)) continue; // not even the current trip can be caught here
            // FIFO: when the previous active trip leaves too early, so do all before it
            if (prevBase < 0 || (vtm[2 * (prevBase + j) + 1]! >> 2) < want) continue;
            // gallop back from the previous trip, which leaves at or after b
            let hi = trip - 1;
            let step = 1;
            let lo = hi - 1;
            while (lo >= 0 && (vtm[2 * (t0v + lo * nS + j) + 1]! >> 2) >= want) {
              hi = lo;
              step <<= 1;
              lo = hi - step;
            }
            lo = lo < 0 ? 0 : lo + 1;
            while (lo < hi) {
              const mid = (lo + hi) >>> 1;
              if ((vtm[2 * (t0v + mid * nS + j) + 1]! >> 2) < want) lo = mid + 1;
              else hi = mid;
            }
            for (let i = lo; i < trip; i++) {
              const tb = t0v + i * nS;
              if (vtm[2 * (tb + j) + 1]! & NO_PICKUP) continue;
              trip = i;
              tripBase = tb;
              prevBase = i > 0 ? t0v + (i - 1) * nS : -1;
              boardIdx = time0 + vt[c0 + i]! * nS + j;
              break;
            }
          }
          // past the last marked position nothing is boarded; on routes whose arrivals never
          // decrease, a trip arriving at or after the bound arrives no earlier further on. (The
          // ride-label update repeats the one above on purpose: this is the innermost loop, and a
          // call per route-stop visit cost about 6 % of a search.)
          for (; j < scanEnd; j++) {
            const p = routeStopBoard[s0 + j]! >> 1;
            const idx = tripBase + j;
            const a = off + (vtm[2 * idx]! >> 2);
            if (a >= bound && mono) break;
            if (a < rideUpTo[up + p]! && (useH ? a + toTarget[p]! : a) < bound && !(vtm[2 * idx]! & NO_DROP_OFF) && !(wheelchair && stopWheelchair[p] === 2)) {
              ride[base + p] = a;
              rideUpTo[up + p] = a;
              for (let o = up + p + n; o < upEnd; o += n) if (a < rideUpTo[o]!) rideUpTo[o] = a;
              rideBoard[base + p] = boardIdx;
              rideSlot[base + p] = slot;
              if (!rideMarked[p]) {
                rideMarked[p] = 1;
                rideList[nRide++] = p;
              }
              // an egress stop: the rest of this round's scans need not set labels after this
              // destination arrival (ties are kept: the destination check below breaks them)
              const w = egressSec[p]!;
              if (w >= 0 && a + w + 1 < bound) bound = a + w + 1;
            }
          }
        }
        visited += j - from;
      }
    }
    stats.routesScanned += nRoutes;
    nRoutes = 0;
    // markedList[0..nBoardable) still lists the previous round's stops: nothing marks before this point
    for (let i = 0; i < nBoardable; i++) boardable[markedList[i]!] = 0;
    // transfers: stay (with the stop's slack) or walk one footpath; a label no earlier than one
    // with fewer rides (boardUpTo) is dominated and not marked. The marked stops' routes are then
    // collected for the next round (none after the last round).
    const collect = k + 1 < rounds;
    // destination first: the earliest arrival below the bound via an egress stop whose ride label
    // improved in this round, the first egress entry on ties (labels not improved in this round were
    // checked when they were set, against a bound no lower). The footpath phase below then prunes
    // with the new bound: a label at or after the best arrival at the destination cannot lead to an
    // earlier one (the paper's target pruning).
    let egT = bound;
    let egStop = -1;
    let egIdx = 0;
    for (let i = 0; i < nRide; i++) {
      const p = rideList[i]!;
      const w = egressSec[p]!;
      if (w < 0) continue;
      const t = ride[base + p]! + w;
      if (t < egT || (t === egT && egStop >= 0 && egressIdx[p]! < egIdx)) {
        egT = t;
        egStop = p;
        egIdx = egressIdx[p]!;
      }
    }
    if (egStop >= 0) {
      targetBest[k] = egT;
      bound = egT;
      improvedEgress[k] = egStop;
    }
    // the last round's transfers only matter when every stop's labels are read: no later round boards
    // from them, and journeys end at a ride label
    if (!collect && !req.everyStop) for (let i = 0; i < nRide; i++) rideMarked[rideList[i]!] = 0;
    else {
      nMarked = relaxTransfers(core, st, cx, k, nRide, bound, useH, collect, upRow, upEnd);
      nRoutes = st.collected;
      footpaths += st.relaxed;
    }
    if (!st.boundsReady && bound < req.maxArrivalSec) {
      // first arrival: lower bounds to the destination, explored up to this arrival (every label is
      // at or after departSec, so a bound capped at bound - departSec prunes exactly as the full one)
      st.boundsReady = true;
      if (destinationBounds(core, req.egress, st.footSec, req.walkSpeed, bound - req.departSec, toTarget, st.queueNode, st.queueNext) < 0) toTarget.fill(0);
      else useH = st.boundsSet = true;
    }
  }
  stats.stopsVisited += visited;
  stats.footpaths += footpaths;
  for (let i = 0; i < nMarked; i++) marked[markedList[i]!] = 0;
  for (let i = 0; i < nRoutes; i++) routeMarkedPos[routeList[i]!] = -1;
}

/**
 * The transfer phase of round k: from each stop whose ride label improved (rideList[0..nRide)), stay
 * (with the stop's slack) or walk one footpath; a label no earlier than one with fewer rides
 * (boardUpTo) is dominated and not marked. Then, when `collect`, the marked stops' routes are
 * collected for the next round, in marking order (a pass of its own after the footpaths: collecting
 * inside the footpath loops made the search about 4 % slower in repeated interleaved A/B). Returns the number of marked stops;
 * st.collected = routes collected, st.relaxed = footpaths relaxed. (A function of its own: the
 * search loop's register pressure.)
 */
function relaxTransfers(core: TransitCore, st: RaptorState, cx: ScanContext, k: number, nRide: number, bound: number, useH: boolean, collect: boolean, upRow: number, upEnd: number): number {
  const n = core.nStops;
  const { footStart, stopSlackSec } = core;
  const { board, boardUpTo, boardSrc, marked, markedList, ride, rideMarked, rideList, routeMarkedPos, routeMarkedLast, routeList, toTarget, footToSec } = st;
  const { bpStart, bpRoutePos } = cx;
  const base = k * n;
  const up = k * upRow;
  const plain = upEnd === n && !useH;
  let nMarked = 0;
  let nRoutes = 0;
  let footpaths = 0;
  // in stop order: neighbouring stops' footpaths and labels sit near each other in memory (about 4 %
  // faster on all MTA feeds than in the order the scans improved them; short lists are left as they are)
  if (nRide > 64) rideList.subarray(0, nRide).sort();
  for (let i = 0; i < nRide; i++) {
    const p = rideList[i]!;
    rideMarked[p] = 0;
    const arr = ride[base + p]!;
    // at or after the best arrival at the destination (found in this round): nothing from here is earlier
    if (arr >= bound) continue;
    const stay = arr + stopSlackSec[p]!;
    if (stay < boardUpTo[up + p]! && (useH ? stay + toTarget[p]! : stay) < bound) {
      board[base + p] = stay;
      boardSrc[base + p] = p;
      boardUpTo[up + p] = stay;
      for (let o = up + p + n; o < upEnd; o += n) if (stay < boardUpTo[o]!) boardUpTo[o] = stay;
      if (!marked[p]) {
        marked[p] = 1;
        markedList[nMarked++] = p;
      }
    }
    const f0 = footStart[p]!;
    const f1 = footStart[p + 1]!;
    footpaths += f1 - f0;
    if (plain) {
      for (let e = 2 * f0, eEnd = 2 * f1; e < eEnd; e += 2) {
        const q = footToSec[e]!;
        const t = arr + footToSec[e + 1]!;
        if (t < boardUpTo[q]! && t < bound) {
          board[base + q] = t;
          boardSrc[base + q] = p;
          boardUpTo[q] = t;
          if (!marked[q]) {
            marked[q] = 1;
            markedList[nMarked++] = q;
          }
        }
      }
      continue;
    }
    for (let e = 2 * f0, eEnd = 2 * f1; e < eEnd; e += 2) {
      const q = footToSec[e]!;
      const t = arr + footToSec[e + 1]!;
      if (t < boardUpTo[up + q]! && (useH ? t + toTarget[q]! : t) < bound) {
        board[base + q] = t;
        boardSrc[base + q] = p;
        boardUpTo[up + q] = t;
        for (let o = up + q + n; o < upEnd; o += n) if (t < boardUpTo[o]!) boardUpTo[o] = t;
        if (!marked[q]) {
          marked[q] = 1;
          markedList[nMarked++] = q;
        }
      }
    }
  }
  // the marked stops' routes for the next round
  if (collect) for (let i = 0; i < nMarked; i++) nRoutes = collectRoutes(markedList[i]!, nRoutes, bpStart, bpRoutePos, routeMarkedPos, routeMarkedLast, routeList);
  st.collected = nRoutes;
  st.relaxed = footpaths;
  return nMarked;
}

/** The route whose stop times hold index idx (routeTime0 is ascending). */
function routeOfStopTime(core: TransitCore, idx: number): number {
  let lo = 0;
  let hi = core.nRoutes - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (core.routeTime0[mid]! <= idx) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Walk the labels back from the destination (round k, via egress stop e) to the access walk. */
function reconstruct(core: TransitCore, req: RaptorRequest, st: RaptorState, k: number, e: number): Journey {
  const n = core.nStops;
  const legs: JourneyLeg[] = [];
  let egressWalk = 0;
  for (const eg of req.egress) if (eg.stop === e && (egressWalk === 0 || eg.walkSec < egressWalk)) egressWalk = eg.walkSec;
  const arrive = st.ride[k * n + e]!;
  legs.push({ kind: "egress", stop: e, depSec: arrive, arrSec: arrive + egressWalk });
  let p = e;
  let round = k;
  let rides = 0;
  for (;;) {
    const idx = round * n + p;
    const slot = st.rideSlot[idx]!;
    const bIdx = st.rideBoard[idx]!;
    const r = routeOfStopTime(core, bIdx);
    const s0 = core.routeStopStart[r]!;
    const nS = core.routeStopStart[r + 1]! - s0;
    const rel = bIdx - core.routeTime0[r]!;
    const boardPos = rel % nS;
    const tbase = bIdx - boardPos;
    const trip = core.routeTripStart[r]! + (rel - boardPos) / nS;
    const off = req.days.offsetSec[slot * core.nTz + core.routeTz[r]!]!;
    // the alighting position: the first visit of p after boarding that arrives at the label's time
    let alightPos = boardPos + 1;
    while (alightPos < nS - 1 && !(core.routeStops[s0 + alightPos] === p && off + arrAt(core.stopTimes, tbase + alightPos) === st.ride[idx] && !(flagsAt(core.stopTimes, tbase + alightPos) & NO_DROP_OFF))) alightPos++;
    const b = core.routeStops[core.routeStopStart[r]! + boardPos]!;
    const dep = off + depAt(core.stopTimes, tbase + boardPos);
    legs.push({ kind: "ride", route: r, trip, slot, boardPos, alightPos, fromStop: b, toStop: p, depSec: dep, arrSec: off + arrAt(core.stopTimes, tbase + alightPos) });
    rides++;
    let j = round - 1;
    while (j > 0 && st.boardSrc[j * n + b] === SRC_INHERITED) j--;
    const src = st.boardSrc[j * n + b]!;
    if (src === SRC_ACCESS || j === 0) {
      const w = st.accessSec[b]!;
      legs.push({ kind: "access", stop: b, depSec: dep - w, arrSec: dep });
      break;
    }
    if (src !== b) {
      const from = st.ride[j * n + src]!;
      const walk = walkSec(core, req, src, b);
      legs.push({ kind: "transfer", fromStop: src, toStop: b, depSec: from, arrSec: from + walk });
    }
    p = src;
    round = j;
  }
  legs.reverse();
  return { departSec: legs[0]!.depSec, arriveSec: legs[legs.length - 1]!.arrSec, rides, legs };
}

export function walkSec(core: TransitCore, req: RaptorRequest, from: number, to: number): number {
  for (let e = core.footStart[from]!; e < core.footStart[from + 1]!; e++) {
    if (core.footTo[e] === to) return Math.max(core.footMinSec[e]!, Math.ceil(core.footDistM[e]! / req.walkSpeed));
  }
  return 0;
}
