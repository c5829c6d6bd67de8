/**
 * Trip updates applied snapshot by snapshot (server/planner/realtime.ts applyTripUpdates with its
 * per-snapshot map): on a real timetable of two feeds (BART and Caltrain), a feed's new snapshot
 * re-applies only that feed's updates, and the result equals applying every snapshot afresh, in
 * order: the same trips per day, counts, last rejection and faster rides.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { importedDataset } from "../support/dataset.ts";
import { readManifest } from "../../pipeline/schema/manifest.ts";
import { loadTimetableFile } from "../../server/planner/timetable/arrow-loader.ts";
import { applyTripUpdates, tripIndex, type AppliedUpdates, type TripUpdateSnapshot } from "../../server/planner/realtime.ts";
import type { Timetable } from "../../server/planner/timetable/types.ts";
import type { TripUpdate } from "../../server/trip-updates.ts";
import { PlanService } from "../../server/planner/plan-service.ts";
import { routeTimes } from "../../server/planner/raptor/day-view.ts";

async function timetable(): Promise<Timetable> {
  const dir = await importedDataset("planner-rt-apply", ["bart", "caltrain"]);
  return loadTimetableFile(join(dir, readManifest(dir).timetable!.path));
}

/** The stop sequences of trip t (its route's positions). */
function sequences(tt: Timetable, t: number): number[] {
  const { core, meta } = tt;
  let r = 0;
  while (core.routeTripStart[r + 1]! <= t) r++;
  return Array.from(meta.routeStopSequence.subarray(core.routeStopStart[r]!, core.routeStopStart[r + 1]!));
}

/**
 * A snapshot of feed `f`'s first `n` trips (every 7th canceled, every 5th with a stop that is not
 * on the trip: rejected, the others late by `delay` s; one that runs a hop far faster than its schedule) with no start_date: their day is the one nearest `stampS`.
 */
function snapshot(tt: Timetable, f: number, n: number, delay: number, stampS: number, key: string): TripUpdateSnapshot {
  const feed = tt.meta.feeds[f]!.onestopId.toLowerCase();
  const byTrip = new Map<string, TripUpdate>();
  const { meta, core } = tt;
  for (let t = 0, k = 0; t < core.nTrips && k < n; t++) {
    const ag = meta.agencies[meta.gtfsRoutes[meta.tripGtfsRoute[t]!]!.agency];
    if (ag?.feed !== f || byTrip.has(meta.tripId[t]!)) continue;
    k++;
    const seqs = sequences(tt, t);
    const stops =
      k % 5 === 0
        ? [{ stop_sequence: 999_999, stop_id: null, arrival_time: null, arrival_delay: delay, departure_time: null, departure_delay: delay, schedule_relationship: null }]
        : seqs.map((s, j) => ({
            stop_sequence: s,
            stop_id: null,
            arrival_time: null,
            // the first trip's second stop reached a minute early: a ride faster than scheduled
            arrival_delay: k === 1 && j === 1 ? -60 : delay,
            departure_time: null,
            departure_delay: k === 1 && j === 1 ? -60 : delay,
            schedule_relationship: null,
          }));
    byTrip.set(meta.tripId[t]!, { schedule_relationship: k % 7 === 0 ? "CANCELED" : "SCHEDULED", start_date: null, delay: null, header_timestamp: stampS, stops });
  }
  return { feed, key, byTrip };
}

/** An AppliedUpdates as plain data (maps in their order, typed arrays as arrays). */
function plain(a: AppliedUpdates) {
  return {
    key: a.key,
    byDay: [...a.byDay].map(([day, trips]) => [day, [...trips].map(([t, u]) => [t, u.stopTimes ? Array.from(u.stopTimes) : null])]),
    counts: a.counts,
    lastRejection: a.lastRejection,
    fasterHops: a.fasterHops && { key: a.fasterHops.key, from: Array.from(a.fasterHops.from), to: Array.from(a.fasterHops.to), sec: Array.from(a.fasterHops.sec) },
  };
}

