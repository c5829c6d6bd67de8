/**
 * importFeed: one GTFS source → one immutable feed version folder of Parquet tables, then an atomic
 * manifest switch. Everything is built in `<data>/staging/` first; only a complete version folder
 * is renamed into `<data>/versions/<sha1>/`, and only the manifest rewrite (write + rename) makes
 * it visible or active. A crash, kill -9 or rejected feed at any point leaves the previous manifest
 * (and so the previous active version) untouched.
 */
import type { DuckDBConnection } from "@duckdb/node-api";
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { TABLE_BY_NAME, TABLES } from "./schema/catalog.ts";
import { loadRawTable, loadRawTables } from "./gtfs/load.ts";
import { buildShapes, buildTables } from "./gtfs/build.ts";
import { deriveOnestopIds, serviceWindow } from "./gtfs/derive.ts";
import { DataError, Issues, type ImportReport } from "./report.ts";
import { onestopName } from "./onestop.ts";
import { folderSha1, isUrl, readSourceBytes, sha1Hex, unpackZip } from "./source.ts";
import { readStopTimesOffThread, type StopTimesRead } from "./gtfs/stop-times-fast.ts";
import {
  acquireLock, activeVersions, allocateIds, fsyncDir, fsyncFilesAsync, readManifest, UNKNOWN_LICENSE, writeFileDurable, writeManifest,
  type License, type Manifest,
} from "./store/manifest.ts";

export interface ImportOptions {
  dataDir: string;
  /** zip path, folder path or http(s) URL */
  source: string;
  /** Onestop feed id; derived from the data when absent */
  feedId?: string;
  license?: Partial<License>;
  /** make the new version the feed's active one (default true) */
  activate?: boolean;
  progress?: (msg: string) => void;
  now?: () => Date;
  /**
   * Also build the planner timetable of the active versions as they will be once this version is
   * active, from this import's in-memory tables while its Parquet files are written; it is moved
   * into `<data>/timetables/` after the manifest switch, where the timetable hook
   * (pipeline/timetable-hook.ts) finds it. For the last feed of a batch (the CLI sets it).
   */
  prepareTimetable?: boolean;
  /**
   * Read stop_times.txt with the fast reader when it takes the file (pipeline/gtfs/stop-times-fast.ts;
   * default true). false: always with DuckDB (tests compare the two).
   */
  fastReader?: boolean;
}

interface PreparedTimetable {
  /** where it goes, relative to the data dir (timetableRelPath of the active versions) */
  rel: string;
  /** where it is, in this import's staging folder */
  file: string;
}

const FEED_ID_RE = /^f-[\p{L}\p{N}~<>-]{1,62}$/u;

export function validateFeedId(id: string): void {
  if (!FEED_ID_RE.test(id) || id !== id.toLowerCase()) {
    throw new DataError(`feed id "${id}" is not a valid Onestop feed id: expected f-<geohash>-<name> or f-<name>, lowercase letters, digits, ~ < > and -, at most 64 characters`);
  }
}

