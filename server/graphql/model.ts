/**
 * The objects the GTFS GraphQL API's fields resolve on: one class per OTP type this service fills
 * (Stop, Route, Agency, Feed, stopAtDistance), over the transit-data port (server/transit-data.ts).
 * graphql's default resolver reads a property or calls a method with (args, context), so each
 * field is a property or a method named like the schema's field; `__typename` picks the type
 * behind an interface (Node, PlaceInterface).
 */
import { transitMode } from "../../shared/transit-modes.ts";
import { GraphQLError } from "graphql";
import type { TransitAgency, TransitRoute, TransitSnapshot, TransitStop } from "../transit-data.ts";
import { catalogNodes, type GqlContext, snapOf, StopRoutesBatch, batchOf } from "./context.ts";
import { globalId, gtfsId } from "./ids.ts";

export { batchOf, type GqlContext, snapOf, StopRoutesBatch };
import { alertNodes, alertsView, PatternNode, serviceDateArg, stopTimesAt, type StopTimesArgs, StoptimeNode, StoptimesInPatternNode, todayIn, TripNode } from "./timetable.ts";



const LOCATION_TYPES: Record<number, string> = { 0: "STOP", 1: "STATION", 2: "ENTRANCE" };
const WHEELCHAIR = ["NO_INFORMATION", "POSSIBLE", "NOT_POSSIBLE"];

export { transitMode };

