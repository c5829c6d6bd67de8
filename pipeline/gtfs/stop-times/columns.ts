/**
 * The stop-times contract: one feed version's stop times as they leave the import's checks, the one
 * form in which stop times pass from their readers to both consumers, the Parquet writer
 * (stop_times.parquet) and the planner timetable. It has two forms, each made from the other by a
 * conversion that applies no rule, only the layout:
 * - the columns, StopTimesColumns: typed arrays (the planner's fields, and `rest`, the other
 *   catalog columns, when the producer of this form gives them);
 * - the relation `stop_times` in the import's database: the catalog's stop_times table
 *   (pipeline/schema/catalog.ts), column for column, which the Parquet writer writes as it is
 *   (pipeline/import/parquet.ts writeParquet).
 * storeStopTimes makes the relation from the columns (into a table, as append.ts puts the fast
 * reader's columns into DuckDB, then the constant columns); readStopTimesColumns reads the
 * columns from a relation (also a version's stop_times.parquet, for the compile).
 *
 * Its two producers, side by side here, make it once per import, when the checks
 * (../tables/trip-check.ts) have left the rows final, each in the form its input is in:
 * - stopTimesFromFastRows: the fast reader's rows, when no check changes any of them (the usual
 *   case: every MTA feed): the columns, with `rest`. The stop_times module stores them (storeStopTimes)
 *   instead of making st0 at all; stop_times.parquet is written from them, the timetable takes them as they are.
 * - stopTimesOverSt0: st0 after the checks (the DuckDB readers' rows, or the fast reader's when a
 *   check changed some: a trip skipped, a time interpolated): the relation, a view over st0.
 *   stop_times.parquet is written from it; the timetable reads its columns (readStopTimesColumns).
 * The rules (trip_ref from tix, a missing time taken from the other, the columns the file lacks)
 * are stated once per producer, here; the consumers take one form or the other of the same rows.
 *
 * Why two forms, not the columns only: st0's rows are in DuckDB already; reading every column of
 * them (strings too) into arrays only to insert them again for the Parquet writer would add a read
 * and an insert of every row to the DuckDB path and change no value (on bus_bk's 2.4 M rows the
 * insert alone takes 0.15-0.2 s and reading the planner's 7 columns 0.2 s, in a 3 s import when its
 * file is quoted). And the fast reader's rows are arrays already: they go into DuckDB once, as the
 * relation's table (st0 was made of them before, the relation a view over it), so that path does
 * no more work than before either (BENCHMARKS.md: bus_bk 2.17 -> 2.11 s, subway 1.21 s both).
 * Tests keep the producers equal: an import with the fast reader and one without write the same
 * stop_times.parquet and prepare the same timetable bytes, and both equal the compile from the Parquet files.
 */
import type { DuckDBConnection } from "@duckdb/node-api";
import { intColumns, intColumnsInto, scalar } from "../../duck.ts";
import { TABLE_BY_NAME } from "../../schema/catalog.ts";
import type { AppendColumn, FastRows } from "./append.ts";
import { NULL_INT } from "./fast.ts";

/**
 * Stop times in (trip, stop_sequence) order, only those with a stop and a time (after the import
 * every stop time with a stop has both: missing ones are interpolated; GTFS-Flex stop_times, with a
 * zone or group instead of a stop and a window instead of times, are left out: the planner ignores flex service).
 */
export interface StopTimesColumns {
  /** stop time → trip (trips.id, stop_times.trip_ref) */
  trip: Int32Array;
  /** stop time → GTFS stop_sequence */
  stopSequence: Int32Array;
  /** stop time → stop (stops.id, stop_times.stop_ref) */
  stop: Int32Array;
  /** stop time → arrival and departure, seconds since the service day's start; one missing is the other */
  arrSec: Int32Array;
  depSec: Int32Array;
  /** stop time → GTFS pickup_type and drop_off_type, 0 when empty */
  pickupType: Uint8Array;
  dropOffType: Uint8Array;
  /**
   * The rest of each row's catalog columns, from the producer that makes this form
   * (stopTimesFromFastRows; its rows are then all the version's, none without a stop or a time):
   * what storeStopTimes makes the relation of. A read of a relation gives the planner's fields only.
   */
  rest?: StopTimesRest;
}

