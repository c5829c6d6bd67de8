/**
 * Input of the timetable assembler: the rows of every active feed version, already joined to
 * dataset-wide integer keys (the catalog's `id` columns). compile.ts fills it from Parquet with
 * DuckDB; the planner's scenario tests fill it from text timetables.
 */
import type { StopTimesColumns } from "../gtfs/stop-times/columns.ts";

export interface SourceFeed {
  onestopId: string;
  sha1: string;
  /** service window, days since 1970-01-01 */
  startDay: number;
  endDay: number;
}
export interface SourceAgency {
  key: number;
  feed: number;
  agencyId: string;
  name: string;
  timezone: string;
  /** agency_url (OTP1 legs' agencyUrl); "" or absent when none */
  url?: string;
}
export interface SourceRoute {
  key: number;
  feed: number;
  agency: number;
  routeId: string;
  shortName: string;
  longName: string;
  type: number;
  color: string;
  textColor: string;
  onestopId: string;
}
export interface SourceStop {
  key: number;
  feed: number;
  stopId: string;
  code: string;
  name: string;
  lat: number;
  lon: number;
  /** 0 unknown, 1 yes, 2 no */
  wheelchair: number;
  onestopId: string;
  /** key of parent_station, -1 when none */
  parent: number;
  /** zone_id, platform_code (OTP1 places); "" or absent when none */
  zoneId?: string;
  platformCode?: string;
}
export interface SourceTrip {
  key: number;
  feed: number;
  route: number;
  service: number;
  tripId: string;
  headsign: string;
  blockId: string;
  /** "" when none */
  shapeId: string;
  wheelchair: number;
  /** trip_short_name (OTP1 legs' tripShortName); "" or absent when none */
  shortName?: string;
}
/** stop_times, columnar, sorted by trip then stop_sequence: the StopTimesColumns contract */
export type SourceStopTimes = StopTimesColumns;
export interface SourceCalendar {
  key: number;
  feed: number;
  /** bit 0 = Monday ... bit 6 = Sunday */
  weekdays: number;
  startDay: number;
  endDay: number;
  added: number[];
  removed: number[];
}
export interface SourceFrequency {
  trip: number;
  startSec: number;
  endSec: number;
  headwaySec: number;
}
export interface SourceTransfer {
  /** stop keys; -1 when the row names none (transfer_type 4 and 5 may leave them out) */
  fromStop: number;
  toStop: number;
  /** GTFS transfer_type: 0/1/2 allowed (2 with min time), 3 not possible, 4 in-seat, 5 in-seat not allowed */
  type: number;
  minSec: number;
  /**
   * keys of the route and trip the row names on either side (from_route_id ... to_trip_id), absent
   * or -1 when none: such a row is a transfer rule (pipeline/schema/timetable.ts transfer_rules),
   * the others are footpaths and same-stop minimum times
   */
  fromRoute?: number;
  toRoute?: number;
  fromTrip?: number;
  toTrip?: number;
}
export interface SourceShape {
  feed: number;
  shapeId: string;
  lat: Float64Array;
  lon: Float64Array;
}

export interface SourceData {
  feeds: SourceFeed[];
  agencies: SourceAgency[];
  routes: SourceRoute[];
  stops: SourceStop[];
  trips: SourceTrip[];
  stopTimes: SourceStopTimes;
  calendars: SourceCalendar[];
  frequencies: SourceFrequency[];
  transfers: SourceTransfer[];
  shapes: SourceShape[];
  /** per feed: its fare tables (pipeline/timetable/fares.ts); absent = no fares */
  fares?: SourceFares[];
  /** what the compile left out of the rows, one sentence each (reported with its progress) */
  warnings?: string[];
}

export interface AssembleOptions {
  /** stops of any feed closer than this are joined by a footpath (meters) */
  walkRadiusM: number;
}

export const DEFAULT_WALK_RADIUS_M = 400;

/** A relation of one version's catalog table, by table name (its Parquet file, or the import's in-memory tables). */
export type VersionTables = (table: string) => string;

/** One feed version's fare tables, as the assembler takes them (route and stop keys are catalog ids). */
export interface SourceFares {
  attributes: { fareId: string; price: number; currency: string; transfers: number; transferDuration: number }[];
  /** fare_id → its rules as OTP1 holds them: route keys, (origin, destination) zone pairs (null: empty), contains zones */
  ruleSets: Map<string, { routes: number[]; ods: [string | null, string | null][]; contains: string[] }>;
  /** stop key → zone_id, for stops that have one */
  stopZones: Map<number, string>;
  products: { productId: string; name: string; riderCategory: string | null; amount: number; currency: string }[];
  /** rider_category_id of the categories marked is_default_fare_category = 1 */
  defaultCategories: string[];
  legRules: { legGroup: string; network: string | null; fromArea: string | null; toArea: string | null; product: string; priority: number; timeframe: boolean }[];
  transferRules: { fromLegGroup: string; toLegGroup: string; transferCount: number; durationLimit: number; durationLimitType: number; transferType: number; product: string | null }[];
  stopAreas: { area: string; stop: number }[];
  /** route key → network_id (route_networks.txt, else routes.network_id) */
  routeNetworks: Map<number, string>;
}
