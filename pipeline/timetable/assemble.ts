/**
 * Builds the planner timetable tables from the rows of the active feed versions: frequency trips
 * expanded, trips grouped into RAPTOR routes (same feed, stop sequence, stop_sequence numbers, shape
 * and timezone) and split where they overtake, stop times laid out route by route, service-day
 * bitsets, footpaths (transfers.txt plus straight-line walks within a radius, across feeds), and
 * the transfer rules (transfers.txt rows naming routes or trips). The tables and columns are the
 * timetable file's (pipeline/schema/timetable.ts), which server/planner/timetable/arrow-loader.ts reads.
 */
import { FOOT_SOURCE, SHAPE_STOP_TOLERANCE_M, packStopTime, stopTimeFlags, type TimetableTables } from "../schema/timetable.ts";
import { EARTH_RADIUS_M as EARTH_M, haversineM } from "../../shared/geo.ts";
import { activeOn, type ServiceCalendar } from "../../shared/service-calendar.ts";
import type { AssembleOptions, SourceData, SourceStop, SourceTransfer, SourceTrip } from "./source.ts";
import { fareTables } from "./fares.ts";

/** Any table of columns arrow-io.ts can encode; assembleTimetable's are the layout's (TimetableTables). */
export type Column = Int32Array | Uint8Array | Float32Array | Float64Array | string[];
export type Tables = Record<string, Record<string, Column>>;

/** Shape points are projected onto in blocks of 2^BOX_SHIFT (bounding boxes skip far blocks). */
const BOX_SHIFT = 5;
/** Longest span of service days kept per service (from its first day). */
const MAX_DAYS = 1500;

interface ExpandedTrip {
  trip: SourceTrip;
  /** row range in stopTimes */
  from: number;
  to: number;
  /** shift added to every time (frequency expansion), seconds */
  shift: number;
  /** its first stop time's index in the packed stop times (set when routes are laid out) */
  out: number;
}

/**
 * The planner's timetable tables from the source rows, step by step: the served stops, the
 * service-day bitsets, the frequency-expanded trips, grouped into patterns and split into routes
 * that never overtake, laid out with their stops' shape points and packed stop times, then the
 * footpaths, transfer rules, shapes and fares.
 */
export function assembleTimetable(src: SourceData, opts: AssembleOptions): TimetableTables {
  const st = src.stopTimes;
  const { stops, stopIdx, stopByKey } = servedStops(src);
  const tz = timezoneIndex();
  const agencyIdx = new Map(src.agencies.map((a, i) => [a.key, i]));
  const routeIdx = new Map(src.routes.map((r, i) => [r.key, i]));
  const tripsByKey = new Map(src.trips.map((t) => [t.key, t]));
  const calIdx = new Map(src.calendars.map((c, i) => [c.key, i]));
  // a trip's timezone: its route's agency's
  const tripTz = (trip: SourceTrip): number => tz.of(src.agencies[agencyIdx.get(src.routes[routeIdx.get(trip.route)!]!.agency)!]?.timezone ?? "UTC");
  const services = serviceDayTables(src.calendars);

  const rangeOf = tripRanges(st.trip);
  const expanded = expandTrips(src, rangeOf, tripsByKey, calIdx, routeIdx);
  const groups = groupPatterns(expanded, st, tripTz);
  const routeTrips: ExpandedTrip[][] = [];
  for (const list of groups) routeTrips.push(...splitOvertaking(list, st));
  const layout = layoutRoutes(src, routeTrips, stopByKey, stopIdx, routeIdx, tripTz);
  // stop times packed as the planner reads them, each trip where its route put it (ExpandedTrip.out)
  const words = packTrips(expanded, st, layout.nTimes);

  const expand = stationExpander(stops, stopIdx);
  const { slack, foot, blocked } = transfersTxtFootpaths(src, stops, expand);
  const { fFrom, fTo, fDist, fMin, fSource } = footpathTable(stops, opts.walkRadiusM, foot, blocked);
  const { rules, ruleTrip } = transferRules(src, stops, stopIdx, expand, routeIdx, tripsByKey, rangeOf);
  const shapes = packShapes(src.shapes);
  // the names as they stand now ("UTC" when no trip named one), then the agencies' own
  const timezoneNames = tz.names.length ? tz.names : ["UTC"];
  const agencyTz = Int32Array.from(src.agencies.map((a) => tz.of(a.timezone)));

  return {
    meta: { format: Int32Array.of(1), walk_radius_m: Float64Array.of(opts.walkRadiusM), streets_sha1: [""] },
    feeds: {
      onestop_id: src.feeds.map((f) => f.onestopId),
      sha1: src.feeds.map((f) => f.sha1),
      start_day: Int32Array.from(src.feeds.map((f) => f.startDay)),
      end_day: Int32Array.from(src.feeds.map((f) => f.endDay)),
    },
    timezones: { name: timezoneNames },
    agencies: {
      agency_id: src.agencies.map((a) => a.agencyId),
      name: src.agencies.map((a) => a.name),
      tz: agencyTz,
      feed: Int32Array.from(src.agencies.map((a) => a.feed)),
      url: src.agencies.map((a) => a.url ?? ""),
    },
    gtfs_routes: gtfsRoutesTable(src.routes, agencyIdx),
    stops: stopsTable(stops, slack),
    // a straight line takes its length at any speed: walk_m = dist_m (street-footpaths.ts sets the streets')
    footpaths: { from: fFrom, to: fTo, dist_m: fDist, walk_m: Float64Array.from(fDist), min_sec: fMin, source: fSource },
    routes: layout.routes,
    route_stops: layout.routeStops,
    stop_time_words: { word: words },
    trips: tripsTable(layout.tripOut, calIdx, routeIdx, ruleTrip),
    services: { day0: services.day0, start: services.start.subarray(0, src.calendars.length) },
    service_days: { active: services.active },
    shapes: { start: shapes.start },
    shape_points: { lat: shapes.lat, lon: shapes.lon },
    transfer_rules: rules,
    ...fareTables(src, stops, routeIdx),
  };
}

