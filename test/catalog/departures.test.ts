/**
 * FEATURE UNDER TEST: GET /api/v2/rest/stops/{stop_key}/departures end to end on real feeds: the
 * departures of a stop (a station: of its platforms) against stop_times.txt, trips.txt,
 * calendar.txt, calendar_dates.txt and frequencies.txt read by the tests' own GTFS reader
 * (test/support/raw-gtfs.ts, gtfs-reader.ts): service days and calendar days, windows, order
 * across midnight (times past 24:00), the default next hour, relative dates, the service window,
 * frequencies, realtime estimates from Caltrain's recorded trip updates, alerts, licences, and
 * 400s naming the parameter.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { runImportRt } from "../../pipeline/realtime/cli.ts";
import { gtfs } from "../support/dataset.ts";
import { sql } from "../support/duck.ts";
import { gtfsFeed } from "../support/gtfs-reader.ts";
import { hmsToSec, type Row } from "../support/raw-gtfs.ts";
import { alertEntity, Clock, datasetCopy, encodeFeed, feedIdOf, ingester, rtFile, rtServer, type RtServer, tr } from "../realtime/support.ts";
import { catalogServer, type TestServer } from "./harness.ts";

let s: TestServer;
beforeAll(async () => {
  s = await catalogServer();
}, 120_000);
afterAll(() => s?.stop());

const DAY = 86_400;
const deps = (feed: string, stopId: string) => `/api/v2/rest/stops/${encodeURIComponent(`${s.feedId(feed)}:${stopId}`)}/departures`;
const addDays = (d: string, n: number) => new Date(Date.parse(`${d}T00:00:00Z`) + n * DAY * 1000).toISOString().slice(0, 10);
const hms = (x: number) => [Math.floor(x / 3600), Math.floor((x % 3600) / 60), x % 60].map((n) => String(n).padStart(2, "0")).join(":");
const nz = (v: string | undefined) => (v === undefined || v === "" ? null : v);

/** A departure as the GTFS files give it: the stop_time row, its trip, the service day, and the frequency shift. */
interface Dep {
  st: Row;
  trip: Row;
  serviceDate: string;
  /** service-day seconds (a frequency instance's) */
  dep: number;
  arr: number;
  /** days from the asked day to the service day */
  shift: number;
}

/**
 * Departures at `stopIds` from the GTFS files: stop_times of trips whose service runs on the
 * service day, but the trip's last stop_time, departing within [from, to] of that day's clock;
 * frequency-based trips expanded (windows [start, end), every headway).
 */
function gtfsDepartures(name: string, stopIds: string[], serviceDate: string, from: number, to: number, shift = 0): Dep[] {
  const f = gtfsFeed(gtfs(name));
  const services = f.servicesOn(serviceDate);
  const trips = new Map(f.table("trips").filter((t) => services.has(t.service_id!)).map((t) => [t.trip_id!, t]));
  const freq = new Map<string, Row[]>();
  for (const x of f.table("frequencies")) (freq.get(x.trip_id!) ?? freq.set(x.trip_id!, []).get(x.trip_id!)!).push(x);
  const lastSeq = new Map<string, number>();
  const firstDep = new Map<string, [number, number]>();
  for (const st of f.table("stop_times")) {
    const seq = Number(st.stop_sequence);
    lastSeq.set(st.trip_id!, Math.max(lastSeq.get(st.trip_id!) ?? -Infinity, seq));
    const fd = firstDep.get(st.trip_id!);
    if (!fd || seq < fd[0]) firstDep.set(st.trip_id!, [seq, hmsToSec(st.departure_time!)!]);
  }
  const out: Dep[] = [];
  for (const st of f.table("stop_times")) {
    const trip = trips.get(st.trip_id!);
    if (!trip || !stopIds.includes(st.stop_id!) || Number(st.stop_sequence) >= lastSeq.get(st.trip_id!)!) continue;
    const dep = hmsToSec(st.departure_time!)!;
    const arr = hmsToSec(st.arrival_time!)!;
    const windows = freq.get(st.trip_id!);
    if (!windows) {
      if (dep >= from && dep <= to) out.push({ st, trip, serviceDate, dep, arr, shift });
      continue;
    }
    const first = firstDep.get(st.trip_id!)![1];
    for (const w of windows) {
      for (let x = hmsToSec(w.start_time!)!; x < hmsToSec(w.end_time!)!; x += Number(w.headway_secs)) {
        const d = dep + x - first;
        if (d >= from && d <= to) out.push({ st, trip, serviceDate, dep: d, arr: arr + x - first, shift });
      }
    }
  }
  return out;
}

