/**
 * FEATURE UNDER TEST: import of valid-but-unusual feeds seen in the wild (hand-written fixtures
 * built in a temp dir): quoted values spanning lines in a BOM + CRLF file, ids with leading zeros,
 * and the "neither calendar.txt nor calendar_dates.txt" rejection of the README's "Bad feeds" table;
 * line numbers of warnings after multi-line values and empty lines, lines of only whitespace,
 * unparsable min_transfer_time, and parent_station cycles.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { importFeed } from "../../pipeline/import.ts";
import { readManifest } from "../../pipeline/schema/manifest.ts";
import { tempDir } from "../support/dataset.ts";
import { sql } from "../support/duck.ts";

/** Write a GTFS folder; each file is its lines (header first), joined with `eol`. */
function feed(files: Record<string, string[]>, eol = "\n", bom = false): string {
  const dir = join(tempDir(), "feed");
  mkdirSync(dir, { recursive: true });
  for (const [name, lines] of Object.entries(files)) writeFileSync(join(dir, name), (bom ? "\ufeff" : "") + lines.join(eol) + eol);
  return dir;
}

const BASE = {
  "agency.txt": ["agency_name,agency_url,agency_timezone", "Verkehrsbetriebe,https://vbz.example,Europe/Zurich"],
  "routes.txt": ["route_type,route_id,route_short_name", "900,007,7"],
  "calendar.txt": ["service_id,monday,tuesday,wednesday,thursday,friday,saturday,sunday,start_date,end_date", "0001,1,1,1,1,1,0,0,20261101,20270331"],
  "trips.txt": ["trip_id,route_id,service_id", "00123,007,0001"],
  "stop_times.txt": ["trip_id,stop_sequence,stop_id,arrival_time,departure_time", "00123,1,007,08:00:00,08:00:00", "00123,2,0010,08:04:00,08:04:00"],
};

