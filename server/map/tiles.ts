/**
 * Vector tiles of the active dataset's stops and stations, in the layer names and properties of
 * OpenTripPlanner 2's vector tile server (so `@opentripplanner/otp2-tile-overlay` draws them):
 *
 * - `GET /tiles/{layers}/{z}/{x}/{y}.pbf`: a Mapbox Vector Tile; `{layers}` is a comma list of
 *   `stops`, `stations`, `entrances`, `routes`, `streets`. `stops` features carry `gtfsId` (feed
 *   Onestop id:stop_id), `name`, `code`, `platform`, `desc`, `parentStation`, `type` (OTP2's
 *   TransitMode name of the route_type most of its routes have) and `routes` (JSON list of
 *   `{gtfsType, shortName, color}`); `stations` features `gtfsId`, `code`, `name`, `type` (their
 *   platforms' modes, comma-joined), `stops` (JSON list of their platforms' gtfsIds), `routes` (JSON
 *   list of `{mode, gtfsType, shortName}`). `routes`: LineStrings, each route's most used shape (the shape most of its trips use,
 *   ties by shape_id; generated shapes count, so a route without shapes.txt is drawn through its
 *   stops; a route with no shaped trip is left out), clipped to the tile plus a buffer and simplified
 *   (Douglas-Peucker, 1 tile unit); properties `gtfsId` (feed Onestop id:route_id), `shortName`,
 *   `longName`, `type` (route_type), `color`, `textColor`. `entrances` (ours, not OTP2's): entrances,
 *   generic nodes and boarding areas (location_type 2, 3, 4) with `gtfsId`, `name`, `parentStation`,
 *   `locationType`. `streets`: the active street dataset's
 *   map background (STREET_LAYOUT.map), major roads from zoom MAJOR_STREETS_MIN_ZOOM, all from STREETS_MIN_ZOOM on, clipped and simplified like
 *   the routes, properties `class` (major, minor, path) and `name` (the way's name, where it has one).
 *   Basemap layers from the street dataset's STREET_LAYOUT.base (base-layers.ts): `places` (Points,
 *   `name`, `class`, `rank`; thinned below THIN_ZOOM), `water`, `parks` (Polygons, `class`, `name`),
 *   `buildings` (Polygons, `class`, from BUILDINGS_MIN_ZOOM on), `waterways` (LineStrings, `class`, `name`).
 * - `GET /tiles/{layers}/tilejson.json`: the TileJSON 3.0 of those layers.
 *
 * The points are read once per dataset (DuckDB, the catalog's stops, route_stops and routes
 * Parquet); a tile is cut from them on first request and kept (up to TILE_CACHE tiles).
 * Bad input: an unknown layer, z outside 0..22, x/y outside the zoom's grid or not integers → 400;
 * a tile with no data is an empty (zero-byte) tile.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { DuckDBDoubleVector, DuckDBInstance, DuckDBIntegerVector, JSDuckDBValueConverter } from "@duckdb/node-api";
import { activeStreets, activeVersions, readManifest } from "../../pipeline/schema/manifest.ts";
import { STREET_LAYOUT } from "../../pipeline/schema/street.ts";
import { sqlString } from "../../shared/sql.ts";
import { transitMode } from "../../shared/transit-modes.ts";
import { invalidParameter } from "../errors.ts";
import { encodeTile, MVT_EXTENT, type MvtLayer, type MvtLine, type MvtPoint, type MvtPolygon, type WorldPath, worldPath, worldPathOf, worldXY } from "./mvt.ts";
import { AREA_LAYERS, type AreaLayerName, type BaseData, clipRing, emptyBase, readBaseData } from "./base-layers.ts";

export const TILE_LAYERS = ["stops", "stations", "entrances", "routes", "streets", "places", "water", "waterways", "parks", "buildings"] as const;
/** the buildings layer is empty below this zoom */
export const BUILDINGS_MIN_ZOOM = 14;
/** below THIN_ZOOM the places layer keeps one place per PLACE_CELL × PLACE_CELL tile units: the best ranked */
const PLACE_CELL = 128;
/** the streets layer has only major roads below this zoom (a city's roads would make huge, unreadable tiles) */
export const STREETS_MIN_ZOOM = 12;
/** and nothing below this one */
export const MAJOR_STREETS_MIN_ZOOM = 8;
type PointLayerName = "stops" | "stations" | "entrances";
export type TileLayerName = (typeof TILE_LAYERS)[number];
export const MAX_ZOOM = 22;
/** encoded tiles kept in memory */
const TILE_CACHE = 20_000;
/** how far past its edge a tile takes points (tile units), so symbols cut by the edge draw whole */
const BUFFER = 64;

