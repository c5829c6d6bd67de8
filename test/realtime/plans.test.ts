/**
 * FEATURE UNDER TEST: realtime in plans (issue 20 item 5). The plan service over the real BART
 * timetable with trip updates handed to it through its port (PlannerRealtime: plain data, the
 * planner is the real one): delays shift rides and their legs' realTime/departureDelay/
 * arrivalDelay, canceled trips and skipped stops are not boarded, rejected updates leave the
 * schedule, arriveBy searches (the mirrored core) see the same realtime times, leg alerts follow
 * OTP1. Then the real server with the real ingest: BART's recorded trip updates compared stop by
 * stop with the decoded protobuf, BART's alert on every leg, and a plan before and after a
 * cancellation published by import-rt.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import GtfsRealtimeBindings from "gtfs-realtime-bindings";
import checkPropTypes from "prop-types/checkPropTypes";
import * as types4 from "core-utils-4/lib/types.js";
import { cpSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { readManifest } from "../../pipeline/schema/manifest.ts";
import { runImportRt } from "../../pipeline/realtime/cli.ts";
import { parsePlanParams } from "../../server/planner/plan-params.ts";
import { PlanService } from "../../server/planner/plan-service.ts";
import { NO_ALERTS, type LegAlertLookup, type PlanAlert, type PlannerRealtime, type TripUpdateSnapshot } from "../../server/planner/realtime.ts";
import { RealtimeHops as Hops } from "../../server/planner/raptor/heuristic.ts";
import { loadTimetableFile } from "../../server/planner/timetable/arrow-loader.ts";
import { serviceDayStart } from "../../server/planner/timetable/calendar.ts";
import { arrAt, depAt, type Timetable } from "../../server/planner/timetable/types.ts";
import type { StopTimeUpdate, TripUpdate } from "../../server/trip-updates.ts";
import { importedDataset, tempDir } from "../support/dataset.ts";
import { Clock, encodeFeed, feedIdOf, pbFile, rtFile, rtServer, type RtServer } from "./support.ts";
import { planResponse } from "../../server/planner/otp1/plan.ts";

type Json = any;
const TZ = "America/Los_Angeles";
// 2019-08-07, a Wednesday of bart.zip's WKDY service (the day of bart-trip-updates-20190807.pb)
const DAY = 18115;
const DATE = "2019-08-07";
const START_DATE = "20190807";
const A24TH = "37.752470,-122.418143"; // 24th St. Mission
const EMBR = "37.792874,-122.397020"; // Embarcadero
const WOAK = "37.804872,-122.295140"; // West Oakland

let tt: Timetable;
let feed: string;

beforeAll(async () => {
  const dir = await importedDataset("rt-plans-bart", ["bart"]);
  const m = readManifest(dir);
  tt = loadTimetableFile(join(dir, m.timetable!.path));
  feed = m.feeds[0]!.onestop_id;
});

/** A plan service whose port serves `updates` (trip_id -> update) and `alerts`. */
function service(updates: Record<string, Partial<TripUpdate>>, alerts: LegAlertLookup = NO_ALERTS, key = "k1"): PlanService {
  const byTrip = new Map<string, TripUpdate>();
  for (const [id, u] of Object.entries(updates)) byTrip.set(id, { schedule_relationship: "SCHEDULED", start_date: START_DATE, delay: null, header_timestamp: null, stops: [], ...u });
  const snap: TripUpdateSnapshot = { feed: feed.toLowerCase(), key, byTrip };
  const port: PlannerRealtime = { tripUpdates: () => (byTrip.size ? [snap] : []), alerts: () => alerts };
  return new PlanService(tt, port);
}

const NOW = Date.UTC(2019, 7, 7, 17, 0, 0); // 10:00 PDT
const plan = (svc: PlanService, q: Record<string, string>): Json => planResponse(svc.plan(parsePlanParams({ date: DATE, numItineraries: "3", ...q }), NOW));
const rides = (body: Json) => (body.plan?.itineraries ?? []).flatMap((it: Json) => it.legs.filter((l: Json) => l.transitLeg));
const bare = (scoped: string) => scoped.slice(scoped.indexOf(":") + 1);
const su = (x: Partial<StopTimeUpdate>): StopTimeUpdate => ({ stop_sequence: null, stop_id: null, arrival_time: null, arrival_delay: null, departure_time: null, departure_delay: null, schedule_relationship: null, ...x });

