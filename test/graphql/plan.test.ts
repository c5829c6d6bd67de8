/**
 * FEATURE UNDER TEST: GraphQL planning (planConnection and the deprecated plan) on real feeds
 * (BART 2019, Caltrain 2023, Google's sample feed) with the real planner, end to end over HTTP:
 * - core-utils 16's own planQuery.graphql with variables from its generateOtp2Query answers without
 *   errors, and its itinerary helpers read the same start/end times, legs, modes, route names and
 *   fares as from the OTP1 REST answer of the same trip (and planConnection agrees with both);
 * - planConnection pages: following endCursors (first/after) through a morning finds every
 *   itinerary of one big search exactly once and in order, startCursors (last/before) back again;
 * - each routingError code provoked on real data; bad input as BAD_USER_INPUT;
 * - hostile: 4 plan fields TOO_MANY_PLANS, a huge `first` cut to 50; plan fields count against the
 *   account's rate (three plans count three).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { parse, print } from "graphql";
import { join } from "node:path";
import { generateOtp2Query } from "core-utils-16/lib/query-gen.js";
import { getItineraryCost, getLegRouteName } from "core-utils-16/lib/itinerary.js";
import { importedDataset, tempDir } from "../support/dataset.ts";
import { startServer, type RunningServer } from "../../server/main.ts";
import { serverConfigFrom } from "../../server/config.ts";
import { BART, OTP_FIELDS_DATASET } from "../planner/support/otp-fixture.ts";

type Json = Record<string, any>;
const quiet = { info() {}, warn() {}, error: (m: string, f?: unknown) => console.error(m, f) };
let server: RunningServer;
let keyed: RunningServer;
const LIMITED = "gql-plan-limited";

beforeAll(async () => {
  const dir = await importedDataset(OTP_FIELDS_DATASET.name, OTP_FIELDS_DATASET.feeds);
  server = await startServer(serverConfigFrom({ data: dir, port: 0, host: "127.0.0.1", noAuth: true }), { log: quiet });
  const keys = join(tempDir("interchange-keys-"), "keys.json");
  writeFileSync(keys, JSON.stringify([{ key: LIMITED, account: "limited", rate_limit_per_minute: 4 }]));
  keyed = await startServer(serverConfigFrom({ data: dir, port: 0, host: "127.0.0.1", apiKeys: keys }), { log: quiet });
}, 300_000);
afterAll(async () => {
  await server?.stop();
  await keyed?.stop();
});

async function gql(query: string, variables?: Json, s: RunningServer = server, headers: Record<string, string> = {}): Promise<{ status: number; body: Json }> {
  const r = await fetch(`${s.url}/otp/gtfs/v1`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify({ query, variables }) });
  return { status: r.status, body: (await r.json()) as Json };
}
async function data(query: string, variables?: Json): Promise<Json> {
  const { status, body } = await gql(query, variables);
  if (status !== 200 || body.errors) throw new Error(`${status} ${JSON.stringify(body.errors)}`);
  return body.data;
}
async function rest(q: Record<string, string>): Promise<Json> {
  const r = await fetch(`${server.url}/api/v2/routing/otp/plan?${new URLSearchParams({ showIntermediateStops: "true", ...q })}`);
  expect(r.status).toBe(200);
  return (await r.json()) as Json;
}

const PLAN_QUERY = readFileSync(join(import.meta.dir, "..", "..", "node_modules", "core-utils-16", "lib", "planQuery.graphql"), "utf8");

/** The trips asked both ways: OTP-UI's places ("name::lat,lon"), local date and time. */
const TRIPS = [
  { name: "BART Embarcadero -> Antioch, summer morning", from: { name: "Embarcadero", lat: 37.7929, lon: -122.3971 }, to: { name: "Antioch", lat: 37.9954, lon: -121.7803 }, date: "2019-06-04", time: "08:00", arriveBy: false },
  { name: "BART Antioch -> Millbrae, winter evening (PST)", from: { name: "Antioch", lat: 37.9954, lon: -121.7803 }, to: { name: "Millbrae", lat: 37.6008, lon: -122.3869 }, date: "2019-12-03", time: "17:30", arriveBy: false },
  { name: "BART 12th St -> Fremont after midnight", from: { name: "12th St", lat: 37.8045, lon: -122.295 }, to: { name: "Fremont", lat: 37.5575, lon: -121.9766 }, date: "2019-06-05", time: "00:05", arriveBy: false },
  { name: "Caltrain SF -> Palo Alto", from: { name: "SF", lat: 37.7764, lon: -122.3943 }, to: { name: "Palo Alto", lat: 37.4434, lon: -122.165 }, date: "2023-10-17", time: "08:00", arriveBy: false },
  { name: "Caltrain San Jose -> SF, arrive by, Saturday", from: { name: "San Jose", lat: 37.3297, lon: -121.903 }, to: { name: "SF", lat: 37.7764, lon: -122.3943 }, date: "2023-12-09", time: "10:00", arriveBy: true },
];