/** The stops some trip serves (in source order), their index by key, and every source stop by key. */
function servedStops(src: SourceData): { stops: SourceStop[]; stopIdx: Map<number, number>; stopByKey: Map<number, SourceStop> } {
  const st = src.stopTimes;
  const stopByKey = new Map(src.stops.map((s) => [s.key, s]));
  let maxKey = 0;
  for (const s of src.stops) maxKey = Math.max(maxKey, s.key);
  const served = new Uint8Array(maxKey + 1);
  for (let i = 0; i < st.stop.length; i++) {
    const k = st.stop[i]!;
    if (k >= 0 && k <= maxKey) served[k] = 1;
  }
  const stops = src.stops.filter((s) => s.key >= 0 && served[s.key] === 1);
  const stopIdx = new Map<number, number>();
  stops.forEach((s, i) => stopIdx.set(s.key, i));
  return { stops, stopIdx, stopByKey };
}

/** Timezone names numbered in the order first asked for (`of`), the timetable's timezones table. */
function timezoneIndex(): { names: string[]; of: (name: string) => number } {
  const names: string[] = [];
  const idx = new Map<string, number>();
  const of = (name: string) => {
    let i = idx.get(name);
    if (i === undefined) {
      i = names.length;
      names.push(name);
      idx.set(name, i);
    }
    return i;
  };
  return { names, of };
}

/** Per service, a byte per day from its first to its last active day (at most MAX_DAYS): day0, start, active. */
function serviceDayTables(calendars: SourceData["calendars"]): { day0: Int32Array; start: Int32Array; active: Uint8Array } {
  const day0 = new Int32Array(calendars.length);
  const start = new Int32Array(calendars.length + 1);
  const svcBits: Uint8Array[] = [];
  calendars.forEach((c, s) => {
    let lo = Infinity, hi = -Infinity;
    if (c.weekdays) [lo, hi] = [c.startDay, c.endDay];
    for (const d of c.added) [lo, hi] = [Math.min(lo, d), Math.max(hi, d)];
    if (!Number.isFinite(lo) || hi < lo) [lo, hi] = [0, -1];
    hi = Math.min(hi, lo + MAX_DAYS - 1);
    const bits = new Uint8Array(hi - lo + 1);
    const rule: ServiceCalendar = { start: c.weekdays ? c.startDay : null, end: c.weekdays ? c.endDay : null, weekdays: c.weekdays, added: new Set(c.added), removed: new Set(c.removed) };
    for (let d = lo; d <= hi; d++) bits[d - lo] = activeOn(rule, d) ? 1 : 0;
    day0[s] = lo;
    start[s + 1] = start[s]! + bits.length;
    svcBits.push(bits);
  });
  const active = new Uint8Array(start[calendars.length]!);
  svcBits.forEach((b, s) => active.set(b, start[s]!));
  return { day0, start, active };
}

/**
 * The trips the timetable keeps (two stops or more, a known service and route), each frequency
 * trip expanded to one trip per headway, in stop-time row order.
 */
function expandTrips(
  src: SourceData, rangeOf: Map<number, [number, number]>, tripsByKey: Map<number, SourceTrip>, calIdx: Map<number, number>, routeIdx: Map<number, number>,
): ExpandedTrip[] {
  const st = src.stopTimes;
  const freqByTrip = new Map<number, typeof src.frequencies>();
  for (const f of src.frequencies) {
    const l = freqByTrip.get(f.trip) ?? [];
    l.push(f);
    freqByTrip.set(f.trip, l);
  }
  const expanded: ExpandedTrip[] = [];
  for (const [key, [from, to]] of rangeOf) {
    const trip = tripsByKey.get(key);
    if (!trip || to - from < 2 || !calIdx.has(trip.service) || !routeIdx.has(trip.route)) continue;
    const freqs = freqByTrip.get(key);
    if (!freqs) {
      expanded.push({ trip, from, to, shift: 0, out: 0 });
      continue;
    }
    const first = st.depSec[from]!;
    for (const f of freqs) {
      if (f.headwaySec <= 0) continue;
      for (let s = f.startSec; s < f.endSec; s += f.headwaySec) expanded.push({ trip, from, to, shift: s - first, out: 0 });
    }
  }
  return expanded;
}

