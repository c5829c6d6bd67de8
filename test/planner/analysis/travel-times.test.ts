/**
 * FEATURE UNDER TEST: the travel-time analysis core (server/planner/analysis/travel-times.ts) on the
 * real BART and Caltrain timetables (2019, both in service; Millbrae joins them): every sampled
 * per-minute travel time equals an independent single-departure journey search (the planner's own
 * searchJourneys with the destination's egress stops, from fresh labels) or the direct walk, exactly;
 * an origin that reaches nothing; a window past midnight; a date outside service.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { importedDataset } from "../../support/dataset.ts";
import { readManifest } from "../../../pipeline/schema/manifest.ts";
import { loadTimetableFile } from "../../../server/planner/timetable/arrow-loader.ts";
import { PlanService } from "../../../server/planner/plan-service.ts";
import { searchJourneys } from "../../../server/planner/raptor/index.ts";
import { isoToDay } from "../../../server/planner/timetable/calendar.ts";
import { TravelTimeAnalysis, type AnalysisPoint, type AnalysisSettings } from "../../../server/planner/analysis/travel-times.ts";
import { NO_JOURNEY } from "../../../server/planner/analysis/percentiles.ts";
import { haversineM } from "../../../shared/geo.ts";
import { rng } from "../support/real-dataset.ts";

let svc: PlanService;
beforeAll(async () => {
  const dir = await importedDataset("analysis-bart-caltrain", ["bart", "caltrain-2017"]);
  svc = new PlanService(loadTimetableFile(join(dir, readManifest(dir).timetable!.path)));
});

const base = (over: Partial<AnalysisSettings> = {}): AnalysisSettings => ({
  day: isoToDay("2019-03-12"), // a Tuesday both feeds serve
  windowStartSec: 7 * 3600,
  windowEndSec: 8 * 3600,
  stepSec: 60,
  walkSpeed: 1.3,
  maxWalkSec: 15 * 60,
  maxDurationMin: 120,
  maxTransfers: 3,
  transitModes: null,
  percentiles: [5, 25, 50, 75, 95],
  ...over,
});

/** Points near random stops (within ~600 m), so most reach the network on foot. */
function pointsNearStops(n: number, seed: number, prefix: string): AnalysisPoint[] {
  const r = rng(seed);
  const { stopLat, stopLon } = svc.tt.meta;
  return Array.from({ length: n }, (_, i) => {
    const s = Math.floor(r() * stopLat.length);
    return { id: `${prefix}${i}`, lat: stopLat[s]! + (r() - 0.5) * 0.01, lon: stopLon[s]! + (r() - 0.5) * 0.012 };
  });
}

/** The independent answer for one departure: a fresh single-departure journey search, or the direct walk. */
function independent(a: TravelTimeAnalysis, s: AnalysisSettings, o: AnalysisPoint, d: AnalysisPoint, step: number): number {
  const maxWalkM = s.maxWalkSec * s.walkSpeed;
  const dep = a.departureUnix(step);
  const epochSec = dep - (svc.dayDeltas.length - 1) * 86400;
  const access = svc.walkStops(o.lat, o.lon, maxWalkM, s.walkSpeed, false).filter((w) => w.walkSec <= s.maxWalkSec);
  const egress = svc.walkStops(d.lat, d.lon, maxWalkM, s.walkSpeed, false).filter((w) => w.walkSec <= s.maxWalkSec);
  let best = NO_JOURNEY;
  if (access.length && egress.length) {
    const res = searchJourneys(svc.prepared, {
      epochSec, timeSec: dep - epochSec, arriveBy: false, windowSec: 0, horizonSec: 6 * 3600, access, egress,
      maxTransfers: s.maxTransfers, walkSpeed: s.walkSpeed, days: svc.searchDays(epochSec, dep), routeAllowed: svc.routeFilter(s.transitModes), wheelchair: false,
    }, svc.pool);
    for (const j of res.journeys) best = Math.min(best, j.arriveSec - (dep - epochSec));
  }
  const walk = Math.ceil(haversineM(o.lat, o.lon, d.lat, d.lon) / s.walkSpeed);
  if (walk <= s.maxWalkSec) best = Math.min(best, walk);
  return best;
}

const clip = (sec: number, maxMin: number) => (sec < maxMin * 60 ? sec : NO_JOURNEY);

