/**
 * FEATURE UNDER TEST: the map's street background (pipeline/street/street-map.ts): written into the
 * street dataset at import from the OSM extracts (our own PBF reader), simplified and bounded; and
 * an older street dataset without it still serves (an empty background).
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { activeStreets, emptyManifest, readManifest } from "../../pipeline/schema/manifest.ts";
import { STREET_LAYOUT } from "../../pipeline/schema/street.ts";
import { simplify, streetMapGeoJson } from "../../pipeline/street/street-map.ts";
import { buildMapLayers } from "../../server/map/layers.ts";
import { osm, streetDataset, tempDir } from "../support/dataset.ts";

type Json = Record<string, any>;

describe("street background", () => {
  test("the import writes it into the street dataset: the extracts' roads as LineStrings with a class, within the tiles' bbox", async () => {
    const dir = await streetDataset("background-sf-monaco", ["sf-downtown", "monaco"]);
    const entry = activeStreets(readManifest(dir))!;
    const file = join(dir, entry.path, STREET_LAYOUT.map);
    expect(existsSync(file)).toBe(true);
    const fc = JSON.parse(gunzipSync(readFileSync(file)).toString()) as Json;
    expect(fc.type).toBe("FeatureCollection");
    // both extracts, merged
    const inSf = fc.features.filter((f: Json) => f.geometry.coordinates[0][0] < -100).length;
    expect(inSf).toBeGreaterThan(100);
    expect(fc.features.length - inSf).toBeGreaterThan(100);
    const [w, s, e, n] = entry.bbox!;
    for (const f of fc.features as Json[]) {
      expect(["major", "minor", "path"]).toContain(f.properties.class);
      expect(f.geometry.type).toBe("LineString");
      expect(f.geometry.coordinates.length).toBeGreaterThanOrEqual(2);
      for (const [x, y] of f.geometry.coordinates) {
        expect(x >= w && x <= e && y >= s && y <= n).toBe(true);
        expect(Math.round(x * 1e5) / 1e5).toBe(x); // rounded to 5 decimals
      }
    }
    // the file is the reader's answer for these extracts
    expect(fc).toEqual(JSON.parse(streetMapGeoJson([osm("sf-downtown"), osm("monaco")]).text));
  });

  test("over the point budget, paths go first, then minor roads; major roads stay", () => {
    const all = streetMapGeoJson([osm("monaco")]);
    expect(all.report.classes).toEqual(["major", "minor", "path"]);
    const counts = (text: string) => {
      const by: Record<string, number> = {};
      for (const f of JSON.parse(text).features) by[f.properties.class] = (by[f.properties.class] ?? 0) + f.geometry.coordinates.length;
      return by;
    };
    const c = counts(all.text);
    expect(all.report.points).toBe(c.major! + c.minor! + c.path!);
    const noPaths = streetMapGeoJson([osm("monaco")], c.major! + c.minor!);
    expect(noPaths.report.classes).toEqual(["major", "minor"]);
    const majorOnly = streetMapGeoJson([osm("monaco")], c.major!);
    expect(majorOnly.report.classes).toEqual(["major"]);
    expect(counts(majorOnly.text)).toEqual({ major: c.major });
  });

  test("a truncated or foreign file is an error, never a hang (the import then leaves the background out)", () => {
    const dir = tempDir("interchange-bad-pbf-");
    writeFileSync(join(dir, "cut.osm.pbf"), readFileSync(osm("monaco")).subarray(0, 100_000));
    expect(() => streetMapGeoJson([join(dir, "cut.osm.pbf")])).toThrow(/truncated/);
    writeFileSync(join(dir, "text.osm.pbf"), "this is not a PBF file at all");
    expect(() => streetMapGeoJson([join(dir, "text.osm.pbf")])).toThrow(/not an OSM PBF file/);
  });

  test("simplification keeps the ends and every point more than the tolerance off the line", () => {
    const line: [number, number][] = [[0, 0], [1e-6, 1e-6], [2e-5, 0], [3e-5, 5e-5], [4e-5, 0]];
    expect(simplify(line)).toEqual([[0, 0], [2e-5, 0], [3e-5, 5e-5], [4e-5, 0]]);
  });

  test("a street dataset built before the background (format 1) still serves: the map draws none", async () => {
    const dir = tempDir("interchange-old-streets-");
    const m = emptyManifest();
    mkdirSync(join(dir, "streets", "old"), { recursive: true });
    m.streets = [{ sha1: "old", path: "streets/old", built_at: "", engine_version: "3.6.1", osm: [], elevation: [], elevation_tiles: [], tiles: {}, bbox: null }];
    m.active_streets = "old";
    writeFileSync(join(dir, "manifest.json"), JSON.stringify(m));
    const layers = await buildMapLayers(dir, () => "2024-01-01");
    expect(layers.streetsGz).toBeNull();
    expect(layers.dataset.streets).toEqual({ sha1: "old", bbox: null, background: false });
    expect(layers.dataset.feeds).toEqual([]);
  });
});
