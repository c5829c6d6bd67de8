/**
 * The timetable side of the GTFS GraphQL API's objects: Trip, Pattern, Stoptime (with realtime),
 * StoptimesInPattern, Alert and its entities, over the transit-data port (server/transit-data.ts).
 * Like model.ts, each schema field is a property or a method of the same name.
 *
 * Times: a Stoptime's scheduled and realtime times are seconds from its service day's start
 * (`serviceDay`, POSIX seconds of noon minus 12 h in the feed's time zone), as OTP's. Without a
 * trip update for that day, the realtime times are the scheduled ones, the delays 0, `realtime`
 * false and `realtimeState` SCHEDULED; a canceled trip (or a skipped stop) is CANCELED, an added
 * trip ADDED, any other update UPDATED.
 */
import polyline from "@mapbox/polyline";
import { GraphQLError } from "graphql";
import type { TransitAlert, TransitCall, TransitPattern, TransitStopTime, TransitTrip } from "../transit-data.ts";
import { globalId, gtfsId } from "./ids.ts";
import { type AlertsView, catalogNodes, type GqlContext, snapOf } from "./context.ts";

export type { AlertsView };

const WHEELCHAIR = ["NO_INFORMATION", "POSSIBLE", "NOT_POSSIBLE"];
const BIKES = ["NO_INFORMATION", "ALLOWED", "NOT_ALLOWED"];
const PICKUP = ["SCHEDULED", "NONE", "CALL_AGENCY", "COORDINATE_WITH_DRIVER"];

const badInput = (message: string) => new GraphQLError(message, { extensions: { code: "BAD_USER_INPUT" } });

/** OTP's service dates are YYYYMMDD; YYYY-MM-DD is accepted too. */
export function serviceDateArg(s: string, arg = "serviceDate"): string {
  const m = /^(\d{4})-?(\d{2})-?(\d{2})$/.exec(s);
  if (!m || Number.isNaN(Date.parse(`${m[1]}-${m[2]}-${m[3]}T00:00:00Z`))) throw badInput(`${arg}: "${s.slice(0, 50)}" is not a date (YYYYMMDD)`);
  return `${m[1]}-${m[2]}-${m[3]}`;
}

/** Today in a feed's time zone (YYYY-MM-DD). */
export function todayIn(tz: string | null, nowMs: number): string {
  return new Intl.DateTimeFormat("en-CA", { timeZone: tz ?? "UTC", year: "numeric", month: "2-digit", day: "2-digit" }).format(new Date(nowMs));
}

/** A list of [lat, lon] points as OTP's Geometry: its number of points and the encoded polyline. */
const geometryOf = (points: [number, number][]) => ({ length: points.length, points: polyline.encode(points) });

/** A trip's shape, else the straight line through its stops (as OTP without shapes.txt). */
function tripPoints(t: number, ctx: GqlContext): [number, number][] {
  const snap = snapOf(ctx);
  const shape = snap.shapeOf(t);
  if (shape) return shape;
  return stopPoints(snap.stopTimesOf(t).map((s) => s.stop), ctx);
}

function stopPoints(stops: readonly number[], ctx: GqlContext): [number, number][] {
  const snap = snapOf(ctx);
  const out: [number, number][] = [];
  for (const ref of stops) {
    const s = snap.stop(ref);
    if (s && s.lat !== null && s.lon !== null) out.push([s.lat, s.lon]);
  }
  return out;
}

const stopNode = (ref: number, ctx: GqlContext) => {
  const s = snapOf(ctx).stop(ref);
  return s ? catalogNodes.stop(s) : null;
};
export const tripNode = (ref: number, ctx: GqlContext) => {
  const t = snapOf(ctx).trip(ref);
  return t ? new TripNode(t) : null;
};

/** A trip's scheduled stop_times as calls without a service day (OTP's Trip.stoptimes: serviceDay 0). */
function scheduledCalls(t: number, ctx: GqlContext): TransitCall[] {
  return snapOf(ctx).stopTimesOf(t).map((st) => ({ trip: t, stopTime: st, serviceDate: "", serviceDay: 0, arrival: st.arrival, departure: st.departure, tripState: null, realtime: null }));
}

