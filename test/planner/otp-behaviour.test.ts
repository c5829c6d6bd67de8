/**
 * FEATURE UNDER TEST: the plan endpoint behaving as OpenTripPlanner 1 does, on the real server
 * (port 0) over real feeds: the response's top level (requestParameters echo, plan or error,
 * elevationMetadata), numItineraries honoured by widening the search, TOO_CLOSE, no plan beside
 * PATH_NOT_FOUND, OTP1's error texts, CORS on the plan and catalog endpoints (also on 400, 401 and
 * 429 answers), and two bugs found on real feeds: short trips answered with loops (BART) and a feed
 * whose feed_info.txt dates lie a year before its calendar (BART, feed_info rewritten).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { unzipSync } from "fflate";
import { gtfs, importedDataset, tempDir } from "../support/dataset.ts";
import { importFeed } from "../../pipeline/import.ts";
import { refreshTimetable } from "../../pipeline/timetable/publish.ts";
import { startServer, type RunningServer } from "../../server/main.ts";
import { serverConfigFrom } from "../../server/config.ts";
import { revisits } from "../../server/planner/plan-service.ts";
import type { Journey, StopIdx } from "../../server/planner/api.ts";
import type { ImportReport } from "../../pipeline/report.ts";

const quiet = { info() {}, warn() {}, error() {} };
const KEY = "otp-behaviour-test-key";
let caltrain: RunningServer;
let keyed: RunningServer;
let bart: RunningServer;
let bartDir: string;
let bartEarlyInfo: RunningServer;
let earlyInfoReport: ImportReport;

const serve = (data: string, apiKeys?: string) => startServer(serverConfigFrom({ data, port: 0, host: "127.0.0.1", noAuth: !apiKeys, apiKeys }), { log: quiet });

/** bart.zip with feed_info.txt's dates a year before its calendar (2019-02-11..2020-02-10). */
function bartWithEarlyFeedInfo(): string {
  const dir = join(tempDir("interchange-bart-early-info-"), "gtfs");
  mkdirSync(dir);
  for (const [name, bytes] of Object.entries(unzipSync(readFileSync(gtfs("bart"))))) writeFileSync(join(dir, name), bytes);
  const info = readFileSync(join(dir, "feed_info.txt"), "utf8");
  expect(info).toContain("20190211,20200210");
  writeFileSync(join(dir, "feed_info.txt"), info.replace("20190211,20200210", "20180211,20190210"));
  return dir;
}

beforeAll(async () => {
  const caltrainDir = await importedDataset("planner-caltrain", ["caltrain"]);
  caltrain = await serve(caltrainDir);
  const keys = join(tempDir("interchange-keys-"), "keys.json");
  writeFileSync(keys, JSON.stringify([{ key: KEY, account: "otp", rate_limit_per_minute: 6 }]));
  keyed = await serve(caltrainDir, keys);
  bartDir = await importedDataset("planner-bart", ["bart"]);
  bart = await serve(bartDir);
  const earlyDir = tempDir("interchange-bart-early-");
  earlyInfoReport = await importFeed({ dataDir: earlyDir, source: bartWithEarlyFeedInfo() });
  expect(earlyInfoReport.status).toBe("imported");
  await refreshTimetable(earlyDir);
  bartEarlyInfo = await serve(earlyDir);
});
afterAll(async () => {
  for (const s of [caltrain, keyed, bart, bartEarlyInfo]) await s?.stop();
});