interface TilePoint {
  wx: number;
  wy: number;
  props: MvtPoint["props"];
}

interface TileLine extends WorldPath {
  props: MvtLine["props"];
  /** the line is left out of tiles below this zoom */
  minZoom?: number;
}

/** below this zoom the stops layer is thinned: one stop per THIN_CELL × THIN_CELL tile units */
export const THIN_ZOOM = 12;
const THIN_CELL = 64;
/** Douglas-Peucker tolerance, tile units */
const SIMPLIFY = 1;

export interface TileSet {
  generation: number;
  points: Record<PointLayerName, TilePoint[]>;
  lines: { routes: TileLine[]; streets: TileLine[] };
  /** the street dataset's basemap (places, water, waterways, parks, buildings) */
  base: BaseData;
  /** [w, s, e, n] of all points, or null */
  bounds: [number, number, number, number] | null;
  cache: Map<string, Uint8Array>;
}

/** Reads the stops and stations of the dataset in `dataDir` as its manifest is now. */
export async function buildTileSet(dataDir: string): Promise<TileSet> {
  const m = readManifest(dataDir);
  const versions = activeVersions(m).filter((v) => existsSync(join(dataDir, v.path, "stops.parquet")));
  const points: TileSet["points"] = { stops: [], stations: [], entrances: [] };
  const lines: TileSet["lines"] = { routes: [], streets: readStreetLines(dataDir, m) };
  let base = emptyBase();
  try {
    base = readBaseData(dataDir, m);
  } catch {
    // an unreadable basemap file: the basemap layers stay empty, the rest serves
  }
  if (!versions.length) return { generation: m.generation, points, lines, base, bounds: null, cache: new Map() };
  const files = (table: string) => `[${versions.map((v) => sqlString(join(dataDir, v.path, `${table}.parquet`))).join(", ")}]`;
  const have = (table: string) => versions.every((v) => existsSync(join(dataDir, v.path, `${table}.parquet`)));
  const db = await DuckDBInstance.create(":memory:", { threads: "1" });
  const conn = await db.connect();
  try {
    const rows = await readStopRows(conn, files, have);
    const bounds = addStopPoints(points, rows);
    stationsAsOtp(points);
    if (have("trips") && have("shapes") && have("routes")) lines.routes = await readRouteLines(conn, files);
    // the thinning keeps the first stop of a cell: the one with the most routes (then gtfsId)
    const routeCount = (p: TilePoint) => (String(p.props.routes).match(/"gtfsType"/g) ?? []).length;
    points.stops = points.stops.map((p) => [routeCount(p), p] as const).sort((a, b) => b[0] - a[0]).map(([, p]) => p);
    return { generation: m.generation, points, lines, base, bounds, cache: new Map() };
  } finally {
    conn.closeSync();
    db.closeSync();
  }
}

