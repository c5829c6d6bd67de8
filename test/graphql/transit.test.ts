/**
 * The GTFS GraphQL API (/otp/gtfs/v1) end to end on real feeds (BART, Caltrain): the schema is
 * OTP's (introspection diffed against core-utils 16's otpSchema.json), transit-data queries agree
 * with the REST catalog's answers for the same entities, stopsByRadius pages with cursors, plan
 * fields answer UNAVAILABLE without a timetable (test/graphql/plan.test.ts plans), and the HTTP contract (paths, methods, media types, statuses).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { getIntrospectionQuery, parseValue, print } from "graphql";
import { catalogServer, type TestServer } from "../catalog/harness.ts";

let s: TestServer;
let bart: string;
let caltrain: string;
beforeAll(async () => {
  s = await catalogServer("graphql-bart-caltrain", ["bart", "caltrain"]);
  bart = s.feedId("bart");
  caltrain = s.feedId("caltrain");
}, 180_000);
afterAll(() => s?.stop());

async function gql(query: string, variables?: Record<string, unknown>, path = "/otp/gtfs/v1"): Promise<{ status: number; body: any }> {
  const r = await fetch(s.url + path, { method: "POST", headers: { "content-type": "application/json", accept: "application/json" }, body: JSON.stringify({ query, variables }) });
  return { status: r.status, body: await r.json() };
}
async function data(query: string, variables?: Record<string, unknown>): Promise<any> {
  const { status, body } = await gql(query, variables);
  if (status !== 200 || body.errors) throw new Error(`${status} ${JSON.stringify(body.errors)}`);
  return body.data;
}

describe("schema", () => {
  test("introspection has every type, field, argument and enum value of core-utils 16's otpSchema.json", async () => {
    const published = JSON.parse(readFileSync(createRequire(import.meta.url).resolve("core-utils-16/lib/otpSchema.json"), "utf8")).data.__schema;
    const ours = (await data(getIntrospectionQuery())).__schema;
    // default values as graphql-js prints them (OTP's graphql-java writes 2.0 and {type : X})
    const dv = (v: string | null) => (v === null ? null : print(parseValue(v)).replace(/\b(\d+)\.0\b/g, "$1"));
    const ty = (t: any): string => (t.kind === "NON_NULL" ? `${ty(t.ofType)}!` : t.kind === "LIST" ? `[${ty(t.ofType)}]` : t.name);
    const flatten = (schema: any) => {
      const out = new Set<string>();
      for (const t of schema.types) {
        if (t.name.startsWith("__")) continue;
        out.add(`${t.kind} ${t.name}`);
        for (const f of t.fields ?? []) {
          out.add(`${t.name}.${f.name}: ${ty(f.type)}`);
          for (const a of f.args) out.add(`${t.name}.${f.name}(${a.name}: ${ty(a.type)} = ${dv(a.defaultValue)})`);
        }
        for (const f of t.inputFields ?? []) out.add(`${t.name}.${f.name}: ${ty(f.type)} = ${dv(f.defaultValue)}`);
        for (const e of t.enumValues ?? []) out.add(`${t.name}::${e.name}`);
        for (const i of t.interfaces ?? []) out.add(`${t.name} implements ${i.name}`);
        for (const p of t.possibleTypes ?? []) out.add(`${t.name} | ${p.name}`);
      }
      return out;
    };
    const want = flatten(published);
    const have = flatten(ours);
    expect(want.size).toBeGreaterThan(1000);
    expect([...want].filter((x) => !have.has(x))).toEqual([]);
    expect([...have].filter((x) => !want.has(x))).toEqual([]);
  });
});

describe("transit data against the REST catalog", () => {
  test("every BART and Caltrain stop by id: name, coordinates, code, parent station, location type", async () => {
    for (const feed of [bart, caltrain]) {
      const rest = (await s.json(`/api/v2/rest/stops?limit=1000&feed_onestop_id=${feed}`)).stops as any[];
      expect(rest.length).toBeGreaterThan(40);
      const q = `query($ids: [String]) { stops(ids: $ids) { gtfsId name lat lon code locationType parentStation { gtfsId } } stations(ids: $ids) { gtfsId name lat lon locationType stops { gtfsId } } }`;
      const ids = rest.map((r) => `${feed}:${r.stop_id}`);
      const d = await data(q, { ids });
      for (let i = 0; i < rest.length; i++) {
        const r = rest[i];
        const station = r.location_type === 1;
        const g = station ? d.stations[i] : d.stops[i];
        expect(station ? d.stops[i] : d.stations[i]).toBeNull();
        if (r.location_type > 1) continue;
        expect(g.gtfsId).toBe(`${feed}:${r.stop_id}`);
        expect(g.name).toBe(r.stop_name ?? "");
        expect(g.lat).toBe(r.geometry.coordinates[1]);
        expect(g.lon).toBe(r.geometry.coordinates[0]);
        expect(g.locationType).toBe(station ? "STATION" : "STOP");
        if (!station) {
          expect(g.code).toBe(r.stop_code);
          expect(g.parentStation?.gtfsId ?? null).toBe(r.parent ? `${feed}:${r.parent.stop_id}` : null);
        } else {
          const children = rest.filter((c) => c.parent?.stop_id === r.stop_id).map((c) => `${feed}:${c.stop_id}`).sort();
          expect(g.stops.map((c: any) => c.gtfsId).sort()).toEqual(children);
        }
      }
    }
  });

  test("every route: names, type, colors, agency and its stops as the REST route's", async () => {
    const d = await data(`{ routes { gtfsId shortName longName type mode color textColor agency { gtfsId name url timezone } stops { gtfsId } } }`);
    expect(d.routes.length).toBeGreaterThan(5);
    const feeds = new Set(d.routes.map((r: any) => r.gtfsId.split(":")[0]));
    expect(feeds).toEqual(new Set([bart, caltrain]));
    for (const g of d.routes) {
      const rest = (await s.json(`/api/v2/rest/routes/${encodeURIComponent(g.gtfsId)}`)).routes[0];
      expect(g.shortName).toBe(rest.route_short_name);
      expect(g.longName).toBe(rest.route_long_name);
      expect(g.type).toBe(rest.route_type);
      expect(g.color).toBe(rest.route_color);
      expect(g.textColor).toBe(rest.route_text_color);
      expect(g.agency.name).toBe(rest.agency.agency_name);
      expect(g.agency.gtfsId).toBe(`${g.gtfsId.split(":")[0]}:${rest.agency.agency_id}`);
      const restStops = rest.route_stops.map((x: any) => `${g.gtfsId.split(":")[0]}:${x.stop.stop_id}`).sort();
      expect(g.stops.map((x: any) => x.gtfsId).sort()).toEqual(restStops);
    }
  });

  test("stopsByBbox: the REST bbox search's stops (location_type 0), each with its routes", async () => {
    const box = { minLat: 37.7, minLon: -122.5, maxLat: 37.85, maxLon: -122.2 };
    const d = await data(`query($a: Float!, $b: Float!, $c: Float!, $e: Float!) { stopsByBbox(minLat: $a, minLon: $b, maxLat: $c, maxLon: $e) { gtfsId routes { gtfsId } } }`, { a: box.minLat, b: box.minLon, c: box.maxLat, e: box.maxLon });
    const rest = (await s.json(`/api/v2/rest/stops?limit=1000&bbox=${box.minLon},${box.minLat},${box.maxLon},${box.maxLat}`)).stops as any[];
    const want = rest.filter((r) => r.location_type === 0).map((r) => `${r.feed_version.feed.onestop_id}:${r.stop_id}`).sort();
    expect(want.length).toBeGreaterThan(10);
    expect(d.stopsByBbox.map((x: any) => x.gtfsId).sort()).toEqual(want);
    expect(d.stopsByBbox.every((x: any) => x.routes.length > 0)).toBe(true);
  });

  test("agencies, feeds, node over global ids, unknown ids answer null", async () => {
    const d = await data(`{ feeds { feedId agencies { gtfsId name } } agencies { id gtfsId name } }`);
    expect(d.feeds.map((f: any) => f.feedId).sort()).toEqual([bart, caltrain].sort());
    const a = d.agencies[0];
    const n = await data(`query($id: ID!) { node(id: $id) { __typename id ... on Agency { gtfsId } } }`, { id: a.id });
    expect(n.node).toEqual({ __typename: "Agency", id: a.id, gtfsId: a.gtfsId });
    const st = await data(`query($id: String!) { stop(id: $id) { id gtfsId } }`, { id: `${bart}:12TH` });
    const sn = await data(`query($id: ID!) { node(id: $id) { ... on Stop { gtfsId } } }`, { id: st.stop?.id ?? "" });
    expect(st.stop?.gtfsId ?? null).toBe(sn.node?.gtfsId ?? null);
    const none = await data(`{ stop(id: "${bart}:NO-SUCH-STOP") { gtfsId } route(id: "nofeed:1") { gtfsId } }`);
    expect(none).toEqual({ stop: null, route: null });
  });
});

describe("stopsByRadius paging", () => {
  test("first/after cursors visit every stop of the circle once, nearest first", async () => {
    const q = `query($after: String) { stopsByRadius(lat: 37.7749, lon: -122.4194, radius: 20000, first: 7, after: $after) { edges { cursor node { distance stop { gtfsId } } } pageInfo { hasNextPage endCursor } } }`;
    const seen: string[] = [];
    const dists: number[] = [];
    let after: string | null = null;
    for (let page = 0; page < 100; page++) {
      const d: any = await data(q, { after });
      const c = d.stopsByRadius;
      for (const e of c.edges) {
        seen.push(e.node.stop.gtfsId);
        dists.push(e.node.distance);
      }
      if (!c.pageInfo.hasNextPage) break;
      after = c.pageInfo.endCursor;
    }
    const all = (await data(`{ stopsByRadius(lat: 37.7749, lon: -122.4194, radius: 20000) { edges { node { stop { gtfsId } } } } }`)).stopsByRadius.edges.map((e: any) => e.node.stop.gtfsId);
    expect(seen.length).toBeGreaterThan(7);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(all);
    expect(dists).toEqual([...dists].sort((x, y) => x - y));
  });
});

describe("HTTP contract", () => {
  test("GET with query and variables, and OTP's older path", async () => {
    const q = encodeURIComponent(`query($id: String!) { stop(id: $id) { gtfsId } }`);
    const v = encodeURIComponent(JSON.stringify({ id: `${bart}:12TH` }));
    const r = await fetch(`${s.url}/otp/gtfs/v1?query=${q}&variables=${v}`);
    expect(r.status).toBe(200);
    const got = await r.json();
    const legacy = await gql(`query($id: String!) { stop(id: $id) { gtfsId } }`, { id: `${bart}:12TH` }, "/otp/routers/default/index/graphql");
    expect(legacy.body).toEqual(got);
  });

  test("a document that does not parse: 400 with graphql-response+json, 200 with application/json, never 500", async () => {
    for (const [accept, status] of [["application/graphql-response+json", 400], ["application/json", 200]] as const) {
      const r = await fetch(`${s.url}/otp/gtfs/v1`, { method: "POST", headers: { "content-type": "application/json", accept }, body: JSON.stringify({ query: "{ stop(id: " }) });
      expect(r.status).toBe(status);
      const body: any = await r.json();
      expect(body.errors[0].message).toContain("Syntax Error");
      expect(body.data).toBeUndefined();
    }
  });

  test("unknown field, wrong variable type, bad id: GraphQL errors with codes", async () => {
    const unknown = await gql(`{ stop(id: "a:b") { noSuchField } }`);
    expect(unknown.body.errors[0].message).toContain("noSuchField");
    const wrongType = await gql(`query($id: String!) { stop(id: $id) { gtfsId } }`, { id: 12 });
    expect(wrongType.body.errors[0].message).toContain("$id");
    const badId = await gql(`{ stop(id: "nocolon") { gtfsId } }`);
    expect(badId.status).toBe(200);
    expect(badId.body.errors[0].extensions.code).toBe("BAD_USER_INPUT");
  });

  test("plan without a timetable (this dataset has none): UNAVAILABLE, not an answer; rental fields empty", async () => {
    const p = await gql(`{ plan(from: {lat: 37.8, lon: -122.27}, to: {lat: 37.79, lon: -122.4}) { itineraries { duration } } }`);
    expect(p.body.errors[0].extensions.code).toBe("UNAVAILABLE");
    expect(p.body.data.plan).toBeNull();
    const r = await data(`{ vehicleRentalStations { id } carParks { id } bikePark(id: "x") { id } }`);
    expect(r).toEqual({ vehicleRentalStations: [], carParks: [], bikePark: null });
  });
});
