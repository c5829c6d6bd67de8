/**
 * The planner's library boundary (the "api" of OTP's raptor module): what a caller hands to the
 * RAPTOR search and what it gets back. Plain data only: no HTTP, no Arrow, no DuckDB.
 *
 * Times inside a search are integer seconds relative to the request's `epochSec` (so they fit an
 * Int32Array); the caller converts to Unix time with `epochSec + t`.
 */

/** Sentinel for "not reached" labels; larger than any time a search can produce. */
export const UNREACHED = 0x3fffffff;

/**
 * Indexes into the timetable's stop, RAPTOR route and trip spaces (timetable/types.ts). Branded so a
 * stop cannot be passed where a route is expected; at run time they are plain numbers (a cast, no
 * wrapper): `i as StopIdx` where an index enters the api, and any of them reads as a number.
 */
export type StopIdx = number & { readonly __brand: "StopIdx" };
export type RouteIdx = number & { readonly __brand: "RouteIdx" };
export type TripIdx = number & { readonly __brand: "TripIdx" };

/** One walk to or from a stop: the stop index and the walking time in seconds. */
export interface StopWalk {
  stop: StopIdx;
  walkSec: number;
}

/**
 * The service days a search may ride on. Each "slot" is one service date per timezone
 * (e.g. yesterday, today, tomorrow in local time): `offsetSec[slot * nTz + tz]` is the slot's
 * service-day start ("noon minus 12h") relative to `epochSec`, and
 * `active[(slot * nTz + tz) * nServices + service]` is 1 when the service runs that day.
 */
export interface ServiceDays {
  nSlots: number;
  offsetSec: Int32Array;
  active: Uint8Array;
  /** the realtime trip times of these days (GTFS-Realtime trip updates applied); absent: the schedules */
  realtime?: RealtimeDays;
}

/**
 * One trip's realtime times on one service day, in the forward timetable: `stopTimes` packed like
 * TransitCore.stopTimes (two words per route position, service-day seconds * 4 + flags; a skipped
 * stop has NO_PICKUP | NO_DROP_OFF), never decreasing along the trip; null when the trip is canceled
 * that day (not boarded).
 */
export interface RealtimeTrip {
  stopTimes: Int32Array | null;
}

/**
 * Realtime trips per service-day slot: `trips[slot * nTz + tz]` maps a forward trip index to its
 * realtime times that day (null or absent: the schedule), and `key[slot * nTz + tz]` names that
 * map (equal keys, equal maps: the day views built from them are kept by key).
 */
export interface RealtimeDays {
  key: (string | null)[];
  trips: (ReadonlyMap<number, RealtimeTrip> | null)[];
  /**
   * Rides of updated trips from a stop to the next faster than any scheduled trip of their route
   * (a trip catching up), as (forward) stop pairs and seconds: the destination bounds
   * (raptor/heuristic.ts, from the schedules) take them in, so they stay lower bounds. `key` names
   * the list. Null: none.
   */
  fasterHops: { key: string; from: Int32Array; to: Int32Array; sec: Int32Array } | null;
}

/**
 * A search as the plan service asks for it (both directions): raptor/index.ts raptorRequest turns it
 * into the forward RaptorRequest, on the mirrored core for arriveBy.
 */
