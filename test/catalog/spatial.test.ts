/**
 * Geographic searches served by the in-memory spatial index (server/catalog/spatial.ts), end to
 * end on real feeds: bbox and lat/lon/radius stop lists against a brute-force filter over every
 * stop of the dataset AND against the plain SQL form the catalog used before the index (a BETWEEN
 * box, geo.ts nearSql) run by DuckDB over the dataset's Parquet files: same stops, same (id) order.
 * Random boxes and circles (seeded), empty ones, edges exactly on stops, paging across pages, the
 * other filters combined, streaming, and the trips lat/lon filter against its former SQL.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { DuckDBInstance, INTEGER, type DuckDBConnection } from "@duckdb/node-api";
import { Params } from "../../server/catalog/db.ts";
import { nearSql } from "../../server/catalog/geo.ts";
import type { BBox, Near } from "../../server/catalog/params.ts";
import { StopSpatialIndex } from "../../server/catalog/spatial.ts";
import { allPages, catalogServer, parseLines, type TestServer } from "./harness.ts";

let s: TestServer;
let duck: DuckDBConnection;
interface Stop {
  id: number;
  lat: number;
  lon: number;
  locationType: number;
  feed: string;
  stopId: string;
  onestopId: string;
}
/** every stop of the dataset that has coordinates, in id order (from the plain, non-geographic listing) */
let stops: Stop[] = [];
let allIds: number[] = [];

beforeAll(async () => {
  s = await catalogServer();
  duck = await (await DuckDBInstance.create(":memory:")).connect();
  const { rows } = await allPages(s, "/api/v2/rest/stops?limit=1000", "stops");
  allIds = rows.map((r: any) => r.id);
  stops = rows
    .filter((r: any) => r.geometry)
    .map((r: any) => ({
      id: r.id,
      lon: r.geometry.coordinates[0],
      lat: r.geometry.coordinates[1],
      locationType: r.location_type,
      feed: r.feed_version.feed.onestop_id,
      stopId: r.stop_id,
      onestopId: r.onestop_id,
    }));
}, 120_000);
afterAll(() => s?.stop());

// ---- references

/** seeded PRNG (mulberry32), so a failure can be replayed */
function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const R = 6_371_008.8;
function haversine(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const r = Math.PI / 180;
  const a = Math.sin(((lat2 - lat1) * r) / 2) ** 2 + Math.cos(lat1 * r) * Math.cos(lat2 * r) * Math.sin(((lon2 - lon1) * r) / 2) ** 2;
  return 2 * R * Math.asin(Math.min(1, Math.sqrt(a)));
}
const inBox = (b: BBox) => (st: Stop) => st.lon >= b.minLon && st.lon <= b.maxLon && st.lat >= b.minLat && st.lat <= b.maxLat;
const inCircle = (n: Near) => (st: Stop) => haversine(n.lat, n.lon, st.lat, st.lon) <= n.radius;

/** The area condition the catalog ran in DuckDB before the index, over the dataset's stops.parquet files. */
async function sqlIds(bbox: BBox | null, near: Near | null): Promise<number[]> {
  const p = new Params();
  const where: string[] = [];
  if (bbox) {
    where.push(`s.stop_lon BETWEEN ${p.add(bbox.minLon)}::DOUBLE AND ${p.add(bbox.maxLon)}::DOUBLE`);
    where.push(`s.stop_lat BETWEEN ${p.add(bbox.minLat)}::DOUBLE AND ${p.add(bbox.maxLat)}::DOUBLE`);
  }
  if (near) where.push(nearSql(p, near, "s.stop_lat", "s.stop_lon"));
  const q = p.query(`SELECT s.id FROM read_parquet('${s.dataDir}/versions/*/stops.parquet') s WHERE ${where.join(" AND ")} ORDER BY s.id`);
  const ps = await duck.prepare(q.sql);
  ps.bind(q.values, q.types as any);
  return (await ps.runAndReadAll()).getRowsJS().map((r) => Number(r[0]));
}