/** UTC offset (ms) of an OffsetDateTime's offset ("-07:00"). */
const offsetMs = (s: string) => {
  const m = /([+-])(\d{2}):(\d{2})$/.exec(s);
  return m ? (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 3600 + Number(m[3]) * 60) * 1000 : 0;
};

/** What a rider sees of an itinerary, through core-utils' helpers where they exist. */
function summary(it: Json) {
  return {
    startTime: it.startTime,
    endTime: it.endTime,
    legs: it.legs.map((l: Json) => ({ mode: l.mode, startTime: l.startTime, endTime: l.endTime, route: l.transitLeg ? getLegRouteName(l as any) : null })),
  };
}

describe("core-utils 16's plan query against the OTP1 REST answer of the same trip", () => {
  for (const trip of TRIPS) {
    test(trip.name, async () => {
      const { query, variables } = generateOtp2Query({ from: trip.from, to: trip.to, modeSettings: [], modes: [{ mode: "WALK" }, { mode: "TRANSIT" }], date: trip.date, time: trip.time, arriveBy: trip.arriveBy, numItineraries: 3 } as any);
      // generateOtp2Query prints the same document as the package's planQuery.graphql
      expect(print(parse(query))).toBe(print(parse(PLAN_QUERY)));
      const r = await gql(query, variables);
      expect(r.status).toBe(200);
      expect(r.body.errors).toBeUndefined();
      const plan = r.body.data.plan;
      expect(plan.routingErrors).toEqual([]);
      const otp1 = await rest({ fromPlace: String(variables.fromPlace), toPlace: String(variables.toPlace), date: trip.date, time: trip.time, arriveBy: String(trip.arriveBy), mode: "WALK,TRANSIT", numItineraries: "3" });
      const restIts = otp1.plan.itineraries as Json[];
      expect(plan.itineraries.length).toBeGreaterThan(0);
      expect(plan.itineraries.map(summary)).toEqual(restIts.map(summary));
      for (let i = 0; i < restIts.length; i++) {
        const g = plan.itineraries[i], o = restIts[i]!;
        expect([g.duration, g.transfers, g.walkTime, g.waitingTime]).toEqual([o.duration, o.transfers, o.walkTime, o.waitingTime]);
        // fares: OTP1's regular cents, and core-utils' total over the legs' fare products
        const cost = getItineraryCost(g.legs, null, null);
        if (o.fare) {
          expect(o.fare.fare.regular.cents).toBeGreaterThan(0);
          expect(Math.round(cost!.amount * 10 ** cost!.currency.digits)).toBe(o.fare.fare.regular.cents);
          expect(cost!.currency.code).toBe(o.fare.fare.regular.currency.currencyCode);
        } else expect(cost).toBeUndefined();
        for (let j = 0; j < o.legs.length; j++) {
          const gl = g.legs[j], ol = o.legs[j];
          expect([gl.from.name, gl.to.name, gl.from.stop?.gtfsId ?? null, gl.to.stop?.gtfsId ?? null]).toEqual([ol.from.name, ol.to.name, ol.from.stopId ?? null, ol.to.stopId ?? null]);
          expect([gl.legGeometry.points, gl.distance, gl.headsign ?? undefined]).toEqual([ol.legGeometry.points, ol.distance, ol.headsign]);
          if (ol.transitLeg) {
            expect([gl.route.gtfsId, gl.trip.gtfsId, gl.agency.name, gl.intermediateStops.map((s: Json) => s.stopId)]).toEqual([ol.routeId, ol.tripId, ol.agencyName, ol.intermediateStops.map((s: Json) => Buffer.from(`Stop:${s.stopId}`).toString("base64"))]);
            expect(gl.trip.departureStoptime.stopPosition).toBeLessThanOrEqual(ol.from.stopSequence);
          }
        }
      }
      // the clock: the itinerary's start in planConnection carries the agency's UTC offset, as OTP1's agencyTimeZoneOffset
      const pc = await data(
        `query($o: PlanLabeledLocationInput!, $d: PlanLabeledLocationInput!, $t: PlanDateTimeInput) { planConnection(origin: $o, destination: $d, dateTime: $t, searchWindow: "PT4H", first: 20) { edges { node { start end startTime endTime legs { mode start { scheduledTime } route { shortName longName } } } } routingErrors { code } } }`,
        {
          o: { label: trip.from.name, location: { coordinate: { latitude: trip.from.lat, longitude: trip.from.lon } } },
          d: { label: trip.to.name, location: { coordinate: { latitude: trip.to.lat, longitude: trip.to.lon } } },
          t: { [trip.arriveBy ? "latestArrival" : "earliestDeparture"]: `${trip.date}T${trip.time}:00${offsetIso(restIts[0]!.legs[0].agencyTimeZoneOffset)}` },
        },
      );
      const nodes = pc.planConnection.edges.map((e: Json) => e.node);
      expect(nodes.length).toBeGreaterThan(0);
      // the REST itineraries of the window are among the page's (OTP1's widening may go past it)
      const key = (x: Json) => `${x.startTime}-${x.endTime}`;
      const t0 = Date.parse(`${trip.date}T${trip.time}:00${offsetIso(restIts[0]!.legs[0].agencyTimeZoneOffset)}`);
      const inWindow = restIts.filter((o) => (trip.arriveBy ? o.endTime > t0 - 4 * 3600_000 && o.endTime <= t0 : o.startTime >= t0 && o.startTime < t0 + 4 * 3600_000));
      expect(inWindow.length).toBeGreaterThan(0);
      for (const o of inWindow) expect(nodes.map(key)).toContain(key(o));
      for (const n of nodes) {
        expect(offsetMs(n.start)).toBe(restIts[0]!.legs[0].agencyTimeZoneOffset);
        expect(Date.parse(n.start)).toBe(n.startTime);
        expect(Date.parse(n.end)).toBe(n.endTime);
      }
    }, 60_000);
  }
});

