/**
 * FEATURE UNDER TEST: OTP1's plan parameters (issue 18): every one honoured, clamped where OTP1
 * clamps (reported), or refused with a 400 naming it. Parsing (plan-params.ts), the criteria in the
 * search (criteria.ts: route, trip and stop masks, slacks, maxHours, generalized cost) on real feeds
 * (BART 2023 + Caltrain, TriMet), every ride checked against the GTFS rows, and the HTTP answers.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { AppError } from "../../server/errors.ts";
import { COST_PARAMETERS, LIMITS, OTP1_COSTS, PLAN_PARAMS, parsePlanParams } from "../../server/planner/plan-params.ts";
import { hasCriteria, searchCriteria } from "../../server/planner/criteria.ts";
import { parseScopedId } from "../../server/planner/ids.ts";
import { PlanService } from "../../server/planner/plan-service.ts";
import { loadTimetableFile } from "../../server/planner/timetable/arrow-loader.ts";
import { buildServiceDays, localParts, serviceDayStart } from "../../server/planner/timetable/calendar.ts";
import { journeyCost, raptorRequest, searchJourneys } from "../../server/planner/raptor/index.ts";
import { DEFAULT_RAPTOR_CONFIG, type CostModel, type Journey, type SearchQuery } from "../../server/planner/api.ts";
import { readManifest } from "../../pipeline/schema/manifest.ts";
import { importedDataset } from "../support/dataset.ts";
import { bartCaltrain, rng } from "./support/real-dataset.ts";
import type { GtfsReference } from "./support/gtfs-reference.ts";
import { startServer, type RunningServer } from "../../server/main.ts";
import { serverConfigFrom } from "../../server/config.ts";
import { planResponse } from "../../server/planner/otp1/plan.ts";

const BASE = { fromPlace: "37.87,-122.27", toPlace: "37.79,-122.40" };
/** The INVALID_PARAMETER a parse throws: the parameter it names and its message. */
function refusal(q: Record<string, string>): { parameter: unknown; message: string } | null {
  try {
    parsePlanParams(q);
    return null;
  } catch (e) {
    if (!(e instanceof AppError) || e.code !== "INVALID_PARAMETER") throw e;
    return { parameter: e.details.parameter, message: e.message };
  }
}