const bboxParam = (b: BBox) => `bbox=${b.minLon},${b.minLat},${b.maxLon},${b.maxLat}`;
const nearParam = (n: Near) => `lat=${n.lat}&lon=${n.lon}&radius=${n.radius}`;
const listIds = async (query: string, limit = 1000) => (await allPages(s, `/api/v2/rest/stops?${query}&limit=${limit}`, "stops")).rows.map((r: any) => r.id as number);
const pick = <T>(xs: T[], r: () => number) => xs[Math.floor(r() * xs.length)]!;
const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

// ---- cases

/** cases are drawn from the dataset's stops, so once they are loaded (tests run after beforeAll) */
function lazy<T>(make: () => T[]): (i: number) => T {
  let made: T[] | null = null;
  return (i) => (made ??= make())[i]!;
}
/** run a case, naming it when it fails */
async function named(name: string, run: () => Promise<void>) {
  try {
    await run();
  } catch (e) {
    console.error(`failed case: ${name}`);
    throw e;
  }
}
const N_BOXES = 45;
const N_CIRCLES = 44;
/** random cases that matched at least one stop (so the comparisons are not all of empty lists) */
const nonEmpty = { boxes: 0, circles: 0 };

const boxCase = lazy(() => {
  const r = rng(20261127);
  const out: { name: string; b: BBox }[] = [];
  for (let i = 0; i < 30; i++) {
    const c = pick(stops, r);
    const w = 0.0005 + r() ** 2 * 0.3;
    const h = 0.0005 + r() ** 2 * 0.2;
    const b = { minLon: round6(c.lon - w * r()), minLat: round6(c.lat - h * r()), maxLon: 0, maxLat: 0 };
    b.maxLon = round6(b.minLon + w);
    b.maxLat = round6(b.minLat + h);
    out.push({ name: `random ${i}`, b });
  }
  for (let i = 0; i < 10; i++) {
    // edges exactly on stops: two stops of one feed span the box, both on its edges (edges included)
    const a = pick(stops, r);
    const same = stops.filter((x) => x.feed === a.feed && x.id !== a.id);
    const c = pick(same, r);
    out.push({ name: `edges on stops ${a.id}/${c.id}`, b: { minLon: Math.min(a.lon, c.lon), minLat: Math.min(a.lat, c.lat), maxLon: Math.max(a.lon, c.lon), maxLat: Math.max(a.lat, c.lat) } });
  }
  const one = pick(stops, r);
  out.push({ name: "a point box on a stop", b: { minLon: one.lon, minLat: one.lat, maxLon: one.lon, maxLat: one.lat } });
  out.push({ name: "just off a stop (empty)", b: { minLon: one.lon + 1e-9, minLat: one.lat, maxLon: one.lon + 1e-6, maxLat: one.lat } });
  out.push({ name: "open ocean (empty)", b: { minLon: -30, minLat: 0, maxLon: -29, maxLat: 1 } });
  out.push({ name: "the whole world", b: { minLon: -180, minLat: -90, maxLon: 180, maxLat: 90 } });
  out.push({ name: "the western hemisphere's edge", b: { minLon: -180, minLat: -90, maxLon: -179.9, maxLat: 90 } });
  expect(out.length).toBe(N_BOXES);
  return out;
});

const circleCase = lazy(() => {
  const r = rng(4242);
  const out: { name: string; n: Near; edge?: number }[] = [];
  for (let i = 0; i < 30; i++) {
    const c = pick(stops, r);
    out.push({ name: `random ${i}`, n: { lat: round6(c.lat + (r() - 0.5) * 0.02), lon: round6(c.lon + (r() - 0.5) * 0.02), radius: Math.round(r() ** 2 * 10_000 * 10) / 10 } });
  }
  for (let i = 0; i < 10; i++) {
    // the radius is the distance to another stop of the feed: that stop lies on the circle
    const a = pick(stops, r);
    const c = pick(
      stops.filter((x) => x.feed === a.feed && haversine(a.lat, a.lon, x.lat, x.lon) <= 10_000),
      r,
    );
    out.push({ name: `edge on stop ${c.id}`, n: { lat: a.lat, lon: a.lon, radius: haversine(a.lat, a.lon, c.lat, c.lon) }, edge: c.id });
  }
  const one = pick(stops, r);
  out.push({ name: "radius 0 on a stop", n: { lat: one.lat, lon: one.lon, radius: 0 } });
  out.push({ name: "open ocean (empty)", n: { lat: 0.5, lon: -29.5, radius: 10_000 } });
  out.push({ name: "near the pole (box over every longitude)", n: { lat: 89.99, lon: 10, radius: 10_000 } });
  out.push({ name: "on the antimeridian (empty)", n: { lat: 0, lon: 180, radius: 10_000 } });
  expect(out.length).toBe(N_CIRCLES);
  return out;
});