export class StopNode {
  readonly __typename = "Stop";
  constructor(readonly s: TransitStop) {}
  get id() {
    return globalId("Stop", this.gtfsId);
  }
  get gtfsId() {
    return gtfsId(this.s.feed, this.s.id);
  }
  get name() {
    return this.s.name ?? "";
  }
  get code() {
    return this.s.code;
  }
  get desc() {
    return this.s.desc;
  }
  get url() {
    return this.s.url;
  }
  get lat() {
    return this.s.lat;
  }
  get lon() {
    return this.s.lon;
  }
  get locationType() {
    return LOCATION_TYPES[this.s.locationType] ?? null;
  }
  get platformCode() {
    return this.s.platformCode;
  }
  get zoneId() {
    return this.s.zoneId;
  }
  get timezone() {
    return this.s.timezone;
  }
  get wheelchairBoarding() {
    return WHEELCHAIR[this.s.wheelchairBoarding ?? 0] ?? "NO_INFORMATION";
  }
  parentStation(_: unknown, ctx: GqlContext) {
    if (this.s.parent === null) return null;
    const p = snapOf(ctx).stop(this.s.parent);
    return p ? new StopNode(p) : null;
  }
  /** a station's child stops; null for a stop (as OTP) */
  stops(_: unknown, ctx: GqlContext) {
    if (this.s.locationType !== 1) return null;
    const snap = snapOf(ctx);
    return snap.childrenOf(this.s.ref).flatMap((r) => {
      const c = snap.stop(r);
      return c ? [new StopNode(c)] : [];
    });
  }
  /** the routes serving the stop (a station: its child stops'), in the dataset's order */
  routes(_: unknown, ctx: GqlContext) {
    const snap = snapOf(ctx);
    const batch = batchOf(ctx);
    const refs = this.s.locationType === 1 ? snap.childrenOf(this.s.ref) : [this.s.ref];
    if (refs.length === 1) return [...batch.routesOf(snap, refs[0]!)].flatMap((r) => routeNode(snap, r) ?? []);
    batch.want(refs);
    const seen = new Set<number>();
    for (const ref of refs) for (const r of batch.routesOf(snap, ref)) seen.add(r);
    return [...seen].sort((a, b) => a - b).flatMap((r) => routeNode(snap, r) ?? []);
  }
  /** the stop itself, or a station's child stops */
  private ownStops(ctx: GqlContext): number[] {
    return this.s.locationType === 1 ? snapOf(ctx).childrenOf(this.s.ref) : [this.s.ref];
  }
  patterns(_: unknown, ctx: GqlContext) {
    const snap = snapOf(ctx);
    const seen = new Set<string>();
    const out: PatternNode[] = [];
    for (const ref of this.ownStops(ctx)) for (const p of snap.patternsAtStop(ref)) if (!seen.has(p.code)) {
      seen.add(p.code);
      out.push(new PatternNode(p));
    }
    return out;
  }
  /** the next departures from `startTime` (POSIX seconds; 0: now) within `timeRange` seconds, all patterns together, in time order */
  stoptimesWithoutPatterns(a: StopTimesArgs, ctx: GqlContext) {
    return stopTimesAt(this.ownStops(ctx), a, null, ctx).map((c) => new StoptimeNode(c));
  }
  /** the next departures of each pattern calling here (at most numberOfDepartures each) */
  stoptimesForPatterns(a: StopTimesArgs, ctx: GqlContext) {
    const out: StoptimesInPatternNode[] = [];
    for (const p of this.patterns(null, ctx)) {
      const calls = stopTimesAt(this.ownStops(ctx).filter((r) => p.p.stops.includes(r)), a, p.p, ctx);
      if (calls.length) out.push(new StoptimesInPatternNode(p.p, calls));
    }
    return out;
  }
  /** one pattern's next departures here */
  stopTimesForPattern(a: StopTimesArgs & { id: string }, ctx: GqlContext) {
    const p = snapOf(ctx).patternByCode(a.id);
    if (!p) return null;
    return stopTimesAt(this.ownStops(ctx).filter((r) => p.stops.includes(r)), a, p, ctx).map((c) => new StoptimeNode(c));
  }
  /** every departure of a service day (YYYYMMDD; today without one) per pattern */
  stoptimesForServiceDate(a: { date?: string | null; omitNonPickups?: boolean; omitCanceled?: boolean }, ctx: GqlContext) {
    const snap = snapOf(ctx);
    const date = a.date ? serviceDateArg(a.date, "date") : todayIn(snap.timezoneOf(this.s.feed), ctx.now);
    const out: StoptimesInPatternNode[] = [];
    for (const p of this.patterns(null, ctx)) {
      const calls = stopTimesAt(this.ownStops(ctx).filter((r) => p.p.stops.includes(r)), { serviceDate: date, omitNonPickups: a.omitNonPickups, omitCanceled: a.omitCanceled, numberOfDepartures: 100_000 }, p.p, ctx);
      out.push(new StoptimesInPatternNode(p.p, calls));
    }
    return out;
  }
  alerts({ types }: { types?: string[] | null }, ctx: GqlContext) {
    const a = alertsView(ctx);
    const snap = snapOf(ctx);
    const want = new Set(types ?? ["STOP"]);
    const out = [];
    if (want.has("STOP")) out.push(...a.stop(this.s.feed, this.s.id, null, null));
    const routes = want.has("ROUTES") || want.has("STOP_ON_ROUTES") || want.has("AGENCIES_OF_ROUTES") ? this.routes(null, ctx) : [];
    for (const r of routes) {
      if (want.has("ROUTES")) out.push(...a.route(r.r.feed, r.r.id));
      if (want.has("STOP_ON_ROUTES")) out.push(...a.stop(this.s.feed, this.s.id, r.r.id, null).filter((x) => x.entities.some((e) => e.route === r.r.id && e.stop === this.s.id)));
      if (want.has("AGENCIES_OF_ROUTES") && r.r.agency !== null) {
        const ag = snap.agency(r.r.agency);
        if (ag) out.push(...a.agency(ag.feed, ag.id));
      }
    }
    if (want.has("PATTERNS") || want.has("TRIPS") || want.has("STOP_ON_TRIPS")) {
      for (const p of this.patterns(null, ctx)) for (const t of p.p.trips) {
        const trip = snap.trip(t);
        if (!trip) continue;
        if (want.has("TRIPS") || want.has("PATTERNS")) out.push(...a.trip(trip.feed, trip.id));
        if (want.has("STOP_ON_TRIPS")) out.push(...a.stop(this.s.feed, this.s.id, null, trip.id).filter((x) => x.entities.some((e) => e.trip === trip.id && e.stop === this.s.id)));
      }
    }
    return alertNodes(out);
  }
  /** the stop's point as GeoJSON (OTP's StopGeometries; googleEncoded is its polyline) */
  get geometries() {
    const { lat, lon } = this.s;
    if (lat === null || lon === null) return null;
    return { geoJson: { type: "Point", coordinates: [lon, lat] }, googleEncoded: [{ length: 1, points: encodePoint(lat, lon) }] };
  }
  /** OTP's vehicleMode: the mode of the routes calling here (the most common one), null without any */
  vehicleMode(_: unknown, ctx: GqlContext) {
    const counts = new Map<string, number>();
    for (const r of this.routes(_, ctx)) {
      const m = r.mode;
      if (m) counts.set(m, (counts.get(m) ?? 0) + 1);
    }
    let best: string | null = null;
    for (const [m, n] of counts) if (best === null || n > counts.get(best)!) best = m;
    return best;
  }
}

