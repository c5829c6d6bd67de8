/**
 * FEATURE UNDER TEST: the stop-times contract (pipeline/gtfs/stop-times/columns.ts), the one form in
 * which stop times pass from their readers to the Parquet writer and the timetable. Its two forms
 * are made from each other without a rule: the columns stored as the relation `stop_times`
 * (storeStopTimes) are the catalog's stop_times table column for column (the writer writes that
 * relation as it is), NULLs and dictionaries included, and reading the relation back
 * (readStopTimesColumns, as the timetable does on the DuckDB path and the compile from Parquet) gives
 * the planner's fields the columns had. On real feeds, the import of a file whose rows no check
 * changes makes the contract from the fast reader's rows without st0, and the import of one whose
 * rows a check changes goes through st0: both write what DuckDB's reading writes
 * (stop-times-fast.test.ts). The read of a relation goes a range of trips at a time: in pieces or
 * whole, from a sorted file or not, it gives the same columns.
 */
import { DuckDBInstance } from "@duckdb/node-api";
import { describe, expect, test } from "bun:test";
import { readStopTimesColumns, storeStopTimes, type StopTimesColumns } from "../../pipeline/gtfs/stop-times/columns.ts";
import { NULL_INT } from "../../pipeline/gtfs/stop-times/fast.ts";
import { inMemoryTables } from "../../pipeline/import/parquet.ts";
import { TABLE_BY_NAME } from "../../pipeline/schema/catalog.ts";
import { readManifest } from "../../pipeline/schema/manifest.ts";
import { importedDataset, tempDir } from "../support/dataset.ts";
import { join } from "node:path";

