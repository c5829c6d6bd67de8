/**
 * Loads a compiled planner timetable (pipeline/timetable/compile.ts) from Arrow IPC bytes into the
 * typed-array Timetable: one IPC stream per table, tagged `table=<name>` in the schema metadata.
 * Tables and columns are named through the timetable file's layout (pipeline/schema/timetable.ts),
 * which the writer builds from too: a column that is not in the layout, or not of the type read
 * here, does not compile.
 */
import { DataType, RecordBatchReader, Table } from "apache-arrow";
import { readFileSync } from "node:fs";
import { packStopTimes, type AnyTimetableTableName, type ColumnKind, type ColumnOf } from "../../../pipeline/schema/timetable.ts";
import type { Timetable, TransitCore, TimetableMeta } from "./types.ts";
import { FARE_TIMETABLE_TABLES, type FareTimetableTables } from "../../../pipeline/schema/timetable.ts";

type Cols = Map<string, unknown>;

/**
 * The file is memory-mapped (copy-on-write, MAP_PRIVATE), not read into the heap: the columns kept
 * as views (a format 3+ file's packed stop times, most of its size) are then the page cache's pages,
 * which every process serving the same file (`serve --workers N`) shares instead of holding a copy
 * each. Safe with the pipeline's writes: a new timetable is a new file renamed into place and an old
 * one is unlinked, never rewritten or truncated, so a mapping of it stays valid for as long as a
 * planner holds it (a write into a view would copy the page, never reach the file).
 */
export function loadTimetableFile(path: string): Timetable {
  let bytes: Uint8Array;
  try {
    bytes = Bun.mmap(path, { shared: false });
  } catch {
    bytes = readFileSync(path); // e.g. an empty file, which mmap refuses: the reader says what is wrong
  }
  return loadTimetable(bytes);
}

/**
 * The timetable in the file's bytes: its tables read (readTables), then the planner's core columns
 * and indexes (readCore) and what answers are written from (readMeta).
 */
export function loadTimetable(bytes: Uint8Array): Timetable {
  const tables = readTables(bytes);
  const r = columnReader(tables, bytes);
  const { core, serviceDay0, serviceDays } = readCore(r);
  const meta = readMeta(r, tables, core, serviceDay0, serviceDays);
  return { core, meta };
}

/** Every table of the file by its `table` tag: column name -> typed array, or a string array for utf8. */
function readTables(bytes: Uint8Array): Map<string, Cols> {
  const tables = new Map<string, Cols>();
  for (const reader of RecordBatchReader.readAll(bytes)) {
    const name = reader.schema.metadata.get("table") ?? "";
    const table = new Table(reader.schema, [...reader]);
    const cols: Cols = new Map();
    for (const f of table.schema.fields) {
      const v = table.getChild(f.name)!;
      // strings are read once into a JS array (toArray() would build a second one to throw away)
      if (DataType.isUtf8(f.type)) cols.set(f.name, Array.from(v as Iterable<unknown>, (x) => (x == null ? "" : String(x))));
      else cols.set(f.name, v.toArray() as unknown);
    }
    tables.set(name, cols);
  }
  return tables;
}

type ColumnReader = ReturnType<typeof columnReader>;

/**
 * Typed getters of the layout's columns (a missing table or a column of another type throws).
 * Columns are views into `bytes` where Arrow can. Format 3 files hold the stop times packed
 * (stop_time_words), so the timetable keeps views and the file's bytes are most of its memory; a
 * format 2 file's stop times are packed here, and then copies are kept, so its bytes are freed.
 */