/** An offset in ms as "+HH:MM". */
function offsetIso(ms: number): string {
  const a = Math.abs(ms) / 60_000;
  return `${ms < 0 ? "-" : "+"}${String(Math.floor(a / 60)).padStart(2, "0")}:${String(a % 60).padStart(2, "0")}`;
}

const CONNECTION = `query($o: PlanLabeledLocationInput!, $d: PlanLabeledLocationInput!, $t: PlanDateTimeInput, $w: Duration, $first: Int, $after: String, $last: Int, $before: String) {
  planConnection(origin: $o, destination: $d, dateTime: $t, searchWindow: $w, first: $first, after: $after, last: $last, before: $before) {
    edges { cursor node { startTime endTime legs { mode trip { gtfsId } } } }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor searchWindowUsed }
    routingErrors { code inputField }
    searchDateTime
  }
}`;
const at = (lat: number, lon: number, label?: string) => ({ ...(label ? { label } : {}), location: { coordinate: { latitude: lat, longitude: lon } } });
const stopAt = (id: string) => ({ location: { stopLocation: { stopLocationId: id } } });
const itKey = (n: Json) => `${n.startTime}/${n.endTime}/${n.legs.map((l: Json) => l.trip?.gtfsId ?? l.mode).join(",")}`;

describe("every field of the plan types answers", () => {
  /** The plan's own types: every field selected; any other type (Stop, Route, Trip, ...) by __typename only. */
  const OWN = new Set(["Plan", "PlanConnection", "PlanEdge", "PlanPageInfo", "RoutingError", "debugOutput", "Itinerary", "Leg", "Place", "LegTime", "RealTimeEstimate", "step", "elevationProfileComponent", "Geometry", "FareProductUse", "Money", "Currency", "StopCall", "CallSchedule", "CallRealTime", "EstimatedTime", "Alert", "TranslatedString", "fare", "fareComponent"]);
  const types = new Map<string, Json>((JSON.parse(readFileSync(join(import.meta.dir, "..", "..", "node_modules", "core-utils-16", "lib", "otpSchema.json"), "utf8")).data.__schema.types as Json[]).map((t) => [t.name, t]));
  const named = (t: Json): Json => (t.ofType ? named(t.ofType) : t);
  const selection = (type: string): string =>
    (types.get(type)!.fields as Json[])
      .filter((f) => !f.args.some((a: Json) => a.type.kind === "NON_NULL"))
      .map((f) => {
        const t = types.get(named(f.type).name)!;
        if (t.kind === "SCALAR" || t.kind === "ENUM") return f.name;
        return OWN.has(t.name) ? `${f.name} { ${selection(t.name)} }` : `${f.name} { __typename }`;
      })
      .join(" ");

  test("planConnection and plan with every field of Itinerary, Leg, Place, step and their parts: no error", async () => {
    const q = `{
      pc: planConnection(origin: {location: {coordinate: {latitude: 37.7929, longitude: -122.3971}}}, destination: {location: {coordinate: {latitude: 37.6008, longitude: -122.3869}}}, dateTime: {earliestDeparture: "2019-06-04T08:00:00-07:00"}, first: 2) { ${selection("PlanConnection")} }
      p: plan(fromPlace: "37.7929,-122.3971", toPlace: "37.6008,-122.3869", date: "2019-06-04", time: "08:00", numItineraries: 2) { ${selection("Plan")} }
    }`;
    const d = await data(q);
    expect(d.pc.edges.length).toBe(2);
    expect(d.p.itineraries.length).toBe(2);
    const leg = d.pc.edges[0].node.legs.find((l: Json) => l.transitLeg);
    expect(leg.stopCalls.length).toBeGreaterThan(2);
    expect(leg.stopCalls[0].schedule.time.__typename).toBe("ArrivalDepartureTime");
    expect(leg.fareProducts[0].product.__typename).toBe("DefaultFareProduct");
  }, 60_000);
});

