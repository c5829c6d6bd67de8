/**
 * Range RAPTOR (Delling, Pajor, Werneck: "Round-Based Public Transit Routing", Transportation
 * Science 49(3), 2015, sections 3 and 4.1) on a TransitCore. Round k holds the best arrivals with
 * exactly k rides, so the labels at the destination form the Pareto set on (arrival, rides); the
 * range variant runs one iteration per departure in the window, latest first, keeping labels, so
 * each iteration only adds journeys that leave later or arrive earlier than all found so far.
 * Always searches "forward" in time; backward searches run it on the mirrored core (index.ts).
 */
import { UNREACHED, type Journey, type JourneyLeg, type RaptorRequest, type RaptorStats } from "../api.ts";
import { NO_DROP_OFF, NO_PICKUP, type TransitCore } from "../timetable/types.ts";
import { dayView, type DayView } from "./day-view.ts";
import { destinationBounds, destinationPruning } from "./heuristic.ts";
import { RaptorState, SRC_ACCESS, SRC_INHERITED } from "./state.ts";

/** Upper bound on range iterations; denser departure lists are thinned. */
const MAX_ITERATIONS = 90;

export function searchForward(core: TransitCore, req: RaptorRequest, st: RaptorState): { journeys: Journey[]; stats: RaptorStats } {
  const rounds = req.maxRides + 1;
  st.reset(rounds, req.maxArrivalSec, req.windowSec > 0);
  for (const a of req.access) {
    const prev = st.accessSec[a.stop]!;
    st.accessSec[a.stop] = prev < 0 ? a.walkSec : Math.min(prev, a.walkSec);
  }
  const stats: RaptorStats = { iterations: 0, rounds: 0, routesScanned: 0, stopsVisited: 0, footpaths: 0 };
  const journeys: Journey[] = [];
  const improvedEgress = new Int32Array(rounds);
  const views = dayViews(core, req);
  markLiveRoutes(core, req, st, views);
  const footSec = st.footpathSeconds(core, req.walkSpeed);
  const { times, pairs } = departures(core, req, st, views);
  // lower bounds to the destination (heuristic.ts): 0 (no pruning) until the destination is first
  // reached; only range searches with several departures compute them (one search costs about as
  // much as the bounds)
  st.toTarget.fill(0);
  st.boundsReady = req.egress.length === 0 || times.length < 2 || !destinationPruning.enabled;
  // access stops to mark in the current iteration (all in the first one)
  const accessMark = new Uint8Array(req.access.length).fill(1);
  let pi = pairs.length - 1;
  const keep = req.keepEarliest ?? 0;
  try {
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
      runIteration(core, req, st, views, footSec, dep, accessMark, improvedEgress, stats);
      let found = false;
      for (let k = 1; k < rounds; k++) {
        if (improvedEgress[k]! >= 0) {
          journeys.push(reconstruct(core, req, st, k, improvedEgress[k]!));
          found = true;
        }
      }
      if (found && keep > 0 && journeys.length >= keep) capArrivals(journeys, keep, st.targetBest);
    }
  } finally {
    for (const a of req.access) st.accessSec[a.stop] = -1;
  }
  return { journeys, stats };
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

