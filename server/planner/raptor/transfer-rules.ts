// Purpose: transfers.txt rules naming routes or trips in the search: indexed once per core, the scan of the routes that meet them.
/**
 * Transfer rules (timetable transfer_rules: transfers.txt rows naming routes or trips) in the RAPTOR
 * search. A rule applies to a transfer from a ride on its "from" trip alighting at its from stop to a
 * boarding of its "to" trip at its to stop; of the rules that match a transfer the most specific
 * wins (GTFS: both trips, a trip and a route, one trip, both routes, one route), and where none
 * matches, the stop-to-stop rules do (footpaths, stops.slack_sec). Type 3 forbids the transfer, 2
 * sets its minimum time, 1 (timed) and 4 (in-seat, staying on) need no slack, 0 none beyond the walk;
 * 5 only tells the itinerary that a stay-seated continuation is not one.
 *
 * The search keeps rules away from everything else:
 * - a (from stop, to stop) pair some rule names is a rule pair: the ordinary transfer phase neither
 *   stays nor walks over it, so the ordinary boarding labels hold no transfer a rule could change;
 * - at a rule pair's from stop (a source) each round keeps, besides the ride label, the earliest
 *   arrival per class: one class per GTFS route that a rule from there names on its from side, and
 *   one for every other route (RuleState.cls*): rides of one class meet the same rules, so within a
 *   class the earliest arrival is the only one a boarding needs;
 * - routes serving a source or a target are scanned by scanRuleRoute (the others by route-scan.ts,
 *   unchanged); boarding at a target takes the earliest trip that the ordinary label or any class
 *   label of the round before can catch under the rule that matches that pair of trips
 *   (ruleBoarding), and remembers which class it boarded from (RuleState.boardFrom) for the path;
 * - the generalized-cost search (mc.ts) keeps its board labels over rule pairs in a bag per entry
 *   (rule pair and class) and costs them when boarding.
 * Exact for rules naming routes (and stops, and to trips); a rule naming a from trip sees only the
 * earliest arrival of its route's class at the stop in a round (server/planner/README.md).
 * Timetables without rules never reach this file.
 */
import { UNREACHED, type Journey, type RaptorRequest, type RideLeg } from "../api.ts";
import { NO_DROP_OFF, NO_PICKUP, TRANSFER_TYPE, type TransitCore } from "../timetable/types.ts";
import type { ScanContext } from "./slots.ts";
import type { RaptorState } from "./state.ts";
import { firstLeaving } from "./boarding.ts";

/** The rules of one core, indexed by the search's needs (prepare.ts, once per core). */
export interface RuleIndex {
  nClasses: number;
  nEntries: number;
  /** stop -> 1 when some rule leaves from it (it has classes); 1 when some rule ends at it (it has entries) */
  isSource: Uint8Array;
  isTarget: Uint8Array;
  /** route -> 1 when it serves a source or a target (scanRuleRoute scans it) */
  ruleRoute: Uint8Array;
  /** source stop -> its classes [srcClassStart[s], srcClassStart[s + 1]): per class the GTFS route, -1 = every other route (always the last) */
  srcClassStart: Int32Array;
  classRoute: Int32Array;
  /** class -> its stop */
  classStop: Int32Array;
  /** source stop -> the stops its rule pairs end at [srcTargetStart[s], ...) in srcTarget */
  srcTargetStart: Int32Array;
  srcTarget: Int32Array;
  /**
   * target stop -> its entries [tgtEntryStart[q], tgtEntryStart[q + 1]): one per (source, class)
   * of each rule pair ending there: its source stop, target, class, the footpath source -> target
   * (-1 none, or the same stop), metres (the footpath's, else the rules' straight line) and its
   * rules [eRuleStart[e], eRuleStart[e + 1]) ("entry rules" x), most specific first; of those, the
   * ones naming no trip [ePlainStart[e], ePlainStart[e + 1]) in plainX, and those naming trips by
   * trip (fromTripX, toTripX)
   */
  tgtEntryStart: Int32Array;
  eSrc: Int32Array;
  eTgt: Int32Array;
  eCls: Int32Array;
  eFoot: Int32Array;
  /** the walk in reference meters (footpaths.walk_m; a rule between stops without a footpath: the straight line) */
  eWalkM: Float64Array;
  eRuleStart: Int32Array;
  ePlainStart: Int32Array;
  plainX: Int32Array;
  /** entry * nRuleTrips + rule trip -> the entry's rules naming it as the from trip (ascending); as the to trip, naming no from trip */
  fromTripX: Map<number, number[]>;
  toTripX: Map<number, number[]>;
  /** entry * nGtfsRoutes + GTFS route: the entry has a rule naming no from trip and a to trip of that route */
  toTripRoutes: Set<number>;
  nRuleTrips: number;
  nGtfsRoutes: number;
  /** entry rule -> its from trip (-1 any), to trip (-1 any), to route (-1 any; a to trip's route), type, minimum seconds */
  xFromTrip: Int32Array;
  xToTrip: Int32Array;
  xToRoute: Int32Array;
  xType: Uint8Array;
  xMin: Int32Array;
  /** class -> the entries its labels feed [classEntryStart[c], ...) in classEntry */
  classEntryStart: Int32Array;
  classEntry: Int32Array;
  /** the core's trip -> rule trip and RAPTOR route -> GTFS route */
  tripRule: Int32Array;
  routeGtfs: Int32Array;
}

