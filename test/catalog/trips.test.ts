/**
 * /api/v2/rest/routes/{route_key}/trips end to end on real feeds. Expected trip sets are computed
 * straight from calendar.txt + calendar_dates.txt (test/support/gtfs-reader.ts), not by the pipeline.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { gtfs } from "../support/dataset.ts";
import { sql } from "../support/duck.ts";
import { dateRange, gtfsFeed } from "../support/gtfs-reader.ts";
import { hmsToSec } from "../support/raw-gtfs.ts";
import { allPages, catalogServer, parseLines, type TestServer } from "./harness.ts";

let s: TestServer;
beforeAll(async () => {
  s = await catalogServer();
}, 120_000);
afterAll(() => s?.stop());

const routePath = (feed: string, routeId: string) => `/api/v2/rest/routes/${encodeURIComponent(`${s.feedId(feed)}:${routeId}`)}/trips`;
const tripsPath = (feed: string, routeId: string, query = "") => `${routePath(feed, routeId)}?limit=1000${query}`;
const tripIds = async (path: string) => (await allPages(s, path, "trips")).rows.map((t: any) => t.trip_id).sort();

const nullableString = (v: unknown) => v === null || typeof v === "string";
const nullableInt = (v: unknown) => v === null || Number.isInteger(v);
const HMS = /^\d{2,}:\d{2}:\d{2}$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

describe("trips of a route on a service date equal the GTFS calendar", () => {
  const cases: { feed: string; route: string; dates: string[] }[] = [
    // BART 2019: ordinary weeks plus Memorial Day and the 4th of July (calendar_dates)
    { feed: "bart", route: "1", dates: [...dateRange("2019-05-20", "2019-06-02"), "2019-07-04", "2019-12-25"] },
    { feed: "caltrain", route: "L1", dates: [...dateRange("2023-11-20", "2023-11-27"), "2023-12-25", "2024-01-15"] },
    { feed: "trimet-2routes", route: "", dates: [] }, // filled below from the feed itself
    { feed: "wmata-rail", route: "", dates: [] }, // calendar_dates.txt only
  ];
  for (const c of cases) {
    test(`${c.feed} ${c.route || "(first route)"}`, async () => {
      const f = gtfsFeed(gtfs(c.feed));
      const route = c.route || f.table("routes")[0]!.route_id!;
      let dates = c.dates;
      if (!dates.length) {
        const span = f.calendarSpan();
        dates = dateRange(span.first, span.last, 5).slice(0, 12);
      }
      let nonEmpty = 0;
      for (const date of dates) {
        const expected = f.tripsOfRoute(route, date);
        const got = await tripIds(tripsPath(c.feed, route, `&service_date=${date}&use_service_window=false`));
        expect({ date, trips: got }).toEqual({ date, trips: expected });
        if (expected.length) nonEmpty++;
      }
      expect(nonEmpty).toBeGreaterThan(0);
    });
  }

  test("without a date every trip of the route is listed", async () => {
    const f = gtfsFeed(gtfs("caltrain"));
    expect(await tripIds(tripsPath("caltrain", "L1"))).toEqual(f.tripsOfRoute("L1", null));
  });

  test("use_service_window: a date outside the window shows the same weekday of the best week", async () => {
    const feed = s.feedId("bart");
    const [fv] = await sql<{ bw: string; se: string }>(
      `SELECT best_week_start::VARCHAR AS bw, service_end_date::VARCHAR AS se FROM read_parquet('${s.dataDir}/versions/*/feed_version.parquet') WHERE feed_onestop_id = '${feed}'`,
    );
    expect(fv!.se < "2031-01-07").toBe(true);
    const outside = "2031-01-07"; // a Tuesday long after the service window
    const sameWeekday = new Date(Date.parse(`${fv!.bw}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10); // Tuesday of the best week
    const substituted = await tripIds(tripsPath("bart", "1", `&service_date=${outside}`));
    expect(substituted.length).toBeGreaterThan(0);
    expect(substituted).toEqual(gtfsFeed(gtfs("bart")).tripsOfRoute("1", sameWeekday));
    expect(await tripIds(tripsPath("bart", "1", `&service_date=${outside}&use_service_window=false`))).toEqual([]);
  });
});

describe("relative_date", () => {
  let pinned: TestServer;
  // 2019-05-28T05:00Z is still Monday 2019-05-27 (Memorial Day) in BART's timezone, America/Los_Angeles
  const NOW = Date.parse("2019-05-28T05:00:00Z");
  beforeAll(async () => {
    pinned = await catalogServer(undefined, undefined, { now: () => NOW });
  }, 120_000);
  afterAll(() => pinned?.stop());

  const ids = async (rel: string) => (await allPages(pinned, tripsPath("bart", "1", `&relative_date=${rel}`), "trips")).rows.map((t: any) => t.trip_id).sort();
  const f = () => gtfsFeed(gtfs("bart"));

  test("TODAY is the date in the feed's timezone", async () => {
    expect(await ids("TODAY")).toEqual(f().tripsOfRoute("1", "2019-05-27"));
    expect(await ids("TODAY")).not.toEqual(f().tripsOfRoute("1", "2019-05-28"));
  });
  test("weekday names count today; NEXT_ names do not", async () => {
    expect(await ids("MONDAY")).toEqual(f().tripsOfRoute("1", "2019-05-27"));
    expect(await ids("NEXT_MONDAY")).toEqual(f().tripsOfRoute("1", "2019-06-03"));
    expect(await ids("SATURDAY")).toEqual(f().tripsOfRoute("1", "2019-06-01"));
    expect(await ids("next_sunday")).toEqual(f().tripsOfRoute("1", "2019-06-02"));
  });
});

describe("trip fields", () => {
  test("list: every field of the spec with its type; no stop_times, no geometry", async () => {
    const { rows } = await allPages(s, tripsPath("google-sample-feed", "STBA") + "&include_alerts=true", "trips");
    expect(rows.length).toBeGreaterThan(0);
    for (const t of rows) {
      expect(Number.isInteger(t.id)).toBe(true);
      expect(typeof t.trip_id).toBe("string");
      for (const k of ["trip_headsign", "trip_short_name", "block_id"]) expect(nullableString(t[k])).toBe(true);
      for (const k of ["direction_id", "wheelchair_accessible", "bikes_allowed", "cars_allowed"]) expect(nullableInt(t[k])).toBe(true);
      expect(t.schedule_relationship).toBe("STATIC");
      expect(Number.isInteger(t.stop_pattern_id)).toBe(true);
      expect(t.feed_version.sha1).toMatch(/^[0-9a-f]{40}$/);
      expect(Number.isNaN(Date.parse(t.feed_version.fetched_at))).toBe(false);
      expect(t.feed_version.feed).toEqual({ id: expect.any(Number), onestop_id: s.feedId("google-sample-feed") });
      expect(t.calendar.start_date).toMatch(DATE);
      expect(t.calendar.end_date).toMatch(DATE);
      for (const d of ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]) expect([0, 1]).toContain(t.calendar[d]);
      expect(Array.isArray(t.calendar.added_dates) && Array.isArray(t.calendar.removed_dates)).toBe(true);
      expect(Array.isArray(t.frequencies)).toBe(true);
      expect(t.alerts).toEqual([]); // include_alerts=true and no real-time source: empty, never invented
      expect(t.route.route_id).toBe("STBA");
      expect(t.route.alerts).toEqual([]);
      expect(typeof t.route.agency.agency_name).toBe("string");
      expect(t.stop_times).toBeUndefined();
      if (t.shape) expect(t.shape.geometry).toBeUndefined();
    }
  });

  test("frequencies are HH:MM:SS with headway seconds (frequencies.txt)", async () => {
    const raw = gtfsFeed(gtfs("google-sample-feed")).table("frequencies");
    const { rows } = await allPages(s, tripsPath("google-sample-feed", "STBA"), "trips");
    const withFreq = rows.filter((t: any) => t.frequencies.length);
    expect(withFreq.length).toBeGreaterThan(0);
    for (const t of withFreq) {
      const expected = raw.filter((r) => r.trip_id === t.trip_id);
      expect(t.frequencies.map((x: any) => [hmsToSec(x.start_time), hmsToSec(x.end_time), x.headway_secs])).toEqual(
        expected.map((r) => [hmsToSec(r.start_time!), hmsToSec(r.end_time!), Number(r.headway_secs)]).sort((a, b) => a[0]! - b[0]!),
      );
      for (const x of t.frequencies) expect(x.start_time).toMatch(HMS);
    }
  });

  test("alerts is null unless include_alerts=true", async () => {
    const body = await s.json(routePath("caltrain", "L1") + "?limit=1");
    expect(body.trips[0].alerts).toBeNull();
  });

  test("a single trip has stop_times equal to stop_times.txt and its shape geometry", async () => {
    const f = gtfsFeed(gtfs("caltrain"));
    const list = await s.json(routePath("caltrain", "L1") + "?limit=1");
    const listed = list.trips[0];
    const one = await s.json(`/api/v2/rest/routes/${encodeURIComponent(s.feedId("caltrain") + ":L1")}/trips/${listed.id}`);
    expect(one.trips).toHaveLength(1);
    const t = one.trips[0];
    const raw = f.stopTimes(t.trip_id);
    expect(t.stop_times.map((st: any) => [st.stop_sequence, st.stop.stop_id, hmsToSec(st.arrival_time), hmsToSec(st.departure_time)])).toEqual(
      raw.map((r) => [Number(r.stop_sequence), r.stop_id, hmsToSec(r.arrival_time!), hmsToSec(r.departure_time!)]),
    );
    for (const st of t.stop_times) {
      expect(st.arrival_time).toMatch(HMS);
      for (const k of ["pickup_type", "drop_off_type", "timepoint", "interpolated"]) expect(nullableInt(st[k])).toBe(true);
      expect(nullableString(st.stop_headsign)).toBe(true);
      expect(st.stop.geometry.type).toBe("Point");
      expect(st.stop.alerts).toEqual([]);
    }
    const shapePts = f.table("shapes").filter((p) => p.shape_id === t.shape.shape_id);
    expect(t.shape.generated).toBe(false);
    expect(t.shape.geometry.type).toBe("LineString");
    expect(t.shape.geometry.coordinates).toHaveLength(shapePts.length);
    const { stop_times: _st, shape, ...rest } = t;
    const { shape: listedShape, ...listedRest } = listed;
    expect(rest).toEqual(listedRest);
    expect({ shape_id: shape.shape_id, generated: shape.generated }).toEqual(listedShape);
  });

  test("times past midnight stay above 24:00:00", async () => {
    const f = gtfsFeed(gtfs("bart"));
    const late = f.table("stop_times").find((r) => (hmsToSec(r.arrival_time!) ?? 0) >= 24 * 3600)!;
    const trip = f.table("trips").find((t) => t.trip_id === late.trip_id)!;
    const list = await s.json(tripsPath("bart", trip.route_id!, `&trip_id=${encodeURIComponent(trip.trip_id!)}`));
    const one = await s.json(`/api/v2/rest/routes/${list.trips[0].route.id}/trips/${list.trips[0].id}`);
    const st = one.trips[0].stop_times.find((x: any) => x.stop_sequence === Number(late.stop_sequence));
    expect(st.arrival_time).toBe(late.arrival_time!.padStart(8, "0"));
  });

  test("a feed without shapes gets generated shapes (ctran-flex) flagged as such", async () => {
    const f = gtfsFeed(gtfs("ctran-flex"));
    const route = f.table("routes")[0]!.route_id!;
    const body = await s.json(tripsPath("ctran-flex", route) + "&include_geometry=true&limit=5");
    for (const t of body.trips) {
      if (t.shape) {
        expect(t.shape.generated).toBe(true);
        expect(t.shape.geometry === null || t.shape.geometry.type === "LineString").toBe(true);
      }
    }
  });
});

describe("trip filters and keys", () => {
  test("the three route key forms list the same trips", async () => {
    const byFeedKey = await s.json(routePath("caltrain", "L1") + "?limit=50");
    const route = byFeedKey.trips[0].route;
    const byId = await s.json(`/api/v2/rest/routes/${route.id}/trips?limit=50`);
    const byOnestop = await s.json(`/api/v2/rest/routes/${route.onestop_id}/trips?limit=50`);
    expect(byId.trips).toEqual(byFeedKey.trips);
    expect(byOnestop.trips.map((t: any) => t.id)).toEqual(byFeedKey.trips.map((t: any) => t.id));
  });

  test("trip_id and id filters", async () => {
    const body = await s.json(routePath("caltrain", "L1") + "?limit=2");
    const [a] = body.trips;
    expect((await s.json(tripsPath("caltrain", "L1") + `&trip_id=${a.trip_id}`)).trips.map((t: any) => t.id)).toEqual([a.id]);
    expect((await s.json(tripsPath("caltrain", "L1") + `&id=${a.id}`)).trips.map((t: any) => t.trip_id)).toEqual([a.trip_id]);
  });

  test("include_geometry=true adds the shape LineString to list rows", async () => {
    const body = await s.json(routePath("caltrain", "L1") + "?limit=3&include_geometry=true");
    for (const t of body.trips) expect(t.shape.geometry.type).toBe("LineString");
  });

  test("paging visits every trip of a route once", async () => {
    const all = await tripIds(tripsPath("bart", "1"));
    const paged = await allPages(s, `/api/v2/rest/routes/${encodeURIComponent(s.feedId("bart") + ":1")}/trips?limit=37`, "trips");
    const ids = paged.rows.map((t: any) => t.trip_id).sort();
    expect(ids).toEqual(all);
    expect(new Set(ids).size).toBe(ids.length);
    expect(paged.pages).toBe(Math.ceil(all.length / 37));
  });

  test("lat/lon: trips of the route that serve a stop near the point", async () => {
    const f = gtfsFeed(gtfs("caltrain"));
    const stop = f.table("stops").find((x) => x.stop_id === "70261")!; // Lawrence, skipped by some trains
    const lat = Number(stop.stop_lat);
    const lon = Number(stop.stop_lon);
    const R = 6_371_008.8;
    const near = new Set(
      f
        .table("stops")
        .filter((x) => {
          const r = Math.PI / 180;
          const a = Math.sin(((Number(x.stop_lat) - lat) * r) / 2) ** 2 + Math.cos(lat * r) * Math.cos(Number(x.stop_lat) * r) * Math.sin(((Number(x.stop_lon) - lon) * r) / 2) ** 2;
          return 2 * R * Math.asin(Math.sqrt(a)) <= 300;
        })
        .map((x) => x.stop_id),
    );
    const routeTrips = new Set(f.tripsOfRoute("L1", null));
    const expected = [...new Set(f.table("stop_times").filter((st) => routeTrips.has(st.trip_id!) && near.has(st.stop_id)).map((st) => st.trip_id!))].sort();
    const got = await tripIds(tripsPath("caltrain", "L1", `&lat=${lat}&lon=${lon}&radius=300`));
    expect(got).toEqual(expected);
    expect(got.length).toBeGreaterThan(0);
  });
});

describe("trip formats", () => {
  test("geojson: a FeatureCollection of shape LineStrings, every other field in properties", async () => {
    const fc = await s.json(`/api/v2/rest/routes/${encodeURIComponent(s.feedId("caltrain") + ":L1")}/trips.geojson?limit=3`);
    const plain = await s.json(routePath("caltrain", "L1") + "?limit=3");
    expect(fc.type).toBe("FeatureCollection");
    expect(fc.meta.after).toBe(plain.meta.after);
    fc.features.forEach((feat: any, i: number) => {
      expect(feat.type).toBe("Feature");
      expect(feat.geometry.type).toBe("LineString");
      expect(feat.properties).toEqual(plain.trips[i]);
    });
  });

  test("geojsonl without a limit streams every trip of the route", async () => {
    const r = await s.get(`/api/v2/rest/routes/${encodeURIComponent(s.feedId("bart") + ":1")}/trips.geojsonl`);
    expect(r.status).toBe(200);
    const features = parseLines(await r.text());
    expect(features.map((f: any) => f.properties.trip_id).sort()).toEqual(await tripIds(tripsPath("bart", "1")));
    expect(features.every((f: any) => f.geometry.type === "LineString")).toBe(true);
  });

  test("a single trip in geojson carries stop_times in its properties", async () => {
    const list = await s.json(routePath("caltrain", "L1") + "?limit=1");
    const fc = await s.json(`/api/v2/rest/routes/${list.trips[0].route.id}/trips/${list.trips[0].id}.geojson`);
    expect(fc.features).toHaveLength(1);
    expect(fc.features[0].geometry.type).toBe("LineString");
    expect(fc.features[0].properties.stop_times.length).toBeGreaterThan(1);
  });
});