const planUrl = (s: RunningServer, q: string | Record<string, string>) => `${s.url}/api/v2/routing/otp/plan?${typeof q === "string" ? q : new URLSearchParams(q)}`;
const get = async (s: RunningServer, q: string | Record<string, string>, headers: Record<string, string> = {}) => {
  const r = await fetch(planUrl(s, q), { headers });
  return { status: r.status, headers: r.headers, body: (await r.json()) as Record<string, any> };
};
// San Francisco 4th & King -> Palo Alto, a Tuesday of the 2023-2024 Caltrain feed
const base = { fromPlace: "SF::37.7764,-122.3943", toPlace: "37.4434,-122.1650", date: "2023-10-17", time: "8:00am" };
/** Embarcadero BART (37.792874, -122.397020): two points 44 m apart, 22 m north and south of it */
const EMBR = { fromPlace: "37.793074,-122.397020", toPlace: "37.792674,-122.397020" };
type Leg = { mode: string; transitLeg: boolean; from: { stopId?: string }; to: { stopId?: string } };
type Itin = { startTime: number; endTime: number; duration: number; legs: Leg[] };

describe("OTP1 response body", () => {
  test("requestParameters echoes the query (first value of each, strings, no apikey); keys in OTP1's order", async () => {
    const q = "fromPlace=SF%3A%3A37.7764%2C-122.3943&toPlace=37.4434,-122.1650&date=2023-10-17&time=8:00am&numItineraries=2&numItineraries=5&arriveBy=false&foo=bar+baz";
    const { status, body } = await get(caltrain, q);
    expect(status).toBe(200);
    expect(Object.keys(body)).toEqual(["requestParameters", "plan", "elevationMetadata"]);
    expect(body.requestParameters).toEqual({ fromPlace: "SF::37.7764,-122.3943", toPlace: "37.4434,-122.1650", date: "2023-10-17", time: "8:00am", numItineraries: "2", arriveBy: "false", foo: "bar baz" });
    expect(body.plan.itineraries.length).toBe(2); // the first numItineraries counts
    expect(body.elevationMetadata).toEqual({ ellipsoidToGeoidDifference: 0, geoidElevation: false });
    const keyedRes = await get(keyed, { ...base, apikey: KEY });
    expect(keyedRes.status).toBe(200);
    expect(keyedRes.body.requestParameters).toEqual(base);
  });

  test("a clamped parameter is echoed as sent and reported in x-interchange-warning", async () => {
    const r = await get(caltrain, { ...base, maxWalkDistance: "20000", numItineraries: "2" });
    expect(r.status).toBe(200);
    expect(r.body.requestParameters.maxWalkDistance).toBe("20000");
    expect(r.headers.get("x-interchange-warning")).toContain("maxWalkDistance clamped to");
    expect(r.headers.get("access-control-expose-headers")).toBe("x-interchange-warning");
    expect((await get(caltrain, base)).headers.get("x-interchange-warning")).toBeNull();
  });

  test("an error answer has requestParameters and error, no plan", async () => {
    const { status, body } = await get(caltrain, { ...base, toPlace: "0,0" });
    expect(status).toBe(200);
    expect(Object.keys(body)).toEqual(["requestParameters", "error", "elevationMetadata"]);
    expect(body.error).toEqual({ id: 400, msg: "Trip is not possible.  You might be trying to plan a trip outside the map data boundary.", message: "OUTSIDE_BOUNDS", noPath: true, missing: ["to"] });
    const bogus = await get(caltrain, { ...base, time: "noonish" });
    expect(bogus.status).toBe(400); // ours: OTP1 answers some unparsable values with a 500
    expect(bogus.body.requestParameters).toEqual({ ...base, time: "noonish" });
    expect(bogus.body.error.msg).toStartWith("The request has errors that the server is not willing or able to process.");
    expect(bogus.body.plan).toBeUndefined();
  });
});

