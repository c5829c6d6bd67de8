/**
 * One loaded dataset: a DuckDB in-memory instance holding every feed version of the manifest
 * (active or not, so feed_version_sha1 can reach old ones) for the stop and stop-pattern filters,
 * JS indexes for key resolution and single-stop lookups, and the JS trip index (tripindex.ts:
 * trips, calendars, shapes, stop_times) that answers the trip endpoints.
 *
 * Why a JS index for stops: a DuckDB round trip costs ~0.3-0.6 ms of fixed overhead, which caps a
 * 2-core box well below 5,000 lookups/s. Stop documents are therefore rendered once, by DuckDB, at
 * load time; lists filter in DuckDB (which returns ids) and reuse those documents, except the
 * geographic searches (bbox, lat/lon/radius, the trips lat/lon filter), which the in-memory spatial
 * index built here answers (spatial.ts).
 *
 * For the routes and departures endpoints it also holds: the route documents (rendered by DuckDB at
 * load, like the stops'), route_stops both ways, each route's most used shapes (route-list.ts),
 * the agencies by key, each station's children, and the departure index (departures.ts: every
 * stop's stop_times in time order).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { TABLE_BY_NAME } from "../../pipeline/schema/catalog.ts";
import { type LicenseValue, type Manifest, readManifest, UNKNOWN_LICENSE } from "../../pipeline/schema/manifest.ts";
import type { Logger } from "../feature.ts";
import { Database, Params } from "./db.ts";
import { sqlString } from "../../shared/sql.ts";
import { LICENSE_FIELDS } from "./license.ts";
import { LOAD_DERIVED_SQL } from "./sql.ts";
import { StopSpatialIndex } from "./spatial.ts";
import { loadTripIndex } from "./tripindex.ts";
import { DepartureIndex } from "./departure-index.ts";
import { catalogIndexParts, departuresFromFile, IndexFile, indexKey, indexPath, removeOtherIndexFiles, shapesFromFile, stopTimesFromFile, writeIndexFile } from "./index-cache.ts";
import { CatalogData, type RouteRef, type StopDoc, type VersionInfo, type AgencyRef } from "./data.ts";

export { CatalogData, type VersionInfo, type StopDoc, type RouteRef } from "./data.ts";
import { chooseRouteShapes } from "./route-list.ts";
import { buildFeedDirectory } from "./feed-docs.ts";

/**
 * stop_times are loaded into the JS trip index (packed typed arrays, ~11 bytes a row on the MTA data) unless the dataset is
 * very large; then each version's Parquet file is read per request, pruned by trip_ref. At 150 M rows that is ~1.7 GB, plus
 * the departure index's 4 bytes a row (and 8 more while it is built): within the 8 GB a country-sized server is given.
 */
const STOP_TIMES_IN_MEMORY_MAX_ROWS = 150_000_000;
/** Tables copied into DuckDB. calendars and frequencies only until the trip index is built. */
const MEMORY_TABLES = ["feed_version", "agencies", "routes", "stops", "calendars", "frequencies", "stop_patterns", "route_stops", "agency_stops"];
/** DuckDB tables only needed while loading (stop_patterns: read into the spatial index) */
const LOAD_ONLY_TABLES = ["calendars", "frequencies", "calendar_json", "trip_freq", "route_json", "stop_docs", "route_docs", "fv_json", "stop_patterns"];

function pushTo<K, V>(m: Map<K, V[]>, k: K, v: V) {
  const a = m.get(k);
  if (a) a.push(v);
  else m.set(k, [v]);
}

function parquetFiles(dataDir: string, m: Manifest, table: string): string[] {
  return m.versions.map((v) => join(dataDir, v.path, `${table}.parquet`)).filter((p) => existsSync(p));
}

/**
 * The files every feed version has had since the first import: a listed version without one of them
 * is not all there yet (a replica's folder synced with the manifest before the data, or a copy still
 * arriving), and loading it would serve the manifest's generation without that version.
 */
const VERSION_CORE_FILES = ["feed_version.parquet", "stops.parquet", "routes.parquet", "trips.parquet", "stop_times.parquet"];