/**
 * The trips grouped into patterns: the same feed, timezone, shape, route and (stop, stop_sequence)
 * list, in the order each pattern first appears. Trips are bucketed by a 32-bit digest of their
 * feed, timezone, route and list (no string per trip: a key string per stop_time, then per trip,
 * was most of the compile's time, then much of its memory) and compared field by field and stop by
 * stop within a bucket, so a digest collision only adds a group to the bucket.
 */
function groupPatterns(expanded: ExpandedTrip[], st: SourceData["stopTimes"], tripTz: (trip: SourceTrip) => number): ExpandedTrip[][] {
  const byKey = new Map<number, ExpandedTrip[][]>();
  const groups: ExpandedTrip[][] = [];
  const tz = tripTz;
  const samePattern = (a: ExpandedTrip, b: ExpandedTrip): boolean => {
    if (a.to - a.from !== b.to - b.from || a.trip.feed !== b.trip.feed || a.trip.route !== b.trip.route || a.trip.shapeId !== b.trip.shapeId || tz(a.trip) !== tz(b.trip)) return false;
    for (let i = 0; i < a.to - a.from; i++) {
      if (st.stop[a.from + i] !== st.stop[b.from + i] || st.stopSequence[a.from + i] !== st.stopSequence[b.from + i]) return false;
    }
    return true;
  };
  for (const e of expanded) {
    let h = stopsDigest(st, e.from, e.to);
    for (const x of [e.trip.feed, tz(e.trip), e.trip.route, e.to - e.from]) h = Math.imul(h ^ x, 0x01000193);
    const cands = byKey.get(h);
    const g = cands?.find((c) => samePattern(c[0]!, e));
    if (g) {
      g.push(e);
      continue;
    }
    const made = [e];
    groups.push(made);
    if (cands) cands.push(made);
    else byKey.set(h, [made]);
  }
  return groups;
}

/**
 * The routes laid out in order: the routes and route_stops tables, the trips in route order
 * (`tripOut`) with each trip's first packed stop time set (ExpandedTrip.out), and the number of
 * packed stop times.
 */
function layoutRoutes(
  src: SourceData, routeTrips: ExpandedTrip[][], stopByKey: Map<number, SourceStop>, stopIdx: Map<number, number>, routeIdx: Map<number, number>,
  tripTz: (trip: SourceTrip) => number,
): { routes: TimetableTables["routes"]; routeStops: TimetableTables["route_stops"]; tripOut: ExpandedTrip[]; nTimes: number } {
  const st = src.stopTimes;
  const shapeIdx = new Map<string, number>();
  src.shapes.forEach((s, i) => shapeIdx.set(`${s.feed}|${s.shapeId}`, i));
  const rStopStart: number[] = [], rTripStart: number[] = [], rTime0: number[] = [], rTz: number[] = [];
  const rMinDep: number[] = [], rMaxArr: number[] = [], rGtfs: number[] = [], rType: number[] = [], rShape: number[] = [];
  const rsStop: number[] = [], rsSeq: number[] = [], rsShape: number[] = [];
  const tripOut: ExpandedTrip[] = [];
  let nTimes = 0;
  const project = stopShapeProjector(src.shapes, stopByKey, st);
  for (const trips of routeTrips) {
    const first = trips[0]!;
    const nS = first.to - first.from;
    const route = src.routes[routeIdx.get(first.trip.route)!]!;
    const shape = first.trip.shapeId ? (shapeIdx.get(`${first.trip.feed}|${first.trip.shapeId}`) ?? -1) : -1;
    rStopStart.push(rsStop.length);
    rTripStart.push(tripOut.length);
    rTime0.push(nTimes);
    rTz.push(tripTz(first.trip));
    rGtfs.push(routeIdx.get(first.trip.route)!);
    rType.push(route.type);
    rShape.push(shape);
    let minDep = Infinity, maxArr = -Infinity;
    for (const e of trips) {
      minDep = Math.min(minDep, st.depSec[e.from]! + e.shift);
      maxArr = Math.max(maxArr, st.arrSec[e.to - 1]! + e.shift);
    }
    rMinDep.push(minDep);
    rMaxArr.push(maxArr);
    const shapePts = project(shape, first);
    for (let j = 0; j < nS; j++) {
      rsStop.push(stopIdx.get(stopByKey.get(st.stop[first.from + j]!)!.key)!);
      rsSeq.push(st.stopSequence[first.from + j]!);
      rsShape.push(shapePts[j]!);
    }
    for (const e of trips) {
      e.out = nTimes;
      nTimes += nS;
    }
    tripOut.push(...trips);
  }
  const i32 = (a: number[]) => Int32Array.from(a);
  return {
    routes: {
      stop_start: i32(rStopStart), trip_start: i32(rTripStart), time0: i32(rTime0), tz: i32(rTz), min_dep: i32(rMinDep),
      max_arr: i32(rMaxArr), gtfs_route: i32(rGtfs), type: i32(rType), shape: i32(rShape),
    },
    routeStops: { stop: i32(rsStop), stop_sequence: i32(rsSeq), shape_idx: i32(rsShape) },
    tripOut,
    nTimes,
  };
}

