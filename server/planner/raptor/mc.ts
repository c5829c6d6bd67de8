// Purpose: the generalized-cost search (OTP1's weight as a RAPTOR criterion, like OTP2's multi-criteria c1).
/**
 * Generalized cost (api.ts CostModel: OTP1's "weight", OTP2's c1) as a criterion of the search, the
 * mode of the core a request with costs runs (McRAPTOR: D. Delling, T. Pajor, R. F. Werneck,
 * "Round-Based Public Transit Routing", section 5; OTP2's multi-criteria Range-RAPTOR). The default
 * search (range.ts) never comes here.
 *
 * `searchByCost` runs the range search (range.ts: every departure of the window, the request's
 * masks and slacks, its whole Pareto set) and the cost search from the requested time
 * (`searchMc`), and keeps the n journeys of least cost among both (keepEarliest = n), each with its
 * cost (the plan lists them cheapest first). The cost search keeps at every stop the labels no other beats on
 * (time, rides, cost - waitReluctance * time): waiting is a cost, so arriving earlier at equal cost
 * is not better by itself, and with this key a label that is not dominated is exactly one some
 * continuation can need. Rides are bagged per route (trip, cost at boarding - departure), as in
 * McRAPTOR; the destination keeps the journeys not beaten on (arrival, rides, cost). Its cost counts
 * the wait before the first ride from the requested time at waitAtBeginningFactor, so one departure
 * sees every journey of the window (and after it) at its true cost.
 *
 * Pruning: the n-th least cost among the journeys known (the range search's first, then the
 * destination's, those searchByCost would choose from) bounds every label: its cost so far plus the
 * lower bound of the time left (heuristic.ts) times the least reluctance cannot exceed it. Exact for
 * the choice of the n cheapest: with a bound 20 times looser (config.costSlack) the choice is the
 * same on 200 BART + Caltrain and 60 NYC queries (a test checks 60).
 *
 * Also honoured here, besides the masks the range search honours: no riding through a stop
 * (STOP_NO_PASS) and trips banned at some stops only (tripStopBans); the range search's journeys that
 * break them are not candidates. A trip is boarded at its earliest departure (as OTP2 does): a later
 * trip of the same route arrives later and waits longer.
 */
import { STOP_NO_PASS, UNREACHED, type Journey, type JourneyLeg, type RaptorConfig, type RaptorRequest, type RaptorResult, type RaptorStats, type RideLeg, type RouteIdx, type StopIdx, type TripIdx } from "../api.ts";
import { NO_DROP_OFF, NO_PICKUP, arrAt, depAt, type TransitCore } from "../timetable/types.ts";
import { destinationBounds } from "./heuristic.ts";
import { firstLeaving } from "./boarding.ts";
import { L_ACCESS, L_RIDE, L_RULE, L_STAY, L_WALK, McScratch } from "./mc-state.ts";
import { boardingAt, nonDominated, rideTimes, walkSec } from "./paths.ts";
import type { PreparedCore } from "./prepare.ts";
import { searchForward, withSlacks } from "./range.ts";
import { dayViews, markLiveRoutes, scanContext, type ScanContext } from "./slots.ts";
import type { RaptorState } from "./state.ts";
import { collectRoutes } from "./transfers.ts";
import { classOf, isRulePair, namesTrips, preferredRule, ruleFor, transferRule, useRules, type RuleIndex } from "./transfer-rules.ts";

/** Bounds of the lower-bound search, seconds (heuristic.ts caps at 4 days too). */
const MAX_BOUND_SEC = 4 * 86400;
/** journeys wanted when the request does not say (keepEarliest undefined): the cost bound then keeps this many */
const DEFAULT_WANTED = 3;

/**
 * The request's search with generalized cost (req.costs): the range search's journeys that keep
 * every rule and the cost search's, each with its cost; the keepEarliest = n cheapest of those not
 * dominated (all of them when keepEarliest is undefined). Search frame (mirrored for arriveBy).
 */
