/**
 * FEATURE UNDER TEST: the timetable compile (pipeline/timetable/compile.ts) reads the catalog's
 * Parquet back. It must not depend on luck: the same dataset always gives the same bytes, and a
 * version whose stop_times.parquet is not in (trip_ref, stop_sequence) order (written by another
 * tool, or by hand) gives the same timetable as the sorted file.
 */
import { describe, expect, test } from "bun:test";
import { cpSync, renameSync } from "node:fs";
import { join } from "node:path";
import { compileFresh, fileSha1 } from "../support/timetable.ts";
import { readManifest } from "../../pipeline/schema/manifest.ts";
import { importedDataset, tempDir } from "../support/dataset.ts";
import { sql } from "../support/duck.ts";
import { loadTimetableFile } from "../../server/planner/timetable/arrow-loader.ts";

describe("timetable compile", () => {
  test("the same dataset compiles to the same bytes, and shuffled stop_times give the same timetable", async () => {
    const data = await importedDataset("compile-bart-caltrain", ["bart", "caltrain"], { timetable: false });
    const a = await compileFresh(data);
    const b = await compileFresh(data);
    expect(fileSha1(a)).toBe(fileSha1(b));

    const shuffled = join(tempDir(), "data");
    cpSync(data, shuffled, { recursive: true });
    for (const v of readManifest(shuffled).versions) {
      const file = join(shuffled, v.path, "stop_times.parquet");
      const rows = await sql<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM read_parquet('${file}')`);
      await sql(`COPY (SELECT * FROM read_parquet('${file}') ORDER BY hash(trip_ref, stop_sequence)) TO '${file}.tmp' (FORMAT parquet)`);
      renameSync(`${file}.tmp`, file);
      const after = await sql<{ n: number; sorted: boolean }>(
        `SELECT count(*)::INTEGER AS n, bool_and(coalesce((trip_ref, stop_sequence) > (p_trip, p_seq), true)) AS sorted
         FROM (SELECT trip_ref, stop_sequence, lag(trip_ref) OVER () AS p_trip, lag(stop_sequence) OVER () AS p_seq FROM read_parquet('${file}'))`);
      expect(after[0]!.n).toBe(rows[0]!.n);
      expect(after[0]!.sorted).toBe(false);
    }
    const c = await compileFresh(shuffled);
    expect(fileSha1(c)).toBe(fileSha1(a));
  });

  test("trips and stops are read in id order, and a value holding the string columns' separator (U+001F) takes the row-by-row read", async () => {
    const data = await importedDataset("compile-bart-caltrain", ["bart", "caltrain"], { timetable: false });
    const a = await compileFresh(data);
    // rows of trips.parquet and stops.parquet in another order: the same timetable
    const shuffled = join(tempDir(), "data");
    cpSync(data, shuffled, { recursive: true });
    const rewrite = async (file: string, select: string) => {
      await sql(`COPY (${select.replace("$F", `read_parquet('${file}')`)}) TO '${file}.tmp' (FORMAT parquet)`);
      renameSync(`${file}.tmp`, file);
    };
    for (const v of readManifest(shuffled).versions) {
      for (const t of ["trips", "stops"]) await rewrite(join(shuffled, v.path, `${t}.parquet`), "SELECT * FROM $F ORDER BY hash(id)");
    }
    expect(fileSha1(await compileFresh(shuffled))).toBe(fileSha1(a));

    // one trip's headsign and one stop's name with the separator in them: read exactly, everything else as before
    const marked = join(tempDir(), "data");
    cpSync(data, marked, { recursive: true });
    const v = readManifest(marked).versions[0]!;
    const [trip] = await sql<{ id: number }>(`SELECT min(id)::INTEGER AS id FROM read_parquet('${join(marked, v.path, "trips.parquet")}')`);
    const [stop] = await sql<{ id: number }>(`SELECT max(id)::INTEGER AS id FROM read_parquet('${join(marked, v.path, "stops.parquet")}')`);
    await rewrite(join(marked, v.path, "trips.parquet"), `SELECT * REPLACE (CASE WHEN id = ${trip!.id} THEN 'North' || chr(31) || 'bound' ELSE trip_headsign END AS trip_headsign) FROM $F ORDER BY id`);
    await rewrite(join(marked, v.path, "stops.parquet"), `SELECT * REPLACE (CASE WHEN id = ${stop!.id} THEN 'A' || chr(31) || 'B' ELSE stop_name END AS stop_name) FROM $F ORDER BY id`);
    const before = loadTimetableFile(a);
    const after = loadTimetableFile(await compileFresh(marked));
    expect(after.meta.tripId).toEqual(before.meta.tripId);
    const only = (xs: string[], other: string[], value: string) => {
      const at = xs.indexOf(value);
      expect(at).toBeGreaterThanOrEqual(0);
      expect(xs.map((x, i) => (i === at ? other[i] : x))).toEqual(other);
    };
    only(after.meta.stopName, before.meta.stopName, "A\u001fB");
    only(after.meta.tripHeadsign, before.meta.tripHeadsign, "North\u001fbound");
    expect(Array.from(after.core.stopTimes)).toEqual(Array.from(before.core.stopTimes));
  });
});
