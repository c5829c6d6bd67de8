/**
 * FEATURE UNDER TEST: stop_times.txt is read by the fast reader when it is in plain form
 * (pipeline/gtfs/stop-times/fast.ts), else by DuckDB straight into its typed table when nothing in
 * it needs trimming (pipeline/gtfs/tables/stop-times.ts stopTimesDirect), else through the raw table of trimmed strings.
 * Whatever the path, the same data written in different legal ways must give the same
 * stop_times.parquet: CRLF line ends, a byte-order mark, every value quoted, columns in another
 * order, an extra column, leading zeros, one-digit hours, padded values, blank lines.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { importFeed } from "../../pipeline/import.ts";
import { readManifest } from "../../pipeline/schema/manifest.ts";
import { unzipAll } from "../../pipeline/zip.ts";
import { gtfs, tempDir } from "../support/dataset.ts";
import { sql } from "../support/duck.ts";

const COLS = "trip_ref, trip_id, stop_sequence, stop_ref, stop_id, arrival_time, departure_time, stop_headsign, pickup_type, drop_off_type, shape_dist_traveled, timepoint, interpolated";

describe("stop_times.txt formats", () => {
  test("the same stop_times written in different legal ways import the same, directly or through the raw table", async () => {
    const files = await unzipAll(new Uint8Array(await Bun.file(gtfs("bart")).bytes()), () => true);
    const text = new TextDecoder().decode(files["stop_times.txt"]!);
    const [headerLine, ...body] = text.split(/\r?\n/).filter((l) => l !== "");
    const header = headerLine!.split(",");
    expect(header.slice(0, 5)).toEqual(["trip_id", "arrival_time", "departure_time", "stop_id", "stop_sequence"]);
    // BART's fields have no commas or quotes, so a plain split is exact
    const rows = body.map((l) => l.split(","));
    const csv = (h: string[], rs: string[][], eol = "\n") => [h.join(","), ...rs.map((r) => r.join(","))].join(eol) + eol;
    const perm = [4, 3, 0, ...header.map((_, i) => i).filter((i) => i > 4), 2, 1]; // another column order
    // how each is read: by the fast reader ("fast"), by DuckDB straight into the typed table
    // ("direct"), or through the raw table of trimmed strings ("raw")
    const variants: [string, string, "fast" | "direct" | "raw"][] = [
      ["as published", csv(header, rows), "fast"],
      ["CRLF line ends", csv(header, rows, "\r\n"), "fast"],
      ["byte-order mark", "\uFEFF" + csv(header, rows), "fast"],
      ["every value quoted", csv(header.map((h) => `"${h}"`), rows.map((r) => r.map((v) => (v === "" ? "" : `"${v}"`)))), "direct"],
      ["columns reordered", csv(perm.map((i) => header[i]!), rows.map((r) => perm.map((i) => r[i]!))), "fast"],
      ["an extra column first", csv(["agency_note", ...header], rows.map((r) => ["x", ...r])), "fast"],
      ["leading zeros in stop_sequence", csv(header, rows.map((r) => r.map((v, i) => (i === 4 ? v.padStart(4, "0") : v)))), "fast"],
      ["one-digit hours", csv(header, rows.map((r) => r.map((v, i) => (i === 1 || i === 2 ? v.replace(/^0(\d):/, "$1:") : v)))), "fast"],
      ["a padded stop_headsign", csv(header, rows.map((r, k) => (k === 10 ? r.map((v, i) => (header[i] === "stop_headsign" ? ` ${v} ` : v)) : r))), "raw"],
      ["a padded time", csv(header, rows.map((r, k) => (k === 20 ? r.map((v, i) => (i === 1 ? `${v}\t` : v)) : r))), "raw"],
      ["blank lines", csv(header, rows).replace("\n", "\n\n").replace(/\n$/, "\n\n\n"), "direct"],
    ];
    const pq: string[] = [];
    for (const [name, stopTimes, direct] of variants) {
      const dir = join(tempDir(), "feed");
      mkdirSync(dir, { recursive: true });
      for (const [f, bytes] of Object.entries(files)) writeFileSync(join(dir, f), bytes);
      writeFileSync(join(dir, "stop_times.txt"), stopTimes);
      const data = tempDir();
      const log: string[] = [];
      const r = await importFeed({ dataDir: data, source: dir, feedId: "f-bart", now: () => new Date("2024-07-01T12:00:00Z"), progress: (m) => log.push(m) });
      expect(`${name}: ${r.status} ${r.error?.message ?? ""}`).toBe(`${name}: imported `);
      // (BART's 01_shp ends before Antioch: that warning is about shapes.txt, the same in every variant)
      expect(`${name}: ${Object.keys(r.warnings).filter((k) => k !== "shape_does_not_reach_stops").join(",")}`).toBe(`${name}: `);
      const read = log.find((m) => m.includes("stop_times read:"))!;
      const path = read.includes(", fast)") ? "fast" : read.includes(", direct)") ? "direct" : "raw";
      expect(`${name}: ${path}`).toBe(`${name}: ${direct}`);
      const v = readManifest(data).versions[0]!;
      pq.push(`read_parquet('${join(data, v.path, "stop_times.parquet")}')`);
    }
    for (let i = 1; i < pq.length; i++) {
      const [d] = await sql<{ a: number; b: number; n: number }>(`SELECT
        (SELECT count(*)::INTEGER FROM (SELECT ${COLS} FROM ${pq[i]} EXCEPT ALL SELECT ${COLS} FROM ${pq[0]})) AS a,
        (SELECT count(*)::INTEGER FROM (SELECT ${COLS} FROM ${pq[0]} EXCEPT ALL SELECT ${COLS} FROM ${pq[i]})) AS b,
        (SELECT count(*)::INTEGER FROM ${pq[i]}) AS n`);
      expect(`${variants[i]![0]}: ${JSON.stringify(d)}`).toBe(`${variants[i]![0]}: ${JSON.stringify({ a: 0, b: 0, n: rows.length })}`);
    }
  });
});
