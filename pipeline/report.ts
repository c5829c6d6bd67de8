/**
 * Import report: counts per table and warnings by kind with a few examples each. Written as JSON
 * next to every feed version (and to <data>/reports/ for rejected feeds).
 */

import type { ValidationSummary } from "./schema/validation.ts";

export interface IssueExample {
  file: string;
  line?: number;
  message: string;
}

export interface TableCount {
  /** data rows in the source file (header excluded); 0 when the file is absent */
  source_rows: number;
  /** rows written to Parquet */
  imported_rows: number;
  /** rows dropped, each accounted for by a warning kind */
  skipped_rows: number;
}

export interface ImportReport {
  status: "imported" | "unchanged" | "rejected";
  feed_onestop_id: string | null;
  sha1: string | null;
  source: string;
  fetched_at: string | null;
  activated: boolean;
  elapsed_ms: number;
  /** `stage: "fetch"` when the source could not be downloaded (the data was never seen) */
  error?: { stage?: "fetch" | "validate"; file?: string; line?: number; message: string };
  /** the version's validation (MobilityData's notice codes): counts, codes and where its reports are; absent when not validated */
  validation?: ValidationSummary;
  /** how an http(s) source was downloaded (absent for files and folders) */
  fetch?: FetchInfo;
  tables: Record<string, TableCount>;
  /** derived rows (generated shapes, interpolated stop_times, calendars from calendar_dates) */
  derived: Record<string, number>;
  warnings: Record<string, { count: number; examples: IssueExample[] }>;
}

export interface FetchInfo {
  url: string;
  /** requests made (1 + retries) */
  attempts: number;
  /** the last answer's HTTP status; null when none came (time-out, network error) */
  http_status: number | null;
  /** the URL answered 304 to a conditional request: its bytes are the version `sha1`, already imported */
  not_modified: boolean;
  /** sent with the request (from the URL's previous answer) */
  conditional: boolean;
  etag: string | null;
  last_modified: string | null;
  /** size of the answer (0 for a 304) */
  bytes: number;
}

/** A feed that cannot be imported; names the file and line where known. */
export class DataError extends Error {
  override readonly name = "DataError";
  constructor(message: string, readonly file?: string, readonly line?: number) {
    super(file ? `${file}${line ? `:${line}` : ""}: ${message}` : message);
  }
}

export class Issues {
  readonly warnings: ImportReport["warnings"] = {};
  add(kind: string, example: IssueExample, count = 1): void {
    const w = (this.warnings[kind] ??= { count: 0, examples: [] });
    w.count += count;
    if (w.examples.length < 5) w.examples.push(example);
  }
  /** another Issues' warnings, as if they had been added here in the same order */
  absorb(other: Issues): void {
    for (const [kind, w] of Object.entries(other.warnings)) this.addMany(kind, w.count, w.examples);
  }
  /** add a count with several examples at once */
  addMany(kind: string, count: number, examples: IssueExample[]): void {
    if (count <= 0) return;
    const w = (this.warnings[kind] ??= { count: 0, examples: [] });
    w.count += count;
    for (const e of examples) if (w.examples.length < 5) w.examples.push(e);
  }
}