export function searchByCost(pc: PreparedCore, req: RaptorRequest, st: RaptorState, config: RaptorConfig): RaptorResult {
  const strict = hasStrictRules(req);
  // every journey of the window not dominated on (departure, arrival, rides): the cheapest n may
  // arrive later than the n earliest
  const range = searchForward(pc, { ...req, keepEarliest: undefined }, st, config);
  const cands: Journey[] = [];
  for (const j of range.journeys) {
    if (strict && breaksRules(pc.core, req, j)) continue;
    j.cost = journeyCost(req, j, pc.rules);
    cands.push(j);
  }
  const mc = searchMc(pc, req, st, config, cands.map((j) => ({ dep: j.departSec, arr: j.arriveSec, rides: j.rides, cost: j.cost! })));
  for (const j of mc.journeys) if (!cands.some((c) => sameJourney(c, j))) cands.push(j);
  let journeys = nonDominated(cands);
  if (req.keepEarliest !== undefined) journeys = journeys.sort((a, b) => a.cost! - b.cost! || a.arriveSec - b.arriveSec || a.rides - b.rides).slice(0, req.keepEarliest);
  const s = range.stats, m = mc.stats;
  return {
    journeys,
    stats: { ...s, iterations: s.iterations + m.iterations, rounds: s.rounds + m.rounds, routesScanned: s.routesScanned + m.routesScanned, stopsVisited: s.stopsVisited + m.stopsVisited, footpaths: s.footpaths + m.footpaths },
  };
}

/**
 * The generalized cost of a journey in the search frame (api.ts CostModel): waiting before its
 * first leg (since costs.startSec, else req.departSec) at waitAtBeginningFactor, walks at
 * walkReluctance, rides at 1 plus the boarding cost, the route's penalty and (after the first) the
 * transfer penalty (and the nonpreferred transfer penalty unless a recommended, timed or in-seat
 * rule of `rules`, the core's transfer rules, applies), and every gap between legs (waits, slacks)
 * at waitReluctance. The cost search's labels add up to the same (a test checks it).
 */
export function journeyCost(req: RaptorRequest, j: Journey, rules: RuleIndex | null = null): number {
  const c = req.costs!;
  const np = c.nonpreferredTransferPenalty ?? 0;
  let cost = c.waitAtBeginningFactor * (j.legs[0]!.depSec - (c.startSec ?? req.departSec));
  let prevEnd = j.legs[0]!.depSec;
  let rides = 0;
  let prevRide: RideLeg | null = null;
  for (const l of j.legs) {
    cost += c.waitReluctance * (l.depSec - prevEnd);
    const d = l.arrSec - l.depSec;
    if (l.kind === "ride") {
      cost += d + c.boardCost + (rides > 0 ? c.transferPenalty : 0) + (c.routePenalty ? c.routePenalty[l.route]! : 0);
      if (prevRide !== null && np !== 0) {
        const x = rules !== null ? transferRule(rules, prevRide, l) : -1;
        if (x < 0 || !preferredRule(rules!, x)) cost += np;
      }
      prevRide = l;
      rides++;
    } else cost += c.walkReluctance * d;
    prevEnd = l.arrSec;
  }
  return cost;
}

/** Rules only the cost search keeps: stops no ride may pass, trips banned at some stops. */
function hasStrictRules(req: RaptorRequest): boolean {
  if (req.tripStopBans && req.tripStopBans.size > 0) return true;
  const r = req.stopRules;
  if (r) for (let p = 0; p < r.length; p++) if (r[p]! & STOP_NO_PASS) return true;
  return false;
}

/** A ride passes a STOP_NO_PASS stop, or boards or alights where its trip is banned. */
function breaksRules(core: TransitCore, req: RaptorRequest, j: Journey): boolean {
  for (const l of j.legs) {
    if (l.kind !== "ride") continue;
    const bans = req.tripStopBans?.get(l.trip);
    if (bans && (bans.has(l.boardPos) || bans.has(l.alightPos))) return true;
    const rules = req.stopRules;
    if (!rules) continue;
    const s0 = core.routeStopStart[l.route]!;
    for (let pos = l.boardPos; pos <= l.alightPos; pos++) if (rules[core.routeStops[s0 + pos]!]! & STOP_NO_PASS) return true;
  }
  return false;
}

function sameJourney(a: Journey, b: Journey): boolean {
  if (a.departSec !== b.departSec || a.arriveSec !== b.arriveSec || a.legs.length !== b.legs.length) return false;
  for (let i = 0; i < a.legs.length; i++) {
    const x = a.legs[i]!, y = b.legs[i]!;
    if (x.kind !== y.kind || x.depSec !== y.depSec || x.arrSec !== y.arrSec) return false;
    if (x.kind === "ride" && y.kind === "ride" && (x.trip !== y.trip || x.boardPos !== y.boardPos || x.alightPos !== y.alightPos)) return false;
  }
  return true;
}