describe("OTP1 plan parameters: parsing", () => {
  test("every parameter of OTP1's RoutingResource (dev-1.x) is read", () => {
    // api/common/RoutingResource.java, dev-1.x (plus walkOnStreetReluctance and carParkCarLegWeight of
    // earlier 1.x releases, and useUnpreferredRoutesPenalty, a RoutingRequest field)
    const otp1 = [
      "fromPlace", "toPlace", "intermediatePlaces", "date", "time", "arriveBy", "wheelchair", "maxWalkDistance", "maxPreTransitTime",
      "walkReluctance", "walkOnStreetReluctance", "waitReluctance", "waitAtBeginningFactor", "walkSpeed", "bikeSpeed", "bikeSwitchTime",
      "bikeSwitchCost", "triangleSafetyFactor", "triangleSlopeFactor", "triangleTimeFactor", "optimize", "mode", "minTransferTime",
      "numItineraries", "preferredRoutes", "otherThanPreferredRoutesPenalty", "preferredAgencies", "unpreferredRoutes", "unpreferredAgencies",
      "useUnpreferredRoutesPenalty", "showIntermediateStops", "walkBoardCost", "bikeBoardCost", "bannedRoutes", "whiteListedRoutes",
      "bannedAgencies", "whiteListedAgencies", "bannedTrips", "bannedStops", "bannedStopsHard", "transferPenalty",
      "nonpreferredTransferPenalty", "maxTransfers", "batch", "startTransitStopId", "startTransitTripId", "clampInitialWait",
      "reverseOptimizeOnTheFly", "boardSlack", "alightSlack", "locale", "ignoreRealtimeUpdates", "disableRemainingWeightHeuristic",
      "maxHours", "useRequestedDateTimeInMaxHours", "disableAlertFiltering", "geoidElevation", "carParkCarLegWeight",
    ];
    expect(otp1.filter((p) => !(p in PLAN_PARAMS))).toEqual([]);
  });

  test("the planner's API reference (docs/api-plan.md) lists every parameter", () => {
    const readme = readFileSync(join(import.meta.dir, "..", "..", "docs", "api-plan.md"), "utf8");
    const section = readme.slice(readme.indexOf("## Transit planner"), readme.indexOf("### Response", readme.indexOf("## Transit planner")));
    expect(Object.keys(PLAN_PARAMS).filter((p) => !section.includes(`\`${p}\``))).toEqual([]);
  });

  test("modes of legs the planner cannot make are refused naming mode, never replaced by walking", () => {
    for (const m of ["BICYCLE_RENT", "BICYCLE_PARK", "CAR_PARK", "CAR_RENT", "CAR_HAIL", "FLEX", "CAR,TRANSIT", "car,bus"]) {
      const r = refusal({ ...BASE, mode: m });
      expect(r?.parameter).toBe("mode");
      expect(r?.message).toMatch(/not available yet/);
    }
    expect(parsePlanParams({ ...BASE, mode: "TRANSIT,WALK" }).walkOnly).toBe(false);
  });

  test("bicycle and car modes (legs from the street engine: test/planner/streets.test.ts)", () => {
    const mode = (m: string) => {
      const p = parsePlanParams({ ...BASE, mode: m });
      return { walkOnly: p.walkOnly, streetMode: p.streetMode, transitModes: p.transitModes && [...p.transitModes] };
    };
    expect(mode("BICYCLE")).toEqual({ walkOnly: true, streetMode: "BICYCLE", transitModes: null });
    expect(mode("bicycle,walk")).toEqual({ walkOnly: true, streetMode: "BICYCLE", transitModes: null });
    expect(mode("TRANSIT,BICYCLE")).toEqual({ walkOnly: false, streetMode: "BICYCLE", transitModes: null });
    expect(mode("BICYCLE,RAIL")).toEqual({ walkOnly: false, streetMode: "BICYCLE", transitModes: ["RAIL"] });
    expect(mode("CAR")).toEqual({ walkOnly: true, streetMode: "CAR", transitModes: null });
    expect(mode("WALK,TRANSIT")).toEqual({ walkOnly: false, streetMode: "WALK", transitModes: null });
    expect(parsePlanParams({ ...BASE, mode: "BICYCLE", bikeSpeed: "4" }).bikeSpeed).toBe(4);
    expect(parsePlanParams({ ...BASE, mode: "BICYCLE" }).bikeSpeed).toBe(5);
  });

  test("parameters needing what the planner lacks are refused naming them", () => {
    expect(refusal({ ...BASE, intermediatePlaces: "37.80,-122.27" })?.parameter).toBe("intermediatePlaces");
    expect(refusal({ ...BASE, startTransitTripId: "BART:123" })?.parameter).toBe("startTransitTripId");
    expect(refusal({ ...BASE, optimize: "FASTEST" })?.parameter).toBe("optimize");
    expect(refusal({ ...BASE, optimize: "TRIANGLE" })?.parameter).toBe("triangleSafetyFactor");
    expect(refusal({ ...BASE, optimize: "TRIANGLE", triangleSafetyFactor: "0.5", triangleSlopeFactor: "0.3", triangleTimeFactor: "0.3" })?.parameter).toBe("triangleTimeFactor");
    expect(refusal({ ...BASE, boardSlack: "60" })).toEqual({ parameter: "boardSlack", message: expect.stringContaining("minTransferTime (0 s) must be at least boardSlack + alightSlack (60 s)") });
    expect(refusal({ ...BASE, minTransferTime: "60", boardSlack: "30", alightSlack: "40" })?.parameter).toBe("minTransferTime");
    expect(refusal({ ...BASE, maxHours: "soon" })?.parameter).toBe("maxHours");
    expect(refusal({ ...BASE, walkReluctance: "much" })?.parameter).toBe("walkReluctance");
    expect(refusal({ ...BASE, transferPenalty: "-1" })?.parameter).toBe("transferPenalty");
    expect(refusal({ ...BASE, numItineraries: "0" })?.parameter).toBe("numItineraries");
    expect(refusal({ ...BASE, maxItineraries: "0" })?.parameter).toBe("maxItineraries");
    expect(refusal({ ...BASE, maxTransfers: "-1" })?.parameter).toBe("maxTransfers");
  });

  test("OTP1's clamps are applied and reported in clamped", () => {
    const p = parsePlanParams({ ...BASE, maxWalkDistance: "99999", numItineraries: "50", maxTransfers: "40", walkBoardCost: "-5", walkReluctance: "0", waitReluctance: "-1", otherThanPreferredRoutesPenalty: "-3" });
    expect(p.clamped).toEqual({ maxWalkDistance: LIMITS.maxWalkDistance, numItineraries: LIMITS.numItineraries, maxTransfers: LIMITS.maxTransfers, walkBoardCost: 0, walkReluctance: 2, waitReluctance: 1, otherThanPreferredRoutesPenalty: 0 });
    expect([p.maxWalkDistance, p.numItineraries, p.maxTransfers]).toEqual([15000, 20, 10]);
    expect(p.criteria.costs).toMatchObject({ walkBoardCost: 0, walkReluctance: 2, waitReluctance: 1, otherThanPreferredRoutesPenalty: 0 });
    // a negative maxWalkDistance keeps the default (OTP1's setter ignores it)
    const neg = parsePlanParams({ ...BASE, maxWalkingDistance: "-5" });
    expect([neg.maxWalkDistance, neg.clamped]).toEqual([1609, { maxWalkDistance: 1609 }]);
    expect(parsePlanParams(BASE).clamped).toEqual({});
  });

  test("any cost parameter (or optimize=TRANSFERS) asks for generalized cost, OTP1's defaults for the rest", () => {
    expect(parsePlanParams(BASE).criteria.costs).toBeNull();
    expect(parsePlanParams({ ...BASE, optimize: "QUICK" }).criteria.costs).toBeNull();
    expect(parsePlanParams({ ...BASE, optimize: "TRANSFERS" }).criteria.costs).toEqual({ ...OTP1_COSTS, transferPenalty: 1800 });
    expect(parsePlanParams({ ...BASE, optimize: "TRANSFERS", transferPenalty: "100" }).criteria.costs!.transferPenalty).toBe(1900);
    for (const name of COST_PARAMETERS) {
      const v = name.endsWith("Routes") || name.endsWith("Agencies") ? "X" : "7";
      expect({ name, costs: parsePlanParams({ ...BASE, [name]: v }).criteria.costs !== null }).toEqual({ name, costs: true });
    }
    expect(parsePlanParams({ ...BASE, walkReluctance: "5" }).criteria.costs).toEqual({ ...OTP1_COSTS, walkReluctance: 5 });
    // nonpreferredTransferPenalty names a cost (OTP1 default 180), without a note
    const np = parsePlanParams({ ...BASE, nonpreferredTransferPenalty: "600" });
    expect(np.criteria.costs).toEqual({ ...OTP1_COSTS, nonpreferredTransferPenalty: 600 });
    expect(np.warnings).toEqual([]);
  });

  test("parameters without effect on a walk and transit plan are accepted with a note", () => {
    const p = parsePlanParams({ ...BASE, optimize: "TRIANGLE", triangleSafetyFactor: "0.2", triangleSlopeFactor: "0.3", triangleTimeFactor: "0.5", bikeSpeed: "5", walkOnStreetReluctance: "2", maxPreTransitTime: "600", locale: "de_DE" });
    expect(p.warnings.map((w) => w.split(/[:=]/)[0])).toEqual(["optimize", "triangleSafetyFactor", "triangleSlopeFactor", "triangleTimeFactor", "bikeSpeed", "walkOnStreetReluctance", "maxPreTransitTime", "locale"]);
    expect(p.criteria.costs).toBeNull();
    const quiet = parsePlanParams({ ...BASE, locale: "en_US", ignoreRealtimeUpdates: "true", batch: "true", clampInitialWait: "-1", reverseOptimizeOnTheFly: "true", disableAlertFiltering: "true", geoidElevation: "false" });
    expect(quiet.warnings).toEqual([]);
    expect(hasCriteria(quiet.criteria)).toBe(false);
  });
});