export class TripNode {
  readonly __typename = "Trip";
  constructor(readonly t: TransitTrip) {}
  get id() {
    return globalId("Trip", this.gtfsId);
  }
  get gtfsId() {
    return gtfsId(this.t.feed, this.t.id);
  }
  get serviceId() {
    return this.t.serviceId === null ? null : gtfsId(this.t.feed, this.t.serviceId);
  }
  get tripShortName() {
    return this.t.shortName;
  }
  tripHeadsign() {
    return this.t.headsign;
  }
  /** OTP's directionId is a String ("0", "1"), null without one */
  get directionId() {
    return this.t.directionId === null ? null : String(this.t.directionId);
  }
  get blockId() {
    return this.t.blockId;
  }
  get shapeId() {
    return this.t.shapeId === null ? null : gtfsId(this.t.feed, this.t.shapeId);
  }
  get wheelchairAccessible() {
    return WHEELCHAIR[this.t.wheelchair ?? 0] ?? "NO_INFORMATION";
  }
  get bikesAllowed() {
    return BIKES[this.t.bikes ?? 0] ?? "NO_INFORMATION";
  }
  get occupancy() {
    return null;
  }
  route(_: unknown, ctx: GqlContext) {
    const r = snapOf(ctx).route(this.t.route);
    return r ? catalogNodes.route(r) : null;
  }
  routeShortName(_: unknown, ctx: GqlContext) {
    return snapOf(ctx).route(this.t.route)?.shortName ?? null;
  }
  pattern(_: unknown, ctx: GqlContext) {
    const p = snapOf(ctx).patternOfTrip(this.t.ref);
    return p ? new PatternNode(p) : null;
  }
  stops(_: unknown, ctx: GqlContext) {
    return snapOf(ctx).stopTimesOf(this.t.ref).flatMap((s) => stopNode(s.stop, ctx) ?? []);
  }
  stoptimes(_: unknown, ctx: GqlContext) {
    return scheduledCalls(this.t.ref, ctx).map((c) => new StoptimeNode(c));
  }
  /** the trip's stop times on a service date (today in the feed's time zone without one), with realtime; [] when it does not run that day */
  stoptimesForDate({ serviceDate }: { serviceDate?: string | null }, ctx: GqlContext) {
    return this.callsOn(serviceDate, ctx)?.map((c) => new StoptimeNode(c)) ?? [];
  }
  private callsOn(serviceDate: string | null | undefined, ctx: GqlContext): TransitCall[] | null {
    const snap = snapOf(ctx);
    const date = serviceDate ? serviceDateArg(serviceDate) : todayIn(snap.timezoneOf(this.t.feed), ctx.now);
    return snap.callsOf(this.t.ref, date, ctx.now);
  }
  departureStoptime({ serviceDate }: { serviceDate?: string | null }, ctx: GqlContext) {
    const calls = serviceDate ? this.callsOn(serviceDate, ctx) : scheduledCalls(this.t.ref, ctx);
    return calls && calls.length ? new StoptimeNode(calls[0]!) : null;
  }
  arrivalStoptime({ serviceDate }: { serviceDate?: string | null }, ctx: GqlContext) {
    const calls = serviceDate ? this.callsOn(serviceDate, ctx) : scheduledCalls(this.t.ref, ctx);
    return calls && calls.length ? new StoptimeNode(calls[calls.length - 1]!) : null;
  }
  /** [lon, lat] pairs, as OTP */
  geometry(_: unknown, ctx: GqlContext) {
    return tripPoints(this.t.ref, ctx).map(([lat, lon]) => [lon, lat]);
  }
  tripGeometry(_: unknown, ctx: GqlContext) {
    return geometryOf(tripPoints(this.t.ref, ctx));
  }
  /** YYYYMMDD, as OTP */
  activeDates(_: unknown, ctx: GqlContext) {
    return snapOf(ctx).serviceDatesOf(this.t.ref).map((d) => d.replaceAll("-", ""));
  }
  alerts({ types }: { types?: string[] | null }, ctx: GqlContext) {
    const a = alertsView(ctx);
    const snap = snapOf(ctx);
    const r = snap.route(this.t.route);
    const want = new Set(types ?? ["TRIP"]);
    const out: TransitAlert[] = [];
    if (want.has("TRIP")) out.push(...a.trip(this.t.feed, this.t.id));
    if (want.has("ROUTE") && r) out.push(...a.route(r.feed, r.id));
    if (want.has("AGENCY") && r?.agency != null) {
      const ag = snap.agency(r.agency);
      if (ag) out.push(...a.agency(ag.feed, ag.id));
    }
    if (want.has("ROUTE_TYPE") && r?.type != null) out.push(...a.routeType(r.feed, r.type));
    if (want.has("STOPS_ON_TRIP")) for (const st of snap.stopTimesOf(this.t.ref)) {
      const s = snap.stop(st.stop);
      if (s) out.push(...a.stop(s.feed, s.id, r?.id ?? null, this.t.id));
    }
    if (want.has("PATTERN")) {
      // OTP's pattern alerts are its trips' and route's; this service has no pattern-level alerts
    }
    return alertNodes(out);
  }
}

