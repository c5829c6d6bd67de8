/**
 * Elevation input for the embedded Valhalla engine: SRTM .hgt(.gz) tiles and GeoTIFF DEMs → 1-arc-second
 * "skadi" tiles (<dir>/N43/N43E007.hgt, 3601×3601 big-endian int16), the only layout and resolution
 * Valhalla 3.6.1 reads correctly (it reads a 3-arc-second tile as 0 m everywhere).
 */
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readSync, statSync, writeFileSync, type Stats } from "node:fs";
import { basename, dirname, join } from "node:path";
import { gunzipSync } from "node:zlib";
import { fromFile, type GeoTIFF, type GeoTIFFImage, type TypedArrayArrayWithDimensions } from "geotiff";
import { DataError } from "../report.ts";

export interface ElevationTileReport {
  /** e.g. "N43E007" */
  tile: string;
  /** the input file; when several inputs were merged into the tile, all of them joined by " + " in input order */
  source: string;
  /** how the first (base) input became the tile */
  from: "hgt-3601" | "hgt-1201-resampled" | "geotiff";
  /** samples without data in the tile as written */
  voids: number;
}

/** Samples per row/column of a 1-arc-second tile (both edges included). */
const N = 3601;
/** Samples per row/column of a 3-arc-second tile. */
const N3 = 1201;
/** SRTM's no-data value. */
const VOID = -32768;
const TILE_BYTES = N * N * 2;
const TILE3_BYTES = N3 * N3 * 2;

/** A tile's south-west corner in whole degrees. */
interface TileId {
  lat: number;
  lon: number;
}

/** "N43E007" / "S01W078" for a south-west corner. */
function tileName({ lat, lon }: TileId): string {
  const ns = lat < 0 ? "S" : "N";
  const ew = lon < 0 ? "W" : "E";
  return `${ns}${String(Math.abs(lat)).padStart(2, "0")}${ew}${String(Math.abs(lon)).padStart(3, "0")}`;
}

/** Path of a tile in the skadi layout: <dir>/N43/N43E007.hgt. */
function tilePath(dir: string, name: string): string {
  return join(dir, name.slice(0, 3), `${name}.hgt`);
}

/**
 * Writes skadi tiles (N43/N43E007.hgt, uncompressed 3601x3601) for every input into outDir; returns
 * one entry per tile written. Throws DataError (pipeline/report.ts) with a clear message on bad input
 * (wrong size, truncated, not a DEM, unsupported CRS, file missing).
 *
 * Several inputs covering the same tile are merged in input order: the first one makes the tile and
 * each later one only fills the samples that are still void (so list the preferred source first).
 */
export async function writeElevationTiles(inputs: string[], outDir: string, progress?: (msg: string) => void): Promise<ElevationTileReport[]> {
  const written = new Map<string, ElevationTileReport>();
  for (const file of inputs) {
    if (!existsSync(file) || !statSync(file).isFile()) throw new DataError("no such file", file);
    const started = performance.now();
    const tiles = kindOf(file) === "hgt" ? [hgtTile(file)] : await geotiffTiles(file);
    for (const t of tiles) {
      const prev = written.get(t.name);
      const path = tilePath(outDir, t.name);
      // a tile written earlier in this call is the base; this input only fills its voids
      const data = prev ? fillVoids(readTile(path), t.data) : t.data;
      writeTile(path, data);
      const voids = countVoids(data);
      written.set(t.name, prev ? { ...prev, source: `${prev.source} + ${file}`, voids } : { tile: t.name, source: file, from: t.from, voids });
    }
    const ms = Math.round(performance.now() - started);
    progress?.(`elevation: ${basename(file)} → ${tiles.map((t) => t.name).join(", ") || "no tile"} (${tiles[0]?.from ?? "empty"}, ${ms} ms)`);
  }
  return [...written.values()];
}

/** One tile made from an input, in memory (host-endian samples, VOID for no data). */
interface MadeTile {
  name: string;
  from: ElevationTileReport["from"];
  data: Int16Array;
}

