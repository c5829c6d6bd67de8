// Purpose: pruning of the last rounds' scans to what can still reach the destination (look-ahead).
/**
 * Look-ahead for the last rounds (config.lookAhead): per route, how far a scan of each of the last
 * rounds can still set a label that some journey to the destination within the remaining rides reads.
 */
import type { RaptorRequest } from "../api.ts";
import type { PreparedCore } from "./prepare.ts";
import { REACH_LEVELS, type RaptorState } from "./state.ts";

/**
 * Per route, the last position where a ride label can still lead to the destination, for the last
 * rounds (st.reachLast[l]: round last - l). Level 0: the last egress stop (the last round's labels
 * are read only by the destination check: no transfers follow, journeys end at a ride label). Level
 * l: a ride label of round last - l is read by the destination check (egress stops) and by that
 * round's transfers, whose labels are read by the next round only where boarding can reach a level
 * l - 1 position: so only egress stops and stops with a stay or one footpath to such a boarding
 * stop matter, and a route only up to its last such stop. Exact: every label these limits skip is
 * one no journey to the destination within the remaining rounds can use. Sets st.reachLevels;
 * range.ts clears the lists after the search (clearReach).
 */
export function reachAhead(pc: PreparedCore, req: RaptorRequest, st: RaptorState): void {
  const { reachLast, reachRoutes, nReachRoutes, reachMark, reachBoard, reachList } = st;
  const { core } = pc;
  const { stopRouteStart, stopRouteRoute, stopRoutePos, routeStopStart, routeStops } = core;
  const rev = pc.footIn;
  const rules = pc.rules;
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
      // the stops transfer rules lead from to q (transfer-rules.ts)
      if (rules !== null && rules.isTarget[q]) for (let e = rules.tgtEntryStart[q]!; e < rules.tgtEntryStart[q + 1]!; e++) mark(rules.eSrc[e]!);
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

/** Undo reachAhead's lists (st.reachLast back to -1), so the next search starts from clean state. */
export function clearReach(st: RaptorState): void {
  for (let l = 0; l < st.reachLast.length; l++) {
    const last = st.reachLast[l]!, routes = st.reachRoutes[l]!;
    for (let i = 0; i < st.nReachRoutes[l]!; i++) last[routes[i]!] = -1;
    st.nReachRoutes[l] = 0;
  }
}