/** Departures of a calendar day [from, to] (to may pass 24:00:00): the day before's trips past midnight, the day's, the next day's. */
function calendarDay(name: string, stopIds: string[], date: string, from: number, to: number): Dep[] {
  const out = [...gtfsDepartures(name, stopIds, addDays(date, -1), from + DAY, to + DAY, -1), ...gtfsDepartures(name, stopIds, date, from, to, 0)];
  if (to >= DAY) out.push(...gtfsDepartures(name, stopIds, addDays(date, 1), 0, to - DAY, 1));
  return out;
}

const order = (a: Dep, b: Dep) => a.shift * DAY + a.dep - (b.shift * DAY + b.dep) || (a.trip.trip_id! < b.trip.trip_id! ? -1 : a.trip.trip_id! > b.trip.trip_id! ? 1 : 0);
const gotOrder = (a: any, b: any) => a.k - b.k || (a.trip.trip_id < b.trip.trip_id ? -1 : a.trip.trip_id > b.trip.trip_id ? 1 : 0);
/** What to compare of a departure: trip, service date, times */
const summary = (d: Dep) => [d.trip.trip_id, d.serviceDate, hms(d.arr), hms(d.dep), Number(d.st.stop_sequence)];
const gotSummary = (d: any) => [d.trip.trip_id, d.service_date, d.arrival_time, d.departure_time, d.stop_sequence];
/** got departures with their order key: days from `base` to the service date, and the departure time */
const keyed = (list: any[], base: string) =>
  list.map((d) => ({ ...d, k: ((Date.parse(d.service_date) - Date.parse(base)) / 1000 / DAY) * DAY + hmsToSec(d.departure_time)! }));