const routeNode = (snap: TransitSnapshot, ref: number) => {
  const r = snap.route(ref);
  return r ? new RouteNode(r) : null;
};

/** One point as an encoded polyline. */
function encodePoint(lat: number, lon: number): string {
  const enc = (v: number) => {
    let n = Math.round(v * 1e5);
    n = n < 0 ? ~(n << 1) : n << 1;
    let out = "";
    while (n >= 0x20) {
      out += String.fromCharCode((0x20 | (n & 0x1f)) + 63);
      n >>= 5;
    }
    return out + String.fromCharCode(n + 63);
  };
  return enc(lat) + enc(lon);
}

export class RouteNode {
  readonly __typename = "Route";
  constructor(readonly r: TransitRoute) {}
  /** GTFS has no route-level bikes_allowed */
  get bikesAllowed() {
    return "NO_INFORMATION";
  }
  patterns(a: { serviceDates?: unknown }, ctx: GqlContext) {
    if (a?.serviceDates != null) throw new GraphQLError("Route.patterns(serviceDates) is not implemented yet", { extensions: { code: "NOT_IMPLEMENTED" } });
    return snapOf(ctx).patternsOfRoute(this.r.ref).map((p) => new PatternNode(p));
  }
  trips(_: unknown, ctx: GqlContext) {
    const snap = snapOf(ctx);
    return [...snap.tripsOfRoute(this.r.ref)].flatMap((t) => {
      const trip = snap.trip(t);
      return trip ? [new TripNode(trip)] : [];
    });
  }
  alerts({ types }: { types?: string[] | null }, ctx: GqlContext) {
    const a = alertsView(ctx);
    const snap = snapOf(ctx);
    const want = new Set(types ?? ["ROUTE"]);
    const out = [];
    if (want.has("ROUTE")) out.push(...a.route(this.r.feed, this.r.id));
    if (want.has("AGENCY") && this.r.agency !== null) {
      const ag = snap.agency(this.r.agency);
      if (ag) out.push(...a.agency(ag.feed, ag.id));
    }
    if (want.has("ROUTE_TYPE") && this.r.type !== null) out.push(...a.routeType(this.r.feed, this.r.type));
    if (want.has("TRIPS") || want.has("PATTERNS")) for (const t of snap.tripsOfRoute(this.r.ref)) {
      const trip = snap.trip(t);
      if (trip) out.push(...a.trip(trip.feed, trip.id));
    }
    if (want.has("STOPS_ON_ROUTE")) for (const ref of snap.stopsOfRoute(this.r.ref)) {
      const s = snap.stop(ref);
      if (s) out.push(...a.stop(s.feed, s.id, this.r.id, null).filter((x) => x.entities.some((e) => e.route === this.r.id && e.stop === s.id)));
    }
    return alertNodes(out);
  }
  get id() {
    return globalId("Route", this.gtfsId);
  }
  get gtfsId() {
    return gtfsId(this.r.feed, this.r.id);
  }
  get shortName() {
    return this.r.shortName;
  }
  get longName() {
    return this.r.longName;
  }
  get desc() {
    return this.r.desc;
  }
  get type() {
    return this.r.type;
  }
  get mode() {
    return transitMode(this.r.type);
  }
  get url() {
    return this.r.url;
  }
  get color() {
    return this.r.color;
  }
  get textColor() {
    return this.r.textColor;
  }
  get sortOrder() {
    return this.r.sortOrder;
  }
  agency(_: unknown, ctx: GqlContext) {
    if (this.r.agency === null) return null;
    const a = snapOf(ctx).agency(this.r.agency);
    return a ? new AgencyNode(a) : null;
  }
  stops(_: unknown, ctx: GqlContext) {
    const snap = snapOf(ctx);
    return [...snap.stopsOfRoute(this.r.ref)].flatMap((ref) => {
      const s = snap.stop(ref);
      return s ? [new StopNode(s)] : [];
    });
  }
}

