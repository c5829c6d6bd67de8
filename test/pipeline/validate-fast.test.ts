/**
 * FEATURE UNDER TEST: `interchange validate` reading stop_times.txt with the import's fast reader
 * (pipeline/validate/fast-stop-times.ts) gives the report DuckDB's read gives, notice for notice
 * and sample for sample: on stop times in the plain form it takes (rows not in trips.txt's order,
 * stop sequences out of order, missing times, fast travel) and on those where a check of
 * stop_times.txt fires (duplicate key, unknown trip or stop, enum out of range, a value to trim,
 * a non-ASCII id, a GTFS-Flex window, quotes, a row too long), where it leaves the file to DuckDB,
 * with the notices of the files read meanwhile kept after its own; and on real feeds.
 * Whether the fast reader stood in is seen in the validator's table: v_stop_times is empty then.
 */
import { DuckDBInstance, type DuckDBConnection } from "@duckdb/node-api";
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { unpackZip } from "../../pipeline/source.ts";
import type { ValidationReport } from "../../pipeline/validate/report.ts";
import { validateFolder } from "../../pipeline/validate/validate.ts";
import { tempDir } from "../support/dataset.ts";
import { add, CLEAN, edit, sub, TODAY, writeFeed, type Feed } from "./validate-support.ts";

const GTFS = join(import.meta.dir, "..", "..", "..", "shared", "data", "gtfs");

let db: DuckDBInstance | null = null;
let conn: DuckDBConnection | null = null;
afterAll(() => {
  conn?.closeSync();
  db?.closeSync();
});

/** A folder validated with the fast reader (min bytes 0) and without it; whether the fast reader stood in. */
async function both(dir: string): Promise<{ fast: ValidationReport; duck: ValidationReport; tookFast: boolean }> {
  db ??= await DuckDBInstance.create(":memory:", { threads: "2" });
  conn ??= await db.connect();
  const run = (min: number) => validateFolder({ dir, input: "feed", scratchDir: join(dir, "..", "scratch"), today: TODAY, fastStopTimesMinBytes: min }, conn!);
  const fast = await run(0);
  const stRows = Number((await conn.runAndReadAll("SELECT count(*) FROM v_stop_times")).getRows()[0]![0]);
  const duck = await run(Number.MAX_SAFE_INTEGER);
  return { fast, duck, tookFast: stRows === 0 && fast.summary.files.includes("stop_times.txt") };
}

const stable = (r: ValidationReport) => ({ ...r, summary: { ...r.summary, validatedAt: "", validationTimeSeconds: 0 } });

const ST = String(CLEAN["stop_times.txt"]);
/** Fixtures the fast reader takes (true) or leaves to DuckDB (false). */
const CASES: [name: string, feed: Feed, takesFast: boolean][] = [
  ["the clean feed", CLEAN, true],
  ["trips in another order than trips.txt, sequences out of order", edit(CLEAN, {
    "stop_times.txt": ST.split("\n")[0] + "\n" + ST.trim().split("\n").slice(1).reverse().join("\n") + "\n",
  }), true],
  ["missing times, fast travel, a timepoint without times", edit(CLEAN, {
    "stop_times.txt": (t) => t.replace("T1,06:02:00,06:02:00,S2,2,1,550", "T1,,,S2,2,1,550").replace("T2,07:04:00,07:04:00", "T2,07:02:01,07:02:01").replace("T1,06:04:00,06:04:00,S3", "T1,06:04:00,,S3"),
  }), true],
  ["decreasing distances and an arrival before the previous departure", edit(CLEAN, {
    "stop_times.txt": (t) => t.replace("T1,06:04:00,06:04:00,S3,3,1,1100", "T1,06:01:00,06:05:00,S3,3,1,100"),
  }), true],
  ["an unknown column, here and in trips.txt", edit(CLEAN, {
    "stop_times.txt": (t) => t.split("\n").map((l, i) => (l ? `${l},${i === 0 ? "extra" : " x "}` : l)).join("\n"),
    "trips.txt": (t) => t.split("\n").map((l, i) => (l ? `${l},${i === 0 ? "other" : "y"}` : l)).join("\n"),
  }), true],
  ["rows too long, here and in trips.txt (notices in the files' order)", edit(CLEAN, {
    "stop_times.txt": add("T2,07:06:00,07:06:00,S3,4,1,1200,extra"), "trips.txt": add("R1,WK,T3,SH1,B1,Park Road,extra"),
  }), false],
  ["a duplicate key", edit(CLEAN, { "stop_times.txt": add("T1,06:04:00,06:04:00,S3,3,1,1100") }), false],
  ["an unknown trip", edit(CLEAN, { "stop_times.txt": add("T9,06:04:00,06:04:00,S3,3,1,1100") }), false],
  ["an unknown stop", edit(CLEAN, { "stop_times.txt": sub("T2,07:02:00,07:02:00,S2", "T2,07:02:00,07:02:00,S7") }), false],
  ["an enum out of range", edit(CLEAN, { "stop_times.txt": sub("T2,07:02:00,07:02:00,S2,2,1", "T2,07:02:00,07:02:00,S2,2,7") }), false],
  ["a no-break space around an id", edit(CLEAN, { "stop_times.txt": (t) => t.replaceAll("T1,", "T1\u00a0,"), "trips.txt": sub("R1,WK,T1,", "R1,WK,T1\u00a0,") }), false],
  ["a non-ASCII id", edit(CLEAN, { "stop_times.txt": (t) => t.replaceAll("S1,", "S\u00e9,"), "stops.txt": sub("S1,", "S\u00e9,") }), false],
  ["a GTFS-Flex window column", edit(CLEAN, { "stop_times.txt": (t) => t.split("\n").map((l, i) => (l ? `${l},${i === 0 ? "start_pickup_drop_off_window" : ""}` : l)).join("\n") }), false],
  ["a quoted value", edit(CLEAN, { "stop_times.txt": sub("T1,06:00:00", `"T1",06:00:00`) }), false],
];

describe("validate: stop_times.txt by the fast reader", () => {
  for (const [name, feed, takesFast] of CASES) {
    test(`${name}: the same report${takesFast ? " (fast reader)" : " (DuckDB)"}`, async () => {
      const { fast, duck, tookFast } = await both(writeFeed(feed));
      expect(tookFast).toBe(takesFast);
      expect(stable(fast)).toEqual(stable(duck));
    });
  }

  test("fixtures with stop-time notices give them through the fast reader", async () => {
    const { fast, tookFast } = await both(writeFeed(CASES[2]![1]));
    expect(tookFast).toBe(true);
    const codes = fast.notices.map((n) => n.code);
    expect(codes).toEqual(expect.arrayContaining(["stop_time_with_only_arrival_or_departure_time", "stop_time_timepoint_without_times", "fast_travel_between_consecutive_stops"]));
  });

  for (const name of ["bart", "hart", "rnv", "yamanashi"]) {
    test(`${name}: the same report either way`, async () => {
      const dir = join(tempDir("interchange-validate-fast-"), "gtfs");
      await unpackZip(new Uint8Array(readFileSync(join(GTFS, `${name}.zip`))), dir, `${name}.zip`);
      const { fast, duck } = await both(dir);
      expect(stable(fast)).toEqual(stable(duck));
      expect(fast.notices.length).toBeGreaterThan(0);
    }, 120_000);
  }
});
