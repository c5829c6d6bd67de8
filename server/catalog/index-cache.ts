/**
 * The catalog index cache: the trip index's stop_times (StopTimesIndex) and shapes (ShapeIndex),
 * and the departure index, written once per dataset content into one file, `<indexDir>/catalog-<key>.bin`, and memory-mapped
 * at the next load instead of being built (pages shared between worker processes, backed by the page
 * cache). key = a hash of the format version and the manifest's sorted (sha1, path) version list.
 *
 * Layout: 8 bytes magic, u32 header length, u32 zero, the JSON header (key, total size, the trip
 * ids' count and the arrays: name, type, byte offset, length; scalars in `meta`), then every array
 * at an 8-byte aligned offset. Written to a temp file, fsynced and renamed into place (concurrent
 * writers write identical content; whoever renames last wins). A file that does not parse, has the
 * wrong size or key, or was built for other trips is ignored (and rebuilt).
 */
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, renameSync, statSync, unlinkSync, writeSync } from "node:fs";
import { createHash } from "node:crypto";
import { join } from "node:path";
import type { Manifest } from "../../pipeline/schema/manifest.ts";
import { IntColumn, PackedColumns, ShapeIndex, StopTimesIndex, type TripIndex } from "./tripindex.ts";
import { DepartureIndex } from "./departure-index.ts";

/** bump when the layout or what the arrays mean changes */
export const INDEX_FORMAT_VERSION = 2;
const MAGIC = "ICATIX01";

type Arr = Uint8Array | Uint16Array | Uint32Array | Int32Array | Float64Array;
const TYPES = { Uint8Array, Uint16Array, Uint32Array, Int32Array, Float64Array } as const;
type TypeName = keyof typeof TYPES;

interface Header {
  key: string;
  size: number;
  arrays: { name: string; type: TypeName; offset: number; length: number }[];
  meta: Record<string, unknown>;
}

/** The cache key of a manifest's content. */
export function indexKey(m: Manifest): string {
  const list = m.versions.map((v) => `${v.sha1}\t${v.path}`).sort();
  return createHash("sha1").update(`catalog-index v${INDEX_FORMAT_VERSION}\n${list.join("\n")}`).digest("hex").slice(0, 20);
}

export function indexPath(indexDir: string, key: string): string {
  return join(indexDir, `catalog-${key}.bin`);
}

/** An opened cache file: its arrays as views on the mapping, and the scalars. */
export class IndexFile {
  private constructor(
    private readonly arrays: Map<string, Arr>,
    readonly meta: Record<string, unknown>,
  ) {}

  /** The file of `key` mapped, or null when absent or not valid (torn, garbage, another key). */
  static open(path: string, key: string): IndexFile | null {
    try {
      if (!existsSync(path) || statSync(path).size < 16) return null;
      const buf = Bun.mmap(path, { shared: false });
      if (new TextDecoder().decode(buf.subarray(0, 8)) !== MAGIC) return null;
      const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
      const hlen = dv.getUint32(8, true);
      if (16 + hlen > buf.byteLength) return null;
      const h = JSON.parse(new TextDecoder().decode(buf.subarray(16, 16 + hlen))) as Header;
      if (h.key !== key || h.size !== buf.byteLength) return null;
      const arrays = new Map<string, Arr>();
      for (const a of h.arrays) {
        const T = TYPES[a.type];
        if (!T || a.offset % 8 !== 0 || a.offset + a.length * T.BYTES_PER_ELEMENT > buf.byteLength) return null;
        arrays.set(a.name, new T(buf.buffer, buf.byteOffset + a.offset, a.length));
      }
      return new IndexFile(arrays, h.meta);
    } catch {
      return null;
    }
  }

  get<T extends Arr>(name: string): T {
    const a = this.arrays.get(name);
    if (!a) throw new Error(`index cache has no array ${name}`);
    return a as T;
  }
  has(name: string): boolean {
    return this.arrays.has(name);
  }
}