/** hgt or GeoTIFF, from the name; a GeoTIFF under another name is recognised by its first bytes. */
function kindOf(file: string): "hgt" | "tiff" {
  const lower = file.toLowerCase();
  if (lower.endsWith(".hgt") || lower.endsWith(".hgt.gz")) return "hgt";
  if (lower.endsWith(".tif") || lower.endsWith(".tiff") || isTiff(readHead(file))) return "tiff";
  throw new DataError("not an elevation file: expected an SRTM tile (.hgt, .hgt.gz) or a GeoTIFF DEM (.tif)", file);
}

/** The first 4 bytes of a file (fewer when it is shorter). */
function readHead(file: string): Uint8Array {
  const fd = openSync(file, "r");
  try {
    const b = new Uint8Array(4);
    return b.subarray(0, readSync(fd, b, 0, 4, 0));
  } finally {
    closeSync(fd);
  }
}

/** TIFF (II*\0, MM\0*) or BigTIFF (II+\0, MM\0+) magic. */
function isTiff(b: Uint8Array): boolean {
  if (b.length < 4) return false;
  const le = b[0] === 0x49 && b[1] === 0x49 && (b[2] === 42 || b[2] === 43) && b[3] === 0;
  const be = b[0] === 0x4d && b[1] === 0x4d && b[2] === 0 && (b[3] === 42 || b[3] === 43);
  return le || be;
}

// ---------------------------------------------------------------------------------------------
// SRTM .hgt

/** South-west corner from an SRTM file name; a prefix (e.g. a download's "elevation-0-") is allowed. */
function parseHgtName(file: string): TileId | null {
  const m = /(?:^|[^A-Za-z0-9])([NS])(\d{2})([EW])(\d{3})\.hgt(?:\.gz)?$/i.exec(basename(file));
  if (!m) return null;
  const lat = Number(m[2]) * (m[1]!.toUpperCase() === "S" ? -1 : 1);
  const lon = Number(m[4]) * (m[3]!.toUpperCase() === "W" ? -1 : 1);
  if (lat < -90 || lat > 89 || lon < -180 || lon > 179) return null;
  return { lat, lon };
}