/**
 * A function giving a route's stops their shape points (route_stops.shape_idx; -1 for a stop the
 * shape does not come near, and for every stop of a route without a shape). Routes split off one
 * pattern (overtaking) share their stops and shape, hence the projection: it is cached by shape
 * and stop list, as are each shape's block bounding boxes (shapeBoxes).
 */
function stopShapeProjector(shapes: SourceData["shapes"], stopByKey: Map<number, SourceStop>, st: SourceData["stopTimes"]): (shape: number, first: ExpandedTrip) => number[] {
  const projections = new Map<string, number[]>();
  const boxCache = new Map<number, Float64Array>();
  return (shape, first) => {
    const nS = first.to - first.from;
    const sh = shape >= 0 ? shapes[shape]! : null;
    const projKey = sh && sh.lat.length > 0 ? `${shape}:${Array.from(st.stop.subarray(first.from, first.to)).join(",")}` : "";
    const cached = projKey ? projections.get(projKey) : undefined;
    if (cached) return cached;
    const pts: number[] = [];
    let prevPt = 0;
    const boxes = sh && sh.lat.length > 0 ? shapeBoxes(boxCache, shape, sh.lat, sh.lon) : null;
    for (let j = 0; j < nS; j++) {
      const s = stopByKey.get(st.stop[first.from + j]!)!;
      if (sh && boxes) {
        // a stop the shape does not come near is not on it (-1), and the search goes on from the
        // last stop that is, so a far stop cannot pull the next ones along the shape
        const k = matchShapePoint(sh.lat, sh.lon, boxes, s.lat, s.lon, prevPt);
        if (k >= 0) prevPt = k;
        pts.push(k);
      } else pts.push(-1);
    }
    if (projKey) projections.set(projKey, pts);
    return pts;
  };
}

/**
 * A shape's bounding box (min lat, max lat, min lon, max lon) of each block of 2^BOX_SHIFT points
 * and the next block's first point (so a segment across two blocks is inside a box), cached per shape.
 */
function shapeBoxes(boxCache: Map<number, Float64Array>, shape: number, lat: Float64Array, lon: Float64Array): Float64Array {
  let boxes = boxCache.get(shape);
  if (boxes) return boxes;
  const nb = (lat.length + (1 << BOX_SHIFT) - 1) >> BOX_SHIFT;
  boxes = new Float64Array(4 * nb);
  for (let b = 0; b < nb; b++) {
    let a = Infinity, z = -Infinity, c = Infinity, d = -Infinity;
    for (let k = b << BOX_SHIFT, end = Math.min(lat.length, ((b + 1) << BOX_SHIFT) + 1); k < end; k++) {
      a = Math.min(a, lat[k]!);
      z = Math.max(z, lat[k]!);
      c = Math.min(c, lon[k]!);
      d = Math.max(d, lon[k]!);
    }
    boxes.set([a, z, c, d], 4 * b);
  }
  boxCache.set(shape, boxes);
  return boxes;
}

/** A stop key's served stops: the stop itself when served, else a station's served child stops. */
function stationExpander(stops: SourceStop[], stopIdx: Map<number, number>): (key: number) => number[] {
  const children = new Map<number, number[]>();
  for (const s of stops) {
    if (s.parent >= 0) {
      const l = children.get(s.parent) ?? [];
      l.push(stopIdx.get(s.key)!);
      children.set(s.parent, l);
    }
  }
  return (key) => {
    const i = stopIdx.get(key);
    return i !== undefined ? [i] : (children.get(key) ?? []);
  };
}

/**
 * The transfers.txt rows between stops (not rules): same-stop slack per stop, footpaths (key
 * from * n + to -> distance and minimum time) and the pairs type 3 blocks.
 */
function transfersTxtFootpaths(
  src: SourceData, stops: SourceStop[], expand: (key: number) => number[],
): { slack: Int32Array; foot: Map<number, { dist: number; min: number }>; blocked: Set<number> } {
  const n = stops.length;
  const slack = new Int32Array(n);
  const blocked = new Set<number>();
  const foot = new Map<number, { dist: number; min: number }>();
  for (const t of src.transfers) {
    if (isRule(t)) continue;
    for (const a of expand(t.fromStop)) {
      for (const b of expand(t.toStop)) {
        if (t.type === 3) {
          if (a !== b) blocked.add(a * n + b);
          continue;
        }
        const min = t.type === 2 ? Math.max(0, t.minSec) : 0;
        if (a === b) slack[a] = Math.max(slack[a]!, min);
        else {
          const d = haversineM(stops[a]!.lat, stops[a]!.lon, stops[b]!.lat, stops[b]!.lon);
          const k = a * n + b;
          const prev = foot.get(k);
          foot.set(k, { dist: d, min: Math.max(min, prev?.min ?? 0) });
        }
      }
    }
  }
  return { slack, foot, blocked };
}

