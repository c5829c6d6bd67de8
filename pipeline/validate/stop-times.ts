/**
 * The stop-time rules, in one linear pass in JavaScript over the stop times as typed columns in
 * (trip, stop_sequence) order: stop_time_with_arrival_before_previous_departure_time,
 * stop_time_with_only_arrival_or_departure_time, missing_trip_edge,
 * decreasing_or_equal_stop_time_distance, stop_time_timepoint_without_times,
 * missing_timepoint_value, fast_travel_between_consecutive_stops and
 * start_and_end_range_out_of_order (arrival after departure). The pass also leaves two small
 * tables for the SQL rules: `vst_trip` (each trip's stop-time count and first and last time) and
 * `vst_stop` (the stops some stop time serves).
 *
 * GTFS-Flex stop times (a zone or group instead of a stop, a window instead of times) are left out.
 * The stop times come from v_stop_times (the CLI: every row with its CSV row number, trips and
 * stops keyed by their rows in trips.txt and stops.txt), from the fast reader's columns in that same
 * form (the CLI, when the fast reader stood in for the file: fast-stop-times.ts), or from the
 * import's stop times (keyed by the catalog's trip and stop ids; no CSV row numbers; a time the
 * import interpolated counts as missing, one it copied from the other of arrival/departure does
 * not): the stop-times contract's columns when the import has them in memory, else its relation.
 * (A window query in DuckDB over bus_bk's 2.4 M rows took seconds; reading the columns and this pass, a fraction.)
 */
import type { DuckDBConnection } from "@duckdb/node-api";
import { haversineM } from "../../shared/geo.ts";
import { numColumns } from "../duck.ts";
import type { StopTimesColumns } from "../gtfs/stop-times/columns.ts";
import { NULL_INT } from "../gtfs/stop-times/fast.ts";
import type { Notices } from "./notices.ts";

/** MobilityData's speed limits per route type (km/h), 200 for other types. */
function maxKph(routeType: number): number {
  switch (routeType) {
    case 0: return 100;
    case 2: return 500;
    case 1: case 12: case 3: case 11: return 150;
    case 4: return 80;
    case 5: return 30;
    case 6: case 7: return 50;
    default: return 200;
  }
}

const hms = (s: number) => `${String(Math.floor(s / 3600)).padStart(2, "0")}:${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}:${String(s % 60).padStart(2, "0")}`;

export interface TripInfo { id: string; line: number; routeId: string | null; routeType: number }
export interface StopInfo { id: string; name: string | null; lat: number; lon: number }

/** The stop times as typed columns in (trip, stop_sequence) order: trip and stop keys, times in seconds, -1 = missing. */
export interface StopTimeColumns {
  tk: Int32Array; seq: Int32Array; sk: Int32Array; arr: Int32Array; dep: Int32Array; tp: Int32Array; line: Int32Array; dist: Float64Array;
}

/** What the per-trip checks read and fill in one pass: the columns, the dictionaries, the notices and the pass's tallies. */
interface StopTimePass {
  cols: StopTimeColumns;
  trips: Map<number, TripInfo>;
  stops: Map<number, StopInfo>;
  notices: Notices;
  /** missing_timepoint_value applies (a timepoint column, read from v_stop_times) */
  checkMissingTimepoint: boolean;
  /** each trip's id, stop-time count, first and last time (-1 = none): vst_trip */
  tripStats: [string, number, number, number][];
  /** the stop keys some stop time serves: vst_stop */
  usedStops: Set<number>;
  /** haversine metres by stop-key pair */
  distCache: Map<number, number>;
  row(i: number): number | null;
  tripId(i: number): string;
  stopId(i: number): string | null;
}

/**
 * stop_times.txt's rows as the pass reads them from v_stop_times, made some other way (the CLI's
 * fast reader: fast-stop-times.ts): the columns, keyed as from v_stop_times, and the trips and stops by key.
 */
export interface PreparedStopTimes {
  cols: StopTimeColumns;
  trips: Map<number, TripInfo>;
  stops: Map<number, StopInfo>;
}