/** Every trip of the timetable running on DAY (its GTFS trip_ids). */
function tripsOfDay(): string[] {
  const { serviceDay0, serviceStart, serviceDays, tripId } = tt.meta;
  const out: string[] = [];
  for (let t = 0; t < tt.core.nTrips; t++) {
    const s = tt.core.tripService[t]!;
    const at = serviceStart[s]! + DAY - serviceDay0[s]!;
    if (at >= serviceStart[s]! && at < serviceStart[s + 1]! && serviceDays[at] === 1) out.push(tripId[t]!);
  }
  return out;
}

/** A trip's scheduled stop times (stop_id, arrival, departure in service-day seconds). */
function scheduleOf(id: string): { stop: string; arr: number; dep: number }[] {
  const t = tt.meta.tripId.indexOf(id);
  const c = tt.core;
  let r = 0;
  while (c.routeTripStart[r + 1]! <= t) r++;
  const s0 = c.routeStopStart[r]!, nS = c.routeStopStart[r + 1]! - s0;
  const base = c.routeTime0[r]! + (t - c.routeTripStart[r]!) * nS;
  return Array.from({ length: nS }, (_, j) => ({ stop: tt.meta.stopId[c.routeStops[s0 + j]!]!, arr: arrAt(c.stopTimes, base + j), dep: depAt(c.stopTimes, base + j) }));
}

const legKey = (l: Json, shift = 0) => [bare(l.tripId), l.from.stopId, l.to.stopId, l.startTime + shift, l.endTime + shift];