/** An .hgt(.gz) input as a 1-arc-second tile: copied when it is one, resampled when it is 3-arc-second. */
function hgtTile(file: string): MadeTile {
  const id = parseHgtName(file);
  if (!id) throw new DataError(`not an SRTM tile name: expected e.g. N43E007.hgt or S01W078.hgt.gz (the name gives the tile's south-west corner)`, file);
  const gz = file.toLowerCase().endsWith(".gz");
  const wrongSize = (size: string) =>
    new DataError(`${size}: an SRTM tile has ${TILE3_BYTES} (3-arc-second, 1201×1201) or ${TILE_BYTES} (1-arc-second, 3601×3601) bytes; truncated or not an .hgt tile`, file);
  // the size is known before reading: a wrong one is refused without loading the file
  const size = statSync(file).size;
  if (!gz && size !== TILE_BYTES && size !== TILE3_BYTES) throw wrongSize(`${size} bytes`);
  let bytes: Uint8Array = readFileSync(file);
  if (gz) {
    try {
      // one byte more than the largest tile is enough to tell "too large" without inflating it all
      bytes = gunzipSync(bytes, { maxOutputLength: TILE_BYTES + 1 });
    } catch (e) {
      if ((e as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") throw wrongSize(`more than ${TILE_BYTES} bytes uncompressed`);
      throw new DataError(`not a readable gzip file (${(e as Error).message})`, file);
    }
  }
  const name = tileName(id);
  if (bytes.length === TILE_BYTES) return { name, from: "hgt-3601", data: int16BigEndian(bytes) };
  if (bytes.length === TILE3_BYTES) return { name, from: "hgt-1201-resampled", data: resample1201(int16BigEndian(bytes)) };
  throw wrongSize(`${bytes.length} bytes uncompressed`);
}

/** Big-endian int16 samples → host-endian Int16Array (copied: the input may be unaligned). */
function int16BigEndian(bytes: Uint8Array): Int16Array {
  const out = new Int16Array(bytes.length >> 1);
  const u8 = new Uint8Array(out.buffer);
  u8.set(bytes);
  Buffer.from(out.buffer).swap16();
  return out;
}

/**
 * 1201×1201 → 3601×3601, bilinear. Every third output sample is a source sample (weights 1 and 0),
 * so the source grid is reproduced exactly. Void rule: an output sample is void when any source
 * sample it draws on with a non-zero weight is void; interpolating towards -32768 would make cliffs,
 * and guessing a value is not ours to do (Valhalla treats void as "no elevation").
 * Each source cell is visited once per output row: interpolated vertically at its two columns, then
 * the three output samples between them (weights 0, ⅓, ⅔) are taken from those.
 */
function resample1201(src: Int16Array): Int16Array {
  const out = new Int16Array(N * N);
  for (let R = 0; R < N; R++) {
    const r0 = (R / 3) | 0;
    const fr = (R % 3) / 3;
    const row0 = r0 * N3;
    // on a source row (fr = 0) the row below is not used: read the same row again
    const row1 = fr > 0 ? row0 + N3 : row0;
    const o = R * N;
    let left = 0;
    let leftVoid = false;
    for (let k = 0; k < N3; k++) {
      const a = src[row0 + k]!, c = src[row1 + k]!;
      const rightVoid = a === VOID || c === VOID;
      const right = a + (c - a) * fr;
      if (k > 0) {
        // output columns 3k-2 and 3k-1 lie between source columns k-1 (left) and k (right)
        const v = leftVoid || rightVoid;
        const d = right - left;
        out[o + 3 * k - 2] = v ? VOID : Math.round(left + d / 3);
        out[o + 3 * k - 1] = v ? VOID : Math.round(left + (2 * d) / 3);
      }
      out[o + 3 * k] = rightVoid ? VOID : Math.round(right);
      left = right;
      leftVoid = rightVoid;
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Tiles on disk

/** Host-endian samples → big-endian .hgt file (folders made as needed). */
function writeTile(path: string, data: Int16Array): void {
  const bytes = Buffer.from(new Uint8Array(data.buffer, data.byteOffset, data.byteLength).slice());
  bytes.swap16();
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, bytes);
}

/** A written 3601×3601 tile, host-endian. */
function readTile(path: string): Int16Array {
  return int16BigEndian(readFileSync(path));
}

/** base's void samples taken from more (in place); returns base. */
function fillVoids(base: Int16Array, more: Int16Array): Int16Array {
  for (let i = 0; i < base.length; i++) if (base[i] === VOID) base[i] = more[i]!;
  return base;
}

function countVoids(data: Int16Array): number {
  let n = 0;
  for (let i = 0; i < data.length; i++) if (data[i] === VOID) n++;
  return n;
}

// ---------------------------------------------------------------------------------------------
// GeoTIFF

/** GeoTIFF geo keys read here (GeoTIFF 1.1 §7). */
const MODEL_TYPE_PROJECTED = 1;
const MODEL_TYPE_GEOGRAPHIC = 2;
const RASTER_PIXEL_IS_POINT = 2;
const ANGULAR_UNIT_DEGREE = 9102;

/** Where a GeoTIFF's pixels are: pixel (col,row)'s centre is at lon = x0 + col·dx, lat = y0 − row·dy. */
interface PixelGrid {
  width: number;
  height: number;
  x0: number;
  y0: number;
  dx: number;
  dy: number;
}

/** The 1°×1° tiles a GeoTIFF DEM overlaps, each sampled bilinearly from it. */
async function geotiffTiles(file: string): Promise<MadeTile[]> {
  if (!isTiff(readHead(file))) throw new DataError("not a TIFF file (no TIFF header): expected a GeoTIFF DEM", file);
  let tiff: GeoTIFF;
  let image: GeoTIFFImage;
  try {
    tiff = await fromFile(file);
    image = await tiff.getImage(0);
  } catch (e) {
    throw new DataError(`not a readable TIFF (${(e as Error).message})`, file);
  }
  try {
    const grid = pixelGrid(image, file);
    const nodata = image.getGDALNoData();
    const tiles: MadeTile[] = [];
    for (const id of overlappedTiles(grid)) {
      const window = await readWindow(image, grid, id, file);
      tiles.push({ name: tileName(id), from: "geotiff", data: sampleGrid(window, id, nodata) });
    }
    return tiles;
  } finally {
    await tiff.close();
  }
}

/**
 * Pixel centres in degrees from the georeferencing, after checking the CRS. Any geographic CRS
 * (EPSG 4326 WGS84, 4269 NAD83, 4258 ETRS89, or a user-defined geographic model) is taken as WGS84
 * degrees: the datum shifts between them are at most a few metres horizontally, far below what
 * matters for elevation on a 30 m grid. Projected CRSs would need a reprojection library: refused.
 */
function pixelGrid(image: GeoTIFFImage, file: string): PixelGrid {
  const keys = image.getGeoKeys();
  if (!keys) throw new DataError("a TIFF without georeferencing (no GeoKeys): not a GeoTIFF DEM", file);
  const model = keys.GTModelTypeGeoKey ?? (keys.ProjectedCSTypeGeoKey ? MODEL_TYPE_PROJECTED : keys.GeographicTypeGeoKey ? MODEL_TYPE_GEOGRAPHIC : undefined);
  if (model === MODEL_TYPE_PROJECTED) {
    const epsg = keys.ProjectedCSTypeGeoKey;
    throw new DataError(`projected CRS not supported${epsg && epsg !== 32767 ? ` (EPSG:${epsg})` : ""}; reproject to EPSG:4326 (e.g. gdalwarp -t_srs EPSG:4326)`, file);
  }
  if (model !== MODEL_TYPE_GEOGRAPHIC) throw new DataError(`unsupported CRS (GeoTIFF model type ${model ?? "missing"}); expected a geographic CRS such as EPSG:4326`, file);
  const unit = keys.GeogAngularUnitsGeoKey;
  if (unit !== undefined && unit !== ANGULAR_UNIT_DEGREE) throw new DataError(`unsupported angular unit ${unit} (only degrees, 9102)`, file);

  const { x, y, dx, dy } = affine(image, file);
  // raster space (0,0) is the corner of the first pixel for PixelIsArea (the default) and its
  // centre for PixelIsPoint: the centre of pixel (col,row) is at raster (col+½,row+½) resp. (col,row)
  const half = keys.GTRasterTypeGeoKey === RASTER_PIXEL_IS_POINT ? 0 : 0.5;
  const grid = { width: image.getWidth(), height: image.getHeight(), x0: x + half * dx, y0: y - half * dy, dx, dy };
  const [w, s, e, n] = footprint(grid);
  if (!(w >= -180 && e <= 180 && s >= -90 && n <= 90)) {
    throw new DataError(`extent ${w},${s} .. ${e},${n} is not in degrees of longitude/latitude although the CRS says geographic`, file);
  }
  return grid;
}

/** Model coordinates of raster point (0,0) and the pixel size (dy positive, rows going south). */
function affine(image: GeoTIFFImage, file: string): { x: number; y: number; dx: number; dy: number } {
  const dirTags = image.fileDirectory;
  const tie = dirTags.getValue("ModelTiepoint") as ArrayLike<number> | undefined;
  const scale = dirTags.getValue("ModelPixelScale") as ArrayLike<number> | undefined;
  const m = dirTags.getValue("ModelTransformation") as ArrayLike<number> | undefined;
  if (tie && tie.length >= 6 && scale && scale.length >= 2) {
    // tiepoint: raster (I,J) ↔ model (X,Y); only the first is used (others would be ground control points)
    const [I, J, , X, Y] = [tie[0]!, tie[1]!, tie[2]!, tie[3]!, tie[4]!];
    return checkedAffine({ x: X - I * scale[0]!, y: Y + J * scale[1]!, dx: scale[0]!, dy: scale[1]! }, file);
  }
  if (m && m.length >= 16) {
    if (m[1] !== 0 || m[4] !== 0) throw new DataError("rotated or sheared raster (ModelTransformation) not supported; warp it north-up first (gdalwarp)", file);
    return checkedAffine({ x: m[3]!, y: m[7]!, dx: m[0]!, dy: -m[5]! }, file);
  }
  throw new DataError("no georeferencing (ModelTiepoint + ModelPixelScale or ModelTransformation): not a GeoTIFF DEM", file);
}

function checkedAffine<T extends { dx: number; dy: number }>(a: T, file: string): T {
  if (!(a.dx > 0 && a.dy > 0)) throw new DataError(`unsupported pixel size ${a.dx} × ${-a.dy} (expected columns going east and rows going south)`, file);
  return a;
}

/**
 * The area the raster covers: half a pixel around the outer pixel centres (for PixelIsPoint too, as
 * GDAL does). Inside it a sample is interpolated (clamped to the edge pixels); outside it is void.
 */
function footprint(g: PixelGrid): [number, number, number, number] {
  return [g.x0 - g.dx / 2, g.y0 - (g.height - 0.5) * g.dy, g.x0 + (g.width - 0.5) * g.dx, g.y0 + g.dy / 2];
}

/** Tiles whose interior the footprint overlaps (a footprint ending exactly on a degree line does not take the next tile). */
function overlappedTiles(g: PixelGrid): TileId[] {
  const [w, s, e, n] = footprint(g);
  const ids: TileId[] = [];
  for (let lat = Math.floor(s); lat < n; lat++) for (let lon = Math.floor(w); lon < e; lon++) ids.push({ lat, lon });
  return ids;
}

/** The pixels of the raster that one tile needs (with a margin for interpolation), as the raster stores them. */
interface RasterWindow {
  grid: PixelGrid;
  /** first pixel column/row of the window */
  col: number;
  row: number;
  cols: number;
  rows: number;
  values: ArrayLike<number>;
  /** the raster's typed array kind, to compare with the no-data value in the same precision */
  float32: boolean;
}

async function readWindow(image: GeoTIFFImage, g: PixelGrid, id: TileId, file: string): Promise<RasterWindow> {
  const col = clamp(Math.floor((id.lon - g.x0) / g.dx) - 1, 0, g.width - 1);
  const col1 = clamp(Math.ceil((id.lon + 1 - g.x0) / g.dx) + 2, 1, g.width);
  const row = clamp(Math.floor((g.y0 - (id.lat + 1)) / g.dy) - 1, 0, g.height - 1);
  const row1 = clamp(Math.ceil((g.y0 - id.lat) / g.dy) + 2, 1, g.height);
  let raster: TypedArrayArrayWithDimensions;
  try {
    // the first band: a DEM has one (a second one would be e.g. an alpha mask)
    raster = await image.readRasters({ window: [col, row, col1, row1], samples: [0] });
  } catch (e) {
    throw new DataError(`cannot decode the raster (${(e as Error).message})`, file);
  }
  const values = raster[0] as unknown as ArrayLike<number>;
  return { grid: g, col, row, cols: col1 - col, rows: row1 - row, values, float32: values instanceof Float32Array };
}

function clamp(v: number, lo: number, hi: number): number {
  return v < lo ? lo : v > hi ? hi : v;
}

/**
 * The 3601×3601 samples of one tile, bilinear from the window's pixel centres, rounded to whole
 * metres. Void where the sample is outside the raster's footprint, or any pixel used with a
 * non-zero weight is no-data (the GDAL_NODATA value, NaN, or outside int16: a fill value, not terrain).
 */
function sampleGrid(w: RasterWindow, id: TileId, nodata: number | null): Int16Array {
  const g = w.grid;
  const [fw, fs, fe, fn] = footprint(g);
  const nd = nodata === null ? NaN : w.float32 ? Math.fround(nodata) : nodata;
  const usable = (v: number) => v === v && v !== nd && v > VOID && v <= 32767;
  // per column: the two window columns and the weight of the second; -1 = outside the footprint
  const c0s = new Int32Array(N), c1s = new Int32Array(N), fcs = new Float64Array(N);
  for (let C = 0; C < N; C++) {
    const lon = id.lon + C / 3600;
    if (lon < fw || lon > fe) {
      c0s[C] = -1;
      continue;
    }
    const x = clamp((lon - g.x0) / g.dx, 0, g.width - 1);
    const c0 = Math.min(Math.floor(x), g.width - 1);
    const f = x - c0;
    c0s[C] = c0 - w.col;
    c1s[C] = (f > 0 ? c0 + 1 : c0) - w.col;
    fcs[C] = f;
  }
  const out = new Int16Array(N * N).fill(VOID);
  const v = w.values;
  for (let R = 0; R < N; R++) {
    const lat = id.lat + 1 - R / 3600;
    if (lat < fs || lat > fn) continue;
    const y = clamp((g.y0 - lat) / g.dy, 0, g.height - 1);
    const r0 = Math.min(Math.floor(y), g.height - 1);
    const fr = y - r0;
    const row0 = (r0 - w.row) * w.cols;
    const row1 = ((fr > 0 ? r0 + 1 : r0) - w.row) * w.cols;
    const o = R * N;
    for (let C = 0; C < N; C++) {
      const c0 = c0s[C]!;
      if (c0 < 0) continue;
      const c1 = c1s[C]!, fc = fcs[C]!;
      const a = v[row0 + c0]!, b = v[row0 + c1]!, c = v[row1 + c0]!, d = v[row1 + c1]!;
      // a zero weight makes c1 == c0 / row1 == row0, so only pixels actually used are tested
      if (!usable(a) || !usable(b) || !usable(c) || !usable(d)) continue;
      const top = a + (b - a) * fc;
      const value = Math.round(top + (c + (d - c) * fc - top) * fr);
      if (value > VOID && value <= 32767) out[o + C] = value;
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Reading written tiles

/**
 * Open tiles by path, with the size and mtime they were read at (a rewritten tile is read again).
 * At most MAX_OPEN_TILES (26 MB each), the oldest dropped first.
 */
const openTiles = new Map<string, { mtimeMs: number; size: number; data: Int16Array | null }>();
const MAX_OPEN_TILES = 8;

/** A written tile's samples, or null when the folder has no such tile. */
function tileData(dir: string, name: string): Int16Array | null {
  const path = tilePath(dir, name);
  let st: Stats | undefined;
  try {
    st = statSync(path);
  } catch {
    st = undefined;
  }
  const cached = openTiles.get(path);
  if (cached && (st ? cached.mtimeMs === st.mtimeMs && cached.size === st.size : cached.data === null)) return cached.data;
  const data = st && st.size === TILE_BYTES ? readTile(path) : null;
  if (openTiles.size >= MAX_OPEN_TILES) openTiles.delete(openTiles.keys().next().value!);
  openTiles.set(path, { mtimeMs: st?.mtimeMs ?? 0, size: st?.size ?? 0, data });
  return data;
}

/** Snaps a grid position within 1e-6 of a sample to it, so that grid points read back exactly. */
function snap(p: number): number {
  const r = Math.round(p);
  return Math.abs(p - r) < 1e-6 ? r : p;
}

/**
 * Reads one sample (metres, null for no data) from a written tile folder, bilinear: used by tests
 * and later by the planner. Same void rule as the resampling: null when a sample used with a
 * non-zero weight is void, or the tile is missing. Open tiles are cached (a few, by path).
 */
export function sampleElevation(dir: string, lat: number, lon: number): number | null {
  if (!(lat >= -90 && lat <= 90 && lon >= -180 && lon <= 180)) return null;
  // a point on a degree line is on the edge of two tiles (both hold it): the one north/east of the
  // line first, the other when that one is missing
  const south = Math.min(Math.floor(lat), 89), west = Math.min(Math.floor(lon), 179);
  for (const id of [
    { lat: south, lon: west },
    { lat: south - 1, lon: west },
    { lat: south, lon: west - 1 },
    { lat: south - 1, lon: west - 1 },
  ]) {
    const y = snap((id.lat + 1 - lat) * 3600);
    const x = snap((lon - id.lon) * 3600);
    if (y < 0 || y > N - 1 || x < 0 || x > N - 1) continue;
    const data = tileData(dir, tileName(id));
    if (data) return bilinear(data, y, x);
  }
  return null;
}

/** Bilinear at grid position (row y, column x); null when a sample used with a non-zero weight is void. */
function bilinear(data: Int16Array, y: number, x: number): number | null {
  const r0 = Math.min(Math.floor(y), N - 1), c0 = Math.min(Math.floor(x), N - 1);
  const fr = y - r0, fc = x - c0;
  const r1 = fr > 0 ? r0 + 1 : r0, c1 = fc > 0 ? c0 + 1 : c0;
  const a = data[r0 * N + c0]!, b = data[r0 * N + c1]!, c = data[r1 * N + c0]!, d = data[r1 * N + c1]!;
  if (a === VOID || b === VOID || c === VOID || d === VOID) return null;
  const top = a + (b - a) * fc;
  return top + (c + (d - c) * fc - top) * fr;
}
