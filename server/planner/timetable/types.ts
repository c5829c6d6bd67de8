/**
 * The planner timetable: a struct of typed arrays (the "spi" RAPTOR reads), plus string metadata
 * used only to render responses. Index spaces: stop, route (a RAPTOR route = trips with one stop
 * sequence that never overtake each other), trip, service, tz. CSR "start" arrays have n+1 entries.
 */

/** What the RAPTOR algorithm reads. A backward search gets a mirrored instance (see reverse.ts). */
export interface TransitCore {
  nStops: number;
  nRoutes: number;
  nTrips: number;
  nServices: number;
  nTz: number;
  /** stop -> wheelchair_boarding (0 unknown, 1 yes, 2 no) */
  stopWheelchair: Uint8Array;
  /** stop -> minimum seconds between alighting and boarding again at the same stop */
  stopSlackSec: Int32Array;
  /** stop -> [stopRouteStart[s], stopRouteStart[s+1]) in stopRouteRoute/stopRoutePos */
  stopRouteStart: Int32Array;
  /** -> route serving the stop */
  stopRouteRoute: Int32Array;
  /** -> position of the stop in that route */
  stopRoutePos: Int32Array;
  /** stop -> [footStart[s], footStart[s+1]) in footTo/footDistM/footMinSec (outgoing footpaths) */
  footStart: Int32Array;
  footTo: Int32Array;
  /** footpath -> meters (on the streets where they measured it, else the straight line): its length, for legs and limits */
  footDistM: Float64Array;
  /**
   * footpath -> the walk in reference meters (pipeline/schema/timetable.ts footpaths.walk_m): a walk
   * at speed v takes footWalkM / v seconds (on the streets: the engine's time scaled to v)
   */
  footWalkM: Float64Array;
  /** footpath -> minimum seconds (transfers.txt min_transfer_time), 0 when none */
  footMinSec: Int32Array;
  /** route -> [routeStopStart[r], routeStopStart[r+1]) in routeStops */
  routeStopStart: Int32Array;
  /** -> stop index */
  routeStops: Int32Array;
  /** route -> its trips are [routeTripStart[r], routeTripStart[r+1]), ordered by departure */
  routeTripStart: Int32Array;
  /** route -> first index of its times in arrSec/depSec; trip i (0-based in route), position j at time0 + i * nStops + j */
  routeTime0: Int32Array;
  /** route -> timezone index of its agency */
  routeTz: Int32Array;
  /** route -> smallest departure and largest arrival of any of its trips (service-day seconds) */
  routeMinDepSec: Int32Array;
  routeMaxArrSec: Int32Array;
  /**
   * stop time i -> [2i] arrival, [2i + 1] departure, each as seconds since service-day start * 4 +
   * flags (NO_PICKUP | NO_DROP_OFF, the same in both words): a scan reads one array, and a trip's
   * times and flags share cache lines. Read with arrAt / depAt / flagsAt (packStopTimes builds it).
   */
  stopTimes: Int32Array;
  /** trip -> service index */
  tripService: Int32Array;
  /** trip -> wheelchair_accessible (0 unknown, 1 yes, 2 no) */
  tripWheelchair: Uint8Array;
  /** trip -> trip index in the forward timetable (identity there; a permutation in the mirror) */
  tripOrig: Int32Array;
  /** transfers.txt rules naming routes or trips, in this core's direction (the mirror swaps their sides); null when there are none */
  transferRules: TransferRules | null;
}

/**
 * The timetable's transfer rules (pipeline/schema/timetable.ts transfer_rules: a transfer from a
 * ride on the "from" trip alighting at fromStop to a boarding of the "to" trip at toStop), as the
 * search reads them (raptor/transfer-rules.ts indexes them per core). In the mirrored core (arriveBy)
 * "from" and "to" are swapped: the search rides the departing trip first.
 */
