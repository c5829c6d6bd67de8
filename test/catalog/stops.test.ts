/**
 * /api/v2/rest/stops end to end on real feeds: fields and types, geographic searches against a
 * brute-force haversine filter over stops.txt, paging, key forms, filters and formats.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { gtfs } from "../support/dataset.ts";
import { gtfsFeed } from "../support/gtfs-reader.ts";
import { allPages, catalogServer, MAIN_FEEDS, parseLines, type TestServer } from "./harness.ts";

let s: TestServer;
beforeAll(async () => {
  s = await catalogServer();
}, 120_000);
afterAll(() => s?.stop());

const R = 6_371_008.8;
function haversine(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const r = Math.PI / 180;
  const a = Math.sin(((lat2 - lat1) * r) / 2) ** 2 + Math.cos(lat1 * r) * Math.cos(lat2 * r) * Math.sin(((lon2 - lon1) * r) / 2) ** 2;
  return 2 * R * Math.asin(Math.sqrt(a));
}

/** every stop of every feed, read from stops.txt: "feed:stop_id" with coordinates */
function rawStops(): { key: string; lat: number; lon: number; locationType: number }[] {
  return MAIN_FEEDS.flatMap((name) =>
    gtfsFeed(gtfs(name))
      .table("stops")
      .filter((st) => st.stop_lat !== "" && st.stop_lon !== "")
      .map((st) => ({ key: `${s.feedId(name)}:${st.stop_id}`, lat: Number(st.stop_lat), lon: Number(st.stop_lon), locationType: Number(st.location_type || 0) })),
  );
}
const keyOf = (stop: any) => `${stop.feed_version.feed.onestop_id}:${stop.stop_id}`;

const nullableString = (v: unknown) => v === null || typeof v === "string";
const nullableInt = (v: unknown) => v === null || Number.isInteger(v);

describe("stop fields", () => {
  test("every field of the spec is present with its type", async () => {
    const { rows } = await allPages(s, "/api/v2/rest/stops?limit=1000&feed_onestop_id=" + s.feedId("wmata-rail"), "stops");
    expect(rows.length).toBeGreaterThan(800);
    for (const st of rows) {
      expect(Number.isInteger(st.id)).toBe(true);
      expect(typeof st.stop_id).toBe("string");
      expect(nullableString(st.stop_name)).toBe(true);
      for (const f of ["stop_timezone", "stop_code", "zone_id", "platform_code", "tts_stop_name"]) expect(nullableString(st[f])).toBe(true);
      for (const f of ["stop_access", "wheelchair_boarding"]) expect(nullableInt(st[f])).toBe(true);
      expect([0, 1, 2, 3, 4]).toContain(st.location_type);
      expect(typeof st.onestop_id).toBe("string");
      // the Natural Earth admin-1 polygon containing the stop (test/catalog/places.test.ts checks it)
      expect(st.place).toEqual({ adm0_name: "United States of America", adm1_name: expect.any(String), adm0_iso: "US", adm1_iso: expect.stringMatching(/^US-(DC|MD|VA)$/) });
      expect(st.alerts).toEqual([]);
      expect(st.geometry.type).toBe("Point");
      expect(st.geometry.coordinates).toHaveLength(2);
      expect(st.feed_version.sha1).toMatch(/^[0-9a-f]{40}$/);
      expect(typeof st.feed_version.fetched_at).toBe("string");
      expect(Number.isInteger(st.feed_version.feed.id)).toBe(true);
    }
  });

  test("values match stops.txt", async () => {
    const raw = gtfsFeed(gtfs("caltrain")).table("stops");
    const { rows } = await allPages(s, `/api/v2/rest/stops?limit=1000&feed_onestop_id=${s.feedId("caltrain")}`, "stops");
    expect(rows.map((r: any) => r.stop_id).sort()).toEqual(raw.map((r) => r.stop_id!).sort());
    for (const st of rows) {
      const r = raw.find((x) => x.stop_id === st.stop_id)!;
      expect(st.stop_name).toBe(r.stop_name || null);
      expect(st.geometry.coordinates).toEqual([Number(r.stop_lon), Number(r.stop_lat)]);
      expect(st.location_type).toBe(Number(r.location_type || 0));
      expect(st.zone_id).toBe(r.zone_id || null);
      if (r.parent_station) expect(st.parent.stop_id).toBe(r.parent_station);
    }
  });
});