/** A journey as the cost bound sees it: when it leaves and arrives, its rides and cost. */
interface Arrival {
  dep: number;
  arr: number;
  rides: number;
  cost: number;
}
/** A destination arrival of the cost search: the ride label it ends with. */
interface DestLabel extends Arrival {
  label: number;
}

/**
 * McRAPTOR from req.departSec (one departure: the cost of waiting at the start makes later
 * departures comparable) with generalized cost; `known` journeys (with cost) bound it. Returns the
 * journeys of the destination's Pareto set on (arrival, rides, cost), each with its cost.
 */
export function searchMc(pc: PreparedCore, req: RaptorRequest, st: RaptorState, config: RaptorConfig, known: Arrival[]): RaptorResult {
  const { core } = pc;
  const n = core.nStops;
  const mc = (st.mc ??= new McScratch(n));
  mc.clear();
  const stats: RaptorStats = { iterations: 1, rounds: 0, routesScanned: 0, stopsVisited: 0, footpaths: 0 };
  const costs = req.costs!;
  const wr = costs.walkReluctance, war = costs.waitReluctance, wab = costs.waitAtBeginningFactor;
  const bc = costs.boardCost, tp = costs.transferPenalty, rpen = costs.routePenalty ?? null;
  // OTP1's nonpreferredTransferPenalty: on every transfer but over a recommended, timed or in-seat rule
  const np = costs.nonpreferredTransferPenalty ?? 0;
  // least cost per second: after boarding once (riding, walking, waiting), and before (waiting at the start too)
  const mRide = Math.min(1, wr, war);
  const mFirst = Math.min(mRide, wab);
  const T = req.departSec;
  // the wait before the first ride counts from the requested time (a later window starts later)
  const start = Math.min(T, costs.startSec ?? T);
  const aSlack = req.accessSlackSec, eSlack = req.egressSlackSec, tSlack = req.transferSlackSec;
  const wanted = Math.max(1, req.keepEarliest ?? DEFAULT_WANTED);
  const slackFactor = 1 + Math.max(0, config.costSlack);
  const maxArr = req.maxArrivalSec;
  const { accessSec, egressSec } = st;
  for (const a of req.access) if (accessSec[a.stop]! < 0 || a.walkSec < accessSec[a.stop]!) accessSec[a.stop] = a.walkSec;
  for (const e of req.egress) if (egressSec[e.stop]! < 0 || e.walkSec < egressSec[e.stop]!) egressSec[e.stop] = e.walkSec;
  try {
    const views = dayViews(pc, req);
    markLiveRoutes(pc, req, st, views);
    const footToSec = (st.footpathSeconds(core, req.walkSpeed, tSlack), st.footToSec);
    // transfer rules naming routes or trips (transfer-rules.ts): null when the timetable has none
    const rs = useRules(pc, st, req);
    const rix = rs !== null ? rs.index : null;
    const blocked = st.blockStops(core, req.wheelchair, req.stopRules);
    const cx = scanContext(pc, views);
    const rules = req.stopRules ?? null;
    const tripOk = req.tripAllowed ?? null;
    const bans = req.tripStopBans && req.tripStopBans.size > 0 ? req.tripStopBans : null;
    // lower bounds of the time left to the destination (the slack after the last ride included)
    const h = st.toTarget;
    if (destinationBounds(pc, st, withSlacks(req).egress, req.walkSpeed, Math.min(Math.max(0, maxArr - T), MAX_BOUND_SEC), tSlack, req.days.realtime) < 0) h.fill(0);
    const { routeStopStart, routeTime0, routeTz, routeTripStart, footStart, footMinSec, footWalkM, stopSlackSec, nTz } = core;
    const { slotC0, slotNT, slotMin, slotMax, slotMaxDep, slotT0, routeMarkedPos, routeMarkedLast, routeList } = st;
    const { routeStopBoard, bpStart, bpRoutePos, tripsOf, timesOf, extraRoutesOf, extraTimesOf } = cx;
    const { offsetSec, nSlots } = req.days;

    // the destination's Pareto set, and the bound: the `wanted`-th least cost known
    const dest: DestLabel[] = [];
    let bound = Infinity;
    const updateBound = () => {
      // the journeys searchByCost would choose from (not dominated on departure, arrival, rides, cost),
      // cheapest first; one journey known twice (the range search's and this one's) counts once
      const all: Arrival[] = [...known, ...dest];
      const kept = all.filter((x, i) => !all.some((y, k) => k !== i && y.dep >= x.dep && y.arr <= x.arr && y.rides <= x.rides && y.cost <= x.cost && (y.dep > x.dep || y.arr < x.arr || y.rides < x.rides || y.cost < x.cost || k < i)));
      kept.sort((x, y) => x.cost - y.cost);
      bound = kept.length >= wanted ? kept[wanted - 1]!.cost * slackFactor : Infinity;
    };
    updateBound();

    // (label arrays are read through mc: they are replaced when they grow)
    const { newHead, newStops } = mc;
    // maxDurationSec: a label lasting that long since its departure goes nowhere, and a later departure is one more criterion
    const maxDur = req.maxDurationSec ?? Infinity;
    const byDep = req.maxDurationSec !== undefined;
    /** Insert a label into a bag unless one there is no later, has no more rides and no greater key (and left no earlier, with maxDurationSec); drop those it beats. */
    const insert = (bag: number[], t: number, c: number, rd: number, dp: number): boolean => {
      const key = c - war * t;
      for (let i = 0; i < bag.length; i++) {
        const y = bag[i]!;
        if (mc.arr[y]! <= t && mc.round[y]! <= rd && mc.cost[y]! - war * mc.arr[y]! <= key && (!byDep || mc.dep[y]! >= dp)) return false;
      }
      let w = 0;
      for (let i = 0; i < bag.length; i++) {
        const y = bag[i]!;
        if (t <= mc.arr[y]! && rd <= mc.round[y]! && key <= mc.cost[y]! - war * mc.arr[y]! && (!byDep || dp >= mc.dep[y]!)) mc.dead[y] = 1;
        else bag[w++] = y;
      }
      bag.length = w;
      return true;
    };
    /** A label that can be boarded from in the next round (after a stay, a walk or the access walk). */
    const addBoard = (kind: number, p: number, t: number, c: number, rd: number, parent: number, dp: number): void => {
      if (t + h[p]! >= maxArr || c + (rd === 0 ? mFirst : mRide) * h[p]! > bound || (rd > 0 && t + h[p]! - dp >= maxDur)) return;
      if (rd > 0) {
        if (!insert(mc.boardBag[p]!, t, c, rd, dp)) return;
        mc.touch(p);
      }
      const l = mc.add(kind, p, t, c, rd, parent, dp);
      if (rd > 0) mc.boardBag[p]!.push(l);
      if (mc.newHead[p]! < 0) mc.newStops[mc.nNewStops++] = p;
      mc.next[l] = mc.newHead[p]!;
      mc.newHead[p] = l;
    };

    /**
     * A board label over a transfer rule pair (entry e, for a ride on rule trip kF arriving at `a`):
     * which trips it can board depends on them, so it is costed at boarding; its bag is the entry's.
     */
    const addRuleBoard = (e: number, a: number, c: number, rd: number, parent: number, dp: number, kF: number): void => {
      const q = rix!.eTgt[e]!;
      if (a + h[q]! >= maxArr || c + mRide * h[q]! > bound || a + h[q]! - dp >= maxDur) return;
      let bag = mc.ruleBags.get(e);
      if (!bag) mc.ruleBags.set(e, (bag = []));
      if (!insert(bag, a, c, rd, dp)) return;
      const l = mc.add(L_RULE, q, a, c, rd, parent, dp);
      mc.pos[l] = e;
      mc.boardIdx[l] = kF;
      bag.push(l);
      if (mc.newHead[q]! < 0) mc.newStops[mc.nNewStops++] = q;
      mc.next[l] = mc.newHead[q]!;
      mc.newHead[q] = l;
    };

    // round 0: the access walks (and the slack before boarding)
    for (const a of req.access) {
      const p = a.stop;
      if (accessSec[p] !== a.walkSec || newHead[p]! >= 0 || (blocked !== null && blocked[p] !== 0)) continue;
      addBoard(L_ACCESS, p, T + a.walkSec + aSlack, wr * a.walkSec + war * aSlack + wab * (T - start), 0, -1, T);
    }

    const rounds = req.maxRides;
    for (let k = 1; k <= rounds && mc.nNewStops > 0; k++) {
      stats.rounds++;
      let nRoutes = 0;
      for (let i = 0; i < mc.nNewStops; i++) nRoutes = collectRoutes(newStops[i]!, nRoutes, bpStart, bpRoutePos, routeMarkedPos, routeMarkedLast, routeList);
      mc.rideNew.length = 0;
      stats.routesScanned += nRoutes;
      for (let ri = 0; ri < nRoutes; ri++) {
        const r = routeList[ri]!;
        const startPos = routeMarkedPos[r]!;
        const lastPos = routeMarkedLast[r]!;
        routeMarkedPos[r] = -1;
        const s0 = routeStopStart[r]!;
        const nS = routeStopStart[r + 1]! - s0;
        const time0 = routeTime0[r]!;
        const tz = routeTz[r]!;
        const tr0 = routeTripStart[r]!;
        const pen = rpen !== null ? rpen[r]! : 0;
        for (let slot = 0; slot < nSlots; slot++) {
          const si = r * nSlots + slot;
          const nT = slotNT[si]!;
          if (nT === 0 || slotMin[si]! >= maxArr || slotMax[si]! < T) continue;
          const v = slot * nTz + tz;
          const off = offsetSec[v]!;
          const xr = extraRoutesOf[v]!;
          const vt = tripsOf[v]!, vtm = xr !== null && xr[r] === 1 ? extraTimesOf[v]! : timesOf[v]!;
          const t0v = slotT0[si]!, c0 = slotC0[si]!, lastDep = slotMaxDep[si]!;
          let nb = 0;
          let j = startPos;
          for (; j < nS; j++) {
            if (nb === 0 && j > lastPos) break;
            const x = routeStopBoard[s0 + j]!;
            const p = x >> 1;
            // no riding through this stop (nor boarding or alighting at it)
            if (rules !== null && rules[p]! & STOP_NO_PASS) {
              nb = 0;
              continue;
            }
            const usable = blocked === null || blocked[p] === 0;
            if (nb > 0 && usable) {
              for (let b = 0; b < nb; b++) {
                const i = mc.rbTrip[b]!;
                const w = vtm[2 * (t0v + i * nS + j)]!;
                if (w & NO_DROP_OFF) continue;
                if (bans !== null && bans.get(tr0 + vt[c0 + i]!)?.has(j)) continue;
                const a = off + (w >> 2);
                const c = mc.rbBase[b]! + a;
                const dp = mc.rbDep[b]!;
                if (a + h[p]! >= maxArr || c + mRide * h[p]! > bound || a + h[p]! - dp >= maxDur) continue;
                if (!insert(mc.rideBag[p]!, a, c, k, dp)) continue;
                mc.touch(p);
                const l = mc.add(L_RIDE, p, a, c, k, mc.rbParent[b]!, dp);
                mc.boardIdx[l] = mc.rbBoardIdx[b]!;
                mc.slot[l] = slot;
                mc.pos[l] = j;
                mc.rideBag[p]!.push(l);
                mc.rideNew.push(l);
              }
            }
            if (j > lastPos || !(x & 1) || newHead[p]! < 0 || !usable) continue;
            for (let L = newHead[p]!; L >= 0; L = mc.next[L]!) {
              if (mc.dead[L]) continue;
              const t = mc.arr[L]!;
              const rule = mc.kind[L] === L_RULE;
              // over a rule pair the seconds to the trip depend on it: a trip leaving at or after t plus the least of them
              const e = rule ? mc.pos[L]! : -1;
              const kF = rule ? mc.boardIdx[L]! : -1;
              const g = rule ? rix!.routeGtfs[r]! : -1;
              const byTrip = rule && namesTrips(rix!, e, kF, g);
              let least = 0;
              if (rule) {
                least = rs!.seconds(e, ruleFor(rix!, e, kF, g, -1));
                if (byTrip) least = Math.min(least, rs!.eMinSec[e]!);
                if (least >= UNREACHED) continue;
              }
              if (t + least > lastDep) continue;
              const lo = firstLeaving(vtm, t0v, nS, j, nT, t + least - off);
              let i = lo;
              let x = -1;
              for (; i < nT; i++) {
                if (vtm[2 * (t0v + i * nS + j) + 1]! & NO_PICKUP) continue;
                const trip = tr0 + vt[c0 + i]!;
                if (tripOk !== null && tripOk[trip] === 0) continue;
                if (bans !== null && bans.get(trip)?.has(j)) continue;
                if (byTrip) {
                  x = ruleFor(rix!, e, kF, g, rix!.tripRule[trip]!);
                  const sec = rs!.seconds(e, x);
                  if (sec >= UNREACHED || t + sec > off + (vtm[2 * (t0v + i * nS + j) + 1]! >> 2)) continue;
                }
                break;
              }
              if (i >= nT) continue;
              if (rule && !byTrip) x = ruleFor(rix!, e, kF, g, -1);
              const dep = off + (vtm[2 * (t0v + i * nS + j) + 1]! >> 2);
              const first = mc.round[L] === 0;
              // over a rule pair: its walk (none in-seat or at one stop) at walkReluctance, the rest waiting
              const walk = rule ? rs!.walk(e, x) : 0;
              const toll = first ? 0 : np !== 0 && !(rule && x >= 0 && preferredRule(rix!, x)) ? tp + np : tp;
              const base = mc.cost[L]! + wr * walk + (first ? wab : war) * (dep - t - walk) + bc + toll + pen - dep;
              // the journey leaves the origin in time to walk and board (range.ts shifts the access walk the same way)
              const dp = first ? dep - aSlack - accessSec[p]! : mc.dep[L]!;
              // the route bag: an entry on no later trip with no greater base is better everywhere further on
              let beaten = false;
              for (let b = 0; b < nb; b++) {
                if (mc.rbTrip[b]! <= i && mc.rbBase[b]! <= base && (!byDep || mc.rbDep[b]! >= dp)) {
                  beaten = true;
                  break;
                }
              }
              if (beaten) continue;
              let w = 0;
              for (let b = 0; b < nb; b++) {
                if (i <= mc.rbTrip[b]! && base <= mc.rbBase[b]! && (!byDep || dp >= mc.rbDep[b]!)) continue;
                mc.rbTrip[w] = mc.rbTrip[b]!;
                mc.rbBase[w] = mc.rbBase[b]!;
                mc.rbParent[w] = mc.rbParent[b]!;
                mc.rbBoardIdx[w] = mc.rbBoardIdx[b]!;
                mc.rbDep[w] = mc.rbDep[b]!;
                w++;
              }
              nb = w;
              mc.growRouteBag(nb + 1);
              mc.rbTrip[nb] = i;
              mc.rbBase[nb] = base;
              mc.rbParent[nb] = L;
              mc.rbBoardIdx[nb] = time0 + vt[c0 + i]! * nS + j;
              mc.rbDep[nb] = dp;
              nb++;
            }
          }
          stats.stopsVisited += j - startPos;
        }
      }
      // the round's board labels have been read
      for (let i = 0; i < mc.nNewStops; i++) newHead[newStops[i]!] = -1;
      mc.nNewStops = 0;
      // destination: the egress walks (and the slack before them)
      let changed = false;
      for (const l of mc.rideNew) {
        if (mc.dead[l]) continue;
        const p = mc.stop[l]!;
        const ew = egressSec[p]!;
        if (ew < 0) continue;
        const d: DestLabel = { arr: mc.arr[l]! + eSlack + ew, rides: k, cost: mc.cost[l]! + war * eSlack + wr * ew, label: l, dep: mc.dep[l]! };
        if (d.arr - d.dep >= maxDur) continue;
        if (dest.some((y) => y.arr <= d.arr && y.rides <= d.rides && y.cost <= d.cost && (!byDep || y.dep >= d.dep))) continue;
        for (let i = dest.length - 1; i >= 0; i--) {
          const y = dest[i]!;
          if (d.arr <= y.arr && d.rides <= y.rides && d.cost <= y.cost && (!byDep || d.dep >= y.dep)) dest.splice(i, 1);
        }
        dest.push(d);
        changed = true;
      }
      if (changed) updateBound();
      if (k === rounds) break;
      // transfers: stay (the stop's minimum or the request's transfer slack) or walk one footpath
      for (const l of mc.rideNew) {
        if (mc.dead[l]) continue;
        const p = mc.stop[l]!;
        const a = mc.arr[l]!;
        const c = mc.cost[l]!;
        if (c + mRide * h[p]! > bound) continue;
        // a stop transfer rules leave from: one label per rule pair of the ride's class, costed at boarding; the pairs are not stayed or walked below
        const src = rix !== null && rix.isSource[p] === 1;
        if (src) {
          const { r, trip } = boardingAt(core, mc.boardIdx[l]!);
          const cls = classOf(rix!, p, rix!.routeGtfs[r]!);
          for (let y = rix!.classEntryStart[cls]!; y < rix!.classEntryStart[cls + 1]!; y++) {
            const e = rix!.classEntry[y]!;
            if (blocked === null || blocked[rix!.eTgt[e]!] === 0) addRuleBoard(e, a, c, k, l, mc.dep[l]!, rix!.tripRule[trip]!);
          }
        }
        if ((blocked === null || blocked[p] === 0) && !(src && isRulePair(rix!, p, p))) {
          const sl = Math.max(stopSlackSec[p]!, tSlack);
          addBoard(L_STAY, p, a + sl, c + war * sl, k, l, mc.dep[l]!);
        }
        const f0 = footStart[p]!, f1 = footStart[p + 1]!;
        stats.footpaths += f1 - f0;
        for (let e = f0; e < f1; e++) {
          const q = footToSec[2 * e]!;
          if (blocked !== null && blocked[q] !== 0) continue;
          if (src && rix!.isTarget[q] && isRulePair(rix!, p, q)) continue;
          const sec = footToSec[2 * e + 1]!;
          const walk = Math.min(sec, Math.max(footMinSec[e]!, Math.ceil(footWalkM[e]! / req.walkSpeed)));
          addBoard(L_WALK, q, a + sec, c + wr * walk + war * (sec - walk), k, l, mc.dep[l]!);
        }
      }
    }
    const journeys = dest.filter((d) => d.cost <= bound).map((d) => path(core, req, st, cx, d));
    return { journeys, stats };
  } finally {
    for (const a of req.access) accessSec[a.stop] = -1;
    for (const e of req.egress) egressSec[e.stop] = -1;
    mc.clear();
  }
}

