/**
 * Destination lower bounds for pruning (OTP2's Raptor "heuristic" destination pruning, A*-style):
 * h[p] = a lower bound of the time from being at stop p (able to board there, or just alighted) to
 * reaching the destination. It is a reverse Dijkstra from the egress stops on a relaxed network where
 * every ride hop takes the minimum over all trips of that route of (arrival at j+1 - departure at j),
 * nobody waits, any number of walks may follow each other and pickup/drop-off rules are ignored:
 * every real continuation is a path of that network, so it takes at least h[p]. A label t at p with
 * t + h[p] >= bound (the best destination arrival so far) cannot lead to an arrival below bound and is
 * pruned; labels on the path of any journey arriving below bound all pass, so results are unchanged.
 */
import { UNREACHED, type StopWalk } from "../api.ts";
import { arrAt, depAt, type TransitCore } from "../timetable/types.ts";

/** Switch for tests and benchmarks: compare searches with and without destination pruning. */
export const destinationPruning = { enabled: true };

interface Static {
  /**
   * incoming ride hops: stop q -> [hopStart[q], hopStart[q+1]) in hopFrom/hopSec, one per stop p that
   * directly precedes q on some route, with the minimum over those routes' trips of
   * (arrival at q - departure at p), >= 0. Routes are not filtered per query (more hops only lower h).
   */
  hopStart: Int32Array;
  hopFrom: Int32Array;
  hopSec: Int32Array;
  /** incoming footpaths: stop -> [inStart[q], inStart[q+1]) in inEdge (outgoing footpath indexes) and inFrom */
  inStart: Int32Array;
  inEdge: Int32Array;
  inFrom: Int32Array;
  /** incoming footpaths interleaved for the search at walking speed `inSpeed`: [2k] = inFrom, [2k + 1] = walking seconds */
  inFromSec: Int32Array;
  inSpeed: number;
}

const statics = new WeakMap<TransitCore, Static>();

/** Bucket heads of the queue (grown on demand); bounds are capped at MAX_LIMIT seconds. */
let head = new Int32Array(0);
const MAX_LIMIT = 4 * 86400;


function staticOf(core: TransitCore): Static {
  let s = statics.get(core);
  if (s) return s;
  const { nRoutes, nStops, routeStopStart, routeTripStart, routeTime0, stopTimes, footStart, footTo } = core;
  const { routeStops } = core;
  // (q, p, seconds) of every consecutive stop pair of every route with trips, sorted by (q, p, seconds)
  const hq: number[] = [], hp: number[] = [], hs: number[] = [];
  for (let r = 0; r < nRoutes; r++) {
    const s0 = routeStopStart[r]!;
    const nS = routeStopStart[r + 1]! - s0;
    const nT = routeTripStart[r + 1]! - routeTripStart[r]!;
    const time0 = routeTime0[r]!;
    if (nT === 0) continue;
    for (let j = 0; j < nS - 1; j++) {
      let m = UNREACHED;
      for (let i = 0, b = time0 + j; i < nT; i++, b += nS) {
        const d = arrAt(stopTimes, b + 1) - depAt(stopTimes, b);
        if (d < m) m = d;
      }
      hq.push(routeStops[s0 + j + 1]!);
      hp.push(routeStops[s0 + j]!);
      hs.push(Math.max(m, 0));
    }
  }
  const order = Uint32Array.from(hq.keys());
  if (nStops * nStops * 2 ** 22 < 2 ** 53) {
    // pack (q, p, min(seconds, 2^22 - 1)) into one exact double; a capped hop only lowers h
    const packed = new Float64Array(hq.length);
    for (let i = 0; i < hq.length; i++) packed[i] = (hq[i]! * nStops + hp[i]!) * 2 ** 22 + Math.min(hs[i]!, 2 ** 22 - 1);
    packed.sort();
    for (let i = 0; i < packed.length; i++) {
      const pair = Math.floor(packed[i]! / 2 ** 22);
      hq[i] = Math.floor(pair / nStops);
      hp[i] = pair - hq[i]! * nStops;
      hs[i] = packed[i]! - pair * 2 ** 22;
    }
  } else {
    order.sort((a, b) => hq[a]! - hq[b]! || hp[a]! - hp[b]! || hs[a]! - hs[b]!);
  }
  const hopStart = new Int32Array(nStops + 1);
  const hopFrom: number[] = [];
  const hopSec: number[] = [];
  for (let x = 0; x < order.length; x++) {
    const i = order[x]!;
    if (x > 0 && hq[i] === hq[order[x - 1]!] && hp[i] === hp[order[x - 1]!]) continue; // same pair, slower hop
    hopStart[hq[i]! + 1]!++;
    hopFrom.push(hp[i]!);
    hopSec.push(hs[i]!);
  }
  for (let q = 0; q < nStops; q++) hopStart[q + 1] = hopStart[q + 1]! + hopStart[q]!;
  const inStart = new Int32Array(nStops + 1);
  for (let e = 0; e < footTo.length; e++) inStart[footTo[e]! + 1]!++;
  for (let q = 0; q < nStops; q++) inStart[q + 1] = inStart[q + 1]! + inStart[q]!;
  const fill = inStart.slice(0, nStops);
  const inEdge = new Int32Array(footTo.length);
  const inFrom = new Int32Array(footTo.length);
  for (let p = 0; p < nStops; p++) {
    for (let e = footStart[p]!; e < footStart[p + 1]!; e++) {
      const k = fill[footTo[e]!]!++;
      inEdge[k] = e;
      inFrom[k] = p;
    }
  }
  s = { hopStart, hopFrom: Int32Array.from(hopFrom), hopSec: Int32Array.from(hopSec), inStart, inEdge, inFrom, inFromSec: new Int32Array(2 * footTo.length), inSpeed: -1 };
  statics.set(core, s);
  return s;
}

