/**
 * FEATURE UNDER TEST: GET /api/v2/routing/otp/plan end to end on the real server (port 0): the
 * response shape of the spec, OTP error objects, and GRAPH_UNAVAILABLE before any timetable exists.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { importedDataset, tempDir } from "../support/dataset.ts";
import { compileTimetable } from "../../pipeline/timetable/compile.ts";
import { readManifest } from "../../pipeline/schema/manifest.ts";
import { writeManifest } from "../../pipeline/store/manifest.ts";
import { startServer, type RunningServer } from "../../server/main.ts";
import { serverConfigFrom } from "../../server/config.ts";

const quiet = { info() {}, warn() {}, error() {} };
let server: RunningServer;
let empty: RunningServer;

beforeAll(async () => {
  const dir = await importedDataset("planner-caltrain", ["caltrain"]);
  const m = readManifest(dir);
  if (!m.timetable) {
    m.timetable = await compileTimetable(dir);
    writeManifest(dir, m);
  }
  server = await startServer(serverConfigFrom({ data: dir, port: 0, host: "127.0.0.1", noAuth: true }), { log: quiet });
  empty = await startServer(serverConfigFrom({ data: tempDir(), port: 0, host: "127.0.0.1", noAuth: true }), { log: quiet });
});
afterAll(async () => {
  await server?.stop();
  await empty?.stop();
});

const get = async (s: RunningServer, q: Record<string, string>) => {
  const r = await fetch(`${s.url}/api/v2/routing/otp/plan?${new URLSearchParams(q)}`);
  return { status: r.status, body: (await r.json()) as Record<string, any> };
};
// San Francisco 4th & King -> Palo Alto, a weekday of the 2023-2024 Caltrain feed
const base = { fromPlace: "SF::37.7764,-122.3943", toPlace: "37.4434,-122.1650", date: "2023-10-17", time: "8:00am" };

describe("OTP plan endpoint", () => {
  test("answers a plan with the spec's fields and consistent sums", async () => {
    const { status, body } = await get(server, { ...base, showIntermediateStops: "true", includeEarliestArrivals: "true", numItineraries: "2" });
    expect(status).toBe(200);
    expect(body.error).toBeUndefined();
    expect(body.plan.from).toEqual({ name: "SF", lat: 37.7764, lon: -122.3943 });
    expect(body.plan.itineraries.length).toBe(2);
    for (const it of body.plan.itineraries) {
      expect(Object.keys(it).sort()).toEqual(["distance", "duration", "elevationGained", "elevationLost", "endTime", "fare", "legs", "startTime", "tooSloped", "transfers", "transitDistance", "transitTime", "waitingTime", "walkDistance", "walkLimitExceeded", "walkTime"]);
      expect(it.walkTime + it.transitTime + it.waitingTime).toBe(it.duration);
      expect(it.duration).toBe((it.endTime - it.startTime) / 1000);
      const ride = it.legs.find((l: any) => l.transitLeg);
      expect(ride.mode).toBe("RAIL");
      expect(ride.feedVersionSha1).toMatch(/^[0-9a-f]{40}$/);
      expect(ride.routeOnestopId).toMatch(/^r-/);
      expect(ride.from.stopOnestopId).toMatch(/^s-/);
      expect(ride.legGeometry.length).toBeGreaterThan(1);
      expect(ride.intermediateStops.length).toBeGreaterThan(0);
      expect(ride.steps).toEqual([]);
    }
    expect(body.earliestArrivals.length).toBeGreaterThan(10);
    expect(Object.keys(body.earliestArrivals[0]).sort()).toEqual(expect.arrayContaining(["earliestArrival", "lat", "lon", "stopId", "stopName"]));
  });

  test("arriveBy returns itineraries ending before the time", async () => {
    const { body } = await get(server, { ...base, time: "10:00", arriveBy: "true" });
    const limit = Date.parse("2023-10-17T17:00:00Z");
    expect(body.plan.itineraries.length).toBeGreaterThan(0);
    for (const it of body.plan.itineraries) expect(it.endTime).toBeLessThanOrEqual(limit);
  });

  test("errors are OTP error objects", async () => {
    const bogus = await get(server, { ...base, time: "noonish" });
    expect(bogus.status).toBe(400);
    expect(bogus.body.error).toMatchObject({ id: 413, message: "BOGUS_PARAMETER", noPath: true });
    expect(bogus.body.error.msg).toContain("time");
    expect((await get(server, { ...base, fromPlace: "abc" })).body.error.message).toBe("BOGUS_PARAMETER");
    expect((await get(server, { ...base, numItineraries: "0" })).status).toBe(400);
    const outside = await get(server, { ...base, toPlace: "0,0" });
    expect(outside.body.error).toMatchObject({ message: "OUTSIDE_BOUNDS", missing: ["to"] });
    const noTimes = await get(server, { ...base, date: "2010-01-01" });
    expect(noTimes.body.error.message).toBe("NO_TRANSIT_TIMES");
    const noPath = await get(server, { ...base, maxWalkDistance: "10", fromPlace: "37.60,-122.45", toPlace: "37.30,-121.95" });
    expect(noPath.body.error.message).toBe("PATH_NOT_FOUND");
    expect(noPath.body.plan).toBeUndefined(); // OTP1 sends no plan beside PATH_NOT_FOUND
    expect((await get(empty, base)).body.error.message).toBe("GRAPH_UNAVAILABLE");
  });

  test("mode=WALK gives one walk-only itinerary", async () => {
    const { body } = await get(server, { ...base, toPlace: "37.7800,-122.3900", mode: "WALK" });
    expect(body.plan.itineraries.length).toBe(1);
    expect(body.plan.itineraries[0].legs.map((l: any) => l.mode)).toEqual(["WALK"]);
  });
});