describe("bbox lists equal a brute-force filter and the former SQL", () => {
  test("the dataset has stops enough to search", () => {
    expect(stops.length).toBeGreaterThan(1000);
    expect(new Set(stops.map((x) => x.feed)).size).toBeGreaterThan(3);
  });
  for (let i = 0; i < N_BOXES; i++) {
    test(`box ${i} (random, edges on stops, empty, the world)`, async () => {
      const { name, b } = boxCase(i);
      await named(`${name}: ${bboxParam(b)}`, async () => {
        const expected = stops.filter(inBox(b)).map((x) => x.id);
        if (name.startsWith("random") && expected.length) nonEmpty.boxes++;
        expect(await sqlIds(b, null)).toEqual(expected);
        expect(await listIds(bboxParam(b))).toEqual(expected);
        if (name.includes("empty")) expect(expected).toEqual([]);
        if (name.startsWith("edges on") || name.startsWith("a point")) expect(expected.length).toBeGreaterThan(0);
      });
    });
  }
});

describe("lat/lon/radius lists equal a brute-force filter and the former SQL", () => {
  for (let i = 0; i < N_CIRCLES; i++) {
    test(`circle ${i} (random, edge on a stop, radius 0, empty, near the pole)`, async () => {
      const { name, n, edge } = circleCase(i);
      await named(`${name}: ${nearParam(n)}`, async () => {
        const expected = stops.filter(inCircle(n)).map((x) => x.id);
        if (name.startsWith("random") && expected.length) nonEmpty.circles++;
        if (edge !== undefined) expect(expected).toContain(edge);
        expect(await sqlIds(null, n)).toEqual(expected);
        expect(await listIds(nearParam(n))).toEqual(expected);
        if (name.includes("empty")) expect(expected).toEqual([]);
        if (name.startsWith("edge on") || name.startsWith("radius 0")) expect(expected.length).toBeGreaterThan(0);
      });
    });
  }

  test("most random boxes and circles matched stops", () => {
    expect(nonEmpty.boxes).toBeGreaterThan(20);
    expect(nonEmpty.circles).toBeGreaterThan(20);
  });

  test("a circle and a box together: both conditions", async () => {
    const c = stops[Math.floor(stops.length / 2)]!;
    const n = { lat: c.lat, lon: c.lon, radius: 5000 };
    const b = { minLon: c.lon - 0.02, minLat: c.lat - 0.05, maxLon: c.lon + 0.05, maxLat: c.lat + 0.01 };
    const expected = stops.filter((x) => inBox(b)(x) && inCircle(n)(x)).map((x) => x.id);
    expect(expected.length).toBeGreaterThan(0);
    expect(await sqlIds(b, n)).toEqual(expected);
    expect(await listIds(`${bboxParam(b)}&${nearParam(n)}`)).toEqual(expected);
  });
});

