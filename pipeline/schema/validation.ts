/**
 * The validation report of a feed version, as the dataset keeps it: `validation/report.json`
 * (MobilityData's report.json form: a summary, then notices with code, severity, totalNotices and
 * sampleNotices) and `validation/report.html` inside the version folder `<data>/versions/<sha1>/`;
 * a version refused by the import's validation policy is never published, and its reports are kept
 * as `<data>/reports/<sha1>-validation.json` and `.html`.
 *
 * Part of the dataset contract (pipeline/schema/): the import writes these files, and
 * validationOf() is how a reader (the server's /feed_versions/{key}) finds a version's summary and
 * report. Imports nothing but Node's fs and path.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** Inside a version folder. */
export const VALIDATION_DIR = "validation";
export const VALIDATION_JSON = "report.json";
export const VALIDATION_HTML = "report.html";

/** Notices per severity. */
export interface ValidationCounts {
  errors: number;
  warnings: number;
  infos: number;
}

/** What a version's validation says, in short, and where its reports are. */
export interface ValidationSummary extends ValidationCounts {
  /** validation date (YYYY-MM-DD) and when it ran */
  date_for_validation: string;
  validated_at: string;
  /** notices per code */
  codes: Record<string, { severity: "ERROR" | "WARNING" | "INFO"; total: number }>;
  /** report.json and report.html, relative to the data dir */
  report_json: string;
  report_html: string;
}

/** The counts and codes of a report.json's notices, with its paths (relative to the data dir). */
export function summarizeReport(report: ValidationReportJson, reportJson: string, reportHtml: string): ValidationSummary {
  const out: ValidationSummary = {
    errors: 0, warnings: 0, infos: 0, date_for_validation: report.summary.dateForValidation, validated_at: report.summary.validatedAt,
    codes: {}, report_json: reportJson, report_html: reportHtml,
  };
  for (const n of report.notices) {
    if (n.severity === "ERROR") out.errors += n.totalNotices;
    else if (n.severity === "WARNING") out.warnings += n.totalNotices;
    else out.infos += n.totalNotices;
    out.codes[n.code] = { severity: n.severity, total: n.totalNotices };
  }
  return out;
}

/** report.json as written (the fields readers use). */
export interface ValidationReportJson {
  summary: { validatorVersion: string; validatedAt: string; gtfsInput: string; dateForValidation: string; [k: string]: unknown };
  notices: { code: string; severity: "ERROR" | "WARNING" | "INFO"; totalNotices: number; sampleNotices: Record<string, unknown>[] }[];
}

/**
 * The validation summary of version `sha1` of the dataset at `dataDir`, and the paths of its
 * report.json and report.html (relative to `dataDir`); null when the version has no report (imported
 * before validation existed, or unknown). Reads the version's report.json (or a refused version's
 * `reports/<sha1>-validation.json`).
 */
export function validationOf(dataDir: string, sha1: string): ValidationSummary | null {
  if (!/^[0-9a-f]{40}$/.test(sha1)) return null;
  const candidates: [string, string][] = [
    [join("versions", sha1, VALIDATION_DIR, VALIDATION_JSON), join("versions", sha1, VALIDATION_DIR, VALIDATION_HTML)],
    [join("reports", `${sha1}-validation.json`), join("reports", `${sha1}-validation.html`)],
  ];
  for (const [json, html] of candidates) {
    const path = join(dataDir, json);
    if (!existsSync(path)) continue;
    try {
      return summarizeReport(JSON.parse(readFileSync(path, "utf8")) as ValidationReportJson, json, html);
    } catch {
      return null;
    }
  }
  return null;
}
