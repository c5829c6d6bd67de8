/**
 * Renders a RAPTOR journey as an OpenTripPlanner 1 Itinerary (interface spec "Transit plan", with
 * every field OTP1's `api/model` Itinerary, Leg and Place send): walk legs for access, transfers
 * and egress, one leg per ride with route, trip, stops and shape geometry. Sums are exact:
 * duration = walkTime + transitTime + waitingTime, all in whole seconds.
 *
 * OTP1 conventions followed here (GraphPathToTripPlanConverter, Leg, Place, Itinerary):
 * - ids are feed-scoped (`feedId:id`, ids.ts) for routeId, tripId and stopId; agencyId is the bare
 *   GTFS agency_id, as OTP1's Leg.agencyId is a plain String (OTP-UI matches it with the routeId's
 *   feed prefix against its transitOperators config);
 * - fields OTP1 leaves null are omitted (its JSON mapper skips nulls): stopCode, zoneId,
 *   platformCode, agencyUrl, tripShortName, tripBlockId when the feed has none; alerts;
 * - a place has `departure` on a leg's `from`, `arrival` on its `to`, and both where one leg hands
 *   over to the next (OTP1's fixupLegs): a walk leg ending at a stop shares the ride's `from`
 *   place (vertexType TRANSIT, stopIndex, stopSequence), a walk leg after a ride its `to`;
 * - `intermediateStops` only when showIntermediateStops is asked for, then on every leg (walk legs
 *   `[]`; OTP-UI always asks for it and its PropTypes require it);
 * - `agencyTimeZoneOffset`: the agency timezone's UTC offset (ms) at the leg's start; walk legs
 *   take the timezone of the ride before them, or of the first ride (OTP1 Itinerary.fixupDates);
 * - `rentedCar`, `rentedVehicle`, `hailedCar` false: fields of the OTP1 that OTP-UI was written
 *   against (its leg PropTypes require the first two).
 */
import { haversineM } from "../../shared/geo.ts";
import polyline from "@mapbox/polyline";
import type { Journey, RideLeg, ServiceDays } from "./api.ts";
import { fareField } from "./fares.ts";
import { scopedId } from "./ids.ts";
import { modeOfRouteType, type PlanParams } from "./plan-params.ts";
import { dayToIso, serviceDayOf, tzOffsetSec } from "./timetable/calendar.ts";
import { TRANSFER_TYPE, arrAt, depAt, type Timetable, type TimetableMeta } from "./timetable/types.ts";
import { activeDuring, localizedAlert, type LegAlertLookup, type LocalizedAlert, type PlanAlert } from "./realtime.ts";

/** The alerts legs show (realtime.ts): those served now, only the ones active during the leg unless `all`. */
export interface LegAlerts {
  lookup: LegAlertLookup;
  all: boolean;
  language: string | null;
}

export interface Itinerary {
  duration: number;
  startTime: number;
  endTime: number;
  walkTime: number;
  transitTime: number;
  waitingTime: number;
  walkDistance: number;
  /** OTP1: the itinerary's walking (all walk legs) is longer than the request's maxWalkDistance */
  walkLimitExceeded: boolean;
  /** metres lost and gained on the walks (0 here; street-legs.ts sums them over walks drawn on the streets) */
  elevationLost: number;
  elevationGained: number;
  transfers: number;
  /** OTP1's Fare object (`{ fare, details }`), set by the fares (issue #18's fare work), not here */
  fare?: unknown;
  legs: Record<string, unknown>[];
  /** OTP1: a slope limit had to be removed to find it; always false */
  tooSloped: boolean;
  distance: number;
  transitDistance: number;
}

const round1 = (x: number) => Math.round(x * 10) / 10;

function lineLength(pts: [number, number][]): number {
  let d = 0;
  for (let i = 1; i < pts.length; i++) d += haversineM(pts[i - 1]![0], pts[i - 1]![1], pts[i]![0], pts[i]![1]);
  return d;
}
function geometry(pts: [number, number][]) {
  return { points: polyline.encode(pts, 5), length: pts.length };
}

// ---- timezones: offsets and service dates, cached (no Intl work per leg once warm)

