/**
 * FEATURE UNDER TEST: every real feed of ../shared/data/gtfs imports, and each Parquet table read
 * back with DuckDB matches the source files row for row, or the report accounts for every row
 * that was skipped.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { importFeed } from "../../pipeline/import.ts";
import { readManifest } from "../../pipeline/schema/manifest.ts";
import { GTFS_DIR, tempDir } from "../support/dataset.ts";
import { hmsToSec, readRawGtfs } from "../support/raw-gtfs.ts";
import { sql } from "../support/duck.ts";

const FEEDS = readdirSync(GTFS_DIR).filter((f) => f.endsWith(".zip")).sort();
// warning kinds that keep the row (the others drop it)
const NON_SKIPPING = new Set(["unknown_parent_station", "circular_parent_station", "invalid_time", "invalid_min_transfer_time", "unknown_shape", "missing_agency_timezone", "non_utf8_encoding", "derived_feed_id_taken", "shape_does_not_reach_stops"]);
const TABLE_OF: Record<string, string> = {
  "agency.txt": "agencies", "stops.txt": "stops", "routes.txt": "routes", "trips.txt": "trips", "stop_times.txt": "stop_times",
  "frequencies.txt": "frequencies", "transfers.txt": "transfers",
  // fares (GTFS Fares v1 and v2): every row imported or accounted for, like the others
  ...Object.fromEntries(["fare_attributes", "fare_rules", "fare_media", "rider_categories", "fare_products", "areas", "stop_areas", "networks", "route_networks", "timeframes",
    "fare_leg_rules", "fare_transfer_rules"].map((t) => [`${t}.txt`, t])),
};

describe("import of every shared GTFS feed", () => {
  const data = tempDir("interchange-all-");
  test("there are feeds to test", () => expect(FEEDS.length).toBeGreaterThanOrEqual(19));

  for (const file of FEEDS) {
    test(`${file}: imports, counts and values match the source files`, async () => {
      const src = join(GTFS_DIR, file);
      const report = await importFeed({ dataDir: data, source: src });
      expect(report.error).toBeUndefined();
      expect(report.status).toBe("imported");
      const raw = readRawGtfs(src);
      const m = readManifest(data);
      const v = m.versions.find((x) => x.sha1 === report.sha1)!;
      expect(v).toBeDefined();
      const dir = join(data, v.path);
      const pq = (t: string) => `read_parquet('${join(dir, `${t}.parquet`)}')`;

      // every skipped row is accounted for by a dropping warning kind of that file
      const skippedByFile: Record<string, number> = {};
      for (const [kind, w] of Object.entries(report.warnings)) {
        if (NON_SKIPPING.has(kind)) continue;
        for (const ex of w.examples) expect(ex.file).toBeString();
      }
      for (const [gtfsFile, table] of Object.entries(TABLE_OF)) {
        const sourceRows = raw.get(gtfsFile)?.length ?? 0;
        const t = report.tables[gtfsFile]!;
        expect({ file: gtfsFile, rows: t.source_rows }).toEqual({ file: gtfsFile, rows: sourceRows });
        expect(t.imported_rows + t.skipped_rows).toBe(sourceRows);
        const [{ n }] = await sql<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM ${pq(table)}`);
        expect({ file: gtfsFile, n }).toEqual({ file: gtfsFile, n: t.imported_rows });
        skippedByFile[gtfsFile] = t.skipped_rows;
      }
      const warnedSkips = Object.entries(report.warnings).filter(([k]) => !NON_SKIPPING.has(k)).reduce((s, [, w]) => s + w.count, 0);
      const totalSkips = Object.values(report.tables).reduce((s, t) => s + t.skipped_rows, 0);
      expect(warnedSkips).toBe(totalSkips);

      // values: stops
      const stops = new Map((await sql<{ stop_id: string; stop_name: string | null; stop_lat: number; stop_lon: number }>(
        `SELECT stop_id, stop_name, stop_lat, stop_lon, location_type FROM ${pq("stops")}`)).map((s) => [s.stop_id, s]));
      const bad: string[] = [];
      for (const r of raw.get("stops.txt")!) {
        const s = stops.get(r.stop_id!);
        if (!s || r.stop_lat === "") continue;
        if ((s.stop_name ?? "") !== (r.stop_name ?? "") || Math.abs(s.stop_lat - Number(r.stop_lat)) > 1e-9 || Math.abs(s.stop_lon - Number(r.stop_lon)) > 1e-9) bad.push(`stop ${r.stop_id}`);
      }
      // values: trips
      const trips = new Map((await sql<Record<string, string | number | null>>(
        `SELECT trip_id, route_id, service_id, trip_headsign, block_id, direction_id FROM ${pq("trips")}`)).map((t) => [t.trip_id as string, t]));
      for (const r of raw.get("trips.txt")!) {
        const t = trips.get(r.trip_id!);
        if (!t) continue;
        if (JSON.stringify([t.route_id, t.service_id, t.trip_headsign ?? "", t.block_id ?? ""]) !== JSON.stringify([r.route_id, r.service_id, r.trip_headsign ?? "", r.block_id ?? ""])) bad.push(`trip ${r.trip_id}`);
        if (r.direction_id && t.direction_id !== Number(r.direction_id)) bad.push(`trip ${r.trip_id} direction`);
      }
      // values: stop_times times (not interpolated ones), by trip_id + stop_sequence
      const st = new Map((await sql<{ k: string; a: number; d: number; i: number }>(
        `SELECT trip_id || '|' || stop_sequence AS k, arrival_time AS a, departure_time AS d, interpolated AS i FROM ${pq("stop_times")}`)).map((x) => [x.k, x]));
      let compared = 0;
      for (const r of raw.get("stop_times.txt")!) {
        const x = st.get(`${r.trip_id}|${Number(r.stop_sequence)}`);
        if (!x) continue;
        // GTFS-Flex stop_times (a zone or group, a window instead of times): compared in flex.test.ts
        if (r.location_id || r.location_group_id) {
          compared++;
          continue;
        }
        const a = hmsToSec(r.arrival_time ?? ""), d = hmsToSec(r.departure_time ?? "");
        if (a === null && d === null) {
          if (x.i !== 1) bad.push(`stop_time ${r.trip_id}/${r.stop_sequence} not flagged interpolated`);
          continue;
        }
        if (x.i !== 0 || x.a !== (a ?? d) || x.d !== (d ?? a)) bad.push(`stop_time ${r.trip_id}/${r.stop_sequence}: ${x.a}/${x.d} vs ${r.arrival_time}/${r.departure_time}`);
        compared++;
      }
      if (report.tables["stop_times.txt"]!.imported_rows > 0) expect(compared).toBeGreaterThan(0);
      // stop_times.parquet is in (trip_ref, stop_sequence) order, and its references agree with trips and stops
      const [chk] = await sql<{ unordered: number; badRef: number }>(`SELECT
        (SELECT count(*)::INTEGER FROM (SELECT trip_ref, stop_sequence, lag(trip_ref) OVER () AS pt, lag(stop_sequence) OVER () AS ps FROM ${pq("stop_times")})
          WHERE pt IS NOT NULL AND (trip_ref, stop_sequence) <= (pt, ps)) AS unordered,
        (SELECT count(*)::INTEGER FROM ${pq("stop_times")} x LEFT JOIN ${pq("trips")} t ON t.id = x.trip_ref LEFT JOIN ${pq("stops")} s ON s.id = x.stop_ref
          WHERE t.trip_id IS DISTINCT FROM x.trip_id OR s.stop_id IS DISTINCT FROM x.stop_id) AS badRef`);
      expect(chk).toEqual({ unordered: 0, badRef: 0 });
      expect(bad.slice(0, 10)).toEqual([]);
      // calendars: one row per service_id of calendar.txt ∪ calendar_dates.txt
      const services = new Set([...(raw.get("calendar.txt") ?? []), ...(raw.get("calendar_dates.txt") ?? [])].map((r) => r.service_id));
      const [{ n: nCal }] = await sql<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM ${pq("calendars")}`);
      expect(nCal).toBe(services.size);
      // shapes: every trip has a shape with >= 2 points (but a GTFS-Flex trip without a stop, which has none)
      const [{ n: noShape }] = await sql<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM ${pq("trips")} t
        WHERE (SELECT count(*) FROM ${pq("shapes")} s WHERE s.shape_id = t.shape_id) < 2
          AND (t.shape_id IS NOT NULL OR EXISTS (SELECT 1 FROM ${pq("stop_times")} x WHERE x.trip_ref = t.id AND x.stop_ref IS NOT NULL))`);
      expect(noShape).toBe(0);
    }, 300_000); // a correctness test: a loaded 2-core host may take minutes for the largest feed
  }
});