describe("errors as OTP1 gives them", () => {
  test("TOO_CLOSE (409) when origin and destination coincide, also for a walk", async () => {
    for (const extra of [{}, { mode: "WALK" }] as Record<string, string>[]) {
      const { status, body } = await get(caltrain, { ...base, toPlace: base.fromPlace.replace("SF::", ""), ...extra });
      expect(status).toBe(200);
      expect(body.plan).toBeUndefined();
      expect(body.error).toEqual({ id: 409, msg: "Origin is within a trivial distance of the destination.", message: "TOO_CLOSE", noPath: true });
    }
    // 45 m apart is a trip (walked: see the loop regression below)
    expect((await get(bart, { ...EMBR, date: "2019-06-04", time: "08:00" })).body.plan.itineraries.length).toBeGreaterThan(0);
  });

  test("PATH_NOT_FOUND and NO_TRANSIT_TIMES come without a plan, with OTP1's texts", async () => {
    const noPath = await get(caltrain, { ...base, maxWalkDistance: "10", fromPlace: "37.60,-122.45", toPlace: "37.30,-121.95" });
    expect(noPath.status).toBe(200);
    expect(noPath.body.plan).toBeUndefined();
    expect(noPath.body.error).toEqual({
      id: 404,
      msg: "No trip found. There may be no transit service within the maximum specified distance or at the specified time, or your start or end point might not be safely accessible.",
      message: "PATH_NOT_FOUND",
      noPath: true,
    });
    const noTimes = await get(caltrain, { ...base, date: "2010-01-01" });
    expect(noTimes.body.plan).toBeUndefined();
    expect(noTimes.body.error).toEqual({
      id: 406,
      msg: "No transit times available. The date may be past or too far in the future or there may not be transit service for your trip at the time you chose.",
      message: "NO_TRANSIT_TIMES",
      noPath: true,
    });
  });
});

describe("numItineraries", () => {
  test("6 asked gives 6 (the search widens past the one-hour window)", async () => {
    const { body } = await get(caltrain, { ...base, numItineraries: "6" });
    const its = body.plan.itineraries as Itin[];
    expect(its.length).toBe(6);
    const starts = its.map((i) => i.startTime);
    expect(new Set(starts).size).toBe(6);
    expect(Math.max(...starts)).toBeGreaterThan(Date.parse("2023-10-17T16:00:00Z")); // past 09:00 local: the window was widened
    // best first: by arrival
    const ends = its.map((i) => i.endTime);
    expect(ends).toEqual([...ends].sort((a, b) => a - b));
  });

  test("late evening gives more than one where service exists (into the night and next morning), arriveBy too", async () => {
    const late = await get(caltrain, { ...base, time: "22:30", numItineraries: "3" });
    const its = late.body.plan.itineraries as Itin[];
    expect(its.length).toBe(3);
    for (const it of its) expect(it.legs.some((l) => l.transitLeg)).toBe(true);
    expect(its[2]!.startTime).toBeGreaterThan(Date.parse("2023-10-18T07:00:00Z")); // after midnight local
    const early = await get(caltrain, { ...base, time: "06:00", arriveBy: "true", numItineraries: "4" });
    const back = early.body.plan.itineraries as Itin[];
    expect(back.length).toBe(4);
    for (const it of back) expect(it.endTime).toBeLessThanOrEqual(Date.parse("2023-10-17T13:00:00Z"));
    expect(Math.min(...back.map((i) => i.endTime))).toBeLessThan(Date.parse("2023-10-17T07:00:00Z")); // the evening before
  });
});