describe("paging through a geographic search", () => {
  const wide = (): BBox => {
    const c = stops.find((x) => x.feed === s.feedId("wmata-rail"))!;
    return { minLon: c.lon - 0.1, minLat: c.lat - 0.1, maxLon: c.lon + 0.1, maxLat: c.lat + 0.1 };
  };

  test("small pages visit the same stops, in the same order, as one page", async () => {
    const b = wide();
    const all = await listIds(bboxParam(b));
    expect(all.length).toBeGreaterThan(100);
    const paged = await allPages(s, `/api/v2/rest/stops?${bboxParam(b)}&limit=7`, "stops");
    expect(paged.rows.map((r: any) => r.id)).toEqual(all);
    expect(paged.pages).toBe(Math.ceil(all.length / 7));
    const c = stops.find((x) => x.feed === s.feedId("bart"))!;
    const n = { lat: c.lat, lon: c.lon, radius: 10_000 };
    const circle = await listIds(nearParam(n));
    expect(circle.length).toBeGreaterThan(5);
    expect(await listIds(nearParam(n), 3)).toEqual(circle);
  });

  test("after = any id: the stops after it; a page ending at the last row has no next link", async () => {
    const b = wide();
    const all = await listIds(bboxParam(b));
    for (const k of [0, 1, 17, all.length - 2]) {
      const after = all[k]!;
      expect(await listIds(`${bboxParam(b)}&after=${after}`)).toEqual(all.slice(k + 1));
      // an id between two matches (not itself a match) works as a cursor too
      expect(await listIds(`${bboxParam(b)}&after=${after + 1}`)).toEqual(all.filter((id) => id > after + 1));
    }
    expect((await s.json(`/api/v2/rest/stops?${bboxParam(b)}&after=${all[all.length - 1]}`)).stops).toEqual([]);
    const exact = await s.json(`/api/v2/rest/stops?${bboxParam(b)}&after=${all[all.length - 11]}&limit=10`);
    expect(exact.stops.map((x: any) => x.id)).toEqual(all.slice(-10));
    expect(exact.meta).toBeUndefined();
    const first = await s.json(`/api/v2/rest/stops?${bboxParam(b)}&limit=10`);
    expect(first.meta.after).toBe(all[9]);
  });

  test("geojsonl without a limit streams the same stops", async () => {
    const b = wide();
    const r = await s.get(`/api/v2/rest/stops.geojsonl?${bboxParam(b)}`);
    expect(parseLines(await r.text()).map((f: any) => f.properties.id)).toEqual(await listIds(bboxParam(b)));
    const c = stops.find((x) => x.feed === s.feedId("bart"))!;
    const n = { lat: c.lat, lon: c.lon, radius: 10_000 };
    const lines = parseLines(await (await s.get(`/api/v2/rest/stops.geojsonl?${nearParam(n)}&location_type=0`)).text());
    expect(lines.map((f: any) => f.properties.id)).toEqual(await listIds(`${nearParam(n)}&location_type=0`));
    expect((await (await s.get(`/api/v2/rest/stops.geojsonl?bbox=-30,0,-29,1`)).text()).trim()).toBe("");
  });
});