/** The stops, stations and entrances of the versions, with the routes serving each (a station: its platforms'), by GTFS id. */
async function readStopRows(conn: Awaited<ReturnType<DuckDBInstance["connect"]>>, files: (t: string) => string, have: (t: string) => boolean): Promise<Record<string, unknown>[]> {
  const routesSql = have("route_stops") && have("routes")
    ? `SELECT rs.feed_version_id, rs.stop_ref,
         to_json(list({gtfsType: r.route_type, shortName: coalesce(r.route_short_name, r.route_long_name, r.route_id), color: r.route_color} ORDER BY r.route_short_name)) AS routes,
         mode(r.route_type) AS type
       FROM read_parquet(${files("route_stops")}) rs JOIN read_parquet(${files("routes")}) r ON r.id = rs.route_ref AND r.feed_version_id = rs.feed_version_id
       GROUP BY ALL`
    : "SELECT NULL::INTEGER feed_version_id, NULL::INTEGER stop_ref, NULL::VARCHAR routes, NULL::INTEGER type WHERE false";
  return rowObjects(conn, `
    WITH fv AS (SELECT id, feed_onestop_id FROM read_parquet(${files("feed_version")})),
    served AS (${routesSql}),
    -- a station takes its platforms' routes
    st AS (SELECT s.feed_version_id, s.parent_ref AS stop_ref, to_json(flatten(list(from_json(sv.routes, '["json"]')))) AS routes, mode(sv.type) AS type
           FROM read_parquet(${files("stops")}) s JOIN served sv ON sv.stop_ref = s.id AND sv.feed_version_id = s.feed_version_id
           WHERE s.parent_ref IS NOT NULL GROUP BY ALL)
    SELECT fv.feed_onestop_id || ':' || s.stop_id AS gtfs_id, s.stop_name, s.stop_code, s.platform_code, s.stop_desc,
           CASE WHEN s.parent_station IS NOT NULL AND s.parent_station <> '' THEN fv.feed_onestop_id || ':' || s.parent_station END AS parent,
           coalesce(s.location_type, 0) AS location_type, s.stop_lon, s.stop_lat,
           coalesce(sv.routes, st.routes::VARCHAR) AS routes, coalesce(sv.type, st.type) AS type
    FROM read_parquet(${files("stops")}) s JOIN fv ON fv.id = s.feed_version_id
    LEFT JOIN served sv ON sv.stop_ref = s.id AND sv.feed_version_id = s.feed_version_id
    LEFT JOIN st ON s.location_type = 1 AND st.stop_ref = s.id AND st.feed_version_id = s.feed_version_id
    WHERE s.stop_lat IS NOT NULL AND s.stop_lon IS NOT NULL AND coalesce(s.location_type, 0) IN (0, 1, 2, 3, 4)
    ORDER BY gtfs_id`);
}

/**
 * The rows of `sql` as objects of JavaScript values, read and converted one chunk (2,048 rows) at a
 * time: the server's requests are served between chunks. Converting a whole large result at once
 * (runAndReadAll + getRowObjectsJS) held the event loop for 2-4 s at six copies of New York.
 */
async function rowObjects(conn: Awaited<ReturnType<DuckDBInstance["connect"]>>, sql: string): Promise<Record<string, unknown>[]> {
  const result = await conn.stream(sql);
  const names = result.columnNames();
  const out: Record<string, unknown>[] = [];
  for (;;) {
    const chunk = await result.fetchChunk();
    if (!chunk || chunk.rowCount === 0) return out;
    for (const row of chunk.convertRows(JSDuckDBValueConverter)) {
      const o: Record<string, unknown> = {};
      for (let i = 0; i < names.length; i++) o[names[i]!] = row[i];
      out.push(o);
    }
  }
}

/** The rows as points of the stops, stations and entrances layers; the [w, s, e, n] of all, or null. */
function addStopPoints(points: TileSet["points"], rows: Record<string, unknown>[]): [number, number, number, number] | null {
  let w = Infinity, s = Infinity, e = -Infinity, n = -Infinity;
  for (const r of rows) {
    const lon = Number(r.stop_lon), lat = Number(r.stop_lat);
    const [wx, wy] = worldXY(lon, lat);
    const str = (v: unknown) => (v === null || v === undefined || v === "" ? null : String(v));
    // OTP2's `type`: the TransitMode name (BUS, SUBWAY, ...) of the route_type most of its routes have
    const type = r.type === null || r.type === undefined ? null : transitMode(Number(r.type));
    const routes = str(r.routes) ?? "[]";
    const locationType = Number(r.location_type);
    if (locationType >= 2) {
      points.entrances.push({ wx, wy, props: { gtfsId: String(r.gtfs_id), name: str(r.stop_name), parentStation: str(r.parent), locationType } });
    } else if (locationType === 1) {
      points.stations.push({ wx, wy, props: { gtfsId: String(r.gtfs_id), code: str(r.stop_code), name: str(r.stop_name), type, routes } });
    } else {
      points.stops.push({ wx, wy, props: { gtfsId: String(r.gtfs_id), name: str(r.stop_name), code: str(r.stop_code), platform: str(r.platform_code), desc: str(r.stop_desc), parentStation: str(r.parent), type, routes } });
    }
    w = Math.min(w, lon); e = Math.max(e, lon); s = Math.min(s, lat); n = Math.max(n, lat);
  }
  return rows.length ? [w, s, e, n] : null;
}