describe("a leg's trip is the catalog's Trip", () => {
  test("its timetable fields answer (stoptimes, pattern, geometry, active dates) and match the ride; departure/arrival stop times are the leg's", async () => {
    const d = await data(`{ planConnection(origin: {location: {coordinate: {latitude: 37.7929, longitude: -122.3971}}}, destination: {location: {coordinate: {latitude: 37.6008, longitude: -122.3869}}}, dateTime: {earliestDeparture: "2019-06-04T08:00:00-07:00"}, first: 1) {
      edges { node { legs { transitLeg from { stop { gtfsId } departure { scheduledTime } } to { stop { gtfsId } arrival { scheduledTime } }
        trip { gtfsId stoptimes { stop { gtfsId } scheduledDeparture } pattern { code route { gtfsId } } tripGeometry { length } activeDates
               departureStoptime { stop { gtfsId } } arrivalStoptime { stop { gtfsId } } } route { gtfsId } } } } } }`);
    const leg = d.planConnection.edges[0].node.legs.find((l: Json) => l.transitLeg);
    const trip = leg.trip;
    const stops = trip.stoptimes.map((s: Json) => s.stop.gtfsId);
    // the ride boards and alights at stops of the trip, in its order
    expect(stops.indexOf(leg.from.stop.gtfsId)).toBeGreaterThanOrEqual(0);
    expect(stops.indexOf(leg.to.stop.gtfsId)).toBeGreaterThan(stops.indexOf(leg.from.stop.gtfsId));
    expect(trip.pattern.route.gtfsId).toBe(leg.route.gtfsId);
    expect(trip.tripGeometry.length).toBeGreaterThan(1);
    expect(trip.activeDates).toContain("20190604");
    // without a serviceDate, OTP's plan reads the trip's first and last stop of the leg's service day
    expect(trip.departureStoptime.stop.gtfsId).toBe(stops[0]);
    expect(trip.arrivalStoptime.stop.gtfsId).toBe(stops[stops.length - 1]);
  }, 60_000);
});

