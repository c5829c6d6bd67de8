// Purpose: the caller-owned scratch state of a search (labels, marks, queues).
/**
 * Scratch memory of a RAPTOR search, owned by the caller (nigiri's raptor_state): allocated once per
 * (prepared core, round count) and reused by every query; label arrays are (round * nStops + stop)
 * matrices. All a search writes goes here, nothing into module state.
 */
import { UNREACHED } from "../api.ts";
import type { TransitCore } from "../timetable/types.ts";
import type { McScratch } from "./mc-state.ts";
import type { PreparedCore } from "./prepare.ts";
import type { RuleState } from "./transfer-rules.ts";

/** boardSrc values: the label was copied from the previous round, or set by the access walk. */
export const SRC_INHERITED = -1;
export const SRC_ACCESS = -2;
/**
 * Rounds before the last one whose scans are limited to what can still reach the destination
 * (look-ahead.ts): a third level cost more than it saved on the MTA feeds (1.17x).
 */
export const REACH_LEVELS = 2;

export class RaptorState {
  readonly nStops: number;
  readonly nRoutes: number;
  readonly rounds: number;
  /** (round, stop) -> arrival by alighting a trip in that round */
  readonly ride: Int32Array;
  /**
   * (round, stop) -> best ride arrival with at most `round` rides (Pareto pruning). A single-departure
   * search only uses row 0 (rounds run in order, so "at most k rides" is "so far").
   */
  readonly rideUpTo: Int32Array;
  /** (round, stop) -> the ride that set `ride`: stop-time index of its boarding event, and its day slot */
  readonly rideBoard: Int32Array;
  readonly rideSlot: Uint8Array;
  /** (round, stop) -> earliest time one may board here after at most `round` rides */
  readonly board: Int32Array;
  /** (round, stop) -> best boarding time with at most `round` rides (prunes dominated transfers; row 0 only in a single-departure search) */
  readonly boardUpTo: Int32Array;
  /** (round, stop) -> SRC_INHERITED, SRC_ACCESS, the stop itself (slack after a ride) or the stop walked from */
  readonly boardSrc: Int32Array;
  /** marked stops of the current round: flag + list */
  readonly marked: Uint8Array;
  readonly markedList: Int32Array;
  /** stops marked in the previous round: the only ones where boarding can improve anything */
  readonly boardable: Uint8Array;
  /** stops whose ride label improved in the current round */
  readonly rideMarked: Uint8Array;
  readonly rideList: Int32Array;
  /** route -> first marked position in this round, -1 when not marked, -2 when not live in the current query */
  readonly routeMarkedPos: Int32Array;
  /** route -> last marked position in this round (valid while routeMarkedPos >= 0) */
  readonly routeMarkedLast: Int32Array;
  readonly routeList: Int32Array;
  /** route -> 1 when it may be scanned in the current query (mode filter, runs on a searched day; slots.ts markLiveRoutes) */
  readonly routeLive: Uint8Array;
  /** footpath -> walking seconds at `footSpeed`, at least `footSlack` more than the walk (computed once per speed and slack) */
  footSec: Int32Array;
  /** the same footpaths interleaved for the search: [2e] = target stop, [2e + 1] = walking seconds */
  readonly footToSec: Int32Array;
  footSpeed = -1;
  footSlack = 0;
  /**
   * stop -> 1 when the current query may neither board nor alight there (wheelchair_boarding = 2 for
   * a wheelchair query, request.stopRules); null when every stop may be used. Set by range.ts.
   */
  stopBlocked: Uint8Array | null = null;
  private readonly blockedScratch: Uint8Array;
  /** the multi-criteria search's scratch (mc.ts), made on its first use */
  mc: McScratch | null = null;
  /** the transfer rules' scratch (transfer-rules.ts), set for a search on a core with rules (range.ts), else null */
  rules: RuleState | null = null;
  /**
   * Step searches (minutes.ts): stops whose ride label improved in any round of the current
   * iteration, flag + list (iterRideList[0 .. nIterRide)); null outside step searches (rounds.ts
   * fills it after each round's scans)
   */
  iterRideMark: Uint8Array | null = null;
  iterRideList: Int32Array | null = null;
  nIterRide = 0;
  /** outputs of transfers.ts relaxTransfers: routes collected for the next round, footpaths relaxed */
  collected = 0;
  relaxed = 0;
  /** outputs of route-scan.ts scanRoutes: ride labels improved, the round's bound after the scans, route stops visited */
  nRide = 0;
  scanBound = 0;
  visited = 0;
  /**
   * (route * nSlots + slot) -> the route's active trips on that slot for the current query
   * (slots.ts markLiveRoutes): first index into the slot's day-view trips, count (0 when the route
   * has no trip inside the searched span that day), first departure, last arrival and last departure
   * (relative seconds)
   */
  slotC0 = new Int32Array(0);
  slotNT = new Int32Array(0);
  slotMin = new Int32Array(0);
  slotMax = new Int32Array(0);
  slotMaxDep = new Int32Array(0);
  /** (route * nSlots + slot) -> the route's time0 in the slot's day view (DayView.time0) */
  slotT0 = new Int32Array(0);
  /** round -> best arrival at the destination */
  readonly targetBest: Int32Array;
  /** stop -> access walk seconds for the current query, -1 when none */
  readonly accessSec: Int32Array;
  /** stop -> the shortest egress walk seconds for the current query, -1 when none, and the first egress entry with it */
  readonly egressSec: Int32Array;
  readonly egressIdx: Int32Array;
  /**
   * For the last rounds (look-ahead.ts reachAhead): reachLast[l][r] = the last position on
   * route r where a ride label of round (last - l) can still lead to the destination within l more
   * rides (-1: none), with the routes set in reachRoutes[l][0 .. nReachRoutes[l]); reachMark,
   * reachBoard and reachList are scratch
   */
  readonly reachLast: Int32Array[] = [];
  readonly reachRoutes: Int32Array[] = [];
  readonly nReachRoutes: number[] = [];
  readonly reachMark: Uint8Array;
  readonly reachBoard: Uint8Array;
  readonly reachList: Int32Array;
  /** levels set for this query (reachLast[0 .. reachLevels]; -1: none, every round scans in full) */
  reachLevels = -1;
  /** stop -> lower bound of the time from the stop to the destination (heuristic.ts), 0 when unknown */
  readonly toTarget: Int32Array;
  /** toTarget holds this query's bounds (they are computed when the destination is first reached) */
  boundsReady = false;
  /** toTarget holds lower bounds (not only zeros) */
  boundsSet = false;
  /** queue entries of the lower-bound search (stop, next entry in its bucket) */
  readonly queueNode: Int32Array;
  readonly queueNext: Int32Array;
  /** bucket heads of that queue (one per second of the bound's limit, grown on demand) */
  private queueHead = new Int32Array(0);
  /** incoming footpaths for the lower-bound search at walking speed `inSpeed`: [2k] = the stop walked from, [2k + 1] = walking seconds */
  private readonly inFromSec: Int32Array;
  private inSpeed = -1;
  private inSlack = 0;

