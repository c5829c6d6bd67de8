/**
 * Journeys -> the plan model's itineraries (model.ts): street legs for access, transfers and
 * egress (straight lines here; street-legs.ts measures and draws them on the streets), one transit
 * leg per ride with its trip, stops, times (realtime where a trip update applies), the stay-seated
 * transfer, the alerts and the line along the shape; the fare of the rides. Rendering to a wire
 * format (OTP1: otp1/itinerary.ts) reads these and the timetable, nothing else.
 */
import { haversineM } from "../../shared/geo.ts";
import type { Journey, RideLeg, ServiceDays, TripIdx } from "./api.ts";
import { fareField } from "./fares.ts";
import { scopedId } from "./ids.ts";
import type { Itinerary, Leg, LegPlace, StopCall, StreetLeg, TransitLeg } from "./model.ts";
import type { PlanParams } from "./plan-params.ts";
import { TRANSFER_TYPE, arrAt, depAt, type Timetable, type TimetableMeta } from "./timetable/types.ts";
import { activeDuring, localizedAlert, type LegAlertLookup, type LocalizedAlert, type PlanAlert } from "./realtime.ts";

/** The alerts legs show (realtime.ts): those served now, only the ones active during the leg unless `all`. */
export interface LegAlerts {
  lookup: LegAlertLookup;
  all: boolean;
  language: string | null;
}

function lineLength(pts: [number, number][]): number {
  let d = 0;
  for (let i = 1; i < pts.length; i++) d += haversineM(pts[i - 1]![0], pts[i - 1]![1], pts[i]![0], pts[i]![1]);
  return d;
}

// ---- per-timetable names and rules, derived once (on the first plan made from it; the renderers read them too)

