/**
 * FEATURE UNDER TEST: the plan endpoint's itineraries carry every field OpenTripPlanner 1 sends
 * (api/model Itinerary, Leg, Place of the dev-1.x branch; issue #18), with OTP1's types and values:
 * feed-scoped ids, OTP1's route type -> mode mapping, places with arrival/departure where legs hand
 * over, stay-seated transfers (interlineWithPreviousLeg), service dates, the agency timezone offset;
 * and leg geometry that reaches every stop where the trip's shape does not (BART 2019's 01_shp ends
 * 14 km before Antioch), which the import report flags. A real server on real feeds: BART 2019,
 * Caltrain 2023 and Google's sample feed (blocks), imported by the real pipeline.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import polyline from "@mapbox/polyline";
import { importedDataset, tempDir } from "../support/dataset.ts";
import { importFeed } from "../../pipeline/import.ts";
import { refreshTimetable } from "../../pipeline/timetable/publish.ts";
import { loadTimetableFile } from "../../server/planner/timetable/arrow-loader.ts";
import { PlanService } from "../../server/planner/plan-service.ts";
import { modeOfRouteType, parsePlanParams } from "../../server/planner/plan-params.ts";
import { readManifest } from "../../pipeline/schema/manifest.ts";
import { SHAPE_STOP_TOLERANCE_M } from "../../pipeline/schema/timetable.ts";
import { startServer, type RunningServer } from "../../server/main.ts";
import { serverConfigFrom } from "../../server/config.ts";
import { parseScopedId } from "../../server/planner/ids.ts";
import { haversineM } from "../../shared/geo.ts";
import { GtfsFeed, gtfsFeed } from "../support/gtfs-reader.ts";
import { gtfs } from "../support/dataset.ts";
import { BART, CALTRAIN, OTP_FIELDS_DATASET } from "./support/otp-fixture.ts";
import { planResponse } from "../../server/planner/otp1/plan.ts";


const quiet = { info() {}, warn() {}, error() {} };
let server: RunningServer;
let dir: string;

beforeAll(async () => {
  dir = await importedDataset(OTP_FIELDS_DATASET.name, OTP_FIELDS_DATASET.feeds);
  server = await startServer(serverConfigFrom({ data: dir, port: 0, host: "127.0.0.1", noAuth: true }), { log: quiet });
});
afterAll(async () => {
  await server?.stop();
});

type Json = Record<string, any>;
const plan = async (q: Record<string, string>): Promise<Json> => {
  const r = await fetch(`${server.url}/api/v2/routing/otp/plan?${new URLSearchParams(q)}`);
  expect(r.status).toBe(200);
  return (await r.json()) as Json;
};
const itineraries = (body: Json): Json[] => body.plan?.itineraries ?? [];

// Embarcadero -> Antioch on a weekday of BART's 2019 feed: the Antioch trains' shape (01_shp) ends at Pittsburg/Bay Point
const EMBR = "37.7929,-122.3971" as string, ANTC = { lat: 37.995388, lon: -121.78042 };
const bartQuery = { fromPlace: `Embarcadero::${EMBR}`, toPlace: `Antioch::${ANTC.lat},${ANTC.lon}`, date: "2019-06-04", time: "08:00", showIntermediateStops: "true" };
// 4th & King -> Palo Alto on Caltrain's 2023 feed
const caltrainQuery = { fromPlace: "SF::37.7764,-122.3943", toPlace: "37.4434,-122.1650", date: "2023-10-17", time: "8:00am", showIntermediateStops: "true" };

/** The UTC offset (ms) of a timezone at an instant, from Intl alone. */
function offsetMs(tz: string, ms: number): number {
  const p = Object.fromEntries(new Intl.DateTimeFormat("en-US", { timeZone: tz, hourCycle: "h23", year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit" })
    .formatToParts(new Date(ms)).filter((x) => x.type !== "literal").map((x) => [x.type, Number(x.value)]));
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - Math.floor(ms / 1000) * 1000;
}
const localDate = (ms: number, tz = "America/Los_Angeles") => new Intl.DateTimeFormat("en-CA", { timeZone: tz, year: "numeric", month: "2-digit", day: "2-digit" }).format(new Date(ms));

const isInt = (v: unknown) => typeof v === "number" && Number.isInteger(v);
const isNum = (v: unknown) => typeof v === "number" && Number.isFinite(v);

/** OTP1's Place: types, and which keys a stop / a point has (null fields are omitted, never ""). */
function checkPlace(pl: Json, transit: boolean): void {
  expect(typeof pl.name).toBe("string");
  expect(isNum(pl.lat) && isNum(pl.lon)).toBe(true);
  for (const k of ["arrival", "departure"]) if (k in pl) expect(isInt(pl[k])).toBe(true);
  for (const k of ["stopCode", "zoneId", "platformCode", "orig"]) if (k in pl) expect(typeof pl[k]).toBe("string");
  for (const k of ["stopCode", "zoneId", "platformCode"]) if (k in pl) expect(pl[k]).not.toBe("");
  if (transit) {
    expect(pl.vertexType).toBe("TRANSIT");
    expect(pl.stopId).toMatch(/^f-[^:]+:.+/);
    expect(isInt(pl.stopIndex) && isInt(pl.stopSequence)).toBe(true);
    expect(pl.stopOnestopId).toMatch(/^s-/);
  } else {
    expect(pl.vertexType).toBe("NORMAL");
    expect(pl.stopId).toBeUndefined();
  }
}

/** Every field OTP1 sends on an itinerary and its legs, with OTP1's types. */
function checkItinerary(it: Json, opts: { intermediateStops: boolean; maxWalkDistance: number }): void {
  for (const k of ["duration", "startTime", "endTime", "walkTime", "transitTime", "waitingTime", "transfers"]) expect(isInt(it[k])).toBe(true);
  for (const k of ["walkDistance", "elevationLost", "elevationGained", "distance", "transitDistance"]) expect(isNum(it[k])).toBe(true);
  expect(it.walkLimitExceeded).toBe(it.walkDistance > opts.maxWalkDistance);
  expect(it.elevationLost).toBe(0);
  expect(it.elevationGained).toBe(0);
  expect(it.tooSloped).toBe(false);
  if ("fare" in it) expect(typeof it.fare).toBe("object"); // the fare work's
  expect(it.walkTime + it.transitTime + it.waitingTime).toBe(it.duration);
  it.legs.forEach((l: Json, i: number) => {
    for (const k of ["startTime", "endTime", "agencyTimeZoneOffset", "departureDelay", "arrivalDelay"]) expect(isInt(l[k])).toBe(true);
    expect(isNum(l.distance) && isNum(l.duration)).toBe(true);
    expect(l.departureDelay).toBe(0);
    expect(l.arrivalDelay).toBe(0);
    expect(l.realTime).toBe(false);
    expect(l.pathway).toBe(false);
    expect(l.rentedBike).toBe(false);
    expect(l.rentedCar).toBe(false);
    expect(l.rentedVehicle).toBe(false);
    expect(typeof l.interlineWithPreviousLeg).toBe("boolean");
    expect(typeof l.route).toBe("string");
    expect(Array.isArray(l.steps)).toBe(true);
    expect(l.alerts).toBeUndefined(); // OTP1 sends alerts only when there are some
    expect(l.legGeometry.length).toBe(polyline.decode(l.legGeometry.points).length);
    // the agency's clock at the leg's start (walk legs: the ride before, else the first ride)
    expect(l.agencyTimeZoneOffset).toBe(offsetMs("America/Los_Angeles", l.startTime));
    if (opts.intermediateStops) expect(Array.isArray(l.intermediateStops)).toBe(true);
    else expect(l.intermediateStops).toBeUndefined();
    const first = i === 0, last = i === it.legs.length - 1;
    // departure on a leg's from, arrival on its to, both where legs hand over
    expect(l.from.departure).toBe(l.startTime);
    expect(l.to.arrival).toBe(l.endTime);
    if (first) expect(l.from.arrival).toBeUndefined();
    else expect(l.from.arrival).toBe(it.legs[i - 1].to.arrival);
    if (last) expect(l.to.departure).toBeUndefined();
    else expect(l.to.departure).toBe(it.legs[i + 1].from.departure);
    if (!l.transitLeg) {
      expect(l.mode).toBe("WALK");
      expect(l.route).toBe("");
      expect(l.interlineWithPreviousLeg).toBe(false);
      for (const k of ["agencyId", "agencyName", "agencyUrl", "routeId", "tripId", "serviceDate", "routeType", "headsign", "tripBlockId", "tripShortName", "feedId"]) expect(l[k]).toBeUndefined();
      if (opts.intermediateStops) expect(l.intermediateStops).toEqual([]);
      checkPlace(l.from, !first);
      checkPlace(l.to, !last);
      if (first) expect(l.from.orig).toBeDefined();
      if (last) expect(l.to.orig).toBeDefined();
      return;
    }
    expect(l.mode).toBe(modeOfRouteType(l.routeType));
    expect(l.route).toBe(l.routeShortName || l.routeLongName);
    for (const k of ["agencyName", "agencyId", "routeShortName", "routeLongName", "routeColor", "routeTextColor", "headsign", "feedId"]) expect(typeof l[k]).toBe("string");
    expect(l.agencyUrl).toMatch(/^https?:\/\//);
    expect(isInt(l.routeType)).toBe(true);
    // feed-scoped route, trip and stop ids (feed = the feed's Onestop ID); agencyId is OTP1's plain String
    expect(parseScopedId(l.routeId, [l.feedId]).feed).toBe(l.feedId);
    expect(parseScopedId(l.tripId, [l.feedId]).feed).toBe(l.feedId);
    expect(l.agencyId).not.toContain(":");
    expect(l.serviceDate).toMatch(/^\d{8}$/);
    expect(l.feedVersionSha1).toMatch(/^[0-9a-f]{40}$/);
    if ("tripBlockId" in l) expect(l.tripBlockId).toBe(l.block_id);
    else expect(l.block_id).toBeUndefined();
    for (const k of ["tripShortName", "tripBlockId"]) if (k in l) expect(l[k]).not.toBe("");
    checkPlace(l.from, true);
    checkPlace(l.to, true);
    for (const pl of [l.from, l.to]) expect(parseScopedId(pl.stopId, [l.feedId]).feed).toBe(l.feedId);
    for (const mid of l.intermediateStops ?? []) {
      checkPlace(mid, true);
      expect(isInt(mid.arrival) && isInt(mid.departure)).toBe(true);
      expect(mid.arrival).toBeLessThanOrEqual(mid.departure);
    }
    // the walk legs around a ride start and end at its places (OTP1 shares them)
    if (!first && !it.legs[i - 1].transitLeg) expect(it.legs[i - 1].to).toEqual(l.from);
    if (!last && !it.legs[i + 1].transitLeg) expect(it.legs[i + 1].from).toEqual(l.to);
  });
}

/** The line of a transit leg starts and ends near its stops (within the shape tolerance). */
function checkRideGeometry(l: Json): void {
  const pts = polyline.decode(l.legGeometry.points);
  expect(pts.length).toBeGreaterThanOrEqual(2);
  const near = (p: [number, number], s: Json) => haversineM(p[0], p[1], s.lat, s.lon);
  expect(near(pts[0]!, l.from)).toBeLessThanOrEqual(SHAPE_STOP_TOLERANCE_M + 5);
  expect(near(pts[pts.length - 1]!, l.to)).toBeLessThanOrEqual(SHAPE_STOP_TOLERANCE_M + 5);
}

describe("OTP1 fields of a plan", () => {
  test("BART 2019: itinerary, legs and places carry OTP1's fields and types", async () => {
    const body = await plan(bartQuery);
    const its = itineraries(body);
    expect(its.length).toBeGreaterThan(0);
    for (const it of its) checkItinerary(it, { intermediateStops: true, maxWalkDistance: 1609 });
    const ride = its[0]!.legs.find((l: Json) => l.transitLeg);
    expect(ride).toMatchObject({ mode: "SUBWAY", routeType: 1, agencyId: "BART", agencyName: "Bay Area Rapid Transit", agencyUrl: "http://www.bart.gov", feedId: BART, serviceDate: "20190604", interlineWithPreviousLeg: false });
    expect(ride.routeId).toBe(`${BART}:${parseScopedId(ride.routeId, [BART]).id}`);
    expect(ride.tripId.startsWith(`${BART}:`)).toBe(true);
    // BART 2019 has zone ids, but no stop codes, platform codes, trip short names or blocks
    expect(ride.from.zoneId).toBe(parseScopedId(ride.from.stopId, [BART]).id);
    expect("stopCode" in ride.from).toBe(false);
    expect("tripShortName" in ride || "tripBlockId" in ride || "block_id" in ride).toBe(false);
    expect(ride.agencyTimeZoneOffset).toBe(-7 * 3600_000); // PDT
    // the first leg starts at the named origin
    expect(its[0]!.legs[0].from).toMatchObject({ name: "Embarcadero", orig: "Embarcadero", vertexType: "NORMAL" });
  });

  test("Caltrain: stop codes, zones and trip short names; a winter date's offset", async () => {
    for (const [date, offset] of [["2023-10-17", -7], ["2023-12-05", -8]] as const) {
      const its = itineraries(await plan({ ...caltrainQuery, date }));
      expect(its.length).toBeGreaterThan(0);
      for (const it of its) checkItinerary(it, { intermediateStops: true, maxWalkDistance: 1609 });
      const ride = its[0]!.legs.find((l: Json) => l.transitLeg);
      expect(ride).toMatchObject({ mode: "RAIL", routeType: 2, agencyId: "CT", agencyUrl: "http://www.caltrain.com", feedId: CALTRAIN, serviceDate: date.replace(/-/g, "") });
      expect(ride.route).toBe(ride.routeShortName);
      expect(ride.tripShortName).toBe(parseScopedId(ride.tripId, [CALTRAIN]).id); // Caltrain's short names are its trip ids
      expect(ride.from.stopCode).toMatch(/^\d+$/);
      expect(ride.from.zoneId).toMatch(/^\d+$/);
      expect(ride.agencyTimeZoneOffset).toBe(offset * 3600_000);
    }
  });

  test("without showIntermediateStops no leg has intermediateStops (OTP1 sends null)", async () => {
    const { showIntermediateStops: _, ...q } = bartQuery;
    const its = itineraries(await plan(q));
    expect(its.length).toBeGreaterThan(0);
    for (const it of its) checkItinerary(it, { intermediateStops: false, maxWalkDistance: 1609 });
  });

  test("a ride after midnight on the previous day's trip has that service date", async () => {
    // Tuesday 2019-06-04's last trains run at 24:xx, i.e. Wednesday 00:xx
    const its = itineraries(await plan({ ...bartQuery, fromPlace: "37.7929,-122.3971", toPlace: "37.9023,-122.2989", date: "2019-06-05", time: "00:05" }));
    const rides = its.flatMap((it) => it.legs.filter((l: Json) => l.transitLeg));
    const late = rides.filter((l) => localDate(l.startTime) === "2019-06-05" && l.serviceDate === "20190604");
    expect(late.length).toBeGreaterThan(0);
  });

  test("stay-seated transfer: the next trip of the same block at the same stop is interlined", async () => {
    // Google's sample feed: AB1 (block 1) Beatty Airport -> Bullfrog 08:10, then BFC1 (block 1) Bullfrog 08:20 -> Furnace Creek
    const its = itineraries(await plan({ fromPlace: "36.868446,-116.784582", toPlace: "36.425288,-117.133162", date: "2008-06-03", time: "07:50", numItineraries: "1" }));
    expect(its.length).toBe(1);
    checkItinerary(its[0]!, { intermediateStops: false, maxWalkDistance: 1609 });
    const rides = its[0]!.legs.filter((l: Json) => l.transitLeg);
    expect(rides.map((l: Json) => [parseScopedId(l.tripId, [l.feedId]).id, l.tripBlockId, l.interlineWithPreviousLeg])).toEqual([["AB1", "1", false], ["BFC1", "1", true]]);
    expect(rides[0].to.stopId).toBe(rides[1].from.stopId);
    // the hand-over: the second ride's from has the first ride's arrival, the first ride's to the second's departure
    expect(rides[1].from.arrival).toBe(Date.parse("2008-06-03T15:10:00Z"));
    expect(rides[0].to.departure).toBe(Date.parse("2008-06-03T15:20:00Z"));
  });

  test("a walk-only itinerary: OTP1's walk leg, walkLimitExceeded when it walks more than maxWalkDistance", async () => {
    const q = { fromPlace: "37.7929,-122.3971", toPlace: "37.7793,-122.4193", date: "2019-06-04", time: "08:00", mode: "WALK" };
    for (const maxWalkDistance of [5000, 1000]) {
      const its = itineraries(await plan({ ...q, maxWalkDistance: String(maxWalkDistance) }));
      expect(its.length).toBe(1);
      checkItinerary(its[0]!, { intermediateStops: false, maxWalkDistance });
      expect(its[0]!.walkLimitExceeded).toBe(maxWalkDistance === 1000); // ~2.5 km walked
    }
  });
});

describe("OTP1 place and trip fields from a hand-written feed", () => {
  test("platformCode, stopCode and tripShortName where the feed has them, omitted where it does not", async () => {
    const feedDir = join(tempDir(), "feed");
    mkdirSync(feedDir, { recursive: true });
    const files: Record<string, string[]> = {
      "agency.txt": ["agency_id,agency_name,agency_url,agency_timezone", "P,Platform Rail,https://p.example,Europe/Berlin"],
      "stops.txt": ["stop_id,stop_code,stop_name,stop_lat,stop_lon,zone_id,platform_code", "A1,,A,52.5200,13.4050,Z1,3", "B1,B-1,B,52.5300,13.4200,,"],
      "routes.txt": ["route_id,agency_id,route_short_name,route_long_name,route_type", "R,P,,Ringbahn,109"],
      "calendar.txt": ["service_id,monday,tuesday,wednesday,thursday,friday,saturday,sunday,start_date,end_date", "D,1,1,1,1,1,1,1,20260101,20261231"],
      "trips.txt": ["route_id,service_id,trip_id,trip_short_name,block_id", "R,D,T1,RE 7,"],
      "stop_times.txt": ["trip_id,stop_sequence,stop_id,arrival_time,departure_time", "T1,1,A1,09:00:00,09:00:00", "T1,2,B1,09:20:00,09:20:00"],
    };
    for (const [name, lines] of Object.entries(files)) writeFileSync(join(feedDir, name), lines.join("\n") + "\n");
    const data = tempDir();
    expect((await importFeed({ dataDir: data, source: feedDir })).status).toBe("imported");
    await refreshTimetable(data);
    const svc = new PlanService(loadTimetableFile(join(data, readManifest(data).timetable!.path)));
    const body = (await planResponse(svc.plan(parsePlanParams({ fromPlace: "52.5200,13.4050", toPlace: "52.5300,13.4200", date: "2026-07-01", time: "08:55", walkSpeed: "0.3", numItineraries: "1" }), Date.now()))) as Json;
    const ride = body.plan.itineraries[0].legs.find((l: Json) => l.transitLeg);
    // route_type 109 (suburban railway) is RAIL in OTP1; no short name: `route` is the long name
    expect(ride).toMatchObject({ mode: "RAIL", routeType: 109, route: "Ringbahn", tripShortName: "RE 7", agencyUrl: "https://p.example", agencyTimeZoneOffset: 2 * 3600_000, serviceDate: "20260701" });
    expect("tripBlockId" in ride || "block_id" in ride).toBe(false);
    expect(ride.from).toMatchObject({ platformCode: "3", zoneId: "Z1", stopIndex: 0, stopSequence: 1 });
    expect("stopCode" in ride.from).toBe(false);
    expect(ride.to).toMatchObject({ stopCode: "B-1", stopIndex: 1, stopSequence: 2 });
    expect("platformCode" in ride.to || "zoneId" in ride.to).toBe(false);
  });
});

describe("route types to OTP1 modes (GtfsLibrary.getTraverseMode, dev-1.x)", () => {
  test("basic and extended types", () => {
    const want: Record<number, string> = {
      0: "TRAM", 1: "SUBWAY", 2: "RAIL", 3: "BUS", 4: "FERRY", 5: "CABLE_CAR", 6: "GONDOLA", 7: "FUNICULAR",
      100: "RAIL", 109: "RAIL", 199: "RAIL", 200: "BUS", 299: "BUS", 300: "RAIL", 400: "RAIL", 401: "SUBWAY", 402: "SUBWAY", 403: "RAIL", 499: "RAIL",
      500: "SUBWAY", 600: "SUBWAY", 700: "BUS", 715: "BUS", 717: "BUS", 800: "BUS", 899: "BUS", 900: "TRAM", 1000: "FERRY", 1100: "AIRPLANE",
      1200: "FERRY", 1300: "GONDOLA", 1400: "FUNICULAR", 1600: "CAR", 1699: "CAR",
    };
    for (const [t, mode] of Object.entries(want)) expect([Number(t), modeOfRouteType(Number(t))]).toEqual([Number(t), mode]);
    // OTP1 has no TROLLEYBUS, MONORAIL or COACH modes
    for (let t = 0; t < 1800; t++) expect(["TROLLEYBUS", "MONORAIL", "COACH"]).not.toContain(modeOfRouteType(t));
  });
});

describe("leg geometry where the shape does not reach the stops (BART 2019, 01_shp)", () => {
  test("a ride from Antioch starts at Antioch, and its distance counts the part the shape does not cover", async () => {
    // the trips leaving Antioch use 01_shp, which starts at Pittsburg/Bay Point, 14 km on
    const feed: GtfsFeed = gtfsFeed(gtfs("bart"));
    const shape01 = feed.table("shapes").filter((r) => r.shape_id === "01_shp").sort((a, b) => Number(a.shape_pt_sequence) - Number(b.shape_pt_sequence));
    expect(haversineM(Number(shape01[0]!.shape_pt_lat), Number(shape01[0]!.shape_pt_lon), ANTC.lat, ANTC.lon)).toBeGreaterThan(10_000);
    let checked = 0;
    for (const [from, to] of [[ANTC, EMBR], [EMBR, ANTC]] as const) {
      const q = { ...bartQuery, fromPlace: typeof from === "string" ? from : `${from.lat},${from.lon}`, toPlace: typeof to === "string" ? to : `${to.lat},${to.lon}` };
      const its = itineraries(await plan(q));
      expect(its.length).toBeGreaterThan(0);
      for (const it of its) {
        for (const l of it.legs.filter((x: Json) => x.transitLeg)) {
          checkRideGeometry(l);
          const pts = polyline.decode(l.legGeometry.points) as [number, number][];
          const atAntioch = parseScopedId(l.from.stopId, [BART]).id === "ANTC" ? pts[0]! : parseScopedId(l.to.stopId, [BART]).id === "ANTC" ? pts[pts.length - 1]! : null;
          if (!atAntioch) continue;
          expect(haversineM(atAntioch[0], atAntioch[1], ANTC.lat, ANTC.lon)).toBeLessThan(50);
          // the stops passed, straight from one to the next: the line is at least that long, and not much longer
          const stops = [l.from, ...l.intermediateStops, l.to];
          let chord = 0;
          for (let i = 1; i < stops.length; i++) chord += haversineM(stops[i - 1].lat, stops[i - 1].lon, stops[i].lat, stops[i].lon);
          expect(l.distance).toBeGreaterThanOrEqual(chord * 0.99);
          expect(l.distance).toBeLessThan(chord * 1.3);
          const trip = feed.table("trips").find((t) => t.trip_id === parseScopedId(l.tripId, [BART]).id)!;
          expect(trip.shape_id).toBe(l.from.stopId.endsWith(":ANTC") ? "01_shp" : "02_shp");
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThanOrEqual(2);
  });

  test("the import report flags the shapes that do not reach their trips' stops", () => {
    const m = readManifest(dir);
    const reports = m.versions.map((v: any) => JSON.parse(readFileSync(join(dir, v.path, "report.json"), "utf8")));
    const report = reports.find((r) => r.feed_onestop_id === BART);
    const w = report.warnings.shape_does_not_reach_stops;
    expect(w.count).toBe(3);
    expect(w.examples.map((e: Json) => e.message.split(" ")[1]).sort()).toEqual(["01_shp", "13_shp", "14_shp"]);
    expect(w.examples.find((e: Json) => e.message.includes("01_shp")).message).toContain("does not reach stop ANTC");
    for (const e of w.examples) expect(e.file).toBe("shapes.txt");
    // Caltrain's shapes reach every end stop
    const ct = reports.find((r) => r.feed_onestop_id === CALTRAIN);
    expect(ct.warnings.shape_does_not_reach_stops).toBeUndefined();
  });

  test("every ride of 40 plans between random BART and Caltrain stations starts and ends near its stops", async () => {
    let seed = 11;
    const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    const stations = (feed: string) => gtfsFeed(gtfs(feed)).table("stops").filter((r) => (r.location_type ?? "0") === "0" || r.location_type === "");
    const pick = (rows: Record<string, string | undefined>[]) => {
      const r = rows[Math.floor(rand() * rows.length)]!;
      return `${(Number(r.stop_lat) + 0.001).toFixed(5)},${r.stop_lon}`;
    };
    const feeds = { bart: stations("bart"), caltrain: stations("caltrain") };
    let rides = 0;
    for (let i = 0; i < 40; i++) {
      const rows = i % 2 ? feeds.bart : feeds.caltrain;
      const its = itineraries(await plan({ fromPlace: pick(rows), toPlace: pick(rows), date: i % 2 ? "2019-06-04" : "2023-10-17", time: `${7 + (i % 12)}:15`, showIntermediateStops: "true" }));
      for (const it of its) {
        checkItinerary(it, { intermediateStops: true, maxWalkDistance: 1609 });
        for (const l of it.legs.filter((x: Json) => x.transitLeg)) {
          checkRideGeometry(l);
          rides++;
        }
      }
    }
    expect(rides).toBeGreaterThan(60);
  });
});