function columnReader(tables: Map<string, Cols>, bytes: Uint8Array) {
  const t = (name: AnyTimetableTableName): Cols => {
    const c = tables.get(name);
    if (!c) throw new Error(`timetable: table ${name} missing`);
    return c;
  };
  const column = <T extends AnyTimetableTableName, K extends ColumnKind>(tn: T, cn: ColumnOf<T, K>) => tables.get(tn)?.get(cn);
  const packed = column("stop_time_words", "word");
  const own = <A extends Int32Array | Uint8Array | Float64Array>(a: A, keep: boolean): A => (keep && !packed && a.buffer === bytes.buffer ? (a.slice() as A) : a);
  const i32 = <T extends AnyTimetableTableName>(tn: T, cn: ColumnOf<T, "int32">, keep = true) => own(asType(t(tn).get(cn), Int32Array, `${tn}.${cn}`), keep);
  const u8 = <T extends AnyTimetableTableName>(tn: T, cn: ColumnOf<T, "uint8">, keep = true) => own(asType(t(tn).get(cn), Uint8Array, `${tn}.${cn}`), keep);
  const f64 = <T extends AnyTimetableTableName>(tn: T, cn: ColumnOf<T, "float64">) => own(asType(t(tn).get(cn), Float64Array, `${tn}.${cn}`), true);
  const str = <T extends AnyTimetableTableName>(tn: T, cn: ColumnOf<T, "utf8">) => {
    const v = t(tn).get(cn);
    if (!Array.isArray(v)) throw new Error(`timetable: ${tn}.${cn} is not a string column`);
    return v as string[];
  };
  // a string column added in format 4 (OTP1 leg fields): "" for every row of a format 3 file
  const str4 = <T extends AnyTimetableTableName>(tn: T, cn: ColumnOf<T, "utf8">, n: number) => (t(tn).has(cn) ? str(tn, cn) : new Array<string>(n).fill(""));
  // whether the file has a column (a table or column added in a later format)
  const has = (tn: string, cn: string): boolean => !!tables.get(tn)?.get(cn);
  return { t, has, packed, i32, u8, f64, str, str4 };
}

/** `a` with `end` appended (a start column made into start/end pairs). */
function withEnd(a: Int32Array, end: number): Int32Array {
  const out = new Int32Array(a.length + 1);
  out.set(a);
  out[a.length] = end;
  return out;
}

/**
 * The planner's core: counts, the stop -> routes and stop -> footpaths indexes, and the columns
 * RAPTOR scans; with the service columns, read here too (the meta keeps them).
 */
function readCore(r: ColumnReader): { core: TransitCore; serviceDay0: Int32Array; serviceDays: Uint8Array } {
  const { i32, u8, f64, str, packed } = r;
  const nStops = f64("stops", "lat").length;
  const routeStops = i32("route_stops", "stop");
  const tripService = i32("trips", "service");
  const nTrips = tripService.length;
  const nRoutes = i32("routes", "tz").length;
  const serviceDays = u8("service_days", "active");
  const serviceDay0 = i32("services", "day0");
  const nServices = serviceDay0.length;
  const routeStopStart = withEnd(i32("routes", "stop_start"), routeStops.length);
  const { stopRouteStart, stopRouteRoute, stopRoutePos } = stopRouteIndex(routeStops, routeStopStart, nStops, nRoutes);
  const footFrom = i32("footpaths", "from");
  const footStart = new Int32Array(nStops + 1);
  for (let e = 0; e < footFrom.length; e++) footStart[footFrom[e]! + 1]!++;
  for (let s = 0; s < nStops; s++) footStart[s + 1]! += footStart[s]!;
  const tripOrig = new Int32Array(nTrips);
  for (let i = 0; i < nTrips; i++) tripOrig[i] = i;

  const core: TransitCore = {
    nStops,
    nRoutes,
    nTrips,
    nServices,
    nTz: str("timezones", "name").length,
    stopWheelchair: u8("stops", "wheelchair"),
    stopSlackSec: i32("stops", "slack_sec"),
    stopRouteStart,
    stopRouteRoute,
    stopRoutePos,
    footStart,
    footTo: i32("footpaths", "to"),
    footDistM: f64("footpaths", "dist_m"),
    // format 6: a file of an earlier format (a dataset imported before) walks its footpaths' length
    footWalkM: r.has("footpaths", "walk_m") ? f64("footpaths", "walk_m") : f64("footpaths", "dist_m"),
    footMinSec: i32("footpaths", "min_sec"),
    routeStopStart,
    routeStops,
    routeTripStart: withEnd(i32("routes", "trip_start"), nTrips),
    routeTime0: i32("routes", "time0"),
    routeTz: i32("routes", "tz"),
    routeMinDepSec: i32("routes", "min_dep"),
    routeMaxArrSec: i32("routes", "max_arr"),
    stopTimes: packed ? asType(packed, Int32Array, "stop_time_words.word") : packStopTimes(i32("stop_times", "arr", false), i32("stop_times", "dep", false), u8("stop_times", "flags", false)),
    tripService,
    tripWheelchair: u8("trips", "wheelchair"),
    tripOrig,
    transferRules: null,
  };
  core.transferRules = readTransferRules(r);
  return { core, serviceDay0, serviceDays };
}