/** Among rules of equal specificity the most restrictive wins: not possible, then the longest minimum, recommended, timed, in-seat. */
const RESTRICT = [2, 3, 1, 0, 4];

/** The rules of a core the search applies, or null when it has none (type 5 rules only mark itineraries). */
export function ruleIndex(core: TransitCore): RuleIndex | null {
  const tr = core.transferRules;
  if (!tr) return null;
  const n = core.nStops;
  const byPair = rulePairs(tr, n);
  if (byPair.size === 0) return null;
  const cl = sourceClasses(tr, byPair, n);
  const { nRuleTrips, nGtfsRoutes } = ruleKeySpaces(tr);
  const en = ruleEntries(core, byPair, cl.tgtSources, cl.srcClassStart, cl.classRoute, nRuleTrips, nGtfsRoutes);
  const nClasses = cl.classRoute.length;
  const { classEntryStart, classEntry } = classEntries(en.eCls, nClasses);
  const xs = en.xs;
  return {
    nClasses,
    nEntries: en.eSrc.length,
    isSource: cl.isSource,
    isTarget: en.isTarget,
    ruleRoute: ruleRoutes(core, cl.isSource, en.isTarget),
    srcClassStart: cl.srcClassStart,
    classRoute: Int32Array.from(cl.classRoute),
    classStop: Int32Array.from(cl.classStop),
    srcTargetStart: cl.srcTargetStart,
    srcTarget: Int32Array.from(cl.srcTarget),
    tgtEntryStart: en.tgtEntryStart,
    eSrc: Int32Array.from(en.eSrc),
    eTgt: Int32Array.from(en.eTgt),
    eCls: Int32Array.from(en.eCls),
    eFoot: Int32Array.from(en.eFoot),
    eWalkM: Float64Array.from(en.eWalkM),
    eRuleStart: Int32Array.from(en.eRuleStart),
    ePlainStart: Int32Array.from(en.ePlainStart),
    plainX: Int32Array.from(en.plainX),
    fromTripX: en.fromTripX,
    toTripX: en.toTripX,
    toTripRoutes: en.toTripRoutes,
    nRuleTrips,
    nGtfsRoutes,
    xFromTrip: Int32Array.from(xs, (x) => tr.fromTrip[x]!),
    xToTrip: Int32Array.from(xs, (x) => tr.toTrip[x]!),
    xToRoute: Int32Array.from(xs, (x) => tr.toRoute[x]!),
    xType: Uint8Array.from(xs, (x) => tr.type[x]!),
    xMin: Int32Array.from(xs, (x) => tr.minSec[x]!),
    classEntryStart,
    classEntry,
    tripRule: tr.tripRule,
    routeGtfs: tr.routeGtfs,
  };
}

type TransferRuleColumns = NonNullable<TransitCore["transferRules"]>;

/** Rule pairs (from * n + to) -> their rules, type 5 (in-seat not allowed) left out. */
function rulePairs(tr: TransferRuleColumns, n: number): Map<number, number[]> {
  const byPair = new Map<number, number[]>();
  for (let x = 0; x < tr.type.length; x++) {
    if (tr.type[x] === TRANSFER_TYPE.inSeatNotAllowed) continue;
    const key = tr.fromStop[x]! * n + tr.toStop[x]!;
    (byPair.get(key) ?? byPair.set(key, []).get(key)!).push(x);
  }
  return byPair;
}

/**
 * The classes per source stop (the GTFS routes its rules name on the from side in order, then -1:
 * "every other route"), each source's targets, and each target's sources (in pair order).
 */
function sourceClasses(tr: TransferRuleColumns, byPair: Map<number, number[]>, n: number) {
  const pairs = [...byPair.keys()].sort((a, b) => a - b);
  const srcRoutes = new Map<number, Set<number>>();
  const srcTargets = new Map<number, number[]>();
  const tgtSources = new Map<number, number[]>();
  for (const key of pairs) {
    const s = Math.floor(key / n), q = key - s * n;
    const set = srcRoutes.get(s) ?? srcRoutes.set(s, new Set()).get(s)!;
    for (const x of byPair.get(key)!) if (tr.fromRoute[x]! >= 0) set.add(tr.fromRoute[x]!);
    (srcTargets.get(s) ?? srcTargets.set(s, []).get(s)!).push(q);
    (tgtSources.get(q) ?? tgtSources.set(q, []).get(q)!).push(s);
  }
  const isSource = new Uint8Array(n);
  const srcClassStart = new Int32Array(n + 1);
  const classRoute: number[] = [], classStop: number[] = [];
  const srcTargetStart = new Int32Array(n + 1);
  const srcTarget: number[] = [];
  for (let s = 0; s < n; s++) {
    srcClassStart[s] = classRoute.length;
    srcTargetStart[s] = srcTarget.length;
    const routes = srcRoutes.get(s);
    if (!routes) continue;
    isSource[s] = 1;
    for (const g of [...routes].sort((a, b) => a - b)) {
      classRoute.push(g);
      classStop.push(s);
    }
    classRoute.push(-1);
    classStop.push(s);
    srcTarget.push(...srcTargets.get(s)!);
  }
  srcClassStart[n] = classRoute.length;
  srcTargetStart[n] = srcTarget.length;
  return { isSource, srcClassStart, classRoute, classStop, srcTargetStart, srcTarget, tgtSources };
}