/**
 * Stations as OTP2's tile layer has them: `type`, the distinct TransitModes of their platforms'
 * routes joined by commas ("SUBWAY,BUS"); `stops`, their platforms' gtfsIds (JSON list); `routes`,
 * `[{mode, gtfsType, shortName}]`, each route once.
 */
function stationsAsOtp(points: TileSet["points"]): void {
  const children = new Map<string, string[]>();
  for (const p of points.stops) {
    const parent = p.props.parentStation;
    if (typeof parent !== "string") continue;
    if (!children.has(parent)) children.set(parent, []);
    children.get(parent)!.push(String(p.props.gtfsId));
  }
  for (const st of points.stations) {
    const seen = new Set<string>();
    const routes: { mode: string | null; gtfsType: number; shortName?: string }[] = [];
    for (const r of JSON.parse(String(st.props.routes ?? "[]")) as { gtfsType: number; shortName?: string | null }[]) {
      const key = `${r.gtfsType}/${r.shortName ?? ""}`;
      if (seen.has(key)) continue;
      seen.add(key);
      routes.push({ mode: transitMode(r.gtfsType), gtfsType: r.gtfsType, ...(r.shortName ? { shortName: r.shortName } : {}) });
    }
    st.props = { ...st.props, type: [...new Set(routes.map((r) => r.mode))].join(","), stops: JSON.stringify(children.get(String(st.props.gtfsId)) ?? []), routes: JSON.stringify(routes) };
  }
}

/**
 * Each route's most used shape as a line in world coordinates. The rule is server/catalog's
 * chooseRouteShapes (most trips, then shape_id) cut to its first shape; duplicated here in SQL
 * because features do not import each other's internals.
 */
async function readRouteLines(conn: Awaited<ReturnType<DuckDBInstance["connect"]>>, files: (t: string) => string): Promise<TileLine[]> {
  // the routes, each numbered (k) in gtfsId order; then their shapes' points as flat columns in
  // (k, sequence) order: millions of points at country scale, read as numbers rather than lists
  await conn.run(`
    CREATE OR REPLACE TEMP TABLE route_lines AS
    WITH fv AS (SELECT id, feed_onestop_id FROM read_parquet(${files("feed_version")})),
    uses AS (SELECT feed_version_id, route_ref, shape_id, count(*) AS n FROM read_parquet(${files("trips")})
             WHERE shape_id IS NOT NULL GROUP BY ALL),
    best AS (SELECT * FROM uses QUALIFY row_number() OVER (PARTITION BY feed_version_id, route_ref ORDER BY n DESC, shape_id) = 1)
    SELECT (row_number() OVER (ORDER BY fv.feed_onestop_id || ':' || r.route_id) - 1)::INTEGER AS k,
           fv.feed_onestop_id || ':' || r.route_id AS gtfs_id, r.route_short_name, r.route_long_name, r.route_type,
           r.route_color, r.route_text_color, b.feed_version_id, b.shape_id
    FROM best b JOIN read_parquet(${files("routes")}) r ON r.id = b.route_ref AND r.feed_version_id = b.feed_version_id
    JOIN fv ON fv.id = b.feed_version_id`);
  const routes = await rowObjects(conn, "SELECT gtfs_id, route_short_name, route_long_name, route_type, route_color, route_text_color FROM route_lines ORDER BY k");
  const [ks, lons, lats] = await pointColumns(conn, `
    SELECT rl.k, sh.shape_pt_lon::DOUBLE, sh.shape_pt_lat::DOUBLE
    FROM route_lines rl JOIN read_parquet(${files("shapes")}) sh ON sh.feed_version_id = rl.feed_version_id AND sh.shape_id = rl.shape_id
    WHERE sh.shape_pt_lat IS NOT NULL AND sh.shape_pt_lon IS NOT NULL
    ORDER BY rl.k, sh.shape_pt_sequence`);
  await conn.run("DROP TABLE route_lines");
  const str = (v: unknown) => (v === null || v === undefined || v === "" ? null : String(v));
  const out: TileLine[] = [];
  for (let i = 0; i < ks.length; ) {
    const k = ks[i]!;
    let j = i;
    while (j < ks.length && ks[j] === k) j++;
    const r = routes[k]!;
    if (j - i >= 2) {
      out.push({
        ...worldPathOf(lons.subarray(i, j), lats.subarray(i, j)),
        props: {
          gtfsId: String(r.gtfs_id), shortName: str(r.route_short_name), longName: str(r.route_long_name),
          type: r.route_type === null || r.route_type === undefined ? null : Number(r.route_type),
          color: str(r.route_color), textColor: str(r.route_text_color),
        },
      });
    }
    i = j;
  }
  return out;
}