/** The catalog columns of StopTimesColumns' rows beyond the planner's fields. */
export interface StopTimesRest {
  /** feed_version_id */
  feedVersionId: number;
  /**
   * trip_id and stop_id: values of the ENUM types trip_enum and stop_enum (../tables/stop-times.ts),
   * whose codes are trip - tripBase and stop - stopBase
   */
  tripBase: number;
  stopBase: number;
  /**
   * the other catalog columns the file has, by name (those it lacks are NULL, interpolated is 0):
   * integers (NULL_INT: NULL), doubles (NaN: NULL), strings as a dictionary
   */
  columns: Record<string, Int32Array | Float64Array | DictColumn>;
}

/** A string column as codes into its distinct values (-1: NULL). */
export interface DictColumn {
  codes: Int32Array;
  values: readonly string[];
}

// ---- the producers

/**
 * The stop times of the fast reader's rows (FastRows, in (tix, stop_sequence) order) when no check
 * changes them (append.ts fastTripCheck: each row has a time, a known trip and stop), as the
 * relation over st0 (stopTimesOverSt0) would have them: trip_ref = tripBase + tix - 1, a missing
 * time the other, empty pickup/drop-off types 0 for the planner (and NULL in `rest`). `tripBase`:
 * the trip id of tix 1; `feedVersionId`: the version's id.
 */
export function stopTimesFromFastRows(r: FastRows, tripBase: number, feedVersionId: number): StopTimesColumns {
  const f = r.fast;
  const n = f.rows;
  const trip = new Int32Array(n), arrSec = new Int32Array(n), depSec = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    trip[i] = tripBase + r.tix[i]! - 1;
    const a = f.arr[i]!, d = f.dep[i]!;
    arrSec[i] = a !== NULL_INT ? a : d;
    depSec[i] = d !== NULL_INT ? d : a;
  }
  const columns: StopTimesRest["columns"] = {};
  for (const [c] of r.optional) {
    columns[c] = c === "stop_headsign" ? { codes: f.headsign!, values: f.headsigns ?? [] } : c === "shape_dist_traveled" ? f.shapeDist! : f.ints[c]!;
  }
  return {
    trip, stopSequence: f.seq, stop: r.stopRef, arrSec, depSec, pickupType: orZero(f.ints.pickup_type, n), dropOffType: orZero(f.ints.drop_off_type, n),
    rest: { feedVersionId, tripBase, stopBase: r.stopBase, columns },
  };
}

/**
 * The relation `stop_times` over st0 once the checks are done (a view: st0 is not changed after
 * it): trip_ref = tripBase + tix - 1, the times as the checks left them (every one filled), the
 * optional and GTFS-Flex columns st0 has (`has`; the others NULL), `interpolated` when a time was
 * interpolated (st0's column; else 0).
 */
export async function stopTimesOverSt0(
  conn: DuckDBConnection, o: { feedVersionId: number; tripBase: number; has: (col: string) => boolean; interpolated: boolean },
): Promise<void> {
  const kept = TABLE_BY_NAME.get("stop_times")!.columns.filter((c) => c.name !== "interpolated" && o.has(c.name)).map((c) => [c.name, `st.${c.name}`]);
  await conn.run(`CREATE VIEW stop_times AS ${catalogRelation(o.feedVersionId, "st0 st", {
    ...Object.fromEntries(kept),
    trip_ref: `(${o.tripBase} + st.tix - 1)::INTEGER`, trip_id: "st.trip_id", stop_sequence: "st.seq::INTEGER", stop_ref: "st.stop_ref", stop_id: "st.stop_id",
    arrival_time: "st.arr::INTEGER", departure_time: "st.dep::INTEGER", ...(o.interpolated ? { interpolated: "st.interpolated::INTEGER" } : {}),
  })}`);
}

/** An Int32 column as bytes, NULL_INT as 0 (a plain loop: Uint8Array.from with a map function is 20x slower). */
function orZero(c: Int32Array | undefined, n: number): Uint8Array {
  const out = new Uint8Array(n);
  if (c) {
    for (let i = 0; i < n; i++) {
      const v = c[i]!;
      out[i] = v === NULL_INT ? 0 : v;
    }
  }
  return out;
}

// ---- the conversions

/**
 * The SQL of the relation `stop_times`: the catalog's stop_times columns in its order, each the
 * expression `expr` gives it over `from`, else NULL (interpolated: 0).
 */