/** A version the manifest lists is not all in the folder yet (see VERSION_CORE_FILES). */
export class IncompleteVersionError extends Error {}

/** Throws IncompleteVersionError when a version the manifest lists is not complete in the folder. */
function checkVersionsPresent(dataDir: string, m: Manifest): void {
  for (const v of m.versions) {
    const missing = VERSION_CORE_FILES.filter((f) => !existsSync(join(dataDir, v.path, f)));
    if (missing.length) throw new IncompleteVersionError(`feed version ${v.sha1} listed by the manifest is incomplete in ${join(dataDir, v.path)} (missing ${missing.join(", ")}): its files have not arrived yet`);
  }
}

/**
 * Load every version listed in the manifest into a fresh DuckDB instance: the tables copied in,
 * the versions with their manifest state, the derived tables and the trip index, then the JS
 * indexes (agencies, routes, route_stops, stops, departures, spatial).
 */
export async function loadCatalog(dataDir: string, log: Logger, opts: { threads?: number; poolSize?: number; indexDir?: string } = {}): Promise<CatalogData> {
  const started = Date.now();
  const manifest = readManifest(dataDir);
  checkVersionsPresent(dataDir, manifest);
  const db = await Database.create({ threads: opts.threads ?? 2, poolSize: opts.poolSize ?? 4 });
  try {
    const data = new CatalogData(db, manifest.generation, started);
    // how long each stage took (ms), for the "catalog loaded" log line
    const stages: Record<string, number> = {};
    let mark = Date.now();
    const stage = (name: string) => {
      const now = Date.now();
      stages[name] = now - mark;
      mark = now;
    };
    await copyTables(db, dataDir, manifest);
    stage("tables");
    await loadVersions(db, data, dataDir, manifest);
    for (const stmt of LOAD_DERIVED_SQL) await db.exec(stmt);
    stage("versions_derived");
    const stopTimeRows = manifest.versions.reduce((n, v) => n + (v.counts?.stop_times ?? 0), 0);
    // the index cache of this content (index-cache.ts): mapped when present and built for these trips
    const indexDir = opts.indexDir ?? join(dataDir, "indexes");
    const key = indexKey(manifest);
    const cachePath = indexPath(indexDir, key);
    const cache = IndexFile.open(cachePath, key);
    let fromCache = false;
    let shapesMapped = false;
    data.trips = await loadTripIndex(
      db,
      {
        trips: parquetFiles(dataDir, manifest, "trips"),
        shapes: parquetFiles(dataDir, manifest, "shapes"),
        stopTimes: stopTimeRows <= STOP_TIMES_IN_MEMORY_MAX_ROWS ? parquetFiles(dataDir, manifest, "stop_times") : null,
      },
      sqlString,
      (ix) => {
        const st = cache ? stopTimesFromFile(cache, ix) : null;
        fromCache = st !== null;
        return st;
      },
      (shapes) => (shapesMapped = cache !== null && shapesFromFile(cache, shapes)),
    );
    stage("trip_index");

    // JS indexes.
    await indexAgencies(db, data);
    await indexRoutes(db, data);
    await indexRouteStops(db, data);
    data.routeShapes = chooseRouteShapes(data.trips);
    const points = await indexStops(db, data);
    for (const list of data.childrenOf.values()) list.sort((a, b) => a - b);
    stage("agencies_routes_stops");
    // departures: every stop's stop_times in time order (from the in-memory stop_times)
    data.departures = fromCache ? departuresFromFile(cache!, data.trips) : DepartureIndex.build(data.trips);
    if (!fromCache) writeCache(log, cachePath, key, data);
    removeOtherIndexFiles(indexDir, cachePath);
    stage("departures");
    // Spatial index: the stops, then the stop patterns that visit each (the trips lat/lon filter).
    data.spatial = new StopSpatialIndex(points);
    await addPatternStops(db, data.spatial);
    stage("spatial");
    data.directory = await buildFeedDirectory(db, data, dataDir, manifest);
    for (const t of LOAD_ONLY_TABLES) await db.exec(`DROP TABLE IF EXISTS ${t}`);
    stage("feed_directory");
    logLoaded(log, data, manifest, started, { stopTimes: fromCache, shapes: shapesMapped }, stages);
    return data;
  } catch (e) {
    db.close();
    throw e;
  }
}