  constructor(core: TransitCore, maxRides: number) {
    const n = core.nStops;
    this.inFromSec = new Int32Array(2 * core.footTo.length);
    this.nStops = n;
    this.nRoutes = core.nRoutes;
    this.rounds = maxRides + 1;
    const size = this.rounds * n;
    this.ride = new Int32Array(size);
    this.rideUpTo = new Int32Array(size);
    this.rideBoard = new Int32Array(size);
    this.rideSlot = new Uint8Array(size);
    this.board = new Int32Array(size);
    this.boardSrc = new Int32Array(size);
    this.boardUpTo = new Int32Array(size);
    this.routeLive = new Uint8Array(core.nRoutes);
    this.footSec = new Int32Array(core.footTo.length);
    this.footToSec = new Int32Array(2 * core.footTo.length);
    this.blockedScratch = new Uint8Array(n);
    this.marked = new Uint8Array(n);
    this.markedList = new Int32Array(n);
    this.rideMarked = new Uint8Array(n);
    this.boardable = new Uint8Array(n);
    this.rideList = new Int32Array(n);
    this.routeMarkedPos = new Int32Array(core.nRoutes).fill(-1);
    this.routeList = new Int32Array(core.nRoutes);
    this.routeMarkedLast = new Int32Array(core.nRoutes);
    this.targetBest = new Int32Array(this.rounds);
    this.accessSec = new Int32Array(n).fill(-1);
    this.egressSec = new Int32Array(n).fill(-1);
    this.egressIdx = new Int32Array(n);
    this.reachMark = new Uint8Array(n);
    this.reachBoard = new Uint8Array(n);
    this.reachList = new Int32Array(n);
    for (let l = 0; l <= REACH_LEVELS; l++) {
      this.reachLast.push(new Int32Array(core.nRoutes).fill(-1));
      this.reachRoutes.push(new Int32Array(core.nRoutes));
      this.nReachRoutes.push(0);
    }
    this.toTarget = new Int32Array(n);
    this.queueNode = new Int32Array(core.routeStops.length + core.footTo.length + n);
    this.queueNext = new Int32Array(this.queueNode.length);
  }

