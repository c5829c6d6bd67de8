/**
 * FEATURE UNDER TEST: elevation input for the embedded Valhalla engine: SRTM .hgt(.gz) tiles and
 * GeoTIFF DEMs become 1-arc-second skadi tiles (3601×3601) that Valhalla 3.6.1 reads; sampleElevation
 * reads them back bilinearly; bad inputs are DataErrors naming the file.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { fromFile, writeArrayBuffer, type GeotiffWriterMetadata } from "geotiff";
import { DataError } from "../../pipeline/report.ts";
import { sampleElevation, writeElevationTiles } from "../../pipeline/street/elevation.ts";
import { defaultValhallaConfig } from "../../pipeline/street/valhalla.ts";

const SHARED_ELEVATION = join(import.meta.dir, "..", "..", "..", "shared", "data", "elevation");
const MONACO = join(SHARED_ELEVATION, "N43E007.hgt.gz");
const PORTLAND = join(SHARED_ELEVATION, "portland-ned.tif");
const N = 3601;
const VOID = -32768;

const root = mkdtempSync(join(tmpdir(), "interchange-elevation-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let seq = 0;
/** A fresh folder under the test's temp dir. */
function dir(name: string): string {
  const d = join(root, `${++seq}-${name}`);
  mkdirSync(d, { recursive: true });
  return d;
}

/** Big-endian int16 file bytes → samples. */
function int16be(bytes: Uint8Array): Int16Array {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Int16Array(bytes.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = dv.getInt16(2 * i, false);
  return out;
}

function toInt16be(samples: Int16Array): Buffer {
  const b = Buffer.alloc(samples.length * 2);
  for (let i = 0; i < samples.length; i++) b.writeInt16BE(samples[i]!, 2 * i);
  return b;
}

/** The rejection of a promise (fails the test when it resolves). */
async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error("expected a rejection");
}

/** A single-band float32 GeoTIFF in a geographic CRS written with geotiff's own writer. */
function writeGeoTiff(file: string, values: Float32Array, width: number, meta: Partial<GeotiffWriterMetadata>): string {
  const metadata: GeotiffWriterMetadata = { width, height: values.length / width, GeographicTypeGeoKey: 4326, GTModelTypeGeoKey: 2, GeogAngularUnitsGeoKey: 9102, ...meta } as GeotiffWriterMetadata;
  writeFileSync(file, Buffer.from(writeArrayBuffer(values, metadata)));
  return file;
}

/**
 * Actors made by valhallaHeights, kept alive to the end: under Bun, an Actor made after an earlier
 * one was garbage-collected sometimes answers /height from the earlier one's elevation folder
 * (seen with 3.6.1: 5 runs in 15; never while the earlier one is still referenced).
 */
const actors: unknown[] = [];

/** Valhalla's own /height answer for points, over a folder of skadi tiles (no graph tiles needed). */
async function valhallaHeights(elevationDir: string, points: [number, number][]): Promise<(number | null)[]> {
  const config = await defaultValhallaConfig();
  config.additional_data.elevation = elevationDir;
  config.mjolnir.tile_dir = join(root, "no-tiles");
  config.mjolnir.tile_extract = join(root, "no-tiles.tar");
  config.mjolnir.logging = { type: "" };
  config.service_limits.skadi.min_resample = 0;
  const { Actor } = (await import("@valhallajs/valhallajs")) as unknown as { Actor: new (c: string) => { height(q: string): Promise<string> } };
  const actor = new Actor(JSON.stringify(config));
  actors.push(actor);
  const answer = JSON.parse(await actor.height(JSON.stringify({ shape: points.map(([lat, lon]) => ({ lat, lon })) })));
  return answer.height;
}

/** Monaco's tile, written once for the tests that read it. */
const monacoDir = dir("monaco");
let monaco: ReturnType<typeof writeElevationTiles> | undefined;
const monacoTiles = () => (monaco ??= writeElevationTiles([MONACO], monacoDir));