/** stop -> the routes serving it and its position on each (CSR: start per stop, route and position per entry). */
function stopRouteIndex(routeStops: Int32Array, routeStopStart: Int32Array, nStops: number, nRoutes: number) {
  const stopRouteStart = new Int32Array(nStops + 1);
  for (let i = 0; i < routeStops.length; i++) stopRouteStart[routeStops[i]! + 1]!++;
  for (let s = 0; s < nStops; s++) stopRouteStart[s + 1]! += stopRouteStart[s]!;
  const fill = stopRouteStart.slice(0, nStops);
  const stopRouteRoute = new Int32Array(routeStops.length);
  const stopRoutePos = new Int32Array(routeStops.length);
  for (let r = 0; r < nRoutes; r++) {
    for (let j = routeStopStart[r]!; j < routeStopStart[r + 1]!; j++) {
      const at = fill[routeStops[j]!]!++;
      stopRouteRoute[at] = r;
      stopRoutePos[at] = j - routeStopStart[r]!;
    }
  }
  return { stopRouteStart, stopRouteRoute, stopRoutePos };
}

/** Format 5: the transfers.txt rows naming routes or trips; null when there are none (older files: none). */
function readTransferRules(r: ColumnReader): TransitCore["transferRules"] {
  const { i32, u8, f64 } = r;
  const nRules = r.has("transfer_rules", "type") ? u8("transfer_rules", "type").length : 0;
  if (nRules === 0) return null;
  return {
    fromStop: i32("transfer_rules", "from_stop"),
    toStop: i32("transfer_rules", "to_stop"),
    fromRoute: i32("transfer_rules", "from_route"),
    toRoute: i32("transfer_rules", "to_route"),
    fromTrip: i32("transfer_rules", "from_trip"),
    toTrip: i32("transfer_rules", "to_trip"),
    type: u8("transfer_rules", "type"),
    minSec: i32("transfer_rules", "min_sec"),
    specificity: u8("transfer_rules", "specificity"),
    distM: f64("transfer_rules", "dist_m"),
    tripRule: i32("trips", "rule_trip"),
    routeGtfs: i32("routes", "gtfs_route"),
  };
}