describe("departures of a service day and of a calendar day, against the GTFS files", () => {
  test("BART Embarcadero, service_date=2019-06-04: every departure of the day, every field", async () => {
    const body = await s.json(`${deps("bart", "EMBR")}?service_date=2019-06-04&limit=1000`);
    expect(body.stops).toHaveLength(1);
    const stop = body.stops[0];
    expect(stop).toMatchObject({ stop_id: "EMBR", stop_name: "Embarcadero", location_type: 0, children: [], geometry: { type: "Point" } });
    expect(body.meta).toBeUndefined();
    const expected = gtfsDepartures("bart", ["EMBR"], "2019-06-04", 0, Infinity).sort(order);
    expect(expected.length).toBeGreaterThan(300);
    const got = keyed(stop.departures, "2019-06-04");
    // in time order (ties in any order)
    for (let i = 1; i < got.length; i++) expect(got[i].k).toBeGreaterThanOrEqual(got[i - 1].k);
    expect([...got].sort(gotOrder).map(gotSummary)).toEqual(expected.map(summary));
    const f = gtfsFeed(gtfs("bart"));
    const routes = new Map(f.table("routes").map((r) => [r.route_id!, r]));
    for (const d of got) {
      const e = expected.find((x) => x.trip.trip_id === d.trip.trip_id)!;
      const r = routes.get(e.trip.route_id!)!;
      expect(d).toMatchObject({
        stop_headsign: nz(e.st.stop_headsign), pickup_type: e.st.pickup_type ? Number(e.st.pickup_type) : null, drop_off_type: e.st.drop_off_type ? Number(e.st.drop_off_type) : null,
        service_date: "2019-06-04", date: e.dep >= DAY ? "2019-06-05" : "2019-06-04", schedule_relationship: "STATIC",
        realtime_arrival_time: null, realtime_departure_time: null, arrival_delay: null, departure_delay: null, realtime_schedule_relationship: null,
      });
      expect(d.trip).toMatchObject({ trip_id: e.trip.trip_id, trip_headsign: nz(e.trip.trip_headsign), direction_id: e.trip.direction_id ? Number(e.trip.direction_id) : null, schedule_relationship: "STATIC", alerts: null });
      expect(d.trip.route).toMatchObject({ route_id: r.route_id, route_short_name: nz(r.route_short_name), route_long_name: nz(r.route_long_name), route_type: Number(r.route_type), route_color: r.route_color!.toUpperCase(), alerts: [] });
      // the instants: service day 2019-06-04 starts at local midnight, PDT (UTC-7)
      const utc = (x: number) => new Date(Date.UTC(2019, 5, 4) + (x + 7 * 3600) * 1000).toISOString().slice(0, 19) + "Z";
      const local = (x: number) => new Date(Date.UTC(2019, 5, 4) + x * 1000).toISOString().slice(0, 19) + "-07:00";
      expect(d.departure).toEqual({
        scheduled: hms(e.dep), scheduled_utc: utc(e.dep), scheduled_local: local(e.dep), estimated: null, estimated_utc: null, estimated_local: null,
        estimated_delay: null, delay: null, uncertainty: null, stop_timezone: "America/Los_Angeles",
      });
      expect(d.arrival).toMatchObject({ scheduled: hms(e.arr), scheduled_utc: utc(e.arr), scheduled_local: local(e.arr) });
    }
  });

  test("times past 24:00:00: a service day's late trips come last; a calendar day starts with the previous service day's", async () => {
    const late = (await s.json(`${deps("bart", "EMBR")}?service_date=2019-06-04&start_time=23:00:00&limit=1000`)).stops[0].departures;
    const expectedLate = gtfsDepartures("bart", ["EMBR"], "2019-06-04", 23 * 3600, Infinity).sort(order);
    expect(expectedLate.some((d) => d.dep >= DAY)).toBe(true);
    expect(late.map((d: any) => d.departure_time)).toEqual(expectedLate.map((d) => hms(d.dep)));
    expect(late.at(-1).departure_time >= "24:00:00").toBe(true);
    expect(late.at(-1).date).toBe("2019-06-05");
    // the calendar day 2019-06-05 from 00:00 to 06:00: the 24:xx trips of service day 06-04, then 06-05's first ones
    const early = (await s.json(`${deps("bart", "EMBR")}?date=2019-06-05&start_time=00:00:00&end_time=06:00:00&limit=1000`)).stops[0].departures;
    const expectedEarly = calendarDay("bart", ["EMBR"], "2019-06-05", 0, 6 * 3600).sort(order);
    expect(expectedEarly.some((d) => d.shift === -1) && expectedEarly.some((d) => d.shift === 0)).toBe(true);
    expect(early.map(gotSummary)).toEqual(expectedEarly.map(summary));
    const firstOfDay = early.find((d: any) => d.service_date === "2019-06-05");
    expect(early.indexOf(firstOfDay)).toBe(expectedEarly.filter((d) => d.shift === -1).length);
    expect(early[0].date).toBe("2019-06-05");
    expect(early[0].departure.scheduled_local).toStartWith("2019-06-05T00:");
    // a window reaching past midnight of the calendar day takes the next day's first trips
    const evening = (await s.json(`${deps("bart", "EMBR")}?date=2019-06-04&start_time=22:00:00&end_time=31:00:00&limit=1000`)).stops[0].departures;
    const expectedEvening = calendarDay("bart", ["EMBR"], "2019-06-04", 22 * 3600, 31 * 3600).sort(order);
    expect(expectedEvening.some((d) => d.shift === 1)).toBe(true);
    expect([...keyed(evening, "2019-06-04")].sort(gotOrder).map(gotSummary)).toEqual(expectedEvening.map(summary));
  });

  test("limit: the first departures in time order; end_time bounds the window", async () => {
    const all = calendarDay("bart", ["EMBR"], "2019-06-04", 8 * 3600, 9 * 3600).sort(order);
    const some = (await s.json(`${deps("bart", "EMBR")}?date=2019-06-04&start_time=08:00:00&end_time=09:00:00&limit=5`)).stops[0].departures;
    expect(some.map((d: any) => d.departure_time)).toEqual(all.slice(0, 5).map((d) => hms(d.dep)));
    const whole = (await s.json(`${deps("bart", "EMBR")}?date=2019-06-04&start_time=08:00:00&end_time=09:00:00&limit=1000`)).stops[0].departures;
    expect(whole.length).toBe(all.length);
    expect(whole.every((d: any) => d.departure_time >= "08:00:00" && d.departure_time <= "09:00:00")).toBe(true);
    // the default limit is 20
    expect((await s.json(`${deps("bart", "EMBR")}?date=2019-06-04`)).stops[0].departures).toHaveLength(20);
  });

  test("a station: its departures (none: no trip stops at a station) and its platforms' (children), each against stop_times.txt; a terminus platform has none", async () => {
    const f = gtfsFeed(gtfs("caltrain"));
    const platforms = f.table("stops").filter((x) => x.parent_station === "san_francisco").map((x) => x.stop_id!).sort();
    const body = await s.json(`${deps("caltrain", "san_francisco")}?date=2023-11-20&start_time=07:00:00&end_time=10:00:00&limit=1000`);
    const [station] = body.stops;
    expect(station).toMatchObject({ stop_id: "san_francisco", location_type: 1, departures: [] });
    expect(station.children.map((c: any) => c.stop_id).sort()).toEqual(platforms);
    let total = 0;
    for (const child of station.children) {
      expect(child.parent).toMatchObject({ stop_id: "san_francisco" });
      const expected = calendarDay("caltrain", [child.stop_id], "2023-11-20", 7 * 3600, 10 * 3600).sort(order);
      expect([...keyed(child.departures, "2023-11-20")].sort(gotOrder).map(gotSummary)).toEqual(expected.map(summary));
      // PST (UTC-8) on 2023-11-20
      for (const d of child.departures) expect(d.departure.scheduled_utc).toBe(new Date(Date.UTC(2023, 10, 20) + (hmsToSec(d.departure_time)! + 8 * 3600) * 1000).toISOString().slice(0, 19) + "Z");
      total += child.departures.length;
    }
    expect(total).toBeGreaterThan(5);
    // San Francisco is the northbound terminus: its arrivals there are trips' last stop_times, not departures
    const arrivalsOnly = station.children.find((c: any) => c.departures.length === 0);
    expect(arrivalsOnly).toBeDefined();
    expect(f.table("stop_times").some((st) => st.stop_id === arrivalsOnly.stop_id)).toBe(true);
  });

  test("frequencies.txt: frequency-based trips depart at every headway of their windows (end excluded)", async () => {
    const body = await s.json(`${deps("google-sample-feed", "STAGECOACH")}?service_date=2008-06-02&limit=1000`);
    const got = body.stops[0].departures;
    const expected = gtfsDepartures("google-sample-feed", ["STAGECOACH"], "2008-06-02", 0, Infinity).sort(order);
    expect(expected.filter((d) => d.trip.trip_id === "STBA")).toHaveLength(32);
    expect([...keyed(got, "2008-06-02")].sort(gotOrder).map(gotSummary)).toEqual(expected.map(summary));
    for (const d of got) expect(d.trip.frequencies.length).toBeGreaterThan(0);
  });

  test("use_service_window: a date outside the feed's window shows its best week's same weekday, reported as the date asked", async () => {
    const [fv] = await sql<{ bw: string }>(`SELECT best_week_start::VARCHAR AS bw FROM read_parquet('${s.dataDir}/versions/*/feed_version.parquet') WHERE feed_onestop_id = '${s.feedId("bart")}'`);
    const tuesday = addDays(fv!.bw, 1);
    const got = (await s.json(`${deps("bart", "EMBR")}?service_date=2031-01-07&start_time=08:00:00&end_time=09:00:00&limit=1000`)).stops[0].departures;
    const expected = gtfsDepartures("bart", ["EMBR"], tuesday, 8 * 3600, 9 * 3600).sort(order);
    expect(expected.length).toBeGreaterThan(0);
    expect([...keyed(got, "2031-01-07")].sort(gotOrder).map((d) => [d.trip.trip_id, d.departure_time])).toEqual(expected.map((d) => [d.trip.trip_id, hms(d.dep)]));
    expect(new Set(got.map((d: any) => d.service_date))).toEqual(new Set(["2031-01-07"]));
    expect((await s.json(`${deps("bart", "EMBR")}?service_date=2031-01-07&use_service_window=false`)).stops[0].departures).toEqual([]);
  });

  test("include_geometry: each departure's trip.shape carries its LineString", async () => {
    const [d] = (await s.json(`${deps("bart", "EMBR")}?service_date=2019-06-04&limit=1&include_geometry=true`)).stops[0].departures;
    expect(d.trip.shape.geometry.type).toBe("LineString");
    const [plain] = (await s.json(`${deps("bart", "EMBR")}?service_date=2019-06-04&limit=1`)).stops[0].departures;
    expect(Object.keys(plain.trip.shape)).toEqual(["shape_id", "generated"]);
  });

  test("the stop by any key form; an unknown key is a 404; licence filters exclude the stop (404) or keep it", async () => {
    const [embr] = (await s.json(`/api/v2/rest/stops?stop_id=EMBR&feed_onestop_id=${s.feedId("bart")}`)).stops;
    const q = "?service_date=2019-06-04&start_time=08:00:00&end_time=08:30:00&limit=100";
    const a = await s.json(`${deps("bart", "EMBR")}${q}`);
    expect(await s.json(`/api/v2/rest/stops/${embr.id}/departures${q}`)).toEqual(a);
    expect(await s.json(`/api/v2/rest/stops/${embr.onestop_id}/departures${q}`)).toEqual(a);
    expect(await s.json(`${deps("bart", "EMBR")}${q}&license_commercial_use_allowed=exclude_no`)).toEqual(a);
    for (const p of [`${deps("bart", "NOPE")}`, "/api/v2/rest/stops/99999999/departures", `${deps("bart", "EMBR")}?license_commercial_use_allowed=yes`, `${deps("bart", "EMBR")}?feed_version_sha1=${"0".repeat(40)}`]) {
      const r = await s.get(p);
      expect({ p, status: r.status }).toEqual({ p, status: 404 });
      expect(typeof ((await r.json()) as any).error).toBe("string");
    }
  });
});

