/**
 * The street dataset's map background: the roads of the OSM extracts as one small GeoJSON
 * FeatureCollection (`STREET_LAYOUT.map`, gzip), which the map page (server/map) draws under the
 * transit layers, offline, without a tile server. Written at street import beside the routing
 * tiles, from the same extracts.
 *
 * What it holds: every way with a `highway` tag of the classes below, as a LineString with the
 * property `class` (`major`, `minor` or `path`) and `name` (the way's `name` tag, where it has one); coordinates rounded to 5 decimals (about 1 m)
 * and simplified (Douglas-Peucker, 1e-5 degrees), so a city centre is a few hundred kB. When the
 * extracts are large the file is kept under MAX_POINTS by leaving out paths, then minor roads
 * (a country extract still gets its major roads).
 *
 * The OSM PBF reader is ours (the format is small: blobs of zlib-compressed protobuf; npm has no
 * well-kept reader): two passes over the file, the ways first (their node ids kept in one sorted
 * typed array), then the dense nodes, keeping only the coordinates of those nodes. The geocoder
 * (pipeline/geocode/osm.ts) reads names and addresses with the same reader (Pb, dataBlocks, block).
 */
import { closeSync, openSync, readSync, fstatSync } from "node:fs";
import { inflateSync, gzipSync } from "node:zlib";

/** highway=* values drawn, by class. Others (service, track, construction, proposed ...) are left out. */
const CLASSES: Record<string, "major" | "minor" | "path"> = {
  motorway: "major", motorway_link: "major", trunk: "major", trunk_link: "major",
  primary: "major", primary_link: "major", secondary: "major", secondary_link: "major",
  tertiary: "minor", tertiary_link: "minor", residential: "minor", unclassified: "minor",
  living_street: "minor", road: "minor", pedestrian: "minor", busway: "minor",
  footway: "path", path: "path", cycleway: "path", steps: "path", bridleway: "path",
};
type RoadClass = "major" | "minor" | "path";
/** Points kept at most in the file; classes are dropped (path, then minor) until it fits. */
export const MAX_POINTS = 2_000_000;
/** Simplification tolerance, degrees (about 1 m). */
const TOLERANCE = 1e-5;

export interface StreetMapReport {
  ways: number;
  points: number;
  bytes: number;
  classes: RoadClass[];
}

// ---- a minimal protobuf reader (wire types 0, 1, 2, 5) over a Uint8Array

export class Pb {
  pos: number;
  constructor(readonly buf: Uint8Array, start = 0, readonly end = buf.length) {
    this.pos = start;
  }
  /** An unsigned varint as a number (exact up to 2^53). */
  varint(): number {
    const b = this.buf;
    let x = 0;
    let mul = 1;
    for (;;) {
      if (this.pos >= b.length) throw new Error("OSM PBF: truncated protobuf message");
      const c = b[this.pos++]!;
      x += (c & 0x7f) * mul;
      if (c < 0x80) return x;
      mul *= 128;
    }
  }
  /** A zigzag-encoded signed varint. */
  svarint(): number {
    const n = this.varint();
    return n % 2 === 1 ? -(n + 1) / 2 : n / 2;
  }
  /** The next field's number and wire type, or null at the end. */
  tag(): [number, number] | null {
    if (this.pos >= this.end) return null;
    const t = this.varint();
    return [Math.floor(t / 8), t & 7];
  }
  /** The bounds of a length-delimited field. */
  bytes(): [number, number] {
    const len = this.varint();
    const start = this.pos;
    this.pos += len;
    return [start, start + len];
  }
  skip(wire: number): void {
    if (wire === 0) this.varint();
    else if (wire === 1) this.pos += 8;
    else if (wire === 2) this.bytes();
    else if (wire === 5) this.pos += 4;
    else throw new Error(`OSM PBF: unsupported protobuf wire type ${wire}`);
  }
  /** A packed repeated varint field (unsigned or zigzag) as numbers. */
  packed(signed: boolean, out: number[] = []): number[] {
    const [s, e] = this.bytes();
    const sub = new Pb(this.buf, s, e);
    while (sub.pos < e) out.push(signed ? sub.svarint() : sub.varint());
    return out;
  }
}

/** Every OSMData block of a PBF file, decompressed, in file order. */
export function* dataBlocks(file: string): Generator<Uint8Array> {
  yield* blobs(file, "OSMData");
}