export class StoptimeNode {
  readonly __typename = "Stoptime";
  constructor(readonly c: TransitCall) {}
  private get st(): TransitStopTime {
    return this.c.stopTime;
  }
  get scheduledArrival() {
    return this.c.arrival ?? this.c.departure;
  }
  get scheduledDeparture() {
    return this.c.departure ?? this.c.arrival;
  }
  get realtimeArrival() {
    return this.c.realtime?.arrival ?? this.c.realtime?.departure ?? this.scheduledArrival;
  }
  get realtimeDeparture() {
    return this.c.realtime?.departure ?? this.c.realtime?.arrival ?? this.scheduledDeparture;
  }
  get arrivalDelay() {
    return this.c.realtime?.arrivalDelay ?? this.c.realtime?.departureDelay ?? 0;
  }
  get departureDelay() {
    return this.c.realtime?.departureDelay ?? this.c.realtime?.arrivalDelay ?? 0;
  }
  /** GTFS timepoint: empty means exact times */
  get timepoint() {
    return this.st.timepoint !== 0;
  }
  get realtime() {
    return this.c.tripState !== null;
  }
  get realtimeState() {
    if (this.c.tripState === null) return "SCHEDULED";
    if (this.c.tripState === "CANCELED" || this.c.realtime?.state === "CANCELED" || this.c.realtime?.state === "SKIPPED") return "CANCELED";
    if (this.c.tripState === "ADDED") return "ADDED";
    return "UPDATED";
  }
  get serviceDay() {
    return this.c.serviceDay;
  }
  headsign(_: unknown, ctx: GqlContext) {
    return this.st.headsign ?? snapOf(ctx).trip(this.c.trip)?.headsign ?? null;
  }
  get pickupType() {
    return PICKUP[this.st.pickupType ?? 0] ?? "SCHEDULED";
  }
  get dropoffType() {
    return PICKUP[this.st.dropOffType ?? 0] ?? "SCHEDULED";
  }
  /** GTFS stop_sequence */
  get stopPosition() {
    return this.st.seq;
  }
  get stopPositionInPattern() {
    return this.st.index;
  }
  stop(_: unknown, ctx: GqlContext) {
    return stopNode(this.st.stop, ctx);
  }
  trip(_: unknown, ctx: GqlContext) {
    return tripNode(this.c.trip, ctx);
  }
}

export class PatternNode {
  readonly __typename = "Pattern";
  constructor(readonly p: TransitPattern) {}
  get id() {
    return globalId("Pattern", this.p.code);
  }
  get code() {
    return this.p.code;
  }
  get headsign() {
    return this.p.headsign;
  }
  get directionId() {
    return this.p.directionId;
  }
  get semanticHash() {
    return this.p.code;
  }
  get originalTripPattern() {
    return null;
  }
  /** vehicle positions are not served by this service */
  get vehiclePositions() {
    return [];
  }
  /** "ROUTE to LAST STOP" (route short name, else long name), as OTP names patterns */
  name(_: unknown, ctx: GqlContext) {
    const snap = snapOf(ctx);
    const r = snap.route(this.p.route);
    const last = this.p.stops.length ? snap.stop(this.p.stops[this.p.stops.length - 1]!) : null;
    const route = r?.shortName ?? r?.longName ?? r?.id ?? "";
    return last ? `${route} to ${last.name ?? last.id}` : route;
  }
  route(_: unknown, ctx: GqlContext) {
    const r = snapOf(ctx).route(this.p.route);
    return r ? catalogNodes.route(r) : null;
  }
  stops(_: unknown, ctx: GqlContext) {
    return this.p.stops.flatMap((s) => stopNode(s, ctx) ?? []);
  }
  trips(_: unknown, ctx: GqlContext) {
    return this.p.trips.flatMap((t) => tripNode(t, ctx) ?? []);
  }
  tripsForDate({ serviceDate }: { serviceDate?: string | null }, ctx: GqlContext) {
    const snap = snapOf(ctx);
    const r = snap.route(this.p.route);
    const date = serviceDate ? serviceDateArg(serviceDate) : todayIn(r ? snap.timezoneOf(r.feed) : null, ctx.now);
    return this.p.trips.filter((t) => snap.runsOn(t, date)).flatMap((t) => tripNode(t, ctx) ?? []);
  }
  private points(ctx: GqlContext): [number, number][] {
    return this.p.trips.length ? tripPoints(this.p.trips[0]!, ctx) : stopPoints(this.p.stops, ctx);
  }
  geometry(_: unknown, ctx: GqlContext) {
    return this.points(ctx).map(([lat, lon]) => ({ lat, lon }));
  }
  patternGeometry(_: unknown, ctx: GqlContext) {
    return geometryOf(this.points(ctx));
  }
  alerts({ types }: { types?: string[] | null }, ctx: GqlContext) {
    const a = alertsView(ctx);
    const snap = snapOf(ctx);
    const r = snap.route(this.p.route);
    const want = new Set(types ?? ["PATTERN"]);
    const out: TransitAlert[] = [];
    if (want.has("ROUTE") && r) out.push(...a.route(r.feed, r.id));
    if (want.has("AGENCY") && r?.agency != null) {
      const ag = snap.agency(r.agency);
      if (ag) out.push(...a.agency(ag.feed, ag.id));
    }
    if (want.has("ROUTE_TYPE") && r?.type != null) out.push(...a.routeType(r.feed, r.type));
    if (want.has("TRIPS")) for (const t of this.p.trips) {
      const trip = snap.trip(t);
      if (trip) out.push(...a.trip(trip.feed, trip.id));
    }
    if (want.has("STOPS_ON_PATTERN")) for (const ref of this.p.stops) {
      const s = snap.stop(ref);
      if (s) out.push(...a.stop(s.feed, s.id, r?.id ?? null, null));
    }
    return alertNodes(out);
  }
}

