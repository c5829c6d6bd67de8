/**
 * Vector tiles of the active dataset's stops and stations, in the layer names and properties of
 * OpenTripPlanner 2's vector tile server (so `@opentripplanner/otp2-tile-overlay` draws them):
 *
 * - `GET /tiles/{layers}/{z}/{x}/{y}.pbf`: a Mapbox Vector Tile; `{layers}` is a comma list of
 *   `stops`, `stations`. `stops` features carry `gtfsId` (feed Onestop id:stop_id), `name`, `code`,
 *   `platform`, `parentStation`, `type` (the GTFS route_type most of its routes have) and `routes`
 *   (JSON list of `{gtfsType, shortName, color}`); `stations` features `gtfsId`, `name`, `type`,
 *   `routes`.
 * - `GET /tiles/{layers}/tilejson.json`: the TileJSON 3.0 of those layers.
 *
 * The points are read once per dataset (DuckDB, the catalog's stops, route_stops and routes
 * Parquet); a tile is cut from them on first request and kept (up to TILE_CACHE tiles).
 * Bad input: an unknown layer, z outside 0..22, x/y outside the zoom's grid or not integers → 400;
 * a tile with no data is an empty (zero-byte) tile.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { activeVersions, readManifest } from "../../pipeline/schema/manifest.ts";
import { sqlString } from "../../shared/sql.ts";
import { invalidParameter } from "../errors.ts";
import { encodeTile, MVT_EXTENT, type MvtLayer, type MvtPoint, worldXY } from "./mvt.ts";

export const TILE_LAYERS = ["stops", "stations"] as const;
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

export interface TileSet {
  generation: number;
  points: Record<TileLayerName, TilePoint[]>;
  /** [w, s, e, n] of all points, or null */
  bounds: [number, number, number, number] | null;
  cache: Map<string, Uint8Array>;
}

