/**
 * The boarding search of every RAPTOR scan (route-scan.ts scanRoutes, transfer-rules.ts
 * RuleState.ruleBoarding and scanRuleRoute, mc.ts searchMc): in one day view of a route (`vtm`, the
 * packed stop times of its active trips in departure order, trip i's stop j at t0v + i * nS + j;
 * see route-scan.ts), the first trip that leaves position `j` at or after `want` (day-view seconds).
 * Each caller then walks on from it past trips that do not pick up or may not be ridden: those
 * checks differ per scan. One function for all of them costs nothing measurable (an interleaved
 * A/B of the inlined copies against this one, BENCHMARKS.md "Planner: the shared boarding search").
 */

/**
 * The first trip index in [0, nT) whose departure at position j is at or after `want`, nT when none
 * is. Departures at one position never decrease from one trip to the next in a day view; they are
 * roughly evenly spread, so the search first interpolates, then gallops to bracket the answer, then
 * bisects.
 */
export function firstLeaving(vtm: Int32Array, t0v: number, nS: number, j: number, nT: number, want: number): number {
  let hi = nT - 1;
  if (hi < 0) return nT;
  const dLast = vtm[2 * (t0v + hi * nS + j) + 1]! >> 2;
  if (dLast < want) return nT;
  const dFirst = vtm[2 * (t0v + j) + 1]! >> 2;
  if (dFirst >= want) return 0;
  let lo = 0;
  if (hi > 8) {
    let g = 1 + Math.floor(((want - dFirst) / (dLast - dFirst + 1)) * (hi - 1));
    let step = 1;
    if (vtm[2 * (t0v + g * nS + j) + 1]! >> 2 >= want) {
      hi = g;
      for (g -= step; g > 0 && vtm[2 * (t0v + g * nS + j) + 1]! >> 2 >= want; g -= step) {
        hi = g;
        step <<= 1;
      }
      lo = g < 0 ? 0 : g + 1;
    } else {
      lo = g + 1;
      for (g += step; g < hi && vtm[2 * (t0v + g * nS + j) + 1]! >> 2 < want; g += step) {
        lo = g + 1;
        step <<= 1;
      }
      if (g < hi) hi = g;
    }
  }
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (vtm[2 * (t0v + mid * nS + j) + 1]! >> 2 < want) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
