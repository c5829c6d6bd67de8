// Purpose: pruning by lower bounds of the time to the destination (destination pruning).
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
import { UNREACHED, type RealtimeDays, type StopWalk } from "../api.ts";
import { arrAt, depAt, type TransitCore } from "../timetable/types.ts";
import type { PreparedCore } from "./prepare.ts";
import type { RaptorState } from "./state.ts";

/**
 * Incoming ride hops: stop q -> [hopStart[q], hopStart[q+1]) in hopFrom/hopSec, one per stop p that
 * directly precedes q on some route, with the minimum over those routes' trips of
 * (arrival at q - departure at p), >= 0. Routes are not filtered per query (more hops only lower h).
 */
export interface HopGraph {
  hopStart: Int32Array;
  hopFrom: Int32Array;
  hopSec: Int32Array;
}

/** Bounds are capped at this many seconds (the bucket queue has one bucket per second). */
const MAX_LIMIT = 4 * 86400;

/** The relaxed ride network, built once per core by prepare() (~90 ms on all MTA feeds). */
export function hopGraph(core: TransitCore): HopGraph {
  const { nRoutes, nStops, routeStopStart, routeTripStart, routeTime0, stopTimes, routeStops } = core;
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
  return { hopStart, hopFrom: Int32Array.from(hopFrom), hopSec: Int32Array.from(hopSec) };
}

/**
 * Fill st.toTarget with lower bounds to the egress stops; stops that cannot reach them get `limit`.
 * Exploration stops at `limit` seconds: bounds are capped at `limit` (still lower bounds). The queue
 * entries live in st.queueNode/queueNext (capacity >= egress + edges). Walks take their seconds with
 * the search's transfer slack (the footpaths' seconds the search uses). Returns the number of edges
 * relaxed, -1 if the capacity did not suffice (then toTarget is not valid).
 */
export function destinationBounds(pc: PreparedCore, st: RaptorState, egress: StopWalk[], walkSpeed: number, limit: number, transferSlack = 0, realtime?: RealtimeDays): number {
  const { hopStart, hopFrom, hopSec } = realtime?.fasterHops ? pc.rtHops.of(realtime.fasterHops) : pc.hops;
  const inStart = pc.footIn.start;
  const inFromSec = st.incomingFootpaths(pc, walkSpeed, transferSlack);
  // transfer rules (transfer-rules.ts) may join stops no footpath joins, or sooner: 0 s into each target from its sources
  const rules = pc.rules;
  const h = st.toTarget, node = st.queueNode, next = st.queueNext;
  h.fill(UNREACHED);
  // Dial's bucket queue (integer seconds, keys < limit): bucket t is a stack of entries in
  // node/next, one entry per decrease of h; stale entries (h[q] !== t) are skipped
  const lim = Math.max(0, Math.min(limit, MAX_LIMIT));
  const head = st.queueHeads(lim + 1);
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
      if (rules !== null && rules.isTarget[q]) {
        for (let e = rules.tgtEntryStart[q]!; e < rules.tgtEntryStart[q + 1]!; e++) {
          const p = rules.eSrc[e]!;
          if (key >= h[p]!) continue;
          if (n >= cap) return -1;
          h[p] = key;
          node[n] = p;
          next[n] = head[key]!;
          head[key] = n++;
        }
      }
    }
  }
  // stops not settled below the limit are at least `lim` away
  for (let p = 0; p < h.length; p++) if (h[p]! > lim) h[p] = lim;
  return relaxed;
}

/**
 * The hop graph with the faster rides of realtime trips (RealtimeDays.fasterHops) taken in: the
 * scheduled graph's seconds lowered where a realtime ride between two stops is faster. The last
 * list's graph is kept (a pure function of the timetable and the list, named by its key).
 */
export class RealtimeHops {
  private last: { key: string; graph: HopGraph } | null = null;

  /** `mirrored`: the graph is the mirrored core's, whose hops run the other way */
  constructor(
    private readonly hops: HopGraph,
    private readonly mirrored: boolean,
  ) {}

  of(faster: NonNullable<RealtimeDays["fasterHops"]>): HopGraph {
    if (this.last?.key === faster.key) return this.last.graph;
    const { hopStart, hopFrom } = this.hops;
    const hopSec = this.hops.hopSec.slice();
    for (let i = 0; i < faster.sec.length; i++) {
      // incoming hops of stop q from stop p: forward p -> q; in the mirror the ride runs q -> p
      const p = this.mirrored ? faster.to[i]! : faster.from[i]!;
      const q = this.mirrored ? faster.from[i]! : faster.to[i]!;
      const sec = Math.max(0, faster.sec[i]!);
      for (let y = hopStart[q]!; y < hopStart[q + 1]!; y++) if (hopFrom[y] === p && sec < hopSec[y]!) hopSec[y] = sec;
    }
    const graph = { hopStart, hopFrom, hopSec };
    this.last = { key: faster.key, graph };
    return graph;
  }
}