// ---- real feeds

interface Leg { transitLeg: boolean; startTime: number; endTime: number; duration: number; routeId?: string; tripId?: string; feedId?: string; route?: string; from: Record<string, any>; to: Record<string, any>; intermediateStops?: Record<string, any>[] }
interface Itin { startTime: number; endTime: number; duration: number; transfers: number; legs: Leg[] }

let svc: PlanService;
let ref: GtfsReference;
let iso: string;
const NOW = Date.UTC(2023, 0, 1);
const served: number[] = [];

beforeAll(async () => {
  ({ svc, ref } = await bartCaltrain());
  const m = svc.tt.meta;
  let day = Math.floor((m.feedStartDay[0]! + m.feedEndDay[0]!) / 2);
  while ((day + 3) % 7 > 4) day++; // Monday..Friday of the BART feed
  iso = new Date(day * 86400_000).toISOString().slice(0, 10);
  const { core } = svc.tt;
  for (let s = 0; s < core.nStops; s++) if (m.stopFeed[s] === 0 && core.stopRouteStart[s + 1]! > core.stopRouteStart[s]!) served.push(s);
});

const planBody = (q: Record<string, string>) => planResponse(svc.plan(parsePlanParams(q), NOW)) as unknown as { plan?: { itineraries: Itin[] }; error?: { message: string } };
const itins = (q: Record<string, string>) => planBody(q).plan?.itineraries ?? [];
const ridesOf = (it: Itin) => it.legs.filter((l) => l.transitLeg);
const transitItins = (q: Record<string, string>) => itins(q).filter((it) => ridesOf(it).length > 0);
/** A random query between BART stations (a little off the platforms, so the walks are legs). */
function randomQuery(rand: () => number): Record<string, string> {
  const m = svc.tt.meta;
  const a = served[Math.floor(rand() * served.length)]!, b = served[Math.floor(rand() * served.length)]!;
  const sec = 6 * 3600 + Math.floor(rand() * 14 * 3600);
  return { fromPlace: `${m.stopLat[a]! + 0.0008},${m.stopLon[a]}`, toPlace: `${m.stopLat[b]},${m.stopLon[b]! - 0.0008}`, date: iso, time: `${Math.floor(sec / 3600)}:${String(Math.floor((sec % 3600) / 60)).padStart(2, "0")}` };
}
const stationQuery = (from: string, to: string, time: string): Record<string, string> => {
  const m = svc.tt.meta;
  const at = (name: string) => {
    const s = m.stopName.findIndex((n, i) => m.stopFeed[i] === 0 && n.startsWith(name));
    return `${m.stopLat[s]},${m.stopLon[s]}`;
  };
  return { fromPlace: at(from), toPlace: at(to), date: iso, time };
};
const gtfsId = (id: string, feed: string) => parseScopedId(id, [feed]).id;

