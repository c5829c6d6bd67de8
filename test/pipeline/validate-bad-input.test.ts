/**
 * FEATURE UNDER TEST: the validator on bad input: every file of a feed missing in turn, files in
 * UTF-16, with a UTF-8 byte-order mark or in Latin-1, duplicate keys, an empty folder, a large
 * table. Each gives a report (the files still read where they can be), never a crash.
 */
import { describe, expect, test } from "bun:test";
import { importFeed } from "../../pipeline/import.ts";
import { tempDir } from "../support/dataset.ts";
import { add, CLEAN, codesOf, edit, TODAY, validate, writeFeed } from "./validate-support.ts";

const utf16 = (text: string, le = true) => {
  const body = Buffer.from(text, "utf16le");
  if (!le) body.swap16();
  return Buffer.concat([Buffer.from(le ? [0xff, 0xfe] : [0xfe, 0xff]), body]);
};
const STOPS = String(CLEAN["stops.txt"]).replace("Main Street", "Main Stra\u00dfe");

describe("validator on bad input", () => {
  for (const file of Object.keys(CLEAN)) {
    test(`${file} missing: a report`, async () => {
      const r = await validate(edit(CLEAN, { [file]: null }));
      expect(r.notices.length).toBeGreaterThan(0);
      if (["agency.txt", "stops.txt", "routes.txt", "trips.txt", "stop_times.txt"].includes(file)) {
        expect(r.notices.find((n) => n.code === "missing_required_file")!.sampleNotices).toContainEqual({ filename: file });
      }
    });
  }

  test("an empty folder: a report of the missing files", async () => {
    const r = await validate({});
    expect(codesOf(r)).toEqual(expect.arrayContaining(["missing_required_file", "missing_calendar_and_calendar_date_files"]));
  });

  test("UTF-16 (either byte order): csv_parsing_failed, and the rows are still read", async () => {
    for (const le of [true, false]) {
      const r = await validate(edit(CLEAN, { "stops.txt": utf16(STOPS, le) }));
      expect(codesOf(r)).toEqual(["csv_parsing_failed"]);
      expect(r.notices[0]!.sampleNotices[0]!.message).toContain("UTF-16");
      expect(r.summary.counts.Stops).toBe(3);
    }
  });

  test("a UTF-8 byte-order mark is accepted", async () => {
    const r = await validate(edit(CLEAN, { "stops.txt": `\ufeff${STOPS}` }));
    expect(r.notices).toEqual([]);
    expect(r.summary.counts.Stops).toBe(3);
  });

  test("Latin-1: csv_parsing_failed, read as Latin-1", async () => {
    const r = await validate(edit(CLEAN, { "stops.txt": Buffer.from(STOPS, "latin1") }));
    expect(codesOf(r)).toEqual(["csv_parsing_failed"]);
    expect(r.summary.counts.Stops).toBe(3);
  });

  test("duplicate keys in every keyed file", async () => {
    const dup = () => (t: string) => t + t.split("\n")[1] + "\n";
    const r = await validate(edit(CLEAN, Object.fromEntries(["agency.txt", "stops.txt", "routes.txt", "trips.txt", "stop_times.txt", "calendar.txt", "shapes.txt"].map((f) => [f, dup()]))));
    const files = r.notices.find((n) => n.code === "duplicate_key")!.sampleNotices.map((s) => s.filename);
    expect(new Set(files)).toEqual(new Set(["agency.txt", "stops.txt", "routes.txt", "trips.txt", "stop_times.txt", "calendar.txt", "shapes.txt"]));
  });

  test("a large stop_times.txt (300 000 rows) is validated", async () => {
    const lines: string[] = [];
    for (let t = 0; t < 100_000; t++) {
      const h = String(5 + Math.floor(t / 6000)).padStart(2, "0"), m = String(Math.floor(t / 100) % 60).padStart(2, "0");
      lines.push(`X${t},${h}:${m}:00,${h}:${m}:00,S1,1,1,0`, `X${t},${h}:${m}:30,${h}:${m}:30,S2,2,1,550`, `X${t},${h}:${m}:59,${h}:${m}:59,S3,3,1,1100`);
    }
    const trips = Array.from({ length: 100_000 }, (_, t) => `R1,WK,X${t},SH1,,Park Road`);
    const r = await validate(edit(CLEAN, { "stop_times.txt": add(...lines), "trips.txt": add(...trips) }));
    expect(r.summary.counts.Trips).toBe(100_002);
    expect(codesOf(r)).toEqual([]);
  }, 120_000);

  test("a calendar per trip (thousands of services running the same days) is validated in bounded time and memory", async () => {
    // as amtrak.zip: the block rule once joined every service's dates with every other's (billions of rows)
    const n = 1500;
    const services = Array.from({ length: n }, (_, i) => `C${i},1,1,1,1,1,1,1,20260101,20271231`);
    const trips = Array.from({ length: n }, (_, i) => `R1,C${i},X${i},SH1,${i < 2 ? "BB" : ""},Park Road`);
    const times = Array.from({ length: n }, (_, i) => [`X${i},08:0${i < 2 ? i : 5}:00,08:0${i < 2 ? i : 5}:00,S1,1,1,0`, `X${i},08:30:00,08:30:00,S3,2,1,1100`]).flat();
    const r = await validate(edit(CLEAN, { "calendar.txt": add(...services), "trips.txt": add(...trips), "stop_times.txt": add(...times) }));
    expect(r.summary.counts.Trips).toBe(n + 2);
    const block = r.notices.find((x) => x.code === "block_trips_with_overlapping_stop_times")!;
    expect(block.totalNotices).toBe(1);
    expect(block.sampleNotices[0]).toMatchObject({ tripIdA: "X0", tripIdB: "X1", blockId: "BB", intersection: "20260101" });
  }, 120_000);

  test("the import of badly encoded files gives a report, never a crash", async () => {
    for (const stops of [utf16(STOPS), Buffer.from(STOPS, "latin1")]) {
      const r = await importFeed({ dataDir: tempDir(), source: writeFeed(edit(CLEAN, { "stops.txt": stops })), validationDate: TODAY, validate: true });
      expect(["imported", "rejected"]).toContain(r.status);
      if (r.status === "imported") expect(r.validation!.codes.csv_parsing_failed).toBeDefined();
      else expect(r.error!.message.length).toBeGreaterThan(0);
    }
  });
});
