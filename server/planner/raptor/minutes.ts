// Purpose: range RAPTOR at every step of a departure window, each step's arrivals read out (analysis).
/**
 * Range RAPTOR as the accessibility analyses of Conveyal R5 run it (Conveyal, "Evidence-based
 * transit and land use sketch planning using interactive accessibility methods on combined
 * schedule and headway-based networks", Transportation Research Record 2653, 2017): one iteration
 * per departure minute of a window, latest first, labels kept from one iteration to the next
 * (range.ts), so after the iteration of minute m the labels are the earliest arrivals of a journey
 * leaving at m or later, which is the earliest arrival departing at m (one may wait at the origin).
 * Unlike a journey search there is no destination: after each iteration the caller reads the
 * earliest arrival by a ride (alighting) at the stops it asks for. Only the access stops that gained
 * a trip since the previous iteration are marked (range.ts iterate).
 */
import { UNREACHED, type RaptorConfig, type RaptorRequest, type RaptorStats } from "../api.ts";
import type { PreparedCore } from "./prepare.ts";
import { clearSearch, departures, PAIR, setUpSearch, withSlacks } from "./range.ts";
import { runIteration } from "./rounds.ts";
import type { RaptorState } from "./state.ts";

/**
 * Iterations at departSec + i * stepSec for i = nSteps - 1 down to 0 (req.windowSec must be
 * (nSteps - 1) * stepSec, req.egress empty). After iteration i, `onStep(i, departure, arrivals)`
 * gets, for each of `stops`, the earliest arrival there by a ride of at most req.maxRides rides
 * (relative seconds, UNREACHED when none), in an array reused by the next step.
 */
export function searchSteps(
  pc: PreparedCore, request: RaptorRequest, st: RaptorState, config: RaptorConfig,
  nSteps: number, stepSec: number, stops: Int32Array, onStep: (i: number, departSec: number, arrivals: Int32Array) => void,
): RaptorStats {
  if (request.egress.length) throw new Error("searchSteps: no destination (egress) in a step search");
  if (request.windowSec !== (nSteps - 1) * stepSec) throw new Error("searchSteps: windowSec must be (nSteps - 1) * stepSec");
  // no destination: neither the look-ahead nor destination bounds apply; ride labels are all that is
  // read, so the last round's transfers are not relaxed (everyStop stays unset)
  const cfg: RaptorConfig = { ...config, lookAhead: false, destinationPruning: false };
  const req = withSlacks(request);
  const stats: RaptorStats = { iterations: 0, rounds: 0, routesScanned: 0, stopsVisited: 0, footpaths: 0 };
  const n = pc.core.nStops;
  const rounds = req.maxRides + 1;
  const out = new Int32Array(stops.length);
  try {
    const { views, cx } = setUpSearch(pc, req, st, cfg);
    const { pairs } = departures(pc, req, st, views);
    st.reset(rounds, req.maxArrivalSec, req.windowSec > 0);
    st.toTarget.fill(0);
    st.boundsSet = false;
    st.boundsReady = true;
    const improvedEgress = new Int32Array(rounds);
    const accessMark = new Uint8Array(req.access.length).fill(1);
    let pi = pairs.length - 1;
    for (let i = nSteps - 1; i >= 0; i--) {
      const dep = req.departSec + i * stepSec;
      stats.iterations++;
      if (i < nSteps - 1) accessMark.fill(0);
      for (; pi >= 0 && pairs[pi]! >= dep * PAIR; pi--) {
        const key = pairs[pi]!;
        accessMark[key - Math.floor(key / PAIR) * PAIR] = 1;
      }
      runIteration(pc, req, st, cx, dep, accessMark, improvedEgress, stats);
      alightArrivals(st.ride, n, rounds, stops, out);
      onStep(i, dep, out);
    }
    return stats;
  } finally {
    clearSearch(req, st);
  }
}

/** For each of `stops`: the earliest ride label over rounds 1 .. rounds - 1 (UNREACHED when none). */
function alightArrivals(ride: Int32Array, n: number, rounds: number, stops: Int32Array, out: Int32Array): void {
  for (let j = 0; j < stops.length; j++) {
    const p = stops[j]!;
    let best = UNREACHED;
    for (let o = n + p; o < rounds * n; o += n) if (ride[o]! < best) best = ride[o]!;
    out[j] = best;
  }
}
