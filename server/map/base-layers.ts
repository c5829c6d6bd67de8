/**
 * The basemap tile layers' data (places, water, waterways, parks, buildings): the active street
 * dataset's STREET_LAYOUT.base file (pipeline/street/base-map.ts) read once per dataset into Web
 * Mercator world coordinates, and the polygon clipping the tiles cut areas with (Sutherland–Hodgman
 * against the buffered tile box). A street dataset without the file (built before it) gives empty layers.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { activeStreets, type readManifest } from "../../pipeline/schema/manifest.ts";
import { STREET_LAYOUT } from "../../pipeline/schema/street.ts";
import { worldPath, worldXY, type MvtValue, type WorldPath } from "./mvt.ts";

export const AREA_LAYERS = ["water", "parks", "buildings"] as const;
export type AreaLayerName = (typeof AREA_LAYERS)[number];

export interface BasePoint { wx: number; wy: number; props: Record<string, MvtValue | null> }
export interface BaseLine extends WorldPath {
  props: Record<string, MvtValue | null>;
  /** the line is left out of tiles below this zoom */
  minZoom: number;
}
export interface BaseArea {
  /** per polygon: exterior ring then holes, each world x, y, … (closed) */
  polygons: Float64Array[][];
  minX: number; minY: number; maxX: number; maxY: number;
  props: Record<string, MvtValue | null>;
}
export interface BaseData {
  /** sorted by rank (most important first), then name */
  places: BasePoint[];
  waterways: BaseLine[];
  areas: Record<AreaLayerName, BaseArea[]>;
}

/** Waterway classes drawn only from this zoom on (a region's brooks would fill low-zoom tiles). */
const WATERWAY_MIN_ZOOM: Record<string, number> = { stream: 12 };

export function emptyBase(): BaseData {
  return { places: [], waterways: [], areas: { water: [], parks: [], buildings: [] } };
}

const str = (v: unknown) => (typeof v === "string" && v !== "" ? v : null);

/** The active street dataset's basemap; empty layers without one. */
export function readBaseData(dataDir: string, m: ReturnType<typeof readManifest>): BaseData {
  const out = emptyBase();
  const street = activeStreets(m);
  const file = street ? join(dataDir, street.path, STREET_LAYOUT.base) : null;
  if (!file || !existsSync(file)) return out;
  type F = { geometry?: { type?: string; coordinates?: any }; properties?: Record<string, unknown> };
  const fc = JSON.parse(gunzipSync(readFileSync(file)).toString("utf8")) as { features?: F[] };
  /** the bounding box of several paths */
  const box = (ps: WorldPath[]) =>
    ps.reduce((b, p) => ({ minX: Math.min(b.minX, p.minX), minY: Math.min(b.minY, p.minY), maxX: Math.max(b.maxX, p.maxX), maxY: Math.max(b.maxY, p.maxY) }), { minX: Infinity, minY: Infinity, maxX: -Infinity, maxY: -Infinity });
  for (const f of fc.features ?? []) {
    const p = f.properties ?? {}, g = f.geometry;
    const layer = p.layer, cls = str(p.class), name = str(p.name);
    if (!g || !Array.isArray(g.coordinates)) continue;
    if (layer === "places" && g.type === "Point") {
      const [wx, wy] = worldXY(Number(g.coordinates[0]), Number(g.coordinates[1]));
      out.places.push({ wx, wy, props: { name, class: cls, rank: typeof p.rank === "number" ? p.rank : null } });
    } else if (layer === "waterways" && g.type === "LineString" && g.coordinates.length >= 2) {
      out.waterways.push({ ...worldPath(g.coordinates), props: { class: cls, name }, minZoom: WATERWAY_MIN_ZOOM[cls ?? ""] ?? 0 });
    } else if ((AREA_LAYERS as readonly unknown[]).includes(layer) && (g.type === "Polygon" || g.type === "MultiPolygon")) {
      const polys = (g.type === "Polygon" ? [g.coordinates] : g.coordinates) as number[][][][];
      const paths = polys.map((rings) => rings.filter((r) => Array.isArray(r) && r.length >= 4).map(worldPath)).filter((rs) => rs.length > 0);
      if (!paths.length) continue;
      const props: BaseArea["props"] = layer === "buildings" ? { class: cls } : { class: cls, name };
      // the box of the exteriors
      out.areas[layer as AreaLayerName].push({ polygons: paths.map((rs) => rs.map((r) => r.w)), ...box(paths.map((rs) => rs[0]!)), props });
    }
  }
  out.places.sort((a, b) => Number(a.props.rank ?? 99) - Number(b.props.rank ?? 99) || String(a.props.name).localeCompare(String(b.props.name)));
  return out;
}

/**
 * A ring (flat x, y list, closed or not) clipped to the box lo..hi in both axes (Sutherland–Hodgman,
 * one box edge at a time): the clipped ring, not closed; fewer than 3 points when nothing is left.
 * (A concave ring cut into several pieces stays one ring joined along the box edge: right for filling.)
 */
export function clipRing(pts: ArrayLike<number>, lo: number, hi: number): number[] {
  let cur: number[] = Array.from(pts);
  const n0 = cur.length;
  if (n0 >= 4 && cur[0] === cur[n0 - 2] && cur[1] === cur[n0 - 1]) cur.length -= 2;
  // edges: x >= lo, x <= hi, y >= lo, y <= hi
  for (let edge = 0; edge < 4 && cur.length >= 6; edge++) {
    const axis = edge >> 1, bound = edge & 1 ? hi : lo;
    const inside = (i: number) => (edge & 1 ? cur[i + axis]! <= bound : cur[i + axis]! >= bound);
    const next: number[] = [];
    const n = cur.length;
    for (let i = 0; i < n; i += 2) {
      const j = (i + n - 2) % n; // previous point
      const inI = inside(i), inJ = inside(j);
      if (inI !== inJ) {
        const a = cur[j + axis]!, b = cur[i + axis]!;
        const t = (bound - a) / (b - a);
        const x = cur[j]! + t * (cur[i]! - cur[j]!), y = cur[j + 1]! + t * (cur[i + 1]! - cur[j + 1]!);
        next.push(axis === 0 ? bound : x, axis === 1 ? bound : y);
      }
      if (inI) next.push(cur[i]!, cur[i + 1]!);
    }
    cur = next;
  }
  return cur.length >= 6 ? cur : [];
}
