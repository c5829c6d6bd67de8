/**
 * StopTimesColumns: one feed version's stop times as typed columns, the one form in which stop
 * times pass from their readers to the planner timetable. Its two producers state the same rules
 * side by side, here:
 * - readStopTimesColumns: DuckDB's reading of a catalog stop_times relation (the import's
 *   in-memory `stop_times` view, whichever reader filled it, or a version's stop_times.parquet);
 * - stopTimesFromFastRows: the fast reader's rows as the import appended them to st0 (its
 *   stop_times table), when st0 still holds exactly them.
 * Consumers: the timetable (pipeline/timetable/compile.ts concatenates the active versions' into
 * SourceData.stopTimes, which is this type). The Parquet writer writes the same rows, from st0.
 * Tests keep the producers equal: an import with the fast reader and one without prepare the same
 * timetable bytes, and both equal the compile from the Parquet files.
 */
import type { DuckDBConnection } from "@duckdb/node-api";
import { intColumns, scalar } from "../../duck.ts";
import type { FastRows } from "./append.ts";
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
}

/** The stop times of a catalog stop_times relation (a SQL relation: a table, view or read_parquet(...)). */
export async function readStopTimesColumns(conn: DuckDBConnection, stopTimes: string): Promise<StopTimesColumns> {
  // the import writes stop_times sorted by (trip_ref, stop_sequence); read in file order, and sort
  // only when a version written otherwise is not
  const sql = `SELECT coalesce(trip_ref, 0)::INTEGER, coalesce(stop_sequence, 0)::INTEGER, coalesce(stop_ref, 0)::INTEGER,
      coalesce(arrival_time, departure_time)::INTEGER, coalesce(departure_time, arrival_time)::INTEGER,
      coalesce(pickup_type, 0)::INTEGER, coalesce(drop_off_type, 0)::INTEGER
     FROM ${stopTimes} WHERE (arrival_time IS NOT NULL OR departure_time IS NOT NULL) AND stop_ref IS NOT NULL`;
  // row count (from the Parquet metadata: no scan): an upper bound, so the columns never grow
  const n = await scalar(conn, `SELECT count(*) AS n FROM ${stopTimes}`);
  let part = await intColumns(conn, sql, 7, n);
  if (!sortedByTrip(part[0]!, part[1]!)) part = await intColumns(conn, `${sql} ORDER BY 1, 2`, 7, n);
  const [trip, stopSequence, stop, arrSec, depSec, pickup, dropOff] = part as [Int32Array, Int32Array, Int32Array, Int32Array, Int32Array, Int32Array, Int32Array];
  return { trip, stopSequence, stop, arrSec, depSec, pickupType: new Uint8Array(pickup), dropOffType: new Uint8Array(dropOff) };
}

/**
 * The stop times of st0's rows as the fast reader's path appended them (FastRows), while st0 still
 * holds exactly those rows, in (tix, stop_sequence) order, each with a time: what
 * readStopTimesColumns reads of the `stop_times` view then, without reading it. `tripBase`: the
 * trip id of tix 1.
 */
export function stopTimesFromFastRows(r: FastRows, tripBase: number): StopTimesColumns {
  const n = r.tix.length;
  const trip = new Int32Array(n), arrSec = new Int32Array(n), depSec = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    trip[i] = tripBase + r.tix[i]! - 1;
    const a = r.arr[i]!, d = r.dep[i]!;
    arrSec[i] = a !== NULL_INT ? a : d;
    depSec[i] = d !== NULL_INT ? d : a;
  }
  return { trip, stopSequence: r.seq.slice(), stop: r.stopRef.slice(), arrSec, depSec, pickupType: orZero(r.pickup, n), dropOffType: orZero(r.dropOff, n) };
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

/** Several versions' stop times one after the other (one part is returned as it is). */
export function concatStopTimes(parts: StopTimesColumns[]): StopTimesColumns {
  if (parts.length === 1) return parts[0]!;
  const cat = <A extends Int32Array | Uint8Array>(pick: (p: StopTimesColumns) => A, make: (n: number) => A): A => {
    const out = make(parts.reduce((n, p) => n + pick(p).length, 0));
    let at = 0;
    for (const p of parts) {
      out.set(pick(p), at);
      at += pick(p).length;
    }
    return out;
  };
  const i32 = (n: number) => new Int32Array(n), u8 = (n: number) => new Uint8Array(n);
  return {
    trip: cat((p) => p.trip, i32), stopSequence: cat((p) => p.stopSequence, i32), stop: cat((p) => p.stop, i32),
    arrSec: cat((p) => p.arrSec, i32), depSec: cat((p) => p.depSec, i32),
    pickupType: cat((p) => p.pickupType, u8), dropOffType: cat((p) => p.dropOffType, u8),
  };
}

/** (trip, stop_sequence) pairs are in ascending order. */
function sortedByTrip(trip: Int32Array, seq: Int32Array): boolean {
  for (let i = 1; i < trip.length; i++) if (trip[i]! < trip[i - 1]! || (trip[i] === trip[i - 1] && seq[i]! <= seq[i - 1]!)) return false;
  return true;
}
