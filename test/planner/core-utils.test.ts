/**
 * FEATURE UNDER TEST: a real OTP1 client reads our plan responses. OTP-UI's `@opentripplanner/core-utils`
 * (the OTP1-era lines 4.11.5 and 8.2.3, installed as `core-utils-4` / `core-utils-8`) runs
 * unchanged over itineraries of the real server on BART 2019 and Caltrain 2023: its PropTypes of
 * itinerary, leg, place and transitive data accept them (prop-types' checkPropTypes, no warning),
 * bounds and transitive.js data come out whole, leg times show Bay Area local time whatever the
 * process's TZ (checked in child processes with TZ=America/New_York, UTC, Asia/Tokyo), operators
 * are found from the routeId's feed prefix, display stop ids, elevation profiles and emissions
 * have no NaN, and every transit itinerary carries OTP1's fare (BART and Caltrain have fare rules).
 *
 * Both lines import under Bun; their package index (not used here) logs "window is not defined"
 * at import (its query-params read localStorage), so the test imports the modules it uses.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import checkPropTypes from "prop-types/checkPropTypes";
import * as itin4 from "core-utils-4/lib/itinerary.js";
import * as map4 from "core-utils-4/lib/map.js";
import * as route4 from "core-utils-4/lib/route.js";
import * as types4 from "core-utils-4/lib/types.js";
import * as itin8 from "core-utils-8/lib/itinerary.js";
import * as route8 from "core-utils-8/lib/route.js";
import { importedDataset, tempDir } from "../support/dataset.ts";
import { startServer, type RunningServer } from "../../server/main.ts";
import { serverConfigFrom } from "../../server/config.ts";
import { BART, CALTRAIN, OTP_FIELDS_DATASET } from "./support/otp-fixture.ts";

/** Every transit itinerary of these feeds carries a fare (both have fare_attributes and fare_rules). */
const EXPECT_FARES = true;

const quiet = { info() {}, warn() {}, error() {} };
let server: RunningServer;
type Json = Record<string, any>;
/** itineraries by feed, as OTP-UI asks for them (it always sends showIntermediateStops=true) */
const plans: { feed: string; its: Json[] }[] = [];

const QUERIES: { feed: string; q: Record<string, string> }[] = [
  { feed: BART, q: { fromPlace: "Embarcadero::37.7929,-122.3971", toPlace: "Antioch::37.9954,-121.7803", date: "2019-06-04", time: "08:00" } },
  { feed: BART, q: { fromPlace: "37.9954,-121.7803", toPlace: "37.6008,-122.3869", date: "2019-12-03", time: "17:30" } }, // winter (PST), Antioch -> Millbrae
  { feed: BART, q: { fromPlace: "37.8045,-122.2950", toPlace: "37.5575,-121.9766", date: "2019-06-05", time: "00:05" } }, // after midnight
  { feed: CALTRAIN, q: { fromPlace: "SF::37.7764,-122.3943", toPlace: "37.4434,-122.1650", date: "2023-10-17", time: "8:00am" } },
  { feed: CALTRAIN, q: { fromPlace: "37.3297,-121.9030", toPlace: "37.7764,-122.3943", date: "2023-12-09", time: "10:00", arriveBy: "true" } },
];

beforeAll(async () => {
  const dir = await importedDataset(OTP_FIELDS_DATASET.name, OTP_FIELDS_DATASET.feeds);
  server = await startServer(serverConfigFrom({ data: dir, port: 0, host: "127.0.0.1", noAuth: true }), { log: quiet });
  for (const { feed, q } of QUERIES) {
    const r = await fetch(`${server.url}/api/v2/routing/otp/plan?${new URLSearchParams({ ...q, showIntermediateStops: "true", numItineraries: "3" })}`);
    const body = (await r.json()) as Json;
    plans.push({ feed, its: body.plan?.itineraries ?? [] });
  }
});
afterAll(async () => {
  await server?.stop();
});

const allItineraries = () => plans.flatMap((p) => p.its);
const transitLegs = () => allItineraries().flatMap((it) => it.legs.filter((l: Json) => l.transitLeg));

/** console.error and console.warn calls made while `f` runs. */
function captureConsole(f: () => void): string[] {
  const seen: string[] = [];
  const [err, warn] = [console.error, console.warn];
  console.error = (...a: unknown[]) => void seen.push(a.map(String).join(" "));
  console.warn = (...a: unknown[]) => void seen.push(a.map(String).join(" "));
  try {
    f();
  } finally {
    [console.error, console.warn] = [err, warn];
  }
  return seen;
}