/** Every shape's points in one pair of columns, each shape from its start. */
function packShapes(shapes: SourceData["shapes"]): { start: Int32Array; lat: Float64Array; lon: Float64Array } {
  const shapeStart: number[] = [];
  let nPts = 0;
  for (const s of shapes) {
    shapeStart.push(nPts);
    nPts += s.lat.length;
  }
  const lat = new Float64Array(nPts), lon = new Float64Array(nPts);
  shapes.forEach((s, i) => {
    lat.set(s.lat, shapeStart[i]!);
    lon.set(s.lon, shapeStart[i]!);
  });
  return { start: Int32Array.from(shapeStart), lat, lon };
}

/** The gtfs_routes table: every source route, its agency by index. */
function gtfsRoutesTable(routes: SourceData["routes"], agencyIdx: Map<number, number>): TimetableTables["gtfs_routes"] {
  return {
    route_id: routes.map((r) => r.routeId),
    short_name: routes.map((r) => r.shortName),
    long_name: routes.map((r) => r.longName),
    type: Int32Array.from(routes.map((r) => r.type)),
    color: routes.map((r) => r.color),
    text_color: routes.map((r) => r.textColor),
    onestop_id: routes.map((r) => r.onestopId),
    agency: Int32Array.from(routes.map((r) => agencyIdx.get(r.agency) ?? 0)),
  };
}

/** The stops table: the served stops with their same-stop slack. */
function stopsTable(stops: SourceStop[], slack: Int32Array): TimetableTables["stops"] {
  return {
    stop_id: stops.map((s) => s.stopId),
    name: stops.map((s) => s.name),
    code: stops.map((s) => s.code),
    onestop_id: stops.map((s) => s.onestopId),
    feed: Int32Array.from(stops.map((s) => s.feed)),
    lat: Float64Array.from(stops.map((s) => s.lat)),
    lon: Float64Array.from(stops.map((s) => s.lon)),
    wheelchair: Uint8Array.from(stops.map((s) => s.wheelchair)),
    slack_sec: slack,
    zone_id: stops.map((s) => s.zoneId ?? ""),
    platform_code: stops.map((s) => s.platformCode ?? ""),
    station: Int32Array.from(stops.map((s) => s.parent)),
  };
}

/** The trips table: the trips in route order with their service, GTFS route and rule trip. */
function tripsTable(tripOut: ExpandedTrip[], calIdx: Map<number, number>, routeIdx: Map<number, number>, ruleTrip: Map<number, number>): TimetableTables["trips"] {
  return {
    trip_id: tripOut.map((e) => e.trip.tripId),
    headsign: tripOut.map((e) => e.trip.headsign),
    block_id: tripOut.map((e) => e.trip.blockId),
    service: Int32Array.from(tripOut.map((e) => calIdx.get(e.trip.service)!)),
    wheelchair: Uint8Array.from(tripOut.map((e) => e.trip.wheelchair)),
    gtfs_route: Int32Array.from(tripOut.map((e) => routeIdx.get(e.trip.route)!)),
    short_name: tripOut.map((e) => e.trip.shortName ?? ""),
    rule_trip: Int32Array.from(tripOut, (e) => ruleTrip.get(e.trip.key) ?? -1),
  };
}

/**
 * The shape point a stop is matched to, from point `from` on: the first point near enough
 * (shapeDistanceM, the point or a segment next to it, within SHAPE_STOP_TOLERANCE_M), then on
 * along the shape while the next point is nearer (the bottom of that pass by the stop); -1 when
 * the shape does not come that near after `from`. The first pass, not the nearest point of the
 * whole shape: a loop's first stop (also its last) matches the loop's start, not its end. A block
 * of 2^BOX_SHIFT points whose bounding box (`boxes`) is farther than the tolerance is skipped.
 */
function matchShapePoint(sLat: Float64Array, sLon: Float64Array, boxes: Float64Array, lat: number, lon: number, from: number): number {
  const cosLat = Math.cos((lat * Math.PI) / 180);
  const tolDeg = SHAPE_STOP_TOLERANCE_M / ((Math.PI / 180) * EARTH_M);
  const n = sLat.length;
  for (let k = from; k < n; ) {
    const b = k >> BOX_SHIFT;
    const end = Math.min(n, (b + 1) << BOX_SHIFT);
    const by = Math.max(0, boxes[4 * b]! - lat, lat - boxes[4 * b + 1]!);
    const bx = Math.max(0, boxes[4 * b + 2]! - lon, lon - boxes[4 * b + 3]!) * cosLat;
    if (by * by + bx * bx > tolDeg * tolDeg) {
      k = end;
      continue;
    }
    for (; k < end; k++) {
      if (shapeDistanceM(sLat, sLon, k, lat, lon) > SHAPE_STOP_TOLERANCE_M) continue;
      const d2 = (i: number) => (sLat[i]! - lat) ** 2 + ((sLon[i]! - lon) * cosLat) ** 2;
      let m = k;
      while (m + 1 < n && d2(m + 1) < d2(m)) m++;
      return m === k || shapeDistanceM(sLat, sLon, m, lat, lon) <= SHAPE_STOP_TOLERANCE_M ? m : k;
    }
  }
  return -1;
}