/** A pattern's stop times at a stop (Stop.stoptimesForPatterns / stoptimesForServiceDate). */
export class StoptimesInPatternNode {
  readonly __typename = "StoptimesInPattern";
  constructor(
    private readonly p: TransitPattern,
    private readonly calls: TransitCall[],
  ) {}
  get pattern() {
    return new PatternNode(this.p);
  }
  get stoptimes() {
    return this.calls.map((c) => new StoptimeNode(c));
  }
}

// ---- a stop's departures

export interface StopTimesArgs {
  /** POSIX seconds; 0 or none: now */
  startTime?: number | null;
  timeRange?: number | null;
  numberOfDepartures?: number | null;
  omitNonPickups?: boolean | null;
  omitCanceled?: boolean | null;
  /** instead of startTime/timeRange: every departure of this service day (YYYY-MM-DD) */
  serviceDate?: string;
}

/** At most this many departures per stop-times field, and this far ahead (seconds). */
export const MAX_DEPARTURES = 1000;
export const MAX_TIME_RANGE = 7 * 86_400;

/**
 * Departures at some stops (a stop, or a station's platforms), of one pattern or all, merged in
 * time order (service day + scheduled departure), through the port's departure search.
 */
export function stopTimesAt(stops: readonly number[], a: StopTimesArgs, pattern: TransitPattern | null, ctx: GqlContext): TransitCall[] {
  const snap = snapOf(ctx);
  const n = a.numberOfDepartures ?? 5;
  const range = a.timeRange ?? 86_400;
  if (a.serviceDate === undefined) {
    if (n < 0 || n > MAX_DEPARTURES) throw badInput(`numberOfDepartures: from 0 to ${MAX_DEPARTURES}`);
    if (range < 0 || range > MAX_TIME_RANGE) throw badInput(`timeRange: from 0 to ${MAX_TIME_RANGE} seconds`);
  }
  const from = a.startTime ? a.startTime : Math.floor(ctx.now / 1000);
  const omitCanceled = a.omitCanceled ?? true;
  const trips = pattern ? new Set(pattern.trips) : undefined;
  const all: TransitCall[] = [];
  for (const stop of stops) {
    const found = snap.departures(stop, { from, to: from + range, serviceDate: a.serviceDate, limit: n, omitNonPickups: a.omitNonPickups ?? false, omitCanceled, trips, nowMs: ctx.now });
    // a skipped stop is canceled here (OTP's realtimeState CANCELED)
    for (const c of found) if (!(omitCanceled && c.realtime?.state === "SKIPPED")) all.push(c);
  }
  const at = (c: TransitCall) => c.serviceDay + (c.departure ?? c.arrival ?? 0);
  all.sort((x, y) => at(x) - at(y) || x.trip - y.trip);
  return all.slice(0, n);
}