describe("unusual but valid feeds", () => {
  test("a quoted value spanning two lines (BOM, CRLF, extra columns) is read, not rejected", async () => {
    const dir = feed({
      ...BASE,
      "stops.txt": [
        "stop_name,stop_id,stop_lat,stop_lon,x_internal",
        '"Zürich HB, Gleis 7",007,47.378177,8.540192,"note, with comma"',
        '"Bellevue\nMitte",0010,47.367222,8.545278,"multi\nline ""quoted"""',
      ],
    }, "\r\n", true);
    const data = tempDir();
    const r = await importFeed({ dataDir: data, source: dir });
    expect(r.error).toBeUndefined();
    expect(r.status).toBe("imported");
    expect(r.tables["stops.txt"]).toEqual({ source_rows: 2, imported_rows: 2, skipped_rows: 0 });
    const v = readManifest(data).versions[0]!;
    const stops = await sql<{ stop_id: string; stop_name: string }>(`SELECT stop_id, stop_name FROM '${join(data, v.path, "stops.parquet")}' ORDER BY id`);
    expect(stops).toEqual([{ stop_id: "007", stop_name: "Zürich HB, Gleis 7" }, { stop_id: "0010", stop_name: "Bellevue\nMitte" }]);
    const st = await sql<{ trip_id: string; stop_id: string }>(`SELECT trip_id, stop_id FROM '${join(data, v.path, "stop_times.parquet")}' ORDER BY stop_sequence`);
    expect(st).toEqual([{ trip_id: "00123", stop_id: "007" }, { trip_id: "00123", stop_id: "0010" }]);
  });

  test("a feed with neither calendar.txt nor calendar_dates.txt is rejected", async () => {
    const { "calendar.txt": _, ...noCalendar } = BASE;
    const dir = feed({ ...noCalendar, "stops.txt": ["stop_id,stop_name,stop_lat,stop_lon", "007,A,47.37,8.54", "0010,B,47.36,8.55"] });
    const data = tempDir();
    const r = await importFeed({ dataDir: data, source: dir });
    expect(r.status).toBe("rejected");
    expect(r.error!.file).toBe("calendar.txt");
    expect(r.error!.message).toContain("required file is missing");
    expect(readManifest(data).versions).toEqual([]);
  });

  test("a required file with a header line but no rows is rejected", async () => {
    const dir = feed({ ...BASE, "stops.txt": ["stop_id,stop_name,stop_lat,stop_lon"] });
    const r = await importFeed({ dataDir: tempDir(), source: dir });
    expect(r.status).toBe("rejected");
    expect(r.error).toEqual({ file: "stops.txt", message: "stops.txt: file is empty (a header line but no rows)" });
    // header-only calendar.txt and no calendar_dates.txt: no service at all
    const noService = feed({ ...BASE, "calendar.txt": [BASE["calendar.txt"][0]!], "stops.txt": ["stop_id,stop_name,stop_lat,stop_lon", "007,A,47.37,8.54", "0010,B,47.36,8.55"] });
    const r2 = await importFeed({ dataDir: tempDir(), source: noService });
    expect(r2.status).toBe("rejected");
    expect(r2.error!.file).toBe("calendar.txt");
  });

  test("warning lines are physical lines after quoted values spanning lines (and empty lines)", async () => {
    const dir = feed({
      ...BASE,
      "stops.txt": [
        "stop_id,stop_name,stop_lat,stop_lon", // 1
        "007,A,47.37,8.54", // 2
        '0010,"Bellevue\nMitte",47.36,8.55', // 3-4
        "0011,Nowhere,91,8.5", // 5: invalid_coordinates
        "0012,x,1,2,3", // 6: csv_unparsable (too many fields)
        '0013,"three\r\nline\nname",47.3,8.5', // 7-9
        "", // 10
        "0014,Null Island,0,0", // 11: invalid_coordinates
        '"0015","quoted, ""two""\nlines",0,0', // 12-13: invalid_coordinates
        "0016,Nowhere,95,8.5", // 14: invalid_coordinates
      ],
      // no quotes at all, an empty line
      "trips.txt": ["trip_id,route_id,service_id", "00123,007,0001", "", "00124,999,0001"],
    }, "\r\n");
    const r = await importFeed({ dataDir: tempDir(), source: dir });
    expect(r.status).toBe("imported");
    expect(r.tables["stops.txt"]).toEqual({ source_rows: 8, imported_rows: 3, skipped_rows: 5 });
    expect(r.warnings.invalid_coordinates!.examples.map((e) => e.line)).toEqual([5, 11, 12, 14]);
    expect(r.warnings.csv_unparsable!.examples.map((e) => e.line)).toEqual([6]);
    expect(r.warnings.unknown_route!.examples).toEqual([{ file: "trips.txt", line: 4, message: "trip 00124: route_id 999 does not exist" }]);
  });

  test("a non-integer min_transfer_time is reported; the transfer is kept without it", async () => {
    const dir = feed({
      ...BASE,
      "stops.txt": ["stop_id,stop_name,stop_lat,stop_lon", "007,A,47.37,8.54", "0010,B,47.36,8.55"],
      "transfers.txt": ["from_stop_id,to_stop_id,transfer_type,min_transfer_time", "007,0010,2,120", "0010,007,2,2 min", "007,007,2,-5", "0010,0010,2,"],
    });
    const data = tempDir();
    const r = await importFeed({ dataDir: data, source: dir });
    expect(r.status).toBe("imported");
    expect(r.tables["transfers.txt"]).toEqual({ source_rows: 4, imported_rows: 4, skipped_rows: 0 });
    expect(r.warnings.invalid_min_transfer_time).toEqual({
      count: 2,
      examples: [
        { file: "transfers.txt", line: 3, message: "transfer 0010 -> 007: min_transfer_time 2 min is not a non-negative integer (kept without it)" },
        { file: "transfers.txt", line: 4, message: "transfer 007 -> 007: min_transfer_time -5 is not a non-negative integer (kept without it)" },
      ],
    });
    const v = readManifest(data).versions[0]!;
    const x = await sql<{ from_stop_id: string; min_transfer_time: number | null }>(`SELECT from_stop_id, to_stop_id, min_transfer_time FROM '${join(data, v.path, "transfers.parquet")}'`);
    expect(x.map((t) => t.min_transfer_time)).toEqual([120, null, null, null]);
  });

  test("a stop that is its own parent_station, or stations parented to each other, are kept without parent", async () => {
    const dir = feed({
      ...BASE,
      "stops.txt": [
        "stop_id,stop_name,stop_lat,stop_lon,location_type,parent_station",
        "007,A,47.37,8.54,0,S2", // 2: platform of S2 (S2 is on a cycle, this link is fine)
        "0010,B,47.36,8.55,0,", // 3
        "S1,Self,47.36,8.55,1,S1", // 4: its own parent
        "S2,Two,47.37,8.54,1,S3", // 5: S2 -> S3 -> S2
        "S3,Three,47.37,8.54,1,S2", // 6
        "S4,Four,47.37,8.54,1,S5", // 7: S4 -> S5 -> S6 -> S4
        "S5,Five,47.37,8.54,1,S6", // 8
        "S6,Six,47.37,8.54,1,S4", // 9
      ],
    });
    const data = tempDir();
    const r = await importFeed({ dataDir: data, source: dir });
    expect(r.status).toBe("imported");
    expect(r.tables["stops.txt"]).toEqual({ source_rows: 8, imported_rows: 8, skipped_rows: 0 });
    expect(r.warnings.circular_parent_station!.count).toBe(6);
    expect(r.warnings.circular_parent_station!.examples).toEqual([
      { file: "stops.txt", line: 4, message: "stop S1: parent_station S1 is the stop itself (kept without parent)" },
      { file: "stops.txt", line: 5, message: "stop S2: parent_station S3 leads back to S2 (a cycle; kept without parent)" },
      { file: "stops.txt", line: 6, message: "stop S3: parent_station S2 leads back to S3 (a cycle; kept without parent)" },
      { file: "stops.txt", line: 7, message: "stop S4: parent_station S5 leads back to S4 (a cycle; kept without parent)" },
      { file: "stops.txt", line: 8, message: "stop S5: parent_station S6 leads back to S5 (a cycle; kept without parent)" },
    ]);
    expect(r.warnings.unknown_parent_station).toBeUndefined();
    const v = readManifest(data).versions[0]!;
    const stops = await sql<{ stop_id: string; parent_station: string | null; has_ref: boolean }>(
      `SELECT stop_id, parent_station, parent_ref IS NOT NULL AS has_ref FROM '${join(data, v.path, "stops.parquet")}' ORDER BY id`);
    expect(stops.map((s) => [s.stop_id, s.parent_station, s.has_ref])).toEqual([
      ["007", "S2", true], ["0010", null, false], ["S1", null, false], ["S2", null, false], ["S3", null, false],
      ["S4", null, false], ["S5", null, false], ["S6", null, false],
    ]);
  });

  test("lines of only spaces or tabs are ignored like empty lines", async () => {
    const dir = feed({
      ...BASE,
      "stops.txt": ["stop_name,stop_id,stop_lat,stop_lon", "A,007,47.37,8.54", "   ", "B,0010,47.36,8.55", "\t \t", "C,0011,91,8.5", ""],
      // first column not imported: a whitespace-only line must still be recognised
      "routes.txt": ["x_note,route_type,route_id,route_short_name", "  ", "note,900,007,7", " \t "],
      // whitespace-only line in the middle of stop_times, after a value spanning two lines
      "stop_times.txt": [
        "trip_id,stop_sequence,stop_id,arrival_time,departure_time,stop_headsign",
        '00123,1,007,08:00:00,08:00:00,"two\nlines"',
        "  ",
        "00123,2,0010,08:04:00,08:04:00,",
        "00123,3,0099,08:05:00,08:05:00,", // line 6: unknown_stop
      ],
    }, "\r\n");
    const r = await importFeed({ dataDir: tempDir(), source: dir });
    expect(r.status).toBe("imported");
    expect(r.warnings.missing_required_value).toBeUndefined();
    expect(r.tables["stops.txt"]).toEqual({ source_rows: 3, imported_rows: 2, skipped_rows: 1 });
    expect(r.tables["routes.txt"]).toEqual({ source_rows: 1, imported_rows: 1, skipped_rows: 0 });
    expect(r.tables["stop_times.txt"]).toEqual({ source_rows: 3, imported_rows: 2, skipped_rows: 1 });
    expect(r.warnings.invalid_coordinates!.examples.map((e) => e.line)).toEqual([6]);
    expect(r.warnings.unknown_stop!.examples.map((e) => e.line)).toEqual([6]);
  });

  test("calendar_dates.txt alone is enough", async () => {
    const { "calendar.txt": _, ...noCalendar } = BASE;
    const dir = feed({
      ...noCalendar,
      "stops.txt": ["stop_id,stop_name,stop_lat,stop_lon", "007,A,47.37,8.54", "0010,B,47.36,8.55"],
      "calendar_dates.txt": ["service_id,date,exception_type", "0001,20261124,1"],
    });
    const r = await importFeed({ dataDir: tempDir(), source: dir });
    expect(r.status).toBe("imported");
    expect(r.derived.calendars_from_calendar_dates).toBe(1);
  });
});