/**
 * Metres from (lat, lon) to a shape near its point k: the nearest of the segments k-1..k and k..k+1
 * (a stop beside a long straight segment is near the segment, not its ends). Equirectangular.
 */
export function shapeDistanceM(sLat: ArrayLike<number>, sLon: ArrayLike<number>, k: number, lat: number, lon: number): number {
  const my = (Math.PI / 180) * EARTH_M, mx = my * Math.cos((lat * Math.PI) / 180);
  const ax = (sLon[k]! - lon) * mx, ay = (sLat[k]! - lat) * my;
  let best = Math.hypot(ax, ay);
  for (let j = k - 1; j <= k + 1; j += 2) {
    if (j < 0 || j >= sLat.length) continue;
    const dx = (sLon[j]! - lon) * mx - ax, dy = (sLat[j]! - lat) * my - ay;
    const len2 = dx * dx + dy * dy;
    const t = len2 > 0 ? Math.min(1, Math.max(0, -(ax * dx + ay * dy) / len2)) : 0;
    best = Math.min(best, Math.hypot(ax + t * dx, ay + t * dy));
  }
  return best;
}

/**
 * The footpaths sorted by (from, to): transfers.txt's (`foot`, key from * n + to) plus, when radius
 * > 0, every other pair of stops within `radius` metres straight line that no transfers.txt row
 * names or blocks. Stops are bucketed in a grid of radius-sized cells; each stop's list is built
 * from its 3 x 3 cells and sorted, so no map of all pairs is built (NYC: 268 k footpaths).
 */
function footpathTable(stops: SourceData["stops"], radius: number, foot: Map<number, { dist: number; min: number }>, blocked: Set<number>) {
  const n = stops.length;
  const lat = Float64Array.from(stops, (s) => s.lat), lon = Float64Array.from(stops, (s) => s.lon);
  // transfers.txt rows per source stop, in key order
  const byFrom = new Map<number, number[]>();
  for (const k of [...foot.keys()].sort((x, y) => x - y)) {
    const f = Math.floor(k / n);
    (byFrom.get(f) ?? byFrom.set(f, []).get(f)!).push(k % n);
  }
  const cellDeg = radius / 111_000;
  // one longitude scale for the whole dataset (its highest latitude), so cells stay aligned
  let maxLat = 0;
  for (let i = 0; i < n; i++) maxLat = Math.max(maxLat, Math.abs(lat[i]!));
  const lonScale = Math.max(0.1, Math.cos((maxLat * Math.PI) / 180));
  const cellA = new Float64Array(n), cellB = new Float64Array(n);
  const grid = new Map<number, number[]>();
  const CELLS = 4_000_000; // more cells than a row of the grid can hold (|b| < 180 / cellDeg)
  if (radius > 0) {
    for (let i = 0; i < n; i++) {
      cellA[i] = Math.floor(lat[i]! / cellDeg);
      cellB[i] = Math.floor((lon[i]! * lonScale) / cellDeg);
      const k = cellA[i]! * CELLS + cellB[i]!;
      const l = grid.get(k);
      if (l) l.push(i);
      else grid.set(k, [i]);
    }
  }
  const fFrom: number[] = [], fTo: number[] = [], fDist: number[] = [], fMin: number[] = [], fSource: number[] = [];
  const push = (from: number, to: number, dist: number, min: number, source: number) => {
    fFrom.push(from);
    fTo.push(to);
    fDist.push(dist);
    fMin.push(min);
    fSource.push(source);
  };
  const near: number[] = [];
  for (let i = 0; i < n; i++) {
    near.length = 0;
    const named = byFrom.get(i);
    if (named) near.push(...named);
    if (radius > 0) {
      for (let da = -1; da <= 1; da++) {
        for (let db = -1; db <= 1; db++) {
          const l = grid.get((cellA[i]! + da) * CELLS + cellB[i]! + db);
          if (!l) continue;
          for (const j of l) {
            if (j === i) continue;
            const k = i * n + j;
            if (foot.has(k) || blocked.has(k)) continue;
            if (haversineM(lat[i]!, lon[i]!, lat[j]!, lon[j]!) <= radius) near.push(j);
          }
        }
      }
    }
    if (near.length === 0) continue;
    near.sort((x, y) => x - y);
    for (const j of near) {
      const t = foot.get(i * n + j);
      if (t) push(i, j, t.dist, t.min, FOOT_SOURCE.transfersTxt);
      else push(i, j, haversineM(lat[i]!, lon[i]!, lat[j]!, lon[j]!), 0, FOOT_SOURCE.straightLine);
    }
  }
  return { fFrom: Int32Array.from(fFrom), fTo: Int32Array.from(fTo), fDist: Float64Array.from(fDist), fMin: Int32Array.from(fMin), fSource: Uint8Array.from(fSource) };
}