describe("trip updates in plans (BART, the real planner, updates through its port)", () => {
  test("every trip of the day 10 minutes late: the plan is the scheduled plan 10 minutes later, with the delays on its legs", () => {
    const all: Record<string, Partial<TripUpdate>> = {};
    for (const id of tripsOfDay()) all[id] = { delay: 600 };
    const late = service(all);
    const sched = service({});
    for (const [from, to] of [[A24TH, EMBR], [A24TH, WOAK], [WOAK, A24TH]]) {
      const a = plan(sched, { fromPlace: from!, toPlace: to!, time: "10:00" });
      const b = plan(late, { fromPlace: from!, toPlace: to!, time: "10:10" });
      expect(rides(a).length).toBeGreaterThan(0);
      expect(rides(b).map((l: Json) => legKey(l))).toEqual(rides(a).map((l: Json) => legKey(l, 600_000)));
      for (const l of rides(b)) expect([l.realTime, l.departureDelay, l.arrivalDelay]).toEqual([true, 600, 600]);
      for (const l of rides(a)) expect([l.realTime, l.departureDelay, l.arrivalDelay]).toEqual([false, 0, 0]);
      // arriveBy runs on the mirrored core: the same shift
      const ab = plan(sched, { fromPlace: from!, toPlace: to!, time: "12:00", arriveBy: "true" });
      const bb = plan(late, { fromPlace: from!, toPlace: to!, time: "12:10", arriveBy: "true" });
      expect(rides(ab).length).toBeGreaterThan(0);
      expect(rides(bb).map((l: Json) => legKey(l))).toEqual(rides(ab).map((l: Json) => legKey(l, 600_000)));
      // ignoreRealtimeUpdates: the schedule
      const ign = plan(late, { fromPlace: from!, toPlace: to!, time: "10:00", ignoreRealtimeUpdates: "true" });
      expect(rides(ign).map((l: Json) => legKey(l))).toEqual(rides(a).map((l: Json) => legKey(l)));
    }
  });

  test("a delay given at one stop propagates down the trip (intermediate stops too), stops before it keep the schedule", () => {
    const sched = service({});
    const first = rides(plan(sched, { fromPlace: A24TH, toPlace: WOAK, time: "10:00", showIntermediateStops: "true" }))[0];
    const trip = bare(first.tripId);
    const stops = scheduleOf(trip);
    const board = stops.findIndex((s) => s.stop === bare(first.from.stopId));
    // 4 minutes late from the stop before the boarding stop on
    const svc = service({ [trip]: { stops: [su({ stop_id: stops[board - 1]!.stop, arrival_delay: 240 })] } });
    const body = plan(svc, { fromPlace: A24TH, toPlace: WOAK, time: "10:00", showIntermediateStops: "true", numItineraries: "5" });
    const leg = rides(body).find((l: Json) => bare(l.tripId) === trip);
    expect(leg).toBeDefined();
    expect([leg.realTime, leg.departureDelay, leg.arrivalDelay]).toEqual([true, 240, 240]);
    expect(leg.startTime).toBe(first.startTime + 240_000);
    expect(leg.endTime).toBe(first.endTime + 240_000);
    expect(leg.intermediateStops.map((p: Json) => p.arrival)).toEqual(first.intermediateStops.map((p: Json) => p.arrival + 240_000));
  });

  test("a canceled trip is not boarded that day, and boarded again on another day", () => {
    const sched = service({});
    const first = rides(plan(sched, { fromPlace: A24TH, toPlace: EMBR, time: "10:00" }))[0];
    const trip = bare(first.tripId);
    const svc = service({ [trip]: { schedule_relationship: "CANCELED" } });
    const after = rides(plan(svc, { fromPlace: A24TH, toPlace: EMBR, time: "10:00" }));
    expect(after.length).toBeGreaterThan(0);
    expect(after.map((l: Json) => bare(l.tripId))).not.toContain(trip);
    // the day after (a Thursday, the same WKDY trips) it runs
    const thu = planResponse(svc.plan(parsePlanParams({ fromPlace: A24TH, toPlace: EMBR, date: "2019-08-08", time: "10:00", numItineraries: "3" }), NOW)) as Json;
    expect(rides(thu).map((l: Json) => bare(l.tripId))).toContain(trip);
    expect((svc.realtimeHealth().trip_updates as Json).canceled).toBe(1);
  });

  test("a skipped stop is neither boarded nor alighted at; the trip still runs past it", () => {
    const sched = service({});
    const first = rides(plan(sched, { fromPlace: A24TH, toPlace: EMBR, time: "10:00" }))[0];
    const trip = bare(first.tripId);
    const svc = service({ [trip]: { stops: [su({ stop_id: bare(first.from.stopId), schedule_relationship: "SKIPPED" })] } });
    const after = rides(plan(svc, { fromPlace: A24TH, toPlace: EMBR, time: "10:00", numItineraries: "5" }));
    expect(after.length).toBeGreaterThan(0);
    for (const l of after) if (bare(l.tripId) === trip) expect(l.from.stopId).not.toBe(first.from.stopId);
    // skipping the alighting stop instead: nobody gets off that trip there
    const svc2 = service({ [trip]: { stops: [su({ stop_id: bare(first.to.stopId), schedule_relationship: "SKIPPED" })] } }, NO_ALERTS, "k2");
    for (const l of rides(plan(svc2, { fromPlace: A24TH, toPlace: EMBR, time: "10:00", numItineraries: "5" }))) {
      if (bare(l.tripId) === trip) expect(l.to.stopId).not.toBe(first.to.stopId);
    }
  });

  test("an update whose times run backwards is rejected whole: the trip keeps its schedule, and /health counts it", () => {
    const sched = service({});
    const first = rides(plan(sched, { fromPlace: A24TH, toPlace: EMBR, time: "10:00" }))[0];
    const trip = bare(first.tripId);
    const stops = scheduleOf(trip);
    const dayStart = serviceDayStart(DAY, TZ);
    // arrives at the third stop an hour before it leaves the second
    const svc = service({ [trip]: { stops: [su({ stop_id: stops[1]!.stop, departure_time: dayStart + stops[1]!.dep }), su({ stop_id: stops[2]!.stop, arrival_time: dayStart + stops[1]!.dep - 3600 })] } });
    const leg = rides(plan(svc, { fromPlace: A24TH, toPlace: EMBR, time: "10:00" }))[0];
    expect(legKey(leg)).toEqual(legKey(first));
    expect(leg.realTime).toBe(false);
    const h = svc.realtimeHealth() as Json;
    expect(h.trip_updates.rejected).toBe(1);
    expect(h.last_rejection).toContain(trip);
    // a stop the trip does not serve
    const svc2 = service({ [trip]: { stops: [su({ stop_id: "NOPE", arrival_delay: 60 })] } }, NO_ALERTS, "k3");
    plan(svc2, { fromPlace: A24TH, toPlace: EMBR, time: "10:00" });
    expect((svc2.realtimeHealth() as Json).trip_updates.rejected).toBe(1);
    // ADDED and unknown trips are counted, not planned on
    const svc3 = service({ NOPE1: { schedule_relationship: "ADDED" }, NOPE2: {} }, NO_ALERTS, "k4");
    plan(svc3, { fromPlace: A24TH, toPlace: EMBR, time: "10:00" });
    expect((svc3.realtimeHealth() as Json).trip_updates).toMatchObject({ not_scheduled: 1, unknown_trip: 1, updated: 0 });
  });

  test("a trip catching up (a ride faster than any scheduled one) is found, and the destination bounds take the faster ride in", () => {
    const sched = service({});
    const first = rides(plan(sched, { fromPlace: A24TH, toPlace: WOAK, time: "10:00" }))[0];
    const trip = bare(first.tripId);
    const stops = scheduleOf(trip);
    const b = stops.findIndex((s) => s.stop === bare(first.from.stopId));
    const a = stops.findIndex((s) => s.stop === bare(first.to.stopId));
    expect(a).toBeGreaterThan(b + 1);
    const dayStart = serviceDayStart(DAY, TZ);
    // leaves the boarding stop 5 minutes late and reaches the next stop 1 s later: faster than any
    // scheduled ride there; the delay after it carries on
    const hop = stops[b + 1]!.arr - stops[b]!.dep;
    const svc = service({ [trip]: { stops: [su({ stop_id: stops[b]!.stop, departure_delay: 300 }), su({ stop_id: stops[b + 1]!.stop, arrival_time: dayStart + stops[b]!.dep + 300 + 1 })] } });
    const leg = rides(plan(svc, { fromPlace: A24TH, toPlace: WOAK, time: "10:00" })).find((l: Json) => bare(l.tripId) === trip);
    expect(leg).toBeDefined();
    expect([leg.realTime, leg.departureDelay, leg.arrivalDelay]).toEqual([true, 300, 300 - hop + 1]);
    // the bounds' graph: the hop into the alighting stop's predecessor chain lowered (forward and mirrored)
    const applied = svc.appliedUpdates(NOW);
    expect(applied.fasterHops).not.toBeNull();
    const fh = applied.fasterHops!;
    const hops = svc.prepared.forward.hops;
    const lowered = new Hops(hops, false).of(fh);
    for (let i = 0; i < fh.sec.length; i++) {
      const q = fh.to[i]!, p = fh.from[i]!;
      let found = false;
      for (let y = hops.hopStart[q]!; y < hops.hopStart[q + 1]!; y++) {
        if (hops.hopFrom[y] !== p) continue;
        found = true;
        expect(lowered.hopSec[y]).toBe(Math.min(hops.hopSec[y]!, Math.max(0, fh.sec[i]!)));
      }
      expect(found).toBe(true);
    }
    const back = svc.prepared.backward();
    const mirrored = back.rtHops.of(fh);
    for (let i = 0; i < fh.sec.length; i++) {
      const q = fh.from[i]!, p = fh.to[i]!;
      let found = false;
      for (let y = back.hops.hopStart[q]!; y < back.hops.hopStart[q + 1]!; y++) if (back.hops.hopFrom[y] === p) found = mirrored.hopSec[y]! <= Math.max(0, fh.sec[i]!);
      expect(found).toBe(true);
    }
  });

  test("leg alerts (OTP1 LocalizedAlert): on the trip, route, agency and the boarding and alighting stops, active during the leg unless disableAlertFiltering", () => {
    const first = rides(plan(service({}), { fromPlace: A24TH, toPlace: EMBR, time: "10:00" }))[0];
    const trip = bare(first.tripId);
    const dayStart = serviceDayStart(DAY, TZ);
    const mk = (name: string, periods: PlanAlert["periods"] = []): PlanAlert => ({
      header: [{ language: "en", text: `${name} header` }, { language: "es", text: `${name} encabezado` }],
      description: [{ language: "en", text: `${name} description` }],
      url: null,
      periods,
    });
    const onTrip = mk("trip");
    const onRoute = mk("route", [{ start: dayStart + 8 * 3600, end: dayStart + 11 * 3600 }]);
    const onStop = mk("stop", [{ start: dayStart + 6 * 3600, end: null }]);
    const later = mk("later", [{ start: dayStart + 20 * 3600, end: dayStart + 21 * 3600 }]);
    const other = mk("other");
    const lookup: LegAlertLookup = {
      trip: (f, id) => (f.toLowerCase() === feed.toLowerCase() && id === trip ? [onTrip, later] : []),
      route: (_f, id) => (id === bare(first.routeId) ? [onRoute] : []),
      agency: () => [],
      stop: (_f, id) => (id === bare(first.from.stopId) ? [onStop, onTrip] : id === "NOPE" ? [other] : []),
    };
    const svc = service({}, lookup);
    const leg = rides(plan(svc, { fromPlace: A24TH, toPlace: EMBR, time: "10:00" }))[0];
    expect(bare(leg.tripId)).toBe(trip);
    expect(leg.alerts).toEqual([
      { alertHeaderText: "trip header", alertDescriptionText: "trip description" },
      { alertHeaderText: "route header", alertDescriptionText: "route description", effectiveStartDate: (dayStart + 8 * 3600) * 1000, effectiveEndDate: (dayStart + 11 * 3600) * 1000 },
      { alertHeaderText: "stop header", alertDescriptionText: "stop description", effectiveStartDate: (dayStart + 6 * 3600) * 1000 },
    ]);
    const all = rides(plan(svc, { fromPlace: A24TH, toPlace: EMBR, time: "10:00", disableAlertFiltering: "true", locale: "es" }))[0];
    expect(all.alerts.map((a: Json) => a.alertHeaderText)).toEqual(["trip encabezado", "later encabezado", "route encabezado", "stop encabezado"]);
    // walk legs carry none; a leg without alerts has no `alerts` (OTP1 leaves it out)
    const body = plan(service({}), { fromPlace: A24TH, toPlace: EMBR, time: "10:00" });
    for (const it of body.plan.itineraries) for (const l of it.legs) expect("alerts" in l).toBe(false);
  });
});

