/**
 * FEATURE UNDER TEST: GET /api/v2/routing/otp/reachability (server/planner/reachability.ts) on the
 * real server over BART's real timetable (no street dataset: walks are straight lines): the
 * earliest arrival at every stop within maxTravelTime, checked against the plan's
 * includeEarliestArrivals (the same search, other code path), against direct rides computed from
 * the raw GTFS files, and for its bounds, mode filters and errors.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { gtfs, importedDataset } from "../support/dataset.ts";
import { hmsToSec, readRawGtfs } from "../support/raw-gtfs.ts";
import { startServer, type RunningServer } from "../../server/main.ts";
import { serverConfigFrom } from "../../server/config.ts";
import { haversineM } from "../../shared/geo.ts";

type Json = Record<string, any>;
const quiet = { info() {}, warn() {}, error() {} };
let server: RunningServer;

const EMBR = { lat: 37.792874, lon: -122.39702 }; // Embarcadero's stop coordinates
const DATE = "2019-02-12"; // a Tuesday of bart.zip's service
const DEPART = Date.UTC(2019, 1, 12, 16, 0, 0); // 08:00 in San Francisco (PST, UTC-8)

beforeAll(async () => {
  const dir = await importedDataset("reachability-bart", ["bart"]);
  server = await startServer(serverConfigFrom({ data: dir, port: 0, host: "127.0.0.1", noAuth: true }), { log: quiet });
});
afterAll(() => server?.stop());

const reach = async (q: Record<string, string>) => {
  const r = await fetch(`${server.url}/api/v2/routing/otp/reachability?${new URLSearchParams(q)}`);
  return { status: r.status, body: (await r.json()) as Json };
};
const base = { fromPlace: `${EMBR.lat},${EMBR.lon}`, date: DATE, time: "08:00" };

describe("transit reachability", () => {
  test("every stop within the time, by travel time, with its arrival and the departure's local date, time and zone", async () => {
    const { status, body } = await reach({ ...base, maxTravelTime: "40" });
    expect(status).toBe(200);
    expect(body.requestParameters).toEqual({ ...base, maxTravelTime: "40" });
    expect(body).toMatchObject({ departure: DEPART, date: DATE, time: "08:00:00", timeZone: "America/Los_Angeles", maxTravelTime: 40, streetNetwork: false });
    const stops = body.stops as Json[];
    expect(stops.length).toBeGreaterThan(10);
    expect(stops[0]).toMatchObject({ stopId: "f-9q9-bayarearapidtransit:EMBR", stopName: "Embarcadero", travelTime: 0, arrival: DEPART });
    for (const [i, s] of stops.entries()) {
      expect(s.travelTime).toBeLessThanOrEqual(40 * 60);
      expect(s.arrival).toBe(DEPART + s.travelTime * 1000);
      if (i > 0) expect(s.travelTime).toBeGreaterThanOrEqual(stops[i - 1]!.travelTime);
      expect(s.stopId).toStartWith("f-9q9-bayarearapidtransit:");
    }
  });

  test("the same arrivals as the plan's includeEarliestArrivals (same search, from the plan endpoint)", async () => {
    const { body } = await reach({ ...base, maxTravelTime: "90" });
    const plan = (await (await fetch(`${server.url}/api/v2/routing/otp/plan?${new URLSearchParams({ ...base, toPlace: "37.8044,-122.2712", includeEarliestArrivals: "true" })}`)).json()) as Json;
    const fromPlan = new Map<string, number>();
    for (const e of plan.earliestArrivals as Json[]) if (e.earliestArrival * 1000 - DEPART <= 90 * 60_000) fromPlan.set(`f-9q9-bayarearapidtransit:${e.stopId}`, e.earliestArrival * 1000);
    expect(new Map((body.stops as Json[]).map((s) => [s.stopId, s.arrival]))).toEqual(fromPlan);
  });

  test("direct rides only (maxTransfers=0, no walk to another stop): each stop's arrival is the first trip's, from the raw GTFS", async () => {
    const { body } = await reach({ ...base, maxTravelTime: "60", maxTransfers: "0", maxWalkDistance: "50" });
    // the raw feed: trips of services running on 2019-02-12 that call at EMBR at or after 08:00
    const raw = readRawGtfs(gtfs("bart"));
    const day = "20190212";
    const running = new Set<string>();
    for (const c of raw.get("calendar.txt") ?? []) if (c.tuesday === "1" && c.start_date! <= day && c.end_date! >= day) running.add(c.service_id!);
    for (const d of raw.get("calendar_dates.txt") ?? []) if (d.date === day) d.exception_type === "1" ? running.add(d.service_id!) : running.delete(d.service_id!);
    const tripsRunning = new Set((raw.get("trips.txt") ?? []).filter((t) => running.has(t.service_id!)).map((t) => t.trip_id!));
    const byTrip = new Map<string, { stop: string; seq: number; arr: number; dep: number }[]>();
    for (const st of raw.get("stop_times.txt") ?? []) {
      if (!tripsRunning.has(st.trip_id!)) continue;
      if (!byTrip.has(st.trip_id!)) byTrip.set(st.trip_id!, []);
      byTrip.get(st.trip_id!)!.push({ stop: st.stop_id!, seq: Number(st.stop_sequence), arr: hmsToSec(st.arrival_time!)!, dep: hmsToSec(st.departure_time!)! });
    }
    const best = new Map<string, number>([["EMBR", 8 * 3600]]);
    for (const sts of byTrip.values()) {
      sts.sort((a, b) => a.seq - b.seq);
      const at = sts.findIndex((s) => s.stop === "EMBR" && s.dep >= 8 * 3600);
      if (at < 0) continue;
      for (const s of sts.slice(at + 1)) if (s.arr <= 9 * 3600) best.set(s.stop, Math.min(best.get(s.stop) ?? Infinity, s.arr));
    }
    const got = new Map((body.stops as Json[]).map((s) => [String(s.stopId).split(":")[1], 8 * 3600 + s.travelTime]));
    // every stop a direct ride reaches, at that ride's arrival
    for (const [stop, sec] of best) expect(got.get(stop), stop).toBe(sec);
    // and nothing else but stops one footpath (400 m) from them
    const stopPos = new Map((raw.get("stops.txt") ?? []).map((s) => [s.stop_id!, [Number(s.stop_lat), Number(s.stop_lon)]]));
    for (const stop of got.keys()) {
      if (best.has(stop)) continue;
      const [la, lo] = stopPos.get(stop)!;
      expect([...best.keys()].some((b) => haversineM(la!, lo!, stopPos.get(b)![0]!, stopPos.get(b)![1]!) <= 400), stop).toBe(true);
    }
  });

  test("a longer time reaches a superset, at the same arrivals", async () => {
    const short = new Map(((await reach({ ...base, maxTravelTime: "20" })).body.stops as Json[]).map((s) => [s.stopId, s.arrival]));
    const long = new Map(((await reach({ ...base, maxTravelTime: "60" })).body.stops as Json[]).map((s) => [s.stopId, s.arrival]));
    expect(long.size).toBeGreaterThan(short.size);
    for (const [id, at] of short) expect(long.get(id)).toBe(at);
  });

  test("mode filters the routes: BUS (BART has none) reaches only the stops within walking distance, on foot", async () => {
    const { body } = await reach({ ...base, mode: "BUS,WALK", maxTravelTime: "60" });
    expect(body.stops.length).toBeGreaterThan(0);
    for (const s of body.stops as Json[]) {
      const m = haversineM(EMBR.lat, EMBR.lon, s.lat, s.lon);
      expect(m).toBeLessThanOrEqual(1609);
      expect(s.travelTime).toBe(Math.ceil(m / 1.33));
    }
    const subway = (await reach({ ...base, mode: "SUBWAY,WALK", maxTravelTime: "60" })).body;
    expect(subway.stops.length).toBeGreaterThan(body.stops.length);
  });

  test("nothing to reach: a date without service (NO_TRANSIT_TIMES), a place far from every stop (OUTSIDE_BOUNDS)", async () => {
    const none = await reach({ ...base, date: "2030-01-01" });
    expect(none.status).toBe(200);
    expect(none.body).toMatchObject({ error: "NO_TRANSIT_TIMES", stops: [] });
    const far = await reach({ ...base, fromPlace: "0,0" });
    expect(far.body).toMatchObject({ error: "OUTSIDE_BOUNDS", stops: [] });
  });

  test("bad parameters: 400 BOGUS_PARAMETER naming the parameter, with a message saying what is wrong", async () => {
    const cases: [Record<string, string>, string, RegExp][] = [
      [{ date: DATE }, "fromPlace", /fromPlace is required/],
      [{ ...base, maxTravelTime: "0" }, "maxTravelTime", /between 1 and 240/],
      [{ ...base, maxTravelTime: "241" }, "maxTravelTime", /between 1 and 240/],
      [{ ...base, maxTravelTime: "ten" }, "maxTravelTime", /must be an integer/],
      [{ ...base, date: "2019-02-30" }, "date", /not a calendar date/],
      [{ ...base, mode: "WALK" }, "mode", /transit network/],
      [{ ...base, mode: "CAR" }, "mode", /transit network/],
      [{ ...base, mode: "BICYCLE_RENT" }, "mode", /not available yet/],
      [{ ...base, maxTransfers: "11" }, "maxTransfers", /between 0 and 10/],
      [{ ...base, maxWalkDistance: "-1" }, "maxWalkDistance", /between 0 and 15000/],
    ];
    for (const [q, param, msg] of cases) {
      const { status, body } = await reach(q);
      expect(status, param).toBe(400);
      expect(body.error.message).toBe("BOGUS_PARAMETER");
      expect(body.error.missing).toEqual([param]);
      expect(body.error.msg).toMatch(msg);
      expect(body.requestParameters).toEqual(q);
    }
  });

  test("/docs describes it with its parameters", async () => {
    const doc = (await (await fetch(`${server.url}/docs/json`)).json()) as Json;
    const op = doc.paths["/api/v2/routing/otp/reachability"]?.get;
    expect(op).toBeDefined();
    expect(op.parameters.map((p: Json) => p.name)).toEqual(["fromPlace", "date", "time", "mode", "maxTravelTime", "maxWalkDistance", "walkSpeed", "bikeSpeed", "maxTransfers", "wheelchair"]);
  });
});