describe("now: next, the default hour, relative_date, a bare start_time", () => {
  let pinned: TestServer;
  // 2019-06-04T15:00:00Z is Tuesday 08:00 in BART's time zone (PDT)
  const NOW = Date.parse("2019-06-04T15:00:00Z");
  beforeAll(async () => {
    pinned = await catalogServer(undefined, undefined, { now: () => NOW });
  }, 120_000);
  afterAll(() => pinned?.stop());
  const times = async (q: string) => (await pinned.json(`${deps("bart", "EMBR")}?limit=1000${q}`)).stops[0].departures.map((d: any) => [d.service_date, d.departure_time]);
  const expected = (list: Dep[]) => list.sort(order).map((d) => [d.serviceDate, hms(d.dep)]);

  test("no date and no time: the next hour from now (next=3600); next=600: ten minutes", async () => {
    expect(await times("")).toEqual(expected(calendarDay("bart", ["EMBR"], "2019-06-04", 8 * 3600, 9 * 3600)));
    expect(await times("&next=600")).toEqual(expected(calendarDay("bart", ["EMBR"], "2019-06-04", 8 * 3600, 8 * 3600 + 600)));
    expect((await times("&next=600")).length).toBeGreaterThan(2);
  });

  test("relative_date (a calendar day in the feed's time zone) and a bare start_time (today)", async () => {
    expect(await times("&relative_date=NEXT_TUESDAY&start_time=07:00:00&end_time=08:00:00")).toEqual(expected(calendarDay("bart", ["EMBR"], "2019-06-11", 7 * 3600, 8 * 3600)));
    expect(await times("&relative_date=SATURDAY&start_time=12:00:00&end_time=12:30:00")).toEqual(expected(calendarDay("bart", ["EMBR"], "2019-06-08", 12 * 3600, 12 * 3600 + 1800)));
    expect(await times("&start_time=23:00:00")).toEqual(expected(calendarDay("bart", ["EMBR"], "2019-06-04", 23 * 3600, DAY - 1)));
    expect(await times("&date=2019-06-05&next=1800")).toEqual(expected(calendarDay("bart", ["EMBR"], "2019-06-05", 8 * 3600, 8 * 3600 + 1800)));
  });
});