describe("geographic search", () => {
  const points = [
    { lat: 37.7765, lon: -122.3942, radius: 2500 }, // SF 4th & King
    { lat: 38.8977, lon: -77.0365, radius: 3000 }, // Washington DC
    { lat: 45.5231, lon: -122.6765, radius: 800 }, // Portland
    { lat: 37.8044, lon: -122.2712, radius: 10000 }, // Oakland, maximum radius
  ];
  for (const p of points) {
    test(`lat/lon/radius ${p.lat},${p.lon} r=${p.radius} equals a brute-force haversine filter`, async () => {
      const expected = rawStops()
        .filter((st) => haversine(p.lat, p.lon, st.lat, st.lon) <= p.radius)
        .map((st) => st.key)
        .sort();
      const { rows } = await allPages(s, `/api/v2/rest/stops?lat=${p.lat}&lon=${p.lon}&radius=${p.radius}&limit=200`, "stops");
      expect(rows.map(keyOf).sort()).toEqual(expected);
      expect(expected.length).toBeGreaterThan(0);
    });
  }

  const boxes = [
    [-122.42, 37.75, -122.38, 37.8],
    [-77.1, 38.85, -77.0, 38.95],
    [-122.7, 45.5, -122.6, 45.55],
  ];
  for (const b of boxes) {
    test(`bbox ${b.join(",")} equals a brute-force filter`, async () => {
      const [minLon, minLat, maxLon, maxLat] = b as [number, number, number, number];
      const expected = rawStops()
        .filter((st) => st.lon >= minLon && st.lon <= maxLon && st.lat >= minLat && st.lat <= maxLat)
        .map((st) => st.key)
        .sort();
      const { rows } = await allPages(s, `/api/v2/rest/stops?bbox=${b.join(",")}&limit=100`, "stops");
      expect(rows.map(keyOf).sort()).toEqual(expected);
      expect(expected.length).toBeGreaterThan(0);
    });
  }
});

