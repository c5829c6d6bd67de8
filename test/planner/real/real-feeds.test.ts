/**
 * FEATURE UNDER TEST: plans on real feeds (BART + Caltrain, two feeds joined by walking): every
 * itinerary is feasible ride by ride against the GTFS rows, itinerary sums hold, and RAPTOR's
 * earliest arrival equals an independent connection scan on 200 random stop-to-stop queries, and
 * so do the earliest arrivals at every stop (includeEarliestArrivals), with one ride or unlimited.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { PlanService } from "../../../server/planner/plan-service.ts";
import { parsePlanParams } from "../../../server/planner/plan-params.ts";
import { buildServiceDays, localParts, localToUnix, serviceDayStart } from "../../../server/planner/timetable/calendar.ts";
import { earliestArrivals, searchJourneys } from "../../../server/planner/raptor/index.ts";
import { UNREACHED, type StopIdx } from "../../../server/planner/api.ts";
import { bartCaltrain, rng } from "../support/real-dataset.ts";
import { GtfsReference, dist } from "../support/gtfs-reference.ts";
import { parseScopedId } from "../../../server/planner/ids.ts";
import { planResponse } from "../../../server/planner/otp1/plan.ts";

let svc: PlanService;
let ref: GtfsReference;
let day: number; // a weekday inside both feeds' service
const tz = "America/Los_Angeles";

beforeAll(async () => {
  ({ svc, ref } = await bartCaltrain());
  // the two feeds' service windows do not overlap: plan inside the first one and use its stops
  day = Math.floor((svc.tt.meta.feedStartDay[0]! + svc.tt.meta.feedEndDay[0]!) / 2);
  while ((day + 3) % 7 > 4) day++; // Monday..Friday
  const { core, meta } = svc.tt;
  for (let s = 0; s < core.nStops; s++) {
    const f = meta.stopFeed[s]!;
    if (core.stopRouteStart[s + 1]! > core.stopRouteStart[s]! && day >= meta.feedStartDay[f]! && day <= meta.feedEndDay[f]!) served.push(s);
  }
});
/** stops with service on `day` */
const served: number[] = [];

interface Leg { mode: string; transitLeg: boolean; startTime: number; endTime: number; duration: number; distance: number; tripId?: string; feedId?: string; feedVersionSha1?: string; from: Record<string, unknown>; to: Record<string, unknown>; intermediateStops?: Record<string, unknown>[]; legGeometry: { points: string; length: number } }
interface Itin { duration: number; startTime: number; endTime: number; walkTime: number; transitTime: number; waitingTime: number; transfers: number; legs: Leg[]; distance: number; walkDistance: number; transitDistance: number }

function checkItinerary(it: Itin, walkSpeed: number): void {
  expect(it.duration).toBe((it.endTime - it.startTime) / 1000);
  expect(it.walkTime + it.transitTime + it.waitingTime).toBe(it.duration);
  expect(it.waitingTime).toBeGreaterThanOrEqual(0);
  const transit = it.legs.filter((l) => l.transitLeg);
  expect(it.transfers).toBe(Math.max(0, transit.length - 1));
  expect(it.legs[0]!.startTime).toBe(it.startTime);
  expect(it.legs[it.legs.length - 1]!.endTime).toBe(it.endTime);
  let prevEnd = it.startTime;
  for (const l of it.legs) {
    expect(l.startTime).toBeGreaterThanOrEqual(prevEnd);
    expect(l.duration).toBe((l.endTime - l.startTime) / 1000);
    prevEnd = l.endTime;
    if (!l.transitLeg) {
      // a walk leg leaves at least its walking time
      const d = dist(l.from as { lat: number; lon: number }, l.to as { lat: number; lon: number });
      expect(l.duration).toBeGreaterThanOrEqual(Math.ceil(d / walkSpeed) - 1);
      continue;
    }
    expect(l.feedVersionSha1).toMatch(/^[0-9a-f]{40}$/);
    // ids are feed-scoped (`feedId:id`): the GTFS id after the leg's feed prefix
    const gtfsId = (id: unknown) => parseScopedId(String(id), [l.feedId!]).id;
    expect(parseScopedId(l.tripId!, [l.feedId!]).feed).toBe(l.feedId!);
    const trip = ref.trips.get(`${l.feedVersionSha1}|${gtfsId(l.tripId)}`);
    expect(trip).toBeDefined();
    const from = trip!.times.find((s) => s.seq === l.from.stopSequence)!;
    const to = trip!.times.find((s) => s.seq === l.to.stopSequence)!;
    expect(from.stop).toBe(`${l.feedVersionSha1}|${gtfsId(l.from.stopId)}`);
    expect(to.stop).toBe(`${l.feedVersionSha1}|${gtfsId(l.to.stopId)}`);
    expect(to.seq).toBeGreaterThan(from.seq);
    // the ride runs on a service date whose times match the leg
    const local = localParts(l.startTime / 1000, trip!.tz).day;
    const ok = [local - 1, local].some((d) => ref.runsOn(trip!, d) && serviceDayStart(d, trip!.tz) + from.dep === l.startTime / 1000 && serviceDayStart(d, trip!.tz) + to.arr === l.endTime / 1000);
    expect(ok).toBe(true);
    expect(from.pickup).not.toBe(1);
    expect(to.drop).not.toBe(1);
    expect(l.legGeometry.length).toBeGreaterThanOrEqual(2);
  }
}

