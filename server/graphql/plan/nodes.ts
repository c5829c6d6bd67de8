/**
 * The plan model (server/planner/model.ts) as the GTFS GraphQL API's objects: Itinerary, Leg,
 * Place, LegTime, step, Alert, FareProductUse, Trip and Stoptime, one class (or plain object) per
 * OTP type, each field a property or a method named like the schema's field (server/graphql/
 * execute.ts resolves them). Stops, routes and agencies are the catalog's nodes (../model.ts),
 * looked up by feed and GTFS id. A field the model has no data for answers null or [] as the
 * schema allows; a field left out of a class answers NOT_IMPLEMENTED.
 */
import polyline from "@mapbox/polyline";
import type { TransitSnapshot } from "../../transit-data.ts";
import { dataOf, type RenderData } from "../../planner/public.ts";
import type { Itinerary, LegPlace, StopCall, StreetLeg, TransitLeg } from "../../planner/public.ts";
import type { PlanQuery } from "../../planner/public.ts";
import type { LocalizedAlert } from "../../planner/public.ts";
import { dayToIso, serviceDayOf } from "../../planner/public.ts";
import { arrAt, depAt, type Timetable } from "../../planner/public.ts";
import type { WalkStep } from "../../street-paths.ts";
import { globalId, gtfsId } from "../ids.ts";
import { AgencyNode, type GqlContext, RouteNode, StopNode, transitMode } from "../model.ts";
import { TripNode as CatalogTripNode } from "../timetable.ts";
import { isoDuration, offsetDateTime } from "./wire.ts";

/**
 * What every object of one plan reads: the timetable it was made on, the catalog's dataset, the
 * query; and the catalog nodes of the plan's stops and GTFS routes, each looked up once per answer
 * (legs share their stops, a leg's place, stop calls and trip ask for the same ones).
 */
export interface PlanView {
  tt: Timetable;
  rd: RenderData;
  snap: TransitSnapshot | null;
  query: PlanQuery;
  stops: Map<number, StopNode | null>;
  routes: Map<number, RouteNode | null>;
}

export const planView = (tt: Timetable, snap: TransitSnapshot | null, query: PlanQuery): PlanView => ({ tt, rd: dataOf(tt), snap, query, stops: new Map(), routes: new Map() });

const round1 = (x: number) => Math.round(x * 10) / 10;
const WHEELCHAIR = ["NO_INFORMATION", "POSSIBLE", "NOT_POSSIBLE"];

/**
 * A catalog node inside a plan: `alerts` answers [] where the node has no alerts field yet (the
 * leg's own `alerts` carry the alerts of its trip, route, agency and stops).
 */
function withAlerts<T extends object>(node: T): T {
  if (!("alerts" in node)) Object.defineProperty(node, "alerts", { value: () => [], enumerable: false });
  return node;
}

function stopNode(v: PlanView, s: number | undefined): StopNode | null {
  if (s === undefined || !v.snap) return null;
  let node = v.stops.get(s);
  if (node === undefined) {
    const st = v.snap.stopById(v.rd.feedId[v.tt.meta.stopFeed[s]!] ?? "", v.tt.meta.stopId[s]!);
    v.stops.set(s, (node = st ? withAlerts(new StopNode(st)) : null));
  }
  return node;
}

/** The feed (Onestop ID) of a GTFS route of the timetable. */
function routeFeed(v: PlanView, g: number): string {
  const m = v.tt.meta;
  return v.rd.feedId[m.agencies[m.gtfsRoutes[g]!.agency]?.feed ?? 0] ?? "";
}

function routeNode(v: PlanView, g: number): RouteNode | null {
  if (!v.snap) return null;
  let node = v.routes.get(g);
  if (node === undefined) {
    const r = v.snap.routeById(routeFeed(v, g), v.tt.meta.gtfsRoutes[g]!.routeId);
    v.routes.set(g, (node = r ? withAlerts(new RouteNode(r)) : null));
  }
  return node;
}