export interface StopTimesInput {
  /** the import's relation (else v_stop_times) */
  relation?: string;
  /** with `relation`: the stop-times contract's columns of the same rows, when the import has them in memory (they are read instead of the relation) */
  contract?: StopTimesColumns | null;
  /** without `relation`: v_stop_times' rows, made otherwise (v_stop_times is then empty) */
  prepared?: PreparedStopTimes | null;
  hasTimepointColumn: boolean;
}

/** The stop-time rules over every trip's stop times, then the tables they leave for the SQL rules. */
export async function checkStopTimes(conn: DuckDBConnection, notices: Notices, opts: StopTimesInput): Promise<void> {
  const fromImport = Boolean(opts.relation);
  const contract = opts.relation && opts.contract?.rest ? opts.contract : null;
  const { trips, stops } = opts.prepared && !opts.relation ? opts.prepared : await tripAndStopDictionaries(conn, opts.relation);
  const cols = opts.prepared && !opts.relation ? opts.prepared.cols : (contract && columnsOfContract(contract)) || await stopTimeColumns(conn, opts.relation);
  const { tk, sk, line } = cols;
  const pass: StopTimePass = {
    cols, trips, stops, notices, checkMissingTimepoint: opts.hasTimepointColumn && !fromImport, tripStats: [], usedStops: new Set<number>(), distCache: new Map<number, number>(),
    row: (i) => (line[i]! >= 0 ? line[i]! : null),
    tripId: (i) => trips.get(tk[i]!)?.id ?? String(tk[i]),
    stopId: (i) => stops.get(sk[i]!)?.id ?? null,
  };
  const n = tk.length;
  for (let s = 0; s < n;) {
    let e = s + 1;
    while (e < n && tk[e] === tk[s]) e++;
    checkTrip(pass, s, e);
    s = e;
  }
  await writePassTables(conn, opts.relation, contract !== null, pass.tripStats, pass.usedStops, stops);
}

/**
 * The trips and stops by the key the stop times carry: the import's ids (from its ENUM dictionaries
 * when it has them) or, from v_stop_times, their first row in trips.txt and stops.txt.
 */
export async function tripAndStopDictionaries(conn: DuckDBConnection, relation: string | undefined): Promise<{ trips: Map<number, TripInfo>; stops: Map<number, StopInfo> }> {
  const trips = new Map<number, TripInfo>();
  const stops = new Map<number, StopInfo>();
  if (relation && (await enumDictionaries(conn, relation, trips, stops))) return { trips, stops };
  // (the import's trips and stops keyed as its stop times are: the relation's own ids, joined to trips.txt and stops.txt)
  const tripSql = relation
    ? `SELECT k.k, k.trip_id, coalesce(v.line, -1) AS line, v.route_id, coalesce(TRY_CAST(r.route_type AS INTEGER), -1) AS rt
        FROM (SELECT trip_ref AS k, any_value(trip_id)::VARCHAR AS trip_id FROM ${relation} WHERE trip_ref IS NOT NULL GROUP BY trip_ref) k
        LEFT JOIN (SELECT trip_id, min(__line) AS line, any_value(route_id) AS route_id FROM v_trips GROUP BY trip_id) v USING (trip_id)
        LEFT JOIN (SELECT route_id, any_value(route_type) AS route_type FROM v_routes GROUP BY route_id) r ON r.route_id = v.route_id`
    : `SELECT min(t.__line) AS k, t.trip_id, min(t.__line) AS line, any_value(t.route_id) AS route_id, coalesce(TRY_CAST(any_value(r.route_type) AS INTEGER), -1) AS rt
        FROM v_trips t LEFT JOIN v_routes r USING (route_id) WHERE t.trip_id IS NOT NULL GROUP BY t.trip_id`;
  const stopSql = relation
    ? `SELECT k.k, k.stop_id, v.stop_name, coalesce(v.lat, 'NaN'::DOUBLE) AS lat, coalesce(v.lon, 'NaN'::DOUBLE) AS lon
        FROM (SELECT stop_ref AS k, any_value(stop_id)::VARCHAR AS stop_id FROM ${relation} WHERE stop_ref IS NOT NULL GROUP BY stop_ref) k
        LEFT JOIN (SELECT stop_id, any_value(stop_name) AS stop_name, TRY_CAST(any_value(stop_lat) AS DOUBLE) AS lat, TRY_CAST(any_value(stop_lon) AS DOUBLE) AS lon FROM v_stops GROUP BY stop_id) v USING (stop_id)`
    : `SELECT min(__line) AS k, stop_id, any_value(stop_name) AS stop_name, coalesce(TRY_CAST(any_value(stop_lat) AS DOUBLE), 'NaN'::DOUBLE) AS lat,
        coalesce(TRY_CAST(any_value(stop_lon) AS DOUBLE), 'NaN'::DOUBLE) AS lon FROM v_stops WHERE stop_id IS NOT NULL GROUP BY stop_id`;
  for (const r of (await conn.runAndReadAll(tripSql)).getRowObjectsJS() as { k: number; trip_id: string; line: number; route_id: string | null; rt: number }[]) {
    trips.set(Number(r.k), { id: r.trip_id, line: Number(r.line), routeId: r.route_id, routeType: Number(r.rt) });
  }
  for (const r of (await conn.runAndReadAll(stopSql)).getRowObjectsJS() as { k: number; stop_id: string; stop_name: string | null; lat: number; lon: number }[]) {
    stops.set(Number(r.k), { id: r.stop_id, name: r.stop_name, lat: Number(r.lat), lon: Number(r.lon) });
  }
  return { trips, stops };
}