/** The extract's bounding box from its OSMHeader (west, south, east, north in degrees), or null when the header has none. */
export function headerBox(file: string): { w: number; s: number; e: number; n: number } | null {
  for (const data of blobs(file, "OSMHeader")) {
    const h = new Pb(data);
    for (let t; (t = h.tag()); ) {
      if (t[0] !== 1 || t[1] !== 2) {
        h.skip(t[1]);
        continue;
      }
      const [s, e] = h.bytes();
      const bb = new Pb(data, s, e);
      const v: number[] = [NaN, NaN, NaN, NaN];
      for (let u; (u = bb.tag()); ) {
        if (u[1] === 0 && u[0] >= 1 && u[0] <= 4) v[u[0] - 1] = bb.svarint() / 1e9;
        else bb.skip(u[1]);
      }
      const [w, east, n, south] = v as [number, number, number, number];
      return [w, east, n, south].every(Number.isFinite) && w < east && south < n ? { w, s: south, e: east, n } : null;
    }
    return null;
  }
  return null;
}

/** The blobs of one type of a PBF file, decompressed, in file order (of the header, the first only). */
function* blobs(file: string, only: "OSMData" | "OSMHeader"): Generator<Uint8Array> {
  const fd = openSync(file, "r");
  try {
    const size = fstatSync(fd).size;
    let off = 0;
    const head = Buffer.alloc(4);
    while (off + 4 <= size) {
      readSync(fd, head, 0, 4, off);
      const hlen = head.readUInt32BE(0);
      // the format's limits: a BlobHeader under 64 KiB, a Blob under 32 MiB
      if (hlen > 64 * 1024) throw new Error(`${file}: not an OSM PBF file (BlobHeader of ${hlen} bytes)`);
      const hbuf = Buffer.alloc(hlen);
      readSync(fd, hbuf, 0, hlen, off + 4);
      const h = new Pb(hbuf);
      let type = "";
      let dataSize = 0;
      for (let t; (t = h.tag()); ) {
        if (t[0] === 1 && t[1] === 2) {
          const [s, e] = h.bytes();
          type = hbuf.toString("utf8", s, e);
        } else if (t[0] === 3 && t[1] === 0) dataSize = h.varint();
        else h.skip(t[1]);
      }
      if (dataSize > 32 * 1024 * 1024 || off + 4 + hlen + dataSize > size) throw new Error(`${file}: truncated or not an OSM PBF file`);
      const blob = Buffer.alloc(dataSize);
      readSync(fd, blob, 0, dataSize, off + 4 + hlen);
      off += 4 + hlen + dataSize;
      if (type !== only) continue;
      const b = new Pb(blob);
      let data: Uint8Array | null = null;
      for (let t; (t = b.tag()); ) {
        if (t[1] !== 2) {
          b.skip(t[1]);
          continue;
        }
        const [s, e] = b.bytes();
        if (t[0] === 1) data = blob.subarray(s, e);
        else if (t[0] === 3) data = inflateSync(blob.subarray(s, e));
        else if (t[0] >= 4) throw new Error(`${file}: OSM PBF blob compression ${t[0] === 4 ? "lzma" : t[0] === 6 ? "lz4" : t[0] === 7 ? "zstd" : t[0]} is not supported (zlib or raw only)`);
      }
      if (data) yield data;
      if (only === "OSMHeader") return;
    }
  } finally {
    closeSync(fd);
  }
}

export interface Block {
  strings: string[];
  granularity: number;
  latOffset: number;
  lonOffset: number;
  /** [start, end) of each PrimitiveGroup */
  groups: [number, number][];
  pb: Pb;
}

export function block(data: Uint8Array): Block {
  const pb = new Pb(data);
  const out: Block = { strings: [], granularity: 100, latOffset: 0, lonOffset: 0, groups: [], pb };
  const dec = new TextDecoder();
  for (let t; (t = pb.tag()); ) {
    const [f, w] = t;
    if (f === 1 && w === 2) {
      const [s, e] = pb.bytes();
      const st = new Pb(data, s, e);
      for (let u; (u = st.tag()); ) {
        if (u[0] === 1 && u[1] === 2) {
          const [a, b] = st.bytes();
          out.strings.push(dec.decode(data.subarray(a, b)));
        } else st.skip(u[1]);
      }
    } else if (f === 2 && w === 2) out.groups.push(pb.bytes());
    else if (f === 17 && w === 0) out.granularity = pb.varint();
    else if (f === 19 && w === 0) out.latOffset = pb.varint();
    else if (f === 20 && w === 0) out.lonOffset = pb.varint();
    else pb.skip(w);
  }
  return out;
}

