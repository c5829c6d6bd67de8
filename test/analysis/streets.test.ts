/**
 * FEATURE UNDER TEST: analysis walks measured on the streets (server/analysis/street-walks.ts) by the
 * embedded engine, on TriMet's two rail lines and OTP's Portland extract (portland-small; its streets end at lon -122.64): access, egress
 * and walking all the way come from the engine's matrices; every sampled per-minute travel time
 * equals an independent single-departure journey search over the same street walks; a destination
 * outside the street extract keeps its straight-line walks and is counted; the command's report
 * says "streets"; POST /api/v2/analysis/travel-times on the server measures on its engine alike.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { writeFileSync } from "node:fs";
import { streetDataset, tempDir } from "../support/dataset.ts";
import { refreshTimetable } from "../../pipeline/timetable/publish.ts";
import { readManifest } from "../../pipeline/schema/manifest.ts";
import { loadTimetableFile } from "../../server/planner/timetable/arrow-loader.ts";
import { PlanService } from "../../server/planner/plan-service.ts";
import { searchJourneys } from "../../server/planner/raptor/index.ts";
import { isoToDay } from "../../server/planner/timetable/calendar.ts";
import { TravelTimeAnalysis, type AnalysisSettings } from "../../server/planner/analysis/travel-times.ts";
import { NO_JOURNEY } from "../../server/planner/analysis/percentiles.ts";
import type { StreetWalks } from "../../server/planner/analysis/street-walks.ts";
import type { StopWalk } from "../../server/planner/api.ts";
import { openStreetWalks } from "../../server/analysis/street-walks.ts";
import { analyzeConfigFrom } from "../../server/analysis/config.ts";
import { runAnalysis } from "../../server/analysis/run.ts";
import { haversineM } from "../../shared/geo.ts";
import { startServer } from "../../server/main.ts";
import { serverConfigFrom } from "../../server/config.ts";
import { rng } from "../planner/support/real-dataset.ts";

let data = "";
let svc: PlanService;
let walks: StreetWalks;
let closeWalks: () => Promise<void> = async () => {};
const settings: AnalysisSettings = {
  day: isoToDay("2021-11-16"), windowStartSec: 8 * 3600, windowEndSec: 8 * 3600 + 30 * 60, stepSec: 60, walkSpeed: 1.3, maxWalkSec: 900,
  maxDurationMin: 90, maxTransfers: 2, transitModes: null, percentiles: [5, 50, 95],
};
// the extract's streets cover lon -122.80 .. -122.64, lat 45.45 .. 45.55
const inside = (p: { lat: number; lon: number }) => p.lon > -122.79 && p.lon < -122.65 && p.lat > 45.46 && p.lat < 45.54;
const pts: { id: string; lat: number; lon: number }[] = [];

beforeAll(async () => {
  data = await streetDataset("analysis-pdx", ["portland-small"], [], ["trimet-2routes"]);
  await refreshTimetable(data);
  svc = new PlanService(loadTimetableFile(join(data, readManifest(data).timetable!.path)));
  const opened = (await openStreetWalks(data, settings.walkSpeed, settings.maxWalkSec))!;
  walks = opened.walks;
  closeWalks = opened.close;
  const r = rng(3);
  const { stopLat, stopLon } = svc.tt.meta;
  for (let i = 0; i < 40; i++) {
    const s = Math.floor(r() * stopLat.length);
    pts.push({ id: `p${i}`, lat: stopLat[s]! + (r() - 0.5) * 0.006, lon: stopLon[s]! + (r() - 0.5) * 0.008 });
  }
  // 120 m east of the Green line's easternmost stop (Clackamas), kilometres beyond the extract's streets
  let east = 0;
  for (let s = 1; s < stopLat.length; s++) if (stopLon[s]! > stopLon[east]!) east = s;
  pts.push({ id: "off-streets", lat: stopLat[east]!, lon: stopLon[east]! + 0.0015 });
});
afterAll(() => closeWalks());

/**
 * The travel time from the origin to destination d leaving at the window's departure i, by an
 * independent single-departure search over the same access and egress (an egress off the streets:
 * straight-line walks) or the direct trip; NO_JOURNEY from 90 minutes (the settings' limit).
 */