/** The stop times with a stop (not GTFS-Flex) as columns in (trip, stop_sequence) order (the import's relation sorted only when it is not already). */
async function stopTimeColumns(conn: DuckDBConnection, relation: string | undefined): Promise<StopTimeColumns> {
  const rowsSql = (ordered: boolean) => relation
    ? `SELECT trip_ref AS tk, stop_sequence AS seq, stop_ref AS sk,
        CASE WHEN interpolated = 1 THEN -1 ELSE coalesce(arrival_time, -1) END AS arr, CASE WHEN interpolated = 1 THEN -1 ELSE coalesce(departure_time, -1) END AS dep,
        coalesce(timepoint, -1) AS tp, -1 AS line, coalesce(shape_dist_traveled, -1) AS dist
      FROM ${relation} WHERE stop_ref IS NOT NULL AND trip_ref IS NOT NULL AND stop_sequence IS NOT NULL${ordered ? " ORDER BY trip_ref, stop_sequence" : ""}`
    : `SELECT t.k AS tk, TRY_CAST(st.stop_sequence AS INTEGER) AS seq, coalesce(s.k, -1) AS sk, coalesce(gsecs(st.arrival_time), -1) AS arr, coalesce(gsecs(st.departure_time), -1) AS dep,
        coalesce(TRY_CAST(st.timepoint AS INTEGER), -1) AS tp, st.__line::INTEGER AS line, coalesce(TRY_CAST(st.shape_dist_traveled AS DOUBLE), -1) AS dist
      FROM v_stop_times st JOIN (SELECT trip_id, min(__line)::INTEGER AS k FROM v_trips GROUP BY trip_id) t USING (trip_id)
      LEFT JOIN (SELECT stop_id, min(__line)::INTEGER AS k FROM v_stops GROUP BY stop_id) s USING (stop_id)
      WHERE TRY_CAST(st.stop_sequence AS INTEGER) IS NOT NULL AND st.stop_id IS NOT NULL
        AND st.start_pickup_drop_off_window IS NULL AND st.end_pickup_drop_off_window IS NULL ORDER BY tk, seq`;
  const kinds = ["int", "int", "int", "int", "int", "int", "int", "double"] as const;
  let cols = await numColumns(conn, rowsSql(false), [...kinds], 1 << 20);
  if (relation && !sortedBy(cols[0] as Int32Array, cols[1] as Int32Array)) cols = await numColumns(conn, rowsSql(true), [...kinds], 1 << 20);
  const [tk, seq, sk, arr, dep, tp, line, dist] = cols as [Int32Array, Int32Array, Int32Array, Int32Array, Int32Array, Int32Array, Int32Array, Float64Array];
  return { tk, seq, sk, arr, dep, tp, line, dist };
}

