/**
 * importFeed: one GTFS source → one immutable feed version folder of Parquet tables, then an atomic
 * manifest switch. Everything is built in `<data>/staging/` first; only a complete version folder
 * is renamed into `<data>/versions/<sha1>/`, and only the manifest rewrite (write + rename) makes
 * it visible or active. A crash, kill -9 or rejected feed at any point leaves the previous manifest
 * (and so the previous active version) untouched.
 *
 * The stages, in order, under the import lock:
 *   fetch     import/fetch.ts     the source's bytes and SHA-1 (a URL: import/download.ts, conditional,
 *                                 retried); a version already imported, or a 304, ends here
 *   unpack    import/fetch.ts     the zip into the staging folder, stop_times.txt to the fast reader (a worker thread)
 *   read      gtfs/load.ts        every GTFS file into its raw table
 *   build     gtfs/build.ts       the table modules of gtfs/tables/, in order
 *   validate  import/validation.ts  MobilityData's notice codes (a lane beside the build); the policy may refuse the version
 *   describe  import/version.ts   feed id, service window, the feed_version row
 *   write     import/parquet.ts   the Parquet files and the geocoder's stops (geocode/stops.ts), then flushed to disk
 *                                 with the source zip, kept as it came (written while it is unpacked)
 *   publish   import/publish.ts   the version folder, the manifest switch, a prepared timetable placed
 * An import session (import/session.ts) owns the staging folder, the DuckDB database and its
 * connections, and the lanes: named tasks running beside the stages (shapes.txt read and checked
 * on a connection of its own; stop_times.parquet written as soon as the trip_check module is
 * built, and its table dropped once nothing reads it; the timetable prepared, import/timetable.ts),
 * all awaited before the database closes.
 */
import type { DuckDBConnection } from "@duckdb/node-api";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startBuild } from "./gtfs/build.ts";
import { loadRawTable, loadRawTables } from "./gtfs/load.ts";
import { GTFS_FILES, gtfsFile, TABLE_MODULES } from "./gtfs/tables/index.ts";
import { checkShapes } from "./gtfs/tables/shapes.ts";
import { fetchSource, rememberSource, unpack, type FetchedSource } from "./import/fetch.ts";
import { writeParquet } from "./import/parquet.ts";
import { writeStopsGeocode } from "./geocode/stops.ts";
import { publishVersion, recordTables } from "./import/publish.ts";
import { ImportRun, type ImportOptions } from "./import/run.ts";
import { ImportSession, stagingRoot } from "./import/session.ts";
import { applyValidation, startValidation } from "./import/validation.ts";
import { PreparedTimetable } from "./import/timetable.ts";
import { describeVersion, validateFeedId } from "./import/version.ts";
import type { ImportReport } from "./report.ts";
import { TABLE_BY_NAME, TABLES } from "./schema/catalog.ts";
import { canComputeServiceLevels, SERVICE_LEVELS_FILE, serviceLevelFiles, serviceLevelSql, serviceLevelsFromRows } from "./schema/service-levels.ts";
import { type Manifest, VERSION_ZIP } from "./schema/manifest.ts";
import { acquireLock, allocateIds } from "./store/manifest.ts";
import { fsyncFilesAsync } from "./store/durable.ts";
import { Task } from "./tasks.ts";

export type { ImportOptions } from "./import/run.ts";
export { validateFeedId } from "./import/version.ts";

export async function importFeed(opts: ImportOptions): Promise<ImportReport> {
  const run = new ImportRun(opts);
  const release = acquireLock(run.dataDir);
  try {
    // We hold the lock, so anything left in staging/ is debris of a killed import.
    rmSync(stagingRoot(run.dataDir), { recursive: true, force: true });
    if (opts.feedId) validateFeedId(opts.feedId);
    const src = await fetchSource(run);
    if (src) {
      await importVersion(run, src);
      // published: the URL's next answer may be a 304 for these bytes
      rememberSource(run, src.sha1, run.report.feed_onestop_id, src.validators);
    }
  } catch (e) {
    run.reject(e);
  } finally {
    run.finish();
    release();
  }
  return run.report;
}

