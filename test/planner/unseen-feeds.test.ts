/**
 * FEATURE UNDER TEST: plans on small unusual feeds (hand-written, imported with the real pipeline):
 * agencies of one feed in different timezones, trips running past 48:00, and itineraries kept
 * inside the search window when the service is sparse.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { importFeed } from "../../pipeline/import.ts";
import { refreshTimetable } from "../../pipeline/timetable/publish.ts";
import { readManifest } from "../../pipeline/schema/manifest.ts";
import { loadTimetableFile } from "../../server/planner/timetable/arrow-loader.ts";
import { PlanService } from "../../server/planner/plan-service.ts";
import { parsePlanParams } from "../../server/planner/plan-params.ts";
import { parseScopedId } from "../../server/planner/ids.ts";
import { tempDir } from "../support/dataset.ts";
import { planResponse } from "../../server/planner/otp1/plan.ts";

async function planService(files: Record<string, string[]>): Promise<PlanService> {
  const dir = join(tempDir(), "feed");
  mkdirSync(dir, { recursive: true });
  for (const [name, lines] of Object.entries(files)) writeFileSync(join(dir, name), lines.join("\n") + "\n");
  const data = tempDir();
  const r = await importFeed({ dataDir: data, source: dir });
  if (r.status !== "imported") throw new Error(`fixture rejected: ${r.error?.message}`);
  await refreshTimetable(data);
  return new PlanService(loadTimetableFile(join(data, readManifest(data).timetable!.path)));
}

const CAL = ["service_id,monday,tuesday,wednesday,thursday,friday,saturday,sunday,start_date,end_date", "D,1,1,1,1,1,1,1,20261101,20270331"];
const NOW = Date.parse("2026-11-22T08:00:00Z");
/**
 * The fixtures' trips are 0.6-1.5 km long: at the default 1.33 m/s, walking all the way would arrive
 * before most of their rides, which are then dominated and dropped (plan-service.ts); the tests plan
 * for slow walkers so that the rides they are about stay the answer.
 */
const SLOW = { walkSpeed: "0.5" };
const iso = (ms: number) => new Date(ms).toISOString().replace(".000", "");
type Itin = { startTime: number; endTime: number; legs: Array<{ transitLeg: boolean; tripId?: string; feedId?: string; startTime: number; endTime: number }> };
/** The plan service's answer to raw OTP query values at NOW. */
const plan = (svc: PlanService, q: Record<string, string>) => planResponse(svc.plan(parsePlanParams(q), NOW)) as Record<string, unknown>;
const rides = (body: Record<string, unknown>) =>
  ((body.plan as { itineraries: Itin[] }).itineraries).flatMap((it) => it.legs.filter((l) => l.transitLeg).map((l) => `${parseScopedId(l.tripId!, [l.feedId!]).id} ${iso(l.startTime)} ${iso(l.endTime)}`)); // the GTFS trip_id of the feed-scoped id

