// Purpose: stays and footpaths after a round, and the routes marked for the next.
/**
 * Transfers: after a round's route scans, stay at a stop (its slack) or walk one footpath, and mark
 * the routes the next round scans.
 */
import type { TransitCore } from "../timetable/types.ts";
import type { ScanContext } from "./slots.ts";
import type { RaptorState } from "./state.ts";
import { isRulePair, markRuleTargets, type RuleIndex } from "./transfer-rules.ts";

/**
 * The transfer phase of round k: from each stop whose ride label improved (rideList[0..nRide)), stay
 * (with the stop's slack, at least `transferSlack`) or walk one footpath (st.footToSec, the slack included); a label no earlier than one with fewer rides
 * (boardUpTo) is dominated and not marked. Then, when `collect`, the marked stops' routes are
 * collected for the next round, in marking order (a pass of its own after the footpaths: collecting
 * inside the footpath loops made the search about 4 % slower in repeated interleaved A/B). Returns the number of marked stops;
 * st.collected = routes collected, st.relaxed = footpaths relaxed. (A function of its own: the
 * search loop's register pressure.)
 */
export function relaxTransfers(core: TransitCore, st: RaptorState, cx: ScanContext, k: number, nRide: number, bound: number, useH: boolean, collect: boolean, upRow: number, upEnd: number, transferSlack: number): number {
  const n = core.nStops;
  const { footStart, stopSlackSec } = core;
  const { board, boardUpTo, boardSrc, marked, markedList, ride, rideMarked, rideList, routeMarkedPos, routeMarkedLast, routeList, toTarget, footToSec } = st;
  const { bpStart, bpRoutePos } = cx;
  const base = k * n;
  const up = k * upRow;
  const plain = upEnd === n && !useH;
  // stops transfer rules leave from (transfer-rules.ts): their rule pairs are not relaxed here; null when none
  const rules = cx.rules;
  const ruleSrc = rules !== null ? rules.isSource : null;
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
    if (ruleSrc !== null && ruleSrc[p] !== 0) {
      nMarked = relaxRuleSource(core, st, rules!, p, arr, base, up, upEnd, bound, useH, transferSlack, nMarked);
      footpaths += footStart[p + 1]! - footStart[p]!;
      continue;
    }
    // staying: the stop's own minimum (transfers.txt) or the request's minimum transfer time
    const slack = stopSlackSec[p]!;
    const stay = arr + (slack > transferSlack ? slack : transferSlack);
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
  // the targets of the rule classes improved in this round (their boarding reads the class labels)
  if (rules !== null) nMarked = markRuleTargets(st, nMarked);
  // the marked stops' routes for the next round
  if (collect) for (let i = 0; i < nMarked; i++) nRoutes = collectRoutes(markedList[i]!, nRoutes, bpStart, bpRoutePos, routeMarkedPos, routeMarkedLast, routeList);
  st.collected = nRoutes;
  st.relaxed = footpaths;
  return nMarked;
}

/**
 * The stay and footpaths of relaxTransfers from a stop that transfer rules leave from, without its
 * rule pairs (those transfers are boarded from the class labels: transfer-rules.ts). Returns the
 * new number of marked stops.
 */
function relaxRuleSource(core: TransitCore, st: RaptorState, ix: RuleIndex, p: number, arr: number, base: number, up: number, upEnd: number, bound: number, useH: boolean, transferSlack: number, nMarked: number): number {
  const n = core.nStops;
  const { board, boardUpTo, boardSrc, marked, markedList, toTarget, footToSec } = st;
  const set = (q: number, t: number) => {
    if (!(t < boardUpTo[up + q]! && (useH ? t + toTarget[q]! : t) < bound)) return;
    board[base + q] = t;
    boardSrc[base + q] = p;
    boardUpTo[up + q] = t;
    for (let o = up + q + n; o < upEnd; o += n) if (t < boardUpTo[o]!) boardUpTo[o] = t;
    if (!marked[q]) {
      marked[q] = 1;
      markedList[nMarked++] = q;
    }
  };
  if (!isRulePair(ix, p, p)) {
    const slack = core.stopSlackSec[p]!;
    set(p, arr + (slack > transferSlack ? slack : transferSlack));
  }
  for (let e = 2 * core.footStart[p]!, eEnd = 2 * core.footStart[p + 1]!; e < eEnd; e += 2) {
    const q = footToSec[e]!;
    if (ix.isTarget[q] && isRulePair(ix, p, q)) continue;
    set(q, arr + footToSec[e + 1]!);
  }
  return nMarked;
}

/**
 * Note that stop q is marked: add every live route that can be boarded at q to the routes of the next
 * round (routeList[0..nRoutes)), widening its [first, last] marked positions. Returns the new count.
 */
export function collectRoutes(q: number, nRoutes: number, bpStart: Int32Array, bpRoutePos: Int32Array, routeMarkedPos: Int32Array, routeMarkedLast: Int32Array, routeList: Int32Array): number {
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