export interface SearchQuery {
  epochSec: number;
  /** departure time, or with arriveBy the latest arrival (relative seconds) */
  timeSec: number;
  arriveBy: boolean;
  /** departures (arrivals for arriveBy) in a window of this many seconds after (before) timeSec */
  windowSec: number;
  /** how far from timeSec the search looks, seconds */
  horizonSec: number;
  access: StopWalk[];
  egress: StopWalk[];
  maxTransfers: number;
  walkSpeed: number;
  days: ServiceDays;
  routeAllowed?: Uint8Array;
  wheelchair: boolean;
  /**
   * only the n earliest arrivals (latest departures for arriveBy) are wanted (RaptorRequest.keepEarliest);
   * with `costs`, the n journeys of least generalized cost
   */
  keepEarliest?: number;
  /** per trip (forward timetable index): 0 = may not be ridden (bannedTrips); undefined = all */
  tripAllowed?: Uint8Array;
  /** per stop: STOP_NO_BOARD (no boarding or alighting: bannedStops) and STOP_NO_PASS (no riding through: bannedStopsHard) bits */
  stopRules?: Uint8Array;
  /** boarding and alighting banned at some positions of some trips (bannedTrips with stop indexes): forward trip -> positions */
  tripStopBans?: Map<number, Set<number>>;
  /** seconds between reaching the first stop and boarding (OTP1 boardSlack) */
  boardSlackSec?: number;
  /** seconds between alighting the last ride and walking on (OTP1 alightSlack) */
  alightSlackSec?: number;
  /** seconds between alighting and boarding again, besides the walk between the stops (OTP1 minTransferTime) */
  transferSlackSec?: number;
  /** a journey lasts less than this (OTP1 maxHours) */
  maxDurationSec?: number;
  /** no arrival after this (relative seconds; for arriveBy: no departure before it), e.g. maxHours from the requested time */
  arrivalLimitSec?: number;
  /** switches the search to generalized cost (OTP1's weight; raptor/mc.ts) */
  costs?: CostModel;
  /** destination pruning off for this search (OTP1 disableRemainingWeightHeuristic: same journeys, more work) */
  noDestinationPruning?: boolean;
}

/** stopRules bits: no boarding or alighting at the stop; no riding through it either. */
export const STOP_NO_BOARD = 1;
export const STOP_NO_PASS = 2;

/**
 * Generalized cost, OTP1's "weight" (OTP2's c1), in seconds: every second riding counts 1, walking
 * walkReluctance, waiting between rides (and the slacks) waitReluctance, waiting before the first
 * ride from the requested time (arriveBy: after the last one until it) waitAtBeginningFactor; each
 * boarding adds boardCost and its route's penalty, each boarding after the first transferPenalty.
 */
export interface CostModel {
  walkReluctance: number;
  waitReluctance: number;
  waitAtBeginningFactor: number;
  boardCost: number;
  transferPenalty: number;
  /** per RAPTOR route: seconds added to each boarding (OTP1's preferred / unpreferred route penalties); undefined = none */
  routePenalty?: Float64Array;
  /**
   * seconds added to each boarding after the first unless a transfer rule of type 0, 1 or 4
   * (recommended, timed, in-seat: transfer-rules.ts) applies to the transfer (OTP1's
   * nonpreferredTransferPenalty); undefined = none
   */
  nonpreferredTransferPenalty?: number;
  /**
   * the requested time the wait before the first ride counts from (relative seconds; for arriveBy the
   * latest arrival the wait after the last ride counts to), so searches of later windows (plan-service
   * widening) cost alike; undefined = the search's own timeSec
   */
  startSec?: number;
}

/**
 * How the search runs, apart from what it searches (OTP's RaptorConfig next to its RaptorRequest).
 * The defaults are the planner's behaviour; the switches exist so tests and benchmarks can compare a
 * search with and without a pruning rule (journeys must not change). Read once per search.
 */
export interface RaptorConfig {
  /** range searches prune labels by lower bounds to the destination (raptor/heuristic.ts) */
  destinationPruning: boolean;
  /** the last rounds scan routes only as far as the destination can still be reached (raptor/look-ahead.ts) */
  lookAhead: boolean;
  /** upper bound on range iterations; denser departure lists are thinned */
  maxIterations: number;
  /** keepEarliest range searches first try a window this short (raptor/range.ts) */
  firstWindowSec: number;
  /** ... holding at least this many departures per wanted journey */
  firstWindowDeparturesPerJourney: number;
  /**
   * A generalized-cost search (request.costs) keeps journeys within this share over the cost of the
   * n-th cheapest journey known (0 = exact: only labels that can still lead among the n cheapest)
   */
  costSlack: number;
}

export const DEFAULT_RAPTOR_CONFIG: Readonly<RaptorConfig> = Object.freeze({
  destinationPruning: true,
  lookAhead: true,
  maxIterations: 90,
  firstWindowSec: 900,
  firstWindowDeparturesPerJourney: 4,
  costSlack: 0,
});