function agencyNode(v: PlanView, g: number): AgencyNode | null {
  const m = v.tt.meta;
  const a = m.agencies[m.gtfsRoutes[g]!.agency];
  if (!a || !v.snap) return null;
  const found = v.snap.agencyById(v.rd.feedId[a.feed] ?? "", a.agencyId);
  return found ? withAlerts(new AgencyNode(found)) : null;
}

/** OTP's LegTime: the scheduled time, and the realtime estimate with its delay where a trip update applies. */
function legTime(sec: number, delaySec: number | null, tz: string) {
  return {
    scheduledTime: offsetDateTime(sec - (delaySec ?? 0), tz),
    estimated: delaySec === null ? null : { time: offsetDateTime(sec, tz), delay: isoDuration(delaySec) },
  };
}

/** OTP's Place: a stop of the timetable, or the query's origin or destination. */
export class PlaceNode {
  readonly __typename = "Place";
  constructor(
    private readonly v: PlanView,
    private readonly p: LegPlace,
    private readonly tz: string,
    /** Unix seconds and delay of the arrival here and the departure from here (null: none) */
    private readonly arr: { sec: number; delay: number | null } | null,
    private readonly dep: { sec: number; delay: number | null } | null,
  ) {}
  get name() {
    return this.p.name;
  }
  get lat() {
    return this.p.lat;
  }
  get lon() {
    return this.p.lon;
  }
  get vertexType() {
    return this.p.stop === undefined ? "NORMAL" : "TRANSIT";
  }
  stop() {
    return stopNode(this.v, this.p.stop);
  }
  get arrival() {
    return this.arr ? legTime(this.arr.sec, this.arr.delay, this.tz) : null;
  }
  get departure() {
    return this.dep ? legTime(this.dep.sec, this.dep.delay, this.tz) : null;
  }
  /** ms; OTP's deprecated non-null fields: the other time where the place has only one */
  get arrivalTime() {
    return ((this.arr ?? this.dep)?.sec ?? 0) * 1000;
  }
  get departureTime() {
    return ((this.dep ?? this.arr)?.sec ?? 0) * 1000;
  }
  get stopPosition() {
    return this.p.stopIndex === undefined ? null : { __typename: "PositionAtStop", position: this.p.stopIndex };
  }
  bikeRentalStation = null;
  bikePark = null;
  carPark = null;
  rentalVehicle = null;
  vehicleParking = null;
  vehicleRentalStation = null;
}

/** OTP's Alert over the planner's LocalizedAlert (times in seconds, as OTP's Alert has them). */
export function alertNode(a: LocalizedAlert) {
  const text = `${a.alertHeaderText ?? ""}|${a.alertDescriptionText ?? ""}|${a.alertUrl ?? ""}|${a.effectiveStartDate ?? ""}`;
  let h = 0;
  for (let i = 0; i < text.length; i++) h = (Math.imul(h, 31) + text.charCodeAt(i)) | 0;
  const tr = (t: string | undefined) => (t === undefined ? [] : [{ language: null, text: t }]);
  return {
    __typename: "Alert",
    id: globalId("Alert", `plan:${(h >>> 0).toString(16)}`),
    alertHash: h,
    feed: null,
    alertHeaderText: a.alertHeaderText ?? null,
    alertDescriptionText: a.alertDescriptionText ?? "",
    alertUrl: a.alertUrl ?? null,
    alertHeaderTextTranslations: tr(a.alertHeaderText),
    alertDescriptionTextTranslations: tr(a.alertDescriptionText),
    alertUrlTranslations: tr(a.alertUrl),
    effectiveStartDate: a.effectiveStartDate === undefined ? null : Math.floor(a.effectiveStartDate / 1000),
    effectiveEndDate: a.effectiveEndDate === undefined ? null : Math.floor(a.effectiveEndDate / 1000),
    alertCause: null,
    alertEffect: null,
    alertSeverityLevel: null,
    agency: null,
    route: null,
    stop: null,
    trip: null,
    patterns: null,
    entities: null,
  };
}