function catalogRelation(feedVersionId: number, from: string, expr: Record<string, string>): string {
  const cols = TABLE_BY_NAME.get("stop_times")!.columns.map((c) =>
    c.name === "feed_version_id" ? `${feedVersionId}::INTEGER AS feed_version_id` : `${expr[c.name] ?? (c.name === "interpolated" ? "0" : "NULL")}${expr[c.name] ? "" : `::${c.type}`} AS ${c.name}`);
  return `SELECT ${cols.join(", ")} FROM ${from}`;
}

/**
 * Makes the relation `stop_times` from `cols` (with `rest`): its columns into the table
 * stop_time_rows, in this order (append.ts insertTable), and the view of the catalog's columns
 * over it. null when done, else why not (nothing is left created).
 */
export async function storeStopTimes(conn: DuckDBConnection, connect: () => Promise<DuckDBConnection>, cols: StopTimesColumns): Promise<string | null> {
  const rest = cols.rest;
  if (!rest) return "the stop times have only the planner's columns";
  // (loaded only by the fast path, which has loaded it already: it loads DuckDB's binding)
  const { dictionaryCodes, dictionaryType, enumCodes, insertTable, nullableDoubles, nullableInts } = await import("./append.ts");
  const types = new Map(TABLE_BY_NAME.get("stop_times")!.columns.map((c) => [c.name, c.type]));
  const spec: [name: string, type: string][] = [
    ["trip_ref", "INTEGER"], ["trip_id", "trip_enum"], ["stop_sequence", "INTEGER"], ["stop_ref", "INTEGER"], ["stop_id", "stop_enum"],
    ["arrival_time", "INTEGER"], ["departure_time", "INTEGER"],
  ];
  const data: AppendColumn[] = [
    { data: cols.trip }, enumCodes(cols.trip, rest.tripBase), { data: cols.stopSequence }, { data: cols.stop }, enumCodes(cols.stop, rest.stopBase),
    { data: cols.arrSec }, { data: cols.depSec },
  ];
  const made: string[] = [];
  for (const [c, v] of Object.entries(rest.columns)) {
    if (v instanceof Int32Array) {
      spec.push([c, types.get(c)!]);
      data.push(nullableInts(v));
    } else if (v instanceof Float64Array) {
      spec.push([c, types.get(c)!]);
      data.push(nullableDoubles(v));
    } else {
      const type = await dictionaryType(conn, `stop_times_${c}`, v.values);
      if (type) made.push(type);
      spec.push([c, type ?? "VARCHAR"]);
      data.push(dictionaryCodes(v.codes, type));
    }
  }
  const why = await insertTable(conn, connect, "stop_time_rows", spec, cols.trip.length, data);
  if (why !== null) {
    for (const t of made) await conn.run(`DROP TYPE IF EXISTS ${t}`);
    return why;
  }
  await conn.run(`CREATE VIEW stop_times AS ${catalogRelation(rest.feedVersionId, "stop_time_rows", Object.fromEntries(spec.map(([c]) => [c, c])))}`);
  return null;
}

/**
 * Drops the relation `stop_times` and the table under it (stop_time_rows or st0), the largest of
 * the import's tables, once nothing reads it any more: its Parquet file written, the build, the
 * validation and the timetable done with it.
 */
export async function dropStopTimes(conn: DuckDBConnection): Promise<void> {
  await conn.run(`DROP VIEW IF EXISTS stop_times; DROP TABLE IF EXISTS stop_time_rows; DROP TABLE IF EXISTS st0`);
}

/** Rows of stop times read per query (readStopTimesInto): ~60 MB of DuckDB's result at a time. */
const PIECE_ROWS = 1 << 21;

/** The stop times of a catalog stop_times relation (a SQL relation: a table, view or read_parquet(...)). */
export async function readStopTimesColumns(conn: DuckDBConnection, stopTimes: string, pieceRows = PIECE_ROWS): Promise<StopTimesColumns> {
  const n = await countStopTimes(conn, stopTimes);
  const out = allocStopTimes(n);
  const m = await readStopTimesInto(conn, stopTimes, out, 0, pieceRows);
  return m === n ? out : stopTimesRange(out, 0, m);
}

/** The rows of a stop_times relation: at least as many as readStopTimesInto reads (Parquet: from its metadata, no scan). */
export const countStopTimes = (conn: DuckDBConnection, stopTimes: string): Promise<number> => scalar(conn, `SELECT count(*) AS n FROM ${stopTimes}`);