/** The stop_times and departure indexes into the cache file (a failure is logged: the next load builds again). */
function writeCache(log: Logger, path: string, key: string, data: CatalogData): void {
  const parts = catalogIndexParts(data.trips, data.departures);
  if (!parts) return;
  try {
    writeIndexFile(path, key, parts.arrays, parts.meta);
  } catch (e) {
    log.warn("catalog index cache not written", { path, error: String((e as Error)?.message ?? e) });
  }
}

/**
 * Write the catalog index cache of the dataset's current content (what the `import` command runs
 * at its end, so that a server started after it maps the indexes instead of building them): a
 * full catalog load, which writes the file when it is not there yet. Nothing to do without a
 * manifest or versions.
 */
export async function buildCatalogIndexes(dataDir: string, log: Logger, indexDir?: string): Promise<void> {
  if (!existsSync(join(dataDir, "manifest.json")) || readManifest(dataDir).versions.length === 0) return;
  const data = await loadCatalog(dataDir, log, { indexDir });
  data.retire();
}

/** The MEMORY_TABLES created from the catalog schema and filled from every version's Parquet file. */
async function copyTables(db: Database, dataDir: string, manifest: Manifest): Promise<void> {
  for (const name of MEMORY_TABLES) {
    const def = TABLE_BY_NAME.get(name);
    if (!def) throw new Error(`catalog schema has no table ${name}`);
    const cols = def.columns.map((c) => `"${c.name}" ${c.type}`).join(", ");
    await db.exec(`CREATE TABLE "${name}" (${cols})`);
    const files = parquetFiles(dataDir, manifest, name);
    if (files.length) {
      const source = `read_parquet([${files.map(sqlString).join(", ")}], union_by_name = true)`;
      // a column no file has (versions imported before it existed, e.g. stops.adm0_name) reads as null
      const present = new Set((await db.rows({ sql: `SELECT column_name FROM (DESCRIBE SELECT * FROM ${source})`, values: [] })).map((r) => String(r[0])));
      const names = def.columns.map((c) => (present.has(c.name) ? `"${c.name}"` : `NULL::${c.type} AS "${c.name}"`)).join(", ");
      const order = def.sortedBy ? ` ORDER BY ${def.sortedBy}` : "";
      await db.exec(`INSERT INTO "${name}" SELECT ${names} FROM ${source}${order}`);
    }
  }
}

/** The versions: metadata from feed_version.parquet, state and license from the manifest (data.versions and the feed_state table). */
async function loadVersions(db: Database, data: CatalogData, dataDir: string, manifest: Manifest): Promise<void> {
  const fvRows = await db.all({
    sql: `SELECT id, sha1, feed_id, feed_onestop_id, default_timezone AS tz, service_start_date::VARCHAR AS ss,
            service_end_date::VARCHAR AS se, best_week_start::VARCHAR AS bw FROM feed_version`,
    values: [],
  });
  const feedBySlug = new Map(manifest.feeds.map((f) => [f.onestop_id, f]));
  const entryBySha = new Map(manifest.versions.map((v) => [v.sha1, v]));
  await db.exec(
    `CREATE TABLE feed_state (feed_version_id INTEGER, active BOOLEAN, fetched_at VARCHAR, ${LICENSE_FIELDS.map((f) => `license_${f} VARCHAR`).join(", ")})`,
  );
  for (const r of fvRows) {
    const sha1 = String(r.sha1);
    const feed = feedBySlug.get(String(r.feed_onestop_id));
    const entry = entryBySha.get(sha1);
    const license = feed?.license ?? UNKNOWN_LICENSE;
    const v: VersionInfo = {
      id: Number(r.id),
      sha1,
      feedId: Number(feed?.id ?? r.feed_id),
      feedOnestopId: String(r.feed_onestop_id),
      fetchedAt: entry?.fetched_at ?? "",
      timezone: String(r.tz ?? "UTC") || "UTC",
      serviceStart: (r.ss as string | null) ?? null,
      serviceEnd: (r.se as string | null) ?? null,
      bestWeekStart: (r.bw as string | null) ?? null,
      active: feed?.active === sha1,
      license: { ...UNKNOWN_LICENSE, ...license },
      stopTimesPath: entry && existsSync(join(dataDir, entry.path, "stop_times.parquet")) ? join(dataDir, entry.path, "stop_times.parquet") : null,
    };
    data.versions.set(v.id, v);
    data.versionBySha.set(v.sha1, v);
    pushTo(data.versionsByFeed, v.feedOnestopId, v);
    const p = new Params();
    const vals = [v.id, v.active, v.fetchedAt, ...LICENSE_FIELDS.map((f) => v.license[f] as LicenseValue)].map((x) => p.add(x));
    await db.all(p.query(`INSERT INTO feed_state VALUES (${vals.join(", ")})`));
  }
}

