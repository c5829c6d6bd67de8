// Purpose: the route scans of one round.
/**
 * Route scans of one round (the paper's second stage): every route marked in the previous round, from
 * its first marked position, once per service-day slot, over that day's active trips only.
 */
import { UNREACHED, type RaptorRequest } from "../api.ts";
import { NO_DROP_OFF, NO_PICKUP, type TransitCore } from "../timetable/types.ts";
import type { ScanContext } from "./slots.ts";
import type { RaptorState } from "./state.ts";
import { firstLeaving } from "./boarding.ts";
import { scanRuleRoute } from "./transfer-rules.ts";

/**
 * Scan the routes routeList[0..nRoutes) for round k: boarding from the previous round's labels at
 * stops marked boardable, alighting into ride labels below `bound` (with lower bounds `useH`), never
 * at a stop of st.stopBlocked nor onto a trip req.tripAllowed bans.
 * Outputs: st.nRide ride labels improved (listed in rideList), st.scanBound the round's bound after
 * the scans (lowered by egress stops reached), st.visited route stops visited. One call per round:
 * the scan of a route is written inside the route loop, no call per route or per route stop.
 */
export function scanRoutes(core: TransitCore, req: RaptorRequest, st: RaptorState, cx: ScanContext, k: number, nRoutes: number, bound: number, useH: boolean, upRow: number, upEnd: number): void {
  const n = core.nStops;
  const { board, boardable, ride, rideUpTo, rideBoard, rideSlot, rideMarked, rideList, routeMarkedPos, routeMarkedLast, routeList, toTarget, egressSec } = st;
  const { slotC0, slotNT, slotMin, slotMax, slotMaxDep, slotT0 } = st;
  const { routeStopStart, routeTime0, routeTz, routeTripStart } = core;
  const { monotone, routeStopBoard, tripsOf, timesOf, extraRoutesOf, extraTimesOf } = cx;
  const { offsetSec, nSlots } = req.days;
  const nTz = core.nTz;
  // stops that may not be boarded or alighted at (wheelchair, banned stops: range.ts), trips that may not be ridden
  const blocked = st.stopBlocked;
  const tripOk = req.tripAllowed ?? null;
  const departSec = req.departSec;
  const rounds = req.maxRides + 1;
  const base = k * n;
  const prev = (k - 1) * n;
  const up = k * upRow;
  let nRide = 0;
  let visited = 0;
  // the last rounds (look-ahead.ts): per route, the last position whose label can still matter
  const level = rounds - 1 - k;
  const limitPos = level > st.reachLevels ? null : st.reachLast[level]!;
  // routes meeting transfer rules (transfer-rules.ts) are scanned there; null when the timetable has none
  const ruleRoute = cx.rules !== null ? cx.rules.ruleRoute : null;
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
    // which the rides left can still reach the destination (look-ahead.ts)
    let scanEnd = nS;
    if (limitPos !== null) {
      const eLast = limitPos[r]!;
      if (eLast <= startPos) continue;
      if (lastPos >= eLast) lastPos = eLast - 1;
      scanEnd = eLast + 1;
    }
    if (ruleRoute !== null && ruleRoute[r] === 1) {
      st.nRide = nRide;
      st.scanBound = bound;
      st.visited = visited;
      scanRuleRoute(core, req, st, cx, k, r, startPos, lastPos, scanEnd, useH, upRow, upEnd);
      nRide = st.nRide;
      bound = st.scanBound;
      visited = st.visited;
      continue;
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
      const xr = extraRoutesOf[slot * nTz + tz]!;
      const vtm = xr !== null && xr[r] === 1 ? extraTimesOf[slot * nTz + tz]! : timesOf[slot * nTz + tz]!;
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
        if ((useH ? b + toTarget[p]! : b) >= bound || (blocked !== null && blocked[p] !== 0)) continue;
        // no trip of this day leaves any stop after b (no timetable read)
        if (b > lastDep) {
          if (firstFail === nS) firstFail = j;
          continue;
        }
        const want = b - off;
        // the boarding search shared by every scan (boarding.ts); no trip leaves this stop after b on this day when lo = nT
        const lo = firstLeaving(vtm, t0v, nS, j, nT, want);
        for (let i = lo; i < nT; i++) {
          const tb = t0v + i * nS;
          if (vtm[2 * (tb + j) + 1]! & NO_PICKUP) continue;
          if (tripOk !== null && tripOk[routeTripStart[r]! + vt[c0 + i]!] === 0) continue;
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
          if (a < rideUpTo[up + p]! && (useH ? a + toTarget[p]! : a) < bound && !(vtm[2 * idx]! & NO_DROP_OFF) && !(blocked !== null && blocked[p] !== 0)) {
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
          if ((useH ? b + toTarget[p]! : b) >= bound || (blocked !== null && blocked[p] !== 0)) continue;
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
            if (tripOk !== null && tripOk[routeTripStart[r]! + vt[c0 + i]!] === 0) continue;
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
          if (a < rideUpTo[up + p]! && (useH ? a + toTarget[p]! : a) < bound && !(vtm[2 * idx]! & NO_DROP_OFF) && !(blocked !== null && blocked[p] !== 0)) {
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
  st.nRide = nRide;
  st.scanBound = bound;
  st.visited = visited;
}