/**
 * An INTEGER column and two DOUBLE columns of `sql` (no NULLs) as typed arrays. The result is
 * materialised by DuckDB, then copied a chunk at a time (each vector's data array whole where it
 * has one), the event loop let through every 16 chunks.
 */
async function pointColumns(conn: Awaited<ReturnType<DuckDBInstance["connect"]>>, sql: string): Promise<[Int32Array, Float64Array, Float64Array]> {
  const res = await conn.run(sql);
  const cols = [new Int32Array(res.rowCount), new Float64Array(res.rowCount), new Float64Array(res.rowCount)] as const;
  let at = 0;
  for (let ci = 0; ci < res.chunkCount; ci++) {
    const chunk = res.getChunk(ci);
    const rc = chunk.rowCount;
    cols.forEach((col, j) => {
      const v = chunk.getColumnVector(j);
      // INTEGER and DOUBLE vectors keep their data in a typed array (`items`, not part of the typed
      // API, as pipeline/duck.ts numColumns reads it); any other shape takes the per-item path
      const items = v instanceof DuckDBIntegerVector || v instanceof DuckDBDoubleVector ? (v as unknown as { items?: unknown }).items : undefined;
      if ((items instanceof Int32Array || items instanceof Float64Array) && items.length === rc && items.constructor === col.constructor) col.set(items, at);
      else for (let i = 0; i < rc; i++) col[at + i] = v.getItem(i) as number;
    });
    at += rc;
    if (ci % 16 === 15) await new Promise((r) => setImmediate(r));
  }
  return [cols[0], cols[1], cols[2]];
}

/** The active street dataset's map background (STREET_LAYOUT.map) as lines with their `class`; none without one. */
function readStreetLines(dataDir: string, m: ReturnType<typeof readManifest>): TileLine[] {
  const street = activeStreets(m);
  const file = street ? join(dataDir, street.path, STREET_LAYOUT.map) : null;
  if (!file || !existsSync(file)) return [];
  const fc = JSON.parse(gunzipSync(readFileSync(file)).toString("utf8")) as { features?: { geometry?: { type?: string; coordinates?: unknown }; properties?: { class?: unknown; name?: unknown } }[] };
  const out: TileLine[] = [];
  for (const f of fc.features ?? []) {
    const g = f.geometry;
    const parts = g?.type === "LineString" ? [g.coordinates as number[][]] : g?.type === "MultiLineString" ? (g.coordinates as number[][][]) : [];
    for (const coords of parts) {
      if (!Array.isArray(coords) || coords.length < 2) continue;
      const str = (v: unknown) => (typeof v === "string" && v !== "" ? v : null);
      out.push({ ...worldPath(coords), props: { class: str(f.properties?.class), name: str(f.properties?.name) } });
    }
  }
  return out;
}

/**
 * A line (tile coordinates, flat x, y list) cut to the box lo..hi in both axes (Liang-Barsky per
 * segment): the runs of it inside the box, each a flat list.
 */
export function clipLine(pts: ArrayLike<number>, lo: number, hi: number): number[][] {
  const out: number[][] = [];
  let run: number[] = [];
  for (let i = 0; i + 3 < pts.length; i += 2) {
    const x0 = pts[i]!, y0 = pts[i + 1]!, x1 = pts[i + 2]!, y1 = pts[i + 3]!;
    const dx = x1 - x0, dy = y1 - y0;
    let t0 = 0, t1 = 1, inside = true;
    for (const [p, q] of [[-dx, x0 - lo], [dx, hi - x0], [-dy, y0 - lo], [dy, hi - y0]] as const) {
      if (p === 0) { if (q < 0) { inside = false; break; } continue; }
      const t = q / p;
      if (p < 0) { if (t > t1) { inside = false; break; } if (t > t0) t0 = t; }
      else { if (t < t0) { inside = false; break; } if (t < t1) t1 = t; }
    }
    if (!inside) { if (run.length) out.push(run); run = []; continue; }
    const ax = x0 + t0 * dx, ay = y0 + t0 * dy;
    if (!run.length || t0 > 0) { if (run.length) out.push(run); run = [ax, ay]; }
    run.push(x0 + t1 * dx, y0 + t1 * dy);
    if (t1 < 1) { out.push(run); run = []; }
  }
  if (run.length) out.push(run);
  return out.filter((r) => r.length >= 4);
}