/** The sizes of the rule-trip and GTFS-route key spaces (the keys of fromTripX, toTripX, toTripRoutes). */
function ruleKeySpaces(tr: TransferRuleColumns): { nRuleTrips: number; nGtfsRoutes: number } {
  let nRuleTrips = 0, nGtfsRoutes = 0;
  for (let t = 0; t < tr.tripRule.length; t++) nRuleTrips = Math.max(nRuleTrips, tr.tripRule[t]! + 1);
  for (let x = 0; x < tr.type.length; x++) nRuleTrips = Math.max(nRuleTrips, tr.fromTrip[x]! + 1, tr.toTrip[x]! + 1);
  for (let r = 0; r < tr.routeGtfs.length; r++) nGtfsRoutes = Math.max(nGtfsRoutes, tr.routeGtfs[r]! + 1);
  for (let x = 0; x < tr.type.length; x++) nGtfsRoutes = Math.max(nGtfsRoutes, tr.fromRoute[x]! + 1, tr.toRoute[x]! + 1);
  return { nRuleTrips, nGtfsRoutes };
}

/**
 * The entries: per target, per source, per class of the source, the rules of the pair that can
 * match the class (most specific, then most restrictive first), split into those naming a from
 * trip, a to trip, or neither (plain).
 */
function ruleEntries(
  core: TransitCore, byPair: Map<number, number[]>, tgtSources: Map<number, number[]>, srcClassStart: Int32Array, classRoute: number[], nRuleTrips: number, nGtfsRoutes: number,
) {
  const tr = core.transferRules!;
  const n = core.nStops;
  const isTarget = new Uint8Array(n);
  const tgtEntryStart = new Int32Array(n + 1);
  const eSrc: number[] = [], eTgt: number[] = [], eCls: number[] = [], eFoot: number[] = [], eWalkM: number[] = [], eRuleStart: number[] = [];
  const xs: number[] = [];
  const ePlainStart: number[] = [], plainX: number[] = [];
  const fromTripX = new Map<number, number[]>(), toTripX = new Map<number, number[]>();
  const toTripRoutes = new Set<number>();
  for (let q = 0; q < n; q++) {
    tgtEntryStart[q] = eSrc.length;
    const sources = tgtSources.get(q);
    if (!sources) continue;
    isTarget[q] = 1;
    for (const s of sources) {
      const rules = byPair.get(s * n + q)!;
      let foot = -1;
      if (s !== q) for (let e = core.footStart[s]!; e < core.footStart[s + 1]!; e++) if (core.footTo[e] === q) foot = e;
      for (let c = srcClassStart[s]!; c < srcClassStart[s + 1]!; c++) {
        const g = classRoute[c]!;
        eSrc.push(s);
        eTgt.push(q);
        eCls.push(c);
        eFoot.push(foot);
        eWalkM.push(foot >= 0 ? core.footWalkM[foot]! : tr.distM[rules[0]!]!);
        eRuleStart.push(xs.length);
        ePlainStart.push(plainX.length);
        const mine = rules.filter((x) => tr.fromRoute[x] === -1 || (g >= 0 && tr.fromRoute[x] === g));
        mine.sort((a, b) => tr.specificity[b]! - tr.specificity[a]! || RESTRICT[tr.type[a]!]! - RESTRICT[tr.type[b]!]! || tr.minSec[b]! - tr.minSec[a]!);
        const e = eSrc.length - 1;
        for (const r of mine) {
          const x = xs.length;
          xs.push(r);
          const ft = tr.fromTrip[r]!, tt = tr.toTrip[r]!;
          if (ft >= 0) (fromTripX.get(e * nRuleTrips + ft) ?? fromTripX.set(e * nRuleTrips + ft, []).get(e * nRuleTrips + ft)!).push(x);
          else if (tt >= 0) {
            (toTripX.get(e * nRuleTrips + tt) ?? toTripX.set(e * nRuleTrips + tt, []).get(e * nRuleTrips + tt)!).push(x);
            toTripRoutes.add(e * nGtfsRoutes + tr.toRoute[r]!);
          } else plainX.push(x);
        }
      }
    }
  }
  tgtEntryStart[n] = eSrc.length;
  eRuleStart.push(xs.length);
  ePlainStart.push(plainX.length);
  return { isTarget, tgtEntryStart, eSrc, eTgt, eCls, eFoot, eWalkM, eRuleStart, xs, ePlainStart, plainX, fromTripX, toTripX, toTripRoutes };
}

