// Purpose: range RAPTOR, the departures of the window latest first (and the short first window).
/**
 * Range RAPTOR (Delling, Pajor, Werneck: "Round-Based Public Transit Routing", Transportation
 * Science 49(3), 2015, sections 3 and 4.1) on a prepared core: one iteration (rounds.ts) per
 * departure in the window, latest first, keeping labels, so each iteration only adds journeys that
 * leave later or arrive earlier than all found so far. Round k holds the best arrivals with exactly
 * k rides, so the labels at the destination form the Pareto set on (arrival, rides). Always searches
 * "forward" in time; backward searches run it on the mirrored core (index.ts).
 */
import { UNREACHED, type Journey, type RaptorConfig, type RaptorRequest, type RaptorStats } from "../api.ts";
import { NO_PICKUP, depAt, flagsAt } from "../timetable/types.ts";
import { routeTimes, type DayView } from "./day-view.ts";
import { clearReach, reachAhead } from "./look-ahead.ts";
import { nonDominated, reconstruct } from "./paths.ts";
import type { PreparedCore } from "./prepare.ts";
import { runIteration } from "./rounds.ts";
import { dayViews, markLiveRoutes, scanContext, type ScanContext } from "./slots.ts";
import type { RaptorState } from "./state.ts";
import { useRules } from "./transfer-rules.ts";

/**
 * Range RAPTOR over [departSec, departSec + windowSec]: one iteration per departure, latest first.
 *
 * When only the n = keepEarliest earliest arrivals are wanted and the window is long, a shorter
 * first window is tried: the first config.firstWindowSec (15 minutes), or up to the 4n-th departure
 * when that is later (departures are thinned to config.maxIterations per window, so the short window
 * samples them densely). It answers when it finds n journeys and its first iteration (its latest
 * departure d1) arrives strictly after the n-th of them: the earliest arrival departing at or after
 * d1 bounds every journey leaving later in the window (one can wait at the origin), so none of those
 * can arrive by the n-th arrival or dominate a journey that does, and the n earliest are the same as
 * over the whole window. Otherwise the whole window is searched from scratch.
 */
export function searchForward(pc: PreparedCore, request: RaptorRequest, st: RaptorState, config: RaptorConfig): { journeys: Journey[]; stats: RaptorStats } {
  // the slacks before the first and after the last ride lengthen the access and egress walks
  // (paths.ts takes them off the walk legs again)
  const req = withSlacks(request);
  const stats: RaptorStats = { iterations: 0, rounds: 0, routesScanned: 0, stopsVisited: 0, footpaths: 0 };
  try {
    const { views, cx } = setUpSearch(pc, req, st, config);
    if (req.noDestinationPruning && config.destinationPruning) config = { ...config, destinationPruning: false };
    const { uniq, pairs } = departures(pc, req, st, views);
    const thin = (ds: number[]) => thinned(ds, config.maxIterations);
    const keep = req.keepEarliest ?? 0;
    // (not with maxDurationSec: its first iteration's arrival no longer bounds the later departures)
    if (keep > 0 && req.windowSec > 2 * config.firstWindowSec && req.maxDurationSec === undefined) {
      // uniq is latest first: the (4n)-th departure from the start is uniq[len - 4n]
      const nth = uniq[Math.max(0, uniq.length - config.firstWindowDeparturesPerJourney * keep)]!;
      const end = req.departSec + Math.max(config.firstWindowSec, nth - req.departSec);
      if (end - req.departSec <= req.windowSec / 2) {
        const first = iterate(pc, req, st, cx, thin(uniq.filter((d) => d <= end)), pairs, stats, config);
        const arrivals = nonDominated(first.journeys).map((j) => j.arriveSec).sort((a, b) => a - b);
        if (arrivals.length >= keep && first.firstArrival > arrivals[keep - 1]!) return { journeys: first.journeys, stats: { ...stats, window: "short" } };
        stats.window = "short+full";
      }
    }
    const journeys = iterate(pc, req, st, cx, thin(uniq), pairs, stats, config).journeys;
    if (keep > 0 && !stats.window) stats.window = "full";
    return { journeys, stats };
  } finally {
    clearSearch(req, st);
  }
}

/**
 * What every search of `req` (slacks applied: withSlacks) sets up in the state before its
 * iterations: access and egress walks per stop, the look-ahead (unless every stop is read), the
 * routes running on the searched days, footpath times, transfer rules and blocked stops; the day
 * views and scan context it runs on. The caller runs clearSearch after, also when this throws.
 */