/** The journey of a destination label, rebuilt from the label parents (search frame). */
function path(core: TransitCore, req: RaptorRequest, st: RaptorState, cx: ScanContext, d: DestLabel): Journey {
  const mc = st.mc!;
  const legs: JourneyLeg[] = [];
  let l = d.label;
  const e = mc.stop[l]!;
  const alight = mc.arr[l]!;
  legs.push({ kind: "egress", stop: e as StopIdx, depSec: alight + req.egressSlackSec, arrSec: d.arr });
  for (;;) {
    const p = mc.stop[l]!;
    const bIdx = mc.boardIdx[l]!;
    const { r, s0, boardPos, trip } = boardingAt(core, bIdx);
    const slot = mc.slot[l]!;
    const off = req.days.offsetSec[slot * core.nTz + core.routeTz[r]!]!;
    const alightPos = mc.pos[l]!;
    const { times, tbase } = rideTimes(core, cx, slot, r, trip);
    const dep = off + depAt(times, tbase + boardPos);
    const from = core.routeStops[s0 + boardPos]!;
    legs.push({ kind: "ride", route: r as RouteIdx, trip: trip as TripIdx, slot, boardPos, alightPos, fromStop: from as StopIdx, toStop: p as StopIdx, depSec: dep, arrSec: off + arrAt(times, tbase + alightPos) });
    const b = mc.parent[l]!;
    if (mc.kind[b] === L_ACCESS) {
      const w = st.accessSec[from]!;
      legs.push({ kind: "access", stop: from as StopIdx, depSec: dep - req.accessSlackSec - w, arrSec: dep - req.accessSlackSec });
      break;
    }
    const prev = mc.parent[b]!;
    if (mc.kind[b] === L_WALK) {
      const q = mc.stop[prev]!;
      const t = mc.arr[prev]!;
      legs.push({ kind: "transfer", fromStop: q as StopIdx, toStop: from as StopIdx, depSec: t, arrSec: t + walkSec(core, req, q, from) });
    } else if (mc.kind[b] === L_RULE) {
      // over a rule pair: a walk leg unless at one stop or in-seat
      const rs = st.rules!;
      const e = mc.pos[b]!;
      const x = ruleFor(rs.index, e, mc.boardIdx[b]!, rs.index.routeGtfs[r]!, rs.index.tripRule[trip]!);
      const t = mc.arr[prev]!;
      if (rs.walkLeg(e, x)) legs.push({ kind: "transfer", fromStop: mc.stop[prev]! as StopIdx, toStop: from as StopIdx, depSec: t, arrSec: t + rs.walk(e, x) });
    }
    l = prev;
  }
  legs.reverse();
  return { departSec: legs[0]!.depSec, arriveSec: legs[legs.length - 1]!.arrSec, rides: d.rides, legs, cost: d.cost };
}
