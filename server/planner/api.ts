/**
 * The planner's library boundary (the "api" of OTP's raptor module): what a caller hands to the
 * RAPTOR search and what it gets back. Plain data only: no HTTP, no Arrow, no DuckDB.
 *
 * Times inside a search are integer seconds relative to the request's `epochSec` (so they fit an
 * Int32Array); the caller converts to Unix time with `epochSec + t`.
 */

/** Sentinel for "not reached" labels; larger than any time a search can produce. */
export const UNREACHED = 0x3fffffff;

/** One walk to or from a stop: the stop index and the walking time in seconds. */
export interface StopWalk {
  stop: number;
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
}

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
}

export interface AccessLeg {
  kind: "access";
  stop: number;
  depSec: number;
  arrSec: number;
}
export interface RideLeg {
  kind: "ride";
  route: number;
  /** trip index in the forward timetable */
  trip: number;
  slot: number;
  boardPos: number;
  alightPos: number;
  fromStop: number;
  toStop: number;
  depSec: number;
  arrSec: number;
}
export interface TransferLeg {
  kind: "transfer";
  fromStop: number;
  toStop: number;
  depSec: number;
  arrSec: number;
}
export interface EgressLeg {
  kind: "egress";
  stop: number;
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