export interface TransferRules {
  /** rule -> stop alighted at, stop boarded at */
  fromStop: Int32Array;
  toStop: Int32Array;
  /** rule -> GTFS route of the ride before / after the transfer, -1 any */
  fromRoute: Int32Array;
  toRoute: Int32Array;
  /** rule -> rule trip (tripRule) of the ride before / after, -1 any */
  fromTrip: Int32Array;
  toTrip: Int32Array;
  /** rule -> transfer_type (0-5; TRANSFER_TYPE), min_transfer_time seconds (type 2), GTFS specificity (higher wins) */
  type: Uint8Array;
  minSec: Int32Array;
  specificity: Uint8Array;
  /** rule -> straight-line metres between its stops (0 for one stop) */
  distM: Float64Array;
  /** trip -> its rule trip (the trips of one GTFS trip share it), -1 when no rule names it */
  tripRule: Int32Array;
  /** RAPTOR route -> GTFS route */
  routeGtfs: Int32Array;
}

// The packed stop-time word is part of the dataset contract: one codec, written by the pipeline and
// read here (arrival and departure seconds * 4 + flags).
export { MAX_STOP_TIME_SEC, NO_DROP_OFF, NO_PICKUP, TRANSFER_TYPE, arrAt, depAt, flagsAt, packStopTimes } from "../../../pipeline/schema/timetable.ts";
/** The fare tables of the timetable file (pipeline/schema/timetable.ts FARE_TIMETABLE_TABLES), read by server/planner/fares.ts. */
export type { FareTimetableTables as FareTables } from "../../../pipeline/schema/timetable.ts";
import type { FareTimetableTables } from "../../../pipeline/schema/timetable.ts";

/** Response metadata; never read by the algorithm. */
export interface TimetableMeta {
  feeds: { onestopId: string; sha1: string }[];
  /** GTFS Fares v1 and v2 in the timetable's index spaces (server/planner/fares.ts); empty tables when the file has none */
  fares: FareTimetableTables;
  timezones: string[];
  /** url: agency_url ("" when none, and in format 3 files) */
  agencies: { agencyId: string; name: string; tz: number; feed: number; url: string }[];
  /** GTFS routes (not RAPTOR routes) */
  gtfsRoutes: {
    routeId: string;
    shortName: string;
    longName: string;
    type: number;
    color: string;
    textColor: string;
    onestopId: string;
    agency: number;
  }[];
  stopId: string[];
  stopName: string[];
  stopCode: string[];
  stopOnestopId: string[];
  stopFeed: Int32Array;
  stopLat: Float64Array;
  stopLon: Float64Array;
  /** stop -> zone_id, platform_code ("" when none, and in format 3 files) */
  stopZoneId: string[];
  stopPlatformCode: string[];
  /** stop -> its station (parent_station's internal id; stops sharing it are one station), -1 none (and in format 3 files) */
  stopStation: Int32Array;
  tripId: string[];
  tripHeadsign: string[];
  tripBlockId: string[];
  /** trip -> trip_short_name ("" when none, and in format 3 files) */
  tripShortName: string[];
  /** trip -> GTFS route index */
  tripGtfsRoute: Int32Array;
  /** RAPTOR route -> GTFS route index, route_type, shape index (-1 none) */
  routeGtfsRoute: Int32Array;
  routeType: Int32Array;
  routeShape: Int32Array;
  /** route position -> GTFS stop_sequence and index of the nearest shape point (-1: no shape, or the stop is off it) */
  routeStopSequence: Int32Array;
  routeStopShapeIdx: Int32Array;
  /** shape -> [shapeStart[s], shapeStart[s+1]) in shapeLat/shapeLon */
  shapeStart: Int32Array;
  shapeLat: Float64Array;
  shapeLon: Float64Array;
  /** service -> first day (days since 1970-01-01) of its byte range in serviceDays */
  serviceDay0: Int32Array;
  /** service -> [serviceStart[s], serviceStart[s+1]) in serviceDays; day d active when serviceDays[serviceStart[s] + d - serviceDay0[s]] = 1 */
  serviceStart: Int32Array;
  serviceDays: Uint8Array;
  /** feed -> first and last service date (days since epoch) */
  feedStartDay: Int32Array;
  feedEndDay: Int32Array;
  /** build settings recorded by the compiler */
  walkRadiusM: number;
  /** footpath (core.footTo order) -> how its metres were measured (pipeline/schema/timetable.ts FOOT_SOURCE) */
  footSource: Uint8Array;
  /** the street dataset the footpaths were measured on ("" none) */
  streetsSha1: string;
}

export interface Timetable {
  core: TransitCore;
  meta: TimetableMeta;
  /** the mirrored core for backward (arriveBy) searches, built on first use */
  reversed?: TransitCore;
}
