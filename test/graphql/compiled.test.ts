/**
 * FEATURE UNDER TEST: the compiled execution of query operations (server/graphql/compiled.ts)
 * answers byte for byte what graphql's executor answers, on real feeds (BART 2019, Caltrain 2023,
 * Google's sample feed) with the real planner, over HTTP. Each document is sent twice: as is
 * (compiled), and with `@include(if: true)` on its first root field, a directive the compiler does
 * not take, so the executor answers the same query. Plans (core-utils 16's planQuery with
 * generateOtp2Query's variables, planConnection and plan with every field of the plan's types,
 * pages), the catalog queries otp-react-redux sends, and requests that must fall back to the
 * executor at run time (a field not implemented, bad input, a variable of the wrong type): same
 * status, same bytes; the counters tell which path answered.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type DocumentNode, Kind, type OperationDefinitionNode, parse, print } from "graphql";
import { generateOtp2Query } from "core-utils-16/lib/query-gen.js";
import { importedDataset } from "../support/dataset.ts";
import { startServer, type RunningServer } from "../../server/main.ts";
import { serverConfigFrom } from "../../server/config.ts";
import { compiledCounts } from "../../server/graphql/compiled.ts";
import { BART, OTP_FIELDS_DATASET } from "../planner/support/otp-fixture.ts";

type Json = Record<string, any>;
const quiet = { info() {}, warn() {}, error: (m: string, f?: unknown) => console.error(m, f) };
let server: RunningServer;

beforeAll(async () => {
  const dir = await importedDataset(OTP_FIELDS_DATASET.name, OTP_FIELDS_DATASET.feeds);
  server = await startServer(serverConfigFrom({ data: dir, port: 0, host: "127.0.0.1", noAuth: true }), { log: quiet });
}, 300_000);
afterAll(async () => {
  await server?.stop();
});

/** The document with `@include(if: true)` on its operation's first root field: the same query, answered by the executor. */
function viaExecutor(query: string): string {
  const doc = parse(query) as DocumentNode & { definitions: OperationDefinitionNode[] };
  const op = doc.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION)!;
  const first = op.selectionSet.selections[0]!;
  const include = { kind: Kind.DIRECTIVE, name: { kind: Kind.NAME, value: "include" }, arguments: [{ kind: Kind.ARGUMENT, name: { kind: Kind.NAME, value: "if" }, value: { kind: Kind.BOOLEAN, value: true } }] };
  (first as { directives?: unknown[] }).directives = [...(first.directives ?? []), include];
  return print(doc);
}

async function post(query: string, variables?: Json): Promise<{ status: number; text: string }> {
  const r = await fetch(`${server.url}/otp/gtfs/v1`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query, variables }) });
  return { status: r.status, text: await r.text() };
}

/**
 * The query answered compiled and by the executor: same status and bytes. `path`: "compiled" (the
 * compiled functions answered), "fell back" (compiled, the executor answered at run time),
 * "executor" (not compiled).
 */
async function same(query: string, variables: Json | undefined, path: "compiled" | "fell back" | "executor"): Promise<Json> {
  const plain = print(parse(query));
  const before = { ...compiledCounts };
  const a = await post(plain, variables);
  const counted = { compiled: compiledCounts.compiled - before.compiled, fellBack: compiledCounts.fellBack - before.fellBack };
  expect(counted).toEqual(path === "compiled" ? { compiled: 1, fellBack: 0 } : path === "fell back" ? { compiled: 0, fellBack: 1 } : { compiled: 0, fellBack: 0 });
  const mid = { ...compiledCounts };
  const b = await post(viaExecutor(query), variables);
  expect({ compiled: compiledCounts.compiled - mid.compiled, fellBack: compiledCounts.fellBack - mid.fellBack }).toEqual({ compiled: 0, fellBack: 0 });
  expect(a.status).toBe(b.status);
  expect(a.text).toBe(b.text);
  return JSON.parse(a.text) as Json;
}