/** A transfers.txt row that names a route or a trip: a transfer rule, not a footpath. */
const isRule = (t: SourceTransfer): boolean => (t.fromRoute ?? -1) >= 0 || (t.toRoute ?? -1) >= 0 || (t.fromTrip ?? -1) >= 0 || (t.toTrip ?? -1) >= 0;

/**
 * The transfers.txt rows naming routes or trips as transfer_rules (pipeline/schema/timetable.ts):
 * one rule per (from stop, to stop) pair, stations expanded to their stops; in-seat rows (types 4
 * and 5) between the arriving trip's last stop and the departing trip's first (a row naming other
 * stops is left out and reported). Rows naming a trip that did not make it into the timetable (no
 * service, fewer than two stops) cannot apply and are left out. `ruleTrip`: GTFS trip key -> its
 * rule trip (trips.rule_trip).
 */
function transferRules(
  src: SourceData, stops: SourceData["stops"], stopIdx: Map<number, number>, expand: (key: number) => number[], routeIdx: Map<number, number>,
  tripsByKey: Map<number, SourceTrip>, rangeOf: Map<number, [number, number]>,
): { rules: TimetableTables["transfer_rules"]; ruleTrip: Map<number, number> } {
  const st = src.stopTimes;
  const ruleTrip = new Map<number, number>();
  const out: { from: number; to: number; fr: number; tr: number; ft: number; tt: number; type: number; min: number; spec: number }[] = [];
  let noTrip = 0, badStops = 0;
  // a named trip: its rule trip and GTFS route, or null when it is not in the timetable
  const trip = (key: number) => {
    const t = tripsByKey.get(key);
    const range = rangeOf.get(key);
    if (!t || !range || range[1] - range[0] < 2 || !routeIdx.has(t.route)) return null;
    let k = ruleTrip.get(key);
    if (k === undefined) ruleTrip.set(key, (k = ruleTrip.size));
    return { k, route: routeIdx.get(t.route)!, first: st.stop[range[0]]!, last: st.stop[range[1] - 1]! };
  };
  for (const t of src.transfers) {
    if (!isRule(t)) continue;
    const ft = (t.fromTrip ?? -1) >= 0 ? trip(t.fromTrip!) : undefined;
    const tt = (t.toTrip ?? -1) >= 0 ? trip(t.toTrip!) : undefined;
    if (ft === null || tt === null) {
      noTrip++;
      continue;
    }
    const side = (tr: typeof ft, route: number | undefined) => (tr ? 2 : (route ?? -1) >= 0 ? 1 : 0);
    const fs = side(ft, t.fromRoute), ts = side(tt, t.toRoute);
    // GTFS specificity: both trips 6, a trip and a route 5, one trip 4, both routes 3, one route 2
    const rank = fs === 2 && ts === 2 ? 6 : fs + ts === 3 ? 5 : fs === 2 || ts === 2 ? 4 : fs + ts === 2 ? 3 : 2;
    const fr = ft ? ft.route : (t.fromRoute ?? -1) >= 0 ? (routeIdx.get(t.fromRoute!) ?? -2) : -1;
    const tr = tt ? tt.route : (t.toRoute ?? -1) >= 0 ? (routeIdx.get(t.toRoute!) ?? -2) : -1;
    if (fr === -2 || tr === -2) continue; // (a route key the source does not have: compile.ts resolved them)
    const min = t.type === 2 ? Math.max(0, t.minSec) : 0;
    const push = (a: number, b: number, direct: number) => out.push({ from: a, to: b, fr, tr, ft: ft ? ft.k : -1, tt: tt ? tt.k : -1, type: t.type, min, spec: rank * 4 + direct });
    if (t.type >= 4) {
      // in-seat: from the arriving trip's last stop to the departing trip's first
      const a = stopIdx.get(ft!.last), b = stopIdx.get(tt!.first);
      if (a === undefined || b === undefined || (t.fromStop >= 0 && !expand(t.fromStop).includes(a)) || (t.toStop >= 0 && !expand(t.toStop).includes(b))) {
        badStops++;
        continue;
      }
      push(a, b, 2);
      continue;
    }
    const fromDirect = stopIdx.has(t.fromStop) ? 1 : 0, toDirect = stopIdx.has(t.toStop) ? 1 : 0;
    for (const a of expand(t.fromStop)) for (const b of expand(t.toStop)) push(a, b, fromDirect + toDirect);
  }
  if (noTrip) (src.warnings ??= []).push(`${noTrip} transfers.txt row(s) name a trip without service in the timetable (left out)`);
  if (badStops) (src.warnings ??= []).push(`${badStops} in-seat transfers.txt row(s) whose stops are not the arriving trip's last and the departing trip's first (left out)`);
  // by to stop, from stop, most specific first; the same rule twice is kept once
  out.sort((x, y) => x.to - y.to || x.from - y.from || y.spec - x.spec || x.fr - y.fr || x.tr - y.tr || x.ft - y.ft || x.tt - y.tt || x.type - y.type || x.min - y.min);
  const rules = out.filter((x, i) => {
    const y = out[i - 1];
    return !y || x.to !== y.to || x.from !== y.from || x.spec !== y.spec || x.fr !== y.fr || x.tr !== y.tr || x.ft !== y.ft || x.tt !== y.tt || x.type !== y.type || x.min !== y.min;
  });
  const col = (f: (x: (typeof out)[number]) => number) => Int32Array.from(rules, f);
  return {
    rules: {
      from_stop: col((x) => x.from), to_stop: col((x) => x.to), from_route: col((x) => x.fr), to_route: col((x) => x.tr),
      from_trip: col((x) => x.ft), to_trip: col((x) => x.tt), type: Uint8Array.from(rules, (x) => x.type), min_sec: col((x) => x.min), specificity: Uint8Array.from(rules, (x) => x.spec),
      dist_m: Float64Array.from(rules, (x) => (x.from === x.to ? 0 : haversineM(stops[x.from]!.lat, stops[x.from]!.lon, stops[x.to]!.lat, stops[x.to]!.lon))),
    },
    ruleTrip,
  };
}