/** class -> its entries (CSR over eCls). */
function classEntries(eCls: number[], nClasses: number): { classEntryStart: Int32Array; classEntry: Int32Array } {
  const classEntryStart = new Int32Array(nClasses + 1);
  for (const c of eCls) classEntryStart[c + 1]!++;
  for (let c = 0; c < nClasses; c++) classEntryStart[c + 1]! += classEntryStart[c]!;
  const fill = classEntryStart.slice(0, nClasses);
  const classEntry = new Int32Array(eCls.length);
  eCls.forEach((c, e) => (classEntry[fill[c]!++] = e));
  return { classEntryStart, classEntry };
}

/** route -> 1 when it serves a source or a target (scanRuleRoute scans it). */
function ruleRoutes(core: TransitCore, isSource: Uint8Array, isTarget: Uint8Array): Uint8Array {
  const ruleRoute = new Uint8Array(core.nRoutes);
  for (let r = 0; r < core.nRoutes; r++) {
    for (let i = core.routeStopStart[r]!; i < core.routeStopStart[r + 1]!; i++) {
      const p = core.routeStops[i]!;
      if (isSource[p] || isTarget[p]) ruleRoute[r] = 1;
    }
  }
  return ruleRoute;
}

/** The class at source stop s of a ride on GTFS route g. */
export function classOf(ix: RuleIndex, s: number, g: number): number {
  const end = ix.srcClassStart[s + 1]! - 1;
  for (let c = ix.srcClassStart[s]!; c < end; c++) if (ix.classRoute[c] === g) return c;
  return end;
}

/** Whether (s, q) is a rule pair: no ordinary stay or walk goes from s to q. */
export function isRulePair(ix: RuleIndex, s: number, q: number): boolean {
  for (let i = ix.srcTargetStart[s]!, end = ix.srcTargetStart[s + 1]!; i < end; i++) if (ix.srcTarget[i] === q) return true;
  return false;
}

/** The entry of target q for a ride of class c arriving at s (-1 none). */
export function entryOf(ix: RuleIndex, s: number, q: number, c: number): number {
  for (let e = ix.tgtEntryStart[q]!, end = ix.tgtEntryStart[q + 1]!; e < end; e++) if (ix.eSrc[e] === s && ix.eCls[e] === c) return e;
  return -1;
}

/**
 * The rule of entry e that applies to a transfer from a ride on rule trip kF (-1: none named) to a
 * boarding of rule trip kT (-1: none named) of GTFS route g: the first (most specific) that
 * matches, -1 when none does (the stop-to-stop rules then apply).
 */
export function ruleFor(ix: RuleIndex, e: number, kF: number, g: number, kT: number): number {
  // entry rules are numbered most specific first: the least matching one of each list wins
  let best = -1;
  for (let i = ix.ePlainStart[e]!, end = ix.ePlainStart[e + 1]!; i < end; i++) {
    const x = ix.plainX[i]!;
    if (ix.xToRoute[x]! < 0 || ix.xToRoute[x] === g) {
      best = x;
      break;
    }
  }
  if (kF >= 0) {
    const xs = ix.fromTripX.get(e * ix.nRuleTrips + kF);
    if (xs) {
      for (const x of xs) {
        if (best >= 0 && x >= best) break;
        const tt = ix.xToTrip[x]!;
        if (tt >= 0 ? tt === kT : ix.xToRoute[x]! < 0 || ix.xToRoute[x] === g) {
          best = x;
          break;
        }
      }
    }
  }
  if (kT >= 0) {
    const xs = ix.toTripX.get(e * ix.nRuleTrips + kT);
    if (xs && (best < 0 || xs[0]! < best)) best = xs[0]!;
  }
  return best;
}

/** Whether entry e has a rule naming a to trip of GTFS route g that a ride on kF can meet (boardings of route g then depend on the trip). */
export function namesTrips(ix: RuleIndex, e: number, kF: number, g: number): boolean {
  if (ix.toTripRoutes.has(e * ix.nGtfsRoutes + g)) return true;
  if (kF < 0) return false;
  const xs = ix.fromTripX.get(e * ix.nRuleTrips + kF);
  if (xs) for (const x of xs) if (ix.xToTrip[x]! >= 0 && ix.xToRoute[x] === g) return true;
  return false;
}

/**
 * Per-search scratch of the rules (RaptorState.rules, made for a prepared core with rules): the
 * class labels, the classes boarded from, and the seconds of every entry and rule at the request's
 * walking speed and transfer slack.
 */