/** OTP's step over an OTP1 WalkStep, its elevation as OTP's elevationProfile. */
function stepNode(s: WalkStep) {
  return {
    distance: s.distance,
    relativeDirection: s.relativeDirection,
    absoluteDirection: s.absoluteDirection,
    streetName: s.streetName,
    exit: s.exit ?? null,
    stayOn: s.stayOn,
    area: s.area,
    bogusName: s.bogusName,
    lat: s.lat,
    lon: s.lon,
    elevationProfile: (s.elevation ?? []).map((e) => ({ distance: e.first, elevation: e.second })),
    walkingBike: false,
    feature: null,
    alerts: [],
  };
}

/** One fare product used by legs of an itinerary (GTFS Fares v1 or v2, server/planner/fares.ts). */
export interface FareUse {
  id: string;
  product: Record<string, unknown>;
}

/**
 * The fare products of an itinerary's legs: each component of the planner's fare (fares.ts, in ride
 * order, its routes one per ride) covers the next transit legs of those routes (consecutive legs
 * of one route are one ride in Fares v1); a leg no component covers has none. The legs one product
 * covers share the use id, as OTP's FareProductUse ids are shared (core-utils counts a use once).
 */
function fareUses(v: PlanView, it: Itinerary, itIndexKey: string): Map<TransitLeg, FareUse[]> {
  const out = new Map<TransitLeg, FareUse[]>();
  const comps = it.fare?.details.regular ?? [];
  const entries = comps.flatMap((c, ci) => {
    const cur = c.price.currency;
    const use: FareUse = {
      id: `${itIndexKey}:${ci}:${c.fareId}`,
      product: { __typename: "DefaultFareProduct", id: c.fareId, name: "regular", price: { amount: c.price.cents / 10 ** cur.defaultFractionDigits, currency: { code: cur.currencyCode, digits: cur.defaultFractionDigits } }, riderCategory: null, medium: null },
    };
    return c.routes.map((route) => ({ route, use }));
  });
  let e = 0;
  let prev: { leg: TransitLeg; use: FareUse | null } | null = null;
  for (const l of it.legs) {
    if (l.kind !== "transit") continue;
    let use: FareUse | null = null;
    if (e < entries.length && entries[e]!.route === v.rd.routeId[l.gtfsRoute]) use = entries[e++]!.use;
    else if (prev?.use && prev.leg.gtfsRoute === l.gtfsRoute) use = prev.use; // rides of one route merged into one (Fares v1)
    if (use) out.set(l, [use]);
    prev = { leg: l, use };
  }
  return out;
}

/** OTP's Stoptime of a trip at a position of its route (scheduled times; the leg's stops carry realtime). */
class StoptimeNode {
  readonly __typename = "Stoptime";
  constructor(
    private readonly v: PlanView,
    private readonly leg: TransitLeg,
    private readonly pos: number,
  ) {}
  private get base() {
    const c = this.v.tt.core, r = this.leg.route;
    return c.routeTime0[r]! + (this.leg.trip - c.routeTripStart[r]!) * (c.routeStopStart[r + 1]! - c.routeStopStart[r]!);
  }
  stop() {
    return stopNode(this.v, this.v.tt.core.routeStops[this.v.tt.core.routeStopStart[this.leg.route]! + this.pos]!);
  }
  get stopPosition() {
    return this.v.tt.meta.routeStopSequence[this.v.tt.core.routeStopStart[this.leg.route]! + this.pos]!;
  }
  get stopPositionInPattern() {
    return this.pos;
  }
  get scheduledArrival() {
    return arrAt(this.v.tt.core.stopTimes, this.base + this.pos);
  }
  get scheduledDeparture() {
    return depAt(this.v.tt.core.stopTimes, this.base + this.pos);
  }
  get realtimeArrival() {
    return this.scheduledArrival;
  }
  get realtimeDeparture() {
    return this.scheduledDeparture;
  }
  arrivalDelay = 0;
  departureDelay = 0;
  realtime = false;
  realtimeState = "SCHEDULED";
  timepoint = null;
  pickupType = null;
  dropoffType = null;
  get serviceDay() {
    return this.leg.serviceDayStartSec;
  }
  headsign() {
    return this.v.tt.meta.tripHeadsign[this.leg.trip] || null;
  }
  trip() {
    return legTrip(this.v, this.leg);
  }
}

