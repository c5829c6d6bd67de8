/**
 * Catalog error answers: 400 JSON naming the parameter and what is allowed, 404 JSON for unknown
 * keys, 401 without a valid API key; never a 500 for client input.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { catalogServer, type TestServer } from "./harness.ts";

let s: TestServer;
let keyed: TestServer;
const KEY = "catalog-test-key-0123456789";
beforeAll(async () => {
  s = await catalogServer();
  keyed = await catalogServer(undefined, undefined, { apiKeys: [{ key: KEY, account: "tests" }] });
}, 120_000);
afterAll(async () => {
  await s?.stop();
  await keyed?.stop();
});

const route = () => `/api/v2/rest/routes/${encodeURIComponent(`${s.feedId("caltrain")}:L1`)}/trips`;

async function expect400(path: string, parameter: string) {
  const r = await s.get(path);
  const body: any = await r.json();
  expect({ path, status: r.status }).toEqual({ path, status: 400 });
  expect(r.headers.get("content-type")).toContain("application/json");
  expect(body.parameter).toBe(parameter);
  expect(typeof body.error).toBe("string");
  expect(typeof body.allowed).toBe("string");
}

describe("400 for bad parameters", () => {
  const stopCases: [string, string][] = [
    ["bbox=1,2,3", "bbox"],
    ["bbox=a,b,c,d", "bbox"],
    ["bbox=1,2,3,4,5", "bbox"],
    ["bbox=10,50,5,40", "bbox"],
    ["lat=37.7", "lon"],
    ["lon=-122", "lat"],
    ["lat=37.7&lon=-122.4", "radius"],
    ["lat=37.7&lon=-122.4&radius=10001", "radius"],
    ["lat=97&lon=-122.4&radius=100", "lat"],
    ["lat=37.7&lon=-122.4&radius=-5", "radius"],
    ["limit=abc", "limit"],
    ["limit=2.5", "limit"],
    ["limit=0", "limit"],
    ["limit=1001", "limit"],
    ["after=-1", "after"],
    ["after=xyz", "after"],
    ["location_type=7", "location_type"],
    ["location_type=station", "location_type"],
    ["served_by_route_types=bus", "served_by_route_types"],
    ["served_by_onestop_ids=f-9q9-caltrain", "served_by_onestop_ids"],
    ["license_commercial_use_allowed=maybe", "license_commercial_use_allowed"],
    ["license_create_derived_product=1", "license_create_derived_product"],
    ["include_alerts=yes", "include_alerts"],
    ["feed_version_sha1=abc", "feed_version_sha1"],
  ];
  for (const [query, param] of stopCases) test(`stops?${query} → ${param}`, () => expect400(`/api/v2/rest/stops?${query}`, param));

  const tripCases: [string, string][] = [
    ["service_date=2024-13-01", "service_date"],
    ["service_date=2024-02-30", "service_date"],
    ["service_date=20240101", "service_date"],
    ["relative_date=YESTERDAY", "relative_date"],
    ["relative_date=TODAY&service_date=2024-01-01", "relative_date"],
    ["use_service_window=maybe", "use_service_window"],
    ["include_geometry=1", "include_geometry"],
    ["id=abc", "id"],
    ["lat=37.7", "lon"],
    ["lat=37.7&lon=-122&radius=20000", "radius"],
    ["limit=1e3", "limit"],
    ["license_use_without_attribution=no_way", "license_use_without_attribution"],
  ];
  for (const [query, param] of tripCases) test(`trips?${query} → ${param}`, () => expect400(`${route()}?${query}`, param));

  test("unknown formats", async () => {
    await expect400("/api/v2/rest/stops.xml", "format");
    await expect400("/api/v2/rest/stops.csv?limit=1", "format");
    await expect400(`/api/v2/rest/stops/${s.feedId("caltrain")}:70021.kml`, "format");
    await expect400(`${route()}.png`, "format");
    const one = (await s.json(`${route()}?limit=1`)).trips[0];
    await expect400(`${route()}/${one.id}.txt`, "format");
  });

  test("a non-integer trip id", () => expect400(`${route()}/abc`, "id"));
});

describe("404 for unknown keys", () => {
  const cases = [
    "/api/v2/rest/stops/987654321",
    "/api/v2/rest/stops/f-nope:1",
    "/api/v2/rest/stops/s-0000-nowhere",
    "/api/v2/rest/routes/987654321/trips",
    "/api/v2/rest/routes/f-nope:1/trips",
    "/api/v2/rest/routes/r-0000-nothing/trips.geojson",
  ];
  for (const path of cases) {
    test(path, async () => {
      const r = await s.get(path);
      expect(r.status).toBe(404);
      expect(Object.keys((await r.json()) as any)).toEqual(["error"]);
    });
  }
  test("a trip id that is not a trip of the route", async () => {
    const other = (await s.json(`/api/v2/rest/routes/${encodeURIComponent(`${s.feedId("bart")}:1`)}/trips?limit=1`)).trips[0];
    const r = await s.get(`${route()}/${other.id}`);
    expect(r.status).toBe(404);
    expect(typeof ((await r.json()) as any).error).toBe("string");
  });
});

describe("API keys", () => {
  test("401 JSON without a key or with a wrong one, on every endpoint form", async () => {
    const feed = s.feedId("caltrain");
    const paths = [
      "/api/v2/rest/stops",
      "/api/v2/rest/stops.geojson",
      `/api/v2/rest/stops/${feed}:70021`,
      `/api/v2/rest/stops/${feed}:70021.geojsonl`,
      `/api/v2/rest/routes/${feed}:L1/trips`,
      `/api/v2/rest/routes/${feed}:L1/trips.geojson`,
      `/api/v2/rest/routes/${feed}:L1/trips/1`,
      `/api/v2/rest/routes/${feed}:L1/trips/1.geojson`,
    ];
    for (const path of paths) {
      for (const headers of [{}, { apikey: "wrong-key-123456" }] as Record<string, string>[]) {
        const r = await keyed.get(path, headers);
        expect({ path, status: r.status }).toEqual({ path, status: 401 });
        expect(typeof ((await r.json()) as any).error).toBe("string");
      }
      expect((await keyed.get(path, { apikey: KEY })).status).not.toBe(401);
    }
  });

  test("/health answers without a key", async () => {
    expect((await keyed.get("/health")).status).toBe(200);
  });

  test("an apikey query parameter is never copied into meta.next; the next page works with the key", async () => {
    const r = await keyed.get(`/api/v2/rest/stops?limit=3&apikey=${KEY}`);
    expect(r.status).toBe(200);
    const body: any = await r.json();
    expect(new URL(body.meta.next, "http://h").searchParams.get("apikey")).toBeNull();
    expect((await keyed.get(body.meta.next)).status).toBe(401);
    const next = await keyed.get(body.meta.next, { apikey: KEY });
    expect(next.status).toBe(200);
    expect(((await next.json()) as any).stops[0].id).toBeGreaterThan(body.stops[2].id);
  });
});