describe("travel-time analysis on BART + Caltrain", () => {
  test("every sampled per-minute travel time equals an independent single-departure search (exact)", () => {
    const s = base();
    const origins = pointsNearStops(6, 11, "o");
    const dests = pointsNearStops(120, 12, "d");
    const a = new TravelTimeAnalysis(svc, dests, s);
    const r = rng(99);
    let compared = 0, reached = 0;
    for (const o of origins) {
      const times = new Int32Array(dests.length * a.nSteps);
      a.origin(o, { perStep: (d, i, sec) => (times[d * a.nSteps + i] = sec) });
      for (let k = 0; k < 60; k++) {
        const d = Math.floor(r() * dests.length), i = Math.floor(r() * a.nSteps);
        const want = clip(independent(a, s, o, dests[d]!, i), s.maxDurationMin);
        expect({ o: o.id, d: dests[d]!.id, step: i, sec: clip(times[d * a.nSteps + i]!, s.maxDurationMin) }).toEqual({ o: o.id, d: dests[d]!.id, step: i, sec: want });
        compared++;
        if (want !== NO_JOURNEY) reached++;
      }
    }
    expect(compared).toBe(360);
    // most sampled pairs are reached, so the check is not about unreachable pairs only
    expect(reached).toBeGreaterThan(compared / 3);
  });

  test("the same with at most one ride (maxTransfers 0), and a 3-minute step", () => {
    const s = base({ maxTransfers: 0, stepSec: 180 });
    const origins = pointsNearStops(4, 21, "o");
    const dests = pointsNearStops(80, 22, "d");
    const a = new TravelTimeAnalysis(svc, dests, s);
    expect(a.nSteps).toBe(20);
    for (const o of origins) {
      const times = new Int32Array(dests.length * a.nSteps);
      a.origin(o, { perStep: (d, i, sec) => (times[d * a.nSteps + i] = sec) });
      for (let d = 0; d < dests.length; d += 7) for (let i = 0; i < a.nSteps; i += 6) {
        expect([d, i, clip(times[d * a.nSteps + i]!, 120)]).toEqual([d, i, clip(independent(a, s, o, dests[d]!, i), 120)]);
      }
    }
  });

  test("a window past midnight: departures after 00:00 ride the next morning's trips, as single searches do", () => {
    const s = base({ windowStartSec: 23 * 3600 + 30 * 60, windowEndSec: 24 * 3600 + 60 * 60 });
    const origins = pointsNearStops(3, 31, "o");
    const dests = pointsNearStops(60, 32, "d");
    const a = new TravelTimeAnalysis(svc, dests, s);
    expect(a.nSteps).toBe(90);
    expect(a.departureUnix(30) - a.departureUnix(0)).toBe(1800);
    let reached = 0;
    for (const o of origins) {
      const times = new Int32Array(dests.length * a.nSteps);
      a.origin(o, { perStep: (d, i, sec) => (times[d * a.nSteps + i] = sec) });
      for (let d = 0; d < dests.length; d += 3) for (const i of [0, 29, 31, 60, 89]) {
        const want = clip(independent(a, s, o, dests[d]!, i), 120);
        expect([o.id, d, i, clip(times[d * a.nSteps + i]!, 120)]).toEqual([o.id, d, i, want]);
        if (want !== NO_JOURNEY) reached++;
      }
    }
    expect(reached).toBeGreaterThan(0);
  });

  test("an origin far from every stop and destination reaches nothing: every percentile is unreachable", () => {
    const dests = pointsNearStops(30, 41, "d");
    const a = new TravelTimeAnalysis(svc, dests, base());
    const res = a.origin({ lat: 36.0, lon: -120.0 });
    expect(res.reachedByTransit).toBe(0);
    expect([...res.percentiles].every((m) => m === -1)).toBe(true);
  });

  test("a date outside every feed's service is refused with the feeds' service ranges", () => {
    expect(() => new TravelTimeAnalysis(svc, pointsNearStops(3, 51, "d"), base({ day: isoToDay("2031-05-06") }))).toThrow(/date 2031-05-06 is outside the service of every feed \(.*\d{4}-\d\d-\d\d\.\.\d{4}-\d\d-\d\d/);
  });
});
