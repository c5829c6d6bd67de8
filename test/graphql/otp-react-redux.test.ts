/**
 * The stop, route and trip queries otp-react-redux sends (test/fixtures/otp-react-redux, copied
 * from its source) against BART and Caltrain on the real server: each answers without errors, and
 * the data is what its screens need (departures in time order, pattern stops on the route, the
 * stop asked, routes of the stop matching its patterns).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import polyline from "@mapbox/polyline";
import { catalogServer, type TestServer } from "../catalog/harness.ts";

const NOW = Date.parse("2019-06-04T15:00:00Z"); // 08:00 PDT on a BART Tuesday
let s: TestServer;
let bart: string;
beforeAll(async () => {
  s = await catalogServer("graphql-bart-caltrain", ["bart", "caltrain"], { now: () => NOW });
  bart = s.feedId("bart");
}, 180_000);
afterAll(() => s?.stop());

const fixture = (name: string, fill: Record<string, string | number> = {}) => {
  let q = readFileSync(join(import.meta.dir, "..", "fixtures", "otp-react-redux", `${name}.graphql`), "utf8");
  for (const [k, v] of Object.entries(fill)) q = q.replaceAll(k, String(v));
  expect(q).not.toMatch(/__[A-Z_]+__/);
  return q;
};
async function run(query: string, variables: Record<string, unknown> = {}): Promise<any> {
  // as otp-react-redux posts it: {batchId, query, variables}, Content-Type application/json
  const r = await fetch(`${s.url}/otp/gtfs/v1`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ batchId: undefined, query, variables }) });
  expect(r.status).toBe(200);
  const body = (await r.json()) as any;
  expect(body.errors).toBeUndefined();
  return body.data;
}
const inOrder = (xs: number[]) => expect([...xs].sort((a, b) => a - b)).toEqual(xs);
// EMBR (Embarcadero)
const EMBR = { lat: 37.792874, lon: -122.39702 };

describe("otp-react-redux queries on BART + Caltrain", () => {
  test("findTrip: the trip with its route, agency, stops and geometry", async () => {
    const trip = (await run(`{ trips(feeds: ["${bart}"]) { gtfsId } }`)).trips[5].gtfsId;
    const d = await run(fixture("find-trip", { __TRIP_ID__: trip }));
    expect(d.trip.id).toBe(trip);
    expect(d.trip.route.agency.name).toBe("Bay Area Rapid Transit");
    expect(d.trip.stops.length).toBeGreaterThan(3);
    expect(d.trip.tripGeometry.length).toBeGreaterThan(d.trip.stops.length);
    expect(polyline.decode(d.trip.tripGeometry.points).length).toBe(d.trip.tripGeometry.length);
    expect(["0", "1"]).toContain(d.trip.directionId);
    expect(d.trip.bikesAllowed).toBe(d.trip.tripBikesAllowed);
  });

  test("vehicleRentalQuery: no rental vehicles here", async () => {
    expect((await run(fixture("rental-vehicles"))).rentalVehicles).toEqual([]);
  });

  test("findNearbyStops: stops around EMBR with their routes and each pattern's next 3 departures in time order", async () => {
    const d = await run(fixture("nearby-stops-by-radius", { __LAT__: EMBR.lat, __LON__: EMBR.lon, __RADIUS__: 300 }));
    const stops = d.stopsByRadius.edges.map((e: any) => e.node.stop);
    const embr = stops.find((x: any) => x.id === `${bart}:EMBR`);
    expect(embr).toBeDefined();
    expect(embr.geometries.geoJson).toEqual({ type: "Point", coordinates: [embr.lon, embr.lat] });
    expect(embr.routes.length).toBeGreaterThan(2);
    expect(embr.stopTimes.length).toBeGreaterThan(2);
    for (const p of embr.stopTimes) {
      expect(p.pattern.id.startsWith(`${bart}:`)).toBe(true);
      expect(p.times.length).toBeGreaterThan(0);
      expect(p.times.length).toBeLessThanOrEqual(3);
      inOrder(p.times.map((t: any) => t.serviceDay + t.scheduledDeparture));
      for (const t of p.times) expect(t.stop.id).toBe(`${bart}:EMBR`);
      expect(p.times[0].serviceDay + p.times[0].scheduledDeparture).toBeGreaterThanOrEqual(NOW / 1000);
    }
  });

  test("fetchNearbyFromStopId: the stop", async () => {
    const d = await run(fixture("stop-by-id"), { stopId: `${bart}:EMBR` });
    expect(d.stop).toMatchObject({ gtfsId: `${bart}:EMBR` });
    expect(Math.abs(d.stop.lat - EMBR.lat)).toBeLessThan(1e-3);
  });

  test("fetchNearby: nearest stops (other place types have none here), nearest first, with departures by pattern", async () => {
    const d = await run(fixture("nearby"), { lat: EMBR.lat, lon: EMBR.lon, radius: 500 });
    const edges = d.nearest.edges;
    expect(edges.length).toBeGreaterThan(0);
    inOrder(edges.map((e: any) => e.node.distance));
    expect(edges.every((e: any) => e.node.place.__typename === "Stop" && e.node.distance <= 500)).toBe(true);
    const embr = edges.find((e: any) => e.node.place.gtfsId === `${bart}:EMBR`).node.place;
    expect(embr.stoptimesForPatterns.length).toBeGreaterThan(2);
    for (const p of embr.stoptimesForPatterns) {
      expect(p.pattern.route.agency.name).toBe("Bay Area Rapid Transit");
      inOrder(p.stoptimes.map((t: any) => t.serviceDay + t.scheduledDeparture));
    }
  });

  test("findStopTimesForStop (full): a day of departures from 03:30 by pattern; each pattern's route is one of the stop's routes and its stops include the stop", async () => {
    const serviceDay = Date.parse("2019-06-04T03:30:00-07:00") / 1000;
    const d = await run(fixture("stop-times-full"), { serviceDay, stopId: `${bart}:EMBR` });
    const stop = d.stop;
    const routeIds = new Set(stop.routes.map((r: any) => r.id));
    expect(stop.routes.every((r: any) => r.patterns.length > 0)).toBe(true);
    expect(stop.stoptimesForPatterns.length).toBeGreaterThan(2);
    let total = 0;
    for (const p of stop.stoptimesForPatterns) {
      expect(routeIds.has(p.pattern.route.gtfsId)).toBe(true);
      expect(p.pattern.stops.map((x: any) => x.gtfsId)).toContain(`${bart}:EMBR`);
      inOrder(p.stoptimes.map((t: any) => t.serviceDay + t.scheduledDeparture));
      for (const t of p.stoptimes) {
        expect(t.trip.route.gtfsId).toBe(p.pattern.route.gtfsId);
        expect(t.serviceDay + t.scheduledDeparture).toBeGreaterThanOrEqual(serviceDay);
        expect(t.serviceDay + t.scheduledDeparture).toBeLessThanOrEqual(serviceDay + 86_400);
      }
      total += p.stoptimes.length;
    }
    // the REST catalog's departures of the same 24 hours (same stop, no pickups left out: BART has none)
    const rest = (await s.json(`/api/v2/rest/stops/${bart}:EMBR/departures?date=2019-06-04&start_time=03:30:00&end_time=27:30:00&limit=1000`)).stops[0].departures;
    expect(rest.length).toBeLessThan(1000);
    expect(total).toBe(rest.length);
  });

  test("findStopTimesForStop (operators): the stop's routes and patterns", async () => {
    const d = await run(fixture("stop-times-operators"), { stopId: `${bart}:EMBR` });
    const routeIds = new Set(d.stop.routes.map((r: any) => r.id));
    expect(d.stop.stoptimesForPatterns.length).toBeGreaterThan(0);
    for (const p of d.stop.stoptimesForPatterns) expect(routeIds.has(p.pattern.route.gtfsId)).toBe(true);
  });

  test("findRoute and getVehiclePositionsForRoute: patterns whose stops are the route's, geometry; no vehicle positions", async () => {
    const routes = (await run(fixture("find-routes"))).routes;
    expect(routes.length).toBeGreaterThan(5);
    expect(routes.every((r: any) => r.agency?.id && r.mode)).toBe(true);
    const id = routes.find((r: any) => r.id.startsWith(`${bart}:`)).id;
    const d = await run(fixture("find-route", { __ROUTE_ID__: id }));
    const own = new Set((await run(`query($id: String!) { route(id: $id) { stops { gtfsId } } }`, { id })).route.stops.map((x: any) => x.gtfsId));
    expect(d.route.id).toBe(id);
    expect(d.route.patterns.length).toBeGreaterThan(0);
    for (const p of d.route.patterns) {
      expect(p.stops.length).toBeGreaterThan(1);
      for (const st of p.stops) expect(own.has(st.id)).toBe(true);
      expect(p.patternGeometry.length).toBeGreaterThan(1);
      expect(p.headsign).toBeTruthy();
    }
    const v = await run(fixture("route-vehicle-positions", { __ROUTE_ID__: id }));
    expect(v.route.patterns.length).toBe(d.route.patterns.length);
    expect(v.route.patterns.every((p: any) => Array.isArray(p.vehiclePositions) && p.vehiclePositions.length === 0)).toBe(true);
  });
});