/**
 * The pass's columns of the stop-times contract's (the import's fast reader's rows, which no check
 * changed: none interpolated, every one with a trip, a stop and a sequence), as stopTimeColumns
 * would read them from its relation; null when they are not in (trip, stop_sequence) order.
 */
function columnsOfContract(c: StopTimesColumns): StopTimeColumns | null {
  if (!sortedBy(c.trip, c.stopSequence)) return null;
  const n = c.trip.length;
  const tpIn = c.rest!.columns.timepoint, distIn = c.rest!.columns.shape_dist_traveled;
  const tp = new Int32Array(n).fill(-1), dist = new Float64Array(n).fill(-1);
  if (tpIn instanceof Int32Array) for (let i = 0; i < n; i++) if (tpIn[i] !== NULL_INT) tp[i] = tpIn[i]!;
  if (distIn instanceof Float64Array) for (let i = 0; i < n; i++) if (!Number.isNaN(distIn[i]!)) dist[i] = distIn[i]!;
  return { tk: c.trip, seq: c.stopSequence, sk: c.stop, arr: c.arrSec, dep: c.depSec, tp, line: new Int32Array(n).fill(-1), dist };
}

/** The rules over one trip's stop times, rows s..e-1, in stop_sequence order; its vst_trip tally. */
function checkTrip(pass: StopTimePass, s: number, e: number): void {
  const { tk, seq, sk, arr, dep, tp, dist } = pass.cols;
  const { notices, stops, usedStops, distCache, checkMissingTimepoint, row, tripId, stopId } = pass;
  const trip = pass.trips.get(tk[s]!);
  const limit = maxKph(trip?.routeType ?? -1);
  let lastDep = -1, lastDepRow = -1, lastDist = -1, lastDistRow = -1, t0 = -1, t1 = -1;
  let start = -1; // the speed rule's previous stop time (MobilityData moves it on only past a measurable stop)
  for (let i = s; i < e; i++) {
    const a = arr[i]!, d = dep[i]!;
    usedStops.add(sk[i]!);
    if (t0 < 0) t0 = d >= 0 ? d : a;
    if (a >= 0 || d >= 0) t1 = a >= 0 ? a : d;
    if (a >= 0 && lastDep >= 0 && a < lastDep) {
      notices.add("stop_time_with_arrival_before_previous_departure_time", { csvRowNumber: row(i), prevCsvRowNumber: row(lastDepRow), tripId: tripId(i), arrivalTime: hms(a), departureTime: hms(lastDep) });
    }
    if (a >= 0 && d >= 0 && a > d) notices.add("start_and_end_range_out_of_order", { filename: "stop_times.txt", csvRowNumber: row(i) });
    if ((a < 0) !== (d < 0)) notices.add("stop_time_with_only_arrival_or_departure_time", { csvRowNumber: row(i), tripId: tripId(i), stopSequence: seq[i]!, specifiedField: a >= 0 ? "arrival_time" : "departure_time" });
    if (i === s || i === e - 1) {
      if (a < 0) notices.add("missing_trip_edge", { csvRowNumber: row(i), stopSequence: seq[i]!, tripId: tripId(i), specifiedField: "arrival_time" });
      if (d < 0) notices.add("missing_trip_edge", { csvRowNumber: row(i), stopSequence: seq[i]!, tripId: tripId(i), specifiedField: "departure_time" });
    }
    const ds = dist[i]!;
    if (ds >= 0) {
      if (lastDist >= 0 && ds <= lastDist) {
        notices.add("decreasing_or_equal_stop_time_distance", {
          tripId: tripId(i), stopId: stopId(i), csvRowNumber: row(i), shapeDistTraveled: ds, stopSequence: seq[i]!,
          prevCsvRowNumber: row(lastDistRow), prevShapeDistTraveled: lastDist, prevStopSequence: seq[lastDistRow]!,
        });
      }
      lastDist = ds;
      lastDistRow = i;
    }
    if (tp[i] === 1) {
      if (a < 0) notices.add("stop_time_timepoint_without_times", { csvRowNumber: row(i), tripId: tripId(i), stopSequence: seq[i]!, specifiedField: "arrival_time" });
      if (d < 0) notices.add("stop_time_timepoint_without_times", { csvRowNumber: row(i), tripId: tripId(i), stopSequence: seq[i]!, specifiedField: "departure_time" });
    }
    if (checkMissingTimepoint && tp[i]! < 0 && (a >= 0 || d >= 0)) notices.add("missing_timepoint_value", { csvRowNumber: row(i), tripId: tripId(i), stopSequence: seq[i]! });
    // speed from the previous measurable stop time
    if (start >= 0) {
      const p = stops.get(sk[start]!), q = stops.get(sk[i]!);
      if (p && q && Number.isFinite(p.lat + p.lon + q.lat + q.lon)) {
        if (dep[start]! >= 0 && a >= 0) {
          const key = sk[start]! * 4194304 + sk[i]!;
          let m = distCache.get(key);
          if (m === undefined) distCache.set(key, (m = haversineM(p.lat, p.lon, q.lat, q.lon)));
          const kph = (m / 1000 * 3600) / travelSeconds(a, dep[start]!);
          if (kph > limit) fastTravelNotice(pass, trip, start, i, m / 1000, kph);
          start = i;
        }
      }
    } else start = i;
    if (d >= 0) { lastDep = d; lastDepRow = i; }
  }
  pass.tripStats.push([trip?.id ?? String(tk[s]), e - s, t0, t1]);
}