/** The agencies by key, by feed and agency_id, and by Onestop id. */
async function indexAgencies(db: Database, data: CatalogData): Promise<void> {
  const agencyRows = await db.rows({ sql: `SELECT id, feed_version_id, agency_id, onestop_id FROM agencies`, values: [] });
  for (const [id, fv, agencyId, onestop] of agencyRows) {
    const v = data.versions.get(Number(fv));
    if (!v) continue;
    const a: AgencyRef = { id: Number(id), fv: v.id, agencyId: String(agencyId ?? ""), onestopId: (onestop as string | null) || null };
    data.agencies.set(a.id, a);
    data.agenciesByFeedKey.add(v.feedOnestopId, a.agencyId, a.id);
    if (a.onestopId) pushTo(data.agenciesByOnestop, a.onestopId, a.id);
  }
}

/** The routes by key (their documents rendered by DuckDB), by feed and route_id, and by Onestop id; the routes in key order. */
async function indexRoutes(db: Database, data: CatalogData): Promise<void> {
  const routeRows = await db.rows({
    sql: `SELECT r.id, r.feed_version_id, r.route_id, r.onestop_id, a.agency_id, r.agency_ref, a.onestop_id, r.route_type,
            nullif(r.route_short_name, ''), nullif(r.route_long_name, ''), d.props
          FROM routes r LEFT JOIN agencies a ON a.id = r.agency_ref JOIN route_docs d ON d.id = r.id ORDER BY r.id`,
    values: [],
  });
  const routeIds: number[] = [];
  for (const [id, fv, routeId, onestop, agencyId, agencyRef, agencyOnestop, routeType, shortName, longName, props] of routeRows) {
    const v = data.versions.get(Number(fv));
    if (!v) continue;
    const r: RouteRef = {
      id: Number(id), fv: v.id, routeId: String(routeId), onestopId: (onestop as string | null) ?? null, agencyId: (agencyId as string | null) ?? null,
      agencyRef: agencyRef == null ? null : Number(agencyRef), agencyOnestopId: (agencyOnestop as string | null) || null,
      routeType: routeType == null ? null : Number(routeType), shortName: (shortName as string | null) ?? null, longName: (longName as string | null) ?? null,
      propsOpen: String(props).slice(0, -1),
    };
    data.routes.set(r.id, r);
    routeIds.push(r.id);
    data.routesByFeedKey.add(v.feedOnestopId, r.routeId, r.id);
    if (r.onestopId) pushTo(data.routesByOnestop, r.onestopId, r.id);
  }
  data.routeOrder = Int32Array.from(routeIds).sort();
}

/** Which stops each route serves, both ways. */
async function indexRouteStops(db: Database, data: CatalogData): Promise<void> {
  const byRoute = new Map<number, number[]>();
  const byStop = new Map<number, number[]>();
  for await (const rows of db.stream({ sql: `SELECT DISTINCT route_ref, stop_ref FROM route_stops WHERE route_ref IS NOT NULL AND stop_ref IS NOT NULL`, values: [] })) {
    for (const [route, stop] of rows) {
      pushTo(byRoute, Number(route), Number(stop));
      pushTo(byStop, Number(stop), Number(route));
    }
  }
  for (const [r, list] of byRoute) data.routeStops.set(r, Int32Array.from(list).sort());
  for (const [st, list] of byStop) data.stopRoutes.set(st, Int32Array.from(list).sort());
}

