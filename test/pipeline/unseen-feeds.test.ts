/**
 * FEATURE UNDER TEST: import of valid-but-unusual feeds seen in the wild (hand-written fixtures
 * built in a temp dir): quoted values spanning lines in a BOM + CRLF file, ids with leading zeros,
 * and the "neither calendar.txt nor calendar_dates.txt" rejection of the README's "Bad feeds" table.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { importFeed } from "../../pipeline/import.ts";
import { readManifest } from "../../pipeline/store/manifest.ts";
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
