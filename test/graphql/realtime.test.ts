/**
 * The GTFS GraphQL API's realtime on Caltrain's recorded trip updates (caltrain-trip-updates.pb) and
 * hand-made alerts, over the real server: a stop's stop times carry the same realtime times and
 * delays as the REST departures (realtime, realtimeState UPDATED), a trip's stop times on its
 * service day too, another day is scheduled; alerts with their entities and filters, and on the
 * stop, route and trip.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { runImportRt } from "../../pipeline/realtime/cli.ts";
import { alertEntity, Clock, datasetCopy, encodeFeed, feedIdOf, ingester, rtFile, rtServer, type RtServer, tr } from "../realtime/support.ts";

const CT_TS = 1699405534; // the snapshot's header, 2023-11-07 17:05:34 PST; its updates' start_date 20231107
const clock = new Clock((CT_TS + 30) * 1000);
let rt: RtServer;
let ct: string;
beforeAll(async () => {
  const data = await datasetCopy("graphql-rt", ["caltrain"]);
  ct = feedIdOf(data, "caltrain");
  const origLog = console.log;
  console.log = () => {};
  try {
    expect(await runImportRt(["--data", data, "--feed-id", ct, "--retention-days", "0", rtFile("caltrain-trip-updates.pb")])).toBe(0);
  } finally {
    console.log = origLog;
  }
  const ing = await ingester(data, "poller");
  try {
    const bytes = encodeFeed(CT_TS, [
      alertEntity("stop", [{ stopId: "70242" }], { headerText: tr("Platform 2 closed"), cause: "CONSTRUCTION", effect: "STOP_MOVED", severityLevel: "WARNING" }),
      alertEntity("route", [{ routeId: "L1" }], { headerText: tr("Local: single tracking"), descriptionText: tr("Expect 10 minutes"), cause: "MAINTENANCE", effect: "SIGNIFICANT_DELAYS" }),
      alertEntity("trip", [{ trip: { tripId: "124" } }], { headerText: tr("Train 124 short") }),
    ]);
    const [r] = await ing.ingest(ct, "alerts", bytes, "hand-made", new Date(CT_TS * 1000));
    expect(r!.outcome).toBe("accepted");
  } finally {
    ing.close();
  }
  rt = await rtServer(data, clock);
}, 180_000);
afterAll(() => rt?.stop());

async function data(query: string, variables?: Record<string, unknown>): Promise<any> {
  const r = await fetch(`${rt.url}/otp/gtfs/v1`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query, variables }) });
  const body = (await r.json()) as any;
  if (r.status !== 200 || body.errors) throw new Error(`${r.status} ${JSON.stringify(body.errors)}`);
  return body.data;
}
const sec = (h: string | null) => (h === null ? null : h.split(":").reduce((a, x) => a * 60 + Number(x), 0));

describe("realtime stop times", () => {
  test("stoptimesWithoutPatterns at 70242: the REST departures' realtime times and delays, UPDATED where a trip update applies", async () => {
    const start = Date.parse("2023-11-07T17:00:00-08:00") / 1000;
    const d = await data(`{ stop(id: "${ct}:70242") { stoptimesWithoutPatterns(startTime: ${start}, timeRange: 25200, numberOfDepartures: 100) {
      scheduledDeparture realtimeDeparture departureDelay realtimeArrival arrivalDelay realtime realtimeState serviceDay trip { gtfsId } } } }`);
    const ours = d.stop.stoptimesWithoutPatterns;
    const rest = (await rt.json(`/api/v2/rest/stops/${ct}:70242/departures?date=2023-11-07&start_time=17:00:00&end_time=23:59:59&limit=100`)).stops[0].departures;
    expect(ours.map((x: any) => x.trip.gtfsId)).toEqual(rest.map((x: any) => `${ct}:${x.trip.trip_id}`));
    let updated = 0;
    rest.forEach((x: any, i: number) => {
      const g = ours[i];
      expect(g.scheduledDeparture).toBe(sec(x.departure_time));
      if (x.schedule_relationship === "STATIC") {
        expect([g.realtime, g.realtimeState, g.departureDelay, g.realtimeDeparture]).toEqual([false, "SCHEDULED", 0, g.scheduledDeparture]);
      } else {
        updated++;
        expect(g.realtime).toBe(true);
        expect(g.realtimeState).toBe("UPDATED");
        expect(g.realtimeDeparture).toBe(sec(x.realtime_departure_time) ?? g.scheduledDeparture);
        expect(g.departureDelay).toBe(x.departure_delay ?? 0);
      }
    });
    expect(updated).toBeGreaterThan(0);
    const t124 = ours.find((x: any) => x.trip.gtfsId === `${ct}:124`);
    expect([t124.scheduledDeparture, t124.realtimeDeparture, t124.departureDelay, t124.realtimeState]).toEqual([sec("17:09:00"), sec("17:09:00")! + 61, 61, "UPDATED"]);
  });

  test("trip 124: stoptimesForDate on the update's day is realtime, a week later scheduled", async () => {
    const q = `query($d: String) { trip(id: "${ct}:124") { stoptimesForDate(serviceDate: $d) { stop { gtfsId } realtime realtimeState departureDelay } } }`;
    const on = (await data(q, { d: "20231107" })).trip.stoptimesForDate;
    expect(on.find((x: any) => x.stop.gtfsId === `${ct}:70242`)).toMatchObject({ realtime: true, realtimeState: "UPDATED", departureDelay: 61 });
    const later = (await data(q, { d: "20231114" })).trip.stoptimesForDate;
    expect(later.length).toBe(on.length);
    expect(later.every((x: any) => !x.realtime && x.realtimeState === "SCHEDULED" && x.departureDelay === 0)).toBe(true);
  });
});

describe("alerts", () => {
  test("alerts: all three with their entities, cause, effect, severity and texts; filters narrow them", async () => {
    const d = await data(`{ alerts { alertHeaderText alertDescriptionText alertCause alertEffect alertSeverityLevel feed entities { __typename ... on Stop { gtfsId } ... on Route { gtfsId } ... on Trip { gtfsId } } } }`);
    const byHead = Object.fromEntries(d.alerts.map((a: any) => [a.alertHeaderText, a]));
    expect(Object.keys(byHead).sort()).toEqual(["Local: single tracking", "Platform 2 closed", "Train 124 short"]);
    expect(byHead["Platform 2 closed"]).toMatchObject({ alertCause: "CONSTRUCTION", alertEffect: "STOP_MOVED", alertSeverityLevel: "WARNING", feed: ct, entities: [{ __typename: "Stop", gtfsId: `${ct}:70242` }] });
    expect(byHead["Local: single tracking"]).toMatchObject({ alertCause: "MAINTENANCE", alertEffect: "SIGNIFICANT_DELAYS", alertDescriptionText: "Expect 10 minutes", entities: [{ __typename: "Route", gtfsId: `${ct}:L1` }] });
    expect(byHead["Train 124 short"].entities).toEqual([{ __typename: "Trip", gtfsId: `${ct}:124` }]);
    const f = await data(`{ a: alerts(stop: ["${ct}:70242"]) { alertHeaderText } b: alerts(cause: [MAINTENANCE]) { alertHeaderText } c: alerts(severityLevel: [SEVERE]) { alertHeaderText } e: alerts(feeds: ["nope"]) { alertHeaderText } r: alerts(route: ["${ct}:L1"]) { alertHeaderText } }`);
    expect([f.a, f.b, f.c, f.e, f.r]).toEqual([[{ alertHeaderText: "Platform 2 closed" }], [{ alertHeaderText: "Local: single tracking" }], [], [], [{ alertHeaderText: "Local: single tracking" }]]);
  });

  test("Stop.alerts, Route.alerts, Trip.alerts: each entity's own", async () => {
    const d = await data(`{ stop(id: "${ct}:70242") { alerts { alertHeaderText } } route(id: "${ct}:L1") { alerts { alertHeaderText } } trip(id: "${ct}:124") { alerts { alertHeaderText } route { gtfsId } all: alerts(types: [TRIP, ROUTE, STOPS_ON_TRIP]) { alertHeaderText } } }`);
    expect(d.stop.alerts).toEqual([{ alertHeaderText: "Platform 2 closed" }]);
    expect(d.route.alerts).toEqual([{ alertHeaderText: "Local: single tracking" }]);
    expect(d.trip.alerts).toEqual([{ alertHeaderText: "Train 124 short" }]);
    const all = d.trip.all.map((a: any) => a.alertHeaderText).sort();
    expect(all).toEqual(["Platform 2 closed", "Train 124 short", ...(d.trip.route.gtfsId === `${ct}:L1` ? ["Local: single tracking"] : [])].sort());
  });
});