// ---- the real server with the real ingest

const { transit_realtime: rtb } = GtfsRealtimeBindings;
const HEADER_0807 = 1565199921; // bart-trip-updates-20190807.pb: 2019-08-07T17:45:21Z

describe("BART's recorded trip updates and alert through import-rt and the server", () => {
  let data: string;
  let bart: string;
  let s: RtServer;
  const clock = new Clock((HEADER_0807 + 60) * 1000);
  const origLog = console.log;
  const importRt = async (...files: string[]) => {
    console.log = () => {};
    try {
      // (an empty feed names its kind)
      const kind = files.some((f) => f.endsWith("empty.pb")) ? ["--kind", "trip_updates"] : [];
      expect(await runImportRt(["--data", data, "--feed-id", bart, "--retention-days", "0", ...kind, ...files])).toBe(0);
    } finally {
      console.log = origLog;
    }
    await s?.refreshRealtime();
  };

  beforeAll(async () => {
    // a copy of a dataset with its timetable (the realtime files are this test's own)
    data = tempDir("interchange-rt-plans-");
    cpSync(await importedDataset("rt-plans-bart", ["bart"]), data, { recursive: true });
    bart = feedIdOf(data, "bart");
    s = await rtServer(data, clock, 3600);
    await importRt(rtFile("bart-trip-updates-20190807.pb"), rtFile("bart-alerts.pb"));
  });
  afterAll(() => s?.stop());

  const planAt = (q: string) => s.json(`/api/v2/routing/otp/plan?date=${DATE}&numItineraries=3&${q}`);

  test("legs on updated trips carry the recorded times: delays equal to the protobuf's times at the boarding and alighting stops", async () => {
    const msg = rtb.FeedMessage.toObject(rtb.FeedMessage.decode(readFileSync(rtFile("bart-trip-updates-20190807.pb"))), { longs: Number, enums: String }) as Json;
    const updates = new Map<string, Json[]>();
    for (const e of msg.entity) if (e.tripUpdate) updates.set(e.tripUpdate.trip.tripId, e.tripUpdate.stopTimeUpdate ?? []);
    const dayStart = serviceDayStart(DAY, TZ);
    let compared = 0;
    for (const [from, to] of [[A24TH, EMBR], [EMBR, A24TH], [A24TH, WOAK], [WOAK, EMBR], [EMBR, WOAK]]) {
      const body = await planAt(`fromPlace=${from}&toPlace=${to}&time=10:50`);
      for (const l of rides(body)) {
        const u = updates.get(bare(l.tripId));
        const sched = scheduleOf(bare(l.tripId));
        const b = sched.find((x) => x.stop === bare(l.from.stopId))!;
        const a = sched.find((x) => x.stop === bare(l.to.stopId))!;
        const ub = u?.find((x) => x.stopId === bare(l.from.stopId));
        const ua = u?.find((x) => x.stopId === bare(l.to.stopId));
        if (!u || !ub?.departure?.time || !ua?.arrival?.time) continue;
        expect(l.realTime).toBe(true);
        expect(l.departureDelay).toBe(ub.departure.time - dayStart - b.dep);
        expect(l.arrivalDelay).toBe(ua.arrival.time - dayStart - a.arr);
        expect(l.startTime).toBe(ub.departure.time * 1000);
        expect(l.endTime).toBe(ua.arrival.time * 1000);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(3);
    const health = await s.json("/health");
    expect(health.features.planner.realtime.trip_updates.updated).toBeGreaterThan(50);
  });

  test("OTP-UI core-utils 4 PropTypes accept the itineraries with realtime legs and alerts", async () => {
    const body = await planAt(`fromPlace=${A24TH}&toPlace=${EMBR}&time=10:50&showIntermediateStops=true`);
    const warnings: string[] = [];
    const [err, warn] = [console.error, console.warn];
    console.error = console.warn = (...a: unknown[]) => void warnings.push(a.map(String).join(" "));
    try {
      let i = 0;
      for (const it of body.plan.itineraries) {
        checkPropTypes({ value: types4.itineraryType }, { value: it }, "prop", `RtItinerary${i++}`);
        for (const l of it.legs) checkPropTypes({ value: types4.legType }, { value: l }, "prop", `RtLeg${i++}`);
      }
    } finally {
      [console.error, console.warn] = [err, warn];
    }
    expect(warnings).toEqual([]);
    const legs = rides(body);
    expect(legs.some((l: Json) => l.realTime === true && l.alerts?.length === 1)).toBe(true);
  });

  test("BART's agency-wide alert is on every ride leg, not on walk legs", async () => {
    const body = await planAt(`fromPlace=${A24TH}&toPlace=${EMBR}&time=10:50`);
    let n = 0;
    for (const it of body.plan.itineraries) {
      for (const l of it.legs) {
        if (!l.transitLeg) expect(l.alerts).toBeUndefined();
        else {
          expect(l.alerts).toHaveLength(1);
          expect(l.alerts[0].alertHeaderText).toStartWith("There is a major delay at Montgomery St.");
          n++;
        }
      }
    }
    expect(n).toBeGreaterThan(0);
  });

  test("a plan before and after a cancellation published by import-rt, and after the cancellation is withdrawn", async () => {
    const before = rides(await planAt(`fromPlace=${A24TH}&toPlace=${EMBR}&time=11:30`));
    const trip = bare(before[0].tripId);
    clock.setS(HEADER_0807 + 120);
    await importRt(pbFile(encodeFeed(HEADER_0807 + 100, [{ id: "c1", tripUpdate: { trip: { tripId: trip, startDate: START_DATE, scheduleRelationship: "CANCELED" } } }]), "cancel.pb"));
    const after = rides(await planAt(`fromPlace=${A24TH}&toPlace=${EMBR}&time=11:30`));
    expect(after.length).toBeGreaterThan(0);
    expect(after.map((l: Json) => bare(l.tripId))).not.toContain(trip);
    expect((await s.json("/health")).features.planner.realtime.trip_updates.canceled).toBe(1);
    clock.setS(HEADER_0807 + 180);
    await importRt(pbFile(encodeFeed(HEADER_0807 + 160, []), "empty.pb"));
    const again = rides(await planAt(`fromPlace=${A24TH}&toPlace=${EMBR}&time=11:30`));
    expect(again.map((l: Json) => bare(l.tripId))).toContain(trip);
  });
});
