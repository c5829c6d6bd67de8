/**
 * FEATURE UNDER TEST: service days over a whole year, through the real pipeline, planner and
 * catalog: a feed whose weekday calendar runs all of 2026 with holidays removed and a Saturday added
 * by calendar_dates, and a second feed whose calendar spans two years (June 2026 to May 2027). Plans
 * (OTP1 REST) and a stop's departures on a plain weekday, on each holiday, on the added Saturday, on
 * a plain Saturday, and on both sides of the second feed's year boundary and end, checked against
 * the calendar files written here.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { importFeed } from "../../pipeline/import.ts";
import { refreshTimetable } from "../../pipeline/timetable/publish.ts";
import { serverConfigFrom } from "../../server/config.ts";
import { startServer, type RunningServer } from "../../server/main.ts";
import { tempDir } from "../support/dataset.ts";

/** A two-stop bus line 11 km long (too far to walk under maxWalkDistance), one trip a day at 06:00. */
function feed(prefix: string, lat0: number, calendar: string, calendarDates: string): Record<string, string> {
  return {
    "agency.txt": `agency_id,agency_name,agency_url,agency_timezone\n${prefix}A,${prefix} Transit,https://example.org/,America/New_York\n`,
    "stops.txt": `stop_id,stop_name,stop_lat,stop_lon\n${prefix}S1,${prefix} First,${lat0},-74.0\n${prefix}S2,${prefix} Last,${lat0 + 0.1},-74.0\n`,
    "routes.txt": `route_id,agency_id,route_short_name,route_type\n${prefix}R,${prefix}A,1,3\n`,
    "trips.txt": `route_id,service_id,trip_id\n${prefix}R,SVC,${prefix}T\n`,
    "stop_times.txt": `trip_id,arrival_time,departure_time,stop_id,stop_sequence\n${prefix}T,06:00:00,06:00:00,${prefix}S1,1\n${prefix}T,06:20:00,06:20:00,${prefix}S2,2\n`,
    "calendar.txt": `service_id,monday,tuesday,wednesday,thursday,friday,saturday,sunday,start_date,end_date\n${calendar}\n`,
    "calendar_dates.txt": `service_id,date,exception_type\n${calendarDates}`,
  };
}

// 2026: weekdays, with 2026-01-01, 2026-07-03 and 2026-12-25 removed and Saturday 2026-12-26 added
const YEAR = feed("y", 40.6, "SVC,1,1,1,1,1,0,0,20260101,20261231", "SVC,20260101,2\nSVC,20260703,2\nSVC,20261225,2\nSVC,20261226,1\n");
// June 2026 to May 2027, every day, 2027-01-01 removed
const SPAN = feed("s", 41.0, "SVC,1,1,1,1,1,1,1,20260601,20270531", "SVC,20270101,2\n");

let server: RunningServer;
const feedIds: Record<string, string> = {};

beforeAll(async () => {
  const data = tempDir("interchange-year-");
  for (const [name, files] of [["year", YEAR], ["span", SPAN]] as const) {
    const dir = join(tempDir(`interchange-${name}-feed-`), name);
    mkdirSync(dir, { recursive: true });
    for (const [f, text] of Object.entries(files)) writeFileSync(join(dir, f), text);
    const r = await importFeed({ dataDir: data, source: dir, feedId: `f-test-${name}` });
    if (r.status === "rejected") throw new Error(`${name}: ${r.error?.message}`);
    feedIds[name] = `f-test-${name}`;
  }
  await refreshTimetable(data);
  server = await startServer(serverConfigFrom({ data, port: 0, host: "127.0.0.1", noAuth: true }), { log: { info() {}, warn() {}, error: (m, f) => console.error(m, f) } });
}, 120_000);
afterAll(() => server?.stop());

/**
 * The transit trips a plan from the line's first stop to its last at 05:50 on `date` rides on that
 * service day (the planner looks on into the next days for the itineraries asked for: a ride on a
 * later day is not one of `date`'s; its serviceDate says which day it is).
 */
async function ridden(lat0: number, date: string): Promise<string[]> {
  const q = new URLSearchParams({ fromPlace: `${lat0},-74.0`, toPlace: `${lat0 + 0.1},-74.0`, date, time: "05:50", mode: "TRANSIT,WALK", maxWalkDistance: "500", numItineraries: "1", searchWindow: "3600" });
  const r = await fetch(`${server.url}/api/v2/routing/otp/plan?${q}`);
  const body = (await r.json()) as any;
  const legs = (body.plan?.itineraries ?? []).flatMap((it: any) => it.legs);
  const day = date.replaceAll("-", "");
  const rides = legs.filter((l: any) => l.transitLeg);
  for (const l of rides) expect(l.serviceDate >= day).toBe(true);
  return rides.filter((l: any) => l.serviceDate === day).map((l: any) => String(l.tripId).split(":").pop());
}

/** The trip_ids departing the line's first stop on `date` (catalog departures, the whole day). */
async function departing(feed: string, stop: string, date: string): Promise<string[]> {
  const r = await fetch(`${server.url}/api/v2/rest/stops/${feed}:${stop}/departures?date=${date}&start_time=00:00:00&end_time=23:59:59&use_service_window=false`);
  expect(r.status).toBe(200);
  const body = (await r.json()) as any;
  return body.stops.flatMap((s: any) => s.departures.map((d: any) => d.trip.trip_id));
}

describe("a year of weekdays with holidays and an added Saturday", () => {
  const cases: [date: string, runs: boolean, why: string][] = [
    ["2026-01-02", true, "a plain Friday"],
    ["2026-01-01", false, "New Year's Day, removed"],
    ["2026-07-03", false, "a holiday Friday, removed"],
    ["2026-07-06", true, "the Monday after"],
    ["2026-12-25", false, "Christmas, removed"],
    ["2026-12-26", true, "a Saturday, added"],
    ["2026-12-19", false, "a plain Saturday"],
    ["2026-12-31", true, "the calendar's last day"],
    ["2027-01-04", false, "past the calendar's end"],
  ];
  for (const [date, runs, why] of cases) {
    test(`${date} (${why}): ${runs ? "the trip runs" : "no trip"}, in plans and departures alike`, async () => {
      expect(await ridden(40.6, date)).toEqual(runs ? ["yT"] : []);
      expect(await departing(feedIds.year!, "yS1", date)).toEqual(runs ? ["yT"] : []);
    });
  }
});

describe("a calendar spanning two years", () => {
  const cases: [date: string, runs: boolean][] = [
    ["2026-05-31", false],
    ["2026-06-01", true],
    ["2026-12-31", true],
    ["2027-01-01", false],
    ["2027-01-02", true],
    ["2027-05-31", true],
    ["2027-06-01", false],
  ];
  for (const [date, runs] of cases) {
    test(`${date}: ${runs ? "runs" : "no trip"}`, async () => {
      expect(await ridden(41.0, date)).toEqual(runs ? ["sT"] : []);
      expect(await departing(feedIds.span!, "sS1", date)).toEqual(runs ? ["sT"] : []);
    });
  }
});