describe("paging", () => {
  test("paging through every stop visits each exactly once, in a stable order, with no empty last page", async () => {
    const total = rawStops().length;
    const { rows, pages } = await allPages(s, "/api/v2/rest/stops?limit=250", "stops");
    const ids = rows.map((r: any) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(rows.length).toBeGreaterThanOrEqual(total); // stops without coordinates are listed too
    expect(pages).toBe(Math.ceil(rows.length / 250));
  });

  test("a page that ends exactly at the last row has no next link", async () => {
    const feed = s.feedId("google-sample-feed");
    const all = await s.json(`/api/v2/rest/stops?feed_onestop_id=${feed}&limit=1000`);
    const n = all.stops.length;
    const exact = await s.json(`/api/v2/rest/stops?feed_onestop_id=${feed}&limit=${n}`);
    expect(exact.stops).toHaveLength(n);
    expect(exact.meta).toBeUndefined();
  });

  test("meta.next keeps every other query parameter", async () => {
    const body = await s.json(`/api/v2/rest/stops?limit=2&location_type=0&bbox=-123,37,-121,39`);
    // relative (no --public-url): built from neither the client's Host nor its key
    expect(body.meta.next.startsWith("/api/v2/rest/stops?")).toBe(true);
    const next = new URL(body.meta.next, "http://h");
    expect(next.pathname).toBe("/api/v2/rest/stops");
    expect(next.searchParams.get("limit")).toBe("2");
    expect(next.searchParams.get("location_type")).toBe("0");
    expect(next.searchParams.get("bbox")).toBe("-123,37,-121,39");
    expect(next.searchParams.get("after")).toBe(String(body.meta.after));
  });

  test("default limit is 20", async () => {
    const body = await s.json("/api/v2/rest/stops");
    expect(body.stops).toHaveLength(20);
  });
});

describe("filters", () => {
  test("location_type selects stations, entrances and platforms (wmata-rail)", async () => {
    const feed = s.feedId("wmata-rail");
    const raw = gtfsFeed(gtfs("wmata-rail")).table("stops");
    for (const lt of [0, 1, 2]) {
      const { rows } = await allPages(s, `/api/v2/rest/stops?feed_onestop_id=${feed}&location_type=${lt}&limit=1000`, "stops");
      expect(rows.length).toBe(raw.filter((r) => Number(r.location_type || 0) === lt).length);
      expect(rows.every((r: any) => r.location_type === lt)).toBe(true);
    }
  });

  test("served_by_onestop_ids with a route and an agency Onestop ID", async () => {
    const trips = await s.json(`/api/v2/rest/routes/${s.feedId("bart")}:1/trips?limit=1`);
    const route = trips.trips[0].route;
    const byRoute = await allPages(s, `/api/v2/rest/stops?served_by_onestop_ids=${route.onestop_id}&limit=1000`, "stops");
    // stops of the route = stops of its trips in stop_times.txt
    const f = gtfsFeed(gtfs("bart"));
    const routeTrips = new Set(f.table("trips").filter((t) => t.route_id === "1").map((t) => t.trip_id));
    const expected = new Set(f.table("stop_times").filter((st) => routeTrips.has(st.trip_id)).map((st) => st.stop_id));
    expect(byRoute.rows.map((r: any) => r.stop_id).sort()).toEqual([...expected].sort());

    const byAgency = await allPages(s, `/api/v2/rest/stops?served_by_onestop_ids=${route.agency.onestop_id}&limit=1000`, "stops");
    expect(byAgency.rows.length).toBeGreaterThan(byRoute.rows.length);
    const both = await allPages(s, `/api/v2/rest/stops?served_by_onestop_ids=${route.onestop_id},${route.agency.onestop_id}&limit=1000`, "stops");
    expect(both.rows.length).toBe(byAgency.rows.length);
  });

  test("stop_code: the stops whose stop_code is exactly the text (ctran-flex's codes are not its stop_ids), with or without an area", async () => {
    const coded = MAIN_FEEDS.flatMap((name) => gtfsFeed(gtfs(name)).table("stops").map((st): Record<string, string | undefined> & { key: string } => ({ ...st, key: `${s.feedId(name)}:${st.stop_id}` }))).filter((st) => st.stop_code);
    const flex = coded.filter((st) => st.key.startsWith(`${s.feedId("ctran-flex")}:`) && st.stop_code !== st.stop_id);
    expect(flex.length).toBeGreaterThan(3);
    for (const st of flex.slice(0, 4)) {
      const { rows } = await allPages(s, `/api/v2/rest/stops?stop_code=${encodeURIComponent(st.stop_code!)}&limit=1000`, "stops");
      expect(rows.map(keyOf).sort()).toEqual(coded.filter((c) => c.stop_code === st.stop_code).map((c) => c.key).sort());
      expect(rows.every((r: any) => r.stop_code === st.stop_code)).toBe(true);
      // by its stop_id, the code is not found (they differ)
      expect((await s.json(`/api/v2/rest/stops?stop_id=${encodeURIComponent(st.stop_code!)}&feed_onestop_id=${s.feedId("ctran-flex")}`)).stops).toEqual([]);
      // with an area: around the stop it is there, far away not
      const [lat, lon] = [Number(st.stop_lat), Number(st.stop_lon)];
      const near = await s.json(`/api/v2/rest/stops?stop_code=${encodeURIComponent(st.stop_code!)}&bbox=${lon - 0.01},${lat - 0.01},${lon + 0.01},${lat + 0.01}`);
      expect(near.stops.map(keyOf)).toContain(st.key);
      const radius = await s.json(`/api/v2/rest/stops?stop_code=${encodeURIComponent(st.stop_code!)}&lat=${lat}&lon=${lon}&radius=100`);
      expect(radius.stops.map(keyOf)).toContain(st.key);
      expect((await s.json(`/api/v2/rest/stops?stop_code=${encodeURIComponent(st.stop_code!)}&bbox=0,0,1,1`)).stops).toEqual([]);
    }
    expect((await s.json("/api/v2/rest/stops?stop_code=no-such-code")).stops).toEqual([]);
  });

  test("served_by_route_types", async () => {
    const { rows } = await allPages(s, "/api/v2/rest/stops?served_by_route_types=2&limit=1000", "stops");
    // rail (2): only Caltrain here; BART is type 1
    expect(rows.length).toBeGreaterThan(0);
    expect(new Set(rows.map((r: any) => r.feed_version.feed.onestop_id))).toEqual(new Set([s.feedId("caltrain")]));
  });

  test("license filters: every feed is 'unknown', so exclude_no and unknown keep them and yes/no drop them", async () => {
    const all = await s.json("/api/v2/rest/stops?limit=5");
    expect((await s.json("/api/v2/rest/stops?limit=5&license_commercial_use_allowed=exclude_no")).stops).toEqual(all.stops);
    expect((await s.json("/api/v2/rest/stops?limit=5&license_redistribution_allowed=unknown")).stops).toEqual(all.stops);
    expect((await s.json("/api/v2/rest/stops?limit=5&license_create_derived_product=yes")).stops).toEqual([]);
    expect((await s.json("/api/v2/rest/stops?limit=5&license_share_alike_optional=no")).stops).toEqual([]);
  });
});

describe("stop keys", () => {
  test("integer id, feed:stop_id and Onestop ID resolve to the same stop", async () => {
    const feed = s.feedId("caltrain");
    const byFeedKey = (await s.json(`/api/v2/rest/stops/${feed}:70021`)).stops;
    expect(byFeedKey).toHaveLength(1);
    const stop = byFeedKey[0];
    expect((await s.json(`/api/v2/rest/stops/${stop.id}`)).stops).toEqual([stop]);
    const byOnestop = (await s.json(`/api/v2/rest/stops/${stop.onestop_id}`)).stops;
    expect(byOnestop.map((x: any) => x.id)).toContain(stop.id);
  });

  test("a key with a format suffix and an encoded stop_id", async () => {
    const feed = s.feedId("caltrain");
    const fc = await s.json(`/api/v2/rest/stops/${feed}%3A70021.geojson`);
    expect(fc.type).toBe("FeatureCollection");
    expect(fc.features[0].properties.stop_id).toBe("70021");
  });

  test("unknown keys are 404 with a JSON error", async () => {
    for (const key of ["999999999", `${s.feedId("caltrain")}:nope`, "s-xxxx-nothing"]) {
      const r = await s.get(`/api/v2/rest/stops/${key}`);
      expect(r.status).toBe(404);
      expect(r.headers.get("content-type")).toContain("application/json");
      expect(typeof ((await r.json()) as any).error).toBe("string");
    }
  });
});

describe("formats", () => {
  test("geojson: a FeatureCollection of Points with every other field in properties, meta kept", async () => {
    const fc = await s.json("/api/v2/rest/stops.geojson?limit=3");
    const plain = await s.json("/api/v2/rest/stops?limit=3");
    expect(fc.type).toBe("FeatureCollection");
    expect(fc.meta).toEqual({ ...plain.meta, next: plain.meta.next.replace("/stops?", "/stops.geojson?") });
    fc.features.forEach((f: any, i: number) => {
      const { geometry, ...props } = plain.stops[i];
      expect(f).toEqual({ type: "Feature", geometry, properties: props });
    });
  });

  test("geojsonl without a limit streams every stop, one Feature per line", async () => {
    const r = await s.get("/api/v2/rest/stops.geojsonl");
    expect(r.status).toBe(200);
    const features = parseLines(await r.text());
    const { rows } = await allPages(s, "/api/v2/rest/stops?limit=1000", "stops");
    expect(features.length).toBe(rows.length);
    expect(features.map((f: any) => f.properties.id)).toEqual(rows.map((x: any) => x.id));
    expect(features.every((f: any) => f.type === "Feature")).toBe(true);
  });

  test("geojsonl with a limit pages through the Link header", async () => {
    const r = await s.get("/api/v2/rest/stops.geojsonl?limit=5");
    expect(parseLines(await r.text())).toHaveLength(5);
    expect(r.headers.get("link")).toMatch(/^<\/api\/v2\/rest\/stops\.geojsonl\?limit=5&after=\d+>; rel="next"$/);
  });

  test("json is the default and .json is the same", async () => {
    expect((await s.json("/api/v2/rest/stops.json?limit=3")).stops).toEqual((await s.json("/api/v2/rest/stops?limit=3")).stops);
  });
});
