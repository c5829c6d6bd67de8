/**
 * The port between the catalog feature and the GraphQL feature for transit data: what the GTFS
 * GraphQL API (server/graphql/) reads (stops, stations, routes, agencies, feeds of the active
 * dataset, looked up by key, by GTFS id, in a box or a circle, and their links), implemented by the
 * catalog (server/catalog/transit-data.ts over its loaded dataset) and handed over by
 * server/main.ts, so neither feature imports the other.
 *
 * Entities are addressed by `ref`, the dataset's internal integer id; a `TransitSnapshot` is one
 * loaded dataset, so every lookup of one request sees the same data even across a reload.
 */
import type { AlertRecord } from "./realtime/alerts.ts";

export interface TransitStop {
  ref: number;
  /** feed Onestop ID (OTP's feed id: gtfsId is `${feed}:${id}`) */
  feed: string;
  id: string;
  name: string | null;
  code: string | null;
  desc: string | null;
  url: string | null;
  lat: number | null;
  lon: number | null;
  /** GTFS location_type: 0 stop, 1 station, 2 entrance, 3 generic node, 4 boarding area */
  locationType: number;
  /** ref of the parent station, or null */
  parent: number | null;
  timezone: string | null;
  platformCode: string | null;
  zoneId: string | null;
  /** GTFS wheelchair_boarding (0, 1, 2) or null */
  wheelchairBoarding: number | null;
}

export interface TransitRoute {
  ref: number;
  feed: string;
  id: string;
  /** ref of its agency, or null */
  agency: number | null;
  shortName: string | null;
  longName: string | null;
  desc: string | null;
  type: number | null;
  url: string | null;
  color: string | null;
  textColor: string | null;
  sortOrder: number | null;
}

export interface TransitAgency {
  ref: number;
  feed: string;
  id: string;
  name: string | null;
  url: string | null;
  timezone: string | null;
  lang: string | null;
  phone: string | null;
  fareUrl: string | null;
}

/** A trip of the active versions (`ref`: the dataset's trip number, stable within one snapshot). */
export interface TransitTrip {
  ref: number;
  feed: string;
  id: string;
  /** ref of its route */
  route: number;
  serviceId: string | null;
  headsign: string | null;
  shortName: string | null;
  blockId: string | null;
  shapeId: string | null;
  directionId: number | null;
  /** GTFS wheelchair_accessible, bikes_allowed (0, 1, 2) or null */
  wheelchair: number | null;
  bikes: number | null;
}

/** One scheduled stop_time of a trip (times in service-day seconds, may pass 24:00:00). */
export interface TransitStopTime {
  /** ref of the stop */
  stop: number;
  /** its position in the trip, from 0 */
  index: number;
  seq: number;
  arrival: number | null;
  departure: number | null;
  /** GTFS pickup_type, drop_off_type (0 regular .. 3 coordinate with driver), timepoint (0, 1) or null */
  pickupType: number | null;
  dropOffType: number | null;
  timepoint: number | null;
  /** stop_headsign */
  headsign: string | null;
}

/** The realtime side of a call (times in service-day seconds). */
export interface CallRealtime {
  arrival: number | null;
  departure: number | null;
  arrivalDelay: number | null;
  departureDelay: number | null;
  /** SCHEDULED, SKIPPED or NO_DATA (the stop_time update's), CANCELED when the trip is */
  state: string;
}

/** A trip calling at a stop on one service day. */
export interface TransitCall {
  /** ref of the trip */
  trip: number;
  stopTime: TransitStopTime;
  /** YYYY-MM-DD */
  serviceDate: string;
  /** POSIX seconds of the service day's start (noon minus 12 h in the feed's time zone) */
  serviceDay: number;
  /** scheduled times of this instance (frequency-based trips: shifted), service-day seconds */
  arrival: number | null;
  departure: number | null;
  /** the trip's update for this day: its schedule_relationship (SCHEDULED, ADDED, CANCELED, ...), null without one */
  tripState: string | null;
  realtime: CallRealtime | null;
}

/**
 * OTP's trip pattern: the trips of a route running one stop sequence in one direction. `code` is
 * `FEED:ROUTE:DIR:NN` (DIR the direction_id, -1 without one; NN from 01 within the route and
 * direction, most trips first, then by the first trip's trip_id), stable for the same feed version.
 */