/** fast_travel_between_consecutive_stops from stop time `from` to stop time `to` of one trip. */
function fastTravelNotice(pass: StopTimePass, trip: TripInfo | undefined, from: number, to: number, km: number, kph: number): void {
  const { seq, sk, arr, dep } = pass.cols;
  const { row } = pass;
  const p = pass.stops.get(sk[from]!)!, q = pass.stops.get(sk[to]!)!;
  pass.notices.add("fast_travel_between_consecutive_stops", {
    tripCsvRowNumber: trip && trip.line >= 0 ? trip.line : null, tripId: pass.tripId(to), routeId: trip?.routeId ?? null, speedKph: Math.round(kph * 100) / 100,
    distanceKm: Math.round(km * 1000) / 1000, csvRowNumber1: row(from), stopSequence1: seq[from]!, stopId1: p.id, stopName1: p.name,
    departureTime1: hms(dep[from]!), csvRowNumber2: row(to), stopSequence2: seq[to]!, stopId2: q.id, stopName2: q.name, arrivalTime2: hms(arr[to]!),
  });
}

/** The pass's two tables for the SQL rules (vst_trip, vst_stop), and vst_flex: the trips with GTFS-Flex stop times. */
async function writePassTables(
  conn: DuckDBConnection, relation: string | undefined, fromContract: boolean, tripStats: [string, number, number, number][], usedStops: Set<number>, stops: Map<number, StopInfo>,
): Promise<void> {
  await conn.run(`CREATE OR REPLACE TABLE vst_trip (trip_id VARCHAR, n INTEGER, t0 INTEGER, t1 INTEGER); CREATE OR REPLACE TABLE vst_stop (stop_id VARCHAR)`);
  // trips with GTFS-Flex stop times (left out above): not unused (the contract's columns are all the
  // version's stop times, each with a stop: none)
  await conn.run(fromContract ? `CREATE OR REPLACE TABLE vst_flex (trip_id VARCHAR)` : relation
    ? `CREATE OR REPLACE TABLE vst_flex AS SELECT DISTINCT trip_id::VARCHAR AS trip_id FROM ${relation} WHERE stop_ref IS NULL`
    : `CREATE OR REPLACE TABLE vst_flex AS SELECT DISTINCT trip_id FROM v_stop_times WHERE stop_id IS NULL OR start_pickup_drop_off_window IS NOT NULL OR end_pickup_drop_off_window IS NOT NULL`);
  const ta = await conn.createAppender("vst_trip");
  for (const [id, cnt, a, b] of tripStats) {
    ta.appendVarchar(id);
    ta.appendInteger(cnt);
    if (a >= 0) ta.appendInteger(a); else ta.appendNull();
    if (b >= 0) ta.appendInteger(b); else ta.appendNull();
    ta.endRow();
  }
  ta.closeSync();
  const sa = await conn.createAppender("vst_stop");
  for (const k of usedStops) {
    const id = stops.get(k)?.id;
    if (id === undefined) continue;
    sa.appendVarchar(id);
    sa.endRow();
  }
  sa.closeSync();
}