// ---- alerts

/** The alerts of one request, by the entity they inform (the realtime reference rules, see server/realtime/alerts.ts). */

/** The request's alerts, indexed once (per-request cache in the context). */
export function alertsView(ctx: GqlContext): AlertsView {
  if (ctx.alerts) return ctx.alerts;
  const all = snapOf(ctx).alerts(ctx.now);
  const m = new Map<string, TransitAlert[]>();
  const put = (k: string, a: TransitAlert) => {
    const list = m.get(k);
    if (!list) m.set(k, [a]);
    else if (list[list.length - 1] !== a) list.push(a);
  };
  for (const a of all) {
    const f = a.feed.toLowerCase();
    for (const e of a.entities) {
      if (e.trip !== null) {
        put(`t\0${f}\0${e.trip}`, a);
        if (e.stop !== null) put(`st\0${f}\0${e.stop}\0${e.trip}`, a);
      } else if (e.stop !== null) put(e.route !== null ? `sr\0${f}\0${e.stop}\0${e.route}` : `s\0${f}\0${e.stop}`, a);
      else if (e.route !== null) put(`r\0${f}\0${e.route}`, a);
      else if (e.routeType !== null) put(`rt\0${f}\0${e.routeType}`, a);
      else if (e.agency !== null) put(`a\0${f}\0${e.agency}`, a);
    }
  }
  const get = (k: string) => m.get(k) ?? [];
  ctx.alerts = {
    all,
    trip: (feed, id) => get(`t\0${feed.toLowerCase()}\0${id}`),
    route: (feed, id) => get(`r\0${feed.toLowerCase()}\0${id}`),
    agency: (feed, id) => get(`a\0${feed.toLowerCase()}\0${id}`),
    routeType: (feed, type) => get(`rt\0${feed.toLowerCase()}\0${type}`),
    stop: (feed, id, route, trip) => {
      const f = feed.toLowerCase();
      return [...get(`s\0${f}\0${id}`), ...(route !== null ? get(`sr\0${f}\0${id}\0${route}`) : []), ...(trip !== null ? get(`st\0${f}\0${id}\0${trip}`) : [])];
    },
  };
  return ctx.alerts;
}

/** Alert nodes, each alert once. */
export const alertNodes = (list: TransitAlert[]) => [...new Set(list)].map((a) => new AlertNode(a));

const CAUSES = new Set(["UNKNOWN_CAUSE", "OTHER_CAUSE", "TECHNICAL_PROBLEM", "STRIKE", "DEMONSTRATION", "ACCIDENT", "HOLIDAY", "WEATHER", "MAINTENANCE", "CONSTRUCTION", "POLICE_ACTIVITY", "MEDICAL_EMERGENCY"]);
const EFFECTS = new Set(["NO_SERVICE", "REDUCED_SERVICE", "SIGNIFICANT_DELAYS", "DETOUR", "ADDITIONAL_SERVICE", "MODIFIED_SERVICE", "OTHER_EFFECT", "UNKNOWN_EFFECT", "STOP_MOVED", "NO_EFFECT", "ACCESSIBILITY_ISSUE"]);
const SEVERITIES = new Set(["UNKNOWN_SEVERITY", "INFO", "WARNING", "SEVERE"]);

export const alertCause = (a: TransitAlert) => (a.cause && CAUSES.has(a.cause) ? a.cause : "UNKNOWN_CAUSE");
export const alertEffect = (a: TransitAlert) => (a.effect && EFFECTS.has(a.effect) ? a.effect : "UNKNOWN_EFFECT");
export const alertSeverity = (a: TransitAlert) => (a.severity && SEVERITIES.has(a.severity) ? a.severity : "UNKNOWN_SEVERITY");

/** The text in `language` (its first two letters), else the untagged one, else the first. */
function translated(list: { language: string | null; text: string }[], language: string | null | undefined): string | null {
  if (!list.length) return null;
  const lang = language?.toLowerCase().slice(0, 2);
  return (lang ? list.find((t) => t.language?.toLowerCase().slice(0, 2) === lang) : undefined)?.text ?? list.find((t) => !t.language)?.text ?? list[0]!.text;
}

/** 32-bit FNV-1a of a text (Alert.alertHash). */
function hash32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h | 0;
}

