/**
 * FEATURE UNDER TEST: the timetable file's layout is the one pipeline/schema/timetable.ts declares:
 * the assembler writes every table and column of it, in its order (the file's bytes follow that
 * order), with the declared types; and the packed stop-time word reads back what was packed.
 */
import { describe, expect, test } from "bun:test";
import { arrAt, depAt, flagsAt, MAX_STOP_TIME_SEC, NO_DROP_OFF, NO_PICKUP, packStopTime, stopTimeFlags, TIMETABLE_TABLES } from "../../pipeline/schema/timetable.ts";
import { assembleTimetable } from "../../pipeline/timetable/assemble.ts";
import type { SourceData } from "../../pipeline/timetable/source.ts";

const empty: SourceData = {
  feeds: [], agencies: [], routes: [], stops: [], trips: [], calendars: [], frequencies: [], transfers: [], shapes: [],
  stopTimes: { trip: new Int32Array(), stopSequence: new Int32Array(), stop: new Int32Array(), arrSec: new Int32Array(), depSec: new Int32Array(), pickupType: new Uint8Array(), dropOffType: new Uint8Array() },
};

describe("timetable layout", () => {
  test("the assembler writes the declared tables and columns, in order, of the declared types", () => {
    const tables = assembleTimetable(empty, { walkRadiusM: 400 });
    expect(Object.keys(tables)).toEqual(Object.keys(TIMETABLE_TABLES));
    const typeOf = (v: unknown) => (Array.isArray(v) ? "utf8" : v instanceof Int32Array ? "int32" : v instanceof Uint8Array ? "uint8" : v instanceof Float64Array ? "float64" : "?");
    for (const [name, cols] of Object.entries(TIMETABLE_TABLES)) {
      const got = (tables as unknown as Record<string, Record<string, unknown>>)[name]!;
      expect(`${name}: ${Object.keys(got).join(",")}`).toBe(`${name}: ${Object.keys(cols).join(",")}`);
      for (const [col, kind] of Object.entries(cols)) expect(`${name}.${col}: ${typeOf(got[col])}`).toBe(`${name}.${col}: ${kind}`);
    }
  });

  test("a packed stop time reads back; a time beyond the word is refused", () => {
    const words = new Int32Array(6);
    packStopTime(words, 0, 25 * 3600 + 7, 25 * 3600 + 60, stopTimeFlags(1, 0));
    packStopTime(words, 1, -86399, -86000, stopTimeFlags(0, 1));
    packStopTime(words, 2, MAX_STOP_TIME_SEC, -MAX_STOP_TIME_SEC, stopTimeFlags(1, 1));
    expect([0, 1, 2].map((i) => [arrAt(words, i), depAt(words, i), flagsAt(words, i)])).toEqual([
      [25 * 3600 + 7, 25 * 3600 + 60, NO_PICKUP], [-86399, -86000, NO_DROP_OFF], [MAX_STOP_TIME_SEC, -MAX_STOP_TIME_SEC, NO_PICKUP | NO_DROP_OFF],
    ]);
    expect(() => packStopTime(words, 2, MAX_STOP_TIME_SEC + 1, 0, 0)).toThrow(RangeError);
  });
});