/** Reads the stops and stations of the dataset in `dataDir` as its manifest is now. */
export async function buildTileSet(dataDir: string): Promise<TileSet> {
  const m = readManifest(dataDir);
  const versions = activeVersions(m).filter((v) => existsSync(join(dataDir, v.path, "stops.parquet")));
  const points: TileSet["points"] = { stops: [], stations: [] };
  if (!versions.length) return { generation: m.generation, points, bounds: null, cache: new Map() };
  const files = (table: string) => `[${versions.map((v) => sqlString(join(dataDir, v.path, `${table}.parquet`))).join(", ")}]`;
  const have = (table: string) => versions.every((v) => existsSync(join(dataDir, v.path, `${table}.parquet`)));
  const db = await DuckDBInstance.create(":memory:", { threads: "1" });
  const conn = await db.connect();
  try {
    const routesSql = have("route_stops") && have("routes")
      ? `SELECT rs.feed_version_id, rs.stop_ref,
           to_json(list({gtfsType: r.route_type, shortName: coalesce(r.route_short_name, r.route_long_name, r.route_id), color: r.route_color} ORDER BY r.route_short_name)) AS routes,
           mode(r.route_type) AS type
         FROM read_parquet(${files("route_stops")}) rs JOIN read_parquet(${files("routes")}) r ON r.id = rs.route_ref AND r.feed_version_id = rs.feed_version_id
         GROUP BY ALL`
      : "SELECT NULL::INTEGER feed_version_id, NULL::INTEGER stop_ref, NULL::VARCHAR routes, NULL::INTEGER type WHERE false";
    const rows = (await conn.runAndReadAll(`
      WITH fv AS (SELECT id, feed_onestop_id FROM read_parquet(${files("feed_version")})),
      served AS (${routesSql}),
      -- a station takes its platforms' routes
      st AS (SELECT s.feed_version_id, s.parent_ref AS stop_ref, to_json(flatten(list(from_json(sv.routes, '["json"]')))) AS routes, mode(sv.type) AS type
             FROM read_parquet(${files("stops")}) s JOIN served sv ON sv.stop_ref = s.id AND sv.feed_version_id = s.feed_version_id
             WHERE s.parent_ref IS NOT NULL GROUP BY ALL)
      SELECT fv.feed_onestop_id || ':' || s.stop_id AS gtfs_id, s.stop_name, s.stop_code, s.platform_code,
             CASE WHEN s.parent_station IS NOT NULL AND s.parent_station <> '' THEN fv.feed_onestop_id || ':' || s.parent_station END AS parent,
             coalesce(s.location_type, 0) AS location_type, s.stop_lon, s.stop_lat,
             coalesce(sv.routes, st.routes::VARCHAR) AS routes, coalesce(sv.type, st.type) AS type
      FROM read_parquet(${files("stops")}) s JOIN fv ON fv.id = s.feed_version_id
      LEFT JOIN served sv ON sv.stop_ref = s.id AND sv.feed_version_id = s.feed_version_id
      LEFT JOIN st ON s.location_type = 1 AND st.stop_ref = s.id AND st.feed_version_id = s.feed_version_id
      WHERE s.stop_lat IS NOT NULL AND s.stop_lon IS NOT NULL AND coalesce(s.location_type, 0) IN (0, 1)
      ORDER BY gtfs_id`)).getRowObjectsJS() as Record<string, unknown>[];
    let w = Infinity, s = Infinity, e = -Infinity, n = -Infinity;
    for (const r of rows) {
      const lon = Number(r.stop_lon), lat = Number(r.stop_lat);
      const [wx, wy] = worldXY(lon, lat);
      const str = (v: unknown) => (v === null || v === undefined || v === "" ? null : String(v));
      const type = r.type === null || r.type === undefined ? null : Number(r.type);
      const routes = str(r.routes) ?? "[]";
      if (Number(r.location_type) === 1) {
        points.stations.push({ wx, wy, props: { gtfsId: String(r.gtfs_id), name: str(r.stop_name), type, routes } });
      } else {
        points.stops.push({ wx, wy, props: { gtfsId: String(r.gtfs_id), name: str(r.stop_name), code: str(r.stop_code), platform: str(r.platform_code), parentStation: str(r.parent), type, routes } });
      }
      w = Math.min(w, lon); e = Math.max(e, lon); s = Math.min(s, lat); n = Math.max(n, lat);
    }
    return { generation: m.generation, points, bounds: rows.length ? [w, s, e, n] : null, cache: new Map() };
  } finally {
    conn.closeSync();
    db.closeSync();
  }
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
  const scale = 2 ** z * MVT_EXTENT;
  const x0 = x * MVT_EXTENT, y0 = y * MVT_EXTENT;
  const mvt: MvtLayer[] = layers.map((name) => {
    const features: MvtPoint[] = [];
    for (const p of set.points[name]) {
      const tx = p.wx * scale - x0, ty = p.wy * scale - y0;
      if (tx < -BUFFER || ty < -BUFFER || tx > MVT_EXTENT + BUFFER || ty > MVT_EXTENT + BUFFER) continue;
      features.push({ x: tx, y: ty, props: p.props });
    }
    return { name, features };
  });
  const bytes = encodeTile(mvt);
  if (set.cache.size >= TILE_CACHE) set.cache.delete(set.cache.keys().next().value as string);
  set.cache.set(key, bytes);
  return bytes;
}

/** The TileJSON 3.0 document of `layers`, tiles under `base` (an absolute or root-relative URL prefix). */
export function tileJson(set: TileSet, layers: TileLayerName[], base: string): Record<string, unknown> {
  const b = set.bounds ?? [-180, -85.05112878, 180, 85.05112878];
  return {
    tilejson: "3.0.0",
    name: "interchange",
    scheme: "xyz",
    tiles: [`${base}/tiles/${layers.join(",")}/{z}/{x}/{y}.pbf`],
    minzoom: 0,
    maxzoom: MAX_ZOOM,
    bounds: b,
    center: [(b[0] + b[2]) / 2, (b[1] + b[3]) / 2, 12],
    vector_layers: layers.map((id) => ({
      id,
      fields: id === "stops"
        ? { gtfsId: "String", name: "String", code: "String", platform: "String", parentStation: "String", type: "Number", routes: "String" }
        : { gtfsId: "String", name: "String", type: "Number", routes: "String" },
    })),
  };
}