export interface RenderData {
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
export function dataOf(tt: Timetable): RenderData {
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
export function tzNearest(tt: Timetable, lat: number, lon: number): string {
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

/** A place that is no stop: the query's origin or destination. */
const pointPlace = (pl: { name: string; lat: number; lon: number }): LegPlace => ({ name: pl.name, lat: pl.lat, lon: pl.lon });

/** A stop as a leg's place. */
function stopPlace(m: TimetableMeta, s: number): LegPlace {
  return { name: m.stopName[s]!, lat: m.stopLat[s]!, lon: m.stopLon[s]!, stop: s as LegPlace["stop"] };
}

/** A street leg in a straight line (street-legs.ts draws it on the streets where they reach). */
function streetLeg(from: LegPlace, to: LegPlace, startSec: number, durationSec: number, distanceM: number): StreetLeg {
  return { kind: "street", mode: "WALK", from, to, startSec, durationSec, distanceM, geometry: null, steps: [], elevationGainedM: null, elevationLostM: null };
}

/** Walking (cycling, driving) all the way: one street leg from the origin to the destination. */
export function directItinerary(tt: Timetable, p: PlanParams, w: { startSec: number; durationSec: number; distanceM: number; /** default: that of the served stop nearest to the origin */ tz?: string }): Itinerary {
  return { legs: [streetLeg(pointPlace(p.from), pointPlace(p.to), w.startSec, w.durationSec, w.distanceM)], timeZone: w.tz ?? tzNearest(tt, p.from.lat, p.from.lon) };
}

/** A journey of the RAPTOR core (times from `epochSec`, on the service days `days`) as an itinerary. */
export function journeyItinerary(tt: Timetable, j: Journey, epochSec: number, p: PlanParams, days: ServiceDays, alerts?: LegAlerts): Itinerary {
  const m = tt.meta;
  const rd = dataOf(tt);
  const legs: Leg[] = [];
  let prevRide: RideLeg | null = null;
  let timeZone: string | null = null;
  for (const l of j.legs) {
    if (l.kind === "access" || l.kind === "egress") {
      const s = l.stop;
      const d = haversineM(l.kind === "access" ? p.from.lat : p.to.lat, l.kind === "access" ? p.from.lon : p.to.lon, m.stopLat[s]!, m.stopLon[s]!);
      const dur = l.arrSec - l.depSec;
      if (d < 0.5 && dur === 0) continue;
      const start = epochSec + l.depSec;
      legs.push(l.kind === "access" ? streetLeg(pointPlace(p.from), stopPlace(m, s), start, dur, d) : streetLeg(stopPlace(m, s), pointPlace(p.to), start, dur, d));
      prevRide = null;
    } else if (l.kind === "transfer") {
      const d = haversineM(m.stopLat[l.fromStop]!, m.stopLon[l.fromStop]!, m.stopLat[l.toStop]!, m.stopLon[l.toStop]!);
      legs.push(streetLeg(stopPlace(m, l.fromStop), stopPlace(m, l.toStop), epochSec + l.depSec, l.arrSec - l.depSec, d));
      prevRide = null;
    } else {
      const leg = transitLeg(tt, rd, l, prevRide, epochSec, p.showIntermediateStops, days, alerts);
      timeZone ??= leg.timeZone;
      legs.push(leg);
      prevRide = l;
    }
  }
  const it: Itinerary = { legs, timeZone: timeZone ?? tzNearest(tt, p.from.lat, p.from.lon) };
  const { fare } = fareField(tt, j);
  if (fare) it.fare = fare;
  return it;
}

function transitLeg(tt: Timetable, rd: RenderData, l: RideLeg, prev: RideLeg | null, epochSec: number, showIntermediate: boolean, days: ServiceDays, alerts?: LegAlerts): TransitLeg {
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
  const at = (pos: number, which: "arr" | "dep") => epochSec + off + (which === "arr" ? arrAt : depAt)(times, rtBase + pos);
  const g = m.tripGtfsRoute[l.trip]!;
  const gr = m.gtfsRoutes[g]!;
  const agency = m.agencies[gr.agency];
  const feedIdx = agency?.feed ?? m.stopFeed[l.fromStop]!;
  const feed = m.feeds[feedIdx];
  const place = (pos: number): LegPlace => ({ ...stopPlace(m, core.routeStops[s0 + pos]!), stopIndex: pos, stopSequence: m.routeStopSequence[s0 + pos]! });
  const start = at(l.boardPos, "dep"), end = at(l.alightPos, "arr");
  const block = m.tripBlockId[l.trip]!;
  // a stay-seated transfer (OTP1's interline dwell): the previous ride's vehicle continues as this
  // trip, from the last stop of that trip (where the rider stays on, no walk) to the first of this
  // one: a transfers.txt in-seat rule (type 4) between the two trips, or both trips of one block_id,
  // the same feed and service day, unless a rule says in-seat is not allowed there (type 5)
  const tr = core.transferRules;
  const seat = prev !== null && tr ? (rd.inSeat.get(`${tr.tripRule[prev.trip]}|${tr.tripRule[l.trip]}`) ?? 0) : 0;
  const continues = prev !== null && l.boardPos === 0 && prev.alightPos === core.routeStopStart[prev.route + 1]! - core.routeStopStart[prev.route]! - 1;
  const interline =
    continues && seat === TRANSFER_TYPE.inSeat ? true
    : continues && seat !== TRANSFER_TYPE.inSeatNotAllowed && block !== "" && prev.toStop === l.fromStop && m.tripBlockId[prev.trip] === block &&
      m.agencies[m.gtfsRoutes[m.tripGtfsRoute[prev.trip]!]!.agency]?.feed === feedIdx &&
      days.offsetSec[prev.slot * core.nTz + core.routeTz[prev.route]!] === off;
  let mids: StopCall[] | null = null;
  if (showIntermediate) {
    mids = [];
    for (let pos = l.boardPos + 1; pos < l.alightPos; pos++) mids.push({ place: place(pos), arrivalSec: at(pos, "arr"), departureSec: at(pos, "dep") });
  }
  // the line and its length on first use: a plan keeps every ride of a search window (GraphQL's
  // planConnection pages), most of them never rendered
  let pts: [number, number][] | null = null;
  let distanceM: number | null = null;
  const line = () => (pts ??= rideGeometry(tt, r, l.boardPos, l.alightPos));
  return {
    kind: "transit",
    trip: l.trip as TripIdx,
    route: l.route,
    gtfsRoute: g,
    from: place(l.boardPos),
    to: place(l.alightPos),
    boardPos: l.boardPos,
    alightPos: l.alightPos,
    startSec: start,
    endSec: end,
    // the delays (seconds) against the schedule at the boarding and the alighting stop
    realtime: rt ? { departureDelaySec: depAt(rt, l.boardPos) - depAt(core.stopTimes, tbase + l.boardPos), arrivalDelaySec: arrAt(rt, l.alightPos) - arrAt(core.stopTimes, tbase + l.alightPos) } : null,
    serviceDayStartSec: epochSec + off,
    timeZone: rd.routeTz[g]!,
    interlineWithPreviousLeg: interline,
    intermediateStops: mids,
    get geometry() {
      return line();
    },
    set geometry(v: [number, number][]) {
      pts = v;
      distanceM = null;
    },
    get distanceM() {
      return (distanceM ??= lineLength(line()));
    },
    set distanceM(v: number) {
      distanceM = v;
    },
    alerts: alerts ? legAlerts(alerts, feed?.onestopId ?? "", m.tripId[l.trip]!, gr.routeId, agency?.agencyId ?? null, [m.stopId[l.fromStop]!, m.stopId[l.toStop]!], start, end) : [],
  };
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