describe("SRTM tiles", () => {
  const out = monacoDir;

  test("a 3-arc-second .hgt.gz is resampled to a 3601×3601 tile that reproduces every source sample", async () => {
    expect(await monacoTiles()).toEqual([{ tile: "N43E007", source: MONACO, from: "hgt-1201-resampled", voids: expect.any(Number) }]);
    const tileBytes = readFileSync(join(out, "N43", "N43E007.hgt"));
    expect(tileBytes.length).toBe(N * N * 2);
    const tile = int16be(tileBytes);
    const src = int16be(gunzipSync(readFileSync(MONACO)));
    expect(src.length).toBe(1201 * 1201);
    let mismatches = 0;
    let sourceVoids = 0;
    for (let r = 0; r < 1201; r++) {
      for (let c = 0; c < 1201; c++) {
        const s = src[r * 1201 + c]!;
        if (s === VOID) sourceVoids++;
        if (tile[3 * r * N + 3 * c] !== s) mismatches++;
      }
    }
    expect(mismatches).toBe(0);
    expect(sourceVoids).toBe(1595); // SOURCES.md
    // a void source sample voids the output samples that draw on it: more voids than in the source
    expect((await monacoTiles())[0]!.voids).toBeGreaterThan(1595 * 9);
    // sampleElevation at grid points gives the source values exactly (row 0 = lat 44, column 0 = lon 7)
    for (const [r, c] of [[806, 506], [807, 505], [600, 600], [1200, 0], [0, 1200]] as const) {
      const s = src[r * 1201 + c]!;
      expect(sampleElevation(out, 44 - r / 1200, 7 + c / 1200)).toBe(s === VOID ? null : s);
    }
  });

  test("known places in Monaco have plausible heights, and Valhalla reads the same from the tile", async () => {
    await monacoTiles();
    const places: { name: string; at: [number, number]; min: number; max: number }[] = [
      { name: "Port Hercule basin", at: [43.735, 7.4245], min: -5, max: 20 },
      { name: "Port Hercule, west quay", at: [43.7347, 7.422], min: -5, max: 20 },
      { name: "Prince's Palace (Monaco-Ville, on the Rock)", at: [43.7314, 7.4198], min: 40, max: 65 },
      { name: "upper Beausoleil, by the Moyenne Corniche", at: [43.749, 7.418], min: 200, max: 500 },
      { name: "Mont Agel (summit 1148 m)", at: [43.7758, 7.425], min: 950, max: 1160 },
    ];
    const heights = places.map((p) => sampleElevation(out, ...p.at));
    for (const [i, p] of places.entries()) {
      expect({ place: p.name, ok: heights[i] !== null && heights[i]! >= p.min && heights[i]! <= p.max, height: heights[i] }).toMatchObject({ ok: true });
    }
    // the real engine: the tile is read (3.6.1 would answer 0 m everywhere for the 1201 source tile)
    const engine = await valhallaHeights(out, places.map((p) => p.at));
    for (const [i, h] of engine.entries()) expect(Math.abs(h! - heights[i]!)).toBeLessThanOrEqual(1);
  });

  test("a 3601×3601 .hgt is copied byte for byte; sampling is bilinear; a void neighbour gives null", async () => {
    const samples = new Int16Array(N * N);
    for (let r = 0; r < N; r++) for (let c = 0; c < N; c++) samples[r * N + c] = ((r * 7 + c * 3) % 5000) - 100;
    samples[1800 * N + 1800] = VOID;
    const input = join(dir("synthetic-in"), "S01W078.hgt");
    writeFileSync(input, toInt16be(samples));
    const out2 = dir("synthetic-out");
    const msgs: string[] = [];
    const report = await writeElevationTiles([input], out2, (m) => msgs.push(m));
    expect(report).toEqual([{ tile: "S01W078", source: input, from: "hgt-3601", voids: 1 }]);
    expect(msgs.join("\n")).toContain("S01W078");
    expect(readFileSync(join(out2, "S01", "S01W078.hgt")).equals(readFileSync(input))).toBe(true);
    // tile S01W078: row 0 = lat 0, column 0 = lon -78
    const at = (r: number, c: number) => sampleElevation(out2, -r / 3600, -78 + c / 3600);
    expect(at(10, 20)).toBe(10 * 7 + 20 * 3 - 100);
    expect(at(3600, 3600)).toBe(((3600 * 7 + 3600 * 3) % 5000) - 100); // the corner: found in this tile, not its neighbour
    // halfway between four samples: their mean (the pattern is linear there)
    expect(sampleElevation(out2, -10.5 / 3600, -78 + 20.5 / 3600)).toBeCloseTo((10.5 * 7 + 20.5 * 3) - 100, 6);
    expect(at(1800, 1800)).toBeNull();
    expect(sampleElevation(out2, -1800.5 / 3600, -78 + 1799.5 / 3600)).toBeNull();
    expect(at(1800, 1802)).toBe(((1800 * 7 + 1802 * 3) % 5000) - 100);
    // no tile there: no data
    expect(sampleElevation(out2, 10.5, 10.5)).toBeNull();
  });
});