/** Every ride is a real trip of the GTFS: its stops by stop_sequence, its times on a service day it runs, pickup and drop-off allowed. */
function checkRides(it: Itin): void {
  const feeds = svc.tt.meta.feeds;
  for (const l of ridesOf(it)) {
    const sha = feeds.find((f) => f.onestopId === l.feedId)!.sha1;
    const trip = ref.trips.get(`${sha}|${gtfsId(l.tripId!, l.feedId!)}`)!;
    expect(trip).toBeDefined();
    const from = trip.times.find((s) => s.seq === l.from.stopSequence)!;
    const to = trip.times.find((s) => s.seq === l.to.stopSequence)!;
    expect(from.stop).toBe(`${sha}|${gtfsId(l.from.stopId, l.feedId!)}`);
    expect(to.stop).toBe(`${sha}|${gtfsId(l.to.stopId, l.feedId!)}`);
    const local = localParts(l.startTime / 1000, trip.tz).day;
    expect([local - 1, local].some((d) => ref.runsOn(trip, d) && serviceDayStart(d, trip.tz) + from.dep === l.startTime / 1000 && serviceDayStart(d, trip.tz) + to.arr === l.endTime / 1000)).toBe(true);
    expect(from.pickup).not.toBe(1);
    expect(to.drop).not.toBe(1);
  }
}