/** UTC offsets change only at instants that are multiples of 15 minutes: one value per 15-minute bucket. */
const OFFSET_BUCKET_MS = 900_000;
const offsetCache = new Map<string, Map<number, number>>();
/** UTC offset of tz at `ms`, milliseconds (java.util.TimeZone.getOffset). */
export function tzOffsetMs(tz: string, ms: number): number {
  let m = offsetCache.get(tz);
  if (!m) offsetCache.set(tz, (m = new Map()));
  const b = Math.floor(ms / OFFSET_BUCKET_MS);
  let v = m.get(b);
  if (v === undefined) {
    if (m.size > 4096) m.clear();
    v = tzOffsetSec((b * OFFSET_BUCKET_MS) / 1000, tz) * 1000;
    m.set(b, v);
  }
  return v;
}

const serviceDateCache = new Map<string, string>();
/** YYYYMMDD of the service day starting ("noon minus 12h") at Unix second `dayStart` in tz. */
function serviceDate(tz: string, dayStart: number): string {
  const key = `${tz}|${dayStart}`;
  let v = serviceDateCache.get(key);
  if (v === undefined) {
    if (serviceDateCache.size > 4096) serviceDateCache.clear();
    v = dayToIso(serviceDayOf(dayStart, tz)).replace(/-/g, "");
    serviceDateCache.set(key, v);
  }
  return v;
}

// ---- per-timetable data for rendering, derived once (on the first plan rendered from it)

interface RenderData {
  /** GTFS route → feed-scoped route_id, OTP1 `route` (short name, else long name), agency timezone name */
  routeId: string[];
  routeName: string[];
  routeTz: string[];
  /** feed → Onestop ID */
  feedId: string[];
  /** transfers.txt in-seat rules: "from rule trip|to rule trip" → 4 (stay on) or 5 (in-seat not allowed) */
  inSeat: Map<string, number>;
}
const renderData = new WeakMap<TimetableMeta, RenderData>();
function dataOf(tt: Timetable): RenderData {
  const m = tt.meta;
  let d = renderData.get(m);
  if (!d) {
    const feedId = m.feeds.map((f) => f.onestopId);
    const inSeat = new Map<string, number>();
    const tr = tt.core.transferRules;
    if (tr) for (let x = 0; x < tr.type.length; x++) if (tr.type[x]! >= TRANSFER_TYPE.inSeat) inSeat.set(`${tr.fromTrip[x]}|${tr.toTrip[x]}`, tr.type[x]!);
    d = {
      feedId,
      routeId: m.gtfsRoutes.map((r) => scopedId(feedId[m.agencies[r.agency]?.feed ?? 0] ?? "", r.routeId)),
      routeName: m.gtfsRoutes.map((r) => r.shortName || r.longName),
      routeTz: m.gtfsRoutes.map((r) => m.timezones[m.agencies[r.agency]?.tz ?? 0] ?? "UTC"),
      inSeat,
    };
    renderData.set(m, d);
  }
  return d;
}

/** Timezone of the routes at the served stop nearest to a point (a walk-only itinerary's clock). */
function tzNearest(tt: Timetable, lat: number, lon: number): string {
  const { stopLat, stopLon, timezones } = tt.meta;
  const { stopRouteStart, stopRouteRoute, routeTz } = tt.core;
  let best = -1, bestD = Infinity;
  for (let i = 0; i < stopLat.length; i++) {
    if (stopRouteStart[i + 1]! === stopRouteStart[i]!) continue;
    const d = (stopLat[i]! - lat) ** 2 + (stopLon[i]! - lon) ** 2;
    if (d < bestD) [best, bestD] = [i, d];
  }
  return best < 0 ? (timezones[0] ?? "UTC") : (timezones[routeTz[stopRouteRoute[stopRouteStart[best]!]!]!] ?? "UTC");
}

type Place = Record<string, unknown>;
type Leg = Record<string, unknown>;

/** OTP1 Place of a point that is no stop (origin, destination): vertexType NORMAL. */
function pointPlace(name: string, lat: number, lon: number): Place {
  return { name, lon, lat, vertexType: "NORMAL" };
}

/** The fields every OTP1 leg starts with, in OTP1's order: times (ms), delays (no realtime: 0), distance. */
const legTimes = (start: number, end: number, distanceM: number) => ({
  startTime: start,
  endTime: end,
  departureDelay: 0,
  arrivalDelay: 0,
  realTime: false,
  distance: round1(distanceM),
  pathway: false,
});