describe("GeoTIFF DEMs", () => {
  test("Portland NED (NAD83, pixel-is-area) becomes tile N45W123 matching the raster at its pixel centres", async () => {
    const out = dir("portland");
    const report = await writeElevationTiles([PORTLAND], out);
    expect(report).toEqual([{ tile: "N45W123", source: PORTLAND, from: "geotiff", voids: expect.any(Number) }]);
    // the raster covers lon -122.71 .. -122.63, lat 45.49 .. 45.55: 289 × 217 tile samples, the rest void
    expect(report[0]!.voids).toBe(N * N - 289 * 217);
    const river = sampleElevation(out, 45.52, -122.67); // the Willamette between the Morrison and Burnside bridges
    const westHills = sampleElevation(out, 45.515, -122.705); // Washington Park
    const councilCrest = sampleElevation(out, 45.4986, -122.7081); // summit 327 m
    expect(river).toBeGreaterThanOrEqual(0);
    expect(river).toBeLessThanOrEqual(30);
    expect(westHills).toBeGreaterThan(river! + 100);
    expect(councilCrest).toBeGreaterThan(310);
    expect(councilCrest).toBeLessThan(340);
    expect(sampleElevation(out, 45.5253, -122.7163)).toBeNull(); // Pittock Mansion: west of the raster

    const tiff = await fromFile(PORTLAND);
    const raster = (await (await tiff.getImage()).readRasters({ samples: [0] }))[0] as Float32Array;
    await tiff.close();
    // pixel (col,row)'s centre: the tiepoint is the corner of pixel (0,0), pixels are 1/10800°
    const centre = (col: number, row: number) => [45.55 - (row + 0.5) / 10800, -122.71 + (col + 0.5) / 10800] as const;
    for (const [col, row] of [[432, 324], [100, 100], [50, 600], [800, 50], [300, 500]] as const) {
      expect(Math.abs(sampleElevation(out, ...centre(col, row))! - raster[row * 864 + col]!)).toBeLessThanOrEqual(1);
    }
    // over all pixels, reading at the centres beats reading half a pixel off (the pixel-is-point error)
    const meanError = (shift: number) => {
      let sum = 0, n = 0;
      for (let row = 2; row < 646; row += 3) {
        for (let col = 2; col < 862; col += 3) {
          const [lat, lon] = centre(col + shift, row + shift);
          sum += Math.abs(sampleElevation(out, lat, lon)! - raster[row * 864 + col]!);
          n++;
        }
      }
      return sum / n;
    };
    expect(meanError(0)).toBeLessThan(0.55);
    expect(meanError(0.5)).toBeGreaterThan(meanError(0) * 1.15);
    const engine = await valhallaHeights(out, [[45.52, -122.67], [45.515, -122.705], [45.4986, -122.7081]]);
    expect(engine).toEqual([river, westHills, councilCrest].map((h) => Math.round(h!)));
  });

  // A plane sampled on a 3-arc-second grid around the corner of four tiles: bilinear reproduces a
  // plane exactly, so every written sample must equal the plane at that place (to the rounding).
  const W = 240, H = 120, WEST = 6.9, NORTH = 44.05, STEP = 1 / 1200;
  const plane = (colf: number, rowf: number) => 10 * colf + 20 * rowf;
  const planeRaster = () => {
    const v = new Float32Array(W * H);
    for (let r = 0; r < H; r++) for (let c = 0; c < W; c++) v[r * W + c] = plane(c, r);
    return v;
  };
  const georef = { ModelPixelScale: [STEP, STEP, 0], ModelTiepoint: [0, 0, 0, WEST, NORTH, 0] };

  /** Every written sample inside the raster is the plane at its place, pixel centres offset by `half`. */
  async function expectPlane(out: string, half: number) {
    let checked = 0;
    for (let lat = 43.96; lat < 44.04; lat += 0.0071) {
      for (let lon = 6.91; lon < 7.09; lon += 0.0113) {
        // snap to the tile grid, then the plane in pixel units at that point
        const la = Math.round(lat * 3600) / 3600, lo = Math.round(lon * 3600) / 3600;
        const expected = plane((lo - WEST) / STEP - half, (NORTH - la) / STEP - half);
        expect(Math.abs(sampleElevation(out, la, lo)! - expected)).toBeLessThanOrEqual(0.5 + 1e-6);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(100);
  }

  test("pixel-is-area and pixel-is-point put the pixel centres where they belong; a raster over 4 tiles writes 4", async () => {
    const src = dir("plane-src");
    const area = writeGeoTiff(join(src, "area.tif"), planeRaster(), W, { ...georef, GTRasterTypeGeoKey: 1 });
    const point = writeGeoTiff(join(src, "point.tif"), planeRaster(), W, { ...georef, GTRasterTypeGeoKey: 2 });
    const outArea = dir("plane-area");
    const report = await writeElevationTiles([area], outArea);
    expect(report.map((r) => r.tile).sort()).toEqual(["N43E006", "N43E007", "N44E006", "N44E007"]);
    await expectPlane(outArea, 0.5);
    const outPoint = dir("plane-point");
    await writeElevationTiles([point], outPoint);
    await expectPlane(outPoint, 0);
    // tiles share their edges: the same samples on both sides of lat 44 and lon 7
    for (const lat of [43.99, 44.01]) {
      const lon = 7;
      const west = int16be(readFileSync(join(outArea, lat < 44 ? "N43" : "N44", lat < 44 ? "N43E006.hgt" : "N44E006.hgt")));
      const east = int16be(readFileSync(join(outArea, lat < 44 ? "N43" : "N44", lat < 44 ? "N43E007.hgt" : "N44E007.hgt")));
      const row = Math.round((Math.ceil(lat) - lat) * 3600);
      expect(west[row * N + 3600]).toBe(east[row * N]!);
      expect(sampleElevation(outArea, lat, lon)).toBe(east[row * N]!);
    }
    // outside the footprint (pixel-is-area: lon 6.9 .. 7.1): void
    expect(sampleElevation(outArea, 44, 6.899)).toBeNull();
    expect(sampleElevation(outArea, 44, 6.9005)).not.toBeNull();
  });

  test("GDAL_NODATA and NaN pixels are voids; a later input fills the voids of an earlier one", async () => {
    const src = dir("holes-src");
    const values = planeRaster();
    values[60 * W + 50] = -9999;
    values[30 * W + 200] = NaN;
    const holes = writeGeoTiff(join(src, "holes.tif"), values, W, { ...georef, GDAL_NODATA: "-9999" });
    const flat = writeGeoTiff(join(src, "flat.tif"), new Float32Array(W * H).fill(7), W, georef);
    const centre = (col: number, row: number) => [NORTH - (row + 0.5) * STEP, WEST + (col + 0.5) * STEP] as const;

    const alone = dir("holes-alone");
    const reportAlone = await writeElevationTiles([holes], alone);
    expect(sampleElevation(alone, ...centre(50, 60))).toBeNull();
    expect(sampleElevation(alone, ...centre(200, 30))).toBeNull();
    expect(sampleElevation(alone, ...centre(52, 60))).not.toBeNull();
    expect(sampleElevation(alone, ...centre(200, 32))).not.toBeNull();

    const merged = dir("holes-merged");
    const report = await writeElevationTiles([holes, flat], merged);
    expect(report.length).toBe(4);
    for (const r of report) {
      expect(r.source).toBe(`${holes} + ${flat}`);
      expect(r.from).toBe("geotiff");
      // the flat raster has no holes: only the samples outside both rasters are left void
      expect(r.voids).toBeLessThanOrEqual(reportAlone.find((a) => a.tile === r.tile)!.voids);
    }
    const total = (rs: typeof report) => rs.reduce((n, r) => n + r.voids, 0);
    expect(total(report)).toBeLessThan(total(reportAlone));
    expect(sampleElevation(merged, ...centre(50, 60))).toBe(7);
    expect(sampleElevation(merged, ...centre(200, 30))).toBe(7);
    // where the first input has data it is kept
    const [lat, lon] = [44.0125, 6.95];
    expect(sampleElevation(merged, lat, lon)).toBe(sampleElevation(alone, lat, lon));
    expect(sampleElevation(merged, lat, lon)).not.toBe(7);
  });

  test("a GeoTIFF fills the voids of an SRTM tile listed before it", async () => {
    const src = dir("fill-src");
    const fill = writeGeoTiff(join(src, "fill.tif"), new Float32Array(1200 * 1200).fill(123), 1200, { ModelPixelScale: [1 / 1200, 1 / 1200, 0], ModelTiepoint: [0, 0, 0, 7, 44, 0] });
    const out = dir("fill-out");
    const [alone] = await writeElevationTiles([MONACO], dir("fill-alone"));
    const [merged] = await writeElevationTiles([MONACO, fill], out);
    expect(alone!.voids).toBeGreaterThan(0);
    expect(merged).toEqual({ tile: "N43E007", source: `${MONACO} + ${fill}`, from: "hgt-1201-resampled", voids: 0 });
    await monacoTiles();
    expect(sampleElevation(out, 43.7314, 7.4198)).toBe(sampleElevation(monacoDir, 43.7314, 7.4198));
  });
});

describe("bad input", () => {
  const src = dir("bad");
  const monacoBytes = gunzipSync(readFileSync(MONACO));

  test("each bad input is a DataError naming the file", async () => {
    const truncated = join(src, "N43E007.hgt");
    writeFileSync(truncated, monacoBytes.subarray(0, 1_000_000));
    const wrongSize = join(src, "N44E007.hgt.gz");
    writeFileSync(wrongSize, gzipSync(Buffer.alloc(1801 * 1801 * 2)));
    const badName = join(src, "monaco.hgt");
    writeFileSync(badName, monacoBytes);
    const notTiff = join(src, "dem.tif");
    writeFileSync(notTiff, "this is not a GeoTIFF\n".repeat(100));
    const tooLarge = join(src, "N47E007.hgt.gz");
    writeFileSync(tooLarge, gzipSync(Buffer.alloc(N * N * 2 + 2)));
    const notGzip = join(src, "N45E007.hgt.gz");
    writeFileSync(notGzip, monacoBytes);
    const projected = writeGeoTiff(join(src, "utm.tif"), new Float32Array(100).fill(1), 10, {
      ModelPixelScale: [30, 30, 0], ModelTiepoint: [0, 0, 0, 500000, 5000000, 0], GTModelTypeGeoKey: 1, ProjectedCSTypeGeoKey: 32610, GeographicTypeGeoKey: undefined,
    } as Partial<GeotiffWriterMetadata>);
    const missing = join(src, "N46E007.hgt");
    const unknown = join(src, "heights.bin");
    writeFileSync(unknown, monacoBytes);

    const cases: [string, RegExp][] = [
      [truncated, /1000000 bytes.*2884802 .*25934402/],
      [wrongSize, /6487202 bytes uncompressed/],
      [badName, /not an SRTM tile name/],
      [notTiff, /not a TIFF/],
      [tooLarge, /more than 25934402 bytes uncompressed/],
      [notGzip, /not a readable gzip/],
      [projected, /projected CRS not supported \(EPSG:32610\); reproject to EPSG:4326 \(e\.g\. gdalwarp -t_srs EPSG:4326\)/],
      [missing, /no such file/],
      [unknown, /not an elevation file/],
    ];
    for (const [file, why] of cases) {
      const out = dir("bad-out");
      const e = await rejection(writeElevationTiles([file], out));
      expect(e).toBeInstanceOf(DataError);
      expect(e.message).toContain(file);
      expect(e.message).toMatch(why);
    }
  });
});