  /**
   * Seconds between alighting and boarding again over every footpath at `speed` m/s:
   * max(min_transfer_time, distance / speed + slack), slack = the request's minimum transfer time
   * (OTP1 minTransferTime: on top of the walk; transfers.txt times count from alighting).
   */
  footpathSeconds(core: TransitCore, speed: number, slack = 0): Int32Array {
    if (speed !== this.footSpeed || slack !== this.footSlack) {
      const { footMinSec, footWalkM, footTo } = core;
      for (let e = 0; e < this.footSec.length; e++) {
        const sec = Math.max(footMinSec[e]!, Math.ceil(footWalkM[e]! / speed) + slack);
        this.footSec[e] = sec;
        this.footToSec[2 * e] = footTo[e]!;
        this.footToSec[2 * e + 1] = sec;
      }
      this.footSpeed = speed;
      this.footSlack = slack;
    }
    return this.footSec;
  }

  /** The incoming footpaths (PreparedCore.footIn) interleaved with their seconds at `speed` and `slack` (heuristic.ts). */
  incomingFootpaths(pc: PreparedCore, speed: number, slack = 0): Int32Array {
    if (speed !== this.inSpeed || slack !== this.inSlack) {
      const footSec = this.footpathSeconds(pc.core, speed, slack);
      const { edge, from } = pc.footIn;
      for (let k = 0; k < edge.length; k++) {
        this.inFromSec[2 * k] = from[k]!;
        this.inFromSec[2 * k + 1] = footSec[edge[k]!]!;
      }
      this.inSpeed = speed;
      this.inSlack = slack;
    }
    return this.inFromSec;
  }

  /**
   * The stops the query may neither board nor alight at (stopBlocked): wheelchair_boarding = 2 for a
   * wheelchair query, and the request's banned stops (either STOP_NO_BOARD or STOP_NO_PASS). Null when none.
   */
  blockStops(core: TransitCore, wheelchair: boolean, rules: Uint8Array | undefined): Uint8Array | null {
    if (!wheelchair && !rules) return (this.stopBlocked = null);
    const b = this.blockedScratch;
    const w = core.stopWheelchair;
    for (let p = 0; p < b.length; p++) b[p] = (wheelchair && w[p] === 2) || (rules !== undefined && rules[p] !== 0) ? 1 : 0;
    return (this.stopBlocked = b);
  }

  /** Bucket heads of the lower-bound queue, at least `size` of them. */
  queueHeads(size: number): Int32Array {
    if (this.queueHead.length < size) this.queueHead = new Int32Array(size);
    return this.queueHead;
  }

  /** Size the per-(route, slot) arrays for nSlots service-day slots. */
  ensureSlots(nSlots: number): void {
    const size = this.nRoutes * nSlots;
    if (this.slotNT.length !== size) {
      this.slotC0 = new Int32Array(size);
      this.slotNT = new Int32Array(size);
      this.slotMin = new Int32Array(size);
      this.slotMax = new Int32Array(size);
      this.slotMaxDep = new Int32Array(size);
      this.slotT0 = new Int32Array(size);
    }
  }

  fits(core: TransitCore, maxRides: number): boolean {
    return core.nStops === this.nStops && core.nRoutes === this.nRoutes && maxRides + 1 <= this.rounds;
  }

  /** Clear the labels of the first `rounds` rounds; called once per search pass (not per range iteration). */
  reset(rounds: number, maxArrival: number, range: boolean): void {
    const size = rounds * this.nStops;
    this.ride.fill(UNREACHED, 0, size);
    this.board.fill(UNREACHED, 0, size);
    this.rideUpTo.fill(UNREACHED, 0, range ? size : this.nStops);
    this.boardUpTo.fill(UNREACHED, 0, range ? size : this.nStops);
    this.targetBest.fill(maxArrival);
    this.marked.fill(0);
    this.rideMarked.fill(0);
    this.rules?.reset(rounds, range);
  }
}

/**
 * The caller's scratch states, one per prepared core (forward and backward searches each keep their
 * own), grown when a search needs more rounds. Held by the caller next to the prepared timetable.
 */
export class RaptorStatePool {
  private readonly states = new WeakMap<PreparedCore, RaptorState>();
  get(pc: PreparedCore, maxRides: number): RaptorState {
    let s = this.states.get(pc);
    if (!s || !s.fits(pc.core, maxRides)) {
      s = new RaptorState(pc.core, Math.max(maxRides, s ? s.rounds - 1 : 0));
      this.states.set(pc, s);
    }
    return s;
  }
}