/** Douglas-Peucker simplification of a flat x, y list to within `tol` (iterative, keeps both ends). */
export function simplifyLine(pts: number[], tol: number): number[] {
  const n = pts.length / 2;
  if (n <= 2) return pts;
  const keep = new Uint8Array(n);
  keep[0] = keep[n - 1] = 1;
  const stack: [number, number][] = [[0, n - 1]];
  const tol2 = tol * tol;
  while (stack.length) {
    const [a, b] = stack.pop()!;
    const ax = pts[2 * a]!, ay = pts[2 * a + 1]!, bx = pts[2 * b]!, by = pts[2 * b + 1]!;
    const dx = bx - ax, dy = by - ay, len2 = dx * dx + dy * dy;
    let far = -1, farD = tol2;
    for (let i = a + 1; i < b; i++) {
      const px = pts[2 * i]! - ax, py = pts[2 * i + 1]! - ay;
      let d2: number;
      if (len2 === 0) d2 = px * px + py * py;
      else {
        const t = Math.max(0, Math.min(1, (px * dx + py * dy) / len2));
        const ex = px - t * dx, ey = py - t * dy;
        d2 = ex * ex + ey * ey;
      }
      if (d2 > farD) { farD = d2; far = i; }
    }
    if (far >= 0) { keep[far] = 1; stack.push([a, far], [far, b]); }
  }
  const out: number[] = [];
  for (let i = 0; i < n; i++) if (keep[i]) out.push(pts[2 * i]!, pts[2 * i + 1]!);
  return out;
}

/** The layer list of a request, checked: each name known, none twice. */
export function parseLayers(text: string): TileLayerName[] {
  const names = text.split(",");
  const out: TileLayerName[] = [];
  for (const name of names) {
    if (!(TILE_LAYERS as readonly string[]).includes(name)) throw invalidParameter("layers", `unknown layer "${name.slice(0, 40)}"`, TILE_LAYERS.join(", "));
    if (!out.includes(name as TileLayerName)) out.push(name as TileLayerName);
  }
  return out;
}

const INT = /^(0|[1-9][0-9]{0,8})$/;

/** z, x, y of a request, checked: integers, z in 0..MAX_ZOOM, x and y inside the zoom's grid. */
export function parseTile(zText: string, xText: string, yText: string): { z: number; x: number; y: number } {
  for (const [name, v] of [["z", zText], ["x", xText], ["y", yText]] as const) {
    if (!INT.test(v)) throw invalidParameter(name, `${name} must be a non-negative integer, got "${v.slice(0, 20)}"`);
  }
  const z = Number(zText), x = Number(xText), y = Number(yText);
  if (z > MAX_ZOOM) throw invalidParameter("z", `zoom ${z} is beyond the largest, ${MAX_ZOOM}`);
  const size = 2 ** z;
  if (x >= size) throw invalidParameter("x", `x must be below ${size} at zoom ${z}`);
  if (y >= size) throw invalidParameter("y", `y must be below ${size} at zoom ${z}`);
  return { z, x, y };
}

/** The tile's bytes, cut on first request and kept. */
export function tileOf(set: TileSet, layers: TileLayerName[], z: number, x: number, y: number): Uint8Array {
  const key = `${layers.join(",")}/${z}/${x}/${y}`;
  const hit = set.cache.get(key);
  if (hit) return hit;
  const frame = tileFrame(z, x, y);
  const bytes = encodeTile(layers.map((name) => tileLayer(set, name, frame)));
  if (set.cache.size >= TILE_CACHE) set.cache.delete(set.cache.keys().next().value as string);
  set.cache.set(key, bytes);
  return bytes;
}

