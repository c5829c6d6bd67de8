/**
 * A small Mapbox Vector Tile (MVT 2.1) encoder for point, line and polygon layers: protobuf written by hand
 * (varints, zigzag, packed fields; LineStrings as MoveTo/LineTo with zigzag deltas, spec §4.3;
 * Polygons as rings MoveTo/LineTo/ClosePath, exterior clockwise in tile coordinates, holes
 * counter-clockwise, spec §4.3.4), one layer per named set of features, string/number/bool values shared
 * through the layer's key and value tables. Plus the Web Mercator tile math the tile routes use.
 */
import { ProtobufWriter as Writer, zigzag } from "./protobuf.ts";

export const MVT_EXTENT = 4096;

export type MvtValue = string | number | boolean;
export interface MvtPoint {
  /** position in tile coordinates (0..MVT_EXTENT inside the tile) */
  x: number;
  y: number;
  props: Record<string, MvtValue | null | undefined>;
}
/** A (multi) LineString: each line a flat list x0, y0, x1, y1, … in tile coordinates. */
export interface MvtLine {
  lines: number[][];
  props: Record<string, MvtValue | null | undefined>;
}
/** A (multi) Polygon: each polygon its exterior ring then its holes, each ring a flat list x0, y0, … (closing point optional). */
export interface MvtPolygon {
  polygons: number[][][];
  props: Record<string, MvtValue | null | undefined>;
}
export interface MvtLayer {
  name: string;
  features: (MvtPoint | MvtLine | MvtPolygon)[];
}

/** Twice the signed area of a ring (flat x, y list, not closed) by the surveyor's formula; positive = clockwise with y down. */
export function ringArea2(pts: number[]): number {
  let a = 0;
  const n = pts.length;
  for (let i = 0; i < n; i += 2) {
    const j = (i + 2) % n;
    a += pts[i]! * pts[j + 1]! - pts[j]! * pts[i + 1]!;
  }
  return a;
}

/**
 * The geometry commands of a Polygon feature (MVT 2.1 §4.3.4): per polygon its exterior ring
 * (turned clockwise in tile coordinates, positive area) then its holes (counter-clockwise), each
 * MoveTo, LineTo through the rest, ClosePath; points rounded, repeats and the closing point
 * dropped. A ring of no area after rounding is left out (a polygon whose exterior is, with its holes).
 */
export function polygonCommands(polygons: number[][][]): number[] {
  const out: number[] = [];
  const cursor = { x: 0, y: 0 };
  for (const poly of polygons) {
    for (let r = 0; r < poly.length; r++) {
      const pts = roundedPoints(poly[r]!);
      while (pts.length >= 4 && pts[0] === pts[pts.length - 2] && pts[1] === pts[pts.length - 1]) pts.length -= 2;
      const a = pts.length >= 6 ? ringArea2(pts) : 0;
      if (a === 0) {
        if (r === 0) break; // no exterior: the polygon is left out
        continue;
      }
      if ((r === 0) !== a > 0) {
        // reverse the point order
        const rev: number[] = [];
        for (let i = pts.length - 2; i >= 0; i -= 2) rev.push(pts[i]!, pts[i + 1]!);
        pts.splice(0, pts.length, ...rev);
      }
      pushPath(out, pts, cursor);
      out.push((7 & 7) | (1 << 3)); // ClosePath
    }
  }
  return out;
}

/**
 * The geometry commands of a LineString feature (MVT 2.1 §4.3): per line a MoveTo to its first point
 * and a LineTo through the rest, deltas from the cursor (which carries on from line to line);
 * points rounded to integers, repeats dropped, lines left with fewer than two points left out.
 * Empty when no line is left.
 */
export function lineCommands(lines: number[][]): number[] {
  const out: number[] = [];
  const cursor = { x: 0, y: 0 };
  for (const line of lines) {
    const pts = roundedPoints(line);
    if (pts.length >= 4) pushPath(out, pts, cursor);
  }
  return out;
}

/** A flat x, y list rounded to whole tile units, consecutive repeats dropped. */
function roundedPoints(flat: ArrayLike<number>): number[] {
  const pts: number[] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) {
    const x = Math.round(flat[i]!), y = Math.round(flat[i + 1]!);
    const n = pts.length;
    if (n && pts[n - 2] === x && pts[n - 1] === y) continue;
    pts.push(x, y);
  }
  return pts;
}

/** MoveTo the first point, LineTo through the rest: zigzag deltas from `cursor`, which ends on the last point. */
function pushPath(out: number[], pts: number[], cursor: { x: number; y: number }): void {
  out.push((1 & 7) | (1 << 3), zigzag(pts[0]! - cursor.x), zigzag(pts[1]! - cursor.y));
  cursor.x = pts[0]!; cursor.y = pts[1]!;
  out.push((2 & 7) | ((pts.length / 2 - 1) << 3));
  for (let i = 2; i < pts.length; i += 2) {
    out.push(zigzag(pts[i]! - cursor.x), zigzag(pts[i + 1]! - cursor.y));
    cursor.x = pts[i]!; cursor.y = pts[i + 1]!;
  }
}



