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
import { readManifest } from "../../pipeline/store/manifest.ts";
import { importedDataset, tempDir } from "../support/dataset.ts";
import { sql } from "../support/duck.ts";

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
});