/**
 * Where a tile sits: world coordinates (0..1) times `scale` less (x0, y0) are tile units; lo..hi is
 * the tile with its buffer in tile units, wx0..wx1 × wy0..wy1 the same box in world coordinates.
 */
interface TileFrame {
  z: number;
  scale: number;
  x0: number;
  y0: number;
  lo: number;
  hi: number;
  wx0: number;
  wx1: number;
  wy0: number;
  wy1: number;
}

/** The frame of tile z/x/y. */
function tileFrame(z: number, x: number, y: number): TileFrame {
  const scale = 2 ** z * MVT_EXTENT;
  const x0 = x * MVT_EXTENT, y0 = y * MVT_EXTENT;
  const lo = -BUFFER, hi = MVT_EXTENT + BUFFER;
  return { z, scale, x0, y0, lo, hi, wx0: (x0 + lo) / scale, wx1: (x0 + hi) / scale, wy0: (y0 + lo) / scale, wy1: (y0 + hi) / scale };
}

/** One layer of a tile: its features cut to the frame. */
function tileLayer(set: TileSet, name: TileLayerName, f: TileFrame): MvtLayer {
  if ((AREA_LAYERS as readonly string[]).includes(name)) return { name, features: areaFeatures(set, name as AreaLayerName, f) };
  if (name === "places") return { name, features: placeFeatures(set, f) };
  if (name === "routes" || name === "streets" || name === "waterways") return { name, features: lineFeatures(set, name, f) };
  if (name !== "stops" && name !== "stations" && name !== "entrances") return { name, features: [] };
  return { name, features: pointFeatures(set, name, f) };
}

/** The polygons of an area layer (water, parks, buildings) clipped to the frame and simplified; buildings from BUILDINGS_MIN_ZOOM. */
function areaFeatures(set: TileSet, name: AreaLayerName, f: TileFrame): MvtPolygon[] {
  const { z, scale, x0, y0, lo, hi, wx0, wx1, wy0, wy1 } = f;
  const features: MvtPolygon[] = [];
  if (name === "buildings" && z < BUILDINGS_MIN_ZOOM) return features;
  for (const a of set.base.areas[name]) {
    if (a.maxX < wx0 || a.minX > wx1 || a.maxY < wy0 || a.minY > wy1) continue;
    // under a tile unit both ways: nothing would be left after rounding
    if ((a.maxX - a.minX) * scale < 1 && (a.maxY - a.minY) * scale < 1) continue;
    const polygons: number[][][] = [];
    for (const rings of a.polygons) {
      const out: number[][] = [];
      for (const r of rings) {
        const t = new Float64Array(r.length);
        for (let i = 0; i < t.length; i += 2) { t[i] = r[i]! * scale - x0; t[i + 1] = r[i + 1]! * scale - y0; }
        const c = clipRing(t, lo, hi);
        if (!c.length) { if (!out.length) break; continue; }
        const s = simplifyLine([...c, c[0]!, c[1]!], SIMPLIFY);
        if (s.length >= 8) out.push(s);
        else if (!out.length) break;
      }
      if (out.length) polygons.push(out);
    }
    if (polygons.length) features.push({ polygons, props: a.props });
  }
  return features;
}

/** The places in the frame; below THIN_ZOOM the best ranked of each PLACE_CELL cell only. */
function placeFeatures(set: TileSet, f: TileFrame): MvtPoint[] {
  const { z, scale, x0, y0, lo, hi } = f;
  const features: MvtPoint[] = [];
  const cells = z < THIN_ZOOM ? new Set<number>() : null;
  for (const p of set.base.places) {
    const tx = p.wx * scale - x0, ty = p.wy * scale - y0;
    if (tx < lo || ty < lo || tx > hi || ty > hi) continue;
    if (cells) {
      // places are sorted best rank first: the first of a cell is kept
      const cell = Math.floor((tx + BUFFER) / PLACE_CELL) * 1024 + Math.floor((ty + BUFFER) / PLACE_CELL);
      if (cells.has(cell)) continue;
      cells.add(cell);
    }
    features.push({ x: tx, y: ty, props: p.props });
  }
  return features;
}

