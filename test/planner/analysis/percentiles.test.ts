/**
 * FEATURE UNDER TEST: percentiles by R5's definition (nearest rank, whole minutes rounded down,
 * unreachable sorted last) and cumulative accessibility (server/planner/analysis/percentiles.ts),
 * alone and on a hand-made timetable (text grid) where every minute's travel time is known.
 */
import { describe, expect, test } from "bun:test";
import { textTimetable } from "../support/text-timetable.ts";
import { PlanService } from "../../../server/planner/plan-service.ts";
import { isoToDay } from "../../../server/planner/timetable/calendar.ts";
import { TravelTimeAnalysis, type AnalysisSettings } from "../../../server/planner/analysis/travel-times.ts";
import { accessibility, NO_JOURNEY, percentileIndex, percentileMinutes } from "../../../server/planner/analysis/percentiles.ts";

const pct = (secs: number[], ps: number[], maxMin = 120) => {
  const out = new Int16Array(ps.length);
  percentileMinutes(Int32Array.from(secs), secs.length, maxMin, Int32Array.from(ps, (p) => percentileIndex(secs.length, p)), new Int32Array(maxMin + 1), out, 0);
  return [...out];
};

describe("percentiles (R5's nearest rank)", () => {
  test("index ceil(p/100 n) - 1: of 120 minutes, p5 is the 6th, p50 the 60th, p95 the 114th; of 10, p25 is the 3rd", () => {
    expect([5, 25, 50, 75, 95, 100].map((p) => percentileIndex(120, p))).toEqual([5, 29, 59, 89, 113, 119]);
    expect([5, 25, 50, 75, 95].map((p) => percentileIndex(10, p))).toEqual([0, 2, 4, 7, 9]);
    expect(() => percentileIndex(10, 0)).toThrow(/1\.\.100/);
  });

  test("the docs' worked example: ten minutes, three of them unreachable", () => {
    // 12:30 -> 12 min; unreachable counts as infinite, so p75 and p95 are unreachable (-1 = null)
    const secs = [750, 14 * 60, 600, NO_JOURNEY, 11 * 60 + 59, 20 * 60, NO_JOURNEY, 13 * 60, 15 * 60, NO_JOURNEY];
    // minutes 12 14 10 - 11 20 - 13 15 -, sorted 10 11 12 13 14 15 20 - - -: ranks 1, 3, 5, 8, 10
    expect(pct(secs, [5, 25, 50, 75, 95])).toEqual([10, 12, 14, -1, -1]);
  });

  test("a time of maxDuration minutes or more is unreachable", () => {
    expect(pct([59 * 60 + 59, 60 * 60], [5, 95], 60)).toEqual([59, -1]);
  });

  test("accessibility sums each opportunity column over destinations under the cutoff, per percentile", () => {
    // two destinations, percentiles [p50, p95]: d0 = 10, 29 minutes; d1 = 30, unreachable
    const p = Int16Array.from([10, 29, 30, -1]);
    const acc = accessibility(p, 2, 2, [15, 30, 45], [Float64Array.from([100, 7]), Float64Array.from([1, 2])]);
    // (cutoff, percentile, column)
    expect([...acc]).toEqual([100, 1, 0, 0, 100, 1, 100, 1, 107, 3, 100, 1]);
  });
});

describe("travel times on a hand-made timetable", () => {
  // A, B, C about 11 km apart (no walking between them); one route every 10 minutes
  const tt = textTimetable(`
    stop A 40.0 -73.0
    stop B 40.1 -73.0
    stop C 40.2 -73.0
    route R1
      A     B     C
      T1 07:05 07:15 07:25
      T2 07:15 07:25 07:35
      T3 07:25 07:35 07:45
  `);
  const svc = new PlanService(tt);
  const settings = (over: Partial<AnalysisSettings> = {}): AnalysisSettings => ({
    day: isoToDay("2024-03-05"), windowStartSec: 7 * 3600, windowEndSec: 7 * 3600 + 600, stepSec: 60, walkSpeed: 1.3, maxWalkSec: 600,
    maxDurationMin: 120, maxTransfers: 2, transitModes: null, percentiles: [5, 25, 50, 75, 95], ...over,
  });
  const dests = [{ id: "b", lat: 40.1, lon: -73.0 }, { id: "c", lat: 40.2, lon: -73.0 }];

  test("every minute's travel time is the wait for the next trip plus the ride", () => {
    const a = new TravelTimeAnalysis(svc, dests, settings());
    const minutes: number[][] = [[], []];
    const res = a.origin({ lat: 40.0, lon: -73.0 }, { perStep: (d, i, sec) => (minutes[d]![i] = sec / 60) });
    // 07:00 .. 07:09: to B, T1 (arrives 07:15) until 07:05, then T2 (07:25)
    expect(minutes[0]).toEqual([15, 14, 13, 12, 11, 10, 19, 18, 17, 16]);
    expect(minutes[1]).toEqual([25, 24, 23, 22, 21, 20, 29, 28, 27, 26]);
    // sorted to B: 10 11 12 13 14 15 16 17 18 19 -> ranks 1, 3, 5, 8, 10
    expect([...res.percentiles]).toEqual([10, 12, 14, 17, 19, 20, 22, 24, 27, 29]);
  });

  test("with a 17-minute maximum the slowest departures are unreachable, and so are p75 and p95", () => {
    const a = new TravelTimeAnalysis(svc, dests, settings({ maxDurationMin: 17 }));
    expect([...a.origin({ lat: 40.0, lon: -73.0 }).percentiles]).toEqual([10, 12, 14, -1, -1, -1, -1, -1, -1, -1]);
  });

  test("accessibility: B holds 100 jobs, C 10; under 15, 20 and 30 minutes", () => {
    const a = new TravelTimeAnalysis(svc, dests, settings());
    const res = a.origin({ lat: 40.0, lon: -73.0 });
    const acc = accessibility(res.percentiles, 2, 5, [15, 20, 30], [Float64Array.from([100, 10])]);
    expect([...acc]).toEqual([100, 100, 100, 0, 0, 100, 100, 100, 100, 100, 110, 110, 110, 110, 110]);
  });

  test("walking all the way wins when shorter: a destination 500 m from the origin", () => {
    const near = [{ id: "n", lat: 40.0045, lon: -73.0 }];
    const a = new TravelTimeAnalysis(svc, near, settings());
    // 500 m at 1.3 m/s = 385 s = 6 min (rounded down), every minute
    expect([...a.origin({ lat: 40.0, lon: -73.0 }).percentiles]).toEqual([6, 6, 6, 6, 6]);
  });
});