describe("OTP1 routing criteria in the search (BART 2023 + Caltrain)", () => {
  test("bannedRoutes: the banned route is in no itinerary, others still come (feed:id and OTP1's forms)", () => {
    const rand = rng(18);
    const m = svc.tt.meta;
    let banned = 0, stillPlanned = 0;
    for (let i = 0; i < 40 && banned < 24; i++) {
      const q = randomQuery(rand);
      const first = transitItins(q)[0];
      if (!first) continue;
      const leg = ridesOf(first)[0]!;
      const id = gtfsId(leg.routeId!, leg.feedId!);
      const g = m.gtfsRoutes.find((r) => r.routeId === id)!;
      // feedId:routeId as the plan writes it, OTP1's agency__routeId and _routeName
      const spec = [leg.routeId!, `BART__${id}`, `_${g.shortName}`][banned % 3]!;
      banned++;
      const after = itins({ ...q, bannedRoutes: spec });
      for (const it of after) {
        checkRides(it);
        for (const l of ridesOf(it)) expect({ spec, route: l.routeId }).not.toEqual({ spec, route: leg.routeId });
      }
      if (after.some((it) => ridesOf(it).length > 0)) stillPlanned++;
    }
    expect(banned).toBe(24);
    expect(stillPlanned).toBeGreaterThan(12);
  });

  test("arriveBy: banned routes and trips stay out (masks on the mirrored timetable)", () => {
    const rand = rng(81);
    let checked = 0;
    for (let i = 0; i < 30 && checked < 10; i++) {
      const q = { ...randomQuery(rand), arriveBy: "true" };
      const first = transitItins(q)[0];
      if (!first) continue;
      const leg = ridesOf(first)[0]!;
      const trips = itins({ ...q, bannedTrips: leg.tripId! });
      for (const it of trips) for (const l of ridesOf(it)) expect(l.tripId).not.toBe(leg.tripId);
      const routes = itins({ ...q, bannedRoutes: leg.routeId! });
      for (const it of routes) for (const l of ridesOf(it)) expect(l.routeId).not.toBe(leg.routeId);
      checked++;
    }
    expect(checked).toBe(10);
  });

  test("whiteListedRoutes: only the listed routes are ridden; an unknown whitelist allows nothing (as OTP1) with a note", () => {
    const rand = rng(5);
    let listed = 0;
    for (let i = 0; i < 40 && listed < 12; i++) {
      const q = randomQuery(rand);
      const first = transitItins(q)[0];
      if (!first) continue;
      const routes = [...new Set(ridesOf(first).map((l) => l.routeId!))];
      listed++;
      const after = transitItins({ ...q, whiteListedRoutes: routes.join(",") });
      expect(after.length).toBeGreaterThan(0);
      for (const it of after) {
        checkRides(it);
        for (const l of ridesOf(it)) expect(routes).toContain(l.routeId!);
      }
    }
    expect(listed).toBe(12);
    const q = stationQuery("Downtown Berkeley", "Embarcadero", "08:00");
    const p = parsePlanParams({ ...q, whiteListedAgencies: "NOPE" });
    const body = planResponse(svc.plan(p, NOW)) as unknown as { plan?: { itineraries: Itin[] } };
    expect((body.plan?.itineraries ?? []).filter((it) => ridesOf(it).length)).toEqual([]);
    expect(p.warnings).toEqual(['whiteListedAgencies: no agency "NOPE" in the loaded timetable (ignored, as OTP1 ignores it)']);
    expect(transitItins({ ...q, whiteListedAgencies: "BART" }).length).toBeGreaterThan(0);
  });

  test("preferred and unpreferred routes: their penalties decide the choice", () => {
    // Downtown Berkeley -> Embarcadero at 8:00: Red-S direct every 30 min, or Orange-S + Yellow-S
    const q = { ...stationQuery("Downtown Berkeley", "Embarcadero", "08:00"), numItineraries: "2" };
    const red = "f-9q9-bayarearapidtransit:7";
    const routes = (extra: Record<string, string>) => transitItins({ ...q, ...extra }).map((it) => ridesOf(it).map((l) => l.route).join("+"));
    const plain = routes({});
    expect(plain.some((r) => r === "Red-S")).toBe(true);
    expect(plain.some((r) => r.includes("Orange-S"))).toBe(true);
    // a large penalty on Red-S: only the Orange/Yellow journeys; on everything but Red-S: only Red-S
    const avoided = routes({ unpreferredRoutes: red, useUnpreferredRoutesPenalty: "3600" });
    expect(avoided.length).toBe(2);
    for (const r of avoided) expect(r).not.toContain("Red-S");
    const preferred = routes({ preferredRoutes: red, otherThanPreferredRoutesPenalty: "3600" });
    expect(preferred).toEqual(["Red-S", "Red-S"]);
    // OTP1's route name form and agency preferences; without a penalty the preference changes nothing
    expect(routes({ preferredRoutes: "BART_Red-S", otherThanPreferredRoutesPenalty: "3600" })).toEqual(["Red-S", "Red-S"]);
    expect(routes({ preferredRoutes: red, otherThanPreferredRoutesPenalty: "0" })).toEqual(routes({ walkReluctance: "2" }));
    expect(routes({ unpreferredAgencies: "BART", useUnpreferredRoutesPenalty: "0" })).toEqual(routes({ walkReluctance: "2" }));
  });

  test("optimize=TRANSFERS gives no more transfers than QUICK", () => {
    const rand = rng(33);
    let compared = 0, fewer = 0;
    for (let i = 0; i < 40; i++) {
      const q = { ...randomQuery(rand), arriveBy: i % 3 === 2 ? "true" : "false" };
      const quick = transitItins(q), few = transitItins({ ...q, optimize: "TRANSFERS" });
      if (!quick.length || !few.length) continue;
      for (const it of few) checkRides(it);
      const min = (xs: Itin[]) => Math.min(...xs.map((it) => it.transfers));
      const sum = (xs: Itin[]) => xs.reduce((s, it) => s + it.transfers, 0);
      expect({ q, transfers: min(few) <= min(quick) }).toEqual({ q, transfers: true });
      // the best (first) itinerary of TRANSFERS has no more transfers than QUICK's
      expect({ q, first: few[0]!.transfers <= quick[0]!.transfers }).toEqual({ q, first: true });
      if (sum(few) < sum(quick)) fewer++;
      compared++;
    }
    expect(compared).toBeGreaterThan(20);
    expect(fewer).toBeGreaterThan(0);
  });

  test("bannedStops: nobody boards or alights there, rides pass through; bannedStopsHard: no ride passes either", () => {
    const rand = rng(44);
    let soft = 0, hard = 0;
    for (let i = 0; i < 60 && (soft < 8 || hard < 8); i++) {
      const q = { ...randomQuery(rand), showIntermediateStops: "true" };
      const first = transitItins(q)[0];
      if (!first) continue;
      const rides = ridesOf(first);
      // a stop where the first itinerary boards or alights after its first ride, and one it passes
      const boarded = rides.length > 1 ? rides[1]!.from.stopId : null;
      const passed = rides.flatMap((l) => l.intermediateStops ?? [])[0]?.stopId ?? null;
      if (boarded && soft < 8) {
        soft++;
        for (const it of itins({ ...q, bannedStops: boarded })) {
          checkRides(it);
          for (const l of ridesOf(it)) expect([l.from.stopId, l.to.stopId]).not.toContain(boarded);
        }
      }
      if (passed && hard < 8) {
        hard++;
        const plain = itins({ ...q, bannedStops: passed });
        // bannedStops lets rides pass: the first itinerary (which only passes it) stays
        expect(plain.some((it) => ridesOf(it).every((l, k) => l.tripId === rides[k]?.tripId))).toBe(true);
        for (const it of itins({ ...q, bannedStopsHard: passed })) {
          checkRides(it);
          for (const l of ridesOf(it)) expect([l.from.stopId, l.to.stopId, ...(l.intermediateStops ?? []).map((s) => s.stopId)]).not.toContain(passed);
        }
      }
    }
    expect([soft, hard]).toEqual([8, 8]);
  });

  test("minTransferTime, boardSlack and alightSlack hold in every itinerary (from the leg times)", () => {
    const rand = rng(12);
    const slack = { minTransferTime: "240", boardSlack: "60", alightSlack: "90" };
    let transfers = 0, itineraries = 0;
    for (let i = 0; i < 40; i++) {
      const q = randomQuery(rand);
      for (const it of transitItins({ ...q, ...slack, arriveBy: i % 3 === 0 ? "true" : "false" })) {
        checkRides(it);
        itineraries++;
        const legs = it.legs;
        const ride = legs.map((l, k) => (l.transitLeg ? k : -1)).filter((k) => k >= 0);
        // before the first ride: boardSlack after the walk (or the start)
        const k0 = ride[0]!;
        expect(legs[k0]!.startTime - (k0 > 0 ? legs[k0 - 1]!.endTime : it.startTime)).toBeGreaterThanOrEqual(60_000);
        // after the last ride: alightSlack before the walk (or the end)
        const k1 = ride[ride.length - 1]!;
        expect((k1 < legs.length - 1 ? legs[k1 + 1]!.startTime : it.endTime) - legs[k1]!.endTime).toBeGreaterThanOrEqual(90_000);
        // between rides: minTransferTime besides the walk between them (transfers.txt times count from alighting)
        for (let r = 1; r < ride.length; r++) {
          const prev = legs[ride[r - 1]!]!, next = legs[ride[r]!]!;
          const walk = legs.slice(ride[r - 1]! + 1, ride[r]!).reduce((s, l) => s + l.duration * 1000, 0);
          expect(next.startTime - prev.endTime).toBeGreaterThanOrEqual(Math.max(walk, 240_000));
          transfers++;
        }
      }
    }
    expect(itineraries).toBeGreaterThan(40);
    expect(transfers).toBeGreaterThan(5);
  });

  test("maxHours: every itinerary lasts less; with useRequestedDateTimeInMaxHours, counted from the requested time", () => {
    const rand = rng(9);
    let n = 0;
    for (let i = 0; i < 30; i++) {
      const q = randomQuery(rand);
      for (const it of transitItins({ ...q, maxHours: "0.5" })) {
        expect(it.duration).toBeLessThan(1800);
        n++;
      }
      const requested = Date.parse(`${q.date}T${q.time!.padStart(5, "0")}:00-07:00`);
      for (const it of transitItins({ ...q, maxHours: "1", useRequestedDateTimeInMaxHours: "true" })) expect(it.endTime - requested).toBeLessThan(3600_000);
    }
    expect(n).toBeGreaterThan(10);
  });

  test("startTransitStopId: every itinerary's first ride boards there", () => {
    const m = svc.tt.meta;
    const s = m.stopName.findIndex((n, i) => m.stopFeed[i] === 0 && n.startsWith("MacArthur"));
    const stopId = `${m.feeds[0]!.onestopId}:${m.stopId[s]}`;
    const q = stationQuery("Downtown Berkeley", "Embarcadero", "08:00");
    const found = transitItins({ ...q, startTransitStopId: stopId });
    expect(found.length).toBeGreaterThan(0);
    for (const it of found) {
      checkRides(it);
      expect(ridesOf(it)[0]!.from.stopId).toBe(stopId);
    }
    expect(refusal({ ...q })).toBeNull();
    expect(() => svc.plan(parsePlanParams({ ...q, startTransitStopId: "NOWHERE" }), NOW)).toThrow(/startTransitStopId/);
  });

  test("bannedTrips: a banned trip is never ridden; trip:stopIndex bans boarding and alighting there only", () => {
    const rand = rng(27);
    let whole = 0, partial = 0;
    for (let i = 0; i < 40 && whole < 10; i++) {
      const q = randomQuery(rand);
      const first = transitItins(q)[0];
      if (!first) continue;
      const leg = ridesOf(first)[0]!;
      whole++;
      for (const it of itins({ ...q, bannedTrips: leg.tripId! })) for (const l of ridesOf(it)) expect(l.tripId).not.toBe(leg.tripId);
      const at = leg.from.stopIndex as number;
      for (const it of itins({ ...q, bannedTrips: `${leg.tripId}:${at}` })) {
        checkRides(it);
        for (const l of ridesOf(it)) if (l.tripId === leg.tripId) expect([l.from.stopIndex, l.to.stopIndex]).not.toContain(at);
        partial++;
      }
    }
    expect(whole).toBe(10);
    expect(partial).toBeGreaterThan(0);
  });

  test("unknown ids are ignored with a note, never a crash", () => {
    const q = stationQuery("Downtown Berkeley", "Embarcadero", "08:00");
    const p = parsePlanParams({ ...q, bannedRoutes: "nope,f-9q9-bayarearapidtransit:nope", bannedTrips: "zzz:1:2", bannedStops: "x", preferredAgencies: "Y" });
    const body = planResponse(svc.plan(p, NOW)) as unknown as { plan: { itineraries: Itin[] } };
    expect(body.plan.itineraries.length).toBeGreaterThan(0);
    expect(p.warnings.map((w) => w.split(":")[0])).toEqual(["bannedRoutes", "bannedRoutes", "bannedTrips", "bannedStops", "preferredAgencies"]);
    // planning the same parameters again notes nothing twice
    svc.plan(p, NOW);
    expect(p.warnings.length).toBe(5);
  });

  test("accepted parameters without effect leave the plan unchanged, as does disableRemainingWeightHeuristic", () => {
    const rand = rng(3);
    const same = { ignoreRealtimeUpdates: "true", locale: "en_US", batch: "true", reverseOptimizeOnTheFly: "true", clampInitialWait: "-1", optimize: "QUICK", disableAlertFiltering: "true", disableRemainingWeightHeuristic: "true" };
    let n = 0;
    for (let i = 0; i < 20; i++) {
      const q = { ...randomQuery(rand), arriveBy: i % 2 ? "true" : "false" };
      const p = parsePlanParams(q);
      expect(searchCriteria(svc.tt, p, () => undefined, 0)).toEqual({});
      expect(planBody({ ...q, ...same })).toEqual(planBody(q));
      n += planBody(q).plan?.itineraries.length ?? 0;
    }
    expect(n).toBeGreaterThan(20);
  });
});