describe("planner on BART + Caltrain", () => {
  test("every itinerary of 60 random plans is feasible and its sums hold", () => {
    const rand = rng(7);
    const { stopLat, stopLon } = svc.tt.meta;
    let itineraries = 0;
    for (let i = 0; i < 60; i++) {
      const a = served[Math.floor(rand() * served.length)]!, b = served[Math.floor(rand() * served.length)]!;
      const sec = 5 * 3600 + Math.floor(rand() * 17 * 3600);
      const time = `${Math.floor(sec / 3600)}:${String(Math.floor((sec % 3600) / 60)).padStart(2, "0")}`;
      const res = planResponse(svc.plan(
        parsePlanParams({
          fromPlace: `${stopLat[a]! + 0.001},${stopLon[a]}`,
          toPlace: `${stopLat[b]},${stopLon[b]! - 0.001}`,
          date: new Date(day * 86400_000).toISOString().slice(0, 10),
          time,
          arriveBy: i % 4 === 3 ? "true" : "false",
          showIntermediateStops: "true",
        }),
        Date.now(),
      ));
      expect(res.plan).toBeDefined(); // answered: a plan, not a refused request
      for (const it of (res.plan as unknown as { itineraries: Itin[] }).itineraries) {
        checkItinerary(it, 1.33);
        itineraries++;
      }
    }
    expect(itineraries).toBeGreaterThan(60);
  });

  test("earliest arrival equals an independent connection scan on 200 random queries", () => {
    const rand = rng(42);
    const { meta } = svc.tt;
    const feedSha = (s: number) => meta.feeds[meta.stopFeed[s]!]!.sha1;
    let compared = 0, reached = 0;
    for (let i = 0; i < 200; i++) {
      const o = served[Math.floor(rand() * served.length)]!, d = served[Math.floor(rand() * served.length)]!;
      if (o === d) continue;
      const t0 = localToUnix(day, 4 * 3600 + Math.floor(rand() * 20 * 3600), tz);
      const epoch = t0 - 2 * 86400;
      const res = searchJourneys(
        svc.prepared,
        { epochSec: epoch, timeSec: t0 - epoch, arriveBy: false, windowSec: 0, horizonSec: 86400, access: [{ stop: o as StopIdx, walkSec: 0 }], egress: [{ stop: d as StopIdx, walkSec: 0 }], maxTransfers: 10, walkSpeed: 1.33, days: buildServiceDays(svc.tt, epoch, t0), wheelchair: false },
        svc.pool,
      );
      const raptor = res.journeys.length ? Math.min(...res.journeys.map((j) => epoch + j.arriveSec)) : Infinity;
      let expected = ref.earliestArrival(`${feedSha(o)}|${meta.stopId[o]}`, `${feedSha(d)}|${meta.stopId[d]}`, t0, day, meta.walkRadiusM, 1.33);
      if (expected > t0 + 86400) expected = Infinity;
      expect({ i, o: meta.stopId[o], d: meta.stopId[d], t0, arrival: raptor }).toEqual({ i, o: meta.stopId[o], d: meta.stopId[d], t0, arrival: expected });
      compared++;
      if (raptor < Infinity) reached++;
    }
    expect(compared).toBeGreaterThan(190);
    expect(reached).toBeGreaterThan(150);
  });

  test("earliest arrivals at every stop equal the connection scan's, with one ride and with unlimited rides", () => {
    const rand = rng(7);
    const { meta, core } = svc.tt;
    const key = (s: number) => `${meta.feeds[meta.stopFeed[s]!]!.sha1}|${meta.stopId[s]}`;
    let reachedByWalk = 0;
    for (let i = 0; i < 8; i++) {
      const o = served[Math.floor(rand() * served.length)]!;
      const t0 = localToUnix(day, 6 * 3600 + Math.floor(rand() * 14 * 3600), tz);
      const epoch = t0 - 2 * 86400;
      for (const maxTransfers of [0, 10]) {
        const got = earliestArrivals(
          svc.prepared,
          { epochSec: epoch, timeSec: t0 - epoch, arriveBy: false, windowSec: 0, horizonSec: 86400, access: [{ stop: o as StopIdx, walkSec: 0 }], egress: [], maxTransfers, walkSpeed: 1.33, days: buildServiceDays(svc.tt, epoch, t0), wheelchair: false },
          svc.pool,
        );
        const want = ref.arrivalsEverywhere(key(o), t0, day, meta.walkRadiusM, 1.33, maxTransfers === 0);
        const rideOnly = maxTransfers === 0 ? ref.arrivalsEverywhere(key(o), t0, day, meta.walkRadiusM, 1.33, true, false) : null;
        for (let s = 0; s < core.nStops; s++) {
          let expected = want.get(key(s)) ?? Infinity;
          if (expected > t0 + 86400) expected = Infinity;
          const actual = got[s] === UNREACHED ? Infinity : epoch + got[s]!;
          expect({ i, o: meta.stopId[o], maxTransfers, stop: meta.stopId[s], arrival: actual }).toEqual({ i, o: meta.stopId[o], maxTransfers, stop: meta.stopId[s], arrival: expected });
          if (rideOnly && expected < (rideOnly.get(key(s)) ?? Infinity)) reachedByWalk++;
        }
      }
    }
    // stops whose earliest arrival with one ride is a walk after it (the last round's footpaths)
    expect(reachedByWalk).toBeGreaterThan(0);
  });
});
