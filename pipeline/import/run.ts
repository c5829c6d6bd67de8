/**
 * One importFeed call's bookkeeping: its options resolved (data dir, source, clock), its progress
 * lines (prefixed with the source's name), its warnings, and its report, which is always written
 * to `<data>/reports/` when the import ends, whatever the outcome.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import type { License } from "../schema/manifest.ts";
import { DataError, Issues, type ImportReport } from "../report.ts";
import { isUrl } from "../source.ts";
import type { ValidationPolicy } from "../validate/policy.ts";
import { DEFAULT_FETCH_POLICY, FetchError, type FetchPolicy } from "./download.ts";

export interface ImportOptions {
  dataDir: string;
  /** zip path, folder path or http(s) URL */
  source: string;
  /** Onestop feed id; derived from the data when absent */
  feedId?: string;
  license?: Partial<License>;
  /** the feed's name and tags (feeds file): set on the feed when given, kept otherwise */
  name?: string;
  tags?: Record<string, string>;
  /** make the new version the feed's active one (default true) */
  activate?: boolean;
  progress?: (msg: string) => void;
  now?: () => Date;
  /**
   * Also build the planner timetable of the active versions as they will be once this version is
   * active, from this import's in-memory tables while its Parquet files are written; it is moved
   * into `<data>/timetables/` after the manifest switch, where refreshTimetable
   * (pipeline/timetable/publish.ts) finds it. For the last feed of a batch (the CLI sets it).
   */
  prepareTimetable?: boolean;
  /**
   * Read stop_times.txt with the fast reader when it takes the file (pipeline/gtfs/stop-times/fast.ts;
   * default true). false: always with DuckDB (tests compare the two).
   */
  fastReader?: boolean;
  /** an http(s) source: time-out per attempt, retries, back-off (import/download.ts; defaults DEFAULT_FETCH_POLICY) */
  fetch?: Partial<FetchPolicy>;
  /**
   * Ask an http(s) source conditionally (If-None-Match / If-Modified-Since) when the dataset holds
   * the version it answered with last time, so that an unchanged feed costs one 304 (default true).
   */
  conditional?: boolean;
  /**
   * Validate the version (MobilityData's notice codes, pipeline/validate/): its report.json and
   * report.html are kept in the version folder (default false: it costs an import of MTA bus_bk 16-28 % more CPU time; a
   * validationPolicy other than "accept" turns it on).
   */
  validate?: boolean;
  /** which versions the validation refuses (never published nor activated): default "accept" */
  validationPolicy?: ValidationPolicy;
  /** the date the validation's expiry rules compare with (default: the import's clock) */
  validationDate?: Date;
}

/** The validation policy refused the version (import/validation.ts). */
export class RefusedError extends Error {
  override readonly name = "RefusedError";
}

export class ImportRun {
  readonly started = performance.now();
  readonly dataDir: string;
  /** the source, a path resolved (or the URL) */
  readonly source: string;
  readonly activate: boolean;
  readonly fastReader: boolean;
  readonly fetchPolicy: FetchPolicy;
  readonly conditional: boolean;
  /** the timetable is prepared with this import (ImportOptions.prepareTimetable, and the version is activated) */
  readonly prepareTimetable: boolean;
  readonly validate: boolean;
  readonly validationPolicy: ValidationPolicy;
  readonly issues = new Issues();
  readonly report: ImportReport;
  private readonly label: string;

  constructor(readonly opts: ImportOptions) {
    this.dataDir = resolve(opts.dataDir);
    this.source = isUrl(opts.source) ? opts.source : resolve(opts.source);
    this.label = basename(this.source.replace(/\/+$/, "")) || this.source;
    this.activate = opts.activate ?? true;
    this.fastReader = opts.fastReader !== false;
    this.fetchPolicy = { ...DEFAULT_FETCH_POLICY, ...Object.fromEntries(Object.entries(opts.fetch ?? {}).filter(([, v]) => v !== undefined)) };
    this.conditional = opts.conditional !== false;
    this.prepareTimetable = this.activate && opts.prepareTimetable === true;
    this.validate = opts.validate === true || (opts.validationPolicy !== undefined && opts.validationPolicy !== "accept");
    this.validationPolicy = opts.validationPolicy ?? "accept";
    this.report = {
      status: "rejected", feed_onestop_id: opts.feedId ?? null, sha1: null, source: this.source, fetched_at: null, activated: false,
      elapsed_ms: 0, tables: {}, derived: {}, warnings: this.issues.warnings,
    };
  }

  now(): Date {
    return (this.opts.now ?? (() => new Date()))();
  }

  progress = (msg: string): void => this.opts.progress?.(`[${this.label}] ${msg}`);

  /** seconds since the import started, for progress lines */
  elapsed(): string {
    return ((performance.now() - this.started) / 1000).toFixed(2);
  }

  /** The import failed: the report says why (a DataError names the file and line). */
  reject(e: unknown): void {
    const report = this.report;
    report.status = "rejected";
    if (e instanceof FetchError) report.error = { stage: "fetch", message: e.message };
    else if (e instanceof RefusedError) report.error = { stage: "validate", message: e.message };
    else if (e instanceof DataError) report.error = { file: e.file, line: e.line, message: e.message };
    else report.error = { message: (e as Error).message, ...(process.env.INTERCHANGE_DEBUG ? { stack: (e as Error).stack } : {}) } as ImportReport["error"];
    this.progress(`rejected: ${report.error?.message}`);
  }

  /** The import is over: its elapsed time, and the report in `<data>/reports/` (never masking the outcome). */
  finish(): void {
    this.report.elapsed_ms = Math.round(performance.now() - this.started);
    try {
      const reports = join(this.dataDir, "reports");
      mkdirSync(reports, { recursive: true });
      writeFileSync(join(reports, `${this.report.sha1 ?? "unknown"}-${this.report.status}.json`), JSON.stringify(this.report, null, 2));
    } catch { /* reporting must not mask the result */ }
  }
}