/** An OTP1 walk leg (no agency, route or trip fields); `from` / `to` get their times here, `agencyTimeZoneOffset` later. */
function walkLeg(from: Place, to: Place, startSec: number, durationSec: number, distanceM: number, showIntermediateStops: boolean): Leg {
  const start = startSec * 1000, end = (startSec + durationSec) * 1000;
  from.departure = start;
  to.arrival = end;
  const leg: Leg = {
    ...legTimes(start, end, distanceM),
    mode: "WALK",
    route: "",
    agencyTimeZoneOffset: 0,
    interlineWithPreviousLeg: false,
    from,
    to,
    legGeometry: geometry([
      [from.lat as number, from.lon as number],
      [to.lat as number, to.lon as number],
    ]),
    steps: [],
    rentedBike: false,
    rentedCar: false,
    rentedVehicle: false,
    hailedCar: false,
    transitLeg: false,
    duration: durationSec,
  };
  if (showIntermediateStops) leg.intermediateStops = [];
  return leg;
}

export function renderItinerary(
  tt: Timetable, j: Journey | null, epochSec: number, p: PlanParams, days: ServiceDays | null,
  walkOnly?: { startSec: number; durationSec: number; distanceM: number; /** the itinerary's timezone; default: that of the served stop nearest to the origin */ tz?: string },
  alerts?: LegAlerts,
): Itinerary {
  const m = tt.meta;
  const rd = dataOf(tt);
  const legs: Leg[] = [];
  /** per leg: the timezone of its agency (rides), null for walk legs until fixed up */
  const legTz: (string | null)[] = [];
  let walkTime = 0, walkDistance = 0, transitTime = 0, transitDistance = 0, rides = 0;
  const showMid = p.showIntermediateStops;
  const stopPlace = (s: number): Place => {
    const pl: Place = { name: m.stopName[s], stopId: scopedId(rd.feedId[m.stopFeed[s]!] ?? "", m.stopId[s]!) };
    if (m.stopCode[s]) pl.stopCode = m.stopCode[s];
    if (m.stopPlatformCode[s]) pl.platformCode = m.stopPlatformCode[s];
    pl.lon = m.stopLon[s];
    pl.lat = m.stopLat[s];
    if (m.stopZoneId[s]) pl.zoneId = m.stopZoneId[s];
    pl.vertexType = "TRANSIT";
    pl.stopOnestopId = m.stopOnestopId[s];
    return pl;
  };
  if (!j) {
    const w = walkOnly!;
    legs.push(walkLeg(pointPlace(p.from.name, p.from.lat, p.from.lon), pointPlace(p.to.name, p.to.lat, p.to.lon), w.startSec, w.durationSec, w.distanceM, showMid));
    legTz.push(w.tz ?? tzNearest(tt, p.from.lat, p.from.lon));
    walkTime = w.durationSec;
    walkDistance = w.distanceM;
  } else {
    let prevRide: RideLeg | null = null;
    for (let li = 0; li < j.legs.length; li++) {
      const l = j.legs[li]!;
      if (l.kind === "access" || l.kind === "egress") {
        const s = l.stop;
        const d = haversineM(l.kind === "access" ? p.from.lat : p.to.lat, l.kind === "access" ? p.from.lon : p.to.lon, m.stopLat[s]!, m.stopLon[s]!);
        const dur = l.arrSec - l.depSec;
        if (d < 0.5 && dur === 0) continue;
        const start = epochSec + l.depSec;
        legs.push(
          l.kind === "access"
            ? walkLeg(pointPlace(p.from.name, p.from.lat, p.from.lon), stopPlace(s), start, dur, d, showMid)
            : walkLeg(stopPlace(s), pointPlace(p.to.name, p.to.lat, p.to.lon), start, dur, d, showMid),
        );
        legTz.push(null);
        walkTime += dur;
        walkDistance += d;
        prevRide = null;
      } else if (l.kind === "transfer") {
        const d = haversineM(m.stopLat[l.fromStop]!, m.stopLon[l.fromStop]!, m.stopLat[l.toStop]!, m.stopLon[l.toStop]!);
        const dur = l.arrSec - l.depSec;
        legs.push(walkLeg(stopPlace(l.fromStop), stopPlace(l.toStop), epochSec + l.depSec, dur, d, showMid));
        legTz.push(null);
        walkTime += dur;
        walkDistance += d;
        prevRide = null;
      } else {
        rides++;
        const leg = rideLeg(tt, rd, l, prevRide, epochSec, showMid, days!, stopPlace, alerts);
        legs.push(leg);
        legTz.push(rd.routeTz[m.tripGtfsRoute[l.trip]!]!);
        transitTime += leg.duration as number;
        transitDistance += leg.distance as number;
        prevRide = l;
      }
    }
  }
  fixupLegs(legs, p);
  // walk legs keep the clock of the ride before them, those before the first ride the first ride's
  let tz: string = legTz.find((z) => z !== null) ?? tzNearest(tt, p.from.lat, p.from.lon);
  for (let i = 0; i < legs.length; i++) {
    tz = legTz[i] ?? tz;
    legs[i]!.agencyTimeZoneOffset = tzOffsetMs(tz, legs[i]!.startTime as number);
  }
  const startTime = legs[0]!.startTime as number;
  const endTime = legs[legs.length - 1]!.endTime as number;
  const duration = Math.round((endTime - startTime) / 1000);
  return {
    duration,
    startTime,
    endTime,
    walkTime,
    transitTime,
    waitingTime: duration - walkTime - transitTime,
    walkDistance: round1(walkDistance),
    walkLimitExceeded: walkDistance > p.maxWalkDistance,
    elevationLost: 0,
    elevationGained: 0,
    transfers: Math.max(0, rides - 1),
    // OTP1's Fare (fares.ts), only when some ride has a fare (OTP1 leaves it null otherwise)
    ...fareField(tt, j),
    legs,
    tooSloped: false,
    distance: round1(walkDistance + transitDistance),
    transitDistance: round1(transitDistance),
  };
}

