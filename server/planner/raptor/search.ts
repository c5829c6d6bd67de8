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
import { RaptorState, SRC_ACCESS, SRC_INHERITED } from "./state.ts";

/** Upper bound on range iterations; denser departure lists are thinned. */
const MAX_ITERATIONS = 90;

export function searchForward(core: TransitCore, req: RaptorRequest, st: RaptorState): { journeys: Journey[]; stats: RaptorStats } {
  const rounds = req.maxRides + 1;
  st.reset(rounds, req.maxArrivalSec);
  for (const a of req.access) {
    const prev = st.accessSec[a.stop]!;
    st.accessSec[a.stop] = prev < 0 ? a.walkSec : Math.min(prev, a.walkSec);
  }
  const stats: RaptorStats = { iterations: 0, rounds: 0, routesScanned: 0 };
  const journeys: Journey[] = [];
  const improvedEgress = new Int32Array(rounds);
  try {
    for (const dep of departures(core, req)) {
      stats.iterations++;
      improvedEgress.fill(-1);
      runIteration(core, req, st, dep, improvedEgress, stats);
      for (let k = 1; k < rounds; k++) {
        if (improvedEgress[k]! >= 0) journeys.push(reconstruct(core, req, st, k, improvedEgress[k]!));
      }
    }
  } finally {
    for (const a of req.access) st.accessSec[a.stop] = -1;
  }
  return { journeys, stats };
}

/** Departure times to iterate, latest first: each trip leaving an access stop inside the window. */
function departures(core: TransitCore, req: RaptorRequest): number[] {
  if (req.windowSec <= 0) return [req.departSec];
  const out: number[] = [];
  const { offsetSec, active, nSlots } = req.days;
  const end = req.departSec + req.windowSec;
  for (const a of req.access) {
    for (let e = core.stopRouteStart[a.stop]!; e < core.stopRouteStart[a.stop + 1]!; e++) {
      const r = core.stopRouteRoute[e]!;
      if (req.routeAllowed && !req.routeAllowed[r]) continue;
      const pos = core.stopRoutePos[e]!;
      const nS = core.routeStopStart[r + 1]! - core.routeStopStart[r]!;
      const t0 = core.routeTripStart[r]!;
      const nT = core.routeTripStart[r + 1]! - t0;
      const time0 = core.routeTime0[r]!;
      const tz = core.routeTz[r]!;
      for (let slot = 0; slot < nSlots; slot++) {
        const off = offsetSec[slot * core.nTz + tz]!;
        const activeBase = (slot * core.nTz + tz) * core.nServices;
        for (let i = 0; i < nT; i++) {
          const idx = time0 + i * nS + pos;
          const d = off + core.depSec[idx]! - a.walkSec;
          if (d < req.departSec || d > end) continue;
          if (core.stopTimeFlags[idx]! & NO_PICKUP) continue;
          if (!active[activeBase + core.tripService[t0 + i]!]) continue;
          out.push(d);
        }
      }
    }
  }
  out.push(req.departSec);
  out.sort((x, y) => y - x);
  const uniq: number[] = [];
  for (const d of out) if (uniq.length === 0 || uniq[uniq.length - 1] !== d) uniq.push(d);
  if (uniq.length <= MAX_ITERATIONS) return uniq;
  const step = uniq.length / MAX_ITERATIONS;
  const thin: number[] = [];
  for (let i = 0; i < MAX_ITERATIONS - 1; i++) thin.push(uniq[Math.floor(i * step)]!);
  thin.push(uniq[uniq.length - 1]!);
  return thin;
}

