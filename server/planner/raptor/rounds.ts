// Purpose: one range iteration: access, the rounds, the destination check.
/**
 * One range iteration (one departure): the access walks, then rounds of route scans (route-scan.ts),
 * the destination check (the paper's target pruning) and transfers (transfers.ts).
 */
import { UNREACHED, type RaptorRequest, type RaptorStats } from "../api.ts";
import { destinationBounds } from "./heuristic.ts";
import type { PreparedCore } from "./prepare.ts";
import { scanRoutes } from "./route-scan.ts";
import type { ScanContext } from "./slots.ts";
import { SRC_ACCESS, SRC_INHERITED, type RaptorState } from "./state.ts";
import { collectRoutes, relaxTransfers } from "./transfers.ts";

/**
 * Round k = 1 .. maxRides from the labels of the previous rounds (kept across range iterations):
 * the access stops' labels are lowered to `depart` + walk (marked only where accessMark is set, see
 * range.ts), and improvedEgress[k] gets the egress stop through which round k improved the
 * destination (-1: none).
 */
export function runIteration(pc: PreparedCore, req: RaptorRequest, st: RaptorState, cx: ScanContext, depart: number, accessMark: Uint8Array, improvedEgress: Int32Array, stats: RaptorStats): void {
  const { core } = pc;
  const n = core.nStops;
  const { board, boardUpTo, boardSrc, marked, markedList, boardable, ride, rideMarked, rideList, routeMarkedPos, routeMarkedLast, routeList, targetBest, toTarget } = st;
  const { egressSec, egressIdx } = st;
  const { bpStart, bpRoutePos } = cx;
  const rounds = req.maxRides + 1;
  // toTarget holds lower bounds (else zeros: the checks skip reading it)
  let useH = st.boundsSet;
  // the "with at most k rides" rows: one per round in a range search, where labels of later
  // departures stay; a single departure fills rounds in order, so row 0 ("so far") is enough
  const upRow = req.windowSec > 0 ? n : 0;
  const upEnd = req.windowSec > 0 ? rounds * n : n;
  // maxDurationSec: this departure's journeys arrive before depart + maxDurationSec (they leave at or
  // after depart), a bound below every round's destination bound
  const cap = req.maxDurationSec === undefined ? UNREACHED : depart + req.maxDurationSec;
  let nMarked = 0;
  // routes to scan in the next round, collected when a stop is marked
  let nRoutes = 0;
  for (let ai = 0; ai < req.access.length; ai++) {
    const a = req.access[ai]!;
    const t = depart + a.walkSec;
    if (t < board[a.stop]! && t + toTarget[a.stop]! < targetBest[0]!) {
      board[a.stop] = t;
      boardSrc[a.stop] = SRC_ACCESS;
      for (let o: number = a.stop; o < upEnd; o += n) if (t < boardUpTo[o]!) boardUpTo[o] = t;
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
    let bound = cap;
    for (let j = 0; j <= k; j++) if (targetBest[j]! < bound) bound = targetBest[j]!;
    // route scans; an egress stop reached there lowers the bound for the rest of the round
    scanRoutes(core, req, st, cx, k, nRoutes, bound, useH, upRow, upEnd);
    const nRide = st.nRide;
    bound = st.scanBound;
    // a step search reads the stops improved over the whole iteration (minutes.ts)
    const iterMark = st.iterRideMark;
    if (iterMark !== null) {
      const iterList = st.iterRideList!;
      let nIter = st.nIterRide;
      for (let i = 0; i < nRide; i++) {
        const p = rideList[i]!;
        if (!iterMark[p]) {
          iterMark[p] = 1;
          iterList[nIter++] = p;
        }
      }
      st.nIterRide = nIter;
    }
    visited += st.visited;
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
    if (!collect && !req.everyStop) {
      for (let i = 0; i < nRide; i++) rideMarked[rideList[i]!] = 0;
      st.rules?.clearMarks();
    } else {
      nMarked = relaxTransfers(core, st, cx, k, nRide, bound, useH, collect, upRow, upEnd, req.transferSlackSec);
      nRoutes = st.collected;
      footpaths += st.relaxed;
    }
    if (!st.boundsReady && bound < req.maxArrivalSec) {
      // first arrival: lower bounds to the destination, explored up to this arrival (every label is
      // at or after departSec, so a bound capped at bound - departSec prunes exactly as the full one)
      st.boundsReady = true;
      if (destinationBounds(pc, st, req.egress, req.walkSpeed, bound - req.departSec, req.transferSlackSec, req.days.realtime) < 0) toTarget.fill(0);
      else useH = st.boundsSet = true;
    }
  }
  stats.stopsVisited += visited;
  stats.footpaths += footpaths;
  for (let i = 0; i < nMarked; i++) marked[markedList[i]!] = 0;
  for (let i = 0; i < nRoutes; i++) routeMarkedPos[routeList[i]!] = -1;
}