describe("CORS", () => {
  const catalog = (s: RunningServer, path: string, init: RequestInit = {}) => fetch(`${s.url}/api/v2/rest${path}`, init);
  const preflight = { method: "OPTIONS", headers: { origin: "https://example.org", "access-control-request-method": "GET", "access-control-request-headers": "apikey" } };

  test("preflight on the plan and catalog endpoints: 204 with the CORS headers, no API key needed", async () => {
    for (const r of [await fetch(planUrl(keyed, base), preflight), await catalog(keyed, "/stops", preflight), await catalog(keyed, "/routes/x/trips.geojson", preflight)]) {
      expect(r.status).toBe(204);
      expect(r.headers.get("access-control-allow-origin")).toBe("*");
      expect(r.headers.get("access-control-allow-methods")).toContain("GET");
      expect(r.headers.get("access-control-allow-headers")).toContain("apikey");
    }
  });

  test("Access-Control-Allow-Origin on every answer, errors included (400, 401, 429)", async () => {
    const h = (r: { headers: Headers }) => r.headers.get("access-control-allow-origin");
    const plan = await get(caltrain, base);
    expect([plan.status, h(plan)]).toEqual([200, "*"]);
    const bogus = await get(caltrain, { ...base, numItineraries: "0" });
    expect([bogus.status, h(bogus)]).toEqual([400, "*"]);
    const stops = await catalog(caltrain, "/stops?limit=1");
    expect([stops.status, h(stops)]).toEqual([200, "*"]);
    const streamed = await catalog(caltrain, "/stops.geojsonl?limit=2"); // a streamed answer
    expect([streamed.status, h(streamed)]).toEqual([200, "*"]);
    await streamed.arrayBuffer();
    const badLimit = await catalog(caltrain, "/stops?limit=0");
    expect([badLimit.status, h(badLimit)]).toEqual([400, "*"]);
    const unknown = await catalog(caltrain, "/stops/999999999");
    expect([unknown.status, h(unknown)]).toEqual([404, "*"]);
    // auth on: no key
    const noKey = await fetch(planUrl(keyed, base));
    expect([noKey.status, h(noKey)]).toEqual([401, "*"]);
    const noKeyCatalog = await catalog(keyed, "/stops");
    expect([noKeyCatalog.status, h(noKeyCatalog)]).toEqual([401, "*"]);
    // over the key's 6 requests a minute (one was spent by the echo test's request)
    let last: Response | null = null;
    for (let i = 0; i < 8; i++) last = await catalog(keyed, "/stops?limit=1", { headers: { apikey: KEY } });
    expect([last!.status, h(last!)]).toEqual([429, "*"]);
    // the street endpoints keep theirs; /health has none
    expect(h(await fetch(`${caltrain.url}/health`))).toBeNull();
  });
});