/** trip key -> its row range [from, to) in stop times sorted by trip (in row order). */
function tripRanges(trip: Int32Array): Map<number, [number, number]> {
  const rangeOf = new Map<number, [number, number]>();
  for (let i = 0; i < trip.length; ) {
    let j = i + 1;
    while (j < trip.length && trip[j] === trip[i]) j++;
    rangeOf.set(trip[i]!, [i, j]);
    i = j;
  }
  return rangeOf;
}

/**
 * One stop pattern's trips sorted by departure and split into routes whose trips never overtake:
 * each trip joins the first route whose last trip it leaves and reaches no earlier at every stop.
 * (Hot loops live in small functions: JavaScriptCore optimises those, not the loops of
 * a long function body, where they ran several times slower.)
 */
function splitOvertaking(list: ExpandedTrip[], st: SourceData["stopTimes"]): ExpandedTrip[][] {
  const { arrSec, depSec } = st;
  list.sort((a, b) => depSec[a.from]! + a.shift - (depSec[b.from]! + b.shift) || arrSec[a.to - 1]! + a.shift - (arrSec[b.to - 1]! + b.shift));
  const subs: ExpandedTrip[][] = [];
  for (const e of list) {
    let placed = false;
    for (const sub of subs) {
      const last = sub[sub.length - 1]!;
      let ok = true;
      for (let j = 0, n = e.to - e.from; j < n; j++) {
        if (depSec[e.from + j]! + e.shift < depSec[last.from + j]! + last.shift || arrSec[e.from + j]! + e.shift < arrSec[last.from + j]! + last.shift) {
          ok = false;
          break;
        }
      }
      if (ok) {
        sub.push(e);
        placed = true;
        break;
      }
    }
    if (!placed) subs.push([e]);
  }
  return subs;
}

/** A 32-bit digest of the (stop, stop_sequence) list of stop times [from, to). */
function stopsDigest(st: SourceData["stopTimes"], from: number, to: number): number {
  const { stop, stopSequence } = st;
  let h1 = 0x811c9dc5 | 0, h2 = 0x12345678;
  for (let i = from; i < to; i++) {
    const a = stop[i]!, b = stopSequence[i]!;
    h1 = Math.imul(h1 ^ a, 0x01000193);
    h1 = Math.imul(h1 ^ b, 0x01000193);
    h2 = (Math.imul(h2, 31) + a) | 0;
    h2 = (Math.imul(h2, 37) + b) | 0;
  }
  return Math.imul(h1 ^ h2, 0x01000193);
}

/**
 * Stop times packed as the planner reads them (the packed word of pipeline/schema/timetable.ts),
 * each trip at the index its route gave it (ExpandedTrip.out). A function of its own:
 * JavaScriptCore optimises small functions' loops, not the loops of a long function body
 * (moving this one out cut the bus_bk assembly by ~110 ms).
 */
function packTrips(expanded: ExpandedTrip[], st: SourceData["stopTimes"], nTimes: number): Int32Array {
  const words = new Int32Array(2 * nTimes);
  const { arrSec, depSec, pickupType, dropOffType } = st;
  for (const e of expanded) {
    const shift = e.shift;
    for (let i = e.from, end = e.to, w = e.out; i < end; i++, w++) {
      packStopTime(words, w, arrSec[i]! + shift, depSec[i]! + shift, stopTimeFlags(pickupType[i]!, dropOffType[i]!));
    }
  }
  return words;
}
