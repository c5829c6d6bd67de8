/**
 * FEATURE UNDER TEST: the planner core's packed stop times (types.ts packStopTimes / arrAt / depAt /
 * flagsAt): times and flags read back exactly, negative times too (the mirrored core negates them),
 * and a time the packing cannot hold is refused instead of wrapping around; a timetable file of the
 * previous format (stop times as three columns) loads into the same core as the packed file.
 */
import { describe, expect, test } from "bun:test";
import { RecordBatchReader, Table } from "apache-arrow";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Column, Tables } from "../../pipeline/timetable/assemble.ts";
import { tablesToIpc } from "../../pipeline/timetable/arrow-io.ts";
import { readManifest } from "../../pipeline/schema/manifest.ts";
import { loadTimetable } from "../../server/planner/timetable/arrow-loader.ts";
import { bartCaltrain } from "./support/real-dataset.ts";
import { MAX_STOP_TIME_SEC, NO_DROP_OFF, NO_PICKUP, arrAt, depAt, flagsAt, packStopTimes } from "../../server/planner/timetable/types.ts";

describe("packed stop times", () => {
  test("arrivals, departures and flags read back, negative times included", () => {
    const arr = [0, 1, 25 * 3600 + 7, -86399, -1, MAX_STOP_TIME_SEC, -MAX_STOP_TIME_SEC];
    const dep = [0, 2, 25 * 3600 + 60, -86000, 0, MAX_STOP_TIME_SEC, -MAX_STOP_TIME_SEC];
    const flags = [0, NO_PICKUP, NO_DROP_OFF, NO_PICKUP | NO_DROP_OFF, NO_PICKUP, 0, NO_DROP_OFF];
    const packed = packStopTimes(arr, dep, flags);
    expect(packed.length).toBe(2 * arr.length);
    for (let i = 0; i < arr.length; i++) {
      expect([arrAt(packed, i), depAt(packed, i), flagsAt(packed, i)]).toEqual([arr[i]!, dep[i]!, flags[i]!]);
      // both words carry the flags
      expect(packed[2 * i + 1]! & 3).toBe(flags[i]!);
    }
  });

  test("a time beyond the packable range is refused", () => {
    expect(() => packStopTimes([MAX_STOP_TIME_SEC + 1], [0], [0])).toThrow(RangeError);
    expect(() => packStopTimes([0], [-MAX_STOP_TIME_SEC - 1], [0])).toThrow(/stop time 0/);
  });
});

describe("timetable files of format 2 (stop times as arr, dep, flags columns)", () => {
  test("load into the same core as the packed format 3 file", async () => {
    const { dir } = await bartCaltrain();
    const bytes = readFileSync(join(dir, readManifest(dir).timetable!.path));
    // rewrite the file the way format 2 stored stop times
    const tables: Tables = {};
    for (const reader of RecordBatchReader.readAll(bytes)) {
      const name = reader.schema.metadata.get("table")!;
      const table = new Table(reader.schema, [...reader]);
      const cols: Record<string, Column> = {};
      for (const f of table.schema.fields) {
        const v = table.getChild(f.name)!;
        const a = v.toArray() as unknown;
        cols[f.name] = ArrayBuffer.isView(a) ? (a as Int32Array).slice() : Array.from(v as Iterable<unknown>, (x) => (x == null ? "" : String(x)));
      }
      tables[name] = cols;
    }
    const words = tables.stop_time_words!.word as Int32Array;
    const n = words.length / 2;
    const arr = new Int32Array(n), dep = new Int32Array(n), flags = new Uint8Array(n);
    for (let i = 0; i < n; i++) [arr[i], dep[i], flags[i]] = [arrAt(words, i), depAt(words, i), flagsAt(words, i)];
    delete tables.stop_time_words;
    tables.stop_times = { arr, dep, flags };
    const v3 = loadTimetable(bytes);
    const v2 = loadTimetable(tablesToIpc(tables));
    expect(n).toBeGreaterThan(10_000);
    expect(v2.core.stopTimes).toEqual(v3.core.stopTimes);
    for (const [k, v] of Object.entries(v3.core)) expect([k, (v2.core as unknown as Record<string, unknown>)[k]]).toEqual([k, v]);
    expect(v2.meta).toEqual(v3.meta);
  });
});
