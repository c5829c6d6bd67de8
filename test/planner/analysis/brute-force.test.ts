/**
 * FEATURE UNDER TEST: the analysis core's per-minute travel times against a brute-force search on a
 * small real feed (Terre Haute Transit): for stop-to-stop pairs (no walk at either end), every
 * minute's travel time equals the arrival a connection scan over the raw GTFS rows finds
 * (test/planner/support/gtfs-reference.ts: calendars, trips and stop times read from the Parquet
 * catalog, footpaths as the planner's), leaving at that minute.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { importedDataset } from "../../support/dataset.ts";
import { readManifest } from "../../../pipeline/schema/manifest.ts";
import { loadTimetableFile } from "../../../server/planner/timetable/arrow-loader.ts";
import { PlanService } from "../../../server/planner/plan-service.ts";
import { isoToDay } from "../../../server/planner/timetable/calendar.ts";
import type { StopIdx } from "../../../server/planner/api.ts";
import { TravelTimeAnalysis, type AnalysisSettings } from "../../../server/planner/analysis/travel-times.ts";
import { NO_JOURNEY } from "../../../server/planner/analysis/percentiles.ts";
import { GtfsReference } from "../support/gtfs-reference.ts";
import { rng } from "../support/real-dataset.ts";

let svc: PlanService;
let ref: GtfsReference;
beforeAll(async () => {
  const dir = await importedDataset("analysis-terre-haute", ["terre-haute"]);
  svc = new PlanService(loadTimetableFile(join(dir, readManifest(dir).timetable!.path)));
  ref = await GtfsReference.load(dir);
});

describe("travel times against a brute-force connection scan (Terre Haute)", () => {
  test("every minute of 06:30-09:30 from 8 stops to every served stop", () => {
    const { meta, core } = svc.tt;
    const served: number[] = [];
    for (let s = 0; s < core.nStops; s++) if (core.stopRouteStart[s + 1]! > core.stopRouteStart[s]!) served.push(s);
    const settings: AnalysisSettings = {
      day: isoToDay("2017-03-14"), windowStartSec: 6.5 * 3600, windowEndSec: 9.5 * 3600, stepSec: 60, walkSpeed: 1.33, maxWalkSec: 600,
      maxDurationMin: 180, maxTransfers: 8, transitModes: null, percentiles: [50],
    };
    const dests = served.map((s) => ({ id: meta.stopId[s]!, lat: meta.stopLat[s]!, lon: meta.stopLon[s]! }));
    // each destination is its own stop, reached with no walk
    const a = new TravelTimeAnalysis(svc, dests, settings, served.map((s) => [{ stop: s as StopIdx, walkSec: 0 }]));
    const key = (s: number) => `${meta.feeds[meta.stopFeed[s]!]!.sha1}|${meta.stopId[s]}`;
    const r = rng(4);
    let compared = 0, reached = 0;
    for (let k = 0; k < 8; k++) {
      const o = served[Math.floor(r() * served.length)]!;
      const times = new Int32Array(dests.length * a.nSteps);
      a.origin({ lat: meta.stopLat[o]!, lon: meta.stopLon[o]! }, { access: [{ stop: o as StopIdx, walkSec: 0 }], direct: new Int32Array(dests.length).fill(NO_JOURNEY), perStep: (d, i, sec) => (times[d * a.nSteps + i] = sec) });
      for (let i = 0; i < a.nSteps; i++) {
        const t0 = a.departureUnix(i);
        const want = ref.arrivalsEverywhere(key(o), t0, settings.day, meta.walkRadiusM, 1.33, false, false);
        served.forEach((s, d) => {
          if (s === o) return;
          const arr = want.get(key(s));
          const expected = arr === undefined || arr - t0 >= 180 * 60 ? NO_JOURNEY : arr - t0;
          const got = times[d * a.nSteps + i]! >= 180 * 60 ? NO_JOURNEY : times[d * a.nSteps + i]!;
          if (got !== expected) expect({ origin: meta.stopId[o], to: meta.stopId[s], minute: i, sec: got }).toEqual({ origin: meta.stopId[o], to: meta.stopId[s], minute: i, sec: expected });
          compared++;
          if (expected !== NO_JOURNEY) reached++;
        });
      }
    }
    expect(compared).toBeGreaterThan(100_000);
    expect(reached).toBeGreaterThan(compared / 4);
  });
});
