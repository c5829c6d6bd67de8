/**
 * The GTFS GraphQL API's timetable fields on real feeds (BART, Caltrain) over the real server:
 * trips (stop times, geometry, active dates) against the REST catalog, patterns (codes, stops,
 * trips), a stop's departures in time order matching the REST departures, batched route loading,
 * fuzzyTrip, nearest, serviceTimeRange; and realtime (Caltrain's recorded trip updates and
 * hand-made alerts) in Stoptime and Alert fields.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import polyline from "@mapbox/polyline";
import { catalogServer, type TestServer } from "../catalog/harness.ts";

// 2019-06-04 08:00 PDT, a Tuesday of BART's service
const NOW = Date.parse("2019-06-04T15:00:00Z");
let s: TestServer;
let bart: string;
let caltrain: string;
beforeAll(async () => {
  s = await catalogServer("graphql-bart-caltrain", ["bart", "caltrain"], { now: () => NOW });
  bart = s.feedId("bart");
  caltrain = s.feedId("caltrain");
}, 180_000);
afterAll(() => s?.stop());

async function gql(url: string, query: string, variables?: Record<string, unknown>): Promise<any> {
  const r = await fetch(`${url}/otp/gtfs/v1`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query, variables }) });
  const body = (await r.json()) as any;
  if (r.status !== 200 || body.errors) throw new Error(`${r.status} ${JSON.stringify(body.errors)}`);
  return body.data;
}
const data = (query: string, variables?: Record<string, unknown>) => gql(s.url, query, variables);

describe("trips", () => {
  test("trip(id): fields, stop times and geometry agree with the REST catalog's single trip", async () => {
    const routes = (await s.json(`/api/v2/rest/routes?feed_onestop_id=${bart}&limit=1`)).routes;
    const route = routes[0];
    const trips = (await s.json(`/api/v2/rest/routes/${route.id}/trips?limit=1`)).trips;
    const rest = (await s.json(`/api/v2/rest/routes/${route.id}/trips/${trips[0].id}?include_geometry=true`)).trips[0];
    const d = await data(
      `query($id: String!) { trip(id: $id) { gtfsId serviceId tripHeadsign directionId blockId shapeId wheelchairAccessible bikesAllowed route { gtfsId }
        pattern { code trips { gtfsId } } stoptimes { scheduledArrival scheduledDeparture stopPosition stop { gtfsId } realtimeState serviceDay }
        tripGeometry { length points } geometry activeDates departureStoptime { scheduledDeparture } arrivalStoptime { scheduledArrival } stops { gtfsId } } }`,
      { id: `${bart}:${rest.trip_id}` },
    );
    const t = d.trip;
    expect(t.gtfsId).toBe(`${bart}:${rest.trip_id}`);
    expect(t.route.gtfsId).toBe(`${bart}:${route.route_id}`);
    expect(t.tripHeadsign).toBe(rest.trip_headsign);
    expect(t.directionId).toBe(rest.direction_id === null ? null : String(rest.direction_id));
    expect(t.serviceId).toBe(`${bart}:${rest.calendar.service_id}`);
    const sec = (h: string) => h.split(":").reduce((a, x) => a * 60 + Number(x), 0);
    expect(t.stoptimes.map((x: any) => [x.stop.gtfsId, x.scheduledArrival, x.scheduledDeparture, x.stopPosition])).toEqual(
      rest.stop_times.map((x: any) => [`${bart}:${x.stop.stop_id}`, sec(x.arrival_time), sec(x.departure_time), x.stop_sequence]),
    );
    expect(t.stops.map((x: any) => x.gtfsId)).toEqual(t.stoptimes.map((x: any) => x.stop.gtfsId));
    expect(t.stoptimes.every((x: any) => x.realtimeState === "SCHEDULED" && x.serviceDay === 0)).toBe(true);
    expect(t.departureStoptime.scheduledDeparture).toBe(t.stoptimes[0].scheduledDeparture);
    expect(t.arrivalStoptime.scheduledArrival).toBe(t.stoptimes.at(-1).scheduledArrival);
    // the encoded polyline decodes to the shape's points (5 decimals), [lon, lat] in geometry
    const coords = rest.shape.geometry.coordinates as [number, number][];
    expect(t.tripGeometry.length).toBe(coords.length);
    const decoded = polyline.decode(t.tripGeometry.points);
    expect(decoded.length).toBe(coords.length);
    for (let i = 0; i < coords.length; i++) {
      expect(Math.abs(decoded[i]![0] - coords[i]![1])).toBeLessThan(1e-5 + 1e-9);
      expect(Math.abs(decoded[i]![1] - coords[i]![0])).toBeLessThan(1e-5 + 1e-9);
    }
    expect(t.geometry[0]).toEqual(coords[0]);
    // active dates: YYYYMMDD, ascending, including the pinned Tuesday when the trip's service runs then
    expect(t.activeDates.length).toBeGreaterThan(0);
    expect([...t.activeDates].sort()).toEqual(t.activeDates);
    expect(t.activeDates.every((x: string) => /^\d{8}$/.test(x))).toBe(true);
    expect(t.pattern.trips.map((x: any) => x.gtfsId)).toContain(t.gtfsId);
  });

  test("stoptimesForDate: realtime fields on a running day (no updates: scheduled), [] on a day the service does not run", async () => {
    const d = await data(`{ trips(feeds: ["${bart}"]) { gtfsId activeDates } }`);
    expect(d.trips.length).toBeGreaterThan(100);
    const t = d.trips[0];
    const on = t.activeDates[0];
    const off = ["20000101"];
    const q = `query($id: String!, $d: String) { trip(id: $id) { stoptimesForDate(serviceDate: $d) { scheduledDeparture realtimeDeparture departureDelay realtime realtimeState serviceDay } } }`;
    const a = (await data(q, { id: t.gtfsId, d: on })).trip.stoptimesForDate;
    expect(a.length).toBeGreaterThan(1);
    // serviceDay: noon minus 12 h of that date in BART's time zone
    const dayStart = a[0].serviceDay;
    expect(new Intl.DateTimeFormat("en-CA", { timeZone: "America/Los_Angeles" }).format(new Date((dayStart + 12 * 3600) * 1000)).replaceAll("-", "")).toBe(on);
    expect(new Date((dayStart + 12 * 3600) * 1000).toLocaleTimeString("en-GB", { timeZone: "America/Los_Angeles" })).toBe("12:00:00");
    for (const x of a) expect(x).toEqual({ scheduledDeparture: x.scheduledDeparture, realtimeDeparture: x.scheduledDeparture, departureDelay: 0, realtime: false, realtimeState: "SCHEDULED", serviceDay: dayStart });
    expect((await data(q, { id: t.gtfsId, d: off[0] })).trip.stoptimesForDate).toEqual([]);
  });

  test("unknown trip: null; a bad service date: BAD_USER_INPUT", async () => {
    expect((await data(`{ trip(id: "${bart}:nope") { gtfsId } }`)).trip).toBeNull();
    const r = await fetch(`${s.url}/otp/gtfs/v1`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query: `{ trips(feeds: ["${bart}"]) { stoptimesForDate(serviceDate: "June 4") { serviceDay } } }` }) });
    const body = (await r.json()) as any;
    expect(body.errors[0].extensions.code).toBe("BAD_USER_INPUT");
  });
});

describe("patterns", () => {
  test("Route.patterns: codes FEED:ROUTE:DIR:NN, each pattern's stops are the route's and its trips run exactly that stop sequence", async () => {
    const d = await data(`{ routes(feeds: ["${caltrain}", "${bart}"]) { gtfsId stops { gtfsId } patterns { id code name headsign directionId route { gtfsId } stops { gtfsId } trips { gtfsId directionId stoptimes { stop { gtfsId } } pattern { code } } patternGeometry { length points } geometry { lat lon } } } }`);
    let n = 0;
    for (const r of d.routes) {
      // a route without trips (no stops either) has no pattern
      if (!r.stops.length) {
        expect(r.patterns).toEqual([]);
        continue;
      }
      expect(r.patterns.length).toBeGreaterThan(0);
      const routeStops = new Set(r.stops.map((x: any) => x.gtfsId));
      const codes = new Set<string>();
      for (const p of r.patterns) {
        n++;
        expect(p.code.startsWith(`${r.gtfsId}:`)).toBe(true);
        expect(p.code).toMatch(/:(-1|\d+):\d{2,}$/);
        expect(codes.has(p.code)).toBe(false);
        codes.add(p.code);
        expect(p.route.gtfsId).toBe(r.gtfsId);
        for (const st of p.stops) expect(routeStops.has(st.gtfsId)).toBe(true);
        const seq = p.stops.map((x: any) => x.gtfsId);
        for (const t of p.trips) {
          expect(t.stoptimes.map((x: any) => x.stop.gtfsId)).toEqual(seq);
          expect(t.pattern.code).toBe(p.code);
          expect(t.directionId === null ? null : Number(t.directionId)).toBe(p.directionId);
        }
        expect(p.patternGeometry.length).toBeGreaterThan(1);
        expect(polyline.decode(p.patternGeometry.points).length).toBe(p.patternGeometry.length);
        expect(p.geometry.length).toBe(p.patternGeometry.length);
        expect(p.name).toContain(" to ");
      }
    }
    expect(n).toBeGreaterThan(10);
    // pattern(id) and node(id) find them again
    const p = d.routes[0].patterns[0];
    const again = await data(`query($c: String!, $id: ID!) { pattern(id: $c) { code trips { gtfsId } } node(id: $id) { ... on Pattern { code } } }`, { c: p.code, id: p.id });
    expect(again.pattern.code).toBe(p.code);
    expect(again.pattern.trips.map((x: any) => x.gtfsId)).toEqual(p.trips.map((x: any) => x.gtfsId));
    expect(again.node.code).toBe(p.code);
    // every trip of the route is in exactly one of its patterns
    const rt = await data(`query($id: String!) { route(id: $id) { trips { gtfsId } } }`, { id: d.routes[0].gtfsId });
    expect(rt.route.trips.map((x: any) => x.gtfsId).sort()).toEqual(d.routes[0].patterns.flatMap((x: any) => x.trips.map((t: any) => t.gtfsId)).sort());
  });

  test("Stop.patterns are the patterns calling at the stop; patterns lists them all", async () => {
    const d = await data(`{ stop(id: "${caltrain}:70012") { gtfsId patterns { code stops { gtfsId } } } patterns { code } }`);
    expect(d.stop.patterns.length).toBeGreaterThan(0);
    for (const p of d.stop.patterns) expect(p.stops.map((x: any) => x.gtfsId)).toContain(d.stop.gtfsId);
    const all = new Set(d.patterns.map((p: any) => p.code));
    for (const p of d.stop.patterns) expect(all.has(p.code)).toBe(true);
  });
});

describe("a stop's departures", () => {
  test("stoptimesWithoutPatterns: the REST departures of the same window, in time order", async () => {
    const start = Date.parse("2019-06-04T08:00:00-07:00") / 1000;
    const d = await data(`{ stop(id: "${bart}:EMBR") { stoptimesWithoutPatterns(startTime: ${start}, timeRange: 3600, numberOfDepartures: 50) { scheduledDeparture serviceDay realtimeState headsign trip { gtfsId route { gtfsId } } stop { gtfsId } } } }`);
    const st = d.stop.stoptimesWithoutPatterns;
    expect(st.length).toBeGreaterThan(10);
    const at = st.map((x: any) => x.serviceDay + x.scheduledDeparture);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    expect(at[0]).toBeGreaterThanOrEqual(start);
    expect(at.at(-1)).toBeLessThanOrEqual(start + 3600);
    const rest = (await s.json(`/api/v2/rest/stops/${bart}:EMBR/departures?date=2019-06-04&start_time=08:00:00&end_time=09:00:00&limit=50`)).stops[0].departures;
    expect(st.map((x: any) => x.trip.gtfsId)).toEqual(rest.map((x: any) => `${bart}:${x.trip.trip_id}`));
    expect(st.every((x: any) => x.stop.gtfsId === `${bart}:EMBR` && x.realtimeState === "SCHEDULED")).toBe(true);
  });

  test("startTime 0 is the server's now; numberOfDepartures caps the list; out-of-range arguments are BAD_USER_INPUT", async () => {
    const d = await data(`{ stop(id: "${bart}:EMBR") { stoptimesWithoutPatterns(numberOfDepartures: 3) { scheduledDeparture serviceDay } } }`);
    expect(d.stop.stoptimesWithoutPatterns.length).toBe(3);
    expect(d.stop.stoptimesWithoutPatterns[0].serviceDay + d.stop.stoptimesWithoutPatterns[0].scheduledDeparture).toBeGreaterThanOrEqual(NOW / 1000);
    const r = await fetch(`${s.url}/otp/gtfs/v1`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query: `{ stop(id: "${bart}:EMBR") { stoptimesWithoutPatterns(numberOfDepartures: 100000) { serviceDay } } }` }) });
    expect(((await r.json()) as any).errors[0].extensions.code).toBe("BAD_USER_INPUT");
  });

  test("stoptimesForPatterns: per pattern, its own trips, at most numberOfDepartures, in time order", async () => {
    const d = await data(`{ stop(id: "${bart}:EMBR") { stoptimesForPatterns(numberOfDepartures: 4) { pattern { code trips { gtfsId } } stoptimes { scheduledDeparture serviceDay trip { gtfsId pattern { code } } } } } }`);
    expect(d.stop.stoptimesForPatterns.length).toBeGreaterThan(1);
    for (const p of d.stop.stoptimesForPatterns) {
      expect(p.stoptimes.length).toBeGreaterThan(0);
      expect(p.stoptimes.length).toBeLessThanOrEqual(4);
      for (const x of p.stoptimes) expect(x.trip.pattern.code).toBe(p.pattern.code);
      const at = p.stoptimes.map((x: any) => x.serviceDay + x.scheduledDeparture);
      expect([...at].sort((a, b) => a - b)).toEqual(at);
    }
  });

  test("stoptimesForServiceDate: every departure of the day, as the REST service_date departures", async () => {
    const d = await data(`{ stop(id: "${caltrain}:70012") { stoptimesForServiceDate(date: "20231107") { pattern { code } stoptimes { scheduledDeparture trip { gtfsId } } } } }`);
    const ours = d.stop.stoptimesForServiceDate.flatMap((p: any) => p.stoptimes.map((x: any) => `${x.trip.gtfsId}@${x.scheduledDeparture}`)).sort();
    const rest = (await s.json(`/api/v2/rest/stops/${caltrain}:70012/departures?service_date=2023-11-07&limit=1000`)).stops[0].departures;
    const sec = (h: string) => h.split(":").reduce((a, x) => a * 60 + Number(x), 0);
    expect(ours).toEqual(rest.map((x: any) => `${caltrain}:${x.trip.trip_id}@${sec(x.departure_time)}`).sort());
    expect(ours.length).toBeGreaterThan(10);
  });
});

describe("roots", () => {
  test("fuzzyTrip finds a trip by route, direction, date and first departure", async () => {
    const d = await data(`{ trips(feeds: ["${caltrain}"]) { gtfsId directionId route { gtfsId } activeDates stoptimes { scheduledDeparture } } }`);
    const t = d.trips.find((x: any) => x.activeDates.length);
    const date = t.activeDates[0];
    const f = await data(`query($r: String!, $dir: Int, $d: String!, $t: Int!) { fuzzyTrip(route: $r, direction: $dir, date: $d, time: $t) { gtfsId } }`, {
      r: t.route.gtfsId, dir: Number(t.directionId), d: `${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6)}`, t: t.stoptimes[0].scheduledDeparture,
    });
    expect(f.fuzzyTrip.gtfsId).toBeDefined();
    const again = d.trips.find((x: any) => x.gtfsId === f.fuzzyTrip.gtfsId);
    expect(again.stoptimes[0].scheduledDeparture).toBe(t.stoptimes[0].scheduledDeparture);
    expect(again.route.gtfsId).toBe(t.route.gtfsId);
  });

  test("nearest: stops by distance, pages with after cursors without repeats; other place types are empty", async () => {
    const q = `query($after: String) { nearest(lat: 37.7929, lon: -122.3971, maxDistance: 3000, first: 3, after: $after) { edges { cursor node { distance place { __typename ... on Stop { gtfsId } } } } pageInfo { hasNextPage endCursor } } }`;
    const seen: string[] = [];
    const dist: number[] = [];
    let after: string | null = null;
    for (let i = 0; i < 10; i++) {
      const page: any = (await data(q, { after })).nearest;
      for (const e of page.edges) {
        expect(e.node.place.__typename).toBe("Stop");
        seen.push(e.node.place.gtfsId);
        dist.push(e.node.distance);
      }
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    expect(seen.length).toBeGreaterThan(3);
    expect(new Set(seen).size).toBe(seen.length);
    expect([...dist].sort((a, b) => a - b)).toEqual(dist);
    expect(dist.every((x) => x <= 3000)).toBe(true);
    const none = await data(`{ nearest(lat: 37.7929, lon: -122.3971, filterByPlaceTypes: [VEHICLE_RENT]) { edges { node { distance } } } }`);
    expect(none.nearest.edges).toEqual([]);
  });

  test("serviceTimeRange spans the feeds' service; canceledTrips and alerts are empty without realtime", async () => {
    const d = await data(`{ serviceTimeRange { start end } canceledTrips { edges { node { serviceDate } } } alerts { id } }`);
    expect(d.serviceTimeRange.start).toBeLessThan(NOW / 1000);
    expect(d.serviceTimeRange.end).toBeGreaterThan(Date.parse("2023-11-07T00:00:00Z") / 1000);
    expect(d.canceledTrips.edges).toEqual([]);
    expect(d.alerts).toEqual([]);
  });
});

describe("batched loading", () => {
  test("100+ stops of stopsByBbox with their routes: one routesOfStops call over the real catalog snapshot", async () => {
    const { loadCatalog } = await import("../../server/catalog/store.ts");
    const { catalogTransitData } = await import("../../server/catalog/transit-data.ts");
    const { graphqlHandler } = await import("../../server/graphql/index.ts");
    const catalog = await loadCatalog(s.dataDir, { info() {}, warn() {}, error() {} });
    try {
      const port = catalogTransitData(() => catalog);
      let calls = 0;
      let asked = 0;
      const counted = {
        async snapshot() {
          const snap = (await port.snapshot())!;
          return new Proxy(snap, {
            get(target, prop, recv) {
              const v = Reflect.get(target, prop, recv);
              if (prop !== "routesOfStops") return typeof v === "function" ? v.bind(target) : v;
              return (refs: readonly number[]) => {
                calls++;
                asked += refs.length;
                return target.routesOfStops(refs);
              };
            },
          });
        },
      };
      const handle = graphqlHandler(counted, undefined, () => NOW);
      const query = `{ stopsByBbox(minLat: 37.2, minLon: -122.6, maxLat: 38.1, maxLon: -121.8) { gtfsId routes { gtfsId agency { name } } } }`;
      const r = await handle(new Request("http://x/otp/gtfs/v1", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query }) }));
      const body = (await r.json()) as any;
      expect(body.errors).toBeUndefined();
      expect(body.data.stopsByBbox.length).toBeGreaterThan(100);
      expect(body.data.stopsByBbox.filter((x: any) => x.routes.length > 0).length).toBeGreaterThan(90);
      expect(calls).toBe(1);
      expect(asked).toBe(body.data.stopsByBbox.length);
    } finally {
      catalog.retire();
    }
  });
});
