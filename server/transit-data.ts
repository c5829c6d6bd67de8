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
}

export interface TransitData {
  /** the dataset being served, or null while none is loaded */
  snapshot(): Promise<TransitSnapshot | null>;
}