describe("the generalized-cost search (raptor/mc.ts)", () => {
  /** A plan-like search query between two BART stations with `costs`. */
  function costQuery(rand: () => number, costs: CostModel, arriveBy: boolean): SearchQuery | null {
    const m = svc.tt.meta;
    const o = served[Math.floor(rand() * served.length)]!, d = served[Math.floor(rand() * served.length)]!;
    const day = Math.floor(Date.parse(`${iso}T12:00:00Z`) / 86400_000);
    const t = localToUnixDay(day, 6 * 3600 + Math.floor(rand() * 14 * 3600));
    const epoch = t - 2 * 86400;
    const access = svc.walkStops(m.stopLat[o]!, m.stopLon[o]!, 1609, 1.33, false), egress = svc.walkStops(m.stopLat[d]!, m.stopLon[d]!, 1609, 1.33, false);
    if (o === d || !access.length || !egress.length) return null;
    return { epochSec: epoch, timeSec: t - epoch, arriveBy, windowSec: 3600, horizonSec: 86400, access, egress, maxTransfers: 5, walkSpeed: 1.33, days: buildServiceDays(svc.tt, epoch, t), wheelchair: false, keepEarliest: 3, costs };
  }
  const localToUnixDay = (day: number, sec: number) => serviceDayStart(day, "America/Los_Angeles") + sec;

  test("with cost = time it finds RAPTOR's earliest arrival (latest departure for arriveBy)", () => {
    const rand = rng(61);
    const unit: CostModel = { walkReluctance: 1, waitReluctance: 1, waitAtBeginningFactor: 1, boardCost: 0, transferPenalty: 0 };
    let n = 0;
    for (let i = 0; i < 80; i++) {
      const q = costQuery(rand, unit, i % 3 === 2);
      if (!q) continue;
      const byCost = searchJourneys(svc.prepared, q, svc.pool).journeys;
      const byTime = searchJourneys(svc.prepared, { ...q, costs: undefined, windowSec: 0, keepEarliest: undefined }, svc.pool).journeys;
      if (!byTime.length) continue;
      const best = q.arriveBy ? Math.max(...byTime.map((j) => j.departSec)) : Math.min(...byTime.map((j) => j.arriveSec));
      const cheapest = byCost.reduce((a, b) => (b.cost! < a.cost! ? b : a));
      expect({ i, cost: cheapest.cost }).toEqual({ i, cost: q.arriveBy ? q.timeSec - best : best - q.timeSec });
      n++;
    }
    expect(n).toBeGreaterThan(40);
  });

  test("its pruning is exact (the same choice with a bound 20 times looser) and a journey's cost is its legs' cost", () => {
    const rand = rng(62);
    const pen = new Float64Array(svc.tt.core.nRoutes).map((_, r) => (r % 3 === 0 ? 300 : 0));
    let n = 0;
    for (let i = 0; i < 60; i++) {
      const costs: CostModel = { walkReluctance: [2, 5, 1][i % 3]!, waitReluctance: [1, 0.8, 2][i % 3]!, waitAtBeginningFactor: [0.4, 1, 0.2][i % 3]!, boardCost: [600, 0, 300][i % 3]!, transferPenalty: [0, 1800, 0][i % 3]!, routePenalty: i % 2 ? pen : undefined };
      const q = costQuery(rand, costs, i % 4 === 3);
      if (!q) continue;
      const exact = searchJourneys(svc.prepared, { ...q, transferSlackSec: i % 5 ? undefined : 120 }, svc.pool).journeys;
      const loose = searchJourneys(svc.prepared, { ...q, transferSlackSec: i % 5 ? undefined : 120 }, svc.pool, { ...DEFAULT_RAPTOR_CONFIG, costSlack: 20 }).journeys;
      const costsOf = (js: Journey[]) => js.map((j) => j.cost!.toFixed(6)).sort();
      expect({ i, costs: costsOf(exact) }).toEqual({ i, costs: costsOf(loose) });
      for (const j of exact) {
        // the legs' cost (journeyCost) in the search's frame: arriveBy journeys mirrored back
        const legs = q.arriveBy ? [...j.legs].reverse().map((l) => ({ ...l, depSec: -l.arrSec, arrSec: -l.depSec })) : j.legs;
        const req = raptorRequest(q, false);
        expect(journeyCost({ ...req, departSec: q.arriveBy ? -q.timeSec : q.timeSec }, { ...j, legs })).toBeCloseTo(j.cost!, 6);
      }
      n++;
    }
    expect(n).toBeGreaterThan(40);
  });
});