describe("other filters with a geographic search", () => {
  /** the filter alone (the non-geographic DuckDB path) ∩ the brute-force area */
  async function check(filter: string, area: (st: Stop) => boolean, areaParam: string, min = 1) {
    const withoutArea = new Set(await listIds(filter));
    const expected = stops.filter((x) => area(x) && withoutArea.has(x.id)).map((x) => x.id);
    expect(expected.length).toBeGreaterThanOrEqual(min);
    expect(await listIds(`${areaParam}&${filter}`)).toEqual(expected);
    expect(await listIds(`${areaParam}&${filter}`, 2)).toEqual(expected);
  }
  const dc: BBox = { minLon: -77.2, minLat: 38.8, maxLon: -76.9, maxLat: 39.0 };
  const sf: Near = { lat: 37.7765, lon: -122.3942, radius: 10_000 };

  test("location_type", async () => {
    for (const lt of [0, 1, 2]) await check(`location_type=${lt}`, inBox(dc), bboxParam(dc));
    await check("location_type=0", inCircle(sf), nearParam(sf));
  });
  test("feed_onestop_id and feed_version_sha1", async () => {
    await check(`feed_onestop_id=${s.feedId("caltrain")}`, inCircle(sf), nearParam(sf));
    await check(`feed_onestop_id=${s.feedId("bart")}`, inCircle(sf), nearParam(sf));
    const sha = (await s.json(`/api/v2/rest/stops?feed_onestop_id=${s.feedId("bart")}&limit=1`)).stops[0].feed_version.sha1;
    await check(`feed_version_sha1=${sha}`, inCircle(sf), nearParam(sf));
    expect(await listIds(`${nearParam(sf)}&feed_onestop_id=${s.feedId("wmata-rail")}`)).toEqual([]);
  });
  test("stop_id and onestop_id", async () => {
    const st = stops.find((x) => inBox(dc)(x))!;
    await check(`stop_id=${encodeURIComponent(st.stopId)}`, inBox(dc), bboxParam(dc));
    await check(`onestop_id=${st.onestopId}`, inBox(dc), bboxParam(dc));
    expect(await listIds(`${nearParam(sf)}&stop_id=${encodeURIComponent(st.stopId)}&feed_onestop_id=${st.feed}`)).toEqual([]);
  });
  test("served_by_route_types and served_by_onestop_ids (the DuckDB path with the index's ids)", async () => {
    await check("served_by_route_types=2", inCircle(sf), nearParam(sf));
    await check("served_by_route_types=1,3", inBox(dc), bboxParam(dc));
    const route = (await s.json(`/api/v2/rest/routes/${s.feedId("bart")}:1/trips?limit=1`)).trips[0].route;
    await check(`served_by_onestop_ids=${route.onestop_id}`, inCircle(sf), nearParam(sf));
    await check(`served_by_onestop_ids=${route.agency.onestop_id}&location_type=0`, inCircle(sf), nearParam(sf));
    expect(await listIds(`bbox=-30,0,-29,1&served_by_route_types=2`)).toEqual([]);
  });
  test("license filters", async () => {
    await check("license_commercial_use_allowed=exclude_no", inBox(dc), bboxParam(dc));
    expect(await listIds(`${bboxParam(dc)}&license_share_alike_optional=no`)).toEqual([]);
  });
});

describe("trips lat/lon filter", () => {
  /** the former SQL: stop patterns of the version passing near the point, then the route's trips on them */
  async function formerTripIds(routeRef: number, n: Near): Promise<number[]> {
    const p = new Params();
    const v = `${s.dataDir}/versions/*`;
    const q = p.query(
      `WITH near AS (SELECT DISTINCT feed_version_id, stop_pattern_id FROM
         (SELECT feed_version_id, stop_pattern_id, unnest(stop_refs) AS stop_ref FROM read_parquet('${v}/stop_patterns.parquet'))
         WHERE stop_ref IN (SELECT s.id FROM read_parquet('${v}/stops.parquet') s WHERE ${nearSql(p, n, "s.stop_lat", "s.stop_lon")}))
       SELECT t.id FROM read_parquet('${v}/trips.parquet') t JOIN near ON near.feed_version_id = t.feed_version_id AND near.stop_pattern_id = t.stop_pattern_id
       WHERE t.route_ref = ${p.add(routeRef, INTEGER)} ORDER BY t.id`,
    );
    const ps = await duck.prepare(q.sql);
    ps.bind(q.values, q.types as any);
    return (await ps.runAndReadAll()).getRowsJS().map((r) => Number(r[0]));
  }

  test("random points and radii on routes of several feeds: the trips the former SQL found", async () => {
    const r = rng(99);
    let nonEmpty = 0;
    let checked = 0;
    for (const feed of ["bart", "caltrain", "trimet-2routes", "wmata-rail", "google-sample-feed"]) {
      const routeRows = await duck.runAndReadAll(
        `SELECT r.id FROM read_parquet('${s.dataDir}/versions/*/routes.parquet') r JOIN read_parquet('${s.dataDir}/versions/*/feed_version.parquet') fv ON fv.id = r.feed_version_id WHERE fv.feed_onestop_id = '${s.feedId(feed)}' ORDER BY r.id`,
      );
      const routeIds = routeRows.getRowsJS().map((x) => Number(x[0]));
      const feedStops = stops.filter((x) => x.feed === s.feedId(feed));
      for (let i = 0; i < 6; i++) {
        const route = pick(routeIds, r);
        const c = pick(feedStops, r);
        const n = { lat: round6(c.lat + (r() - 0.5) * 0.01), lon: round6(c.lon + (r() - 0.5) * 0.01), radius: i === 0 ? 0 : Math.round(r() * 3000) };
        const expected = await formerTripIds(route, n);
        const got = (await allPages(s, `/api/v2/rest/routes/${route}/trips?${nearParam(n)}&limit=1000`, "trips")).rows.map((t: any) => t.id);
        expect(got).toEqual(expected);
        checked++;
        if (expected.length) nonEmpty++;
      }
      // exactly on a stop with radius 0
      const c = pick(feedStops, r);
      const route = pick(routeIds, r);
      const n = { lat: c.lat, lon: c.lon, radius: 0 };
      expect((await allPages(s, `/api/v2/rest/routes/${route}/trips?${nearParam(n)}&limit=1000`, "trips")).rows.map((t: any) => t.id)).toEqual(await formerTripIds(route, n));
    }
    expect(checked).toBe(30);
    expect(nonEmpty).toBeGreaterThan(5);
  });

  test("default radius (500 m), paging, and a point far from every stop", async () => {
    const route = (await s.json(`/api/v2/rest/routes/${s.feedId("caltrain")}:L1/trips?limit=1`)).trips[0].route.id;
    const c = stops.find((x) => x.feed === s.feedId("caltrain"))!;
    const expected = await formerTripIds(route, { lat: c.lat, lon: c.lon, radius: 500 });
    expect(expected.length).toBeGreaterThan(3);
    const paged = await allPages(s, `/api/v2/rest/routes/${route}/trips?lat=${c.lat}&lon=${c.lon}&limit=3`, "trips");
    expect(paged.rows.map((t: any) => t.id)).toEqual(expected);
    expect((await s.json(`/api/v2/rest/routes/${route}/trips?lat=0.5&lon=-29.5&radius=10000`)).trips).toEqual([]);
  });
});

