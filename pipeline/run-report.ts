/**
 * The run report of one `interchange import` (the nightly job's record): per feed, whether it was
 * imported, unchanged (a 304, or bytes already in the dataset) or failed, and why; the street
 * dataset, the timetable and the prune that followed. Written with --report FILE, printed by
 * --json with --feeds. The full import report of each feed is in `<data>/reports/` (`report`).
 */
import { renameSync } from "node:fs";
import type { FetchInfo, ImportReport } from "./report.ts";
import type { ValidationSummary } from "./schema/validation.ts";
import type { StreetImportReport } from "./street/import-streets.ts";
import type { PruneReport } from "./store/prune.ts";
import { writeFileDurable } from "./store/durable.ts";

export type FeedOutcome = "imported" | "unchanged" | "failed";

export interface FeedRun {
  source: string;
  feed_onestop_id: string | null;
  outcome: FeedOutcome;
  /** the version the source's bytes are (null when they were never read) */
  sha1: string | null;
  /** the version is its feed's active one after the run */
  activated: boolean;
  /** fetch: the URL gave no usable answer; import: the data was refused (see `report`) */
  error: { stage: "fetch" | "import" | "validate"; message: string; file?: string; line?: number } | null;
  /** the version's validation: notices per severity and code, and its report.json / report.html (relative to the data dir); null when not validated */
  validation: ValidationSummary | null;
  /** an http(s) source: attempts, last HTTP status, 304 or not, validators */
  fetch: FetchInfo | null;
  /** warning counts by kind */
  warnings: Record<string, number>;
  elapsed_ms: number;
  /** the feed's full import report, relative to the data dir (null when its bytes were never read) */
  report: string | null;
}

export interface RunReport {
  format: 1;
  started_at: string;
  finished_at: string;
  elapsed_ms: number;
  data: string;
  /** the command's exit code: 0 when every feed was imported or unchanged and nothing else failed */
  exit_code: number;
  counts: Record<FeedOutcome, number>;
  feeds: FeedRun[];
  streets: { outcome: "imported" | "unchanged" | "failed"; sha1: string | null; activated: boolean; error: string | null } | null;
  /** compiled: a new timetable of the active versions; unchanged: it was current; skipped: no feed */
  timetable: { outcome: "compiled" | "unchanged" | "failed" | "skipped"; path: string | null; error: string | null };
  /** the retention policy applied after the import (keep set), or null */
  prune: PruneReport | { error: string } | null;
}

export function feedRun(r: ImportReport): FeedRun {
  const outcome: FeedOutcome = r.status === "rejected" ? "failed" : r.status;
  const error = r.error ? { stage: r.error.stage ?? "import" as const, message: r.error.message, ...(r.error.file ? { file: r.error.file } : {}), ...(r.error.line ? { line: r.error.line } : {}) } : null;
  return {
    source: r.source, feed_onestop_id: r.feed_onestop_id, outcome, sha1: r.sha1, activated: r.activated, error, fetch: r.fetch ?? null,
    warnings: Object.fromEntries(Object.entries(r.warnings).map(([k, w]) => [k, w.count])), elapsed_ms: r.elapsed_ms,
    report: r.sha1 ? `reports/${r.sha1}-${r.status}.json` : null,
    validation: r.validation ?? null,
  };
}

export function streetsRun(r: StreetImportReport | null): RunReport["streets"] {
  if (!r) return null;
  return { outcome: r.status === "rejected" ? "failed" : r.status, sha1: r.sha1, activated: r.activated, error: r.error?.message ?? null };
}

export function countOutcomes(feeds: FeedRun[]): Record<FeedOutcome, number> {
  const counts: Record<FeedOutcome, number> = { imported: 0, unchanged: 0, failed: 0 };
  for (const f of feeds) counts[f.outcome]++;
  return counts;
}

/** Write the report to `path` whole (temp file, fsync, rename): a reader never sees half of it. */
export function writeRunReport(path: string, report: RunReport): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileDurable(tmp, JSON.stringify(report, null, 2) + "\n");
  renameSync(tmp, path);
}