describe("plans on unusual feeds", () => {
  test("the requested local time is read in the timezone of the agency serving the nearest stop", async () => {
    const svc = await planService({
      "agency.txt": ["agency_id,agency_name,agency_url,agency_timezone", "EAST,East,https://e.example,America/New_York", "WEST,West,https://w.example,America/Chicago"],
      "stops.txt": ["stop_id,stop_name,stop_lat,stop_lon", "E1,E1,40.7128,-74.0060", "E2,E2,40.7200,-74.0000", "W1,W1,40.7305,-73.9945", "W2,W2,40.7400,-73.9900"],
      "routes.txt": ["route_id,agency_id,route_short_name,route_type", "RE,EAST,E,1", "RW,WEST,W,3"],
      "calendar.txt": CAL,
      "trips.txt": ["route_id,service_id,trip_id", "RE,D,E-1", "RW,D,W-1"],
      "stop_times.txt": ["trip_id,stop_sequence,stop_id,arrival_time,departure_time", "E-1,1,E1,09:00:00,09:00:00", "E-1,2,E2,09:05:00,09:05:00",
        "W-1,1,W1,08:20:00,08:20:00", "W-1,2,W2,08:30:00,08:30:00"],
    });
    const r = plan(svc, { fromPlace: "40.7305,-73.9945", toPlace: "40.7400,-73.9900", date: "2026-11-24", time: "08:15", numItineraries: "1", ...SLOW });
    expect(r.plan).toBeDefined(); // answered: a plan, not a refused request
    // 08:15 Chicago (CST, UTC-6) = 14:15Z; W-1 leaves W1 at 08:20 Chicago = 14:20Z
    expect((r.plan as { date: number }).date).toBe(Date.parse("2026-11-24T14:15:00Z"));
    expect(rides(r)).toEqual(["W-1 2026-11-24T14:20:00Z 2026-11-24T14:30:00Z"]);
  });

  test("a trip running past 48:00 of its service day is planned two days later", async () => {
    const svc = await planService({
      "agency.txt": ["agency_name,agency_url,agency_timezone", "Night,https://n.example,UTC"],
      "stops.txt": ["stop_id,stop_name,stop_lat,stop_lon", "A,A,60.1699,24.9384", "B,B,60.1800,24.9550"],
      "routes.txt": ["route_id,route_short_name,route_type", "N,N,3"],
      "calendar.txt": ["service_id,monday,tuesday,wednesday,thursday,friday,saturday,sunday,start_date,end_date", "D,0,1,0,0,0,0,0,20261101,20270331"],
      "trips.txt": ["route_id,service_id,trip_id", "N,D,LATE"],
      "stop_times.txt": ["trip_id,stop_sequence,stop_id,arrival_time,departure_time", "LATE,1,A,48:05:00,48:05:00", "LATE,2,B,48:20:00,48:20:00"],
    });
    // service day Tuesday 2026-11-24 + 48:05 = Thursday 2026-11-26 00:05
    const fwd = plan(svc, { fromPlace: "60.1699,24.9384", toPlace: "60.1800,24.9550", date: "2026-11-26", time: "00:00", numItineraries: "1", ...SLOW });
    expect(rides(fwd)).toEqual(["LATE 2026-11-26T00:05:00Z 2026-11-26T00:20:00Z"]);
    const back = plan(svc, { fromPlace: "60.1699,24.9384", toPlace: "60.1800,24.9550", date: "2026-11-26", time: "00:30", arriveBy: "true", numItineraries: "1", ...SLOW });
    expect(rides(back)).toEqual(["LATE 2026-11-26T00:05:00Z 2026-11-26T00:20:00Z"]);
  });

  test("a trip past 48:00 on a feed's last service day is planned two days later, not refused as outside the feed's service", async () => {
    const svc = await planService({
      "agency.txt": ["agency_name,agency_url,agency_timezone", "Night,https://n.example,UTC"],
      "stops.txt": ["stop_id,stop_name,stop_lat,stop_lon", "A,A,60.1699,24.9384", "B,B,60.1800,24.9550"],
      "routes.txt": ["route_id,route_short_name,route_type", "N,N,3"],
      "calendar.txt": ["service_id,monday,tuesday,wednesday,thursday,friday,saturday,sunday,start_date,end_date", "D,0,1,0,0,0,0,0,20261101,20261124"],
      "trips.txt": ["route_id,service_id,trip_id", "N,D,LATE"],
      "stop_times.txt": ["trip_id,stop_sequence,stop_id,arrival_time,departure_time", "LATE,1,A,48:05:00,48:05:00", "LATE,2,B,48:20:00,48:20:00"],
    });
    // the last service day is Tuesday 2026-11-24; its 48:05 is Thursday 2026-11-26 00:05
    const r = plan(svc, { fromPlace: "60.1699,24.9384", toPlace: "60.1800,24.9550", date: "2026-11-26", time: "00:00", numItineraries: "1", ...SLOW });
    expect(r.error).toBeUndefined();
    expect(rides(r)).toEqual(["LATE 2026-11-26T00:05:00Z 2026-11-26T00:20:00Z"]);
  });

  test("no itinerary leaves a day after the search window (arriveBy: arrives a day before it)", async () => {
    // one trip a day; the origin is within walking distance of both stops, so a departure inside the
    // window from the other stop used to bring in the next day's trip as an extra itinerary
    const svc = await planService({
      "agency.txt": ["agency_name,agency_url,agency_timezone", "Sparse,https://s.example,Europe/London"],
      "stops.txt": ["stop_id,stop_name,stop_lat,stop_lon", "O1,O1,51.5074,-0.1278", "O2,O2,51.5100,-0.1200"],
      "routes.txt": ["route_id,route_short_name,route_type", "R,9,3"],
      "calendar.txt": CAL,
      "trips.txt": ["route_id,service_id,trip_id", "R,D,DAILY"],
      "stop_times.txt": ["trip_id,stop_sequence,stop_id,arrival_time,departure_time", "DAILY,1,O1,12:00:00,12:00:00", "DAILY,2,O2,12:10:00,12:10:00"],
    });
    const q = { fromPlace: "51.5074,-0.1278", toPlace: "51.5100,-0.1200", date: "2026-11-24", numItineraries: "3", ...SLOW };
    const fwd = plan(svc, { ...q, time: "11:55" });
    expect(rides(fwd)).toEqual(["DAILY 2026-11-24T12:00:00Z 2026-11-24T12:10:00Z"]);
    const back = plan(svc, { ...q, time: "12:15", arriveBy: "true" });
    expect(rides(back)).toEqual(["DAILY 2026-11-24T12:00:00Z 2026-11-24T12:10:00Z"]);
    // after the day's trip: the next one is tomorrow, and walking the 620 m today (even slowly)
    // arrives first, so tomorrow's ride is dominated and the walk is the answer
    const night = plan(svc, { ...q, time: "13:00", maxWalkDistance: "100" });
    expect(rides(night)).toEqual([]);
    expect((night.plan as { itineraries: Itin[] }).itineraries.length).toBe(1);
  });
});
