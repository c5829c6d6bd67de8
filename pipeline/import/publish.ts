/**
 * The last stages of an import. recordTables: the report's rows per file. publishVersion: the
 * version folder moved out of staging, then the manifest switch (the atomic step that makes it
 * visible, and active), then a prepared timetable placed.
 */
import type { DuckDBConnection } from "@duckdb/node-api";
import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { scalar } from "../duck.ts";
import type { BuildResult } from "../gtfs/build.ts";
import type { RawTable } from "../gtfs/load.ts";
import { readManifest } from "../schema/manifest.ts";
import { writeManifest } from "../store/manifest.ts";
import { fsyncDir, writeFileDurable } from "../store/durable.ts";
import type { Task } from "../tasks.ts";
import { placeStagedTimetable, type StagedTimetable } from "../timetable/publish.ts";
import type { ImportRun } from "./run.ts";
import type { ImportSession } from "./session.ts";
import type { NewVersion } from "./version.ts";

/** The GTFS file each catalog table is imported from (the report's tables). */
const SOURCE_FILE: Record<string, string> = {
  agencies: "agency.txt", routes: "routes.txt", stops: "stops.txt", trips: "trips.txt", stop_times: "stop_times.txt", shapes: "shapes.txt",
  frequencies: "frequencies.txt", transfers: "transfers.txt", feed_info: "feed_info.txt",
  ...Object.fromEntries(["fare_attributes", "fare_rules", "fare_media", "rider_categories", "fare_products", "areas", "stop_areas", "networks", "route_networks",
    "timeframes", "fare_leg_rules", "fare_transfer_rules", "location_groups", "location_group_stops", "booking_rules"].map((t) => [t, `${t}.txt`])),
};

/** The report's rows per GTFS file (read, imported, skipped) and derived rows; the import is "imported". */
export async function recordTables(run: ImportRun, conn: DuckDBConnection, raw: Map<string, RawTable>, built: BuildResult): Promise<void> {
  const { report } = run;
  for (const [table, file] of Object.entries(SOURCE_FILE)) {
    report.tables[file] = { source_rows: raw.get(file)!.rows, imported_rows: built.counts[table] ?? 0, skipped_rows: built.skipped[file] ?? 0 };
  }
  // GTFS-Flex zones (not a CSV file: its features are its rows), when the feed has them
  const zones = (built.counts.locations ?? 0) + (built.skipped["locations.geojson"] ?? 0);
  if (zones > 0) report.tables["locations.geojson"] = { source_rows: zones, imported_rows: built.counts.locations ?? 0, skipped_rows: built.skipped["locations.geojson"] ?? 0 };
  for (const file of ["calendar.txt", "calendar_dates.txt"]) {
    report.tables[file] = { source_rows: raw.get(file)!.rows, imported_rows: raw.get(file)!.rows - (built.skipped[file] ?? 0), skipped_rows: built.skipped[file] ?? 0 };
  }
  // generated shapes add rows to shapes.parquet that are not in shapes.txt
  const genPts = await scalar(conn, `SELECT count(*) AS n FROM shapes WHERE generated`);
  report.tables["shapes.txt"]!.imported_rows -= genPts;
  report.derived = { ...built.derived, generated_shape_points: genPts };
  report.status = "imported";
}

/**
 * Publishes the version: its report into the folder, the database closed (its memory freed) while
 * the Parquet files reach the disk (`synced`: the manifest must not point at data a machine crash
 * could still lose), the folder renamed into `<data>/versions/<sha1>/`, the manifest switched, and
 * the staged timetable, if any, placed (only now is it the timetable of the active versions its
 * name says).
 */
export async function publishVersion(run: ImportRun, session: ImportSession, version: NewVersion, synced: Task<void>, staged: StagedTimetable | null): Promise<void> {
  const { report, dataDir } = run;
  report.elapsed_ms = Math.round(performance.now() - run.started);
  writeFileDurable(join(session.versionDir, "report.json"), JSON.stringify(report, null, 2));
  await session.closeDatabase();
  await synced.result();
  const versionsDir = join(dataDir, "versions");
  mkdirSync(versionsDir, { recursive: true });
  const finalDir = join(versionsDir, version.sha1);
  if (existsSync(finalDir)) rmSync(finalDir, { recursive: true, force: true }); // debris: not in the manifest
  renameSync(session.versionDir, finalDir);
  fsyncDir(versionsDir);

  const m = readManifest(dataDir); // unchanged since we hold the lock, re-read for safety
  version.publish(m);
  report.activated = run.activate;
  writeManifest(dataDir, m);
  // a crash before this line leaves refreshTimetable to compile it
  if (staged) placeStagedTimetable(dataDir, staged);
  run.progress(`imported ${version.sha1} as ${version.feedOnestopId}${run.activate ? " (active)" : " (not activated)"}: ${version.counts.stop_times} stop_times in ${(report.elapsed_ms / 1000).toFixed(2)} s`);
}