function independentTime(a: TravelTimeAnalysis, access: StopWalk[], egress: (StopWalk[] | null)[], direct: Int32Array, d: number, i: number): number {
  const dep = a.departureUnix(i);
  const epochSec = dep - (svc.dayDeltas.length - 1) * 86400;
  const eg = egress[d] ?? svc.walkStops(pts[d]!.lat, pts[d]!.lon, settings.maxWalkSec * settings.walkSpeed, 1.3, false);
  let want = direct[d]!;
  if (access.length && eg.length) {
    const res = searchJourneys(svc.prepared, { epochSec, timeSec: dep - epochSec, arriveBy: false, windowSec: 0, horizonSec: 4 * 3600, access, egress: eg, maxTransfers: 2, walkSpeed: 1.3, days: svc.searchDays(epochSec, dep), wheelchair: false }, svc.pool);
    for (const j of res.journeys) want = Math.min(want, j.arriveSec - (dep - epochSec));
  }
  return clip(want);
}

const clip = (x: number) => (x < 90 * 60 ? x : NO_JOURNEY);

/** For every 4th destination, one departure (minute (d * stride) mod steps): the recorded per-minute time equals independentTime; returns how many were compared. */
function expectIndependentSearches(a: TravelTimeAnalysis, o: { id: string }, access: StopWalk[], egress: (StopWalk[] | null)[], direct: Int32Array, times: Int32Array, stride: number): number {
  let compared = 0;
  for (let d = 0; d < pts.length; d += 4) {
    const i = (d * stride) % a.nSteps;
    expect([o.id, pts[d]!.id, i, clip(times[d * a.nSteps + i]!)]).toEqual([o.id, pts[d]!.id, i, independentTime(a, access, egress, direct, d, i)]);
    compared++;
  }
  return compared;
}