interface Way {
  cls: RoadClass;
  /** the way's `name` tag, if any */
  name: string | null;
  /** node ids */
  refs: number[];
}

/** Pass 1: the ways drawn (by id, so overlapping extracts give each way once). */
function readWays(blk: Block, ways: Map<number, Way>): void {
  const data = blk.pb.buf;
  for (const [gs, ge] of blk.groups) {
    const g = new Pb(data, gs, ge);
    for (let t; (t = g.tag()); ) {
      if (t[0] !== 3 || t[1] !== 2) {
        g.skip(t[1]);
        continue;
      }
      const [s, e] = g.bytes();
      const w = new Pb(data, s, e);
      let id = 0;
      let keys: number[] = [];
      let vals: number[] = [];
      let refs: number[] = [];
      for (let u; (u = w.tag()); ) {
        if (u[0] === 1 && u[1] === 0) id = w.varint();
        else if (u[0] === 2 && u[1] === 2) keys = w.packed(false);
        else if (u[0] === 3 && u[1] === 2) vals = w.packed(false);
        else if (u[0] === 8 && u[1] === 2) refs = w.packed(true);
        else w.skip(u[1]);
      }
      const k = keys.findIndex((x) => blk.strings[x] === "highway");
      if (k < 0) continue;
      const cls = CLASSES[blk.strings[vals[k]!] ?? ""];
      if (!cls || refs.length < 2) continue;
      for (let i = 1; i < refs.length; i++) refs[i] = refs[i]! + refs[i - 1]!; // delta-coded
      const n = keys.findIndex((x) => blk.strings[x] === "name");
      const name = n >= 0 ? blk.strings[vals[n]!] || null : null;
      ways.set(id, { cls, name, refs });
    }
  }
}