describe("bugs found on real feeds", () => {
  test("a short trip is walked, not ridden away and back (BART, 44 m apart at Embarcadero)", async () => {
    for (const extra of [{}, { numItineraries: "6" }, { arriveBy: "true" }, { time: "17:40" }] as Record<string, string>[]) {
      const { body } = await get(bart, { ...EMBR, date: "2019-06-04", time: "08:00", ...extra });
      const its = body.plan.itineraries as Itin[];
      // walking takes 34 s; before the fix two of three itineraries rode EMBR -> MONT -> EMBR (274-349 s)
      expect(its.map((i) => [i.duration, i.legs.map((l) => l.mode)])).toEqual([[34, ["WALK"]]]);
    }
  });

  test("no itinerary of 40 random BART plans visits a stop twice or arrives after walking would", async () => {
    let seed = 11;
    const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    const stations = [
      [37.792874, -122.39702], [37.789405, -122.401066], [37.784471, -122.407974], [37.779732, -122.414123], [37.765062, -122.419694],
      [37.803768, -122.27145], [37.80835, -122.268602], [37.797357, -122.265232], [37.870104, -122.268133], [37.752470, -122.418143],
    ] as const;
    let transit = 0;
    for (let i = 0; i < 40; i++) {
      const [a, b] = [stations[Math.floor(rand() * stations.length)]!, stations[Math.floor(rand() * stations.length)]!];
      const from = `${a[0] + (rand() - 0.5) * 0.01},${a[1] + (rand() - 0.5) * 0.01}`;
      const to = `${b[0] + (rand() - 0.5) * 0.01},${b[1] + (rand() - 0.5) * 0.01}`;
      const hour = 6 + Math.floor(rand() * 16);
      const { body } = await get(bart, { fromPlace: from, toPlace: to, date: "2019-06-04", time: `${hour}:${String(Math.floor(rand() * 60)).padStart(2, "0")}`, numItineraries: "4" });
      const its = body.plan.itineraries as Itin[];
      const walk = its.find((it) => it.legs.every((l) => l.mode === "WALK"));
      for (const it of its) {
        // boarding and alighting stops; staying at a stop to board the next ride is one visit
        const visits: (string | undefined)[] = [];
        for (const l of it.legs.filter((x) => x.transitLeg)) {
          if (visits[visits.length - 1] !== l.from.stopId) visits.push(l.from.stopId);
          visits.push(l.to.stopId);
        }
        expect({ i, visits, unique: new Set(visits).size }).toEqual({ i, visits, unique: visits.length });
        if (walk && it !== walk) expect(it.endTime).toBeLessThan(walk.endTime);
        if (it.legs.some((l) => l.transitLeg)) transit++;
      }
    }
    expect(transit).toBeGreaterThan(40);
  });

  test("loops: a stop, or a station (parent_station), visited twice; a transfer inside a station is one visit", () => {
    const ride = (fromStop: number, toStop: number) => ({ kind: "ride" as const, route: 0 as never, trip: 0 as never, slot: 0, boardPos: 0, alightPos: 1, fromStop: fromStop as StopIdx, toStop: toStop as StopIdx, depSec: 0, arrSec: 0 });
    const j = (...rides: [number, number][]): Journey => ({ departSec: 0, arriveSec: 0, rides: rides.length, legs: rides.map(([a, b]) => ride(a, b)) });
    // stops 0..5; 1 and 2 are platforms of station 100, 4 and 5 of station 200
    const station = Int32Array.from([-1, 100, 100, -1, 200, 200]);
    expect(revisits(j([0, 3], [3, 0]))).toBe(true); // away and back
    expect(revisits(j([0, 3], [3, 4]))).toBe(false);
    expect(revisits(j([1, 3], [3, 2]), station)).toBe(true); // back to the same station, other platform
    expect(revisits(j([1, 3], [3, 2]))).toBe(false); // without stations: two stops
    expect(revisits(j([0, 4], [5, 3]), station)).toBe(false); // platform change inside station 200
    expect(revisits(j([0, 4], [5, 3], [3, 0]), station)).toBe(true);
    expect(revisits(j([1, 2]), station)).toBe(true); // one ride from a station back to it (a loop route)
  });

  test("feed_info dates a year before the calendar: the planner plans on the calendar's dates; the import warns", async () => {
    const { body } = await get(bartEarlyInfo, { ...EMBR, toPlace: "37.803768,-122.271450", date: "2019-06-04", time: "08:00" });
    expect(body.error).toBeUndefined();
    expect((body.plan.itineraries as Itin[]).some((it) => it.legs.some((l) => l.transitLeg))).toBe(true);
    // the calendar's last day still plans; a date only feed_info names does not
    expect((await get(bartEarlyInfo, { ...EMBR, toPlace: "37.803768,-122.271450", date: "2020-02-10", time: "08:00" })).body.plan).toBeDefined();
    expect((await get(bartEarlyInfo, { ...EMBR, toPlace: "37.803768,-122.271450", date: "2018-06-05", time: "08:00" })).body.error.message).toBe("NO_TRANSIT_TIMES");
    const w = earlyInfoReport.warnings.feed_info_dates_outside_calendars;
    expect(w?.count).toBe(1);
    expect(w?.examples[0]!.message).toContain("(2018-02-11..2019-02-10)");
    expect(w?.examples[0]!.message).toContain("(2019-02-11..2020-02-10)");
    // the real feed's dates agree with its calendar: no warning
    const reports = readdirSync(join(bartDir, "reports")).filter((f) => f.endsWith("-imported.json"));
    expect(reports.length).toBe(1);
    const plain = JSON.parse(readFileSync(join(bartDir, "reports", reports[0]!), "utf8")) as ImportReport;
    expect(plain.warnings.feed_info_dates_outside_calendars).toBeUndefined();
  });
});
