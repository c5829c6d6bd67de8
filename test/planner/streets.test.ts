/**
 * FEATURE UNDER TEST: plans on real streets (issue #19): the real server with TriMet's two lines,
 * portland-small.osm.pbf and the Portland NED elevation (server/planner/street-legs.ts, the
 * embedded engine through server/street/paths.ts, footpaths measured at import). Walk legs follow
 * the streets with OTP1 WalkSteps and elevation, access stops are chosen by the walk on the
 * streets, walking all the way takes the street time, and a place off the streets (east of the
 * extract's walkable ways) falls back to straight lines, marked as such. OTP-UI's core-utils read
 * the elevation profile.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import polyline from "@mapbox/polyline";
import * as itin8 from "core-utils-8/lib/itinerary.js";
import { refreshTimetable } from "../../pipeline/timetable/publish.ts";
import { startServer, type RunningServer } from "../../server/main.ts";
import { serverConfigFrom } from "../../server/config.ts";
import { haversineM } from "../../shared/geo.ts";
import { gtfs, importedDataset, streetDataset } from "../support/dataset.ts";
import { streetCandidates } from "../../server/planner/street-legs.ts";
import type { StopIdx } from "../../server/planner/api.ts";
import { hmsToSec, readRawGtfs } from "../support/raw-gtfs.ts";

type Json = Record<string, any>;
const quiet = { info() {}, warn() {}, error() {} };
let server: RunningServer;
let plain: RunningServer;

beforeAll(async () => {
  const dir = await streetDataset("pdx-plans", ["portland-small"], ["portland-ned.tif"], ["trimet-2routes"]);
  await refreshTimetable(dir); // footpaths on these streets (the CLI does this after an import)
  server = await startServer(serverConfigFrom({ data: dir, port: 0, host: "127.0.0.1", noAuth: true }), { log: quiet });
  const without = await importedDataset("pdx-no-streets", ["trimet-2routes"]);
  plain = await startServer(serverConfigFrom({ data: without, port: 0, host: "127.0.0.1", noAuth: true }), { log: quiet });
});
afterAll(async () => {
  await server?.stop();
  await plain?.stop();
});

const plan = async (s: RunningServer, q: Record<string, string>) => (await (await fetch(`${s.url}/api/v2/routing/otp/plan?${new URLSearchParams(q)}`)).json()) as Json;
// Pioneer Courthouse Square (downtown) -> Lloyd Center (across the Willamette), a weekday of the feed
const DOWNTOWN = "45.5189,-122.6790";
const LLOYD = "45.5306,-122.6532";
const base = { fromPlace: DOWNTOWN, toPlace: LLOYD, date: "2021-11-16", time: "10:00am", numItineraries: "3" };
const walkLegs = (body: Json) => (body.plan.itineraries as Json[]).flatMap((it) => (it.legs as Json[]).filter((l) => l.mode === "WALK"));

describe("walk legs on the streets", () => {
  test("geometry along the streets, OTP1 WalkSteps, distance no shorter than the straight line, the budgeted duration", async () => {
    const body = await plan(server, base);
    expect(body.plan.streetNetwork).toBe(true);
    const walks = walkLegs(body);
    expect(walks.length).toBeGreaterThan(0);
    for (const l of walks) {
      expect(l.onStreets).toBe(true);
      const pts = polyline.decode(l.legGeometry.points, 5);
      expect(pts.length).toBe(l.legGeometry.length);
      expect(pts.length).toBeGreaterThan(2);
      expect(l.distance).toBeGreaterThanOrEqual(haversineM(l.from.lat, l.from.lon, l.to.lat, l.to.lon) - 5);
      expect(l.duration).toBe((l.endTime - l.startTime) / 1000);
      expect(l.steps.length).toBeGreaterThan(0);
      expect(l.steps[0].relativeDirection).toBe("DEPART");
      for (const s of l.steps) {
        for (const k of ["distance", "relativeDirection", "streetName", "absoluteDirection", "stayOn", "area", "bogusName", "lon", "lat"]) expect(s).toHaveProperty(k);
        expect(typeof s.distance).toBe("number");
      }
    }
    for (const it of body.plan.itineraries as Json[]) {
      const walked = (it.legs as Json[]).filter((l) => l.mode === "WALK").reduce((n, l) => n + l.distance, 0);
      expect(it.walkDistance).toBeCloseTo(walked, 0);
      expect(it.walkTime + it.transitTime + it.waitingTime).toBe(it.duration);
    }
  });

  test("access and egress walks stay within maxWalkDistance on foot", async () => {
    const body = await plan(server, { ...base, maxWalkDistance: "800" });
    for (const it of body.plan?.itineraries ?? []) {
      const legs = it.legs as Json[];
      const first = legs[0]!, last = legs[legs.length - 1]!;
      // the matrix and the drawn route may differ by a few meters on the same streets
      if (first.mode === "WALK" && legs.some((l) => l.transitLeg)) expect(first.distance).toBeLessThanOrEqual(800 * 1.05);
      if (last.mode === "WALK" && legs.some((l) => l.transitLeg)) expect(last.distance).toBeLessThanOrEqual(800 * 1.05);
    }
  });

  test("elevation: downtown walks climb and descend on the NED grid; itinerary sums match; core-utils draws the profile", async () => {
    const body = await plan(server, { ...base, mode: "WALK" });
    const it = body.plan.itineraries[0] as Json;
    const leg = it.legs[0] as Json;
    expect(leg.mode).toBe("WALK");
    expect(it.elevationGained + it.elevationLost).toBeGreaterThan(0);
    const profile = itin8.getElevationProfile(leg.steps) as Json;
    expect(profile.points.length).toBeGreaterThan(2);
    for (const [x, y] of profile.points as [number, number][]) {
      expect(Number.isFinite(x)).toBe(true);
      expect(y).toBeGreaterThan(-10);
      expect(y).toBeLessThan(400);
    }
  });

  test("walking all the way takes the street time and distance", async () => {
    const body = await plan(server, { ...base, mode: "WALK" });
    const it = body.plan.itineraries[0] as Json;
    expect(it.legs.length).toBe(1);
    const leg = it.legs[0] as Json;
    expect(leg.onStreets).toBe(true);
    const [fLat, fLon] = DOWNTOWN.split(",").map(Number), [tLat, tLon] = LLOYD.split(",").map(Number);
    const crow = haversineM(fLat!, fLon!, tLat!, tLon!);
    expect(leg.distance).toBeGreaterThan(crow);
    // at 1.33 m/s, the street distance (with Valhalla's crossing costs on top)
    expect(leg.duration).toBeGreaterThanOrEqual(Math.floor(crow / 1.33));
    expect(it.walkTime).toBe(leg.duration);
  });

  test("off the streets (east of the extract's walkable ways): straight lines, marked", async () => {
    // near the Gateway Transit Center, beyond portland-small's walkable ways
    const body = await plan(server, { ...base, fromPlace: "45.5303,-122.5637", toPlace: "45.5310,-122.5600", mode: "WALK" });
    const leg = body.plan.itineraries[0].legs[0] as Json;
    expect(leg.onStreets).toBe(false);
    expect(leg.legGeometry.length).toBe(2);
    expect(leg.steps).toEqual([]);
  });

  test("without a street dataset the plan walks straight lines and says so", async () => {
    const body = await plan(plain, base);
    expect(body.plan.streetNetwork).toBe(false);
    for (const l of walkLegs(body)) {
      expect(l.legGeometry.length).toBe(2);
      expect(l.steps).toEqual([]);
    }
  });
});

describe("checked against the engine and the GTFS", () => {
  const engine = async (action: string, body: unknown) => (await (await fetch(`${server.url}/api/v2/routing/valhalla/${action}`, { method: "POST", body: JSON.stringify(body) })).json()) as Json;
  const pt = (p: Json) => ({ lat: p.lat, lon: p.lon });

  test("each walk leg is the engine's own route between its ends; access and egress take the engine's matrix time", async () => {
    const body = await plan(server, base);
    const its = (body.plan.itineraries as Json[]).filter((it) => (it.legs as Json[]).some((l) => l.transitLeg));
    expect(its.length).toBeGreaterThan(0);
    const costing = { costing: "pedestrian", costing_options: { pedestrian: { walking_speed: 1.33 * 3.6 } } };
    for (const it of its) {
      const legs = it.legs as Json[];
      for (const [i, l] of legs.entries()) {
        if (l.mode !== "WALK" || !l.onStreets) continue;
        const route = await engine("route", { locations: [pt(l.from), pt(l.to)], ...costing, units: "kilometers" });
        expect(l.distance).toBeCloseTo(route.trip.summary.length * 1000, 0);
        expect(l.legGeometry.length).toBe(polyline.decode(route.trip.legs[0].shape, 6).length);
        if (i === 0 || i === legs.length - 1) {
          const m = await engine("sources_to_targets", { sources: [pt(l.from)], targets: [pt(l.to)], ...costing });
          expect(l.duration).toBe(Math.ceil(m.sources_to_targets[0][0].time));
        }
      }
    }
  });

  test("transit legs ride as the GTFS says: the trip stops at both stops, at the leg's times", async () => {
    const feed = readRawGtfs(gtfs("trimet-2routes"));
    const st = new Map<string, Json[]>();
    for (const r of feed.get("stop_times.txt")!) (st.get(r.trip_id!) ?? st.set(r.trip_id!, []).get(r.trip_id!)!).push(r);
    const body = await plan(server, { ...base, numItineraries: "5" });
    // 2021-11-16 in Portland: Pacific standard time, UTC-8
    const local = (ms: number) => (ms / 1000 - 8 * 3600) % 86400;
    let rides = 0;
    for (const it of body.plan.itineraries as Json[]) {
      for (const l of (it.legs as Json[]).filter((x) => x.transitLeg)) {
        rides++;
        const rows = st.get(String(l.tripId).split(":").slice(1).join(":"))!;
        expect(rows).toBeDefined();
        const at = (place: Json) => rows.find((r) => Number(r.stop_sequence) === place.stopSequence)!;
        const board = at(l.from), alight = at(l.to);
        expect(`${l.from.stopId}`.endsWith(`:${board.stop_id}`)).toBe(true);
        expect(`${l.to.stopId}`.endsWith(`:${alight.stop_id}`)).toBe(true);
        expect(local(l.startTime)).toBe(hmsToSec(board.departure_time!)! % 86400);
        expect(local(l.endTime)).toBe(hmsToSec(alight.arrival_time!)! % 86400);
      }
    }
    expect(rides).toBeGreaterThan(0);
  });

  test("across the Willamette between two bridges: the long way round, over a bridge", async () => {
    // the west and east banks between the Hawthorne and Morrison bridges, 490 m apart as the crow flies
    const body = await plan(server, { ...base, fromPlace: "45.5155,-122.6718", toPlace: "45.5155,-122.6655", mode: "WALK" });
    const leg = body.plan.itineraries[0].legs[0] as Json;
    expect(leg.onStreets).toBe(true);
    expect(leg.distance).toBeGreaterThan(1.8 * haversineM(45.5155, -122.6718, 45.5155, -122.6655));
    expect((leg.steps as Json[]).some((s) => /Bridge/.test(s.streetName))).toBe(true);
  });
});

describe("street modes", () => {
  test("mode=BICYCLE and mode=CAR: one street leg of that mode, on the streets, faster than walking", async () => {
    const walk = (await plan(server, { ...base, mode: "WALK" })).plan.itineraries[0] as Json;
    for (const mode of ["BICYCLE", "CAR"]) {
      const body = await plan(server, { ...base, mode });
      const it = body.plan.itineraries[0] as Json;
      expect(it.legs.length).toBe(1);
      const leg = it.legs[0] as Json;
      expect(leg.mode).toBe(mode);
      expect(leg.transitLeg).toBe(false);
      expect(leg.onStreets).toBe(true);
      expect(leg.steps.length).toBeGreaterThan(0);
      expect(leg.duration).toBeLessThan(walk.duration);
      expect(leg.duration).toBe((leg.endTime - leg.startTime) / 1000);
    }
    // bikeSpeed is the bicycle's: slower riding takes longer
    const slow = (await plan(server, { ...base, mode: "BICYCLE", bikeSpeed: "2.5" })).plan.itineraries[0] as Json;
    const fast = (await plan(server, { ...base, mode: "BICYCLE", bikeSpeed: "6" })).plan.itineraries[0] as Json;
    expect(slow.duration).toBeGreaterThan(fast.duration);
  });

  test("mode=BICYCLE,TRANSIT rides the bicycle to and from the stations; transfers are walked", async () => {
    // a slow cyclist (1.5 m/s) from Nob Hill to South Waterfront: the streetcar beats riding all the way
    const body = await plan(server, { ...base, mode: "BICYCLE,TRANSIT", bikeSpeed: "1.5", fromPlace: "45.5306,-122.6985", toPlace: "45.4995,-122.6710" });
    const its = body.plan.itineraries as Json[];
    const withTransit = its.filter((it) => (it.legs as Json[]).some((l) => l.transitLeg));
    expect(withTransit.length).toBeGreaterThan(0);
    for (const it of withTransit) {
      const legs = it.legs as Json[];
      for (const [i, l] of legs.entries()) {
        if (l.transitLeg) continue;
        expect(l.mode).toBe(i === 0 || i === legs.length - 1 ? "BICYCLE" : "WALK");
      }
      expect(it.walkTime + it.transitTime + it.waitingTime).toBe(it.duration);
    }
  });

  test("refused with a reason, never replaced by walking: CAR with transit; BICYCLE without a street network", async () => {
    const car = await fetch(`${server.url}/api/v2/routing/otp/plan?${new URLSearchParams({ ...base, mode: "CAR,TRANSIT" })}`);
    expect(car.status).toBe(400);
    const carBody = (await car.json()) as Json;
    expect(carBody.error.missing).toEqual(["mode"]);
    expect(carBody.error.msg).toContain("park and ride");
    const bike = await fetch(`${plain.url}/api/v2/routing/otp/plan?${new URLSearchParams({ ...base, mode: "BICYCLE" })}`);
    expect(bike.status).toBe(400);
    const bikeBody = (await bike.json()) as Json;
    expect(bikeBody.error.missing).toEqual(["mode"]);
    expect(bikeBody.error.msg).toContain("street network");
  });
});

describe("which stops are measured on the streets", () => {
  test("the 40 nearest, then the nearest stop of each route not yet reached within half the radius", () => {
    // stop i is served by route i % 50 (stops 0..49: one route each; 50..99 repeat them), except
    // stops 90 and 99, served by routes 900 and 999 alone
    const n = 100;
    const routesOf = (i: number) => (i === 90 ? [900] : i === 99 ? [999] : [i % 50]);
    const start = new Int32Array(n + 1), list: number[] = [];
    for (let i = 0; i < n; i++) {
      list.push(...routesOf(i));
      start[i + 1] = list.length;
    }
    const core = { stopRouteStart: start, stopRouteRoute: Int32Array.from(list) };
    // walk seconds grow with the stop number: stop 99 is the farthest (1000 s), half of it 500 s
    const cands = Array.from({ length: n }, (_, i) => ({ stop: i as StopIdx, walkSec: (i + 1) * 10 }));
    const kept = new Set(streetCandidates(core, cands.reverse()).map((c) => c.stop as number));
    for (let i = 0; i < 40; i++) expect(kept.has(i)).toBe(true); // the nearest
    for (let i = 40; i < 50; i++) expect(kept.has(i)).toBe(true); // routes 40..49 first reached there, within 500 s
    expect(kept.has(60)).toBe(false); // route 10 was reached at stop 10
    expect(kept.has(90)).toBe(false); // a new route, but at 910 s
    expect(streetCandidates(core, cands.slice(0, 30)).length).toBe(30); // few stops: all of them
  });
});