function encodeValue(v: MvtValue): Uint8Array {
  const w = new Writer();
  if (typeof v === "string") w.string(1, v);
  else if (typeof v === "boolean") {
    w.tag(7, 0);
    w.varint(v ? 1 : 0);
  } else if (Number.isInteger(v) && v >= 0 && v < 2 ** 53) {
    w.tag(5, 0); // uint_value
    w.varint(v);
  } else w.double(3, v);
  return w.done();
}

/** The layer's bytes; empty when none of its features has geometry left. */
function encodeLayer(layer: MvtLayer): Uint8Array {
  const keys = new Map<string, number>();
  const values = new Map<string, { idx: number; v: MvtValue }>();
  const w = new Writer();
  w.tag(15, 0);
  w.varint(2);
  w.string(1, layer.name);
  let id = 0;
  for (const f of layer.features) {
    const geometry = "polygons" in f
      ? polygonCommands(f.polygons)
      : "lines" in f
        ? lineCommands(f.lines)
        : [(1 & 7) | (1 << 3), zigzag(Math.round(f.x)), zigzag(Math.round(f.y))];
    if (!geometry.length) continue;
    const tags: number[] = [];
    for (const [k, v] of Object.entries(f.props)) {
      if (v === null || v === undefined) continue;
      let ki = keys.get(k);
      if (ki === undefined) keys.set(k, (ki = keys.size));
      const vk = `${typeof v}:${v}`;
      let vi = values.get(vk);
      if (!vi) values.set(vk, (vi = { idx: values.size, v }));
      tags.push(ki, vi.idx);
    }
    const fw = new Writer();
    fw.tag(1, 0);
    fw.varint(++id);
    fw.packed(2, tags);
    fw.tag(3, 0);
    fw.varint("polygons" in f ? 3 : "lines" in f ? 2 : 1); // POLYGON, LINESTRING, POINT
    fw.packed(4, geometry);
    w.bytes(2, fw.done());
  }
  if (!id) return new Uint8Array(0);
  for (const k of keys.keys()) w.string(3, k);
  for (const { v } of values.values()) w.bytes(4, encodeValue(v));
  w.tag(5, 0);
  w.varint(MVT_EXTENT);
  return w.done();
}

/** The tile's bytes; a layer without features is left out (an empty tile is zero bytes). */
export function encodeTile(layers: MvtLayer[]): Uint8Array {
  const w = new Writer();
  for (const l of layers) {
    if (!l.features.length) continue;
    const bytes = encodeLayer(l);
    if (bytes.length) w.bytes(3, bytes);
  }
  return w.done();
}

/** Web Mercator: a position as world coordinates in 0..1 (x east, y south). */
export function worldXY(lon: number, lat: number): [number, number] {
  const clamped = Math.max(-85.05112878, Math.min(85.05112878, lat));
  const s = Math.sin((clamped * Math.PI) / 180);
  return [(lon + 180) / 360, 0.5 - Math.log((1 + s) / (1 - s)) / (4 * Math.PI)];
}

/** A line or ring of [lon, lat] points in world coordinates (flat x0, y0, …) with its bounding box. */
export interface WorldPath {
  w: Float64Array;
  minX: number; minY: number; maxX: number; maxY: number;
}

/** The same from the points' longitudes and latitudes as two arrays. */
export function worldPathOf(lons: ArrayLike<number>, lats: ArrayLike<number>): WorldPath {
  const w = new Float64Array(lons.length * 2);
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  for (let i = 0; i < lons.length; i++) {
    const [x, y] = worldXY(lons[i]!, lats[i]!);
    w[2 * i] = x; w[2 * i + 1] = y;
    minX = Math.min(minX, x); maxX = Math.max(maxX, x); minY = Math.min(minY, y); maxY = Math.max(maxY, y);
  }
  return { w, minX, minY, maxX, maxY };
}

export function worldPath(coords: ArrayLike<ArrayLike<number>>): WorldPath {
  const w = new Float64Array(coords.length * 2);
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  for (let i = 0; i < coords.length; i++) {
    const [x, y] = worldXY(Number(coords[i]![0]), Number(coords[i]![1]));
    w[2 * i] = x; w[2 * i + 1] = y;
    minX = Math.min(minX, x); maxX = Math.max(maxX, x); minY = Math.min(minY, y); maxY = Math.max(maxY, y);
  }
  return { w, minX, minY, maxX, maxY };
}