export class AgencyNode {
  readonly __typename = "Agency";
  constructor(readonly a: TransitAgency) {}
  get id() {
    return globalId("Agency", this.gtfsId);
  }
  get gtfsId() {
    return gtfsId(this.a.feed, this.a.id);
  }
  get name() {
    return this.a.name ?? "";
  }
  get url() {
    return this.a.url ?? "";
  }
  get timezone() {
    return this.a.timezone ?? "";
  }
  get lang() {
    return this.a.lang;
  }
  get phone() {
    return this.a.phone;
  }
  get fareUrl() {
    return this.a.fareUrl;
  }
  routes(_: unknown, ctx: GqlContext) {
    const snap = snapOf(ctx);
    return [...snap.routeRefs()].flatMap((ref) => {
      const r = snap.route(ref);
      return r && r.agency === this.a.ref ? [new RouteNode(r)] : [];
    });
  }
  alerts({ types }: { types?: string[] | null }, ctx: GqlContext) {
    const a = alertsView(ctx);
    const want = new Set(types ?? ["AGENCY"]);
    const out = want.has("AGENCY") ? [...a.agency(this.a.feed, this.a.id)] : [];
    if (want.has("ROUTES") || want.has("ROUTE_TYPES")) for (const r of this.routes(null, ctx)) {
      if (want.has("ROUTES")) out.push(...a.route(r.r.feed, r.r.id));
      if (want.has("ROUTE_TYPES") && r.r.type !== null) out.push(...a.routeType(r.r.feed, r.r.type));
    }
    return alertNodes(out);
  }
}

export class FeedNode {
  readonly __typename = "Feed";
  constructor(readonly feedId: string) {}
  agencies(_: unknown, ctx: GqlContext) {
    const snap = snapOf(ctx);
    return [...snap.agencyRefs()].flatMap((ref) => {
      const a = snap.agency(ref);
      return a && a.feed === this.feedId ? [new AgencyNode(a)] : [];
    });
  }
  /** the feed's alerts naming its agencies (AGENCIES) or route types (ROUTE_TYPES); both without `types` */
  alerts({ types }: { types?: string[] | null }, ctx: GqlContext) {
    const want = new Set(types ?? ["AGENCIES", "ROUTE_TYPES"]);
    const feed = this.feedId.toLowerCase();
    return alertNodes(
      alertsView(ctx).all.filter((a) => a.feed.toLowerCase() === feed && a.entities.some((e) => e.trip === null && e.stop === null && e.route === null && ((want.has("AGENCIES") && e.agency !== null && e.routeType === null) || (want.has("ROUTE_TYPES") && e.routeType !== null)))),
    );
  }
  /** OTP's feed_info publisher; this service does not keep feed_info */
  get publisher() {
    return null;
  }
}

/** One stop found around a point (stopsByRadius, nearest). */
export class StopAtDistanceNode {
  readonly __typename = "stopAtDistance";
  constructor(
    private readonly s: TransitStop,
    readonly distance: number,
  ) {}
  get id() {
    return globalId("stopAtDistance", `${this.distance};${gtfsId(this.s.feed, this.s.id)}`);
  }
  get stop() {
    return new StopNode(this.s);
  }
}

// the catalog's nodes, for timetable.ts (through context.ts: the two modules do not import each other)
catalogNodes.stop = (s) => new StopNode(s);
catalogNodes.route = (r) => new RouteNode(r);
catalogNodes.agency = (a) => new AgencyNode(a);