describe("planConnection pages", () => {
  const SF = at(37.7764, -122.3943, "SF"), PALO_ALTO = at(37.4434, -122.165, "Palo Alto");
  const DEP = { earliestDeparture: "2023-10-17T06:00:00-07:00" };
  const MORNING_END = Date.parse("2023-10-17T12:00:00-07:00");

  test("following endCursors (first/after) through a morning: every itinerary of one big search once, in order; startCursors back again", async () => {
    const big = (await data(CONNECTION, { o: SF, d: PALO_ALTO, t: DEP, w: "PT6H", first: 50 })).planConnection;
    const all = big.edges.map((e: Json) => e.node).filter((n: Json) => n.legs.some((l: Json) => l.trip));
    expect(all.length).toBeGreaterThan(8);
    expect(all.length).toBeLessThan(50);
    // pages of one hour, at most 2 itineraries each: cut pages continue inside their window
    const pages: { start: string; items: Json[] }[] = [];
    let page = (await data(CONNECTION, { o: SF, d: PALO_ALTO, t: DEP, w: "PT1H", first: 2 })).planConnection;
    for (let i = 0; i < 80; i++) {
      expect(page.pageInfo.hasNextPage).toBe(true);
      // the part of the hour searched: from its first 15 minutes, more only while the page is not full
      const used = /^PT(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?$/.exec(page.pageInfo.searchWindowUsed)!;
      const usedSec = Number(used[1] ?? 0) * 3600 + Number(used[2] ?? 0) * 60 + Number(used[3] ?? 0);
      expect(usedSec).toBeGreaterThanOrEqual(900);
      expect(usedSec).toBeLessThanOrEqual(3600);
      // less than the hour only when the page is full (more rides were found than it holds)
      if (usedSec < 3600) expect(page.edges.length).toBe(2);
      expect(page.edges.length).toBeLessThanOrEqual(2);
      pages.push({ start: page.pageInfo.startCursor, items: page.edges.map((e: Json) => e.node).filter((n: Json) => n.legs.some((l: Json) => l.trip)) });
      if (JSON.parse(Buffer.from(page.pageInfo.endCursor, "base64").toString()).t * 1000 >= MORNING_END) break;
      page = (await data(CONNECTION, { o: SF, d: PALO_ALTO, first: 2, after: page.pageInfo.endCursor })).planConnection;
    }
    const seen = pages.flatMap((p) => p.items);
    expect(pages.length).toBeGreaterThan(6);
    expect(seen.filter((n) => n.startTime < MORNING_END).map(itKey)).toEqual(all.map(itKey));
    expect(new Set(seen.map(itKey)).size).toBe(seen.length);
    for (let i = 1; i < seen.length; i++) expect(seen[i].startTime).toBeGreaterThanOrEqual(seen[i - 1].startTime);
    // back: from the last page's startCursor, last/before pages give the itineraries of the pages before it
    const back: Json[] = [];
    let before = pages[pages.length - 1]!.start;
    for (let i = 0; i < 80; i++) {
      const p = (await data(CONNECTION, { o: SF, d: PALO_ALTO, last: 3, before })).planConnection;
      expect(p.edges.length).toBeLessThanOrEqual(3);
      back.unshift(...p.edges.map((e: Json) => e.node));
      before = p.pageInfo.startCursor;
      if (JSON.parse(Buffer.from(before, "base64").toString()).t * 1000 < Date.parse(DEP.earliestDeparture)) break;
    }
    const expected = pages.slice(0, -1).flatMap((p) => p.items);
    expect(back.filter((n) => n.startTime >= Date.parse(DEP.earliestDeparture)).map(itKey)).toEqual(expected.map(itKey));
  }, 180_000);

  test("latestArrival pages go back in time: arrivals before the time, latest first, then earlier windows", async () => {
    const t = { latestArrival: "2023-10-17T12:00:00-07:00" };
    const big = (await data(CONNECTION, { o: SF, d: PALO_ALTO, t, w: "PT3H", first: 50 })).planConnection.edges.map((e: Json) => e.node);
    const seen: Json[] = [];
    let page = (await data(CONNECTION, { o: SF, d: PALO_ALTO, t, w: "PT1H", first: 2 })).planConnection;
    for (let i = 0; i < 30; i++) {
      seen.push(...page.edges.map((e: Json) => e.node));
      if (JSON.parse(Buffer.from(page.pageInfo.endCursor, "base64").toString()).t * 1000 <= Date.parse("2023-10-17T09:00:00-07:00")) break;
      page = (await data(CONNECTION, { o: SF, d: PALO_ALTO, first: 2, after: page.pageInfo.endCursor })).planConnection;
    }
    const window = (n: Json) => n.endTime > Date.parse("2023-10-17T09:00:00-07:00");
    expect(seen.filter(window).map(itKey)).toEqual(big.filter(window).map(itKey));
    for (let i = 1; i < seen.length; i++) expect(seen[i].endTime).toBeLessThanOrEqual(seen[i - 1].endTime);
    for (const n of seen) expect(n.endTime).toBeLessThanOrEqual(Date.parse(t.latestArrival));
  }, 120_000);

  test("a huge first is cut to 50 itineraries; the endCursor continues after the 50th", async () => {
    // BART's four lines through Market Street: about 16 trains an hour from Embarcadero to 16th St Mission
    const o = at(37.7929, -122.3971), d = at(37.765, -122.4197);
    const p = (await data(CONNECTION, { o, d, t: { earliestDeparture: "2019-06-04T06:00:00-07:00" }, w: "PT6H", first: 100000 })).planConnection;
    expect(p.edges.length).toBe(50);
    const next = (await data(CONNECTION, { o, d, first: 5, after: p.pageInfo.endCursor })).planConnection;
    expect(next.edges.length).toBe(5);
    const lastStart = p.edges[49].node.startTime;
    expect(next.edges[0].node.startTime).toBeGreaterThanOrEqual(lastStart);
    expect(p.edges.map((e: Json) => itKey(e.node))).not.toContain(itKey(next.edges[0].node));
    // first: 0 answers no itinerary, and its endCursor stays where it was
    const none = (await data(CONNECTION, { o, d, first: 0, after: p.pageInfo.endCursor })).planConnection;
    expect(none.edges).toEqual([]);
    expect(none.pageInfo.endCursor).toBe(p.pageInfo.endCursor);
  }, 60_000);
});

describe("routingErrors on real data", () => {
  const EMBR = at(37.7929, -122.3971), ANTIOCH = at(37.9954, -121.7803);
  const codes = async (vars: Json) => {
    const r = await gql(CONNECTION, vars);
    expect(r.status).toBe(200);
    expect(r.body.errors).toBeUndefined();
    return r.body.data.planConnection.routingErrors.map((e: Json) => `${e.code}${e.inputField ? `@${e.inputField}` : ""}`);
  };

  test("OUTSIDE_BOUNDS, OUTSIDE_SERVICE_PERIOD, LOCATION_NOT_FOUND, NO_STOPS_IN_RANGE", async () => {
    expect(await codes({ o: at(0, 0), d: ANTIOCH, t: { earliestDeparture: "2019-06-04T08:00:00-07:00" } })).toEqual(["OUTSIDE_BOUNDS@FROM"]);
    expect(await codes({ o: EMBR, d: at(-33.9, 18.4), t: { earliestDeparture: "2019-06-04T08:00:00-07:00" } })).toEqual(["OUTSIDE_BOUNDS@TO"]);
    expect(await codes({ o: EMBR, d: ANTIOCH, t: { earliestDeparture: "2031-06-04T08:00:00-07:00" } })).toEqual(["OUTSIDE_SERVICE_PERIOD@DATE_TIME"]);
    expect(await codes({ o: stopAt(`${BART}:NOSUCHSTOP`), d: ANTIOCH, t: { earliestDeparture: "2019-06-04T08:00:00-07:00" } })).toEqual(["LOCATION_NOT_FOUND@FROM"]);
    // Yosemite: inside the dataset's box (BART to the sample feed in Nevada), no stop within a mile
    expect(await codes({ o: EMBR, d: at(37.75, -119.59), t: { earliestDeparture: "2019-06-04T08:00:00-07:00" } })).toEqual(["NO_STOPS_IN_RANGE@TO"]);
  }, 60_000);

  test("NO_TRANSIT_CONNECTION, NO_TRANSIT_CONNECTION_IN_SEARCH_WINDOW, WALKING_BETTER_THAN_TRANSIT", async () => {
    // BART to the sample feed's stops in Nevada: no ride connects them, whatever the time
    const nevada = await codes({ o: EMBR, d: at(36.868446, -116.784582), t: { earliestDeparture: "2019-06-04T08:00:00-07:00" } });
    expect(nevada).toEqual(["NO_TRANSIT_CONNECTION"]);
    // 02:00-02:30: no BART train; later ones run
    expect(await codes({ o: EMBR, d: ANTIOCH, t: { earliestDeparture: "2019-06-04T02:00:00-07:00" }, w: "PT30M" })).toEqual(["NO_TRANSIT_CONNECTION_IN_SEARCH_WINDOW"]);
    // from a place to itself
    expect(await codes({ o: EMBR, d: EMBR, t: { earliestDeparture: "2019-06-04T08:00:00-07:00" } })).toEqual(["WALKING_BETTER_THAN_TRANSIT"]);
  }, 60_000);

  test("the deprecated plan: routingErrors too, stop ids as places", async () => {
    const q = `query($f: String, $t: String, $d: String) { plan(fromPlace: $f, toPlace: $t, date: $d, time: "08:00") { itineraries { legs { from { stop { gtfsId } } } } routingErrors { code inputField } } }`;
    const ok = await data(q, { f: `Embarcadero::${BART}:EMBR`, t: "37.9954,-121.7803", d: "2019-06-04" });
    expect(ok.plan.routingErrors).toEqual([]);
    expect(ok.plan.itineraries[0].legs.some((l: Json) => l.from.stop?.gtfsId === `${BART}:EMBR`)).toBe(true);
    expect((await data(q, { f: `${BART}:NOPE`, t: "37.9954,-121.7803", d: "2019-06-04" })).plan.routingErrors).toEqual([{ code: "LOCATION_NOT_FOUND", inputField: "FROM" }]);
    expect((await data(q, { f: "37.7929,-122.3971", t: "37.9954,-121.7803", d: "2031-01-01" })).plan.routingErrors).toEqual([{ code: "OUTSIDE_SERVICE_PERIOD", inputField: "DATE_TIME" }]);
  }, 60_000);

  test("bad input: BAD_USER_INPUT naming the argument", async () => {
    const bad = async (vars: Json) => {
      const r = await gql(CONNECTION, vars);
      expect(r.status).toBe(200);
      expect(r.body.data.planConnection).toBeNull();
      return r.body.errors.map((e: Json) => e.extensions.code + ":" + (e.extensions.field ?? ""));
    };
    const t = { earliestDeparture: "2019-06-04T08:00:00-07:00" };
    expect(await bad({ o: stopAt("nocolon"), d: ANTIOCH, t })).toEqual(["BAD_USER_INPUT:origin.location.stopLocation.stopLocationId"]);
    expect(await bad({ o: at(91, 0), d: ANTIOCH, t })).toEqual(["BAD_USER_INPUT:origin.location.coordinate"]);
    expect(await bad({ o: EMBR, d: ANTIOCH, t: { earliestDeparture: "tomorrow at 8" } })).toEqual(["BAD_USER_INPUT:dateTime.earliestDeparture"]);
    expect(await bad({ o: EMBR, d: ANTIOCH, t: { earliestDeparture: "2019-06-04T08:00:00" } })).toEqual(["BAD_USER_INPUT:dateTime.earliestDeparture"]);
    expect(await bad({ o: EMBR, d: ANTIOCH, t, w: "an hour" })).toEqual(["BAD_USER_INPUT:searchWindow"]);
    expect(await bad({ o: EMBR, d: ANTIOCH, t, w: "PT7H" })).toEqual(["BAD_USER_INPUT:searchWindow"]);
    expect(await bad({ o: EMBR, d: ANTIOCH, after: "bm90IGEgY3Vyc29y" })).toEqual(["BAD_USER_INPUT:after"]);
    expect(await bad({ o: EMBR, d: ANTIOCH, first: -1 })).toEqual(["BAD_USER_INPUT:first"]);
    const rental = await gql(`{ planConnection(origin: {location: {coordinate: {latitude: 37.79, longitude: -122.39}}}, destination: {location: {coordinate: {latitude: 37.99, longitude: -121.78}}}, modes: {transit: {access: [BICYCLE_RENTAL]}}) { edges { cursor } } }`);
    expect(rental.body.errors[0].extensions.code).toBe("BAD_USER_INPUT");
  }, 60_000);
});

describe("modes and preferences", () => {
  const SF = at(37.7764, -122.3943), SJ = at(37.3297, -121.903);
  const t = { earliestDeparture: "2023-10-17T08:00:00-07:00" };
  const Q = `query($o: PlanLabeledLocationInput!, $d: PlanLabeledLocationInput!, $t: PlanDateTimeInput, $m: PlanModesInput, $p: PlanPreferencesInput) { planConnection(origin: $o, destination: $d, dateTime: $t, modes: $m, preferences: $p, first: 10) { edges { node { startTime endTime numberOfTransfers accessibilityScore legs { mode duration accessibilityScore trip { gtfsId } } } } routingErrors { code } } }`;

  test("transit modes filter the rides; BUS only on Caltrain finds no ride", async () => {
    const rail = (await data(Q, { o: SF, d: SJ, t, m: { transit: { transit: [{ mode: "RAIL" }] } } })).planConnection;
    expect(rail.edges.length).toBeGreaterThan(0);
    expect(rail.edges.flatMap((e: Json) => e.node.legs.filter((l: Json) => l.trip).map((l: Json) => l.mode))).toContain("RAIL");
    const bus = (await data(Q, { o: SF, d: SJ, t, m: { transit: { transit: [{ mode: "BUS" }] } } })).planConnection;
    expect(bus.edges.filter((e: Json) => e.node.legs.some((l: Json) => l.trip))).toEqual([]);
    expect(bus.routingErrors.map((e: Json) => e.code)).toEqual(["NO_TRANSIT_CONNECTION"]);
  }, 60_000);

  test("walk speed sets the walks' time; wheelchair plans carry accessibility scores", async () => {
    const near = at(37.78, -122.4);
    const walkOf = async (p?: Json) => (await data(Q, { o: near, d: SJ, t, ...(p ? { p } : {}) })).planConnection.edges.map((e: Json) => e.node)[0];
    const fast = await walkOf();
    const slow = await walkOf({ street: { walk: { speed: 0.5 } } });
    expect(fast.legs[0].mode).toBe("WALK");
    expect(slow.legs[0].mode).toBe("WALK");
    // 1.33 m/s against 0.5 m/s over the same ~600 m
    expect(slow.legs[0].duration / fast.legs[0].duration).toBeCloseTo(1.33 / 0.5, 0);
    expect(fast.accessibilityScore).toBeNull();
    // BART: every station and trip wheelchair accessible (wheelchair_boarding, wheelchair_accessible 1)
    const wc = (await data(Q, { o: at(37.7929, -122.3971), d: at(37.9954, -121.7803), t: { earliestDeparture: "2019-06-04T08:00:00-07:00" }, p: { accessibility: { wheelchair: { enabled: true } } } })).planConnection.edges.map((e: Json) => e.node);
    expect(wc.length).toBeGreaterThan(0);
    for (const n of wc) {
      expect(n.accessibilityScore).toBe(1);
      for (const l of n.legs) expect(l.accessibilityScore).toBe(l.trip ? 1 : null);
    }
  }, 60_000);

  test("maximum transfers 0 keeps only direct rides", async () => {
    const ONE = (await data(Q, { o: at(37.7929, -122.3971), d: at(37.6008, -122.3869), t: { earliestDeparture: "2019-06-04T08:00:00-07:00" }, p: { transit: { transfer: { maximumTransfers: 0 } } } })).planConnection;
    for (const e of ONE.edges) expect(e.node.numberOfTransfers).toBe(0);
  }, 60_000);
});

describe("cost", () => {
  const plan = (alias: string) => `${alias}: plan(fromPlace: "37.7929,-122.3971", toPlace: "37.9954,-121.7803", date: "2019-06-04", time: "08:00") { itineraries { duration } }`;

  test("4 plan fields: TOO_MANY_PLANS before anything runs", async () => {
    const r = await fetch(`${server.url}/otp/gtfs/v1`, { method: "POST", headers: { "content-type": "application/json", accept: "application/graphql-response+json" }, body: JSON.stringify({ query: `{ ${["a", "b", "c", "d"].map(plan).join(" ")} }` }) });
    expect(r.status).toBe(400);
    const body = (await r.json()) as Json;
    expect(body.errors.map((e: Json) => e.extensions.code)).toContain("TOO_MANY_PLANS");
  });

  test("a request's plan fields count against the account's rate: 3 plans take 3 of 4 a minute", async () => {
    const key = { apikey: LIMITED };
    const three = await gql(`{ ${["a", "b", "c"].map(plan).join(" ")} }`, undefined, keyed, key);
    expect(three.status).toBe(200);
    expect(three.body.errors).toBeUndefined();
    expect(three.body.data.a.itineraries.length).toBeGreaterThan(0);
    // one request left: two plans are refused whole, 429 in the GraphQL shape, nothing planned
    const two = await fetch(`${keyed.url}/otp/gtfs/v1`, { method: "POST", headers: { "content-type": "application/json", accept: "application/graphql-response+json", ...key }, body: JSON.stringify({ query: `{ ${["a", "b"].map(plan).join(" ")} }` }) });
    expect(two.status).toBe(429);
    const body = (await two.json()) as Json;
    expect(body.errors[0].extensions.code).toBe("RATE_LIMITED");
    expect(body.data ?? null).toBeNull();
    // and the rate is spent: the next request is refused by the service-wide limit
    const next = await gql(`{ feeds { feedId } }`, undefined, keyed, key);
    expect(next.status).toBe(429);
  }, 60_000);
});