/** Write the arrays and scalars into `path` atomically (temp file, fsync, rename). */
export function writeIndexFile(path: string, key: string, arrays: [string, Arr][], meta: Record<string, unknown>): void {
  const dir = join(path, "..");
  mkdirSync(dir, { recursive: true });
  const align = (n: number) => Math.ceil(n / 8) * 8;
  // the header's length depends on the offsets and the offsets on it: fix the data start generously
  const entries = arrays.map(([name, a]) => ({ name, type: a.constructor.name as TypeName, offset: 0, length: a.length }));
  let header: Header = { key, size: 0, arrays: entries, meta };
  let start = align(16 + Buffer.byteLength(JSON.stringify(header)) + 64 + entries.length * 24);
  let off = start;
  for (const [k, [, a]] of arrays.entries()) {
    entries[k]!.offset = off;
    off = align(off + a.byteLength);
  }
  header = { key, size: off, arrays: entries, meta };
  const hjson = Buffer.from(JSON.stringify(header));
  if (16 + hjson.length > start) throw new Error("index cache header larger than reserved");
  const tmp = `${path}.${process.pid}.${Date.now()}.tmp`;
  const fd = openSync(tmp, "w");
  try {
    const head = Buffer.alloc(start);
    head.write(MAGIC, 0, "latin1");
    head.writeUInt32LE(hjson.length, 8);
    hjson.copy(head, 16);
    writeSync(fd, head, 0, head.length, 0);
    for (const [k, [, a]] of arrays.entries()) {
      const bytes = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
      let done = 0;
      while (done < bytes.length) done += writeSync(fd, bytes, done, Math.min(bytes.length - done, 1 << 30), entries[k]!.offset + done);
    }
    // the padding after the last array
    if (off > 0) writeSync(fd, Buffer.alloc(1), 0, 1, off - 1);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  try {
    const dfd = openSync(dir, "r");
    fsyncSync(dfd);
    closeSync(dfd);
  } catch {
    // directory fsync is best effort
  }
}

/** Remove the catalog-*.bin files in `indexDir` other than `keep` (and temp files of writers that died). */
export function removeOtherIndexFiles(indexDir: string, keep: string): void {
  if (!existsSync(indexDir)) return;
  for (const f of readdirSync(indexDir)) {
    if (!f.startsWith("catalog-") || join(indexDir, f) === keep) continue;
    // temp files: only those of a writer that died (an hour old), not one being written now
    if (!f.endsWith(".bin") && !(f.endsWith(".tmp") && mtimeOf(join(indexDir, f)) < Date.now() - 3_600_000)) continue;
    try {
      unlinkSync(join(indexDir, f));
    } catch {
      // another process removed it
    }
  }
}

function mtimeOf(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return Infinity;
  }
}

/** The arrays and scalars of the stop_times and departure indexes, for writeIndexFile. */
export function catalogIndexParts(ix: TripIndex, dep: DepartureIndex): { arrays: [string, Arr][]; meta: Record<string, unknown> } | null {
  const st = ix.stopTimes;
  if (!st) return null;
  const arrays: [string, Arr][] = [
    ["trip.ids", ix.ids],
    ["st.offsets", st.offsets],
  ];
  const meta: Record<string, unknown> = { headsigns: st.headsigns };
  for (const k of ["seq", "stop", "arrival", "dwell", "headsign"] as const) {
    const p = st[k].parts();
    arrays.push([`st.${k}`, p.a]);
    meta[`st.${k}`] = { base: p.base, nullCode: p.nullCode };
  }
  const f = st.flags.parts();
  const fc = f.col.parts();
  arrays.push(["st.flags", fc.a]);
  meta["st.flags"] = { base: fc.base, nullCode: fc.nullCode, radix: f.radix, fieldBase: f.base, mult: f.mult, narrow: f.narrow };
  const d = dep.parts();
  for (const k of ["slotStops", "starts", "rows", "freqStops", "freqStarts", "freqRows"] as const) arrays.push([`dep.${k}`, d[k]]);
  meta["dep.maxTime"] = d.maxTime;
  arrays.push(...shapeParts(ix.shapes));
  return { arrays, meta };
}