/**
 * A leg's Trip: the catalog's (every Trip field: stoptimes, geometry, pattern, active dates, ...),
 * with the leg's own service day where OTP's plan reads one (departure and arrival stop times
 * without a serviceDate, realtime included) and the leg's alerts; the plan's own TripNode below
 * when the catalog does not hold the trip.
 */
class LegTripNode extends CatalogTripNode {
  constructor(
    t: ConstructorParameters<typeof CatalogTripNode>[0],
    private readonly v: PlanView,
    private readonly leg: TransitLeg,
  ) {
    super(t);
  }
  override departureStoptime(a: { serviceDate?: string | null } | undefined, ctx: GqlContext) {
    return a?.serviceDate ? super.departureStoptime(a, ctx) : (new StoptimeNode(this.v, this.leg, 0) as never);
  }
  override arrivalStoptime(a: { serviceDate?: string | null } | undefined, ctx: GqlContext) {
    const c = this.v.tt.core;
    const n = c.routeStopStart[this.leg.route + 1]! - c.routeStopStart[this.leg.route]!;
    return a?.serviceDate ? super.arrivalStoptime(a, ctx) : (new StoptimeNode(this.v, this.leg, n - 1) as never);
  }
  override alerts(a: { types?: string[] | null } | undefined, ctx: GqlContext) {
    return a?.types ? super.alerts(a, ctx) : (this.leg.alerts.map(alertNode) as never);
  }
}

function legTrip(v: PlanView, leg: TransitLeg): LegTripNode | TripNode {
  const t = v.snap?.tripById(routeFeed(v, leg.gtfsRoute), v.tt.meta.tripId[leg.trip]!);
  return t ? new LegTripNode(t, v, leg) : new TripNode(v, leg);
}

/**
 * OTP's Trip of a leg: its ids, names, route and the stops of its pattern, from the plan's
 * timetable (the transit-data Trip fields beyond these answer NOT_IMPLEMENTED here).
 */
export class TripNode {
  readonly __typename = "Trip";
  constructor(
    private readonly v: PlanView,
    private readonly leg: TransitLeg,
  ) {}
  get gtfsId() {
    return gtfsId(routeFeed(this.v, this.leg.gtfsRoute), this.v.tt.meta.tripId[this.leg.trip]!);
  }
  get id() {
    return globalId("Trip", this.gtfsId);
  }
  tripHeadsign() {
    return this.v.tt.meta.tripHeadsign[this.leg.trip] || null;
  }
  get tripShortName() {
    return this.v.tt.meta.tripShortName[this.leg.trip] || null;
  }
  get blockId() {
    return this.v.tt.meta.tripBlockId[this.leg.trip] || null;
  }
  get routeShortName() {
    return this.v.tt.meta.gtfsRoutes[this.leg.gtfsRoute]!.shortName || null;
  }
  get wheelchairAccessible() {
    return WHEELCHAIR[this.v.tt.core.tripWheelchair[this.leg.trip] ?? 0] ?? "NO_INFORMATION";
  }
  route() {
    return routeNode(this.v, this.leg.gtfsRoute);
  }
  private get nStops() {
    const c = this.v.tt.core;
    return c.routeStopStart[this.leg.route + 1]! - c.routeStopStart[this.leg.route]!;
  }
  departureStoptime() {
    return new StoptimeNode(this.v, this.leg, 0);
  }
  arrivalStoptime() {
    return new StoptimeNode(this.v, this.leg, this.nStops - 1);
  }
  stops() {
    const c = this.v.tt.core, s0 = c.routeStopStart[this.leg.route]!;
    return Array.from({ length: this.nStops }, (_, i) => stopNode(this.v, c.routeStops[s0 + i]!)).filter((s) => s !== null);
  }
  alerts() {
    return this.leg.alerts.map(alertNode);
  }
}