/**
 * OTP1's fixupLegs: where one leg hands over to the next, the next leg's `from` gets the arrival
 * and this leg's `to` the departure; a walk leg after a ride starts at the ride's `to` place, a walk
 * leg before a ride ends at its `from` place (the same objects). The first leg's `from` and the
 * last leg's `to` carry the request's place names as `orig`.
 */
function fixupLegs(legs: Leg[], p: PlanParams): void {
  for (let i = 0; i + 1 < legs.length; i++) {
    const a = legs[i]!, b = legs[i + 1]!;
    const aTo = a.to as Place, bFrom = b.from as Place;
    if (aTo.arrival !== undefined) bFrom.arrival = aTo.arrival;
    if (bFrom.departure !== undefined) aTo.departure = bFrom.departure;
    if (a.transitLeg && !b.transitLeg) b.from = aTo;
    if (!a.transitLeg && b.transitLeg) a.to = bFrom;
  }
  if (legs.length) {
    (legs[0]!.from as Place).orig = p.from.name;
    (legs[legs.length - 1]!.to as Place).orig = p.to.name;
  }
}

function rideLeg(
  tt: Timetable,
  rd: RenderData,
  l: RideLeg,
  prev: RideLeg | null,
  epochSec: number,
  showIntermediate: boolean,
  days: ServiceDays,
  stopPlace: (s: number) => Place,
  alerts?: LegAlerts,
): Leg {
  const { core, meta: m } = tt;
  const r = l.route;
  const s0 = core.routeStopStart[r]!;
  const nS = core.routeStopStart[r + 1]! - s0;
  const tbase = core.routeTime0[r]! + (l.trip - core.routeTripStart[r]!) * nS;
  const off = days.offsetSec[l.slot * core.nTz + core.routeTz[r]!]!;
  // the trip's realtime times that day (GTFS-Realtime trip updates, realtime.ts), else its schedule
  const rt = days.realtime?.trips[l.slot * core.nTz + core.routeTz[r]!]?.get(l.trip)?.stopTimes ?? null;
  const times = rt ?? core.stopTimes;
  const rtBase = rt ? 0 : tbase;
  const at = (pos: number, which: "arr" | "dep") => (epochSec + off + (which === "arr" ? arrAt : depAt)(times, rtBase + pos)) * 1000;
  const g = m.tripGtfsRoute[l.trip]!;
  const gr = m.gtfsRoutes[g]!;
  const agency = m.agencies[gr.agency];
  const feedIdx = agency?.feed ?? m.stopFeed[l.fromStop]!;
  const feed = m.feeds[feedIdx];
  const feedId = rd.feedId[feedIdx] ?? "";
  const tz = rd.routeTz[g]!;
  const place = (pos: number) => {
    const pl = stopPlace(core.routeStops[s0 + pos]!);
    pl.stopIndex = pos;
    pl.stopSequence = m.routeStopSequence[s0 + pos];
    return pl;
  };
  const pts = rideGeometry(tt, r, l.boardPos, l.alightPos);
  const start = at(l.boardPos, "dep"), end = at(l.alightPos, "arr");
  const from = place(l.boardPos), to = place(l.alightPos);
  from.departure = start;
  to.arrival = end;
  const block = m.tripBlockId[l.trip]!;
  const tripShortName = m.tripShortName[l.trip]!;
  const leg: Leg = {
    ...legTimes(start, end, lineLength(pts)),
    mode: modeOfRouteType(gr.type),
    route: rd.routeName[g],
    agencyName: agency?.name ?? "",
  };
  if (rt) {
    // OTP1: the delays (seconds) against the schedule at the boarding and the alighting stop
    leg.departureDelay = depAt(rt, l.boardPos) - depAt(core.stopTimes, tbase + l.boardPos);
    leg.arrivalDelay = arrAt(rt, l.alightPos) - arrAt(core.stopTimes, tbase + l.alightPos);
    leg.realTime = true;
  }
  if (agency?.url) leg.agencyUrl = agency.url;
  leg.agencyTimeZoneOffset = 0; // set with the walk legs' (renderItinerary)
  leg.routeColor = gr.color;
  leg.routeType = gr.type;
  leg.routeId = rd.routeId[g];
  leg.routeTextColor = gr.textColor;
  // a stay-seated transfer (OTP1's interline dwell): the previous ride's vehicle continues as this
  // trip, from the last stop of that trip (where the rider stays on, no walk) to the first of this
  // one: a transfers.txt in-seat rule (type 4) between the two trips, or both trips of one block_id,
  // the same feed and service day, unless a rule says in-seat is not allowed there (type 5)
  const tr = core.transferRules;
  const seat = prev !== null && tr ? (rd.inSeat.get(`${tr.tripRule[prev.trip]}|${tr.tripRule[l.trip]}`) ?? 0) : 0;
  const continues = prev !== null && l.boardPos === 0 && prev.alightPos === core.routeStopStart[prev.route + 1]! - core.routeStopStart[prev.route]! - 1;
  leg.interlineWithPreviousLeg =
    continues && seat === TRANSFER_TYPE.inSeat ? true
    : continues && seat !== TRANSFER_TYPE.inSeatNotAllowed && block !== "" && prev.toStop === l.fromStop && m.tripBlockId[prev.trip] === block &&
      m.agencies[m.gtfsRoutes[m.tripGtfsRoute[prev.trip]!]!.agency]?.feed === feedIdx &&
      days.offsetSec[prev.slot * core.nTz + core.routeTz[prev.route]!] === off;
  if (tripShortName) leg.tripShortName = tripShortName;
  if (block) leg.tripBlockId = block;
  leg.headsign = m.tripHeadsign[l.trip];
  leg.agencyId = agency?.agencyId ?? "";
  leg.tripId = scopedId(feedId, m.tripId[l.trip]!);
  leg.serviceDate = serviceDate(tz, epochSec + off);
  leg.from = from;
  leg.to = to;
  if (showIntermediate) {
    const mids: Place[] = [];
    for (let pos = l.boardPos + 1; pos < l.alightPos; pos++) {
      const pl = place(pos);
      pl.arrival = at(pos, "arr");
      pl.departure = at(pos, "dep");
      mids.push(pl);
    }
    leg.intermediateStops = mids;
  }
  leg.legGeometry = geometry(pts);
  leg.steps = [];
  if (alerts) {
    const onLeg = legAlerts(alerts, feed?.onestopId ?? "", m.tripId[l.trip]!, gr.routeId, agency?.agencyId ?? null, [m.stopId[l.fromStop]!, m.stopId[l.toStop]!], start / 1000, end / 1000);
    if (onLeg.length) leg.alerts = onLeg;
  }
  leg.routeShortName = gr.shortName;
  leg.routeLongName = gr.longName;
  leg.rentedBike = false;
  leg.rentedCar = false;
  leg.rentedVehicle = false;
  leg.hailedCar = false;
  leg.transitLeg = true;
  leg.duration = Math.round((end - start) / 1000);
  // the spec's fields beside OTP1's
  leg.feedId = feed?.onestopId ?? "";
  leg.feedVersionSha1 = feed?.sha1 ?? "";
  leg.routeOnestopId = gr.onestopId;
  if (block) leg.block_id = block;
  return leg;
}