/** route -> 1 when every trip's arrival times never decrease along the route (GTFS requires it; checked, not assumed). */
function monotoneRoutes(core: TransitCore): Uint8Array {
  let m = monotoneCache.get(core);
  if (m) return m;
  const { nRoutes, routeStopStart, routeTripStart, routeTime0, arrSec } = core;
  m = new Uint8Array(nRoutes);
  for (let r = 0; r < nRoutes; r++) {
    const nS = routeStopStart[r + 1]! - routeStopStart[r]!;
    const end = routeTime0[r]! + (routeTripStart[r + 1]! - routeTripStart[r]!) * nS;
    let ok = 1;
    for (let b = routeTime0[r]!; b < end && ok; b += nS) for (let j = 1; j < nS; j++) if (arrSec[b + j]! < arrSec[b + j - 1]!) ok = 0;
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
  const { nRoutes, routeStopStart, routeTripStart, routeTime0, stopTimeFlags } = core;
  const m = new Uint8Array(core.routeStops.length);
  for (let r = 0; r < nRoutes; r++) {
    const s0 = routeStopStart[r]!;
    const nS = routeStopStart[r + 1]! - s0;
    const nT = routeTripStart[r + 1]! - routeTripStart[r]!;
    const t0 = routeTime0[r]!;
    for (let j = 0; j < nS - 1; j++) {
      for (let i = 0; i < nT; i++) {
        if (!(stopTimeFlags[t0 + i * nS + j]! & NO_PICKUP)) {
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
 * routeLive[r] != 0 when route r passes the mode filter and runs inside the searched time span on some
 * slot; bit s (s < 8) is set when it does on slot s (bit 7 also stands for every later slot).
 */
function markLiveRoutes(core: TransitCore, req: RaptorRequest, st: RaptorState, views: DayView[]): void {
  const live = st.routeLive;
  const { offsetSec, nSlots } = req.days;
  const nTz = core.nTz;
  const from = req.departSec, to = req.maxArrivalSec;
  const allowed = req.routeAllowed;
  for (let r = 0; r < core.nRoutes; r++) {
    let ok = 0;
    if (!allowed || allowed[r]) {
      const tz = core.routeTz[r]!;
      for (let slot = 0; slot < nSlots; slot++) {
        const v = views[slot * nTz + tz]!;
        if (v.tripStart[r + 1]! === v.tripStart[r]!) continue;
        const off = offsetSec[slot * nTz + tz]!;
        if (off + v.minDep[r]! < to && off + v.maxArr[r]! >= from) ok |= 1 << (slot < 7 ? slot : 7);
      }
    }
    live[r] = ok;
  }
}

const PAIR = 65536;

/**
 * Departure times to iterate, latest first: each active trip leaving an access stop inside the
 * window (minus the walk), thinned to MAX_ITERATIONS, then departSec. `pairs` holds every such
 * departure as d * PAIR + access index, ascending, so iterations know which access stops gained a trip.
 */
function departures(core: TransitCore, req: RaptorRequest, st: RaptorState, views: DayView[]): { times: number[]; pairs: Float64Array } {
  if (req.windowSec <= 0 || req.access.length >= PAIR) return { times: [req.departSec], pairs: new Float64Array(0) };
  const out: number[] = [];
  const { offsetSec, nSlots } = req.days;
  const nTz = core.nTz;
  const { depSec, stopTimeFlags } = core;
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
          if (depSec[time0 + v.trips[c0 + mid]! * nS]! < want) lo = mid + 1;
          else hi = mid;
        }
        for (let m = lo; m < nT; m++) {
          const idx = time0 + v.trips[c0 + m]! * nS;
          if (depSec[idx]! > last) break;
          if (stopTimeFlags[idx]! & NO_PICKUP) continue;
          out.push((off + depSec[idx]! - a.walkSec) * PAIR + ai);
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
  if (uniq.length <= MAX_ITERATIONS) return { times: uniq, pairs };
  const step = uniq.length / MAX_ITERATIONS;
  const thin: number[] = [];
  for (let i = 0; i < MAX_ITERATIONS - 1; i++) thin.push(uniq[Math.floor(i * step)]!);
  thin.push(uniq[uniq.length - 1]!);
  return { times: thin, pairs };
}

function runIteration(core: TransitCore, req: RaptorRequest, st: RaptorState, views: DayView[], footSec: Int32Array, depart: number, accessMark: Uint8Array, improvedEgress: Int32Array, stats: RaptorStats): void {
  const n = core.nStops;
  const { board, boardUpTo, boardSrc, marked, markedList, boardable, ride, rideMarked, rideList, routeMarkedPos, routeMarkedLast, routeList, routeLive, targetBest, toTarget } = st;
  const { footStart, footTo, stopSlackSec } = core;
  const rounds = req.maxRides + 1;
  // route -> every trip's arrivals never decrease: past the last boardable stop, a trip arriving at
  // or after the bound arrives no earlier further on
  const monotone = monotoneRoutes(core);
  // route stop -> boarding there can lead somewhere (not the last stop, some trip picks up), and
  // per stop the (route, position) pairs where it can
  const { canBoard, stopStart: stopRouteStart, route: stopRouteRoute, pos: stopRoutePos } = boardingPositions(core);
  // the "with at most k rides" rows: one per round in a range search, where labels of later
  // departures stay; a single departure fills rounds in order, so row 0 ("so far") is enough
  const upRow = req.windowSec > 0 ? n : 0;
  const upEnd = req.windowSec > 0 ? rounds * n : n;
  let nMarked = 0;
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
      }
    }
  }
  let footpaths = 0;
  for (let k = 1; k < rounds && nMarked > 0; k++) {
    stats.rounds++;
    const base = k * n;
    const prev = (k - 1) * n;
    const up = k * upRow;
    // carry the previous round's improvements into this round, and collect the routes to scan
    let nRoutes = 0;
    for (let i = 0; i < nMarked; i++) {
      const p = markedList[i]!;
      marked[p] = 0;
      boardable[p] = 1;
      if (board[prev + p]! < board[base + p]!) {
        board[base + p] = board[prev + p]!;
        boardSrc[base + p] = SRC_INHERITED;
      }
      for (let e = stopRouteStart[p]!, end = stopRouteStart[p + 1]!; e < end; e++) {
        const r = stopRouteRoute[e]!;
        if (!routeLive[r]) continue;
        const pos = stopRoutePos[e]!;
        const cur = routeMarkedPos[r]!;
        if (cur < 0) {
          routeList[nRoutes++] = r;
          routeMarkedPos[r] = pos;
          routeMarkedLast[r] = pos;
        } else if (pos < cur) routeMarkedPos[r] = pos;
        else if (pos > routeMarkedLast[r]!) routeMarkedLast[r] = pos;
      }
    }
    const nBoardable = nMarked;
    nMarked = 0;
    let bound = UNREACHED;
    for (let j = 0; j <= k; j++) if (targetBest[j]! < bound) bound = targetBest[j]!;
    st.nRide = 0;
    let visited = 0;
    for (let i = 0; i < nRoutes; i++) {
      const r = routeList[i]!;
      visited += scanRoute(core, req, st, views, r, routeMarkedPos[r]!, routeMarkedLast[r]!, k, up, upEnd, bound, monotone[r] === 1, canBoard);
      routeMarkedPos[r] = -1;
    }
    stats.routesScanned += nRoutes;
    stats.stopsVisited += visited;
    // markedList[0..nBoardable) still lists the previous round's stops: nothing marks before this point
    for (let i = 0; i < nBoardable; i++) boardable[markedList[i]!] = 0;
    // transfers: stay (with the stop's slack) or walk one footpath; a label no earlier than one
    // with fewer rides (boardUpTo) is dominated and not marked
    const nRide = st.nRide;
    for (let i = 0; i < nRide; i++) {
      const p = rideList[i]!;
      rideMarked[p] = 0;
      const arr = ride[base + p]!;
      const stay = arr + stopSlackSec[p]!;
      if (stay < boardUpTo[up + p]! && stay + toTarget[p]! < bound) {
        board[base + p] = stay;
        boardSrc[base + p] = p;
        for (let o = up + p; o < upEnd; o += n) if (stay < boardUpTo[o]!) boardUpTo[o] = stay;
        if (!marked[p]) {
          marked[p] = 1;
          markedList[nMarked++] = p;
        }
      }
      const fEnd = footStart[p + 1]!;
      footpaths += fEnd - footStart[p]!;
      for (let e = footStart[p]!; e < fEnd; e++) {
        const t = arr + footSec[e]!;
        const q = footTo[e]!;
        if (t < boardUpTo[up + q]! && t + toTarget[q]! < bound) {
          board[base + q] = t;
          boardSrc[base + q] = p;
          for (let o = up + q; o < upEnd; o += n) if (t < boardUpTo[o]!) boardUpTo[o] = t;
          if (!marked[q]) {
            marked[q] = 1;
            markedList[nMarked++] = q;
          }
        }
      }
    }
    // destination
    for (const eg of req.egress) {
      const t = ride[base + eg.stop]! + eg.walkSec;
      if (t < bound && t < targetBest[k]!) {
        targetBest[k] = t;
        bound = t;
        improvedEgress[k] = eg.stop;
      }
    }
    if (!st.boundsReady && bound < req.maxArrivalSec) {
      // first arrival: lower bounds to the destination, explored up to this arrival (every label is
      // at or after departSec, so a bound capped at bound - departSec prunes exactly as the full one)
      st.boundsReady = true;
      if (destinationBounds(core, req.egress, footSec, bound - req.departSec, toTarget, st.queueNode, st.queueNext) < 0) toTarget.fill(0);
    }
  }
  stats.footpaths += footpaths;
  for (let i = 0; i < nMarked; i++) marked[markedList[i]!] = 0;
  st.nMarked = 0;
}

/**
 * Scan route r in round k from position startPos, once per service-day slot (active trips only).
 * Returns the number of route stops visited.
 */
function scanRoute(core: TransitCore, req: RaptorRequest, st: RaptorState, views: DayView[], r: number, startPos: number, lastPos: number, k: number, up: number, upEnd: number, bound: number, monotone: boolean, canBoard: Uint8Array): number {
  const n = core.nStops;
  const base = k * n;
  const prev = (k - 1) * n;
  const s0 = core.routeStopStart[r]!;
  const nS = core.routeStopStart[r + 1]! - s0;
  const time0 = core.routeTime0[r]!;
  const tz = core.routeTz[r]!;
  const nTz = core.nTz;
  const { offsetSec, nSlots } = req.days;
  const { depSec, arrSec, stopTimeFlags, stopWheelchair, routeStops } = core;
  const { board, boardable, ride, rideUpTo, rideBoard, rideSlot, rideMarked, rideList, toTarget } = st;
  const wheelchair = req.wheelchair;
  let visited = 0;
  let prevOff = 0;
  let prevMaxArr = 0;
  let prevScanned = false;
  // first position where the previous slot found no trip to board (nS: none)
  let firstFail = nS;
  const liveSlots = st.routeLive[r]!;
  for (let slot = 0; slot < nSlots; slot++) {
    if (slot < 7 && !((liveSlots >> slot) & 1)) {
      // no active trip that day, or none inside the searched span
      prevScanned = false;
      continue;
    }
    const v = views[slot * nTz + tz]!;
    const c0 = v.tripStart[r]!;
    const nT = v.tripStart[r + 1]! - c0;
    const off = offsetSec[slot * nTz + tz]!;
    if (nT === 0 || off + v.minDep[r]! >= bound || off + v.maxArr[r]! < req.departSec) {
      prevScanned = false;
      continue;
    }
    let from = startPos;
    if (prevScanned && off + v.minDep[r]! >= prevOff + prevMaxArr) {
      // every trip of this day runs after every trip of the previous day, which boarded wherever it
      // could: only stops where it found no trip at all (the first is firstFail) can gain
      if (firstFail >= nS) break;
      from = firstFail;
    }
    prevOff = off;
    prevMaxArr = v.maxArr[r]!;
    prevScanned = true;
    firstFail = nS;
    const vt = v.trips;
    let trip = -1; // index into vt[c0 ..)
    let tripBase = 0;
    let boardIdx = 0; // stop-time index of the boarding event
    let j = from;
    for (; j < nS; j++) {
      // past the last boardable stop nothing can be boarded: stop when not on a trip
      if (j > lastPos && trip < 0) break;
      const p = routeStops[s0 + j]!;
      if (trip >= 0) {
        const idx = tripBase + j;
        const a = off + arrSec[idx]!;
        if (a >= bound && j > lastPos && monotone) break;
        if (a + toTarget[p]! < bound && a < rideUpTo[up + p]! && !(stopTimeFlags[idx]! & NO_DROP_OFF) && !(wheelchair && stopWheelchair[p] === 2)) {
          ride[base + p] = a;
          for (let o = up + p; o < upEnd; o += n) if (a < rideUpTo[o]!) rideUpTo[o] = a;
          rideBoard[base + p] = boardIdx;
          rideSlot[base + p] = slot;
          if (!rideMarked[p]) {
            rideMarked[p] = 1;
            rideList[st.nRide++] = p;
          }
        }
      }
      // a stop not improved in the previous round offers the same trips as when it was improved; no
      // trip picks up here, or it is the last stop: boarding leads nowhere
      if (!boardable[p] || !canBoard[s0 + j]) continue;
      const b = board[prev + p]!;
      if (b + toTarget[p]! >= bound || (wheelchair && stopWheelchair[p] === 2)) continue;
      const want = b - off;
      // earliest active trip (before the current one) leaving p at or after b: lo
      let lo = 0;
      let hi = 0;
      let limit = nT;
      if (trip >= 0) {
        if (want > depSec[tripBase + j]!) continue; // not even the current trip can be caught here
        // FIFO: when the previous active trip leaves too early, so do all before it
        if (trip === 0 || depSec[time0 + vt[c0 + trip - 1]! * nS + j]! < want) continue;
        limit = trip;
        // gallop back from the previous trip, which leaves at or after b
        hi = trip - 1;
        let step = 1;
        lo = hi - 1;
        while (lo >= 0 && depSec[time0 + vt[c0 + lo]! * nS + j]! >= want) {
          hi = lo;
          step <<= 1;
          lo = hi - step;
        }
        lo = lo < 0 ? 0 : lo + 1;
      } else {
        hi = nT - 1;
        const dLast = depSec[time0 + vt[c0 + hi]! * nS + j]!;
        if (dLast < want) {
          if (firstFail === nS) firstFail = j; // no trip leaves this stop after b on this day
          continue;
        }
        const dFirst = depSec[time0 + vt[c0]! * nS + j]!;
        if (dFirst >= want) hi = 0;
        else if (hi > 8) {
          // interpolate, then gallop to bracket the answer: departures are roughly evenly spread
          let g = 1 + Math.floor(((want - dFirst) / (dLast - dFirst + 1)) * (hi - 1));
          let step = 1;
          if (depSec[time0 + vt[c0 + g]! * nS + j]! >= want) {
            hi = g;
            for (g -= step; g > 0 && depSec[time0 + vt[c0 + g]! * nS + j]! >= want; g -= step) {
              hi = g;
              step <<= 1;
            }
            lo = g < 0 ? 0 : g + 1;
          } else {
            lo = g + 1;
            for (g += step; g < hi && depSec[time0 + vt[c0 + g]! * nS + j]! < want; g += step) {
              lo = g + 1;
              step <<= 1;
            }
            if (g < hi) hi = g;
          }
        }
      }
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (depSec[time0 + vt[c0 + mid]! * nS + j]! < want) lo = mid + 1;
        else hi = mid;
      }
      let found = false;
      for (let i = lo; i < limit; i++) {
        const tb = time0 + vt[c0 + i]! * nS;
        if (stopTimeFlags[tb + j]! & NO_PICKUP) continue;
        trip = i;
        tripBase = tb;
        boardIdx = tb + j;
        found = true;
        break;
      }
      if (!found && trip < 0 && firstFail === nS) firstFail = j;
    }
    visited += j - from;
  }
  return visited;
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
    while (alightPos < nS - 1 && !(core.routeStops[s0 + alightPos] === p && off + core.arrSec[tbase + alightPos]! === st.ride[idx] && !(core.stopTimeFlags[tbase + alightPos]! & NO_DROP_OFF))) alightPos++;
    const b = core.routeStops[core.routeStopStart[r]! + boardPos]!;
    const dep = off + core.depSec[tbase + boardPos]!;
    legs.push({ kind: "ride", route: r, trip, slot, boardPos, alightPos, fromStop: b, toStop: p, depSec: dep, arrSec: off + core.arrSec[tbase + alightPos]! });
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