const types = new Map<string, Json>((JSON.parse(readFileSync(join(import.meta.dir, "..", "..", "node_modules", "core-utils-16", "lib", "otpSchema.json"), "utf8")).data.__schema.types as Json[]).map((t) => [t.name, t]));
const named = (t: Json): Json => (t.ofType ? named(t.ofType) : t);
/** Every field of the plan's own types (without required arguments); Stop, Route, Agency, Trip with a few fields, the rest by __typename. */
function selection(type: string): string {
  const OWN = new Set(["Plan", "PlanConnection", "PlanEdge", "PlanPageInfo", "RoutingError", "debugOutput", "Itinerary", "Leg", "Place", "LegTime", "RealTimeEstimate", "step", "elevationProfileComponent", "Geometry", "FareProductUse", "Money", "Currency", "StopCall", "CallSchedule", "CallRealTime", "EstimatedTime", "Alert", "TranslatedString", "fare", "fareComponent"]);
  const SOME: Record<string, string> = { Stop: "gtfsId name lat lon code platformCode parentStation { gtfsId }", Route: "gtfsId shortName longName color textColor mode type agency { gtfsId name timezone }", Agency: "gtfsId name url timezone", Trip: "gtfsId tripHeadsign directionId serviceId route { gtfsId } pattern { code } stoptimes { stop { gtfsId } scheduledDeparture }", Stoptime: "scheduledArrival scheduledDeparture serviceDay stopPosition stop { gtfsId }" };
  return (types.get(type)!.fields as Json[])
    .filter((f) => !f.args.some((a: Json) => a.type.kind === "NON_NULL") && !(type === "Plan" && f.name === "debugOutput"))
    .map((f) => {
      const t = types.get(named(f.type).name)!;
      if (t.kind === "SCALAR" || t.kind === "ENUM") return f.name;
      if (OWN.has(t.name)) return `${f.name} { ${selection(t.name)} }`;
      return SOME[t.name] ? `${f.name} { __typename ${SOME[t.name]} }` : `${f.name} { __typename }`;
    })
    .join(" ");
}

const FROM = { latitude: 37.7929, longitude: -122.3971 }, TO = { latitude: 37.9954, longitude: -121.7803 };

describe("plans: the compiled answer is the executor's", () => {
  test("core-utils 16's planQuery with generateOtp2Query's variables (plan, fare products through inline fragments)", async () => {
    const trips = [
      { from: { name: "Embarcadero", lat: 37.7929, lon: -122.3971 }, to: { name: "Antioch", lat: 37.9954, lon: -121.7803 }, date: "2019-06-04", time: "08:00", arriveBy: false },
      { from: { name: "San Jose", lat: 37.3297, lon: -121.903 }, to: { name: "SF", lat: 37.7764, lon: -122.3943 }, date: "2023-12-09", time: "10:00", arriveBy: true },
    ];
    for (const { from, to, date, time, arriveBy } of trips) {
      const { query, variables } = generateOtp2Query({ from, to, modeSettings: [], modes: [{ mode: "WALK" }, { mode: "TRANSIT" }], date, time, arriveBy, numItineraries: 3 } as any);
      const d = await same(query, variables, "compiled");
      expect(d.data.plan.itineraries.length).toBeGreaterThan(0);
    }
  }, 60_000);

  test("every field of planConnection's and plan's types, two root fields in one document", async () => {
    const q = `{
      pc: planConnection(origin: {location: {coordinate: {latitude: ${FROM.latitude}, longitude: ${FROM.longitude}}}}, destination: {location: {coordinate: {latitude: ${TO.latitude}, longitude: ${TO.longitude}}}}, dateTime: {earliestDeparture: "2019-06-04T08:00:00-07:00"}, first: 3) { ${selection("PlanConnection")} }
      p: plan(fromPlace: "${FROM.latitude},${FROM.longitude}", toPlace: "${TO.latitude},${TO.longitude}", date: "2019-06-04", time: "08:00", numItineraries: 2) { ${selection("Plan")} }
    }`;
    const d = await same(q, undefined, "compiled");
    expect(d.data.pc.edges.length).toBe(3);
    expect(d.data.pc.edges[0].node.legs.some((l: Json) => l.stopCalls.length > 2)).toBe(true);
  }, 60_000);

  test("variables, aliases, fragments merged, __typename, the next page by its cursor", async () => {
    const q = `query P($o: PlanLabeledLocationInput!, $d: PlanLabeledLocationInput!, $t: PlanDateTimeInput, $after: String) {
      planConnection(origin: $o, destination: $d, dateTime: $t, first: 3, after: $after) {
        __typename
        edges { cursor node { ...It legs { mode start { scheduledTime } } } }
        edges { node { legs { from { name stop { gtfsId } } to { ...Place } } } }
        pageInfo { endCursor hasNextPage searchWindowUsed }
        routingErrors { code }
      }
    }
    fragment It on Itinerary { __typename start end duration walkDistance numberOfTransfers first: legs { mode } legs { legGeometry { points length } duration } }
    fragment Place on Place { name lat lon stop { gtfsId } ... on Place { arrival { scheduledTime estimated { time delay } } } }`;
    const vars = { o: { location: { coordinate: FROM } }, d: { location: { coordinate: TO } }, t: { earliestDeparture: "2019-06-04T08:00:00-07:00" } };
    const d = await same(q, vars, "compiled");
    const after = d.data.planConnection.pageInfo.endCursor;
    expect(after).toBeString();
    const next = await same(q, { ...vars, after }, "compiled");
    expect(next.data.planConnection.edges.length).toBeGreaterThan(0);
  }, 60_000);
});