/** prop-types warnings of `value` against `type` (a fresh component name each time: prop-types logs a message once). */
let checks = 0;
const propTypeWarnings = (type: unknown, value: unknown): string[] => captureConsole(() => checkPropTypes({ value: type }, { value }, "prop", `Check${checks++}`));

/** Bay Area wall-clock HH:mm of an instant. */
const bayArea = (ms: number) => new Intl.DateTimeFormat("en-GB", { timeZone: "America/Los_Angeles", hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).format(new Date(ms));

describe("OTP-UI core-utils over our plans", () => {
  test("every query was answered with itineraries with transit", () => {
    for (const p of plans) {
      expect(p.its.length).toBeGreaterThan(0);
      expect(p.its.some((it) => it.legs.some((l: Json) => l.transitLeg))).toBe(true);
    }
  });

  test("PropTypes (core-utils 4): itinerary, every leg and every place pass without a warning", () => {
    const warnings: string[] = [];
    for (const it of allItineraries()) {
      warnings.push(...propTypeWarnings(types4.itineraryType, it));
      for (const l of it.legs) {
        warnings.push(...propTypeWarnings(types4.legType, l));
        for (const pl of [l.from, l.to, ...(l.intermediateStops ?? [])]) warnings.push(...propTypeWarnings(types4.placeType, pl));
        warnings.push(...propTypeWarnings(types4.encodedPolylineType, l.legGeometry));
        warnings.push(...propTypeWarnings(types4.stepsType, l.steps));
      }
    }
    expect(warnings).toEqual([]);
    // the check does see a missing field (so an empty list means something)
    const leg = { ...transitLegs()[0] };
    delete leg.agencyTimeZoneOffset;
    expect(propTypeWarnings(types4.legType, leg).join("\n")).toContain("agencyTimeZoneOffset");
  });

  test("OTP-UI asks for intermediate stops, which its leg PropTypes require", () => {
    // query-params reads localStorage when it loads: no window under Bun (it logs and goes on)
    let showIntermediateStops: Json | undefined;
    captureConsole(() => {
      showIntermediateStops = (require("core-utils-4/lib/query-params.js").default as Json[]).find((p) => p.name === "showIntermediateStops");
    });
    expect(showIntermediateStops?.default).toBe(true);
  });

  test("itinerary bounds (4 and 8) and leg locations along the geometry", () => {
    for (const it of allItineraries()) {
      for (const bounds of [itin4.getItineraryBounds(it), itin8.getItineraryBounds(it)] as number[][][]) {
        expect(bounds.length).toBe(it.legs.reduce((n: number, l: Json) => n + l.legGeometry.length, 0));
        for (const [lat, lon] of bounds) {
          expect(lat!).toBeGreaterThan(37.2);
          expect(lat!).toBeLessThan(38.1);
          expect(lon!).toBeGreaterThan(-122.6);
          expect(lon!).toBeLessThan(-121.6);
        }
      }
      for (const l of it.legs) {
        const mid = itin4.legLocationAtDistance(l, l.distance / 2) as number[] | null;
        if (l.distance > 0) expect(mid!.every(Number.isFinite)).toBe(true);
        expect((itin8.getLegBounds(l) as number[][]).length).toBeGreaterThanOrEqual(2);
      }
    }
  });

  test("itineraryToTransitive (core-utils 4): journeys, patterns, routes and stops of every ride, valid transitive data", () => {
    for (const it of allItineraries()) {
      let data: Json = {};
      const logged = captureConsole(() => {
        data = map4.itineraryToTransitive(structuredClone(it));
      });
      expect(logged.every((m) => m.includes("deprecated"))).toBe(true); // getPlaceName's deprecation notice only
      expect(propTypeWarnings(types4.transitiveDataType, data)).toEqual([]);
      const rides = it.legs.filter((l: Json) => l.transitLeg);
      expect(data.patterns.length).toBe(rides.length);
      expect(data.journeys[0].segments.length).toBe(it.legs.length);
      expect(new Set(data.routes.map((r: Json) => r.route_id))).toEqual(new Set(rides.map((l: Json) => l.routeId)));
      for (const l of rides) {
        expect(data.stops.map((s: Json) => s.stop_id)).toEqual(expect.arrayContaining([l.from.stopId, l.to.stopId]));
        expect(data.routes.find((r: Json) => r.route_id === l.routeId)).toMatchObject({ agency_id: l.agencyId, route_type: l.routeType, route_short_name: l.routeShortName });
      }
    }
  });

  test("leg times show Bay Area local time in any process timezone (getTimeZoneOffset + formatTime)", async () => {
    const its = allItineraries();
    const file = join(tempDir(), "itineraries.json");
    writeFileSync(file, JSON.stringify(its));
    const want = its.map((it) => it.legs.map((l: Json) => [bayArea(l.startTime), bayArea(l.endTime)]));
    const script = resolve(import.meta.dir, "support", "core-utils-clock.ts");
    for (const tz of ["America/New_York", "UTC", "Asia/Tokyo", "America/Los_Angeles"]) {
      const child = Bun.spawn([process.execPath, script, file], { env: { ...process.env, TZ: tz }, stdout: "pipe", stderr: "pipe" });
      const out = await new Response(child.stdout).text();
      expect(await child.exited).toBe(0);
      const got = JSON.parse(out);
      expect(got.tz).toBe(tz);
      expect(got.times).toEqual(want);
    }
    // the offset is the agency's (PDT / PST), not the server's or the client's
    for (const it of its) expect([-7 * 3600_000, -8 * 3600_000]).toContain(it.legs[0].agencyTimeZoneOffset);
  });

  test("operators are found by the routeId's feed prefix and the bare agencyId (4 and 8)", () => {
    const transitOperators = [
      { feedId: BART, agencyId: "BART", name: "BART", order: 1 },
      { feedId: CALTRAIN, agencyId: "CT", name: "Caltrain", order: 2 },
    ];
    for (const l of transitLegs()) {
      const want = l.feedId === BART ? "BART" : "Caltrain";
      expect(route4.getTransitOperatorFromLeg(l, transitOperators)?.name).toBe(want);
      expect(route8.getTransitOperatorFromLeg(l, transitOperators)?.name).toBe(want);
    }
    expect(propTypeWarnings(types4.transitOperatorType, transitOperators[0])).toEqual([]);
  });

  test("displayed stop ids (8): the stop code, else the GTFS stop_id after the feed prefix", () => {
    for (const l of transitLegs()) {
      for (const pl of [l.from, l.to, ...l.intermediateStops]) {
        const shown = itin8.getDisplayedStopId(pl);
        if (l.feedId === CALTRAIN) expect(shown).toBe(pl.stopCode);
        else expect(shown).toBe(pl.stopId.slice(`${BART}:`.length)); // BART has no stop codes: ANTC, EMBR, ...
        expect(shown).toMatch(/^[A-Z0-9]+$/);
      }
    }
  });

  test("elevation profiles, physical activity and emissions have no NaN", () => {
    for (const it of allItineraries()) {
      for (const l of it.legs) {
        for (const profile of [itin4.getElevationProfile(l.steps), itin8.getElevationProfile(l.steps)] as Json[]) {
          for (const k of ["traversed", "gain", "loss", "minElev", "maxElev"]) expect(Number.isFinite(profile[k])).toBe(true);
          // OTP-UI asks legElevationAtDistance only for a profile with points; ours have none until walks have elevation
          if (profile.points.length) expect(Number.isFinite(itin4.legElevationAtDistance(profile.points, profile.traversed / 2))).toBe(true);
          else expect(profile.gain + profile.loss).toBe(0);
        }
      }
      const activity = itin4.calculatePhysicalActivity(it) as Json;
      for (const v of Object.values(activity)) expect(Number.isFinite(v)).toBe(true);
      const grams = itin8.calculateEmissions(it) as number;
      expect(Number.isFinite(grams)).toBe(true);
      expect(grams).toBeGreaterThan(0);
    }
  });

  test("fares: OTP1's Fare as core-utils reads it (required once EXPECT_FARES is set)", () => {
    let priced = 0;
    for (const it of allItineraries()) {
      if (!it.legs.some((l: Json) => l.transitLeg)) continue;
      if (!it.fare) {
        expect(EXPECT_FARES).toBe(false);
        continue;
      }
      expect(propTypeWarnings(types4.fareType, it.fare)).toEqual([]);
      let fares: Json = {};
      captureConsole(() => {
        fares = itin4.calculateFares(it, true); // deprecated in 4.x: logs a notice
      });
      expect(fares.transitFares.regular.transitFare).toBeGreaterThan(0);
      expect(fares.transitFares.regular.currencyCode).toBe("USD");
      const money = itin8.getTransitFare(it.fare.fare.regular) as Json;
      expect(money.transitFare).toBe(it.fare.fare.regular.cents);
      priced++;
    }
    if (EXPECT_FARES) expect(priced).toBeGreaterThan(0);
  });
});
