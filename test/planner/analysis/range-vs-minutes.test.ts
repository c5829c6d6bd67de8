/**
 * FEATURE UNDER TEST: the analysis core's optimized range pass (server/planner/analysis/travel-times.ts
 * over raptor/minutes.ts: labels kept from later departures, only the stops improved in a step
 * read and propagated to their destinations) against a plain per-minute computation on the real rnv
 * timetable (Mannheim/Heidelberg, 2016): one fresh single-departure RAPTOR per minute (stepArrivals
 * with one step: no labels kept), every destination's time the minimum over all its stops of arrival
 * + walk (or walking all the way), percentiles by R5's nearest rank written out here. Every
 * per-minute time and every percentile of every destination must be identical.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { importedDataset } from "../../support/dataset.ts";
import { readManifest } from "../../../pipeline/schema/manifest.ts";
import { loadTimetableFile } from "../../../server/planner/timetable/arrow-loader.ts";
import { PlanService } from "../../../server/planner/plan-service.ts";
import { stepArrivals } from "../../../server/planner/raptor/index.ts";
import { UNREACHED, type StopWalk } from "../../../server/planner/api.ts";
import { isoToDay } from "../../../server/planner/timetable/calendar.ts";
import { TravelTimeAnalysis, type AnalysisPoint, type AnalysisSettings } from "../../../server/planner/analysis/travel-times.ts";
import { NO_JOURNEY } from "../../../server/planner/analysis/percentiles.ts";
import { haversineM } from "../../../shared/geo.ts";
import { rng } from "../support/real-dataset.ts";

let svc: PlanService;
beforeAll(async () => {
  const dir = await importedDataset("analysis-rnv", ["rnv"]);
  svc = new PlanService(loadTimetableFile(join(dir, readManifest(dir).timetable!.path)));
});

/** Points near random stops (within ~600 m). */
function pointsNearStops(n: number, seed: number, prefix: string): AnalysisPoint[] {
  const r = rng(seed);
  const { stopLat, stopLon } = svc.tt.meta;
  return Array.from({ length: n }, (_, i) => {
    const s = Math.floor(r() * stopLat.length);
    return { id: `${prefix}${i}`, lat: stopLat[s]! + (r() - 0.5) * 0.01, lon: stopLon[s]! + (r() - 0.5) * 0.012 };
  });
}

const walks = (p: AnalysisPoint, s: AnalysisSettings): StopWalk[] =>
  svc.walkStops(p.lat, p.lon, s.maxWalkSec * s.walkSpeed, s.walkSpeed, false).filter((w) => w.walkSec <= s.maxWalkSec);

/** Per destination and step, seconds (NO_JOURNEY when none or maxDuration or more): one fresh RAPTOR per step. */
function plainTimes(a: TravelTimeAnalysis, s: AnalysisSettings, o: AnalysisPoint, dests: AnalysisPoint[]): Int32Array {
  const nStops = svc.tt.core.nStops;
  const all = Int32Array.from({ length: nStops }, (_, i) => i);
  const access = walks(o, s);
  const egress = dests.map((d) => walks(d, s));
  const out = new Int32Array(dests.length * a.nSteps).fill(NO_JOURNEY);
  const arr = new Int32Array(nStops);
  for (let i = 0; i < a.nSteps; i++) {
    const dep = a.departureUnix(i);
    const epochSec = dep - (svc.dayDeltas.length - 1) * 86400;
    const timeSec = dep - epochSec;
    arr.fill(UNREACHED);
    if (access.length) {
      stepArrivals(svc.prepared, {
        epochSec, timeSec, arriveBy: false, windowSec: 0, horizonSec: s.maxDurationMin * 60, access, egress: [], maxTransfers: s.maxTransfers,
        walkSpeed: s.walkSpeed, days: svc.searchDays(epochSec, dep), routeAllowed: svc.routeFilter(s.transitModes), wheelchair: false, maxDurationSec: s.maxDurationMin * 60,
      }, svc.pool, 1, s.stepSec, all, (_i, _dep, arrivals) => arr.set(arrivals));
    }
    dests.forEach((d, k) => {
      let best = NO_JOURNEY;
      for (const w of egress[k]!) if (arr[w.stop]! < UNREACHED) best = Math.min(best, arr[w.stop]! + w.walkSec - timeSec);
      const direct = Math.ceil(haversineM(o.lat, o.lon, d.lat, d.lon) / s.walkSpeed);
      if (direct <= s.maxWalkSec) best = Math.min(best, direct);
      out[k * a.nSteps + i] = best < s.maxDurationMin * 60 ? best : NO_JOURNEY;
    });
  }
  return out;
}