export class AlertNode {
  readonly __typename = "Alert";
  constructor(readonly a: TransitAlert) {}
  get id() {
    return globalId("Alert", gtfsId(this.a.feed, this.a.id));
  }
  get alertHash() {
    return hash32(`${this.a.feed}\0${this.a.id}`);
  }
  get feed() {
    return this.a.feed;
  }
  get alertCause() {
    return alertCause(this.a);
  }
  get alertEffect() {
    return alertEffect(this.a);
  }
  get alertSeverityLevel() {
    return alertSeverity(this.a);
  }
  alertHeaderText({ language }: { language?: string | null }) {
    return translated(this.a.header, language);
  }
  alertDescriptionText({ language }: { language?: string | null }) {
    return translated(this.a.description, language) ?? "";
  }
  alertUrl({ language }: { language?: string | null }) {
    return translated(this.a.url, language);
  }
  get alertHeaderTextTranslations() {
    return this.a.header;
  }
  get alertDescriptionTextTranslations() {
    return this.a.description;
  }
  get alertUrlTranslations() {
    return this.a.url;
  }
  /** the earliest start of its active periods (null: open) */
  get effectiveStartDate() {
    if (!this.a.periods.length || this.a.periods.some((p) => p.start === null)) return null;
    return Math.min(...this.a.periods.map((p) => p.start!));
  }
  get effectiveEndDate() {
    if (!this.a.periods.length || this.a.periods.some((p) => p.end === null)) return null;
    return Math.max(...this.a.periods.map((p) => p.end!));
  }
  /** the informed entities this service's data has, each once (OTP's AlertEntity union); ids the static feed lacks are Unknown */
  entities(_: unknown, ctx: GqlContext) {
    const snap = snapOf(ctx);
    const feed = this.a.feed;
    const out: object[] = [];
    const seen = new Set<string>();
    for (const e of this.a.entities) {
      const key = JSON.stringify(e);
      if (seen.has(key)) continue;
      seen.add(key);
      const stop = e.stop !== null ? snap.stopById(feed, e.stop) : null;
      const trip = e.trip !== null ? snap.tripById(feed, e.trip) : null;
      const route = e.route !== null ? snap.routeById(feed, e.route) : null;
      const agency = e.agency !== null ? snap.agencyById(feed, e.agency) : null;
      if (e.trip !== null && e.stop !== null) {
        if (stop && trip) out.push({ __typename: "StopOnTrip", stop: catalogNodes.stop(stop), trip: new TripNode(trip) });
        else out.push(unknownEntity(e));
      } else if (e.trip !== null) out.push(trip ? new TripNode(trip) : unknownEntity(e));
      else if (e.stop !== null && e.route !== null) {
        if (stop && route) out.push({ __typename: "StopOnRoute", stop: catalogNodes.stop(stop), route: catalogNodes.route(route) });
        else out.push(unknownEntity(e));
      } else if (e.stop !== null) out.push(stop ? catalogNodes.stop(stop) : unknownEntity(e));
      else if (e.route !== null) out.push(route ? catalogNodes.route(route) : unknownEntity(e));
      else if (e.routeType !== null) {
        const type = e.routeType;
        out.push({
          __typename: "RouteType",
          routeType: type,
          agency: agency ? catalogNodes.agency(agency) : null,
          routes: () => [...snap.routeRefs()].flatMap((ref) => {
            const r = snap.route(ref);
            return r && r.feed === feed && r.type === type && (!agency || r.agency === agency.ref) ? [catalogNodes.route(r)] : [];
          }),
        });
      } else if (e.agency !== null) out.push(agency ? catalogNodes.agency(agency) : unknownEntity(e));
      else out.push(unknownEntity(e));
    }
    return out;
  }
  /** deprecated single-entity fields: the first entity of that kind */
  agency(_: unknown, ctx: GqlContext) {
    return this.firstOf("Agency", ctx);
  }
  route(_: unknown, ctx: GqlContext) {
    return this.firstOf("Route", ctx);
  }
  stop(_: unknown, ctx: GqlContext) {
    return this.firstOf("Stop", ctx);
  }
  trip(_: unknown, ctx: GqlContext) {
    return this.firstOf("Trip", ctx);
  }
  private firstOf(type: string, ctx: GqlContext) {
    return (this.entities(null, ctx) as { __typename: string }[]).find((e) => e.__typename === type) ?? null;
  }
}

const unknownEntity = (e: TransitAlert["entities"][number]) => ({
  __typename: "Unknown",
  description: Object.entries(e).filter(([, v]) => v !== null).map(([k, v]) => `${k}=${v}`).join(", ") || "an entity this server does not know",
});