export class RuleState {
  readonly rounds: number;
  readonly nClasses: number;
  /** (round, class) -> earliest arrival at the class's stop by a ride of the class with that many rides */
  readonly clsRide: Int32Array;
  /** (round, class) -> best such arrival with at most `round` rides (one row in a single-departure search) */
  readonly clsUpTo: Int32Array;
  /** (round, class) -> that ride's boarding event (stop-time index), day slot and rule trip (-1 none) */
  readonly clsBoard: Int32Array;
  readonly clsSlot: Uint8Array;
  readonly clsTrip: Int32Array;
  /** classes whose label improved in the current round: flag + list */
  readonly clsMarked: Uint8Array;
  readonly clsList: Int32Array;
  nMarked = 0;
  /** (round, boarding event, slot) (boardKey) -> the entry a boarding at a target took, when not the ordinary label */
  readonly boardFrom = new Map<number, number>();
  /**
   * entry -> seconds of the transfer when no rule matches (the stop's minimum or the footpath,
   * UNREACHED without one), the walk then (metres over the footpath), and the walk of a rule
   */
  readonly eDefault: Int32Array;
  readonly eDefWalk: Int32Array;
  readonly eWalk: Int32Array;
  /** entry rule -> seconds of the transfer under it (UNREACHED: not possible) */
  readonly xSec: Int32Array;
  /** entry -> the least seconds of its rules (UNREACHED: none possible) */
  readonly eMinSec: Int32Array;
  /** ruleBoarding's answer: the trip (index in the slot's active trips, -1 none) and the entry it boards from (-1: the ordinary label) */
  outTrip = -1;
  outEntry = -1;
  /** ruleBoarding's candidates: arrival, entry, from trip, seconds without a trip-specific rule, whether trips differ */
  private readonly cA: Int32Array;
  private readonly cE: Int32Array;
  private readonly cKF: Int32Array;
  private readonly cSec: Int32Array;
  private readonly cTrips: Uint8Array;

  constructor(readonly index: RuleIndex, rounds: number) {
    const C = index.nClasses;
    this.rounds = rounds;
    this.nClasses = C;
    this.clsRide = new Int32Array(rounds * C);
    this.clsUpTo = new Int32Array(rounds * C);
    this.clsBoard = new Int32Array(rounds * C);
    this.clsSlot = new Uint8Array(rounds * C);
    this.clsTrip = new Int32Array(rounds * C);
    this.clsMarked = new Uint8Array(C);
    this.clsList = new Int32Array(C);
    this.eDefault = new Int32Array(index.nEntries);
    this.eDefWalk = new Int32Array(index.nEntries);
    this.eWalk = new Int32Array(index.nEntries);
    this.xSec = new Int32Array(index.xType.length);
    this.eMinSec = new Int32Array(index.nEntries);
    let most = 0;
    for (let q = 0; q < index.tgtEntryStart.length - 1; q++) most = Math.max(most, index.tgtEntryStart[q + 1]! - index.tgtEntryStart[q]!);
    this.cA = new Int32Array(most);
    this.cE = new Int32Array(most);
    this.cKF = new Int32Array(most);
    this.cSec = new Int32Array(most);
    this.cTrips = new Uint8Array(most);
  }

  /** the walking speed and transfer slack the seconds below are for */
  private speed = -1;
  private slack = -1;

  /** The seconds of every entry and rule for a search at `speed` m/s with `slack` between rides (footToSec: RaptorState.footToSec at them); kept while they stay the same. */
  setSpeed(core: TransitCore, speed: number, slack: number, footToSec: Int32Array): void {
    if (speed === this.speed && slack === this.slack) return;
    this.speed = speed;
    this.slack = slack;
    const ix = this.index;
    for (let e = 0; e < ix.nEntries; e++) {
      const s = ix.eSrc[e]!, q = ix.eTgt[e]!, f = ix.eFoot[e]!;
      const walk = s === q ? 0 : Math.ceil(ix.eWalkM[e]! / speed);
      this.eWalk[e] = walk;
      this.eDefault[e] = s === q ? Math.max(core.stopSlackSec[q]!, slack) : f >= 0 ? footToSec[2 * f + 1]! : UNREACHED;
      this.eDefWalk[e] = s === q || f < 0 ? 0 : Math.max(core.footMinSec[f]!, Math.ceil(core.footWalkM[f]! / speed));
      let least = UNREACHED;
      for (let x = ix.eRuleStart[e]!; x < ix.eRuleStart[e + 1]!; x++) {
        const t = ix.xType[x]!;
        const sec =
          t === TRANSFER_TYPE.notPossible ? UNREACHED
          : t === TRANSFER_TYPE.inSeat ? 0
          : t === TRANSFER_TYPE.timed ? walk
          : t === TRANSFER_TYPE.minTime ? Math.max(ix.xMin[x]!, walk + slack)
          : walk + slack;
        this.xSec[x] = sec;
        if (sec < least) least = sec;
      }
      this.eMinSec[e] = least;
    }
  }

  /** Clear the class labels of the first `rounds` rounds (a search pass; range: one "at most k rides" row per round). */
  reset(rounds: number, range: boolean): void {
    const C = this.nClasses;
    this.clsRide.fill(UNREACHED, 0, rounds * C);
    this.clsUpTo.fill(UNREACHED, 0, range ? rounds * C : C);
    this.boardFrom.clear();
    this.clearMarks();
  }

  clearMarks(): void {
    for (let i = 0; i < this.nMarked; i++) this.clsMarked[this.clsList[i]!] = 0;
    this.nMarked = 0;
  }

  /** Seconds of a transfer over entry e under rule x (-1: none matched). */
  seconds(e: number, x: number): number {
    return x < 0 ? this.eDefault[e]! : this.xSec[x]!;
  }