/**
 * The import's trip and stop dictionaries when its relation holds trip_id and stop_id as ENUM values
 * whose codes are the ids less a base (pipeline/gtfs/tables/stop-times.ts): the enums' values, the
 * base from one row, and trips.txt / stops.txt by id (grouping the relation's 2.4 M rows by id took
 * 1-2 s on bus_bk). false (nothing filled) when the relation is not in that form.
 */
async function enumDictionaries(conn: DuckDBConnection, rel: string, trips: Map<number, TripInfo>, stops: Map<number, StopInfo>): Promise<boolean> {
  let row: { tb: number; sb: number; tv: string[]; sv: string[] } | undefined;
  try {
    row = (await conn.runAndReadAll(`SELECT trip_ref - enum_code(trip_id) AS tb, stop_ref - enum_code(stop_id) AS sb,
        enum_range(trip_id)::VARCHAR[] AS tv, enum_range(stop_id)::VARCHAR[] AS sv FROM ${rel} WHERE trip_ref IS NOT NULL AND stop_ref IS NOT NULL LIMIT 1`)).getRowObjectsJS()[0] as typeof row;
  } catch {
    return false; // not ENUM columns
  }
  if (!row) return false;
  const tripRows = new Map<string, { line: number; route_id: string | null; rt: number }>();
  for (const r of (await conn.runAndReadAll(`SELECT t.trip_id, min(t.__line) AS line, any_value(t.route_id) AS route_id, coalesce(TRY_CAST(any_value(r.route_type) AS INTEGER), -1) AS rt
      FROM v_trips t LEFT JOIN v_routes r USING (route_id) WHERE t.trip_id IS NOT NULL GROUP BY t.trip_id`)).getRowObjectsJS() as { trip_id: string; line: number; route_id: string | null; rt: number }[]) {
    tripRows.set(r.trip_id, r);
  }
  const stopRows = new Map<string, { stop_name: string | null; lat: number; lon: number }>();
  for (const r of (await conn.runAndReadAll(`SELECT stop_id, any_value(stop_name) AS stop_name, coalesce(TRY_CAST(any_value(stop_lat) AS DOUBLE), 'NaN'::DOUBLE) AS lat,
      coalesce(TRY_CAST(any_value(stop_lon) AS DOUBLE), 'NaN'::DOUBLE) AS lon FROM v_stops WHERE stop_id IS NOT NULL GROUP BY stop_id`)).getRowObjectsJS() as { stop_id: string; stop_name: string | null; lat: number; lon: number }[]) {
    stopRows.set(r.stop_id, r);
  }
  row.tv.forEach((id, i) => {
    const t = tripRows.get(id);
    trips.set(Number(row!.tb) + i, { id, line: t ? Number(t.line) : -1, routeId: t?.route_id ?? null, routeType: t ? Number(t.rt) : -1 });
  });
  row.sv.forEach((id, i) => {
    const s = stopRows.get(id);
    stops.set(Number(row!.sb) + i, { id, name: s?.stop_name ?? null, lat: s ? Number(s.lat) : NaN, lon: s ? Number(s.lon) : NaN });
  });
  return true;
}

/** MobilityData's travel time between two stop times: a minute when not positive, a minute more when both are whole minutes. */
function travelSeconds(arrival: number, departure: number): number {
  const t = arrival - departure;
  if (t <= 0) return 60;
  return arrival % 60 === 0 && departure % 60 === 0 ? t + 60 : t;
}

export function sortedBy(a: Int32Array, b: Int32Array): boolean {
  for (let i = 1; i < a.length; i++) if (a[i]! < a[i - 1]! || (a[i] === a[i - 1] && b[i]! < b[i - 1]!)) return false;
  return true;
}