/** What answers are written from: feeds, fares, agencies, GTFS routes, stops, trips, shapes, services. */
function readMeta(r: ColumnReader, tables: Map<string, Cols>, core: TransitCore, serviceDay0: Int32Array, serviceDays: Uint8Array): TimetableMeta {
  const { t, i32, u8, f64, str, str4 } = r;
  const { nStops, nTrips } = core;
  const shapeLat = f64("shape_points", "lat");
  const feedsOnestop = str("feeds", "onestop_id");
  const feedsSha = str("feeds", "sha1");
  const agencyIds = str("agencies", "agency_id");
  const agencyNames = str("agencies", "name");
  const agencyTz = i32("agencies", "tz");
  const agencyFeed = i32("agencies", "feed");
  const agencyUrl = str4("agencies", "url", agencyIds.length);
  const rt = {
    id: str("gtfs_routes", "route_id"),
    short: str("gtfs_routes", "short_name"),
    long: str("gtfs_routes", "long_name"),
    type: i32("gtfs_routes", "type"),
    color: str("gtfs_routes", "color"),
    text: str("gtfs_routes", "text_color"),
    onestop: str("gtfs_routes", "onestop_id"),
    agency: i32("gtfs_routes", "agency"),
  };
  return {
    feeds: feedsOnestop.map((o, i) => ({ onestopId: o, sha1: feedsSha[i]! })),
    fares: fareTables(tables),
    timezones: str("timezones", "name"),
    agencies: agencyIds.map((a, i) => ({ agencyId: a, name: agencyNames[i]!, tz: agencyTz[i]!, feed: agencyFeed[i]!, url: agencyUrl[i]! })),
    gtfsRoutes: rt.id.map((id, i) => ({
      routeId: id,
      shortName: rt.short[i]!,
      longName: rt.long[i]!,
      type: rt.type[i]!,
      color: rt.color[i]!,
      textColor: rt.text[i]!,
      onestopId: rt.onestop[i]!,
      agency: rt.agency[i]!,
    })),
    stopId: str("stops", "stop_id"),
    stopName: str("stops", "name"),
    stopCode: str("stops", "code"),
    stopOnestopId: str("stops", "onestop_id"),
    stopFeed: i32("stops", "feed"),
    stopLat: f64("stops", "lat"),
    stopLon: f64("stops", "lon"),
    stopZoneId: str4("stops", "zone_id", nStops),
    stopPlatformCode: str4("stops", "platform_code", nStops),
    // format 4 (a format 3 file: no station known)
    stopStation: t("stops").has("station") ? i32("stops", "station") : new Int32Array(nStops).fill(-1),
    tripId: str("trips", "trip_id"),
    tripHeadsign: str("trips", "headsign"),
    tripBlockId: str("trips", "block_id"),
    tripShortName: str4("trips", "short_name", nTrips),
    tripGtfsRoute: i32("trips", "gtfs_route"),
    routeGtfsRoute: i32("routes", "gtfs_route"),
    routeType: i32("routes", "type"),
    routeShape: i32("routes", "shape"),
    routeStopSequence: i32("route_stops", "stop_sequence"),
    routeStopShapeIdx: i32("route_stops", "shape_idx"),
    shapeStart: withEnd(i32("shapes", "start"), shapeLat.length),
    shapeLat,
    shapeLon: f64("shape_points", "lon"),
    serviceDay0,
    serviceStart: withEnd(i32("services", "start"), serviceDays.length),
    serviceDays,
    feedStartDay: i32("feeds", "start_day"),
    feedEndDay: i32("feeds", "end_day"),
    walkRadiusM: f64("meta", "walk_radius_m")[0]!,
    // how each footpath was measured, and on which street dataset (older files: straight lines)
    footSource: t("footpaths").has("source") ? u8("footpaths", "source") : new Uint8Array(core.footTo.length),
    streetsSha1: t("meta").has("streets_sha1") ? (str("meta", "streets_sha1")[0] ?? "") : "",
  };
}

function asType<T extends ArrayBufferView>(v: unknown, ctor: { new (n: number): T; name: string }, what: string): T {
  if (v instanceof ctor) return v;
  if (ArrayBuffer.isView(v) && (v as unknown as { length: number }).length === 0) return new ctor(0);
  throw new Error(`timetable: column ${what} is not ${ctor.name}`);
}

/**
 * The fare tables (FARE_TIMETABLE_TABLES) as they are in the file, views of its bytes where Arrow
 * gives them; a file without them (older layouts) has empty ones: no fares.
 */
function fareTables(tables: Map<string, Cols>): FareTimetableTables {
  const empty = { utf8: () => [] as string[], int32: () => new Int32Array(0), uint8: () => new Uint8Array(0), float64: () => new Float64Array(0) };
  const ctor = { int32: Int32Array, uint8: Uint8Array, float64: Float64Array };
  const out: Record<string, Record<string, unknown>> = {};
  for (const [tn, cols] of Object.entries(FARE_TIMETABLE_TABLES)) {
    const t = (out[tn] = {} as Record<string, unknown>);
    for (const [cn, kind] of Object.entries(cols) as [string, ColumnKind][]) {
      const v = tables.get(tn)?.get(cn);
      if (v === undefined) t[cn] = empty[kind]();
      else if (kind === "utf8") t[cn] = Array.isArray(v) ? v : [];
      else t[cn] = asType(v, ctor[kind] as { new (n: number): Int32Array | Uint8Array | Float64Array; name: string }, `${tn}.${cn}`);
    }
  }
  return out as FareTimetableTables;
}
