/**
 * FEATURE UNDER TEST: the Pelias geocoder (issue 34, items 1 and 5). The real server over BART
 * 2023 (stations, platforms, entrances), the Yamanashi feed (Japanese stop names) and the
 * downtown San Francisco OSM extract, all imported by the real pipeline, with API keys: Pelias's
 * answers (properties, gid, bbox, geocoding block), prefix and typo matching, ranking (stations
 * above streets, focus point), layers and sources, boundaries, reverse, non-Latin text, Pelias
 * 400s for bad input, and `@opentripplanner/geocoder` (the 3.x that @opentripplanner/core-utils
 * 16 depends on) unchanged against the server.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { serverConfigFrom } from "../../server/config.ts";
import { type RunningServer, startServer } from "../../server/main.ts";
import { haversineM } from "../../shared/geo.ts";
import { streetDataset, tempDir } from "../support/dataset.ts";

type Json = Record<string, any>;
const KEY = "geocoder-test-key-1";
const quiet = { info() {}, warn() {}, error() {} };
/** Embarcadero BART station */
const EMBARCADERO = { lat: 37.7929, lon: -122.3971 };

describe("geocoder", () => {
  let server: RunningServer;
  const get = async (path: string, params: Record<string, string | number> = {}, key = KEY) => {
    const qs = new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)]));
    const res = await fetch(`${server.url}${path}?${qs}`, { headers: key ? { apikey: key } : {} });
    const text = await res.text();
    return { status: res.status, type: res.headers.get("content-type") ?? "", body: JSON.parse(text) as Json };
  };
  const ok = async (path: string, params: Record<string, string | number> = {}) => {
    const r = await get(path, params);
    expect(r.status).toBe(200);
    expect(r.body.type).toBe("FeatureCollection");
    return r.body;
  };

  beforeAll(async () => {
    const data = await streetDataset("geocoder-sf", ["sf-downtown"], [], ["bart-2023", "yamanashi"]);
    const keys = join(tempDir(), "keys.json");
    writeFileSync(keys, JSON.stringify([{ key: KEY, account: "geo" }]));
    server = await startServer(serverConfigFrom({ data, port: 0, host: "127.0.0.1", apiKeys: keys }), { log: quiet });
  }, 600_000);
  afterAll(async () => {
    await server?.stop();
  });

  test("autocomplete: a station by prefix, in Pelias's form", async () => {
    const body = await ok("/v1/autocomplete", { text: "Embarc" });
    expect(body.geocoding.query.text).toBe("Embarc");
    expect(body.geocoding.engine.name).toBeString();
    expect(body.geocoding.timestamp).toBeNumber();
    const first = body.features[0];
    expect(first.type).toBe("Feature");
    expect(first.geometry.type).toBe("Point");
    const p = first.properties;
    expect(p.name).toContain("Embarcadero");
    expect(p.layer).toBe("stations");
    expect(p.source).toBe("gtfs");
    expect(p.gid).toBe(`gtfs:stations:${p.source_id}`);
    expect(p.addendum.gtfs.stop_id).toBeString();
    expect(p.label.startsWith(p.name)).toBe(true);
    expect(p.region).toBe("California");
    expect(p.confidence).toBeGreaterThan(0);
    expect(p.confidence).toBeLessThanOrEqual(1);
    const [lon, lat] = first.geometry.coordinates;
    expect(haversineM(lat, lon, EMBARCADERO.lat, EMBARCADERO.lon)).toBeLessThan(300);
    expect(body.bbox).toHaveLength(4);
  });

  test("stations rank above streets and venues of the same words; the station's platforms are not listed", async () => {
    const body = await ok("/v1/autocomplete", { text: "Montgomery" });
    const layers = body.features.map((f: Json) => f.properties.layer);
    expect(layers[0]).toBe("stations");
    expect(body.features[0].properties.name).toMatch(/Montgomery St/);
    expect(layers).toContain("street"); // OSM's Montgomery Street, below the station
    expect(layers.some((l: string) => l !== "stations")).toBe(true); // OSM places too
    expect(layers).not.toContain("stops"); // BART 2023's platforms have a parent station
    const names = body.features.map((f: Json) => `${f.properties.layer}:${f.properties.name}`);
    expect(new Set(names).size).toBe(names.length);
  });

  test("addresses: house number and street, with the street's abbreviation", async () => {
    const body = await ok("/v1/search", { text: "690 Market St", layers: "address" });
    expect(body.features.length).toBeGreaterThan(0);
    for (const f of body.features) expect(f.properties.layer).toBe("address");
    const p = body.features[0].properties;
    expect(p.housenumber).toBe("690");
    expect(p.street).toBe("Market Street");
    expect(p.name).toBe("690 Market Street");
    expect(p.locality).toBe("San Francisco");
    expect(p.label).toStartWith("690 Market Street, San Francisco, CA");
    expect(body.features[0].properties.match_type).toBe("exact");
  });

  test("typos: a letter wrong, missing or extra still finds the place", async () => {
    for (const text of ["Embarcadaro", "Embarcdero", "Embarrcadero", "Powel Street"]) {
      const body = await ok("/v1/autocomplete", { text });
      expect(`${text}: ${body.features[0]?.properties.name}`).toMatch(new RegExp(`${text}: .*(Embarcadero|Powell)`));
    }
  });

  test("diacritics and case folded both ways; non-Latin scripts by prefix", async () => {
    const plain = await ok("/v1/autocomplete", { text: "civic center" });
    const accents = await ok("/v1/autocomplete", { text: "CÍVÏC CENTÉR" });
    expect(accents.features.map((f: Json) => f.properties.gid)).toEqual(plain.features.map((f: Json) => f.properties.gid));
    expect(plain.features[0].properties.name).toMatch(/Civic Center/);
    const jp = await ok("/v1/autocomplete", { text: "甲府駅" });
    expect(jp.features.length).toBeGreaterThan(0);
    for (const f of jp.features) expect(f.properties.name.startsWith("甲府駅")).toBe(true);
    expect(jp.features[0].properties.country_code).toBe("JP");
  });

  test("focus.point ranks near places first and reports distances", async () => {
    const far = { "focus.point.lat": 35.667, "focus.point.lon": 138.57 }; // Kofu: nothing of BART there
    const near = { "focus.point.lat": 37.8044, "focus.point.lon": -122.2712 }; // Oakland
    const a = await ok("/v1/autocomplete", { text: "12th", ...near });
    expect(a.features[0].properties.name).toMatch(/12th St/);
    expect(a.features[0].properties.distance).toBeLessThan(2);
    const b = await ok("/v1/autocomplete", { text: "Embarcadero", ...far });
    expect(b.features[0].properties.distance).toBeGreaterThan(5000);
    const ds = a.features.map((f: Json) => f.properties.distance);
    for (const d of ds) expect(d).toBeNumber();
  });

  test("layers, sources, size and boundaries filter", async () => {
    const streets = await ok("/v1/autocomplete", { text: "Market", layers: "street" });
    expect(streets.features.length).toBeGreaterThan(0);
    for (const f of streets.features) expect(f.properties.layer).toBe("street");
    expect(streets.features[0].bbox).toHaveLength(4);
    const osm = await ok("/v1/autocomplete", { text: "Embarcadero", sources: "osm" });
    for (const f of osm.features) expect(f.properties.source).toBe("osm");
    const two = await ok("/v1/autocomplete", { text: "st", size: 2 });
    expect(two.features).toHaveLength(2);
    const rect = { "boundary.rect.min_lat": 37.78, "boundary.rect.max_lat": 37.8, "boundary.rect.min_lon": -122.41, "boundary.rect.max_lon": -122.39 };
    const inRect = await ok("/v1/search", { text: "street", size: 40, ...rect });
    expect(inRect.features.length).toBeGreaterThan(0);
    for (const f of inRect.features) {
      const [lon, lat] = f.geometry.coordinates;
      expect(lat >= 37.78 && lat <= 37.8 && lon >= -122.41 && lon <= -122.39).toBe(true);
    }
    const circle = await ok("/v1/search", { text: "station", "boundary.circle.lat": 37.7929, "boundary.circle.lon": -122.3971, "boundary.circle.radius": 1, size: 40 });
    for (const f of circle.features) expect(haversineM(f.geometry.coordinates[1], f.geometry.coordinates[0], 37.7929, -122.3971)).toBeLessThanOrEqual(1000.5);
    const empty = await ok("/v1/autocomplete", { text: "Embarcadero", layers: "country" }); // a Pelias layer without data
    expect(empty.features).toEqual([]);
  });

  test("reverse: the nearest places, nearest first, with distances in km", async () => {
    const body = await ok("/v1/reverse", { "point.lat": EMBARCADERO.lat, "point.lon": EMBARCADERO.lon });
    expect(body.features.length).toBe(10);
    const d = body.features.map((f: Json) => f.properties.distance);
    expect([...d].sort((x, y) => x - y)).toEqual(d);
    for (const f of body.features) {
      const [lon, lat] = f.geometry.coordinates;
      expect(Math.abs(haversineM(lat, lon, EMBARCADERO.lat, EMBARCADERO.lon) / 1000 - f.properties.distance)).toBeLessThan(0.002);
    }
    const st = await ok("/v1/reverse", { "point.lat": EMBARCADERO.lat, "point.lon": EMBARCADERO.lon, layers: "stations", size: 1 });
    expect(st.features[0].properties.name).toMatch(/Embarcadero/);
    const nothing = await ok("/v1/reverse", { "point.lat": 0, "point.lon": 0 });
    expect(nothing.features).toEqual([]);
  });

  test("the same answers under /api/v2/geocode", async () => {
    const a = await ok("/v1/autocomplete", { text: "Powell" });
    const b = await ok("/api/v2/geocode/autocomplete", { text: "Powell" });
    expect(b.features).toEqual(a.features);
  });

  test("bad input: Pelias 400s naming the parameter, never a 500", async () => {
    const cases: [string, Record<string, string | number>, RegExp][] = [
      ["/v1/autocomplete", {}, /text/],
      ["/v1/autocomplete", { text: "" }, /text length/],
      ["/v1/search", { text: "   " }, /text length/],
      ["/v1/autocomplete", { text: "x".repeat(10_000) }, /at most 500/],
      ["/v1/autocomplete", { text: "a", layers: "bogus" }, /'bogus' is an invalid layers parameter/],
      ["/v1/autocomplete", { text: "a", layers: "" }, /layers/],
      ["/v1/autocomplete", { text: "a", sources: "google" }, /invalid sources/],
      ["/v1/autocomplete", { text: "a", "focus.point.lat": 91, "focus.point.lon": 0 }, /focus.point.lat/],
      ["/v1/autocomplete", { text: "a", "focus.point.lat": 10 }, /must both be specified/],
      ["/v1/autocomplete", { text: "a", "focus.point.lat": "NaN", "focus.point.lon": 1 }, /must be a number/],
      ["/v1/autocomplete", { text: "a", "focus.point.lat": "1e400", "focus.point.lon": 1 }, /must be a number/],
      ["/v1/search", { text: "a", size: 0 }, /size/],
      ["/v1/search", { text: "a", size: 1.5 }, /size/],
      ["/v1/search", { text: "a", "boundary.rect.min_lat": 1 }, /boundary.rect/],
      ["/v1/search", { text: "a", "boundary.rect.min_lat": 2, "boundary.rect.max_lat": 1, "boundary.rect.min_lon": 0, "boundary.rect.max_lon": 1 }, /min_lat/],
      ["/v1/search", { text: "a", "boundary.circle.radius": 5 }, /boundary.circle/],
      ["/v1/search", { text: "a", "boundary.country": "Narnia" }, /boundary.country/],
      ["/v1/reverse", {}, /point.lat/],
      ["/v1/reverse", { "point.lat": 37, "point.lon": 999 }, /point.lon/],
    ];
    for (const [path, params, message] of cases) {
      const r = await get(path, params);
      expect(`${path} ${JSON.stringify(params).slice(0, 80)} ${r.status}`).toBe(`${path} ${JSON.stringify(params).slice(0, 80)} 400`);
      expect(r.type).toContain("application/json");
      expect(r.body.geocoding.errors).toHaveLength(1);
      expect(r.body.geocoding.errors[0]).toMatch(message);
      expect(r.body.features).toEqual([]);
    }
    const twice = await fetch(`${server.url}/v1/autocomplete?text=a&text=b`, { headers: { apikey: KEY } });
    expect(twice.status).toBe(400);
    // nothing to match: an empty answer
    const symbols = await ok("/v1/autocomplete", { text: "!!! ??? ---" });
    expect(symbols.features).toEqual([]);
  });

  test("an API key is needed, like everywhere in the API", async () => {
    const r = await get("/v1/autocomplete", { text: "Embarcadero" }, "");
    expect(r.status).toBe(401);
    expect(r.body.geocoding.errors[0]).toMatch(/API key/);
    const wrong = await get("/api/v2/geocode/reverse", { "point.lat": 1, "point.lon": 1 }, "not-a-real-key-x");
    expect(wrong.status).toBe(401);
  });

  test("@opentripplanner/geocoder, unchanged, against the server (autocomplete, search, reverse)", async () => {
    const require = createRequire(createRequire(import.meta.url).resolve("core-utils-16/package.json"));
    const getGeocoder = require("@opentripplanner/geocoder").default as (c: Json) => Json;
    const geocoder = getGeocoder({
      type: "PELIAS",
      baseUrl: `${server.url}/v1`,
      // the key goes in the header (fetch options); the client's own api_key parameter is ignored
      options: { headers: { apikey: KEY } },
      focusPoint: { lat: EMBARCADERO.lat, lon: EMBARCADERO.lon },
      layers: "stations,stops,venue,address,street",
    });
    const auto = await geocoder.autocomplete({ text: "Montgomery" });
    expect(auto.features[0].properties.name).toMatch(/Montgomery St/);
    expect(auto.features[0].properties.layer).toBe("stations");
    const search = await geocoder.search({ text: "690 Market Street" });
    expect(search.features[0].properties.label).toStartWith("690 Market Street");
    const rev = await geocoder.reverse({ point: { lat: EMBARCADERO.lat, lon: EMBARCADERO.lon } });
    expect(rev.lat).toBe(EMBARCADERO.lat);
    // the client asks for the flat form: the first feature's properties, its label as the name
    expect(rev.name).toBe(rev.rawGeocodedFeature.label);
    expect(rev.rawGeocodedFeature.distance).toBeLessThan(0.5);
    // the client's default layers (address, venue, street, intersection): OSM places, no stations
    const plain = getGeocoder({ type: "PELIAS", baseUrl: `${server.url}/api/v2/geocode`, options: { headers: { apikey: KEY } } });
    const venues = await plain.autocomplete({ text: "Lotta's Fount" });
    expect(venues.features[0].properties.name).toBe("Lotta's Fountain");
    expect(venues.features.length).toBeGreaterThan(0);
    for (const f of venues.features) expect(["address", "venue", "street"]).toContain(f.properties.layer);
  });
});