describe("OTP1 route and agency forms (TriMet)", () => {
  test("RouteMatcher's agency__routeId and agency_routeName, bannedAgencies", async () => {
    const dir = await importedDataset("planner-trimet", ["trimet-2routes"]);
    const tri = new PlanService(loadTimetableFile(join(dir, readManifest(dir).timetable!.path)));
    const m = tri.tt.meta;
    let day = Math.floor((m.feedStartDay[0]! + m.feedEndDay[0]!) / 2);
    while ((day + 3) % 7 > 4) day++;
    const date = new Date(day * 86400_000).toISOString().slice(0, 10);
    const rand = rng(200);
    const routesUsed = (q: Record<string, string>) => ((planResponse(tri.plan(parsePlanParams(q), NOW)) as unknown as { plan?: { itineraries: Itin[] } }).plan?.itineraries ?? []).flatMap((it) => ridesOf(it).map((l) => gtfsId(l.routeId!, l.feedId!)));
    const seen = new Set<string>();
    for (let i = 0; i < 40; i++) {
      const a = Math.floor(rand() * m.stopId.length), b = Math.floor(rand() * m.stopId.length);
      const q = { fromPlace: `${m.stopLat[a]},${m.stopLon[a]}`, toPlace: `${m.stopLat[b]},${m.stopLon[b]}`, date, time: "12:00" };
      for (const r of routesUsed(q)) seen.add(r);
      expect(routesUsed({ ...q, bannedRoutes: "TRIMET__200" })).not.toContain("200");
      expect(routesUsed({ ...q, bannedRoutes: "TRIMET_MAX Green Line" })).not.toContain("200");
      expect(routesUsed({ ...q, bannedAgencies: "PSC" })).not.toContain("193");
      for (const r of routesUsed({ ...q, whiteListedAgencies: "PSC" })) expect(r).toBe("193");
    }
    expect([...seen].sort()).toEqual(["193", "200"]);
  });
});