  /** The walk of a transfer over entry e under rule x (-1: none matched): 0 at one stop and in-seat (no walk leg). */
  walk(e: number, x: number): number {
    if (x < 0) return this.eDefWalk[e]!;
    return this.index.xType[x] === TRANSFER_TYPE.inSeat ? 0 : this.eWalk[e]!;
  }

  /** Whether a transfer over entry e under rule x is a walk leg: between two stops, unless in-seat (the rider stays on). */
  walkLeg(e: number, x: number): boolean {
    return this.index.eSrc[e] !== this.index.eTgt[e] && !(x >= 0 && this.index.xType[x] === TRANSFER_TYPE.inSeat);
  }

  /**
   * The earliest active trip (below `limit`) of route r in the slot's day view (vt, vtm from
   * c0 / t0v, nT trips, offset off) that can be boarded at its position j, target stop q, in round
   * k: from the ordinary label board[(k - 1) * n + q], or from a class label of round k - 1 under
   * the rule of that pair of trips. Sets outTrip (-1 none) and outEntry. Labels at or beyond
   * `bound` (with lower bounds h when given) board nothing.
   */
  ruleBoarding(
    core: TransitCore, st: RaptorState, tripOk: Uint8Array | null, k: number, q: number, r: number, j: number,
    vt: Int32Array, vtm: Int32Array, c0: number, t0v: number, nT: number, off: number, lastDep: number, limit: number, bound: number, h: Int32Array | null,
  ): void {
    const ix = this.index;
    const C = this.nClasses;
    const nS = core.routeStopStart[r + 1]! - core.routeStopStart[r]!;
    const tr0 = core.routeTripStart[r]!;
    const g = ix.routeGtfs[r]!;
    this.outTrip = -1;
    this.outEntry = -1;
    const b = st.board[(k - 1) * core.nStops + q]!;
    let lower = b;
    let m = 0;
    let trips = false;
    const row = (k - 1) * C;
    for (let e = ix.tgtEntryStart[q]!, end = ix.tgtEntryStart[q + 1]!; e < end; e++) {
      const ci = row + ix.eCls[e]!;
      const a = this.clsRide[ci]!;
      if (a >= UNREACHED) continue;
      const kF = this.clsTrip[ci]!;
      const sec = this.seconds(e, ruleFor(ix, e, kF, g, -1));
      const named = namesTrips(ix, e, kF, g);
      this.cA[m] = a;
      this.cE[m] = e;
      this.cKF[m] = kF;
      this.cSec[m] = sec;
      this.cTrips[m] = named ? 1 : 0;
      m++;
      if (named) {
        trips = true;
        // the earliest any trip-specific rule could let a ride board
        if (this.eMinSec[e]! < UNREACHED && a + this.eMinSec[e]! < lower) lower = a + this.eMinSec[e]!;
      }
      if (sec < UNREACHED && a + sec < lower) lower = a + sec;
    }
    if (lower >= UNREACHED || lower > lastDep || (h !== null ? lower + h[q]! : lower) >= bound) return;
    const lo = firstLeaving(vtm, t0v, nS, j, nT, lower - off);
    for (let i = lo; i < limit; i++) {
      const w = vtm[2 * (t0v + i * nS + j) + 1]!;
      if (w & NO_PICKUP) continue;
      const trip = tr0 + vt[c0 + i]!;
      if (tripOk !== null && tripOk[trip] === 0) continue;
      const dep = off + (w >> 2);
      if (b <= dep) {
        this.outTrip = i;
        return;
      }
      const kT = trips ? ix.tripRule[trip]! : -1;
      for (let y = 0; y < m; y++) {
        const e = this.cE[y]!;
        const sec = kT >= 0 && this.cTrips[y] ? this.seconds(e, ruleFor(ix, e, this.cKF[y]!, g, kT)) : this.cSec[y]!;
        if (sec < UNREACHED && this.cA[y]! + sec <= dep) {
          this.outTrip = i;
          this.outEntry = e;
          return;
        }
      }
    }
  }
}

/**
 * The rules' scratch for a search of `req` on prepared core `pc` (st.rules, null when the core has
 * no rules), with the seconds of its walking speed and transfer slack; after st.footpathSeconds.
 */
export function useRules(pc: { core: TransitCore; rules: RuleIndex | null }, st: RaptorState, req: RaptorRequest): RuleState | null {
  if (pc.rules === null) return (st.rules = null);
  if (st.rules === null || st.rules.index !== pc.rules || st.rules.rounds < st.rounds) st.rules = new RuleState(pc.rules, st.rounds);
  st.rules.setSpeed(pc.core, req.walkSpeed, req.transferSlackSec, st.footToSec);
  return st.rules;
}

/**
 * Whether every transfer of journey j (search frame) keeps the rules: between two rides over a
 * rule pair, the next ride leaves no earlier than the rule (or, none matching, the stop-to-stop
 * transfer) allows. (Transfers over other pairs are the ordinary labels' and hold.)
 */