/** The stages from unpack to publish, in a session of their own. */
async function importVersion(run: ImportRun, src: FetchedSource): Promise<void> {
  await using session = new ImportSession(run.dataDir, src.sha1);
  const timetable = run.prepareTimetable ? new PreparedTimetable(run, session) : null;
  // the zip itself, kept in the version folder (schema/manifest.ts VERSION_ZIP), written while it is unpacked
  const keptZip = src.kind === "zip" ? session.lanes.start("keep the zip", () => Bun.write(join(session.versionDir, VERSION_ZIP), src.bytes!)) : null;
  const feed = await unpack(run, session, src);
  // this version's ids, allocated on a copy of the manifest that the switch publishes
  const scratch: Manifest = { ...src.manifest, next_ids: { ...src.manifest.next_ids } };
  const fvid = allocateIds(scratch, "feed_versions", 1);
  const conn = await session.connect();

  // read: every file into its raw table; shapes.txt, read and checked on a lane of its own, is
  // taken at its place (stop_times.txt is read by the build: its table module)
  const shapesConn = await session.connect();
  const shapesRaw = session.lanes.start("read shapes.txt", () => loadRawTable(shapesConn, feed.gtfsDir, gtfsFile("shapes.txt")));
  const shapes = session.lanes.add(shapesRaw.andThen("check shapes.txt", (r) => checkShapes(shapesConn, r.table)));
  const raw = await loadRawTables(conn, feed.gtfsDir, GTFS_FILES, run.issues, {
    pending: feed.stopTimes ? new Map([["stop_times.txt", () => feed.stopTimes!.unpacked.result()]]) : undefined,
    defer: new Set(["stop_times.txt"]),
    preloaded: new Map([["shapes.txt", shapesRaw]]),
  });
  for (const [file, r] of raw) if (r.present && !r.deferred) run.progress(`${file}: ${r.rows} rows read (${run.elapsed()} s)`);

  // build: the table modules in order; the lanes that need a module's tables start when it is built
  // (its connection opened now: once the build runs, opening one may wait behind its queries)
  const stopTimesConn = await session.connect();
  const build = startBuild(TABLE_MODULES, {
    conn, connect: () => session.connect(), raw, issues: run.issues, fvid, allocate: (kind, n) => allocateIds(scratch, kind, n), progress: run.progress,
    shapes, fastStopTimes: feed.stopTimes ? () => feed.stopTimes!.take() : undefined, stopTimesFile: feed.stopTimes?.ensureFile,
    keepStopTimesRest: run.validate,
  });
  // stop_times.parquet, the largest file, is written on a connection of its own once the stop times
  // are final: from the relation of the stop-times contract (gtfs/stop-times/columns.ts)
  const stopTimesWritten = session.lanes.add(build.after("trip_check").andThen("write stop_times.parquet", () =>
    writeParquet(stopTimesConn, session.versionDir, TABLE_BY_NAME.get("stop_times")!)));
  timetable?.follow(build);
  // validate: the other files checked meanwhile, the stop-time rules once trip_check is built
  const validation = await startValidation(run, session, feed.gtfsDir, build);
  const built = await build.result.result();

  // describe: what the version is; the timetable of the active versions with it starts now
  const version = await describeVersion(run, conn, { sha1: src.sha1, id: fvid, fetchedAt: src.fetchedAt, manifest: src.manifest, scratch, counts: built.counts });
  const prepared = timetable?.start(version, src.manifest) ?? null;

  // write: the other tables here while stop_times.parquet's lane finishes
  for (const t of TABLES) if (t.name !== "stop_times") await writeParquet(conn, session.versionDir, t);
  await stopTimesWritten.result();
  run.progress(`parquet written (${run.elapsed()} s)`);
  // the stop times are in stop_times.parquet (and the build is done): once the validation and the
  // timetable have read the relation, DuckDB lets go of it while the timetable is assembled
  session.lanes.start("let go of the stop times", async () => {
    await Promise.all([validation?.result().catch(() => {}), timetable?.stopTimesTaken()]);
    await (await import("./gtfs/stop-times/columns.ts")).dropStopTimes(stopTimesConn);
  });
  // the geocoder's index of the version's stops and stations (pipeline/geocode/stops.ts)
  const geocodeStarted = performance.now();
  const geocode = await writeStopsGeocode(conn, session.versionDir, version.feedOnestopId);
  run.progress(`geocoder index: ${geocode.docs} stops and stations, ${geocode.tokens} words, ${geocode.bytes} bytes in ${Math.round(performance.now() - geocodeStarted)} ms (${run.elapsed()} s)`);
  // the version's service levels (Transitland's feed version service_levels), from its Parquet files
  const levelsStarted = performance.now();
  const levels = await writeServiceLevels(conn, session.versionDir, fvid);
  run.progress(`service levels: ${levels} in ${Math.round(performance.now() - levelsStarted)} ms (${run.elapsed()} s)`);
  // the files reach the disk while the timetable is finished and the database closed (publishVersion
  // awaits it after closing the database, so it is no lane: the close would wait for it)
  await keptZip?.result();
  const synced = new Task("flush the Parquet files", () => fsyncFilesAsync(session.versionDir));
  const staged = prepared ? await prepared.result() : null;
  // the validation's policy decides before the version is published
  await applyValidation(run, session, src.sha1, validation);
  await recordTables(run, conn, raw, built);

  // publish
  await publishVersion(run, session, version, synced, staged);
}

/** Writes the version's service_levels.json (pipeline/schema/service-levels.ts) from its Parquet files; returns how many levels. */
async function writeServiceLevels(conn: DuckDBConnection, versionDir: string, fvid: number): Promise<number> {
  const files = serviceLevelFiles([versionDir]);
  const levels = canComputeServiceLevels(files) ? (serviceLevelsFromRows((await conn.runAndReadAll(serviceLevelSql(files))).getRowObjectsJS() as Record<string, unknown>[]).get(fvid) ?? []) : [];
  writeFileSync(join(versionDir, SERVICE_LEVELS_FILE), JSON.stringify(levels));
  return levels.length;
}