function runIteration(core: TransitCore, req: RaptorRequest, st: RaptorState, depart: number, improvedEgress: Int32Array, stats: RaptorStats): void {
  const n = core.nStops;
  const { board, boardSrc, marked, markedList } = st;
  st.nMarked = 0;
  for (const a of req.access) {
    const t = depart + a.walkSec;
    if (t < board[a.stop]! && t < st.targetBest[0]!) {
      board[a.stop] = t;
      boardSrc[a.stop] = SRC_ACCESS;
      if (!marked[a.stop]) {
        marked[a.stop] = 1;
        markedList[st.nMarked++] = a.stop;
      }
    }
  }
  const rounds = req.maxRides + 1;
  for (let k = 1; k < rounds && st.nMarked > 0; k++) {
    stats.rounds++;
    const base = k * n;
    const prev = (k - 1) * n;
    // carry the previous round's improvements into this round, and collect the routes to scan
    st.nRouteList = 0;
    for (let i = 0; i < st.nMarked; i++) {
      const p = markedList[i]!;
      marked[p] = 0;
      st.boardable[p] = 1;
      if (board[prev + p]! < board[base + p]!) {
        board[base + p] = board[prev + p]!;
        boardSrc[base + p] = SRC_INHERITED;
      }
      for (let e = core.stopRouteStart[p]!; e < core.stopRouteStart[p + 1]!; e++) {
        const r = core.stopRouteRoute[e]!;
        if (req.routeAllowed && !req.routeAllowed[r]) continue;
        const pos = core.stopRoutePos[e]!;
        const cur = st.routeMarkedPos[r]!;
        if (cur < 0) {
          st.routeList[st.nRouteList++] = r;
          st.routeMarkedPos[r] = pos;
        } else if (pos < cur) st.routeMarkedPos[r] = pos;
      }
    }
    const nBoardable = st.nMarked;
    st.nMarked = 0;
    let bound = UNREACHED;
    for (let j = 0; j <= k; j++) if (st.targetBest[j]! < bound) bound = st.targetBest[j]!;
    st.nRide = 0;
    for (let i = 0; i < st.nRouteList; i++) {
      const r = st.routeList[i]!;
      scanRoute(core, req, st, r, st.routeMarkedPos[r]!, k, bound);
      st.routeMarkedPos[r] = -1;
      stats.routesScanned++;
    }
    // markedList[0..nBoardable) still lists the previous round's stops: nothing marks before this point
    for (let i = 0; i < nBoardable; i++) st.boardable[markedList[i]!] = 0;
    // transfers: stay (with the stop's slack) or walk one footpath
    const speed = req.walkSpeed;
    for (let i = 0; i < st.nRide; i++) {
      const p = st.rideList[i]!;
      st.rideMarked[p] = 0;
      const arr = st.ride[base + p]!;
      const stay = arr + core.stopSlackSec[p]!;
      if (stay < board[base + p]!) {
        board[base + p] = stay;
        boardSrc[base + p] = p;
        mark(st, p);
      }
      for (let e = core.footStart[p]!; e < core.footStart[p + 1]!; e++) {
        const q = core.footTo[e]!;
        const walk = Math.max(core.footMinSec[e]!, Math.ceil(core.footDistM[e]! / speed));
        const t = arr + walk;
        if (t < board[base + q]! && t < bound) {
          board[base + q] = t;
          boardSrc[base + q] = p;
          mark(st, q);
        }
      }
    }
    // destination
    for (const eg of req.egress) {
      const t = st.ride[base + eg.stop]! + eg.walkSec;
      if (t < bound && t < st.targetBest[k]!) {
        st.targetBest[k] = t;
        bound = t;
        improvedEgress[k] = eg.stop;
      }
    }
  }
  for (let i = 0; i < st.nMarked; i++) marked[markedList[i]!] = 0;
  st.nMarked = 0;
}

function mark(st: RaptorState, p: number): void {
  if (!st.marked[p]) {
    st.marked[p] = 1;
    st.markedList[st.nMarked++] = p;
  }
}