/**
 * Fill h (length nStops) with lower bounds to the egress stops; stops that cannot reach them get
 * `limit`. footSec are walking seconds per footpath at walkSpeed. Exploration stops at `limit` seconds: bounds are capped at `limit` (still lower bounds).
 * node/next hold the queue entries (capacity >= egress + edges). Returns the number of edges relaxed,
 * -1 if the capacity did not suffice (then h is not valid).
 */
export function destinationBounds(core: TransitCore, egress: StopWalk[], footSec: Int32Array, walkSpeed: number, limit: number, h: Int32Array, node: Int32Array, next: Int32Array): number {
  const s = staticOf(core);
  const { hopStart, hopFrom, hopSec, inStart, inFromSec } = s;
  if (s.inSpeed !== walkSpeed) {
    const { inEdge, inFrom } = s;
    for (let k = 0; k < inEdge.length; k++) {
      inFromSec[2 * k] = inFrom[k]!;
      inFromSec[2 * k + 1] = footSec[inEdge[k]!]!;
    }
    s.inSpeed = walkSpeed;
  }
  h.fill(UNREACHED);
  // Dial's bucket queue (integer seconds, keys < limit): bucket t is a stack of entries in
  // node/next, one entry per decrease of h; stale entries (h[q] !== t) are skipped
  const lim = Math.max(0, Math.min(limit, MAX_LIMIT));
  if (head.length < lim + 1) head = new Int32Array(lim + 1);
  head.fill(-1, 0, lim + 1);
  const cap = node.length;
  let n = 0;
  let relaxed = 0;
  for (const eg of egress) {
    if (eg.walkSec < h[eg.stop]! && eg.walkSec < lim) {
      if (n >= cap) return -1;
      h[eg.stop] = eg.walkSec;
      node[n] = eg.stop;
      next[n] = head[eg.walkSec]!;
      head[eg.walkSec] = n++;
    }
  }
  for (let key = 0; key < lim; key++) {
    while (head[key]! >= 0) {
      const x = head[key]!;
      head[key] = next[x]!;
      const q = node[x]!;
      if (h[q] !== key) continue;
      // ride hops into q, then walks into q
      const e0 = hopStart[q]!, e1 = hopStart[q + 1]!;
      const k0 = inStart[q]!, k1 = inStart[q + 1]!;
      relaxed += e1 - e0 + k1 - k0;
      for (let y = e0; y < e1; y++) {
        const t = key + hopSec[y]!;
        const p = hopFrom[y]!;
        if (t >= h[p]! || t >= lim) continue;
        if (n >= cap) return -1;
        h[p] = t;
        node[n] = p;
        next[n] = head[t]!;
        head[t] = n++;
      }
      for (let k = 2 * k0, kEnd = 2 * k1; k < kEnd; k += 2) {
        const t = key + inFromSec[k + 1]!;
        const p = inFromSec[k]!;
        if (t >= h[p]! || t >= lim) continue;
        if (n >= cap) return -1;
        h[p] = t;
        node[n] = p;
        next[n] = head[t]!;
        head[t] = n++;
      }
    }
  }
  limit = lim;
  // stops not settled below the limit are at least `limit` away
  for (let p = 0; p < h.length; p++) if (h[p]! > limit) h[p] = limit;
  return relaxed;
}
