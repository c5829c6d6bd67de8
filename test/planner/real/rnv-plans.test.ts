/**
 * FEATURE UNDER TEST: plans on the rnv feed (Mannheim / Ludwigshafen trams and buses, a busy
 * weekday hour): numItineraries is met when that many journeys leave within two hours (the search
 * widens until it has them, as OTP1 repeats its searches), and with optimize=TRANSFERS walking all
 * the way leads when it arrives first, as it does with QUICK.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { importedDataset } from "../../support/dataset.ts";
import { readManifest } from "../../../pipeline/schema/manifest.ts";
import { loadTimetableFile } from "../../../server/planner/timetable/arrow-loader.ts";
import { PlanService } from "../../../server/planner/plan-service.ts";
import { planResponse } from "../../../server/planner/otp1/plan.ts";
import { parsePlanParams } from "../../../server/planner/plan-params.ts";

interface Leg { mode: string; transitLeg: boolean; tripId?: string; startTime: number }
interface Itin { startTime: number; endTime: number; transfers: number; legs: Leg[] }

let svc: PlanService;
/** a stop's coordinates by GTFS stop_id */
let place: (stopId: string) => string;

beforeAll(async () => {
  const dir = await importedDataset("planner-rnv", ["rnv"]);
  const tt = readManifest(dir).timetable!;
  svc = new PlanService(loadTimetableFile(join(dir, tt.path)));
  const { stopId, stopLat, stopLon } = svc.tt.meta;
  place = (id) => {
    const s = stopId.indexOf(id);
    if (s < 0) throw new Error(`no stop ${id}`);
    return `${stopLat[s]},${stopLon[s]}`;
  };
});

// Tuesday 15 November 2016, 17:00 in Mannheim (16:00 UTC)
const DAY = "2016-11-15";
const T0 = Date.UTC(2016, 10, 15, 16, 0);
const HOUR = 3600_000;

function plan(q: Record<string, string>): Itin[] {
  const r = planResponse(svc.plan(parsePlanParams({ date: DAY, ...q }), T0)) as { plan?: { itineraries: Itin[] } };
  return r.plan?.itineraries ?? [];
}
const rides = (it: Itin) => it.legs.filter((l) => l.transitLeg).map((l) => l.tripId).join(" ");
const hhmm = (ms: number) => new Date(ms + HOUR).toISOString().slice(11, 16); // Europe/Berlin in November

describe("numItineraries in a busy hour", () => {
  // Ebertpark/Fichtestr. -> Zum Guten Hirten (Ludwigshafen, tram 4 every 10 min)
  const od = () => ({ fromPlace: place("202905"), toPlace: place("216602") });

  test("five distinct journeys leave within two hours: searched one by one from successive departures", () => {
    const seen = new Set<string>();
    let at = T0;
    while (at < T0 + 2 * HOUR) {
      const [it] = plan({ ...od(), time: hhmm(at), numItineraries: "1" });
      expect(it).toBeDefined();
      if (it!.startTime >= T0 + 2 * HOUR) break;
      expect(rides(it!)).not.toBe(""); // a ride, not walking all the way
      seen.add(rides(it!));
      at = it!.startTime + 60_000;
    }
    expect(seen.size).toBeGreaterThanOrEqual(5);
  });

  test("numItineraries=5 returns five distinct journeys, in arrival order", () => {
    const its = plan({ ...od(), time: "17:00", numItineraries: "5" });
    expect(its.length).toBe(5);
    expect(new Set(its.map(rides)).size).toBe(5);
    for (const it of its) {
      expect(rides(it)).not.toBe("");
      expect(it.startTime).toBeGreaterThanOrEqual(T0);
      expect(it.startTime).toBeLessThan(T0 + 2 * HOUR);
    }
    for (let i = 1; i < its.length; i++) expect(its[i]!.endTime).toBeGreaterThanOrEqual(its[i - 1]!.endTime);
  });

  test("arriveBy: five distinct journeys arriving within two hours before the time", () => {
    const its = plan({ ...od(), time: "19:00", arriveBy: "true", numItineraries: "5" });
    expect(its.length).toBe(5);
    expect(new Set(its.map(rides)).size).toBe(5);
    for (const it of its) {
      expect(it.endTime).toBeLessThanOrEqual(T0 + 2 * HOUR);
      expect(it.endTime).toBeGreaterThan(T0);
    }
  });
});

describe("optimize=TRANSFERS and walking all the way", () => {
  // Froschlache -> Kreuzstraße: 20 minutes' walk; bus 70 leaves later and arrives after it
  const od = () => ({ fromPlace: place("215306"), toPlace: place("203002"), time: "17:00", numItineraries: "3" });

  test("walking leads with TRANSFERS as with QUICK", () => {
    const quick = plan(od());
    const transfers = plan({ ...od(), optimize: "TRANSFERS" });
    expect(quick[0]!.legs.map((l) => l.mode)).toEqual(["WALK"]);
    expect(transfers[0]!.legs.map((l) => l.mode)).toEqual(["WALK"]);
    expect(transfers[0]!.startTime).toBe(quick[0]!.startTime);
    expect(transfers[0]!.endTime).toBe(quick[0]!.endTime);
    // the rides follow, arriving after it
    expect(transfers.length).toBe(3);
    for (const it of transfers.slice(1)) {
      expect(rides(it)).not.toBe("");
      expect(it.endTime).toBeGreaterThanOrEqual(transfers[0]!.endTime);
    }
  });

});