export function setUpSearch(pc: PreparedCore, req: RaptorRequest, st: RaptorState, config: RaptorConfig): { views: DayView[]; cx: ScanContext } {
  const { core } = pc;
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
  if (!req.everyStop && config.lookAhead) reachAhead(pc, req, st);
  const views = dayViews(pc, req);
  markLiveRoutes(pc, req, st, views);
  st.footpathSeconds(core, req.walkSpeed, req.transferSlackSec);
  useRules(pc, st, req);
  st.blockStops(core, req.wheelchair, req.stopRules);
  return { views, cx: scanContext(pc, views) };
}

/** Leaves the caller's state clean for the next search (after setUpSearch). */
export function clearSearch(req: RaptorRequest, st: RaptorState): void {
  for (const a of req.access) st.accessSec[a.stop] = -1;
  for (const eg of req.egress) st.egressSec[eg.stop] = -1;
  clearReach(st);
}

/**
 * The range iterations over `times` (latest first) from cleared labels; firstArrival = the earliest
 * destination arrival of the first (latest) departure. `pairs` lists every access departure (see
 * departures()); those after times[0] are marked in the first iteration.
 */
function iterate(pc: PreparedCore, req: RaptorRequest, st: RaptorState, cx: ScanContext, times: number[], pairs: Float64Array, stats: RaptorStats, config: RaptorConfig): { journeys: Journey[]; firstArrival: number } {
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
  st.boundsReady = req.egress.length === 0 || times.length < 2 || !config.destinationPruning;
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
    runIteration(pc, req, st, cx, dep, accessMark, improvedEgress, stats);
    if (it === 0) for (let k = 0; k < rounds; k++) firstArrival = Math.min(firstArrival, st.targetBest[k]!);
    let found = false;
    for (let k = 1; k < rounds; k++) {
      if (improvedEgress[k]! >= 0) {
        // (null: a transfer rule no longer holds on its labels, transfer-rules.ts)
        const j = reconstruct(pc.core, req, st, cx, k, improvedEgress[k]!);
        if (j) journeys.push(j);
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

/** departures() packs (departure, access index) pairs as departure * PAIR + index. */
export const PAIR = 65536;

/** The request with its access (egress) walks lengthened by the slack before the first (after the last) ride. */
export function withSlacks(req: RaptorRequest): RaptorRequest {
  const { accessSlackSec: a, egressSlackSec: e } = req;
  if (!a && !e) return req;
  return {
    ...req,
    access: a ? req.access.map((w) => ({ stop: w.stop, walkSec: w.walkSec + a })) : req.access,
    egress: e ? req.egress.map((w) => ({ stop: w.stop, walkSec: w.walkSec + e })) : req.egress,
  };
}

/**
 * Departure times to iterate, latest first: each active trip leaving an access stop inside the
 * window (minus the walk), then departSec (thinned() caps their number). `pairs` holds every such
 * departure as d * PAIR + access index, ascending, so iterations know which access stops gained a trip.
 */
export function departures(pc: PreparedCore, req: RaptorRequest, st: RaptorState, views: DayView[]): { uniq: number[]; pairs: Float64Array } {
  const { core } = pc;
  if (req.windowSec <= 0 || req.access.length >= PAIR) return { uniq: [req.departSec], pairs: new Float64Array(0) };
  const out: number[] = [];
  const { offsetSec, nSlots } = req.days;
  const nTz = core.nTz;
  const end = req.departSec + req.windowSec;
  for (let ai = 0; ai < req.access.length; ai++) {
    const a = req.access[ai]!;
    for (let e = core.stopRouteStart[a.stop]!; e < core.stopRouteStart[a.stop + 1]!; e++) {
      const r = core.stopRouteRoute[e]!;
      if (!st.routeLive[r]) continue;
      const pos = core.stopRoutePos[e]!;
      const nS = core.routeStopStart[r + 1]! - core.routeStopStart[r]!;
      const tz = core.routeTz[r]!;
      for (let slot = 0; slot < nSlots; slot++) {
        const v = views[slot * nTz + tz]!;
        // the view's stop times (realtime ones where the day has them): active trip m at time0 + m * nS
        const times = routeTimes(v, r);
        const time0 = v.time0[r]! + pos;
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
          if (depAt(times, time0 + mid * nS) < want) lo = mid + 1;
          else hi = mid;
        }
        for (let m = lo; m < nT; m++) {
          const idx = time0 + m * nS;
          const d = depAt(times, idx);
          if (d > last) break;
          if (flagsAt(times, idx) & NO_PICKUP) continue;
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

/** Departures (latest first, ending with departSec) thinned to `max`, keeping the first and last. */
export function thinned(uniq: number[], max: number): number[] {
  if (uniq.length <= max) return uniq;
  const step = uniq.length / max;
  const out: number[] = [];
  for (let i = 0; i < max - 1; i++) out.push(uniq[Math.floor(i * step)]!);
  out.push(uniq[uniq.length - 1]!);
  return out;
}