/** The stop documents by key, by feed and stop_id, by Onestop id, and each station's children; returns the points of the stops with coordinates. */
async function indexStops(db: Database, data: CatalogData): Promise<[number, number, number][]> {
  const points: [number, number, number][] = [];
  for await (const rows of db.stream({ sql: `SELECT id, feed_version_id, stop_id, stop_name, onestop_id, stop_lat, stop_lon, location_type, parent_ref, timezone, props FROM stop_docs`, values: [] })) {
    for (const [id, fv, stopId, stopName, onestop, lat, lon, locationType, parentRef, timezone, props] of rows) {
      const v = data.versions.get(Number(fv));
      if (!v) continue;
      const doc: StopDoc = {
        id: Number(id),
        fv: v.id,
        stopId: String(stopId),
        stopName: (stopName as string | null) ?? null,
        onestopId: String(onestop ?? ""),
        lat: lat == null ? null : Number(lat),
        lon: lon == null ? null : Number(lon),
        locationType: Number(locationType ?? 0),
        parentRef: parentRef == null ? null : Number(parentRef),
        timezone: (timezone as string | null) ?? null,
        propsOpen: String(props).slice(0, -1),
        geometry: lat == null || lon == null ? "null" : `{"type":"Point","coordinates":[${Number(lon)},${Number(lat)}]}`,
        ref: "",
      };
      doc.ref = `{"id":${doc.id},"stop_id":${JSON.stringify(doc.stopId)},"stop_name":${JSON.stringify(doc.stopName)},"geometry":${doc.geometry},"alerts":[]}`;
      data.stops.set(doc.id, doc);
      if (doc.lat !== null && doc.lon !== null) points.push([doc.id, doc.lat, doc.lon]);
      data.stopsByFeedKey.add(v.feedOnestopId, doc.stopId, doc.id);
      if (doc.onestopId) pushTo(data.stopsByOnestop, doc.onestopId, doc.id);
      if (doc.parentRef !== null) pushTo(data.childrenOf, doc.parentRef, doc.id);
    }
  }
  return points;
}

/** The stop patterns that visit each stop, into the spatial index (the trips lat/lon filter). */
async function addPatternStops(db: Database, spatial: StopSpatialIndex): Promise<void> {
  const patternSql = `SELECT feed_version_id, stop_pattern_id, unnest(stop_refs) AS stop_ref FROM stop_patterns WHERE stop_pattern_id IS NOT NULL`;
  for await (const rows of db.stream({ sql: patternSql, values: [] })) {
    for (const [fv, pattern, stopRef] of rows) if (stopRef != null) spatial.addPatternStop(Number(fv), Number(pattern), Number(stopRef));
  }
  spatial.finishPatterns();
}

/** The "catalog loaded" log line: counts, index sizes and load time. */
function logLoaded(log: Logger, data: CatalogData, manifest: Manifest, started: number, mapped: { stopTimes: boolean; shapes: boolean }, stages: Record<string, number>): void {
  log.info("catalog loaded", {
    index_cache: mapped.stopTimes ? "mapped" : "built",
    index_cache_shapes: mapped.shapes ? "mapped" : "read",
    generation: manifest.generation,
    versions: data.versions.size,
    stops: data.stops.size,
    routes: data.routes.size,
    trips: data.trips.n,
    stop_times: data.trips.stopTimes ? data.trips.stopTimes.offsets[data.trips.n] : "parquet",
    trip_index_mb: Math.round((data.trips.stopTimes?.bytes ?? 0) / 1e6 + data.trips.shapes.bytes / 1e6 + (data.trips.n * 40) / 1e6),
    spatial_index_mb: Math.round(data.spatial.bytes / 1e5) / 10,
    departure_index_mb: Math.round(data.departures.bytes / 1e5) / 10,
    ms: Date.now() - started,
    stages_ms: stages,
  });
}