/** Planner-field columns for `n` stop times, zeroed. */
export function allocStopTimes(n: number): StopTimesColumns {
  return {
    trip: new Int32Array(n), stopSequence: new Int32Array(n), stop: new Int32Array(n), arrSec: new Int32Array(n), depSec: new Int32Array(n),
    pickupType: new Uint8Array(n), dropOffType: new Uint8Array(n),
  };
}

/** Rows [from, to) of the columns, as views (no copy). */
export function stopTimesRange(c: StopTimesColumns, from: number, to: number): StopTimesColumns {
  return {
    trip: c.trip.subarray(from, to), stopSequence: c.stopSequence.subarray(from, to), stop: c.stop.subarray(from, to),
    arrSec: c.arrSec.subarray(from, to), depSec: c.depSec.subarray(from, to), pickupType: c.pickupType.subarray(from, to), dropOffType: c.dropOffType.subarray(from, to),
  };
}

/**
 * The stop times of a stop_times relation written into `out` from row `at` on (the arrays must hold
 * countStopTimes rows from there), sorted by (trip, stop_sequence); the number of rows. Read in
 * pieces of about `pieceRows` rows, each a range of trip_ref (in ascending order), so that DuckDB
 * never holds more than one piece's result (a whole feed's at once was 28 bytes a stop time beside
 * the arrays), and a sorted file's row groups outside the range are skipped. The import writes
 * stop_times sorted by (trip_ref, stop_sequence): each piece is read in file order, and sorted only
 * when a version written otherwise is not (the pieces sorted one by one then).
 */
export async function readStopTimesInto(conn: DuckDBConnection, stopTimes: string, out: StopTimesColumns, at: number, pieceRows = PIECE_ROWS): Promise<number> {
  const kept = "(arrival_time IS NOT NULL OR departure_time IS NOT NULL) AND stop_ref IS NOT NULL";
  const [lo, hi, n] = (await intColumns(conn, `SELECT coalesce(min(coalesce(trip_ref, 0)), 0)::INTEGER, coalesce(max(coalesce(trip_ref, 0)), -1)::INTEGER, count(*)::INTEGER FROM ${stopTimes} WHERE ${kept}`, 3, 1))
    .map((c) => c[0] ?? 0) as [number, number, number];
  if (n === 0) return 0;
  const pieces = Math.max(1, Math.ceil(n / pieceRows));
  const width = Math.ceil((hi - lo + 1) / pieces);
  const into = [out.trip, out.stopSequence, out.stop, out.arrSec, out.depSec, out.pickupType, out.dropOffType];
  const read = async (order: string) => {
    let m = 0;
    for (let a = lo; a <= hi; a += width) {
      const b = Math.min(hi, a + width - 1);
      const range = `(trip_ref BETWEEN ${a} AND ${b}${a <= 0 && 0 <= b ? " OR trip_ref IS NULL" : ""})`;
      m += await intColumnsInto(conn, `SELECT coalesce(trip_ref, 0)::INTEGER, coalesce(stop_sequence, 0)::INTEGER, coalesce(stop_ref, 0)::INTEGER,
          coalesce(arrival_time, departure_time)::INTEGER, coalesce(departure_time, arrival_time)::INTEGER,
          coalesce(pickup_type, 0)::INTEGER, coalesce(drop_off_type, 0)::INTEGER
         FROM ${stopTimes} WHERE ${kept} AND ${range}${order}`, into, at + m);
    }
    return m;
  };
  const m = await read("");
  if (sortedByTrip(out.trip.subarray(at, at + m), out.stopSequence.subarray(at, at + m))) return m;
  return read(" ORDER BY 1, 2");
}

/** The planner's fields of `from` copied into `out` from row `at` on; the row after them. */
export function copyStopTimes(from: StopTimesColumns, out: StopTimesColumns, at: number): number {
  out.trip.set(from.trip, at);
  out.stopSequence.set(from.stopSequence, at);
  out.stop.set(from.stop, at);
  out.arrSec.set(from.arrSec, at);
  out.depSec.set(from.depSec, at);
  out.pickupType.set(from.pickupType, at);
  out.dropOffType.set(from.dropOffType, at);
  return at + from.trip.length;
}

/** (trip, stop_sequence) pairs are in ascending order. */
function sortedByTrip(trip: Int32Array, seq: Int32Array): boolean {
  for (let i = 1; i < trip.length; i++) if (trip[i]! < trip[i - 1]! || (trip[i] === trip[i - 1] && seq[i]! <= seq[i - 1]!)) return false;
  return true;
}