function scanRoute(core: TransitCore, req: RaptorRequest, st: RaptorState, r: number, startPos: number, k: number, bound: number): void {
  const n = core.nStops;
  const base = k * n;
  const prev = (k - 1) * n;
  const s0 = core.routeStopStart[r]!;
  const nS = core.routeStopStart[r + 1]! - s0;
  const t0 = core.routeTripStart[r]!;
  const nT = core.routeTripStart[r + 1]! - t0;
  const time0 = core.routeTime0[r]!;
  const tz = core.routeTz[r]!;
  const { offsetSec, active, nSlots } = req.days;
  const { depSec, arrSec, stopTimeFlags, tripService, tripWheelchair, stopWheelchair } = core;
  const { board, ride, rideUpTo } = st;
  const wheelchair = req.wheelchair;
  const rounds = st.rounds;
  let prevOff = 0;
  let prevComplete = false;
  for (let slot = 0; slot < nSlots; slot++) {
    const off = offsetSec[slot * core.nTz + tz]!;
    if (off + core.routeMinDepSec[r]! >= bound || off + core.routeMaxArrSec[r]! < req.departSec) {
      prevComplete = false;
      continue;
    }
    // every trip of this day runs after every trip of the previous day, which already served every
    // stop with a label: nothing here can arrive earlier
    if (prevComplete && off + core.routeMinDepSec[r]! >= prevOff + core.routeMaxArrSec[r]!) break;
    prevOff = off;
    prevComplete = true;
    const activeBase = (slot * core.nTz + tz) * core.nServices;
    let trip = -1;
    let tripBase = 0;
    let boardPos = -1;
    for (let j = startPos; j < nS; j++) {
      const p = core.routeStops[s0 + j]!;
      if (trip >= 0) {
        const idx = tripBase + j;
        if (!(stopTimeFlags[idx]! & NO_DROP_OFF) && !(wheelchair && stopWheelchair[p] === 2)) {
          const a = off + arrSec[idx]!;
          if (a < bound && a < rideUpTo[base + p]!) {
            ride[base + p] = a;
            for (let kk = k; kk < rounds; kk++) {
              const o = kk * n + p;
              if (a < rideUpTo[o]!) rideUpTo[o] = a;
            }
            st.rideRoute[base + p] = r;
            st.rideTrip[base + p] = t0 + trip;
            st.rideSlot[base + p] = slot;
            st.rideBoardPos[base + p] = boardPos;
            st.rideAlightPos[base + p] = j;
            if (!st.rideMarked[p]) {
              st.rideMarked[p] = 1;
              st.rideList[st.nRide++] = p;
            }
          }
        }
      }
      // a stop not improved in the previous round offers the same trips as when it was improved
      if (!st.boardable[p]) continue;
      const b = board[prev + p]!;
      if (b >= UNREACHED || (wheelchair && stopWheelchair[p] === 2)) continue;
      if (trip >= 0 && b > off + depSec[tripBase + j]!) continue; // no earlier trip catchable here
      // earliest trip (before the current one) leaving p at or after b
      let lo = 0;
      let hi = trip >= 0 ? trip : nT;
      const want = b - off;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (depSec[time0 + mid * nS + j]! < want) lo = mid + 1;
        else hi = mid;
      }
      const limit = trip >= 0 ? trip : nT;
      let found = false;
      for (let i = lo; i < limit; i++) {
        const idx = time0 + i * nS + j;
        if (stopTimeFlags[idx]! & NO_PICKUP) continue;
        if (!active[activeBase + tripService[t0 + i]!]) continue;
        if (wheelchair && tripWheelchair[t0 + i] !== 1) continue;
        trip = i;
        tripBase = time0 + i * nS;
        boardPos = j;
        found = true;
        break;
      }
      if (!found && trip < 0) prevComplete = false;
    }
  }
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
    const r = st.rideRoute[idx]!;
    const trip = st.rideTrip[idx]!;
    const slot = st.rideSlot[idx]!;
    const boardPos = st.rideBoardPos[idx]!;
    const alightPos = st.rideAlightPos[idx]!;
    const nS = core.routeStopStart[r + 1]! - core.routeStopStart[r]!;
    const tbase = core.routeTime0[r]! + (trip - core.routeTripStart[r]!) * nS;
    const off = req.days.offsetSec[slot * core.nTz + core.routeTz[r]!]!;
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