/** wheelchair data of one boarding, alighting or trip: 1 accessible, 0.5 unknown, 0 not */
const score = (w: number | undefined) => (w === 1 ? 1 : w === 2 ? 0 : 0.5);

/** OTP's Leg over a model leg. */
export class LegNode {
  readonly __typename = "Leg";
  readonly from: PlaceNode;
  readonly to: PlaceNode;
  constructor(
    private readonly v: PlanView,
    private readonly l: TransitLeg | StreetLeg,
    /** the clock of the leg's times (a ride's agency; walks: the itinerary's) */
    private readonly tz: string,
    /** when the previous leg arrives at this leg's start and the next leaves its end (OTP1's fixupLegs) */
    prevArrival: { sec: number; delay: number | null } | null,
    nextDeparture: { sec: number; delay: number | null } | null,
    private readonly fares: FareUse[],
  ) {
    this.from = new PlaceNode(v, l.from, tz, prevArrival, { sec: this.startSec, delay: this.depDelay });
    this.to = new PlaceNode(v, l.to, tz, { sec: this.endSec, delay: this.arrDelay }, nextDeparture);
  }
  get startSec() {
    return this.l.kind === "transit" ? this.l.startSec : this.l.startSec;
  }
  get endSec() {
    return this.l.kind === "transit" ? this.l.endSec : this.l.startSec + this.l.durationSec;
  }
  get depDelay(): number | null {
    return this.l.kind === "transit" && this.l.realtime ? this.l.realtime.departureDelaySec : null;
  }
  get arrDelay(): number | null {
    return this.l.kind === "transit" && this.l.realtime ? this.l.realtime.arrivalDelaySec : null;
  }
  get mode() {
    if (this.l.kind === "street") return this.l.mode;
    return transitMode(this.v.tt.meta.gtfsRoutes[this.l.gtfsRoute]!.type) ?? "BUS";
  }
  get start() {
    return legTime(this.startSec, this.depDelay, this.tz);
  }
  get end() {
    return legTime(this.endSec, this.arrDelay, this.tz);
  }
  get startTime() {
    return this.startSec * 1000;
  }
  get endTime() {
    return this.endSec * 1000;
  }
  get departureDelay() {
    return this.depDelay ?? 0;
  }
  get arrivalDelay() {
    return this.arrDelay ?? 0;
  }
  get realTime() {
    return this.l.kind === "transit" && this.l.realtime !== null;
  }
  get realtimeState() {
    return this.l.kind === "transit" ? (this.l.realtime ? "UPDATED" : "SCHEDULED") : null;
  }
  get distance() {
    return round1(this.l.distanceM);
  }
  get duration() {
    return this.endSec - this.startSec;
  }
  get transitLeg() {
    return this.l.kind === "transit";
  }
  get interlineWithPreviousLeg() {
    return this.l.kind === "transit" ? this.l.interlineWithPreviousLeg : false;
  }
  get headsign() {
    return this.l.kind === "transit" ? this.v.tt.meta.tripHeadsign[this.l.trip] || null : null;
  }
  get serviceDate() {
    return this.l.kind === "transit" ? dayToIso(serviceDayOf(this.l.serviceDayStartSec, this.l.timeZone)).replace(/-/g, "") : null;
  }
  route() {
    return this.l.kind === "transit" ? routeNode(this.v, this.l.gtfsRoute) : null;
  }
  agency() {
    return this.l.kind === "transit" ? agencyNode(this.v, this.l.gtfsRoute) : null;
  }
  trip() {
    return this.l.kind === "transit" ? legTrip(this.v, this.l) : null;
  }
  get legGeometry() {
    const pts: [number, number][] =
      this.l.kind === "transit" ? this.l.geometry
      : (this.l.geometry ?? [
          [this.l.from.lat, this.l.from.lon],
          [this.l.to.lat, this.l.to.lon],
        ]);
    return { points: polyline.encode(pts, 5), length: pts.length };
  }
  get steps() {
    return this.l.kind === "street" ? this.l.steps.map(stepNode) : [];
  }
  private get calls(): StopCall[] {
    return this.l.kind === "transit" ? (this.l.intermediateStops ?? []) : [];
  }
  intermediateStops() {
    if (this.l.kind !== "transit") return null;
    return this.calls.map((c) => stopNode(this.v, c.place.stop)).filter((s) => s !== null);
  }
  intermediatePlaces() {
    if (this.l.kind !== "transit") return null;
    return this.calls.map((c) => new PlaceNode(this.v, c.place, this.tz, { sec: c.arrivalSec, delay: null }, { sec: c.departureSec, delay: null }));
  }
  /** OTP's StopCall of every stop the ride calls at, boarding and alighting included */
  stopCalls() {
    if (this.l.kind !== "transit") return [];
    const all: { place: LegPlace; arr: number; dep: number }[] = [
      { place: this.l.from, arr: this.l.startSec, dep: this.l.startSec },
      ...this.calls.map((c) => ({ place: c.place, arr: c.arrivalSec, dep: c.departureSec })),
      { place: this.l.to, arr: this.l.endSec, dep: this.l.endSec },
    ];
    return all.flatMap((c) => {
      const stop = stopNode(this.v, c.place.stop);
      if (!stop) return [];
      return [{ stopLocation: stop, schedule: { time: { __typename: "ArrivalDepartureTime", arrival: offsetDateTime(c.arr, this.tz), departure: offsetDateTime(c.dep, this.tz) } }, realTime: null }];
    });
  }
  alerts() {
    return this.l.kind === "transit" ? this.l.alerts.map(alertNode) : [];
  }
  get fareProducts() {
    return this.fares;
  }
  /** OTP's wheelchair accessibility score of a ride, where the request is for wheelchair users: trip, boarding and alighting stop (1 yes, 0.5 unknown, 0 no), averaged */
  get accessibilityScore() {
    if (!this.v.query.wheelchair || this.l.kind !== "transit") return null;
    const c = this.v.tt.core;
    return (score(c.tripWheelchair[this.l.trip]) + score(c.stopWheelchair[this.l.from.stop!]) + score(c.stopWheelchair[this.l.to.stop!])) / 3;
  }
  get pickupType() {
    return this.l.kind === "transit" ? "SCHEDULED" : null;
  }
  get dropoffType() {
    return this.l.kind === "transit" ? "SCHEDULED" : null;
  }
  id = null;
  generalizedCost = null;
  rentedBike = false;
  walkingBike = false;
  intermediatePlace = false;
  pickupBookingInfo = null;
  dropOffBookingInfo = null;
  rideHailingEstimate = null;
  nextLegs = null;
  previousLegs = null;
}