export function keepsRules(rs: RuleState, j: Journey): boolean {
  const ix = rs.index;
  let prev: RideLeg | null = null;
  for (const l of j.legs) {
    if (l.kind !== "ride") continue;
    if (prev !== null) {
      const s = prev.toStop, q = l.fromStop;
      if (ix.isSource[s] && isRulePair(ix, s, q)) {
        const e = entryOf(ix, s, q, classOf(ix, s, ix.routeGtfs[prev.route]!));
        const sec = rs.seconds(e, ruleFor(ix, e, ix.tripRule[prev.trip]!, ix.routeGtfs[l.route]!, ix.tripRule[l.trip]!));
        if (sec >= UNREACHED || l.depSec < prev.arrSec + sec) return false;
      }
    }
    prev = l;
  }
  return true;
}

/**
 * The rule that applies to the transfer from ride a to ride b (search frame): -1 when the stops are
 * no rule pair or no rule matches (the stop-to-stop rules then apply).
 */
export function transferRule(ix: RuleIndex, a: RideLeg, b: RideLeg): number {
  const s = a.toStop, q = b.fromStop;
  if (!ix.isSource[s] || !isRulePair(ix, s, q)) return -1;
  const e = entryOf(ix, s, q, classOf(ix, s, ix.routeGtfs[a.route]!));
  return e < 0 ? -1 : ruleFor(ix, e, ix.tripRule[a.trip]!, ix.routeGtfs[b.route]!, ix.tripRule[b.trip]!);
}

/** Rule x recommends the transfer (type 0), times it (1) or keeps the seat (4): no nonpreferredTransferPenalty (OTP1: preferred and timed transfers). */
export function preferredRule(ix: RuleIndex, x: number): boolean {
  const t = ix.xType[x];
  return t === TRANSFER_TYPE.recommended || t === TRANSFER_TYPE.timed || t === TRANSFER_TYPE.inSeat;
}

/** The key of a boarding event (stop-time index bIdx, day slot, round k; slots and rounds fit a byte, as in the labels) in RuleState.boardFrom. */
export const boardKey = (k: number, bIdx: number, slot: number): number => (bIdx * 256 + slot) * 256 + k;

/**
 * Round k's scan of route r (one that serves a rule source or target; route-scan.ts scans the
 * others), from startPos, boarding up to lastPos and setting labels up to scanEnd (look-ahead.ts):
 * the textbook scan, per service-day slot, that alights (ride label; class label at a source) and
 * then boards the earliest trip a stop's labels can catch when it is earlier than the current one
 * (ruleBoarding at a target). The same pruning as route-scan.ts (bound, lower bounds, blocked
 * stops, trip masks); st.nRide, st.scanBound and st.visited carry the round's outputs in and out.
 */
