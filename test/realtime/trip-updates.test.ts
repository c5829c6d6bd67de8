/**
 * FEATURE UNDER TEST: trip updates in the catalog (issue 20 item 4): a trip's schedule_relationship
 * from the current trip updates snapshot, and each stop_time's realtime arrival/departure and
 * delay beside the scheduled ones (Caltrain's real feed against caltrain.zip; hand-made updates
 * for delay propagation, skipped stops, cancellations and the maximum age).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { runImportRt } from "../../pipeline/realtime/cli.ts";
import { Clock, datasetCopy, encodeFeed, feedIdOf, ingester, rtFile, rtServer, type RtServer } from "./support.ts";

const CT_TS = 1699405534; // caltrain-trip-updates.pb header, 2023-11-08T01:05:34Z
const CT_DAY_START = 1699344000; // 2023-11-07 00:00 in America/Los_Angeles (PST), the updates' start_date
const MAX_AGE_S = 600;

let data: string;
let ct: string;
let bart: string;
let s: RtServer;
const clock = new Clock((CT_TS + 30) * 1000);
const origLog = console.log;

beforeAll(async () => {
  data = await datasetCopy("trip-updates", ["caltrain", "bart"]);
  ct = feedIdOf(data, "caltrain");
  bart = feedIdOf(data, "bart");
  console.log = () => {};
  try {
    expect(await runImportRt(["--data", data, "--feed-id", ct, "--retention-days", "0", rtFile("caltrain-trip-updates.pb")])).toBe(0);
  } finally {
    console.log = origLog;
  }
  s = await rtServer(data, clock, MAX_AGE_S);
});
afterAll(() => s?.stop());

const tripsOf = (feed: string, route: string, q: string) => s.json(`/api/v2/rest/routes/${encodeURIComponent(`${feed}:${route}`)}/trips?${q}`);
const oneTrip = async (feed: string, route: string, tripId: string) => {
  const [listed] = (await tripsOf(feed, route, `trip_id=${tripId}`)).trips;
  return (await s.json(`/api/v2/rest/routes/${encodeURIComponent(`${feed}:${route}`)}/trips/${listed.id}`)).trips[0];
};
const rt = (st: any) => [st.stop_sequence, st.departure_time, st.realtime_arrival_time, st.arrival_delay, st.realtime_departure_time, st.departure_delay, st.realtime_schedule_relationship];

describe("Caltrain trip updates (caltrain-trip-updates.pb) on caltrain.zip", () => {
  test("schedule_relationship: SCHEDULED for a trip with an update, STATIC for one without", async () => {
    const list = (await tripsOf(ct, "L1", "limit=100")).trips;
    const byId = new Map<string, any>(list.map((t: any) => [t.trip_id, t]));
    expect(byId.get("124").schedule_relationship).toBe("SCHEDULED");
    const without = list.find((t: any) => !["124", "125", "126", "127"].includes(t.trip_id) && t.schedule_relationship === "STATIC");
    expect(without).toBeDefined();
  });

  test("stop_times of trip 124: realtime times and delays from the updates, carried on after the last one, null before the first", async () => {
    const t = await oneTrip(ct, "L1", "124");
    expect(t.stop_times).toHaveLength(23);
    const hms = (unix: number) => {
      const x = unix - CT_DAY_START;
      const p = (n: number) => String(n).padStart(2, "0");
      return `${p(Math.floor(x / 3600))}:${p(Math.floor((x % 3600) / 60))}:${p(x % 60)}`;
    };
    expect(t.stop_times.slice(17).map(rt)).toEqual([
      [18, "16:50:00", null, null, null, null, null],
      [19, "16:55:00", null, null, null, null, null],
      // seq 20: a departure time only (1699405504)
      [20, "17:03:00", null, null, hms(1699405504), 124, "SCHEDULED"],
      [21, "17:09:00", hms(1699405801), 61, hms(1699405801), 61, "SCHEDULED"],
      [22, "17:16:00", hms(1699406176), 16, hms(1699406176), 16, "SCHEDULED"],
      // seq 23: an arrival only; its departure carries the arrival's delay
      [23, "17:21:00", hms(1699406518), 58, "17:21:58", 58, "SCHEDULED"],
    ]);
    for (const st of t.stop_times.slice(0, 17)) expect(rt(st).slice(2)).toEqual([null, null, null, null, null]);
  });

  test("after the maximum age the updates are dropped: STATIC, realtime fields null", async () => {
    clock.setS(CT_TS + MAX_AGE_S + 1);
    const t = await oneTrip(ct, "L1", "124");
    expect(t.schedule_relationship).toBe("STATIC");
    for (const st of t.stop_times) expect(st.realtime_departure_time).toBeNull();
    expect((await s.json("/health")).features.realtime.feeds[ct].trip_updates).toMatchObject({ serving: false, not_served: expect.stringContaining("maximum age") });
  });
});

describe("hand-made trip updates on bart.zip", () => {
  const TRIP = "3610458WKDY"; // route 1, weekdays
  const H = 1559660400; // 2019-06-04T15:00:00Z (a Tuesday), 08:00 in San Francisco

  beforeAll(async () => {
    const raw = (await oneTrip(bart, "1", TRIP)).stop_times;
    const seq = (i: number) => raw[i].stop_sequence;
    const ing = await ingester(data, "poller", MAX_AGE_S);
    try {
      const bytes = encodeFeed(H, [
        {
          id: "delays",
          tripUpdate: {
            trip: { tripId: TRIP, routeId: "1", startDate: "20190604" },
            stopTimeUpdate: [
              { stopSequence: seq(2), arrival: { delay: 120 }, departure: { delay: 180 } },
              { stopSequence: seq(4), scheduleRelationship: "SKIPPED" },
              { stopId: raw[6].stop.stop_id, departure: { delay: -30 } },
              { stopSequence: seq(8), scheduleRelationship: "NO_DATA" },
            ],
          },
        },
        { id: "canceled", tripUpdate: { trip: { tripId: "3630503WKDY", scheduleRelationship: "CANCELED" } } },
        { id: "late", tripUpdate: { trip: { tripId: "3650518WKDY" }, delay: 300 } },
      ]);
      const [r] = await ing.ingest(bart, "trip_updates", bytes, "hand-made", new Date(H * 1000));
      expect(r!.outcome).toBe("accepted");
    } finally {
      ing.close();
    }
    clock.setS(H);
    await s.refreshRealtime();
  });

  test("delays by stop_sequence and by stop_id, propagated until a SKIPPED or NO_DATA stop", async () => {
    const t = await oneTrip(bart, "1", TRIP);
    expect(t.schedule_relationship).toBe("SCHEDULED");
    const sec = (h: string | null) => (h === null ? null : h.split(":").reduce((a, x) => a * 60 + Number(x), 0));
    const got = t.stop_times.slice(0, 10).map((st: any) => [st.arrival_delay, st.departure_delay, st.realtime_schedule_relationship]);
    expect(got).toEqual([
      [null, null, null],
      [null, null, null],
      [120, 180, "SCHEDULED"],
      [180, 180, "SCHEDULED"], // carried
      [null, null, "SKIPPED"],
      [180, 180, "SCHEDULED"], // carried past the skipped stop
      [180, -30, "SCHEDULED"], // matched by stop_id: arrival carried, departure -30
      [-30, -30, "SCHEDULED"],
      [null, null, "NO_DATA"],
      [null, null, null], // NO_DATA ends the propagation
    ]);
    for (const st of t.stop_times.slice(0, 8)) {
      if (st.arrival_delay !== null) expect(sec(st.realtime_arrival_time)).toBe(sec(st.arrival_time)! + st.arrival_delay);
      if (st.departure_delay !== null) expect(sec(st.realtime_departure_time)).toBe(sec(st.departure_time)! + st.departure_delay);
    }
  });

  test("a CANCELED trip; a trip-level delay without stop updates applies to every stop", async () => {
    const c = await oneTrip(bart, "1", "3630503WKDY");
    expect(c.schedule_relationship).toBe("CANCELED");
    for (const st of c.stop_times) expect(st.realtime_schedule_relationship).toBe("SKIPPED");
    const l = await oneTrip(bart, "1", "3650518WKDY");
    expect(l.schedule_relationship).toBe("SCHEDULED");
    for (const st of l.stop_times) expect([st.arrival_delay, st.departure_delay]).toEqual([300, 300]);
  });
});