/** The lines of routes, streets (major ones from MAJOR_STREETS_MIN_ZOOM, all from STREETS_MIN_ZOOM) or waterways, clipped and simplified. */
function lineFeatures(set: TileSet, name: "routes" | "streets" | "waterways", f: TileFrame): MvtLine[] {
  const { z, scale, x0, y0, lo, hi, wx0, wx1, wy0, wy1 } = f;
  const features: MvtLine[] = [];
  if (name === "streets" && z < MAJOR_STREETS_MIN_ZOOM) return features;
  const majorOnly = name === "streets" && z < STREETS_MIN_ZOOM;
  const source = name === "waterways" ? set.base.waterways : set.lines[name];
  for (const l of source) {
    if (majorOnly && l.props.class !== "major") continue;
    if (l.maxX < wx0 || l.minX > wx1 || l.maxY < wy0 || l.minY > wy1) continue;
    if (z < (l.minZoom ?? 0)) continue;
    const t = new Float64Array(l.w.length);
    for (let i = 0; i < t.length; i += 2) { t[i] = l.w[i]! * scale - x0; t[i + 1] = l.w[i + 1]! * scale - y0; }
    const lines = clipLine(t, lo, hi).map((r) => simplifyLine(r, SIMPLIFY));
    if (lines.length) features.push({ lines, props: l.props });
  }
  return features;
}

/** The stops, stations or entrances in the frame; below THIN_ZOOM the stops thinned to one per THIN_CELL cell. */
function pointFeatures(set: TileSet, name: "stops" | "stations" | "entrances", f: TileFrame): MvtPoint[] {
  const { z, scale, x0, y0 } = f;
  const features: MvtPoint[] = [];
  // thinned: the stop kept for a cell carries `count`, the stops of its cell (itself included)
  // (thinned stops are taken inside the tile only, not in its buffer: each stop counts in one tile)
  const cells = name === "stops" && z < THIN_ZOOM ? new Map<number, { count: number }>() : null;
  for (const p of set.points[name]) {
    const tx = p.wx * scale - x0, ty = p.wy * scale - y0;
    if (tx < -BUFFER || ty < -BUFFER || tx > MVT_EXTENT + BUFFER || ty > MVT_EXTENT + BUFFER) continue;
    if (cells) {
      if (tx < 0 || ty < 0 || tx >= MVT_EXTENT || ty >= MVT_EXTENT) continue;
      const cell = Math.floor((tx + BUFFER) / THIN_CELL) * 1024 + Math.floor((ty + BUFFER) / THIN_CELL);
      const kept = cells.get(cell);
      if (kept) {
        kept.count++;
        continue;
      }
      const props = { ...p.props, count: 1 };
      cells.set(cell, props);
      features.push({ x: tx, y: ty, props });
      continue;
    }
    features.push({ x: tx, y: ty, props: p.props });
  }
  return features;
}

/** The TileJSON 3.0 document of `layers`, tiles under `base` (the absolute URL of the tiles' path, e.g. `https://host/tiles`). */
export function tileJson(set: TileSet, layers: TileLayerName[], base: string): Record<string, unknown> {
  const b = set.bounds ?? [-180, -85.05112878, 180, 85.05112878];
  return {
    tilejson: "3.0.0",
    name: "interchange",
    scheme: "xyz",
    tiles: [`${base}/${layers.join(",")}/{z}/{x}/{y}.pbf`],
    minzoom: 0,
    maxzoom: MAX_ZOOM,
    bounds: b,
    center: [(b[0] + b[2]) / 2, (b[1] + b[3]) / 2, 12],
    vector_layers: layers.map((id) => ({
      id,
      fields: id === "stops"
        ? { gtfsId: "String", name: "String", code: "String", platform: "String", desc: "String", parentStation: "String", type: "String", routes: "String", count: "Number" }
        : id === "routes"
          ? { gtfsId: "String", shortName: "String", longName: "String", type: "Number", color: "String", textColor: "String" }
          : id === "streets" || id === "water" || id === "waterways" || id === "parks"
            ? { class: "String", name: "String" }
            : id === "places"
              ? { class: "String", name: "String", rank: "Number" }
              : id === "buildings"
                ? { class: "String" }
                : id === "entrances"
                  ? { gtfsId: "String", name: "String", parentStation: "String", locationType: "Number" }
                  : { gtfsId: "String", code: "String", name: "String", type: "String", stops: "String", routes: "String" },
    })),
  };
}