export function scanRuleRoute(core: TransitCore, req: RaptorRequest, st: RaptorState, cx: ScanContext, k: number, r: number, startPos: number, lastPos: number, scanEnd: number, useH: boolean, upRow: number, upEnd: number): void {
  const rs = st.rules!;
  const ix = rs.index;
  const n = core.nStops;
  const C = rs.nClasses;
  const { board, boardable, ride, rideUpTo, rideBoard, rideSlot, rideMarked, rideList, toTarget, egressSec } = st;
  const { clsRide, clsUpTo, clsBoard, clsSlot, clsTrip, clsMarked, clsList } = rs;
  const { slotC0, slotNT, slotMin, slotMax, slotMaxDep, slotT0 } = st;
  const { routeStopBoard, tripsOf, timesOf, extraRoutesOf, extraTimesOf } = cx;
  const { offsetSec, nSlots } = req.days;
  const blocked = st.stopBlocked;
  const tripOk = req.tripAllowed ?? null;
  const h = useH ? toTarget : null;
  const base = k * n, prev = (k - 1) * n, up = k * upRow;
  const upC = upRow > 0 ? k * C : 0, upCEnd = upRow > 0 ? (upEnd / n) * C : C;
  const s0 = core.routeStopStart[r]!;
  const nS = core.routeStopStart[r + 1]! - s0;
  const time0 = core.routeTime0[r]!, tz = core.routeTz[r]!, tr0 = core.routeTripStart[r]!;
  const mono = cx.monotone[r] === 1;
  const g = ix.routeGtfs[r]!;
  let bound = st.scanBound;
  let nRide = st.nRide;
  let visited = st.visited;
  // route-scan.ts's skipping of later slots (rules name the same trips and routes every day): the
  // previous slot's last arrival, its first boarded trip's arrival at the last stop (monotone
  // routes), and the first position where it boarded nothing
  let prevEnd = 0;
  let prevTripEnd = UNREACHED;
  let prevScanned = false;
  let firstFail = nS;
  for (let slot = 0; slot < nSlots; slot++) {
    const si = r * nSlots + slot;
    const nT = slotNT[si]!;
    if (nT === 0 || slotMin[si]! >= bound || slotMax[si]! < req.departSec) {
      prevScanned = false;
      continue;
    }
    let from = startPos;
    if (prevScanned && (slotMin[si]! >= prevEnd || slotMin[si]! >= prevTripEnd)) {
      if (firstFail >= nS) break;
      from = firstFail;
    }
    prevEnd = slotMax[si]!;
    prevTripEnd = UNREACHED;
    prevScanned = true;
    firstFail = nS;
    const v = slot * core.nTz + tz;
    const off = offsetSec[v]!;
    const xr = extraRoutesOf[v]!;
    const vt = tripsOf[v]!, vtm = xr !== null && xr[r] === 1 ? extraTimesOf[v]! : timesOf[v]!;
    const t0v = slotT0[si]!, c0 = slotC0[si]!, lastDep = slotMaxDep[si]!;
    let trip = -1, tripBase = 0, boardIdx = 0, kF = -1;
    let j = from;
    for (; j < scanEnd; j++) {
      const x = routeStopBoard[s0 + j]!;
      const p = x >> 1;
      if (trip >= 0) {
        const w = vtm[2 * (tripBase + j)]!;
        const a = off + (w >> 2);
        if (j > lastPos && a >= bound && mono) break;
        if (!(w & NO_DROP_OFF) && !(blocked !== null && blocked[p] !== 0) && (useH ? a + toTarget[p]! : a) < bound) {
          if (a < rideUpTo[up + p]!) {
            ride[base + p] = a;
            rideUpTo[up + p] = a;
            for (let o = up + p + n; o < upEnd; o += n) if (a < rideUpTo[o]!) rideUpTo[o] = a;
            rideBoard[base + p] = boardIdx;
            rideSlot[base + p] = slot;
            if (!rideMarked[p]) {
              rideMarked[p] = 1;
              rideList[nRide++] = p;
            }
            const ew = egressSec[p]!;
            if (ew >= 0 && a + ew + 1 < bound) bound = a + ew + 1;
          }
          if (ix.isSource[p]) {
            const c = classOf(ix, p, g);
            if (a < clsUpTo[upC + c]!) {
              const ci = k * C + c;
              clsRide[ci] = a;
              clsBoard[ci] = boardIdx;
              clsSlot[ci] = slot;
              clsTrip[ci] = kF;
              for (let o = upC + c; o < upCEnd; o += C) if (a < clsUpTo[o]!) clsUpTo[o] = a;
              if (!clsMarked[c]) {
                clsMarked[c] = 1;
                clsList[rs.nMarked++] = c;
              }
            }
          }
        }
      } else if (j > lastPos) break;
      if (j > lastPos || !(x & 1) || !boardable[p] || (blocked !== null && blocked[p] !== 0)) continue;
      const limit = trip >= 0 ? trip : nT;
      // the trip to board (-1 none) and the entry boarded from (-1: the ordinary label)
      let i = -1, entry = -1;
      if (ix.isTarget[p]) {
        rs.ruleBoarding(core, st, tripOk, k, p, r, j, vt, vtm, c0, t0v, nT, off, lastDep, limit, bound, h);
        i = rs.outTrip;
        entry = rs.outEntry;
      } else {
        const b = board[prev + p]!;
        if ((useH ? b + toTarget[p]! : b) >= bound) continue;
        if (b <= lastDep) {
          let lo = firstLeaving(vtm, t0v, nS, j, nT, b - off);
          for (; lo < limit; lo++) {
            if (vtm[2 * (t0v + lo * nS + j) + 1]! & NO_PICKUP) continue;
            if (tripOk !== null && tripOk[tr0 + vt[c0 + lo]!] === 0) continue;
            i = lo;
            break;
          }
        }
      }
      if (i < 0 || i >= limit) {
        if (trip < 0 && firstFail === nS) firstFail = j;
        continue;
      }
      if (trip < 0 && mono) prevTripEnd = off + (vtm[2 * (t0v + i * nS + nS - 1)]! >> 2);
      trip = i;
      tripBase = t0v + i * nS;
      boardIdx = time0 + vt[c0 + i]! * nS + j;
      kF = ix.tripRule[tr0 + vt[c0 + i]!]!;
      const key = boardKey(k, boardIdx, slot);
      if (entry >= 0) rs.boardFrom.set(key, entry);
      else if (rs.boardFrom.size > 0) rs.boardFrom.delete(key);
    }
    visited += j - from;
  }
  st.scanBound = bound;
  st.nRide = nRide;
  st.visited = visited;
}

/**
 * After round k's scans: the targets of every class whose label improved are marked for the next
 * round (their boarding reads the class labels even where no ordinary label improved); the class
 * marks are cleared. Returns the new number of marked stops.
 */
export function markRuleTargets(st: RaptorState, nMarked: number): number {
  const rs = st.rules!;
  const ix = rs.index;
  const { marked, markedList } = st;
  for (let i = 0; i < rs.nMarked; i++) {
    const s = ix.classStop[rs.clsList[i]!]!;
    for (let t = ix.srcTargetStart[s]!; t < ix.srcTargetStart[s + 1]!; t++) {
      const q = ix.srcTarget[t]!;
      if (!marked[q]) {
        marked[q] = 1;
        markedList[nMarked++] = q;
      }
    }
  }
  rs.clearMarks();
  return nMarked;
}