/**
 * The shapes' arrays: points, offsets, generated flags, and each shape's key (its version, and its
 * shape_id in one NUL-separated UTF-8 text). None when a shape_id holds a NUL (then shapes are read
 * from Parquet at every load).
 */
function shapeParts(sh: ShapeIndex): [string, Arr][] {
  const n = sh.offsets.length - 1;
  const fv = new Int32Array(n);
  const ids: string[] = new Array(n);
  for (const [key, s] of sh.byKey) {
    const cut = key.indexOf("\u0000");
    const id = key.slice(cut + 1);
    if (id.includes("\u0000")) return [];
    fv[s] = Number(key.slice(0, cut));
    ids[s] = id;
  }
  if (sh.byKey.size !== n) return [];
  return [
    ["sh.offsets", sh.offsets],
    ["sh.generated", sh.generated],
    ["sh.lat", sh.lat],
    ["sh.lon", sh.lon],
    ["sh.fv", fv],
    ["sh.ids", new TextEncoder().encode(ids.join("\u0000"))],
  ];
}

/** The shapes from the file into `sh`; false (nothing set) when the file has none. */
export function shapesFromFile(f: IndexFile, sh: ShapeIndex): boolean {
  if (!f.has("sh.offsets") || !f.has("sh.ids")) return false;
  const fv = f.get<Int32Array>("sh.fv");
  const bytes = f.get<Uint8Array>("sh.ids");
  const ids = fv.length === 0 ? [] : new TextDecoder().decode(bytes).split("\u0000");
  if (ids.length !== fv.length || f.get<Int32Array>("sh.offsets").length !== fv.length + 1) return false;
  sh.offsets = f.get<Int32Array>("sh.offsets");
  sh.generated = f.get<Uint8Array>("sh.generated");
  sh.lat = f.get<Float64Array>("sh.lat");
  sh.lon = f.get<Float64Array>("sh.lon");
  for (let s = 0; s < fv.length; s++) sh.byKey.set(ShapeIndex.key(fv[s]!, ids[s]!), s);
  return true;
}

/** The stop_times index from the file, or null when it was built for other trips. */
export function stopTimesFromFile(f: IndexFile, ix: TripIndex): StopTimesIndex | null {
  const ids = f.get<Int32Array>("trip.ids");
  if (ids.length !== ix.ids.length) return null;
  for (let i = 0; i < ids.length; i++) if (ids[i] !== ix.ids[i]) return null;
  const col = (k: string) => {
    const m = f.meta[`st.${k}`] as { base: number; nullCode: number };
    return IntColumn.fromParts({ a: f.get<Uint8Array>(`st.${k}`), base: m.base, nullCode: m.nullCode });
  };
  const fm = f.meta["st.flags"] as { base: number; nullCode: number; radix: number[]; fieldBase: number[]; mult: number[]; narrow: boolean };
  const flags = PackedColumns.fromParts({
    col: IntColumn.fromParts({ a: f.get<Uint8Array>("st.flags"), base: fm.base, nullCode: fm.nullCode }),
    radix: fm.radix,
    base: fm.fieldBase,
    mult: fm.mult,
    narrow: fm.narrow,
  });
  return new StopTimesIndex(f.get<Int32Array>("st.offsets"), col("seq"), col("stop"), col("arrival"), col("dwell"), col("headsign"), [...(f.meta.headsigns as string[])], flags);
}

/** The departure index from the file (over the trip index whose stop_times came from it). */
export function departuresFromFile(f: IndexFile, ix: TripIndex): DepartureIndex {
  return DepartureIndex.fromParts(ix, {
    slotStops: f.get("dep.slotStops"),
    starts: f.get("dep.starts"),
    rows: f.get("dep.rows"),
    freqStops: f.get("dep.freqStops"),
    freqStarts: f.get("dep.freqStarts"),
    freqRows: f.get("dep.freqRows"),
    maxTime: Number(f.meta["dep.maxTime"]),
  });
}
