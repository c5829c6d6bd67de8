/**
 * The objects the GTFS GraphQL API's fields resolve on: one class per OTP type this service fills
 * (Stop, Route, Agency, Feed, stopAtDistance), over the transit-data port (server/transit-data.ts).
 * graphql's default resolver reads a property or calls a method with (args, context), so each
 * field is a property or a method named like the schema's field; `__typename` picks the type
 * behind an interface (Node, PlaceInterface).
 */
import { GraphQLError } from "graphql";
import type { TransitAgency, TransitRoute, TransitSnapshot, TransitStop } from "../transit-data.ts";
import { globalId, gtfsId } from "./ids.ts";

export interface GqlContext {
  /** the dataset of this request (null while none is loaded: every data field answers UNAVAILABLE) */
  snap: TransitSnapshot | null;
}

/** The request's dataset, or the GraphQL error saying there is none yet. */
export function snapOf(ctx: GqlContext): TransitSnapshot {
  if (!ctx.snap) throw new GraphQLError("the transit dataset is not loaded yet", { extensions: { code: "UNAVAILABLE" } });
  return ctx.snap;
}

const LOCATION_TYPES: Record<number, string> = { 0: "STOP", 1: "STATION", 2: "ENTRANCE" };
const WHEELCHAIR = ["NO_INFORMATION", "POSSIBLE", "NOT_POSSIBLE"];

/** OTP's TransitMode for a GTFS route_type (basic and extended types, as OTP's GTFS mapper reads them). */
export function transitMode(routeType: number | null): string | null {
  if (routeType === null) return null;
  const basic: Record<number, string> = { 0: "TRAM", 1: "SUBWAY", 2: "RAIL", 3: "BUS", 4: "FERRY", 5: "CABLE_CAR", 6: "GONDOLA", 7: "FUNICULAR", 11: "TROLLEYBUS", 12: "MONORAIL" };
  if (routeType in basic) return basic[routeType]!;
  if (routeType >= 100 && routeType < 200) return "RAIL";
  if (routeType >= 200 && routeType < 300) return "COACH";
  if (routeType >= 400 && routeType < 500) return routeType === 403 || routeType === 404 ? "RAIL" : "SUBWAY";
  if (routeType >= 700 && routeType < 800) return routeType === 715 ? "BUS" : "BUS";
  if (routeType === 800) return "TROLLEYBUS";
  if (routeType >= 900 && routeType < 1000) return "TRAM";
  if (routeType >= 1000 && routeType < 1300) return routeType >= 1100 && routeType < 1200 ? "AIRPLANE" : "FERRY";
  if (routeType >= 1300 && routeType < 1400) return "GONDOLA";
  if (routeType >= 1400 && routeType < 1500) return "FUNICULAR";
  if (routeType >= 1500 && routeType < 1600) return "TAXI";
  return "BUS";
}

export class StopNode {
  readonly __typename = "Stop";
  constructor(private readonly s: TransitStop) {}
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
    const refs = this.s.locationType === 1 ? snap.childrenOf(this.s.ref) : [this.s.ref];
    const seen = new Set<number>();
    for (const list of snap.routesOfStops(refs)) for (const r of list) seen.add(r);
    return [...seen].sort((a, b) => a - b).flatMap((r) => {
      const route = snap.route(r);
      return route ? [new RouteNode(route)] : [];
    });
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

export class RouteNode {
  readonly __typename = "Route";
  constructor(readonly r: TransitRoute) {}
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
