/**
 * The plan benchmarks' queries and GraphQL documents, shared by bench/gql-ab.ts and
 * bench/gql-render-ab.ts: plan.bench.ts's random served stop pairs (same seeds), its planConnection
 * selection, one with every field of the plan's own types, and the request bodies and REST URLs.
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { localToUnix } from "../../server/planner/timetable/calendar.ts";
import type { Timetable } from "../../server/planner/timetable/types.ts";
import { rng } from "./args.ts";

const ROOT = resolve(import.meta.dir, "..", "..");

export interface Query { o: number; d: number; t: number }

/** plan.bench.ts's queries: random served stop pairs at 06:00-22:00 on the weekday inside the most feeds' windows. */
export function queries(tt: Timetable, n: number, seed: number): { qs: Query[]; day: number; tz: string } {
  const rand = rng(seed);
  const { core, meta } = tt;
  const tz = meta.timezones[0]!;
  const nFeeds = meta.feeds.length;
  const inWindow = (f: number, d: number) => d >= meta.feedStartDay[f]! && d <= meta.feedEndDay[f]!;
  let day = meta.feedStartDay[0]!, bestCount = -1;
  for (let d = Math.min(...meta.feedStartDay); d <= Math.max(...meta.feedEndDay); d++) {
    if ((d + 3) % 7 < 1 || (d + 3) % 7 > 3) continue;
    let c = 0;
    for (let f = 0; f < nFeeds; f++) if (inWindow(f, d)) c++;
    if (c > bestCount) [day, bestCount] = [d + 7 <= Math.max(...meta.feedEndDay) && [...Array(nFeeds).keys()].filter((f) => inWindow(f, d + 7)).length === c ? d + 7 : d, c];
  }
  const served: number[] = [];
  for (let s = 0; s < core.nStops; s++) if (core.stopRouteStart[s + 1]! > core.stopRouteStart[s]! && inWindow(meta.stopFeed[s]!, day)) served.push(s);
  const qs: Query[] = [];
  while (qs.length < n) {
    const o = served[Math.floor(rand() * served.length)]!, d = served[Math.floor(rand() * served.length)]!;
    if (o !== d) qs.push({ o, d, t: localToUnix(day, 6 * 3600 + Math.floor(rand() * 16 * 3600), tz) });
  }
  return { qs, day, tz };
}

/** plan.bench.ts's planConnection (what a client like OTP-UI asks for the REST request's itineraries). */
export const BENCH_SELECTION = `edges { node { start end duration walkDistance numberOfTransfers legs {
  mode start { scheduledTime estimated { time delay } } end { scheduledTime estimated { time delay } } duration distance realTime transitLeg headsign
  from { name lat lon stop { gtfsId } } to { name lat lon stop { gtfsId } }
  route { gtfsId shortName longName color textColor agency { gtfsId name } } trip { gtfsId } legGeometry { points length } } } }
pageInfo { endCursor hasNextPage searchWindowUsed } routingErrors { code }`;

/** Every field of the plan's own types (test/graphql/plan.test.ts's selection); other types: a few fields each. */
export function fullSelection(): string {
  type Json = any;
  const OWN = new Set(["PlanConnection", "PlanEdge", "PlanPageInfo", "RoutingError", "Itinerary", "Leg", "Place", "LegTime", "RealTimeEstimate", "step", "elevationProfileComponent", "Geometry", "FareProductUse", "Money", "Currency", "StopCall", "CallSchedule", "CallRealTime", "EstimatedTime", "Alert", "TranslatedString", "fare", "fareComponent"]);
  const SOME: Record<string, string> = { Stop: "gtfsId name lat lon code platformCode", Route: "gtfsId shortName longName color textColor mode type agency { gtfsId name timezone }", Agency: "gtfsId name url timezone", Trip: "gtfsId tripHeadsign directionId serviceId route { gtfsId } pattern { code }", Stoptime: "scheduledArrival scheduledDeparture serviceDay stopPosition stop { gtfsId }" };
  const types = new Map<string, Json>((JSON.parse(readFileSync(join(ROOT, "node_modules", "core-utils-16", "lib", "otpSchema.json"), "utf8")).data.__schema.types as Json[]).map((t) => [t.name, t]));
  const named = (t: Json): Json => (t.ofType ? named(t.ofType) : t);
  const sel = (type: string): string =>
    (types.get(type)!.fields as Json[])
      .filter((f) => !f.args.some((a: Json) => a.type.kind === "NON_NULL"))
      .map((f) => {
        const t = types.get(named(f.type).name)!;
        if (t.kind === "SCALAR" || t.kind === "ENUM") return f.name;
        if (OWN.has(t.name)) return `${f.name} { ${sel(t.name)} }`;
        return SOME[t.name] ? `${f.name} { __typename ${SOME[t.name]} }` : `${f.name} { __typename }`;
      })
      .join(" ");
  return sel("PlanConnection");
}

export const doc = (selection: string) => `query AB($origin: PlanLabeledLocationInput!, $destination: PlanLabeledLocationInput!, $dateTime: PlanDateTimeInput!, $first: Int) {
  planConnection(origin: $origin, destination: $destination, dateTime: $dateTime, first: $first) { ${selection} } }`;

/** The same search asking only for its page info: the search through GraphQL without rendering. */
export const SEARCH_SELECTION = "pageInfo { endCursor } routingErrors { code }";

/** The REST plan URL (path and query) and the planConnection body of a query, as plan.bench.ts sends them. */
export function requests(tt: Timetable, day: number, tz: string) {
  const iso = new Date(day * 86400_000).toISOString().slice(0, 10);
  const { stopLat, stopLon } = tt.meta;
  return {
    restPath: (q: Query) => `/api/v2/routing/otp/plan?fromPlace=${stopLat[q.o]},${stopLon[q.o]}&toPlace=${stopLat[q.d]},${stopLon[q.d]}&date=${iso}&time=${q.t - localToUnix(day, 0, tz)}`,
    gqlBody: (q: Query, query: string) =>
      JSON.stringify({
        query,
        variables: {
          origin: { location: { coordinate: { latitude: stopLat[q.o], longitude: stopLon[q.o] } } },
          destination: { location: { coordinate: { latitude: stopLat[q.d], longitude: stopLon[q.d] } } },
          dateTime: { earliestDeparture: new Date(q.t * 1000).toISOString().replace(".000Z", "Z") },
          first: 3,
        },
      }),
  };
}