export interface TransitPattern {
  code: string;
  route: number;
  directionId: number | null;
  /** stop refs in order */
  stops: readonly number[];
  /** trip refs, ascending by trip_id */
  trips: readonly number[];
  /** the most common trip_headsign of its trips */
  headsign: string | null;
}

/** What a departures search asks (times POSIX seconds). */
export interface DepartureSearch {
  from: number;
  to: number;
  /** instead of from/to: every departure of this service day (YYYY-MM-DD) */
  serviceDate?: string;
  /** only these trips (refs) */
  trips?: ReadonlySet<number>;
  limit: number;
  omitNonPickups: boolean;
  omitCanceled: boolean;
  nowMs: number;
}

/**
 * One realtime alert with the entities it names (GTFS-Realtime's Alert, texts by language; the
 * realtime store's record, server/realtime/alerts.ts): `id` stable within a snapshot, active periods
 * in POSIX seconds (null ends: open), informed entities by the GTFS ids of the alert's `feed`.
 */
export interface TransitAlert extends AlertRecord {
  feed: string;
}

export interface BoundingBox {
  minLat: number;
  minLon: number;
  maxLat: number;
  maxLon: number;
}

/** One loaded dataset's active feed versions. */
export interface TransitSnapshot {
  /** feed Onestop IDs of the active versions, sorted */
  feeds(): string[];
  stop(ref: number): TransitStop | null;
  stopById(feed: string, id: string): TransitStop | null;
  /** every active stop's ref (every location type), ascending */
  stopRefs(): Int32Array;
  /** refs of the active stops inside the box (edges included), ascending */
  stopsInBox(box: BoundingBox): Int32Array;
  /** refs of the active stops within `radius` meters of the point, ascending by ref */
  stopsNear(lat: number, lon: number, radius: number): Int32Array;
  /** the child stops of a station */
  childrenOf(ref: number): number[];
  /** the routes serving each stop (route_stops), one list per asked stop, in the order asked */
  routesOfStops(refs: readonly number[]): Int32Array[];
  route(ref: number): TransitRoute | null;
  routeById(feed: string, id: string): TransitRoute | null;
  routeRefs(): Int32Array;
  /** the stops a route serves, ascending by ref */
  stopsOfRoute(ref: number): Int32Array;
  agency(ref: number): TransitAgency | null;
  agencyById(feed: string, id: string): TransitAgency | null;
  agencyRefs(): Int32Array;

  trip(ref: number): TransitTrip | null;
  tripById(feed: string, id: string): TransitTrip | null;
  /** every active trip's ref, ascending */
  tripRefs(): Int32Array;
  /** a route's trips, ascending by ref */
  tripsOfRoute(route: number): Int32Array;
  /** a trip's stop_times in order */
  stopTimesOf(trip: number): TransitStopTime[];
  /** a trip's shape as [lat, lon] points, null without one */
  shapeOf(trip: number): [number, number][] | null;
  /** the dates (YYYY-MM-DD, ascending) a trip's service runs within its feed version's service window */
  serviceDatesOf(trip: number): string[];
  runsOn(trip: number, date: string): boolean;
  /** the feed's time zone (of its active version) */
  timezoneOf(feed: string): string | null;
  /** the earliest start and latest end of the active versions' service, POSIX seconds */
  serviceTimeRange(): { start: number; end: number } | null;

  patternsOfRoute(route: number): TransitPattern[];
  patternOfTrip(trip: number): TransitPattern | null;
  patternByCode(code: string): TransitPattern | null;
  /** the patterns calling at a stop, in route order */
  patternsAtStop(stop: number): TransitPattern[];

  /** a trip's calls on a service day (YYYY-MM-DD) with that day's trip update; null when the service does not run that day */
  callsOf(trip: number, serviceDate: string, nowMs: number): TransitCall[] | null;
  /** departures at a stop (a stop_time that is not its trip's last) in time order, at most `limit` */
  departures(stop: number, q: DepartureSearch): TransitCall[];
  /** the trips the trip updates served at `nowMs` cancel, on their service dates, by trip ref */
  canceledTrips(nowMs: number): { trip: number; serviceDate: string }[];
  /** the realtime alerts served at `nowMs` */
  alerts(nowMs: number): TransitAlert[];
}

export interface TransitData {
  /** the dataset being served, or null while none is loaded */
  snapshot(): Promise<TransitSnapshot | null>;
}