/** The index of node `id` in `ids` (sorted), or -1. */
export function findNode(ids: Float64Array, id: number): number {
  let lo = 0;
  let hi = ids.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = ids[mid]!;
    if (v === id) return mid;
    if (v < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** Pass 2: the coordinates of the nodes in `ids` (sorted), into lat/lon at the same index (the geocoder's OSM pass reads them with it too). */
export function readNodes(blk: Block, ids: Float64Array, lat: Float64Array, lon: Float64Array): void {
  const data = blk.pb.buf;
  const find = (id: number) => findNode(ids, id);
  const put = (id: number, rawLat: number, rawLon: number) => {
    const i = find(id);
    if (i < 0) return;
    lat[i] = 1e-9 * (blk.latOffset + blk.granularity * rawLat);
    lon[i] = 1e-9 * (blk.lonOffset + blk.granularity * rawLon);
  };
  for (const [gs, ge] of blk.groups) {
    const g = new Pb(data, gs, ge);
    for (let t; (t = g.tag()); ) {
      if (t[0] === 2 && t[1] === 2) {
        // DenseNodes: id 1, lat 8, lon 9 (packed, zigzag, delta-coded)
        const [s, e] = g.bytes();
        const d = new Pb(data, s, e);
        let idv: number[] = [];
        let la: number[] = [];
        let lo: number[] = [];
        for (let u; (u = d.tag()); ) {
          if (u[0] === 1 && u[1] === 2) idv = d.packed(true);
          else if (u[0] === 8 && u[1] === 2) la = d.packed(true);
          else if (u[0] === 9 && u[1] === 2) lo = d.packed(true);
          else d.skip(u[1]);
        }
        let id = 0, a = 0, b = 0;
        for (let i = 0; i < idv.length; i++) {
          id += idv[i]!;
          a += la[i]!;
          b += lo[i]!;
          put(id, a, b);
        }
      } else if (t[0] === 1 && t[1] === 2) {
        // a plain Node: id 1, lat 8, lon 9 (zigzag)
        const [s, e] = g.bytes();
        const n = new Pb(data, s, e);
        let id = 0, a = 0, b = 0;
        for (let u; (u = n.tag()); ) {
          if (u[0] === 1 && u[1] === 0) id = n.svarint();
          else if (u[0] === 8 && u[1] === 0) a = n.svarint();
          else if (u[0] === 9 && u[1] === 0) b = n.svarint();
          else n.skip(u[1]);
        }
        put(id, a, b);
      } else g.skip(t[1]);
    }
  }
}

/** Douglas-Peucker on [lon, lat] pairs (planar, in degrees: enough at this tolerance). */
export function simplify(pts: [number, number][], tol = TOLERANCE): [number, number][] {
  if (pts.length <= 2) return pts;
  const keep = new Uint8Array(pts.length);
  keep[0] = keep[pts.length - 1] = 1;
  const stack: [number, number][] = [[0, pts.length - 1]];
  const tol2 = tol * tol;
  while (stack.length) {
    const [a, b] = stack.pop()!;
    const [ax, ay] = pts[a]!;
    const [bx, by] = pts[b]!;
    const dx = bx - ax, dy = by - ay;
    const len2 = dx * dx + dy * dy;
    let worst = -1, worstD = tol2;
    for (let i = a + 1; i < b; i++) {
      const [px, py] = pts[i]!;
      let t = len2 > 0 ? ((px - ax) * dx + (py - ay) * dy) / len2 : 0;
      t = Math.max(0, Math.min(1, t));
      const ex = ax + t * dx - px, ey = ay + t * dy - py;
      const d = ex * ex + ey * ey;
      if (d > worstD) {
        worstD = d;
        worst = i;
      }
    }
    if (worst >= 0) {
      keep[worst] = 1;
      stack.push([a, worst], [worst, b]);
    }
  }
  return pts.filter((_, i) => keep[i]);
}

const round5 = (x: number) => Math.round(x * 1e5) / 1e5;

/**
 * The background's GeoJSON text from OSM PBF extracts (merged; a way in several extracts is
 * drawn once), with what it holds.
 */
export function streetMapGeoJson(files: string[], maxPoints = MAX_POINTS): { text: string; report: Omit<StreetMapReport, "bytes"> } {
  const ways = new Map<number, Way>();
  for (const f of files) for (const data of dataBlocks(f)) readWays(block(data), ways);
  let n = 0;
  for (const w of ways.values()) n += w.refs.length;
  const all = new Float64Array(n);
  n = 0;
  for (const w of ways.values()) for (const r of w.refs) all[n++] = r;
  all.sort();
  let u = 0;
  for (let i = 0; i < all.length; i++) if (i === 0 || all[i] !== all[i - 1]) all[u++] = all[i]!;
  const ids = all.subarray(0, u);
  const lat = new Float64Array(u).fill(NaN);
  const lon = new Float64Array(u).fill(NaN);
  for (const f of files) for (const data of dataBlocks(f)) readNodes(block(data), ids, lat, lon);
  const index = (id: number) => {
    let lo = 0, hi = ids.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (ids[mid] === id) return mid;
      if (ids[mid]! < id) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  };
  const lines: { cls: RoadClass; name: string | null; pts: [number, number][] }[] = [];
  const count: Record<RoadClass, number> = { major: 0, minor: 0, path: 0 };
  for (const w of ways.values()) {
    const pts: [number, number][] = [];
    for (const r of w.refs) {
      const i = index(r);
      if (i < 0 || Number.isNaN(lat[i]!)) continue; // a node outside the extract
      const p: [number, number] = [round5(lon[i]!), round5(lat[i]!)];
      const last = pts[pts.length - 1];
      if (!last || last[0] !== p[0] || last[1] !== p[1]) pts.push(p);
    }
    if (pts.length < 2) continue;
    const s = simplify(pts);
    lines.push({ cls: w.cls, name: w.name, pts: s });
    count[w.cls] += s.length;
  }
  // within the budget: paths go first, then minor roads
  const classes: RoadClass[] = ["major", "minor", "path"];
  while (classes.length > 1 && classes.reduce((a, c) => a + count[c], 0) > maxPoints) classes.pop();
  const kept = lines.filter((l) => classes.includes(l.cls));
  // major roads last, so they are drawn over the others
  const order: Record<RoadClass, number> = { path: 0, minor: 1, major: 2 };
  kept.sort((a, b) => order[a.cls] - order[b.cls]);
  const features = kept.map((l) => `{"type":"Feature","properties":{"class":"${l.cls}"${l.name ? `,"name":${JSON.stringify(l.name)}` : ""}},"geometry":{"type":"LineString","coordinates":${JSON.stringify(l.pts)}}}`);
  const text = `{"type":"FeatureCollection","features":[\n${features.join(",\n")}\n]}\n`;
  return { text, report: { ways: kept.length, points: kept.reduce((a, l) => a + l.pts.length, 0), classes } };
}

/** Writes the background (gzip) of the extracts to `path`. */
export async function writeStreetMap(files: string[], path: string, write: (path: string, data: Uint8Array) => void): Promise<StreetMapReport> {
  const { text, report } = streetMapGeoJson(files);
  const gz = gzipSync(text, { level: 9 });
  write(path, gz);
  return { ...report, bytes: gz.length };
}
