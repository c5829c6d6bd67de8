/**
 * FEATURE UNDER TEST: the shared layer (shared/), which pipeline/ and server/ both import:
 * - geometry: the haversine in JavaScript and its SQL twin, generated from the same constant,
 *   give the same distances in DuckDB;
 * - GTFS time: the service-day rule ("noon minus 12 h") and its inverse across a DST change, one
 *   behaviour for an unknown time zone (read as UTC, in the planner's re-export too), the cache's bound;
 * - the least-recently-used cache;
 * - SQL quoting.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { DuckDBInstance, type DuckDBConnection } from "@duckdb/node-api";
import { EARTH_RADIUS_M, haversineM, haversineSql } from "../../shared/geo.ts";
import { Lru } from "../../shared/lru.ts";
import { sqlString } from "../../shared/sql.ts";
import { dayNumber, localDate, localParts, SERVICE_DAY_CACHE_SIZE, serviceDayOf, serviceDayStart } from "../../shared/time.ts";
import { serviceDayStart as plannerServiceDayStart } from "../../server/planner/timetable/calendar.ts";

let conn: DuckDBConnection;
beforeAll(async () => {
  conn = await (await DuckDBInstance.create(":memory:")).connect();
});
afterAll(() => conn.closeSync());

describe("shared geometry", () => {
  test("haversineSql in DuckDB and haversineM agree (to float rounding) on real distances", async () => {
    const pairs: [number, number, number, number][] = [
      [37.7749, -122.4194, 37.8044, -122.2712], // San Francisco - Oakland
      [40.7128, -74.006, 40.7128, -74.0059], // ~8 m
      [51.5074, -0.1278, -33.8688, 151.2093], // London - Sydney
      [0, 0, 0, 0],
    ];
    for (const [a, b, c, d] of pairs) {
      const sql = `SELECT ${haversineSql(String(a), String(b), String(c), String(d))} AS m`;
      const m = Number((await conn.runAndReadAll(sql)).getRowObjects()[0]!.m);
      expect(Math.abs(m - haversineM(a, b, c, d))).toBeLessThanOrEqual(1e-6 * Math.max(1, m));
    }
    expect(haversineSql("a", "b", "c", "d")).toContain(String(EARTH_RADIUS_M));
    // one degree of latitude on the mean radius
    expect(haversineM(0, 0, 1, 0)).toBeCloseTo(111195.08, 1);
  });

  test("NULL in, NULL out: a point without coordinates has no distance (not half the earth's girth)", async () => {
    const m = (await conn.runAndReadAll(`SELECT ${haversineSql("NULL::DOUBLE", "8.4", "49.4", "8.5")} AS m`)).getRowObjects()[0]!.m;
    expect(m).toBeNull();
    expect(haversineM(NaN, 8.4, 49.4, 8.5)).toBeNaN();
  });

  test("antipodal points stay finite in both forms (the square root is capped at 1)", async () => {
    const m = Number((await conn.runAndReadAll(`SELECT ${haversineSql("0", "0", "0", "180")} AS m`)).getRowObjects()[0]!.m);
    expect(m).toBeCloseTo(Math.PI * EARTH_RADIUS_M, 3);
    expect(haversineM(0, 0, 0, 180)).toBeCloseTo(Math.PI * EARTH_RADIUS_M, 3);
  });
});

describe("shared GTFS time", () => {
  test("service day: noon minus 12 h, so a DST day starts an hour off midnight, and the inverse returns the day", () => {
    // 2024-03-10: New York springs forward at 02:00; noon is EDT (UTC-4), noon - 12 h = 23:00 EST the day before
    const day = dayNumber("2024-03-10");
    const start = serviceDayStart(day, "America/New_York");
    expect(start).toBe(Date.UTC(2024, 2, 10, 4, 0, 0) / 1000); // local midnight would be 05:00 UTC
    expect(serviceDayOf(start, "America/New_York")).toBe(day);
    // an ordinary day starts at local midnight
    const next = serviceDayStart(day + 1, "America/New_York");
    expect(next).toBe(Date.UTC(2024, 2, 11, 4, 0, 0) / 1000);
    expect(serviceDayOf(next, "America/New_York")).toBe(day + 1);
  });

  test("an unknown time zone is read as UTC everywhere, the planner's service days included (it threw before)", () => {
    const day = dayNumber("2024-06-01");
    expect(serviceDayStart(day, "Mars/Olympus_Mons")).toBe(day * 86400);
    expect(plannerServiceDayStart(day, "Mars/Olympus_Mons")).toBe(day * 86400);
    expect(serviceDayOf(day * 86400, "Mars/Olympus_Mons")).toBe(day);
    expect(localParts(day * 86400 + 3661, "Mars/Olympus_Mons")).toEqual({ day, sec: 3661 });
    expect(localDate(Date.UTC(2024, 5, 1, 23, 30), "Mars/Olympus_Mons")).toBe("2024-06-01");
  });

  test("the service-day cache is bounded: many more days than its size give the same answers", () => {
    const base = dayNumber("2000-01-01");
    for (let d = 0; d < SERVICE_DAY_CACHE_SIZE * 2; d++) expect(serviceDayStart(base + d, "UTC")).toBe((base + d) * 86400);
    expect(serviceDayStart(base, "Europe/Berlin")).toBe(Date.UTC(1999, 11, 31, 23, 0, 0) / 1000);
  });
});

describe("shared Lru", () => {
  test("keeps at most capacity entries and evicts the least recently used", () => {
    const c = new Lru<string, number>(2);
    c.set("a", 1);
    c.set("b", 2);
    expect(c.get("a")).toBe(1); // a is now the most recently used
    c.set("c", 3);
    expect(c.size).toBe(2);
    expect(c.get("b")).toBeUndefined();
    expect(c.get("a")).toBe(1);
    expect(c.getOrSet("d", () => 4)).toBe(4);
    expect(c.get("c")).toBeUndefined();
    expect(() => new Lru(0)).toThrow(RangeError);
  });
});

describe("shared SQL quoting", () => {
  test("a quote inside a string is doubled, and DuckDB reads the literal back", async () => {
    const s = "it's a 'path'/x.parquet";
    expect(sqlString(s)).toBe("'it''s a ''path''/x.parquet'");
    expect((await conn.runAndReadAll(`SELECT ${sqlString(s)} AS v`)).getRowObjects()[0]!.v).toBe(s);
  });
});
