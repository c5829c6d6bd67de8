/**
 * FEATURE UNDER TEST: the pruning and filtering of the RAPTOR core on real feeds (BART + Caltrain):
 * per-service-day trip views, slot skipping past midnight, dominated-transfer pruning and range
 * RAPTOR's access-stop marking must not change results. Late-evening earliest arrivals equal an
 * independent connection scan, a range search's profile equals single-departure searches, and
 * destination pruning (lower bounds, raptor/heuristic.ts) leaves range searches' journeys unchanged,
 * and searching only for the n earliest arrivals (keepEarliest) selects the same itineraries; the
 * last rounds' scans limited to what can still reach the destination (look-ahead) find the same
 * journeys.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { PlanService, selectJourneys } from "../../../server/planner/plan-service.ts";
import { buildServiceDays, localParts, localToUnix } from "../../../server/planner/timetable/calendar.ts";
import { searchJourneys, type SearchQuery } from "../../../server/planner/raptor/index.ts";
import { DEFAULT_RAPTOR_CONFIG, type RaptorConfig, type StopIdx, type StopWalk } from "../../../server/planner/api.ts";
import { bartCaltrain, rng } from "../support/real-dataset.ts";
import { GtfsReference } from "../support/gtfs-reference.ts";

let svc: PlanService;
let ref: GtfsReference;
let day: number;
const tz = "America/Los_Angeles";
const served: number[] = [];

beforeAll(async () => {
  ({ svc, ref } = await bartCaltrain());
  day = Math.floor((svc.tt.meta.feedStartDay[0]! + svc.tt.meta.feedEndDay[0]!) / 2);
  while ((day + 3) % 7 > 3) day++; // Monday..Thursday, so "tomorrow" is a weekday too
  const { core, meta } = svc.tt;
  for (let s = 0; s < core.nStops; s++) {
    const f = meta.stopFeed[s]!;
    if (core.stopRouteStart[s + 1]! > core.stopRouteStart[s]! && day >= meta.feedStartDay[f]! && day <= meta.feedEndDay[f]!) served.push(s);
  }
});

function query(t0: number, access: StopWalk[], egress: StopWalk[], windowSec: number, maxTransfers = 5): SearchQuery {
  const epoch = t0 - 2 * 86400;
  return { epochSec: epoch, timeSec: t0 - epoch, arriveBy: false, windowSec, horizonSec: 86400, access, egress, maxTransfers, walkSpeed: 1.33, days: buildServiceDays(svc.tt, epoch, t0), wheelchair: false };
}

/**
 * `n` random queries searched with the default config and with `off` (a pruning rule switched off):
 * the journeys must be identical, leg by leg, and the pruned search visit no more route stops.
 * Returns the journeys and visits summed.
 */
function compareWithout(
  off: Partial<RaptorConfig>, seed: number, n: number,
  shape: (i: number, rand: () => number) => { walk: boolean; windowSec: number; maxTransfers: number; arriveBy: boolean },
): { journeys: number; visitedPruned: number; visitedFull: number } {
  const rand = rng(seed);
  const { stopLat, stopLon } = svc.tt.meta;
  const out = { journeys: 0, visitedPruned: 0, visitedFull: 0 };
  const show = (js: { departSec: number; arriveSec: number; rides: number; legs: unknown[] }[]) => js.map((j) => `${j.departSec}-${j.arriveSec}/${j.rides}:${JSON.stringify(j.legs)}`);
  for (let i = 0; i < n; i++) {
    const o = served[Math.floor(rand() * served.length)]!, d = served[Math.floor(rand() * served.length)]!;
    if (o === d) continue;
    const t0 = localToUnix(day, 5 * 3600 + Math.floor(rand() * 20 * 3600), tz);
    const k = shape(i, rand);
    const access = k.walk ? svc.walkStops(stopLat[o]!, stopLon[o]!, 1609, 1.33, false) : [{ stop: o as StopIdx, walkSec: 0 }];
    const egress = k.walk ? svc.walkStops(stopLat[d]!, stopLon[d]!, 1609, 1.33, false) : [{ stop: d as StopIdx, walkSec: 0 }];
    const q = { ...query(t0, access, egress, k.windowSec, k.maxTransfers), arriveBy: k.arriveBy };
    const pruned = searchJourneys(svc.prepared, q, svc.pool);
    const full = searchJourneys(svc.prepared, q, svc.pool, { ...DEFAULT_RAPTOR_CONFIG, ...off });
    expect({ i, journeys: show(pruned.journeys) }).toEqual({ i, journeys: show(full.journeys) });
    expect(pruned.stats.stopsVisited).toBeLessThanOrEqual(full.stats.stopsVisited);
    out.journeys += full.journeys.length;
    out.visitedPruned += pruned.stats.stopsVisited;
    out.visitedFull += full.stats.stopsVisited;
  }
  return out;
}