/** OTP's Itinerary over a model itinerary. */
export class ItineraryNode {
  readonly __typename = "Itinerary";
  readonly legs: LegNode[];
  constructor(
    private readonly v: PlanView,
    readonly it: Itinerary,
    /** a key unique within the answer, for fare product use ids */
    key: string,
    private readonly streetNetwork: boolean,
  ) {
    const uses = fareUses(v, it, key);
    // walk legs keep the clock of the ride before them, those before the first ride the first ride's (OTP1)
    let tz = it.timeZone;
    const tzs = it.legs.map((l) => (l.kind === "transit" ? (tz = l.timeZone) : tz));
    const times = it.legs.map((l) => ({
      start: { sec: l.startSec, delay: l.kind === "transit" && l.realtime ? l.realtime.departureDelaySec : null },
      end: { sec: l.kind === "transit" ? l.endSec : l.startSec + l.durationSec, delay: l.kind === "transit" && l.realtime ? l.realtime.arrivalDelaySec : null },
    }));
    this.legs = it.legs.map((l, i) => new LegNode(v, l, tzs[i]!, i > 0 ? times[i - 1]!.end : null, i + 1 < it.legs.length ? times[i + 1]!.start : null, l.kind === "transit" ? (uses.get(l) ?? []) : []));
  }
  get startSec() {
    return this.legs[0]!.startSec;
  }
  get endSec() {
    return this.legs[this.legs.length - 1]!.endSec;
  }
  get start() {
    return offsetDateTime(this.startSec, this.it.timeZone);
  }
  get end() {
    return offsetDateTime(this.endSec, this.it.timeZone);
  }
  get startTime() {
    return this.startSec * 1000;
  }
  get endTime() {
    return this.endSec * 1000;
  }
  get duration() {
    return this.endSec - this.startSec;
  }
  private get streetLegs() {
    return this.it.legs.filter((l): l is StreetLeg => l.kind === "street");
  }
  get walkTime() {
    return this.streetLegs.reduce((a, l) => a + l.durationSec, 0);
  }
  get waitingTime() {
    const ride = this.it.legs.reduce((a, l) => a + (l.kind === "transit" ? l.endSec - l.startSec : 0), 0);
    return this.duration - this.walkTime - ride;
  }
  /** metres on the streets (as OTP1's walkDistance: the street legs, rounded like the legs on a street network) */
  get walkDistance() {
    return round1(this.streetLegs.reduce((a, l) => a + (this.streetNetwork ? round1(l.distanceM) : l.distanceM), 0));
  }
  get numberOfTransfers() {
    return Math.max(0, this.it.legs.filter((l) => l.kind === "transit").length - 1);
  }
  get elevationGained() {
    const ls = this.streetLegs.filter((l) => l.elevationGainedM !== null);
    return ls.length ? round1(ls.reduce((a, l) => a + l.elevationGainedM!, 0)) : null;
  }
  get elevationLost() {
    const ls = this.streetLegs.filter((l) => l.elevationLostM !== null);
    return ls.length ? round1(ls.reduce((a, l) => a + l.elevationLostM!, 0)) : null;
  }
  /** the wheelchair score of the rides (LegNode.accessibilityScore), averaged; null unless the request is for wheelchair users */
  get accessibilityScore() {
    const s = this.legs.map((l) => l.accessibilityScore).filter((x): x is number => x !== null);
    return s.length ? s.reduce((a, b) => a + b, 0) / s.length : null;
  }
  /** OTP's deprecated `fares`: the planner's fare as one `regular` fare with its components */
  fares() {
    const f = this.it.fare;
    if (!f) return [];
    const money = f.fare.regular;
    return [
      {
        type: "regular",
        currency: money.currency.currencyCode,
        cents: money.cents,
        components: f.details.regular.map((c) => ({
          fareId: c.fareId,
          currency: c.price.currency.currencyCode,
          cents: c.price.cents,
          routes: () => c.routes.flatMap((id) => {
            const i = id.indexOf(":");
            const r = this.v.snap?.routeById(id.slice(0, i), id.slice(i + 1));
            return r ? [withAlerts(new RouteNode(r))] : [];
          }),
        })),
      },
    ];
  }
  generalizedCost = null;
  emissionsPerPerson = null;
  arrivedAtDestinationWithRentedBicycle = false;
  systemNotices = [];
}