export async function importFeed(opts: ImportOptions): Promise<ImportReport> {
  const started = performance.now();
  const dataDir = resolve(opts.dataDir);
  const now = opts.now ?? (() => new Date());
  if (!isUrl(opts.source)) opts = { ...opts, source: resolve(opts.source) };
  const label = basename(opts.source.replace(/\/+$/, "")) || opts.source;
  const progress = (msg: string) => opts.progress?.(`[${label}] ${msg}`);
  const issues = new Issues();
  const report: ImportReport = {
    status: "rejected", feed_onestop_id: opts.feedId ?? null, sha1: null, source: opts.source, fetched_at: null, activated: false,
    elapsed_ms: 0, tables: {}, derived: {}, warnings: issues.warnings,
  };
  const release = acquireLock(dataDir);
  const stagingRoot = join(dataDir, "staging");
  let staging: string | null = null;
  // stop_times.txt, the largest file, is unpacked (from a zip) and read by the fast reader in a
  // worker thread while the other files load (readStopTimesOffThread)
  let stopTimesRead: StopTimesRead | null = null;
  try {
    // We hold the lock, so anything left in staging/ is debris of a killed import.
    rmSync(stagingRoot, { recursive: true, force: true });
    if (opts.feedId) validateFeedId(opts.feedId);
    const fetchedAt = now();
    report.fetched_at = fetchedAt.toISOString();
    const src = await readSourceBytes(opts.source);
    const sha1 = src.kind === "zip" ? sha1Hex(src.bytes!) : folderSha1(opts.source);
    report.sha1 = sha1;
    const manifest = readManifest(dataDir);
    const existing = manifest.versions.find((v) => v.sha1 === sha1);
    if (existing) {
      report.status = "unchanged";
      report.feed_onestop_id = existing.feed_onestop_id;
      report.activated = manifest.feeds.find((f) => f.onestop_id === existing.feed_onestop_id)?.active === sha1;
      progress(`unchanged: version ${sha1} is already imported (feed ${existing.feed_onestop_id})`);
      return report;
    }
    // DuckDB (a 70 MB library: ~50 ms of loading on this thread) and the timetable compiler load
    // while the zip is unpacked (the largest member in a worker thread) rather than before
    const duckdb = import("@duckdb/node-api");
    const compiler = import("./timetable/compile.ts");
    duckdb.catch(() => {}); // awaited below; this only keeps a failure from being "unhandled" meanwhile
    compiler.catch(() => {});
    staging = join(stagingRoot, `${sha1}.${process.pid}`);
    const gtfsDir = src.kind === "zip" ? join(staging, "gtfs") : resolve(opts.source);
    const outDir = join(staging, "version");
    mkdirSync(outDir, { recursive: true });
    if (src.kind === "zip") {
      const { size, stopTimes } = await unpackZip(src.bytes!, gtfsDir, opts.source, opts.fastReader !== false);
      stopTimesRead = stopTimes; // awaited by loadRawTables and buildTables (or in finally)
      progress(`unpacking ${(size / 1e6).toFixed(1)} MB`);
    } else if (opts.fastReader !== false && existsSync(join(gtfsDir, "stop_times.txt"))) {
      stopTimesRead = readStopTimesOffThread({ file: join(gtfsDir, "stop_times.txt") });
    }

    const ids: Manifest["next_ids"] = { ...manifest.next_ids };
    const scratch: Manifest = { ...manifest, next_ids: ids };
    const fvid = allocateIds(scratch, "feed_versions", 1);
    const { DuckDBInstance } = await duckdb;
    const { buildTimetableChunks, parquetTables, readStopTimes, timetableRelPath } = await compiler;
    const db = await DuckDBInstance.create(":memory:", {
      threads: "2",
      memory_limit: "3GB",
      temp_directory: join(staging, "duckdb.tmp"),
      preserve_insertion_order: "true",
      // An in-memory database still checkpoints (compressing every table) once 16 MB of changes
      // accumulate; in an import that is a full extra pass over the raw CSV tables (1-2 s of CPU on
      // a 2.4 M stop_times feed) for tables that are dropped minutes later. The import never needs one.
      checkpoint_threshold: "1TB",
    });
    const conn = await db.connect();
    // shapes.txt is read and checked on a connection of its own while the other files, the trips
    // and the stop_times are (buildShapes; nothing before the trips' shape check needs it)
    const laneConn = await db.connect();
    const shapesRaw = loadRawTable(laneConn, gtfsDir, "shapes.txt");
    const shapesBuilt = shapesRaw.then((r) => buildShapes({ conn: laneConn, raw: new Map([["shapes.txt", r.table]]) }));
    shapesBuilt.catch(() => {}); // awaited by buildTables (or in finally); this only keeps an early failure from being "unhandled"
    // stop_times.parquet, the largest file, is written on a second connection while the other
    // tables are still being built (buildTables says when the stop_times view is final)
    let stopTimesCopy: Promise<unknown> | null = null;
    let stConn: DuckDBConnection | null = null;
    // a table as written to Parquet (the catalog's column types)
    const asCatalog = (t: (typeof TABLES)[number]) => `SELECT ${t.columns.map((c) => `CAST("${c.name}" AS ${c.type}) AS "${c.name}"`).join(", ")} FROM ${t.name}`;
    const copySql = (t: (typeof TABLES)[number]) =>
      `COPY (${asCatalog(t)}) TO '${join(outDir, `${t.name}.parquet`)}' (FORMAT parquet, COMPRESSION zstd, COMPRESSION_LEVEL 1, ROW_GROUP_SIZE 122880, DICTIONARY_SIZE_LIMIT 0)`;
    // a table as this import holds it, in the catalog's types (a subquery: a relation for the timetable)
    const inMemory = (t: string) => `(${asCatalog(TABLE_BY_NAME.get(t)!)})`;
    // the planner timetable prepared from the in-memory tables (opts.prepareTimetable), or null; its
    // connection, and its read of this version's stop_times, started as soon as they are final
    let timetable: Promise<PreparedTimetable | null> | null = null;
    const wantTimetable = (opts.activate ?? true) && opts.prepareTimetable === true;
    // (no connection, no timetable: the hook compiles it after the import as before)
    const ttConn = wantTimetable ? db.connect().catch(() => null) : null;
    let ttStopTimes: Promise<Int32Array[] | null> | null = null;
    try {
      // stop_times.txt is read by buildTables (straight into its typed table when the file is clean)
      const raw = await loadRawTables(conn, gtfsDir, issues, stopTimesRead ? new Map([["stop_times.txt", stopTimesRead.unpacked]]) : undefined, new Set(["stop_times.txt"]), new Map([["shapes.txt", shapesRaw]]));
      for (const [file, r] of raw) if (r.present && !r.deferred) progress(`${file}: ${r.rows} rows read (${((performance.now() - started) / 1000).toFixed(2)} s)`);
      const copyConn = (stConn = await db.connect());
      const stopTimesReady = (columns: (() => Int32Array[]) | null) => {
        const copy = copyConn.run(copySql(TABLES.find((t) => t.name === "stop_times")!));
        copy.catch(() => {}); // awaited below (or in finally); this only keeps an early failure from being "unhandled"
        stopTimesCopy = copy;
        if (ttConn) {
          ttStopTimes = columns ? Promise.resolve(columns()) : ttConn.then((c) => (c ? readStopTimes(c, inMemory) : null));
          ttStopTimes.catch(() => {}); // the same: awaited by the timetable (or in finally)
        }
      };
      const built = await buildTables({
        conn, connect: () => db.connect(), raw, issues, fvid, allocate: (k, n) => allocateIds(scratch, k, n), progress, stopTimesReady, shapes: shapesBuilt,
        fastStopTimes: stopTimesRead?.parsed, stopTimesFile: stopTimesRead?.ensureFile,
      });
      laneConn.closeSync();
      const derivedFeedId = await deriveOnestopIds(conn);
      const feedOnestopId = opts.feedId ?? disambiguate(manifest, derivedFeedId, opts.source, issues);
      validateFeedId(feedOnestopId);
      report.feed_onestop_id = feedOnestopId;
      const win = await serviceWindow(conn, fetchedAt);
      const feedEntry = manifest.feeds.find((f) => f.onestop_id === feedOnestopId);
      const license: License = { ...UNKNOWN_LICENSE, ...(feedEntry?.license ?? {}), ...(opts.license ?? {}) };
      const feedIntId = feedEntry?.id ?? allocateIds(scratch, "feeds", 1);
      const sqlDate = (d: string | null) => (d ? `DATE '${d}'` : "NULL::DATE");
      const s = (v: string | null) => (v == null ? "NULL::VARCHAR" : `'${v.replace(/'/g, "''")}'`);
      await conn.run(`CREATE TABLE feed_version AS SELECT ${fvid}::INTEGER AS id, ${s(sha1)} AS sha1, ${feedIntId}::INTEGER AS feed_id,
          ${s(feedOnestopId)} AS feed_onestop_id, TIMESTAMPTZ '${fetchedAt.toISOString()}' AS fetched_at, ${s(opts.source)} AS source,
          (SELECT agency_timezone FROM agencies ORDER BY id LIMIT 1) AS default_timezone,
          ${sqlDate(win.windowStart)} AS service_start_date, ${sqlDate(win.windowEnd)} AS service_end_date,
          ${sqlDate(win.earliest)} AS earliest_calendar_date, ${sqlDate(win.latest)} AS latest_calendar_date, ${sqlDate(win.bestWeekStart)} AS best_week_start,
          ${s(license.commercial_use_allowed)} AS license_commercial_use_allowed, ${s(license.share_alike_optional)} AS license_share_alike_optional,
          ${s(license.create_derived_product)} AS license_create_derived_product, ${s(license.redistribution_allowed)} AS license_redistribution_allowed,
          ${s(license.use_without_attribution)} AS license_use_without_attribution`);
      const activate = opts.activate ?? true;
      const counts = { ...built.counts };
      // what the manifest switch below does, also applied to a copy of the manifest to know the
      // active versions (and their order) of the timetable prepared meanwhile
      const publish = (m: Manifest) => {
        m.next_ids = { ...m.next_ids, ...scratch.next_ids };
        let feed = m.feeds.find((f) => f.onestop_id === feedOnestopId);
        if (!feed) {
          feed = { id: feedIntId, onestop_id: feedOnestopId, source: opts.source, license, active: null };
          m.feeds.push(feed);
        }
        feed.license = license;
        feed.source = opts.source;
        m.versions.push({ id: fvid, sha1, feed_onestop_id: feedOnestopId, fetched_at: fetchedAt.toISOString(), source: opts.source, path: `versions/${sha1}`, counts });
        if (activate) feed.active = sha1;
      };
      if (ttConn) {
        const after = structuredClone(manifest);
        publish(after);
        const versions = activeVersions(after);
        const rel = timetableRelPath(versions.map((v) => v.sha1));
        const c = await ttConn;
        if (c && !existsSync(join(dataDir, rel))) {
          const t0 = performance.now();
          const sources = versions.map((v) => (v.sha1 === sha1 ? inMemory : parquetTables(join(dataDir, v.path))));
          timetable = buildTimetableChunks(c, sources, undefined, (m) => progress(`${m} (${((performance.now() - t0) / 1000).toFixed(2)} s)`), versions.map((v) => (v.sha1 === sha1 ? ttStopTimes : null)))
            .then((chunks) => {
              const file = join(staging!, "timetable.arrow");
              writeFileDurable(file, chunks);
              progress(`timetable prepared: ${(chunks.reduce((n, c) => n + c.length, 0) / 1e6).toFixed(1)} MB in ${((performance.now() - t0) / 1000).toFixed(2)} s`);
              return { rel, file };
            })
            .catch((e: Error) => {
              // not fatal: the timetable hook compiles from the Parquet files instead (and reports)
              progress(`timetable not prepared (${e.message}); it is compiled after the import`);
              return null;
            });
        }
      }
      // tables are created in their documented sort order, so no ORDER BY (and no second sort) here
      for (const t of TABLES) if (!(t.name === "stop_times" && stopTimesCopy)) await conn.run(copySql(t));
      await stopTimesCopy;
      progress(`parquet written (${((performance.now() - started) / 1000).toFixed(2)} s)`);
      // the version's files reach the disk (fsync) while the timetable is finished: the manifest
      // must not point at data a machine crash could still lose
      const parquetSynced = fsyncFilesAsync(outDir);
      parquetSynced.catch(() => {}); // awaited before the version is published (an import that fails first does not wait for it)
      const prepared = await timetable;
      const source: Record<string, string> = {
        agencies: "agency.txt", routes: "routes.txt", stops: "stops.txt", trips: "trips.txt", stop_times: "stop_times.txt", shapes: "shapes.txt",
        frequencies: "frequencies.txt", transfers: "transfers.txt", feed_info: "feed_info.txt",
      };
      for (const [table, file] of Object.entries(source)) {
        const rawT = raw.get(file)!;
        report.tables[file] = { source_rows: rawT.rows, imported_rows: built.counts[table] ?? 0, skipped_rows: built.skipped[file] ?? 0 };
      }
      for (const file of ["calendar.txt", "calendar_dates.txt"]) {
        report.tables[file] = { source_rows: raw.get(file)!.rows, imported_rows: raw.get(file)!.rows - (built.skipped[file] ?? 0), skipped_rows: built.skipped[file] ?? 0 };
      }
      // generated shapes add rows to shapes.parquet that are not in shapes.txt
      const genPts = Number((await conn.runAndReadAll(`SELECT count(*) AS n FROM shapes WHERE generated`)).getRowObjects()[0]!.n);
      report.tables["shapes.txt"]!.imported_rows -= genPts;
      report.derived = { ...built.derived, generated_shape_points: genPts };
      report.status = "imported";

      // ---- publish: version folder first, then the manifest (the atomic switch)
      report.elapsed_ms = Math.round(performance.now() - started);
      writeFileDurable(join(outDir, "report.json"), JSON.stringify(report, null, 2));
      await (ttStopTimes as Promise<unknown> | null)?.catch(() => {}); // still running when the timetable was not needed
      (await ttConn)?.closeSync();
      stConn.closeSync();
      conn.closeSync();
      db.closeSync();
      await parquetSynced;
      const versionsDir = join(dataDir, "versions");
      mkdirSync(versionsDir, { recursive: true });
      const finalDir = join(versionsDir, sha1);
      if (existsSync(finalDir)) rmSync(finalDir, { recursive: true, force: true }); // debris: not in the manifest
      renameSync(outDir, finalDir);
      fsyncDir(versionsDir);

      const m = readManifest(dataDir); // unchanged since we hold the lock, re-read for safety
      publish(m);
      report.activated = activate;
      writeManifest(dataDir, m);
      if (prepared) {
        // only now, with this version published, is the file the timetable of the active versions
        // its name says (a version's ids are final once published); a crash before this line leaves
        // the hook to compile it
        const dest = join(dataDir, prepared.rel);
        mkdirSync(dirname(dest), { recursive: true });
        renameSync(prepared.file, dest);
        fsyncDir(dirname(dest));
      }
      progress(`imported ${sha1} as ${feedOnestopId}${activate ? " (active)" : " (not activated)"}: ${counts.stop_times} stop_times in ${(report.elapsed_ms / 1000).toFixed(2)} s`);
    } finally {
      // a failed import still waits for the shapes, the stop_times writer and the timetable before the database goes away
      await shapesBuilt.catch(() => {});
      await (stopTimesCopy as Promise<unknown> | null)?.catch(() => {});
      await (timetable as Promise<unknown> | null)?.catch(() => {});
      await (ttStopTimes as Promise<unknown> | null)?.catch(() => {});
      try { (await ttConn)?.closeSync(); } catch { /* closed, or never opened */ }
      try { (stConn as DuckDBConnection | null)?.closeSync(); } catch { /* closed */ }
      try { conn.closeSync(); } catch { /* closed */ }
      try { laneConn.closeSync(); } catch { /* closed */ }
      try { db.closeSync(); } catch { /* closed */ }
    }
    return report;
  } catch (e) {
    report.status = "rejected";
    if (e instanceof DataError) report.error = { file: e.file, line: e.line, message: e.message };
    else report.error = { message: (e as Error).message, ...(process.env.INTERCHANGE_DEBUG ? { stack: (e as Error).stack } : {}) } as ImportReport["error"];
    progress(`rejected: ${report.error?.message}`);
    return report;
  } finally {
    report.elapsed_ms = Math.round(performance.now() - started);
    try {
      const reports = join(dataDir, "reports");
      mkdirSync(reports, { recursive: true });
      const name = `${report.sha1 ?? "unknown"}-${report.status}.json`;
      writeFileSync(join(reports, name), JSON.stringify(report, null, 2));
    } catch { /* reporting must not mask the result */ }
    // no worker keeps unpacking or reading after we are done
    (stopTimesRead as StopTimesRead | null)?.cancel();
    if (staging) rmSync(staging, { recursive: true, force: true });
    try {
      if (existsSync(stagingRoot) && readdirSync(stagingRoot).length === 0) rmSync(stagingRoot, { recursive: true, force: true });
    } catch { /* ignore */ }
    release();
  }
}

/**
 * Without --feed-id, the source (path or URL) tells feeds apart: a derived id already used by a
 * feed from another source (MTA's subway and bus feeds share agency and area) gets `~<file name>`.
 */
function disambiguate(m: Manifest, derived: string, source: string, issues: Issues): string {
  const owner = (id: string) => m.feeds.find((f) => f.onestop_id === id);
  const first = owner(derived);
  if (!first || first.source === source) return derived;
  const stem = onestopName(basename(source.replace(/[?#].*$/, "")).replace(/\.zip$/i, "")) || "feed";
  let id = `${derived}~${stem}`.slice(0, 64);
  for (let n = 2; owner(id) && owner(id)!.source !== source; n++) id = `${derived}~${stem}${n}`.slice(0, 64);
  issues.add("derived_feed_id_taken", { file: "agency.txt", message: `feed id ${derived} belongs to ${first.source}; this source is imported as ${id} (pass --feed-id to choose)` });
  return id;
}