describe("analysis walks on the streets (Portland)", () => {
  test("egress walks measured on the streets are longer than the straight lines overall; the point outside the extract keeps straight lines", async () => {
    const { stopLat, stopLon } = svc.tt.meta;
    let longer = 0, streetSum = 0, crowSum = 0;
    for (const p of pts) {
      const crow = svc.walkStops(p.lat, p.lon, settings.maxWalkSec * settings.walkSpeed, settings.walkSpeed, false);
      const measured = await walks.stopWalks(p, crow, stopLat, stopLon, "to");
      if (p.id === "off-streets") {
        expect(inside(p)).toBe(false);
        expect(measured).toBeNull();
        continue;
      }
      if (!inside(p)) continue;
      expect(measured).not.toBeNull();
      for (const w of measured!) {
        // (the engine snaps both ends onto the nearest street: a very short walk can come out a few
        // seconds under the straight line, so the comparison is overall)
        const c = crow.find((x) => x.stop === w.stop)!;
        streetSum += w.walkSec;
        crowSum += c.walkSec;
        if (w.walkSec > c.walkSec + 30) longer++;
      }
    }
    expect(longer).toBeGreaterThan(10);
    expect(streetSum).toBeGreaterThan(crowSum * 1.1);
  });

  test("every sampled per-minute time equals an independent single-departure search over the same street walks", async () => {
    const { stopLat, stopLon } = svc.tt.meta;
    const maxWalkM = settings.maxWalkSec * settings.walkSpeed;
    const egress = await Promise.all(pts.map((p) => walks.stopWalks(p, svc.walkStops(p.lat, p.lon, maxWalkM, 1.3, false), stopLat, stopLon, "to")));
    const a = new TravelTimeAnalysis(svc, pts, settings, egress);
    let compared = 0, reached = 0;
    for (const o of pts.slice(0, 12)) {
      if (!inside(o)) continue;
      const access = (await walks.stopWalks(o, a.accessWalks(o), stopLat, stopLon, "from"))!;
      const direct = (await walks.direct(o, pts, a.nearDestinations(o)))!;
      const times = new Int32Array(pts.length * a.nSteps);
      a.origin(o, { access, direct, perStep: (d, i, sec) => (times[d * a.nSteps + i] = sec) });
      for (let d = 0; d < pts.length; d += 3) for (const i of [0, 11, 29]) {
        const want = independentTime(a, access, egress, direct, d, i);
        expect([o.id, pts[d]!.id, i, clip(times[d * a.nSteps + i]!)]).toEqual([o.id, pts[d]!.id, i, want]);
        compared++;
        if (want !== NO_JOURNEY) reached++;
      }
    }
    expect(compared).toBeGreaterThan(100);
    expect(reached).toBeGreaterThan(compared / 4);
    // walking all the way is on the streets too: at least as long as the straight line
    const o = pts.find(inside)!;
    const direct = (await walks.direct(o, pts, a.nearDestinations(o)))!;
    let walked = 0;
    for (const d of a.nearDestinations(o)) if (direct[d] !== NO_JOURNEY && d !== pts.indexOf(o)) {
      expect(direct[d]!).toBeGreaterThanOrEqual(Math.ceil(haversineM(o.lat, o.lon, pts[d]!.lat, pts[d]!.lon) / 1.3) * 0.8);
      walked++;
    }
    expect(walked).toBeGreaterThan(0);
  });

  test("the command measures on the streets when the dataset has a street dataset, and says so in its report", async () => {
    const dir = tempDir("interchange-analyze-pdx-");
    writeFileSync(join(dir, "points.csv"), `id,lat,lon,jobs\n${pts.map((p, i) => `${p.id},${p.lat},${p.lon},${i}`).join("\n")}\n`);
    const rep = await runAnalysis(analyzeConfigFrom("accessibility", { data, origins: join(dir, "points.csv"), date: "2021-11-16", window: "08:00-08:30", step: 1, walkSpeed: 1.3, maxWalk: 15, maxDuration: 90, maxTransfers: 2, modes: "TRANSIT", percentiles: "5,50,95", cutoffs: "30,60", out: join(dir, "out"), shard: "1/1", quiet: true }), { stderr: () => {}, tty: false });
    expect(rep.walks).toBe("streets");
    expect(rep.dataset.streets_sha1).toMatch(/^[0-9a-f]{40}$/);
    expect(rep.off_streets!.destinations).toBeGreaterThanOrEqual(1);
    expect(rep.off_streets!.origins).toBe(rep.off_streets!.destinations);
    expect(rep.outputs.rows).toBe(pts.length * 2 * 3);
  });

  test("POST /api/v2/analysis/travel-times measures on the server's engine: the same times as the core over these street walks", async () => {
    const server = await startServer(serverConfigFrom({ data, port: 0, host: "127.0.0.1", noAuth: true }), { log: { info() {}, warn() {}, error() {} } });
    try {
      const o = pts.find(inside)!;
      const res = await fetch(`${server.url}/api/v2/analysis/travel-times`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ from: o, to: pts, date: "2021-11-16", window: "08:00-08:30", maxWalk: 15, maxDuration: 90, maxTransfers: 2, percentiles: [5, 50, 95] }) });
      expect(res.status).toBe(200);
      const body = (await res.json()) as Record<string, any>;
      expect(body.walks).toBe("streets");
      const { stopLat, stopLon } = svc.tt.meta;
      const egress = await Promise.all(pts.map((p) => walks.stopWalks(p, svc.walkStops(p.lat, p.lon, settings.maxWalkSec * 1.3, 1.3, false), stopLat, stopLon, "to")));
      const a = new TravelTimeAnalysis(svc, pts, settings, egress);
      const access = (await walks.stopWalks(o, a.accessWalks(o), stopLat, stopLon, "from"))!;
      const direct = (await walks.direct(o, pts, a.nearDestinations(o)))!;
      const p = a.origin(o, { access, direct }).percentiles;
      // the points that kept straight lines are said, and are the core's (none dropped for a busy engine)
      expect(body.offStreets).toEqual({ origin: false, destinations: egress.filter((e) => e === null).length });
      expect(body.destinations.map((d: any) => d.travelTimes)).toEqual(pts.map((_, i) => [0, 1, 2].map((k) => (p[i * 3 + k] === -1 ? null : p[i * 3 + k]))));
      expect(body.destinations.filter((d: any) => d.travelTimes[1] !== null).length).toBeGreaterThan(5);
    } finally {
      await server.stop();
    }
  });

  test("POST /api/v2/analysis/travel-times cycles at both ends (accessMode, egressMode BICYCLE): the core's times over the same rides; CORS; a bad mode is a 400", async () => {
    const server = await startServer(serverConfigFrom({ data, port: 0, host: "127.0.0.1", noAuth: true }), { log: { info() {}, warn() {}, error() {} } });
    const cycling = { mode: "BICYCLE" as const, speedMps: 5, maxSec: 600 };
    const bike = (await openStreetWalks(data, 1.3, settings.maxWalkSec, cycling, cycling))!;
    try {
      const o = pts.filter(inside)[1]!;
      const post = (extra: Record<string, unknown>) =>
        fetch(`${server.url}/api/v2/analysis/travel-times`, { method: "POST", headers: { "content-type": "application/json", origin: "https://example.org" }, body: JSON.stringify({ from: o, to: pts, date: "2021-11-16", window: "08:00-08:30", maxWalk: 15, maxDuration: 90, maxTransfers: 2, percentiles: [5, 50, 95], ...extra }) });
      const res = await post({ accessMode: "BICYCLE", egressMode: "BICYCLE", bikeSpeed: 5, maxBike: 10 });
      expect(res.status).toBe(200);
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
      const body = (await res.json()) as Record<string, any>;
      expect([body.walks, body.accessMode, body.egressMode]).toEqual(["streets", "BICYCLE", "BICYCLE"]);
      // the same rides measured here, independently of the endpoint's code path: stops within a 10-minute ride at 5 m/s
      const { stopLat, stopLon } = svc.tt.meta;
      const egress = await Promise.all(pts.map((p) => bike.walks.stopWalks(p, svc.walkStops(p.lat, p.lon, 600 * 5, 5, false), stopLat, stopLon, "to")));
      const a = new TravelTimeAnalysis(svc, pts, settings, egress);
      const access = (await bike.walks.stopWalks(o, svc.walkStops(o.lat, o.lon, 600 * 5, 5, false), stopLat, stopLon, "from"))!;
      const direct = (await bike.walks.direct(o, pts, a.nearDestinations(o, 600 * 5)))!;
      const p = a.origin(o, { access, direct }).percentiles;
      expect(body.destinations.map((d: any) => d.travelTimes)).toEqual(pts.map((_, i) => [0, 1, 2].map((k) => (p[i * 3 + k] === -1 ? null : p[i * 3 + k]))));
      // cycling reaches at least as many destinations as walking, and some sooner
      const walked = (await (await post({})).json()) as Record<string, any>;
      expect(walked.accessMode).toBe("WALK");
      const reached = (b: Record<string, any>) => b.destinations.filter((d: any) => d.travelTimes[1] !== null).length;
      expect(reached(body)).toBeGreaterThanOrEqual(reached(walked));
      expect(body.destinations.some((d: any, i: number) => d.travelTimes[1] !== null && (walked.destinations[i].travelTimes[1] === null || d.travelTimes[1] < walked.destinations[i].travelTimes[1]))).toBe(true);
      const bad = await post({ egressMode: "CAR" });
      expect(bad.status).toBe(400);
      expect(((await bad.json()) as Record<string, any>).error).toContain("egressMode must be WALK or BICYCLE");
      expect((await post({ accessMode: "BICYCLE", bikeSpeed: 99 })).status).toBe(400);
    } finally {
      await bike.close();
      await server.stop();
    }
  });

  test("cycling to the first stop (--access-mode BICYCLE): per-minute times equal independent searches over the same rides; faster overall than walking", async () => {
    const bike = (await openStreetWalks(data, 1.3, settings.maxWalkSec, { mode: "BICYCLE", speedMps: 4.2, maxSec: 900 }))!;
    try {
      const { stopLat, stopLon } = svc.tt.meta;
      const maxWalkM = settings.maxWalkSec * settings.walkSpeed;
      const egress = await Promise.all(pts.map((p) => walks.stopWalks(p, svc.walkStops(p.lat, p.lon, maxWalkM, 1.3, false), stopLat, stopLon, "to")));
      const a = new TravelTimeAnalysis(svc, pts, settings, egress);
      let bikeSum = 0, walkSum = 0, compared = 0;
      for (const o of pts.filter(inside).slice(0, 5)) {
        const access = (await bike.walks.stopWalks(o, svc.walkStops(o.lat, o.lon, 900 * 4.2, 4.2, false), stopLat, stopLon, "from"))!;
        const direct = (await bike.walks.direct(o, pts, a.nearDestinations(o, 900 * 4.2)))!;
        const walkAccess = (await walks.stopWalks(o, a.accessWalks(o), stopLat, stopLon, "from"))!;
        expect(access.length).toBeGreaterThan(walkAccess.length);
        const times = new Int32Array(pts.length * a.nSteps);
        const byBike = a.origin(o, { access, direct, perStep: (d, i, sec) => (times[d * a.nSteps + i] = sec) }).percentiles;
        const byFoot = a.origin(o, { access: walkAccess, direct: (await walks.direct(o, pts, a.nearDestinations(o)))! }).percentiles;
        for (let d = 0; d < pts.length; d++) {
          if (byBike[d * 3 + 1] !== -1 && byFoot[d * 3 + 1] !== -1) {
            bikeSum += byBike[d * 3 + 1]!;
            walkSum += byFoot[d * 3 + 1]!;
          }
        }
        compared += expectIndependentSearches(a, o, access, egress, direct, times, 7);
      }
      expect(compared).toBeGreaterThan(40);
      expect(bikeSum).toBeLessThan(walkSum);
    } finally {
      await bike.close();
    }
  });

  test("cycling from the last stop (--egress-mode BICYCLE): per-minute times equal independent searches over the same rides; faster overall than walking", async () => {
    const bike = (await openStreetWalks(data, 1.3, settings.maxWalkSec, undefined, { mode: "BICYCLE", speedMps: 4.2, maxSec: 1200 }))!;
    try {
      const { stopLat, stopLon } = svc.tt.meta;
      const maxWalkM = settings.maxWalkSec * settings.walkSpeed;
      const byBike = await Promise.all(pts.map((p) => bike.walks.stopWalks(p, svc.walkStops(p.lat, p.lon, 1200 * 4.2, 4.2, false), stopLat, stopLon, "to")));
      const byFoot = await Promise.all(pts.map((p) => walks.stopWalks(p, svc.walkStops(p.lat, p.lon, maxWalkM, 1.3, false), stopLat, stopLon, "to")));
      // more stops within a 20-minute ride than a 15-minute walk, and rides longer than any walk kept (the core keeps them)
      const count = (ls: (unknown[] | null)[]) => ls.reduce((n, l) => n + (l?.length ?? 0), 0);
      expect(count(byBike)).toBeGreaterThan(count(byFoot) * 2);
      expect(byBike.some((l) => l?.some((w) => w.walkSec > settings.maxWalkSec))).toBe(true);
      expect(byBike[pts.findIndex((p) => p.id === "off-streets")]).toBeNull();
      const cycled = new TravelTimeAnalysis(svc, pts, settings, byBike);
      const walked = new TravelTimeAnalysis(svc, pts, settings, byFoot);
      let bikeSum = 0, walkSum = 0, compared = 0, onlyByBike = 0;
      for (const o of pts.filter(inside).slice(0, 5)) {
        const access = (await walks.stopWalks(o, cycled.accessWalks(o), stopLat, stopLon, "from"))!;
        const direct = (await walks.direct(o, pts, cycled.nearDestinations(o)))!;
        const times = new Int32Array(pts.length * cycled.nSteps);
        const b = cycled.origin(o, { access, direct, perStep: (d, i, sec) => (times[d * cycled.nSteps + i] = sec) }).percentiles;
        const w = walked.origin(o, { access, direct }).percentiles;
        for (let d = 0; d < pts.length; d++) {
          const [pb, pw] = [b[d * 3 + 1]!, w[d * 3 + 1]!];
          if (pb !== -1 && pw !== -1) {
            expect(pb).toBeLessThanOrEqual(pw);
            bikeSum += pb;
            walkSum += pw;
          } else if (pb !== -1) onlyByBike++;
          else expect(pw).toBe(-1); // what walking reaches, cycling reaches
        }
        compared += expectIndependentSearches(cycled, o, access, byBike, direct, times, 5);
      }
      expect(compared).toBeGreaterThan(40);
      expect(bikeSum + onlyByBike).toBeGreaterThan(0);
      expect(bikeSum).toBeLessThan(walkSum);
    } finally {
      await bike.close();
    }
  });
});
