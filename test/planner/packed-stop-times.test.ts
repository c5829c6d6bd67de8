/**
 * FEATURE UNDER TEST: the planner core's packed stop times (types.ts packStopTimes / arrAt / depAt /
 * flagsAt): times and flags read back exactly, negative times too (the mirrored core negates them),
 * and a time the packing cannot hold is refused instead of wrapping around.
 */
import { describe, expect, test } from "bun:test";
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
