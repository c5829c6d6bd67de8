/**
 * A small Mapbox Vector Tile (MVT 2.1) encoder for point, line and polygon layers: protobuf written by hand
 * (varints, zigzag, packed fields; LineStrings as MoveTo/LineTo with zigzag deltas, spec §4.3;
 * Polygons as rings MoveTo/LineTo/ClosePath, exterior clockwise in tile coordinates, holes
 * counter-clockwise, spec §4.3.4), one layer per named set of features, string/number/bool values shared
 * through the layer's key and value tables. Plus the Web Mercator tile math the tile routes use.
 */

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
  let cx = 0, cy = 0;
  for (const poly of polygons) {
    for (let r = 0; r < poly.length; r++) {
      const ring = poly[r]!;
      const pts: number[] = [];
      for (let i = 0; i + 1 < ring.length; i += 2) {
        const x = Math.round(ring[i]!), y = Math.round(ring[i + 1]!);
        const n = pts.length;
        if (n && pts[n - 2] === x && pts[n - 1] === y) continue;
        pts.push(x, y);
      }
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
      out.push((1 & 7) | (1 << 3), zigzag(pts[0]! - cx), zigzag(pts[1]! - cy));
      cx = pts[0]!; cy = pts[1]!;
      out.push((2 & 7) | ((pts.length / 2 - 1) << 3));
      for (let i = 2; i < pts.length; i += 2) {
        out.push(zigzag(pts[i]! - cx), zigzag(pts[i + 1]! - cy));
        cx = pts[i]!; cy = pts[i + 1]!;
      }
      out.push((7 & 7) | (1 << 3));
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
  let cx = 0, cy = 0;
  for (const line of lines) {
    const pts: number[] = [];
    for (let i = 0; i + 1 < line.length; i += 2) {
      const x = Math.round(line[i]!), y = Math.round(line[i + 1]!);
      const n = pts.length;
      if (n && pts[n - 2] === x && pts[n - 1] === y) continue;
      pts.push(x, y);
    }
    if (pts.length < 4) continue;
    out.push((1 & 7) | (1 << 3), zigzag(pts[0]! - cx), zigzag(pts[1]! - cy));
    cx = pts[0]!; cy = pts[1]!;
    out.push((2 & 7) | ((pts.length / 2 - 1) << 3));
    for (let i = 2; i < pts.length; i += 2) {
      out.push(zigzag(pts[i]! - cx), zigzag(pts[i + 1]! - cy));
      cx = pts[i]!; cy = pts[i + 1]!;
    }
  }
  return out;
}

class Writer {
  buf = new Uint8Array(1024);
  len = 0;
  private room(n: number) {
    if (this.len + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.len + n) size *= 2;
    const b = new Uint8Array(size);
    b.set(this.buf.subarray(0, this.len));
    this.buf = b;
  }
  varint(v: number) {
    this.room(10);
    while (v > 0x7f) {
      this.buf[this.len++] = (v % 128) | 0x80;
      v = Math.floor(v / 128);
    }
    this.buf[this.len++] = v;
  }
  tag(field: number, wire: number) {
    this.varint((field << 3) | wire);
  }
  bytes(field: number, b: Uint8Array) {
    this.tag(field, 2);
    this.varint(b.length);
    this.room(b.length);
    this.buf.set(b, this.len);
    this.len += b.length;
  }
  string(field: number, s: string) {
    this.bytes(field, new TextEncoder().encode(s));
  }
  double(field: number, v: number) {
    this.tag(field, 1);
    this.room(8);
    new DataView(this.buf.buffer, this.len, 8).setFloat64(0, v, true);
    this.len += 8;
  }
  packed(field: number, values: number[]) {
    const w = new Writer();
    for (const v of values) w.varint(v);
    this.bytes(field, w.done());
  }
  done(): Uint8Array {
    return this.buf.slice(0, this.len);
  }
}

const zigzag = (n: number) => (n < 0 ? -2 * n - 1 : 2 * n);

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