/** R5's percentile of n times: whole minutes rounded down, unreachable last, rank ceil(p / 100 * n); -1 when unreachable. */
function nearestRank(secs: number[], p: number, maxMin: number): number {
  const mins = secs.map((t) => (t === NO_JOURNEY || Math.floor(t / 60) >= maxMin ? Infinity : Math.floor(t / 60))).sort((x, y) => x - y);
  const m = mins[Math.ceil((p / 100) * mins.length) - 1]!;
  return m === Infinity ? -1 : m;
}

describe("range pass against one fresh search per minute (rnv)", () => {
  for (const [name, over] of [
    ["07:00-08:00 at 1-minute steps, at most 4 transfers", {}],
    ["16:30-17:30 at 2-minute steps, at most 1 transfer, 45 minutes maximum", { windowStartSec: 16.5 * 3600, windowEndSec: 17.5 * 3600, stepSec: 120, maxTransfers: 1, maxDurationMin: 45 }],
    // two service days in one search (day slots), and the long headways of the night
    ["23:30-00:30 at 1-minute steps, across midnight", { windowStartSec: 23.5 * 3600, windowEndSec: 24.5 * 3600 }],
  ] as [string, Partial<AnalysisSettings>][]) {
    test(`every per-minute time and every percentile is identical: ${name}`, () => {
      const s: AnalysisSettings = {
        day: isoToDay("2016-11-15"), windowStartSec: 7 * 3600, windowEndSec: 8 * 3600, stepSec: 60, walkSpeed: 1.3, maxWalkSec: 15 * 60,
        maxDurationMin: 90, maxTransfers: 4, transitModes: null, percentiles: [5, 25, 50, 75, 95], ...over,
      };
      const origins = pointsNearStops(4, 51, "o");
      const dests = pointsNearStops(250, 52, "d");
      const a = new TravelTimeAnalysis(svc, dests, s);
      let compared = 0, reachedSteps = 0, reachedPct = 0, byTransit = 0;
      for (const o of origins) {
        const got = new Int32Array(dests.length * a.nSteps);
        const res = a.origin(o, { perStep: (d, i, sec) => (got[d * a.nSteps + i] = sec) });
        byTransit += res.reachedByTransit;
        const want = plainTimes(a, s, o, dests);
        for (let d = 0; d < dests.length; d++) {
          const row = Array.from(want.subarray(d * a.nSteps, (d + 1) * a.nSteps));
          for (let i = 0; i < a.nSteps; i++) {
            const g = got[d * a.nSteps + i]! < s.maxDurationMin * 60 ? got[d * a.nSteps + i]! : NO_JOURNEY;
            if (g !== row[i]) expect({ o: o.id, d: dests[d]!.id, step: i, sec: g }).toEqual({ o: o.id, d: dests[d]!.id, step: i, sec: row[i]! });
            if (row[i] !== NO_JOURNEY) reachedSteps++;
          }
          const pct = s.percentiles.map((p) => nearestRank(row, p, s.maxDurationMin));
          expect({ o: o.id, d: dests[d]!.id, pct: Array.from(res.percentiles.subarray(d * s.percentiles.length, (d + 1) * s.percentiles.length)) }).toEqual({ o: o.id, d: dests[d]!.id, pct });
          compared++;
          if (pct[2]! >= 0) reachedPct++;
        }
      }
      expect(compared).toBe(1000);
      // most destinations are reached, and not only on foot: the check is not about unreachable pairs
      expect(reachedPct).toBeGreaterThan(compared / 4);
      expect(reachedSteps).toBeGreaterThan((compared * a.nSteps) / 4);
      expect(byTransit).toBeGreaterThan(compared / 4);
    });
  }
});