/**
 * The line a ride follows from route position `from` to `to`: the trip's shape from the boarding
 * stop's projection onto it to the alighting stop's, hop by hop, where the shape covers both stops
 * of a hop (route_stops.shape_idx, the compiler's match within SHAPE_STOP_TOLERANCE_M), else a
 * straight line to the next stop (or to the shape point where the shape takes over again). A shape
 * that ends before the trip does (BART's 01_shp starts at Pittsburg/Bay Point, its trips at
 * Antioch, 14 km before) then still leads to every stop, and the leg's distance counts the
 * uncovered part.
 */
export function rideGeometry(tt: Timetable, r: number, from: number, to: number): [number, number][] {
  const { core, meta: m } = tt;
  const s0 = core.routeStopStart[r]!;
  const shape = m.routeShape[r]!;
  const base = shape >= 0 ? m.shapeStart[shape]! : 0;
  const nPts = shape >= 0 ? m.shapeStart[shape + 1]! - base : 0;
  const stopPt = (pos: number): [number, number] => {
    const s = core.routeStops[s0 + pos]!;
    return [m.stopLat[s]!, m.stopLon[s]!];
  };
  const shapePt = (i: number): [number, number] => [m.shapeLat[base + i]!, m.shapeLon[base + i]!];
  const idx = (pos: number) => (shape >= 0 ? m.routeStopShapeIdx[s0 + pos]! : -1);
  /** the stop at `pos` projected onto the segment before or after its shape point k: [segment, point] */
  const project = (pos: number, k: number): [number, [number, number]] => {
    const [lat, lon] = stopPt(pos);
    const cos = Math.cos((lat * Math.PI) / 180);
    let best: [number, [number, number]] = [k, shapePt(k)], bestD = Infinity;
    for (let j = k - 1; j <= k; j++) {
      if (j < 0 || j + 1 >= nPts) continue;
      const [aLat, aLon] = shapePt(j), [bLat, bLon] = shapePt(j + 1);
      const dx = (bLon - aLon) * cos, dy = bLat - aLat, len2 = dx * dx + dy * dy;
      const t = len2 > 0 ? Math.min(1, Math.max(0, ((lon - aLon) * cos * dx + (lat - aLat) * dy) / len2)) : 0;
      const pLat = aLat + t * (bLat - aLat), pLon = aLon + t * (bLon - aLon);
      const d = (pLat - lat) ** 2 + ((pLon - lon) * cos) ** 2;
      if (d < bestD) [best, bestD] = [[j, [pLat, pLon]], d];
    }
    return best;
  };
  // `seg`: the shape segment the line is on (its last point pushed lies on segment seg), -1 off the shape
  let seg = -1;
  const pts: [number, number][] = [];
  const a0 = idx(from);
  if (a0 >= 0) {
    const [j, p] = project(from, a0);
    pts.push(p);
    seg = j;
  } else pts.push(stopPt(from));
  for (let pos = from; pos < to; pos++) {
    const b = idx(pos + 1);
    const last = pos + 1 === to;
    if (b < 0) {
      pts.push(stopPt(pos + 1));
      seg = -1;
    } else if (last) {
      const [j, p] = project(to, b);
      if (seg >= 0) for (let i = seg + 1; i <= j; i++) pts.push(shapePt(i));
      pts.push(p);
    } else {
      if (seg >= 0) for (let i = seg + 1; i <= b; i++) pts.push(shapePt(i));
      else pts.push(shapePt(b));
      seg = Math.max(seg, b);
    }
  }
  if (pts.length > 1) return pts;
  // a ride between two stops at one place: the stops themselves
  pts.length = 0;
  for (let pos = from; pos <= to; pos++) pts.push(stopPt(pos));
  return pts;
}

/**
 * OTP1's alerts of a ride leg: those on its trip, route, agency, boarding and alighting stop
 * (realtime.ts), each once, active at some time of the leg (any time with disableAlertFiltering).
 */
function legAlerts(a: LegAlerts, feed: string, tripId: string, routeId: string, agencyId: string | null, stopIds: string[], startS: number, endS: number): LocalizedAlert[] {
  if (!feed) return [];
  const seen = new Set<PlanAlert>();
  const out: LocalizedAlert[] = [];
  const add = (list: readonly PlanAlert[]) => {
    for (const x of list) {
      if (seen.has(x)) continue;
      seen.add(x);
      if (a.all || activeDuring(x, startS, endS)) out.push(localizedAlert(x, a.language));
    }
  };
  add(a.lookup.trip(feed, tripId));
  add(a.lookup.route(feed, routeId));
  if (agencyId !== null) add(a.lookup.agency(feed, agencyId));
  for (const s of stopIds) add(a.lookup.stop(feed, s));
  return out;
}