describe("OTP1 parameters over HTTP", () => {
  let server: RunningServer;
  beforeAll(async () => {
    const { dir } = await bartCaltrain();
    server = await startServer(serverConfigFrom({ data: dir, port: 0, host: "127.0.0.1", noAuth: true }), { log: { info() {}, warn() {}, error() {} } });
  });
  const get = async (q: Record<string, string>) => {
    const r = await fetch(`${server.url}/api/v2/routing/otp/plan?${new URLSearchParams(q)}`);
    return { status: r.status, body: (await r.json()) as Record<string, any> };
  };

  test("each refused parameter is a 400 BOGUS_PARAMETER naming it", async () => {
    const q = { ...stationQuery("Downtown Berkeley", "Embarcadero", "08:00") };
    for (const [name, value] of [["mode", "BICYCLE,TRANSIT"], ["mode", "CAR_PARK"], ["intermediatePlaces", "37.80,-122.27"], ["startTransitTripId", "BART:1"], ["optimize", "TRIANGLE"], ["boardSlack", "60"], ["startTransitStopId", "NOWHERE"], ["walkBoardCost", "a lot"]] as const) {
      const { status, body } = await get({ ...q, [name]: value });
      expect({ name, status, message: body.error?.message }).toEqual({ name, status: 400, message: "BOGUS_PARAMETER" });
      expect(body.error.missing).toEqual([name === "optimize" ? "triangleSafetyFactor" : name]);
      expect(body.error.msg).toContain(name === "optimize" ? "TRIANGLE" : name);
      expect(body.plan).toBeUndefined();
    }
    // BART without a street dataset: a bicycle would be a guess on straight lines
    const bike = await get({ ...q, mode: "BICYCLE,TRANSIT" });
    expect(bike.body.error.msg).toContain("need a street network");
  });

  test("clamped parameters still plan", async () => {
    const { status, body } = await get({ ...stationQuery("Downtown Berkeley", "Embarcadero", "08:00"), maxWalkDistance: "99999", numItineraries: "99", walkBoardCost: "-1" });
    expect(status).toBe(200);
    expect(body.plan.itineraries.length).toBeGreaterThan(3);
  });

  test("closing", async () => {
    await server.stop();
  });
});
