/**
 * The catalog's loaded dataset (CatalogData) and its documents (VersionInfo, StopDoc, RouteRef,
 * AgencyRef): what store.ts's loadCatalog fills and every query module reads. Holds the open
 * DuckDB database until the last request using it releases it.
 */
import type { License } from "../../pipeline/schema/manifest.ts";
import type { Database } from "./db.ts";
import { DepartureIndex } from "./departure-index.ts";
import { StopSpatialIndex } from "./spatial.ts";
import { TripIndex } from "./tripindex.ts";
import { emptyFeedDirectory, type FeedDirectory } from "./feed-directory.ts";

export interface VersionInfo {
  id: number;
  sha1: string;
  feedId: number;
  feedOnestopId: string;
  fetchedAt: string;
  timezone: string;
  /** service window, YYYY-MM-DD, or null when the version has no service at all */
  serviceStart: string | null;
  serviceEnd: string | null;
  bestWeekStart: string | null;
  active: boolean;
  license: License;
  /** absolute path of the version's stop_times.parquet */
  stopTimesPath: string | null;
}

export interface StopDoc {
  id: number;
  fv: number;
  stopId: string;
  stopName: string | null;
  onestopId: string;
  lat: number | null;
  lon: number | null;
  locationType: number;
  /** stops.id of its parent station, or null */
  parentRef: number | null;
  /** stop_timezone (the parent station's when empty), or null */
  timezone: string | null;
  /** JSON object of every field but geometry, without its closing brace */
  propsOpen: string;
  /** GeoJSON Point text, or "null" */
  geometry: string;
  /** the stop object inside a StopTime */
  ref: string;
}

export interface RouteRef {
  id: number;
  fv: number;
  routeId: string;
  onestopId: string | null;
  /** GTFS agency_id of the route's agency (realtime alerts name agencies by it) */
  agencyId: string | null;
  /** agencies.id of the route's agency, and that agency's Onestop ID */
  agencyRef: number | null;
  agencyOnestopId: string | null;
  routeType: number | null;
  shortName: string | null;
  longName: string | null;
  /** the Route document (GET /routes) without route_stops and geometry, JSON without its closing brace */
  propsOpen: string;
}

export interface AgencyRef {
  id: number;
  fv: number;
  agencyId: string;
  onestopId: string | null;
}

/** feed Onestop IDs are case-insensitive; GTFS ids are not */
export const keyOf = (feed: string, id: string) => `${feed.toLowerCase()}\u0000${id}`;

/**
 * Ids by (feed Onestop ID, GTFS id), feed ids case-insensitive, GTFS ids not: a map per feed, so
 * that a lookup (a stop key on every request) builds no key string to hash.
 */
export class FeedKeyIndex {
  private readonly byFeed = new Map<string, Map<string, number[]>>();

  add(feed: string, gtfsId: string, id: number): void {
    const f = feed.toLowerCase();
    let m = this.byFeed.get(f);
    if (!m) this.byFeed.set(f, (m = new Map()));
    const a = m.get(gtfsId);
    if (a) a.push(id);
    else m.set(gtfsId, [id]);
  }

  get(feed: string, gtfsId: string): number[] | undefined {
    return this.byFeed.get(feed.toLowerCase())?.get(gtfsId);
  }
}

export class CatalogData {
  readonly versions = new Map<number, VersionInfo>();
  readonly versionBySha = new Map<string, VersionInfo>();
  /** feed onestop_id → its versions */
  readonly versionsByFeed = new Map<string, VersionInfo[]>();
  readonly stops = new Map<number, StopDoc>();
  readonly stopsByFeedKey = new FeedKeyIndex();
  readonly stopsByOnestop = new Map<string, number[]>();
  readonly routes = new Map<number, RouteRef>();
  readonly routesByFeedKey = new FeedKeyIndex();
  readonly routesByOnestop = new Map<string, number[]>();
  /** every route id, ascending (the routes list's order) */
  routeOrder: Int32Array = new Int32Array(0);
  readonly agencies = new Map<number, AgencyRef>();
  readonly agenciesByFeedKey = new FeedKeyIndex();
  readonly agenciesByOnestop = new Map<string, number[]>();
  /** route id → the stop ids it serves (route_stops), ascending; stop id → the route ids serving it, ascending */
  readonly routeStops = new Map<number, Int32Array>();
  readonly stopRoutes = new Map<number, Int32Array>();
  /** station (or any parent) id → its child stop ids, ascending */
  readonly childrenOf = new Map<number, number[]>();
  /** route id → its most used shapes (ShapeIndex numbers), most used first (route-list.ts) */
  routeShapes = new Map<number, Int32Array>();
  /** the stops' departures in time order (departures.ts) */
  departures: DepartureIndex = new DepartureIndex();
  /** trips, calendars, shapes and stop_times (see tripindex.ts) */
  trips: TripIndex = new TripIndex();
  /** stops with coordinates in a k-d tree, and the stop patterns visiting each (see spatial.ts) */
  spatial: StopSpatialIndex = new StopSpatialIndex([]);
  /** the feeds, feed versions, agencies and operators as documents (feed-docs.ts) */
  directory: FeedDirectory = emptyFeedDirectory();
  private refs = 1;
  private closed = false;

  constructor(
    readonly db: Database,
    readonly generation: number,
    readonly loadedAt: number,
  ) {}

  get activeVersionIds(): number[] {
    return [...this.versions.values()].filter((v) => v.active).map((v) => v.id);
  }

  private versionSets: [ReadonlySet<number>, ReadonlySet<number>] | null = null;
  /** The ids of the active versions, or of every version (`all`); built on first use (the versions do not change once loaded). */
  versionIdSet(all: boolean): ReadonlySet<number> {
    this.versionSets ??= [new Set(this.activeVersionIds), new Set(this.versions.keys())];
    return this.versionSets[all ? 1 : 0];
  }

  stopsByFeed(feed: string, stopId: string): number[] {
    return this.stopsByFeedKey.get(feed, stopId) ?? [];
  }
  routesByFeed(feed: string, routeId: string): number[] {
    return this.routesByFeedKey.get(feed, routeId) ?? [];
  }
  agenciesByFeed(feed: string, agencyId: string): number[] {
    return this.agenciesByFeedKey.get(feed, agencyId) ?? [];
  }

  /** Keep the dataset open while a request (or stream) uses it; call the returned release once. */
  retain(): () => void {
    this.refs++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.unref();
    };
  }
  /** Drop the loader's own reference (on swap or close); the DB closes when the last user leaves. */
  retire(): void {
    this.unref();
  }
  private unref() {
    if (--this.refs === 0 && !this.closed) {
      this.closed = true;
      this.db.close();
    }
  }
}