describe("StopSpatialIndex", () => {
  test("an empty index matches nothing", () => {
    const ix = new StopSpatialIndex([]);
    expect([...ix.selectIds({ minLon: -180, minLat: -90, maxLon: 180, maxLat: 90 }, null)]).toEqual([]);
    expect([...ix.selectIds(null, { lat: 0, lon: 0, radius: 10_000 })]).toEqual([]);
    ix.finishPatterns();
    expect(ix.patternsNear({ lat: 0, lon: 0, radius: 10_000 }, new Set([1])).size).toBe(0);
  });

  test("items come back in id order whatever order the points were given in", () => {
    const ix = new StopSpatialIndex([
      [30, 1, 1],
      [10, 1.001, 1],
      [20, 1, 1.001],
      [40, 5, 5],
    ]);
    expect([...ix.selectIds({ minLon: 0.5, minLat: 0.5, maxLon: 1.5, maxLat: 1.5 }, null)]).toEqual([10, 20, 30]);
    ix.addPatternStop(7, 1, 30);
    ix.addPatternStop(7, 2, 40);
    ix.addPatternStop(8, 3, 10);
    ix.addPatternStop(7, 4, 99); // no such stop: ignored
    ix.finishPatterns();
    const near = ix.patternsNear({ lat: 1, lon: 1, radius: 500 }, new Set([7, 8]));
    expect([...near.entries()].map(([fv, set]) => [fv, [...set].sort()]).sort((a, b) => Number(a[0]) - Number(b[0]))).toEqual([
      [7, [1]],
      [8, [3]],
    ]);
    expect(ix.patternsNear({ lat: 1, lon: 1, radius: 500 }, new Set([8])).has(7)).toBe(false);
  });

  test("stops without coordinates are listed by plain lists but never by a geographic search", async () => {
    expect(allIds.length).toBeGreaterThanOrEqual(stops.length);
    const world = await listIds("bbox=-180,-90,180,90");
    expect(world).toEqual(stops.map((x) => x.id));
  });
});