describe("realtime: Caltrain's trip updates (caltrain-trip-updates.pb) and hand-made alerts", () => {
  const CT_TS = 1699405534; // the snapshot's header, 2023-11-08T01:05:34Z = 2023-11-07 17:05:34 PST; its updates' start_date 20231107
  const CT_DAY_START = 1699344000; // 2023-11-07 00:00 PST
  const clock = new Clock((CT_TS + 30) * 1000);
  let rt: RtServer;
  let ct: string;
  const origLog = console.log;
  beforeAll(async () => {
    const data = await datasetCopy("departures-rt", ["caltrain"]);
    ct = feedIdOf(data, "caltrain");
    console.log = () => {};
    try {
      expect(await runImportRt(["--data", data, "--feed-id", ct, "--retention-days", "0", rtFile("caltrain-trip-updates.pb")])).toBe(0);
    } finally {
      console.log = origLog;
    }
    const ing = await ingester(data, "poller");
    try {
      const bytes = encodeFeed(CT_TS, [
        alertEntity("stop", [{ stopId: "70242" }], { headerText: tr("Platform 2 closed") }),
        alertEntity("route", [{ routeId: "L1" }], { headerText: tr("Local: single tracking") }),
        alertEntity("trip", [{ trip: { tripId: "124" } }], { headerText: tr("Train 124 short") }),
      ]);
      const [r] = await ing.ingest(ct, "alerts", bytes, "hand-made", new Date(CT_TS * 1000));
      expect(r!.outcome).toBe("accepted");
    } finally {
      ing.close();
    }
    rt = await rtServer(data, clock);
  }, 180_000);
  afterAll(() => rt?.stop());

  const at70242 = (q: string) => rt.json(`/api/v2/rest/stops/${encodeURIComponent(`${ct}:70242`)}/departures?${q}`);
  const hmsOf = (unix: number) => hms(unix - CT_DAY_START);

  test("trip 124 at its stop_sequence 21 (70242) on 2023-11-07: realtime time and delay beside the schedule, as the single-trip endpoint has them", async () => {
    const body = await at70242("date=2023-11-07&start_time=17:00:00&end_time=17:30:00&limit=100");
    const d = body.stops[0].departures.find((x: any) => x.trip.trip_id === "124");
    expect(d).toMatchObject({
      stop_sequence: 21, departure_time: "17:09:00", service_date: "2023-11-07", schedule_relationship: "SCHEDULED",
      realtime_arrival_time: hmsOf(1699405801), arrival_delay: 61, realtime_departure_time: hmsOf(1699405801), departure_delay: 61, realtime_schedule_relationship: "SCHEDULED",
    });
    expect(d.trip.schedule_relationship).toBe("SCHEDULED");
    expect(d.departure).toMatchObject({
      scheduled: "17:09:00", scheduled_utc: "2023-11-08T01:09:00Z", scheduled_local: "2023-11-07T17:09:00-08:00",
      estimated: hmsOf(1699405801), estimated_utc: "2023-11-08T01:10:01Z", estimated_local: "2023-11-07T17:10:01-08:00", estimated_delay: 61, delay: 61,
    });
    // every departure of the window has the realtime fields of its trip's stop_time in the single-trip form (STATIC and null without an update)
    const relationships = new Set<string>();
    const evening = await at70242("date=2023-11-07&start_time=17:00:00&end_time=23:59:59&limit=100");
    for (const x of evening.stops[0].departures) {
      const one = (await rt.json(`/api/v2/rest/routes/${x.trip.route.id}/trips/${x.trip.id}`)).trips[0];
      const st = one.stop_times.find((y: any) => y.stop_sequence === x.stop_sequence);
      for (const k of ["arrival_time", "departure_time", "realtime_arrival_time", "arrival_delay", "realtime_departure_time", "departure_delay", "realtime_schedule_relationship"]) expect([x.trip.trip_id, k, x[k]]).toEqual([x.trip.trip_id, k, st[k]]);
      expect(x.schedule_relationship).toBe(one.schedule_relationship);
      expect(x.departure.estimated).toBe(x.realtime_departure_time);
      relationships.add(x.schedule_relationship);
    }
    expect(relationships).toEqual(new Set(["SCHEDULED", "STATIC"]));
  });

  test("the update is for its own service day: the same trip a week later is STATIC", async () => {
    const later = (await at70242("date=2023-11-14&start_time=17:00:00&end_time=17:30:00&limit=100")).stops[0].departures.find((x: any) => x.trip.trip_id === "124");
    expect(later).toMatchObject({ service_date: "2023-11-14", schedule_relationship: "STATIC", realtime_departure_time: null, departure_delay: null });
    expect(later.departure.estimated).toBeNull();
  });

  test("include_alerts / active_alerts: the stop's, the trip's and its route's alerts; none asked, none given", async () => {
    const heads = (list: any[] | null) => (list ?? []).map((a) => a.header_text[0].text);
    const q = "date=2023-11-07&start_time=17:00:00&end_time=17:30:00&limit=100";
    const plain = (await at70242(q)).stops[0];
    expect(plain.alerts).toEqual([]);
    const p124 = plain.departures.find((x: any) => x.trip.trip_id === "124");
    expect([p124.trip.alerts, p124.trip.route.alerts]).toEqual([null, []]);
    for (const flag of ["include_alerts=true", "active_alerts=true"]) {
      const stop = (await at70242(`${q}&${flag}`)).stops[0];
      expect(heads(stop.alerts)).toEqual(["Platform 2 closed"]);
      const d = stop.departures.find((x: any) => x.trip.trip_id === "124");
      expect(heads(d.trip.alerts)).toEqual(["Train 124 short"]);
      expect(heads(d.trip.route.alerts)).toEqual(d.trip.route.route_id === "L1" ? ["Local: single tracking"] : []);
    }
  });

  test("past the realtime maximum age the estimates are gone", async () => {
    clock.setS(CT_TS + 601);
    const d = (await at70242("date=2023-11-07&start_time=17:00:00&end_time=17:30:00&limit=100")).stops[0].departures.find((x: any) => x.trip.trip_id === "124");
    expect([d.schedule_relationship, d.realtime_departure_time, d.departure.estimated]).toEqual(["STATIC", null, null]);
  });
});

