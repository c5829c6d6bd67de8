/**
 * One validation: a GTFS folder's files loaded (load.ts), the field checks (fields.ts) and the
 * rules (rules.ts) run, the report built (report.ts). On a DuckDB connection of the caller's (the
 * import's session, where the import's stop times, its in-memory columns or its stop_times
 * relation, stand in for stop_times.txt) or on a database of its own (then a large stop_times.txt
 * is read by the import's fast reader when that gives the same report: fast-stop-times.ts).
 */
import type { DuckDBConnection } from "@duckdb/node-api";
import { existsSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { summarizeReport, VALIDATION_HTML, VALIDATION_JSON, type ValidationSummary } from "../schema/validation.ts";
import { checkFields, checkForeignKeys, checkKeys } from "./fields.ts";
import type { StopTimesColumns } from "../gtfs/stop-times/columns.ts";
import { FAST_STOP_TIMES_MIN_BYTES, FastStopTimesRead, prepareFastStopTimes } from "./fast-stop-times.ts";
import { loadFeed, readTakenFile, type LoadedFile } from "./load.ts";
import { Notices } from "./notices.ts";
import { reportHtml, type ValidationReport } from "./report.ts";
import { runRules } from "./rules.ts";
import type { PreparedStopTimes } from "./stop-times.ts";

export const VALIDATOR_VERSION = "interchange-validator 1";

export interface ValidateOptions {
  /** the folder of the feed's .txt files */
  dir: string;
  /** what the report names as its input */
  input: string;
  /** a folder for scratch files (transcoded copies) */
  scratchDir: string;
  /** the date the expiry rules compare with (default: today, UTC) */
  today?: Date;
  /**
   * A relation of the caller's database in the catalog's stop_times layout (the import's, after its
   * checks): stop_times.txt is then not read again, and its field-level checks are left to the import.
   */
  stopTimesRelation?: string;
  /** with stopTimesRelation: settles once the relation is final (the other files are checked meanwhile) */
  stopTimesReady?: () => Promise<void>;
  /** with stopTimesRelation, once it is final: the same stop times as columns, when the caller has them in memory (read instead of the relation) */
  stopTimesContract?: () => StopTimesColumns | null;
  /**
   * without stopTimesRelation: stop_times.txt from this size on (bytes; default FAST_STOP_TIMES_MIN_BYTES)
   * is read by the import's fast reader instead of DuckDB when that gives the same report (fast-stop-times.ts)
   */
  fastStopTimesMinBytes?: number;
}

/** Validates a feed folder on `conn` (its tables are made under the `v_` prefix) or on a database of its own. */
export async function validateFolder(opts: ValidateOptions, conn?: DuckDBConnection): Promise<ValidationReport> {
  if (conn) return validateOn(conn, opts);
  const { DuckDBInstance } = await import("@duckdb/node-api");
  mkdirSync(opts.scratchDir, { recursive: true });
  const db = await DuckDBInstance.create(":memory:", { threads: "2", preserve_insertion_order: "true", temp_directory: join(opts.scratchDir, "duckdb.tmp") });
  const c = await db.connect();
  try {
    return await validateOn(c, opts);
  } finally {
    c.closeSync();
    db.closeSync();
  }
}

async function validateOn(conn: DuckDBConnection, opts: ValidateOptions): Promise<ValidationReport> {
  const started = performance.now();
  const notices = new Notices();
  const today = (opts.today ?? new Date()).toISOString().slice(0, 10);
  const skip = new Set(opts.stopTimesRelation ? ["stop_times.txt"] : []);
  const stopTimesPath = join(opts.dir, "stop_times.txt");
  const fastStopTimes = !opts.stopTimesRelation && existsSync(stopTimesPath) && statSync(stopTimesPath).isFile()
    && statSync(stopTimesPath).size >= (opts.fastStopTimesMinBytes ?? FAST_STOP_TIMES_MIN_BYTES) ? new FastStopTimesRead(stopTimesPath) : null;
  let files: Map<string, LoadedFile>;
  let prepared: PreparedStopTimes | null = null;
  try {
    files = await loadFeed(conn, opts.dir, notices, { scratchDir: opts.scratchDir, skip, fastStopTimes });
  } finally {
    fastStopTimes?.cancel();
  }
  const stopTimes = files.get("stop_times.txt")!;
  if (stopTimes.fast) {
    // the fast reader's rows keyed by trips.txt and stops.txt: stop_times.txt's checks have nothing
    // to find then (else the file is read by DuckDB after all, and they find it)
    prepared = await prepareFastStopTimes(conn, stopTimes.fast);
    if (prepared) skip.add("stop_times.txt");
    else await readTakenFile(conn, opts.dir, stopTimes, notices);
    stopTimes.fast = undefined;
  }
  await checkFields(conn, files, notices, skip);
  await checkKeys(conn, files, notices, skip);
  await checkForeignKeys(conn, files, notices, skip);
  await opts.stopTimesReady?.();
  await runRules({
    conn, notices, files, today, stopTimesRelation: opts.stopTimesRelation, stopTimesContract: opts.stopTimesRelation ? opts.stopTimesContract?.() : null, preparedStopTimes: prepared,
  });
  const feedInfo = await firstRow(conn, files, "feed_info.txt", ["feed_publisher_name", "feed_publisher_url", "feed_lang", "feed_start_date", "feed_end_date", "feed_version"]);
  const agencies = await allRows(conn, files, "agency.txt", ["agency_id", "agency_name", "agency_url", "agency_timezone"]);
  const counts: Record<string, number> = {
    Shapes: await scalar(conn, `SELECT count(DISTINCT shape_id) FROM v_shapes`), Stops: files.get("stops.txt")!.rows, Routes: files.get("routes.txt")!.rows,
    Trips: files.get("trips.txt")!.rows, Agencies: files.get("agency.txt")!.rows, Blocks: await scalar(conn, `SELECT count(DISTINCT block_id) FROM v_trips`),
  };
  return {
    summary: {
      validatorVersion: VALIDATOR_VERSION, validatedAt: new Date().toISOString(), gtfsInput: opts.input, dateForValidation: today,
      validationTimeSeconds: Math.round(performance.now() - started) / 1000,
      files: [...files.values()].filter((f) => f.present).map((f) => f.spec.file), feedInfo, agencies, counts,
    },
    notices: notices.list(),
  };
}

async function scalar(conn: DuckDBConnection, sql: string): Promise<number> {
  return Number((await conn.runAndReadAll(sql)).getRows()[0]?.[0] ?? 0);
}

async function allRows(conn: DuckDBConnection, files: Map<string, LoadedFile>, file: string, cols: string[]): Promise<Record<string, string | null>[]> {
  if (!files.get(file)?.present) return [];
  const t = `v_${file.replace(".txt", "")}`;
  return (await conn.runAndReadAll(`SELECT ${cols.join(", ")} FROM ${t} ORDER BY __line LIMIT 100`)).getRowObjectsJS() as Record<string, string | null>[];
}

async function firstRow(conn: DuckDBConnection, files: Map<string, LoadedFile>, file: string, cols: string[]): Promise<Record<string, string | null> | null> {
  return (await allRows(conn, files, file, cols))[0] ?? null;
}

/** Notices per severity of a report. */
export function countsOf(report: ValidationReport): { errors: number; warnings: number; infos: number } {
  const out = { errors: 0, warnings: 0, infos: 0 };
  for (const n of report.notices) out[n.severity === "ERROR" ? "errors" : n.severity === "WARNING" ? "warnings" : "infos"] += n.totalNotices;
  return out;
}

/**
 * Writes report.json and report.html into `dir` (as `<prefix>report.json`, or the names given),
 * and returns the summary with the paths relative to `relTo`'s data dir as given.
 */
export function writeReports(report: ValidationReport, jsonPath: string, htmlPath: string): void {
  mkdirSync(join(jsonPath, ".."), { recursive: true });
  writeFileSync(jsonPath, JSON.stringify(report, null, 2));
  writeFileSync(htmlPath, reportHtml(report));
}

export function summaryOf(report: ValidationReport, jsonRel: string, htmlRel: string): ValidationSummary {
  return summarizeReport(report, jsonRel, htmlRel);
}

export { VALIDATION_HTML, VALIDATION_JSON };