describe("RAPTOR pruning and day filtering", () => {
  test("late-evening and after-midnight earliest arrivals equal a connection scan (150 queries)", () => {
    const rand = rng(2024);
    const { meta } = svc.tt;
    const key = (s: number) => `${meta.feeds[meta.stopFeed[s]!]!.sha1}|${meta.stopId[s]}`;
    let reached = 0;
    for (let i = 0; i < 150; i++) {
      const o = served[Math.floor(rand() * served.length)]!, d = served[Math.floor(rand() * served.length)]!;
      if (o === d) continue;
      // 21:00 .. 25:30: service ends, trips past midnight of the previous service day, the next morning
      const t0 = localToUnix(day, 21 * 3600 + Math.floor(rand() * 4.5 * 3600), tz);
      const q = query(t0, [{ stop: o as StopIdx, walkSec: 0 }], [{ stop: d as StopIdx, walkSec: 0 }], 0, 10);
      const res = searchJourneys(svc.prepared, q, svc.pool);
      const raptor = res.journeys.length ? Math.min(...res.journeys.map((j) => q.epochSec + j.arriveSec)) : Infinity;
      // the reference scans the connections of the query's local day and the day before and after
      const localDay = localParts(t0, tz).day;
      let expected = ref.earliestArrival(key(o), key(d), t0, localDay, meta.walkRadiusM, 1.33);
      if (expected > t0 + 86400) expected = Infinity;
      expect({ i, arrival: raptor }).toEqual({ i, arrival: expected });
      if (raptor < Infinity) reached++;
    }
    expect(reached).toBeGreaterThan(60);
  });

  test("a range search's profile equals single-departure searches (40 queries, walking access and egress)", () => {
    const rand = rng(77);
    const { stopLat, stopLon } = svc.tt.meta;
    let checked = 0;
    for (let i = 0; i < 40; i++) {
      const o = served[Math.floor(rand() * served.length)]!, d = served[Math.floor(rand() * served.length)]!;
      if (o === d) continue;
      const t0 = localToUnix(day, 6 * 3600 + Math.floor(rand() * 15 * 3600), tz);
      const access = svc.walkStops(stopLat[o]!, stopLon[o]!, 1609, 1.33, false);
      const egress = svc.walkStops(stopLat[d]!, stopLon[d]!, 1609, 1.33, false);
      const range = searchJourneys(svc.prepared, query(t0, access, egress, 3600), svc.pool).journeys;
      const epoch = t0 - 2 * 86400;
      const single = (dep: number) => {
        const q = query(epoch + dep, access, egress, 0);
        const js = searchJourneys(svc.prepared, q, svc.pool).journeys;
        return js.length ? Math.min(...js.map((j) => q.epochSec - epoch + j.arriveSec)) : Infinity;
      };
      const best = (dep: number) => Math.min(Infinity, ...range.filter((j) => j.departSec >= dep).map((j) => j.arriveSec));
      // every departure inside the window: the search's start and each journey's departure (a journey
      // leaving after the window is only a by-product of the window's last iteration)
      for (const dep of [t0 - epoch, ...range.map((j) => j.departSec).filter((d) => d <= t0 - epoch + 3600)]) {
        expect({ i, dep, arrival: best(dep) }).toEqual({ i, dep, arrival: single(dep) });
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(80);
  });

  test("destination pruning does not change range searches' journeys (80 queries, walking access and egress, arriveBy)", () => {
    const r = compareWithout({ destinationPruning: false }, 4242, 80, (i, rand) => ({ walk: true, windowSec: 3600, maxTransfers: 1 + Math.floor(rand() * 5), arriveBy: i % 3 === 2 }));
    expect(r.journeys).toBeGreaterThan(100);
    expect(r.visitedPruned).toBeLessThan(r.visitedFull);
  });

  test("limiting the last rounds to what can still reach the destination does not change journeys (160 queries, 0-4 transfers, single and range, stop or walk egress, arriveBy)", () => {
    const r = compareWithout({ lookAhead: false }, 777, 160, (i) => ({ walk: i % 2 === 1, windowSec: i % 4 < 2 ? 0 : 3600, maxTransfers: i % 5, arriveBy: i % 7 === 3 }));
    expect(r.journeys).toBeGreaterThan(150);
    expect(r.visitedPruned).toBeLessThan(r.visitedFull * 0.9);
  });

  test("keepEarliest: the plan's n selected journeys equal those of the full range search, also when a shorter first window answers (120 queries, arriveBy)", () => {
    const rand = rng(9090);
    const { stopLat, stopLon } = svc.tt.meta;
    let selected = 0, visitedKeep = 0, visitedFull = 0;
    const windows: Record<string, number> = {};
    const show = (js: { departSec: number; arriveSec: number; rides: number; legs: unknown[] }[]) => js.map((j) => `${j.departSec}-${j.arriveSec}/${j.rides}:${JSON.stringify(j.legs)}`);
    for (let i = 0; i < 120; i++) {
      const o = served[Math.floor(rand() * served.length)]!, d = served[Math.floor(rand() * served.length)]!;
      if (o === d) continue;
      const t0 = localToUnix(day, 5 * 3600 + Math.floor(rand() * 20 * 3600), tz);
      const radius = [400, 1609, 3000][i % 3]!;
      const access = svc.walkStops(stopLat[o]!, stopLon[o]!, radius, 1.33, false);
      const egress = svc.walkStops(stopLat[d]!, stopLon[d]!, radius, 1.33, false);
      const n = 1 + (i % 5);
      const arriveBy = i % 4 === 3;
      const q = { ...query(t0, access, egress, [3600, 7200, 1800][i % 3]!, 1 + Math.floor(rand() * 5)), arriveBy };
      const full = searchJourneys(svc.prepared, q, svc.pool);
      const keep = searchJourneys(svc.prepared, { ...q, keepEarliest: n }, svc.pool);
      expect({ i, n, arriveBy, chosen: show(selectJourneys(keep.journeys, n, arriveBy)) }).toEqual({ i, n, arriveBy, chosen: show(selectJourneys(full.journeys, n, arriveBy)) });
      windows[keep.stats.window ?? "none"] = (windows[keep.stats.window ?? "none"] ?? 0) + 1;
      selected += selectJourneys(full.journeys, n, arriveBy).length;
      visitedKeep += keep.stats.stopsVisited;
      visitedFull += full.stats.stopsVisited;
    }
    expect(selected).toBeGreaterThan(150);
    expect(visitedKeep).toBeLessThan(visitedFull);
    // both ways of answering were exercised: the short first window, and the fall-back to the whole window
    expect(windows.short).toBeGreaterThan(10);
    expect(windows["short+full"]).toBeGreaterThan(3);
  });
});
