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
 * (nSteps - 1) * stepSec, req.egress empty). After iteration i, `onStep(i, departure, arrivals,
 * changed, nChanged)` gets, for each of `stops` (distinct), the earliest arrival there by a ride of
 * at most req.maxRides rides (relative seconds, UNREACHED when none), in an array kept from step to
 * step, and the indices into `stops` whose arrival fell in this iteration (changed[0 .. nChanged)):
 * the others are as at the previous step. Only the stops whose ride label improved in the
 * iteration are read (rounds.ts lists them), from the "at most maxRides rides" row of rideUpTo,
 * which is the earliest of the ride labels of every round.
 */
export function searchSteps(
  pc: PreparedCore, request: RaptorRequest, st: RaptorState, config: RaptorConfig,
  nSteps: number, stepSec: number, stops: Int32Array, onStep: (i: number, departSec: number, arrivals: Int32Array, changed: Int32Array, nChanged: number) => void,
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
  const out = new Int32Array(stops.length).fill(UNREACHED);
  const changed = new Int32Array(stops.length);
  // stop -> index into `stops`, -1 when not asked for
  const index = new Int32Array(n).fill(-1);
  for (let j = 0; j < stops.length; j++) index[stops[j]!] = j;
  // rideUpTo's "at most maxRides rides" row: every round's in a range search, row 0 for one departure
  const upRow = req.windowSec > 0 ? (rounds - 1) * n : 0;
  const iterMark = new Uint8Array(n);
  const iterList = new Int32Array(n);
  try {
    st.iterRideMark = iterMark;
    st.iterRideList = iterList;
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
      st.nIterRide = 0;
      runIteration(pc, req, st, cx, dep, accessMark, improvedEgress, stats);
      const { rideUpTo } = st;
      let nChanged = 0;
      for (let t = 0, end = st.nIterRide; t < end; t++) {
        const p = iterList[t]!;
        iterMark[p] = 0;
        const j = index[p]!;
        if (j < 0) continue;
        const a = rideUpTo[upRow + p]!;
        if (a < out[j]!) {
          out[j] = a;
          changed[nChanged++] = j;
        }
      }
      // in the order of `stops` (the caller's data for them then lies in memory order)
      if (nChanged > 1) changed.subarray(0, nChanged).sort();
      onStep(i, dep, out, changed, nChanged);
    }
    return stats;
  } finally {
    st.iterRideMark = null;
    st.iterRideList = null;
    clearSearch(req, st);
  }
}