describe("stop-times contract", () => {
  test("columns stored as the relation are the catalog's stop_times rows, and read back as the same planner columns", async () => {
    const db = await DuckDBInstance.create(":memory:");
    const conn = await db.connect();
    // the import's ENUM types of trip and stop ids (tables/stop-times.ts): trips 101.., stops 7..
    await conn.run(`CREATE TYPE trip_enum AS ENUM ('t-a', 't-b'); CREATE TYPE stop_enum AS ENUM ('s1', 's2', 's3')`);
    const i32 = (a: number[]) => Int32Array.from(a);
    const cols: StopTimesColumns = {
      trip: i32([101, 101, 101, 102, 102]),
      stopSequence: i32([1, 2, 5, 0, 1]),
      stop: i32([7, 8, 9, 9, 7]),
      arrSec: i32([3600, 3700, 3900, 90000, 90060]),
      depSec: i32([3630, 3700, 3900, 90000, 90061]),
      pickupType: Uint8Array.from([0, 0, 1, 0, 0]),
      dropOffType: Uint8Array.from([1, 0, 0, 0, 0]),
      rest: {
        feedVersionId: 42, tripBase: 101, stopBase: 7,
        columns: {
          pickup_type: i32([NULL_INT, 0, 1, NULL_INT, 0]),
          drop_off_type: i32([1, NULL_INT, 0, 0, 0]),
          shape_dist_traveled: Float64Array.from([0, 1.5, NaN, 0, 2.25]),
          stop_headsign: { codes: i32([0, -1, 1, 0, 0]), values: ["Downtown", "Up 'town'"] },
        },
      },
    };
    expect(await storeStopTimes(conn, () => db.connect(), cols)).toBeNull();
    // the relation: the catalog's columns, in its order, its types once written (inMemoryTables casts as the writer does)
    const described = (await conn.runAndReadAll(`DESCRIBE SELECT * FROM ${inMemoryTables("stop_times")}`)).getRowObjectsJson();
    expect(described.map((r) => `${r.column_name} ${r.column_type}`)).toEqual(TABLE_BY_NAME.get("stop_times")!.columns.map((c) => `${c.name} ${c.type}`));
    const rows: unknown[] = (await conn.runAndReadAll(`SELECT * FROM ${inMemoryTables("stop_times")}`)).getRowObjectsJson();
    expect(rows).toEqual([
      { trip_ref: 101, trip_id: "t-a", stop_sequence: 1, stop_ref: 7, stop_id: "s1", arrival_time: 3600, departure_time: 3630, stop_headsign: "Downtown", pickup_type: null, drop_off_type: 1, shape_dist_traveled: 0 },
      { trip_ref: 101, trip_id: "t-a", stop_sequence: 2, stop_ref: 8, stop_id: "s2", arrival_time: 3700, departure_time: 3700, stop_headsign: null, pickup_type: 0, drop_off_type: null, shape_dist_traveled: 1.5 },
      { trip_ref: 101, trip_id: "t-a", stop_sequence: 5, stop_ref: 9, stop_id: "s3", arrival_time: 3900, departure_time: 3900, stop_headsign: "Up 'town'", pickup_type: 1, drop_off_type: 0, shape_dist_traveled: null },
      { trip_ref: 102, trip_id: "t-b", stop_sequence: 0, stop_ref: 9, stop_id: "s3", arrival_time: 90000, departure_time: 90000, stop_headsign: "Downtown", pickup_type: null, drop_off_type: 0, shape_dist_traveled: 0 },
      { trip_ref: 102, trip_id: "t-b", stop_sequence: 1, stop_ref: 7, stop_id: "s1", arrival_time: 90060, departure_time: 90061, stop_headsign: "Downtown", pickup_type: 0, drop_off_type: 0, shape_dist_traveled: 2.25 },
    ].map((r) => ({
      feed_version_id: 42, ...r, continuous_pickup: null, continuous_drop_off: null, timepoint: null, interpolated: 0,
      location_id: null, location_group_id: null, start_pickup_drop_off_window: null, end_pickup_drop_off_window: null, pickup_booking_rule_id: null, drop_off_booking_rule_id: null,
    })).map((r) => Object.fromEntries(TABLE_BY_NAME.get("stop_times")!.columns.map((c) => [c.name, (r as Record<string, unknown>)[c.name]]))));
    // read back: the planner's fields, as they were
    const back = await readStopTimesColumns(conn, inMemoryTables("stop_times"));
    const plain = (c: StopTimesColumns) => JSON.stringify([c.trip, c.stopSequence, c.stop, c.arrSec, c.depSec, c.pickupType, c.dropOffType].map((a) => [...a]));
    expect(plain(back)).toBe(plain(cols));
    conn.closeSync();
    db.closeSync();
  });

  test("a version's stop_times.parquet read in pieces of trips gives the columns read in one, sorted or not", async () => {
    const data = await importedDataset("compile-bart-caltrain", ["bart", "caltrain"], { timetable: false });
    const db = await DuckDBInstance.create(":memory:");
    const conn = await db.connect();
    const plain = (c: StopTimesColumns) => [c.trip, c.stopSequence, c.stop, c.arrSec, c.depSec, c.pickupType, c.dropOffType].map((a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString("base64"));
    for (const v of readManifest(data).versions) {
      const file = join(data, v.path, "stop_times.parquet");
      const whole = await readStopTimesColumns(conn, `read_parquet('${file}')`);
      const [[n]] = (await conn.runAndReadAll(`SELECT count(*)::INTEGER FROM read_parquet('${file}')`)).getRows() as number[][];
      expect(whole.trip.length).toBe(n!);
      expect(new Set(whole.trip).size).toBeGreaterThan(100);
      // pieces of ~1,000 rows: dozens of trip ranges, in order
      expect(plain(await readStopTimesColumns(conn, `read_parquet('${file}')`, 1000))).toEqual(plain(whole));
      // the rows in another order: each piece sorted, the same columns
      const shuffled = join(tempDir(), "stop_times.parquet");
      await conn.run(`COPY (SELECT * FROM read_parquet('${file}') ORDER BY hash(trip_ref, stop_sequence)) TO '${shuffled}' (FORMAT parquet)`);
      expect(plain(await readStopTimesColumns(conn, `read_parquet('${shuffled}')`, 1000))).toEqual(plain(whole));
      expect(plain(await readStopTimesColumns(conn, `read_parquet('${shuffled}')`))).toEqual(plain(whole));
    }
    conn.closeSync();
    db.closeSync();
  });

  test("columns without the rest of the catalog row are not stored", async () => {
    const db = await DuckDBInstance.create(":memory:");
    const conn = await db.connect();
    const none = new Int32Array(0);
    expect(await storeStopTimes(conn, () => db.connect(), { trip: none, stopSequence: none, stop: none, arrSec: none, depSec: none, pickupType: new Uint8Array(), dropOffType: new Uint8Array() })).toMatch(/only the planner's columns/);
    conn.closeSync();
    db.closeSync();
  });
});