describe("400 for bad parameters, naming the parameter", () => {
  const cases: [string, string][] = [
    ["service_date=2019-13-01", "service_date"],
    ["date=20190604", "date"],
    ["service_date=2019-06-04&date=2019-06-04", "date"],
    ["date=2019-06-04&relative_date=TODAY", "relative_date"],
    ["relative_date=SOMEDAY", "relative_date"],
    ["next=0", "next"],
    ["next=soon", "next"],
    ["next=600&start_time=08:00:00", "next"],
    ["start_time=8am", "start_time"],
    ["start_time=08:61:00", "start_time"],
    ["end_time=100:00:00", "end_time"],
    ["start_time=09:00:00&end_time=08:00:00", "end_time"],
    ["use_service_window=maybe", "use_service_window"],
    ["include_geometry=1", "include_geometry"],
    ["include_alerts=yes", "include_alerts"],
    ["limit=0", "limit"],
    ["limit=1001", "limit"],
    ["license_commercial_use_allowed=maybe", "license_commercial_use_allowed"],
  ];
  for (const [query, parameter] of cases) {
    test(`departures?${query} → ${parameter}`, async () => {
      const r = await s.get(`${deps("bart", "EMBR")}?${query}`);
      const body: any = await r.json();
      expect({ status: r.status, parameter: body.parameter }).toEqual({ status: 400, parameter });
      expect(typeof body.error).toBe("string");
      expect(typeof body.allowed).toBe("string");
    });
  }
});