describe("catalog queries: the compiled answer is the executor's", () => {
  const fixture = (name: string, fill: Record<string, string | number> = {}) => {
    let q = readFileSync(join(import.meta.dir, "..", "fixtures", "otp-react-redux", `${name}.graphql`), "utf8");
    for (const [k, v] of Object.entries(fill)) q = q.replaceAll(k, String(v));
    return q;
  };

  test("otp-react-redux's stop, nearby, route and trip queries", async () => {
    const trip = JSON.parse((await post(`{ trips(feeds: ["${BART}"]) { gtfsId } }`)).text).data.trips[5].gtfsId;
    const route = JSON.parse((await post(`{ routes(feeds: ["${BART}"]) { gtfsId } }`)).text).data.routes[0].gtfsId;
    await same(fixture("find-trip", { __TRIP_ID__: trip }), undefined, "compiled");
    await same(fixture("nearby-stops-by-radius", { __LAT__: FROM.latitude, __LON__: FROM.longitude, __RADIUS__: 300 }), undefined, "compiled");
    await same(fixture("stop-by-id"), { stopId: `${BART}:EMBR` }, "compiled");
    await same(fixture("nearby"), { lat: FROM.latitude, lon: FROM.longitude, radius: 500 }, "compiled");
    await same(fixture("stop-times-full"), { serviceDay: Date.parse("2019-06-04T03:30:00-07:00") / 1000, stopId: `${BART}:EMBR` }, "compiled");
    await same(fixture("find-routes"), undefined, "compiled");
    await same(fixture("find-route", { __ROUTE_ID__: route }), undefined, "compiled");
    const d = await same(`{ stopsByBbox(minLat: 37.7, minLon: -122.5, maxLat: 37.9, maxLon: -122.2) { gtfsId name routes { gtfsId shortName agency { name } } } feeds { feedId agencies { name } } }`, undefined, "compiled");
    expect(d.data.stopsByBbox.length).toBeGreaterThan(10);
  }, 60_000);
});

describe("what is not plain: the executor answers, the same bytes", () => {
  test("a field the server does not implement, inside a plan: NOT_IMPLEMENTED error", async () => {
    const notImplemented = (types.get("Stop")!.fields as Json[]).map((f) => f.name).find((n) => n === "cluster" || n === "vehicleType");
    expect(notImplemented).toBeDefined();
    const q = `{ planConnection(origin: {location: {coordinate: {latitude: ${FROM.latitude}, longitude: ${FROM.longitude}}}}, destination: {location: {coordinate: {latitude: ${TO.latitude}, longitude: ${TO.longitude}}}}, dateTime: {earliestDeparture: "2019-06-04T08:00:00-07:00"}, first: 2) {
      edges { node { legs { mode from { stop { gtfsId ${notImplemented} { __typename } } } } } } } }`;
    const d = await same(q, undefined, "fell back");
    expect(d.errors.map((e: Json) => e.extensions.code)).toContain("NOT_IMPLEMENTED");
  }, 60_000);

  test("bad input to planConnection; a variable of the wrong type; introspection; @skip", async () => {
    const bad = await same(`{ planConnection(origin: {location: {coordinate: {latitude: 37.79, longitude: -122.39}}}, destination: {location: {coordinate: {latitude: 37.99, longitude: -121.78}}}, first: -1) { edges { node { start } } } }`, undefined, "fell back");
    expect(bad.errors[0].extensions.code).toBe("BAD_USER_INPUT");
    const q = `query S($id: String!) { stop(id: $id) { gtfsId name } }`;
    const wrong = await same(q, { id: 5 }, "fell back");
    expect(wrong.errors.length).toBe(1);
    await same(`{ __schema { queryType { name } } }`, undefined, "executor");
    await same(`query T($s: Boolean!) { feeds { feedId agencies @skip(if: $s) { name } } }`, { s: true }, "executor");
  }, 60_000);
});