describe("trip updates applied snapshot by snapshot", () => {
  test("a feed's new snapshot re-applies that feed only, with the same result as applying all afresh", async () => {
    const tt = await timetable();
    expect(tt.meta.feeds.length).toBe(2);
    const ix = tripIndex(tt);
    // a Wednesday noon (Pacific) in each feed's service period (BART's 2019-2020, Caltrain's 2023-2024)
    const stampA = Date.UTC(2019, 5, 12, 19) / 1000, stampB = Date.UTC(2024, 0, 17, 20) / 1000;
    const a1 = snapshot(tt, 0, 60, 120, stampA, "a1");
    const b1 = snapshot(tt, 1, 40, 300, stampB, "b1");
    const b2 = snapshot(tt, 1, 40, 420, stampB, "b2");
    const now = stampB * 1000;

    const cache = new Map<string, AppliedUpdates>();
    const first = applyTripUpdates(tt, ix, [a1, b1], now, cache);
    expect(plain(first)).toEqual(plain(applyTripUpdates(tt, ix, [a1, b1], now)));
    const applied = first.counts.updated + first.counts.canceled;
    expect(applied).toBeGreaterThan(30); // the days chosen run most of these trips
    expect(first.counts.rejected).toBeGreaterThan(0);
    expect(first.fasterHops?.from.length ?? 0).toBeGreaterThan(0);
    expect([...cache.keys()].sort()).toEqual([`${a1.feed}=a1`, `${b1.feed}=b1`]);
    const partA = cache.get(`${a1.feed}=a1`);

    // feed B's next snapshot: A's part is reused as it is, B's replaced, the result as if afresh
    const second = applyTripUpdates(tt, ix, [a1, b2], now, cache);
    expect(cache.get(`${a1.feed}=a1`)).toBe(partA!);
    expect([...cache.keys()].sort()).toEqual([`${a1.feed}=a1`, `${b2.feed}=b2`]);
    expect(plain(second)).toEqual(plain(applyTripUpdates(tt, ix, [a1, b2], now)));
    expect(plain(second)).not.toEqual(plain(first));

    // one feed left: its part alone, under the new key
    const third = applyTripUpdates(tt, ix, [b2], now, cache);
    expect([...cache.keys()]).toEqual([`${b2.feed}=b2`]);
    expect(plain(third)).toEqual(plain(applyTripUpdates(tt, ix, [b2], now)));
    expect(third.key).toBe(`${b2.feed}=b2`);
  });

  test("a realtime day view shares the scheduled view's stop times and holds only the changed routes' own: every route's trips and times as rebuilt from the updates", async () => {
    const tt = await timetable();
    const svc = new PlanService(tt);
    const stampA = Date.UTC(2019, 5, 12, 19) / 1000;
    const applied = applyTripUpdates(tt, tripIndex(tt), [snapshot(tt, 0, 60, 120, stampA, "a1")], stampA * 1000);
    expect(applied.counts.canceled).toBeGreaterThan(0);
    const epochSec = stampA - (svc.dayDeltas.length - 1) * 86400;
    const days = svc.searchDays(epochSec, stampA, applied);
    const { core } = tt;
    const pc = svc.prepared.forward;
    let checked = 0;
    for (let v = 0; v < days.nSlots * core.nTz; v++) {
      const trips = days.realtime?.trips[v];
      if (!trips || trips.size === 0) continue;
      const tz = v % core.nTz;
      const scheduled = pc.days.get(tz, days.active, v * core.nServices, false);
      const rt = pc.days.get(tz, days.active, v * core.nServices, false, { key: days.realtime!.key[v]!, trips });
      expect(rt.times).toBe(scheduled.times); // shared, not copied
      expect(rt.extraRoutes!.reduce((a, x) => a + x, 0)).toBeGreaterThan(0);
      for (let r = 0; r < core.nRoutes; r++) {
        if (core.routeTz[r] !== tz) continue;
        const nS = core.routeStopStart[r + 1]! - core.routeStopStart[r]!;
        // expected: the scheduled view's active trips, canceled ones left out, updated ones with their times, by first departure (stable)
        const want: { trip: number; words: number[] }[] = [];
        for (let c = scheduled.tripStart[r]!; c < scheduled.tripStart[r + 1]!; c++) {
          const rel = scheduled.trips[c]!;
          const u = trips.get(core.routeTripStart[r]! + rel);
          if (u && u.stopTimes === null) continue;
          const at = 2 * (scheduled.time0[r]! + (c - scheduled.tripStart[r]!) * nS);
          want.push({ trip: rel, words: Array.from(u ? u.stopTimes!.subarray(0, 2 * nS) : scheduled.times.subarray(at, at + 2 * nS)) });
        }
        want.sort((a, b) => (a.words[1]! >> 2) - (b.words[1]! >> 2));
        const got: { trip: number; words: number[] }[] = [];
        const times = routeTimes(rt, r);
        for (let c = rt.tripStart[r]!; c < rt.tripStart[r + 1]!; c++) {
          const at = 2 * (rt.time0[r]! + (c - rt.tripStart[r]!) * nS);
          got.push({ trip: rt.trips[c]!, words: Array.from(times.subarray(at, at + 2 * nS)) });
        }
        expect(got).toEqual(want);
        checked += want.length;
      }
    }
    expect(checked).toBeGreaterThan(100);
  });
});