export interface RaptorRequest {
  /** Unix seconds that relative times count from */
  epochSec: number;
  /** earliest departure from the origin (relative seconds) */
  departSec: number;
  /** range RAPTOR: departures in [departSec, departSec + windowSec] are searched; 0 = one departure */
  windowSec: number;
  /** no arrival later than this is kept (relative seconds) */
  maxArrivalSec: number;
  access: StopWalk[];
  egress: StopWalk[];
  /** rides allowed = maxTransfers + 1 */
  maxRides: number;
  /** meters per second, for footpaths between stops */
  walkSpeed: number;
  days: ServiceDays;
  /** per RAPTOR route: 1 = may be ridden (mode filter); undefined = all */
  routeAllowed?: Uint8Array;
  /** only trips with wheelchair_accessible = 1 and stops with wheelchair_boarding != 2 */
  wheelchair: boolean;
  /**
   * The caller keeps only the n earliest-arriving journeys (plan-service selectJourneys; for arriveBy,
   * in mirrored time): once n journeys are found, arrivals after the n-th earliest are not searched.
   * Undefined = the whole Pareto set on (departure, arrival, rides).
   */
  keepEarliest?: number;
  /**
   * The caller reads the labels of every stop, not only journeys to the egress stops (earliestArrivals):
   * the last round's transfers (slack and footpaths) are then relaxed too. A journey search skips them:
   * no later round boards from them.
   */
  everyStop?: boolean;
  /** per trip of the searched core: 0 = may not be ridden; undefined = all */
  tripAllowed?: Uint8Array;
  /** per stop: STOP_NO_BOARD / STOP_NO_PASS bits (SearchQuery.stopRules) */
  stopRules?: Uint8Array;
  /** trip of the searched core -> its positions (in the searched core's route) where boarding and alighting are banned */
  tripStopBans?: Map<number, Set<number>>;
  /** slack after the access walk before the first boarding, and after the last ride before the egress walk (search direction) */
  accessSlackSec: number;
  egressSlackSec: number;
  /** slack between alighting and boarding again, besides any walk (the longer of it and the stop's own minimum counts when staying) */
  transferSlackSec: number;
  /** an iteration departing at d keeps only arrivals before d + maxDurationSec */
  maxDurationSec?: number;
  /** generalized cost (raptor/mc.ts) */
  costs?: CostModel;
  noDestinationPruning?: boolean;
}

export interface AccessLeg {
  kind: "access";
  stop: StopIdx;
  depSec: number;
  arrSec: number;
}
export interface RideLeg {
  kind: "ride";
  route: RouteIdx;
  /** trip index in the forward timetable */
  trip: TripIdx;
  slot: number;
  boardPos: number;
  alightPos: number;
  fromStop: StopIdx;
  toStop: StopIdx;
  depSec: number;
  arrSec: number;
}
export interface TransferLeg {
  kind: "transfer";
  fromStop: StopIdx;
  toStop: StopIdx;
  depSec: number;
  arrSec: number;
}
export interface EgressLeg {
  kind: "egress";
  stop: StopIdx;
  depSec: number;
  arrSec: number;
}
export type JourneyLeg = AccessLeg | RideLeg | TransferLeg | EgressLeg;

/** A journey in forward order; departSec/arriveSec are relative to the request's epochSec. */
export interface Journey {
  departSec: number;
  arriveSec: number;
  rides: number;
  legs: JourneyLeg[];
  /** generalized cost (CostModel), set by searches with costs: then one more criterion of the Pareto filter */
  cost?: number;
}

export interface RaptorStats {
  iterations: number;
  rounds: number;
  /** route scans (one route in one round, all its service-day slots) */
  routesScanned: number;
  /** route stops visited by those scans (summed over slots) */
  stopsVisited: number;
  /** footpaths relaxed */
  footpaths: number;
  /** a keepEarliest range search: "short" when its first, shorter window answered, "full" when the whole window was searched (after a short one that could not answer, "short+full") */
  window?: "short" | "full" | "short+full";
}

export interface RaptorResult {
  /** Pareto set on (departure later, arrival earlier, fewer rides), unsorted */
  journeys: Journey[];
  stats: RaptorStats;
}
