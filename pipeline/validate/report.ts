/**
 * The validation report in MobilityData's forms: report.json (a summary, then the notices: code,
 * severity, totalNotices, sampleNotices) and an HTML page a person can read (notices sorted by
 * severity, then code; each sample's fields in a table, file and row first). Every value in the
 * HTML is escaped.
 */
import { escapeHtml } from "../../shared/html.ts";
import type { ValidationReportJson } from "../schema/validation.ts";
import type { NoticeGroup } from "./notices.ts";

export interface ReportSummary {
  validatorVersion: string;
  validatedAt: string;
  gtfsInput: string;
  dateForValidation: string;
  validationTimeSeconds: number;
  files: string[];
  feedInfo: Record<string, string | null> | null;
  agencies: Record<string, string | null>[];
  counts: Record<string, number>;
}

export interface ValidationReport extends ValidationReportJson {
  summary: ReportSummary & ValidationReportJson["summary"];
  notices: NoticeGroup[];
}

export { escapeHtml };

/** Fields shown first in a sample's row. */
const LEADING = ["filename", "csvRowNumber"];

export function reportHtml(report: ValidationReport): string {
  const s = report.summary;
  const by = (sev: string) => report.notices.filter((n) => n.severity === sev).reduce((a, n) => a + n.totalNotices, 0);
  const rows = report.notices.map((n) => {
    const keys = [...new Set(n.sampleNotices.flatMap((x) => Object.keys(x)))].sort((a, b) => {
      const ia = LEADING.indexOf(a), ib = LEADING.indexOf(b);
      return (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib);
    });
    const head = keys.map((k) => `<th>${escapeHtml(k)}</th>`).join("");
    const body = n.sampleNotices.map((x) => `<tr>${keys.map((k) => `<td>${escapeHtml(x[k])}</td>`).join("")}</tr>`).join("\n");
    return `<section class="${escapeHtml(n.severity.toLowerCase())}">
<h3><span class="sev">${escapeHtml(n.severity)}</span> <code>${escapeHtml(n.code)}</code>: ${n.totalNotices} notice${n.totalNotices === 1 ? "" : "s"}</h3>
${n.sampleNotices.length ? `<p>${n.sampleNotices.length < n.totalNotices ? `First ${n.sampleNotices.length} samples:` : "Samples:"}</p>
<table><thead><tr>${head}</tr></thead><tbody>
${body}
</tbody></table>` : ""}
</section>`;
  }).join("\n");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>GTFS validation report: ${escapeHtml(s.gtfsInput)}</title>
<style>
body{font-family:system-ui,sans-serif;margin:2em;max-width:80em}
table{border-collapse:collapse;font-size:90%;margin-bottom:1em}td,th{border:1px solid #ccc;padding:2px 6px;text-align:left;vertical-align:top}
section{border-left:6px solid #999;padding-left:1em;margin:1em 0}.error{border-color:#c0392b}.warning{border-color:#e67e22}.info{border-color:#2980b9}
.error .sev{color:#c0392b}.warning .sev{color:#e67e22}.info .sev{color:#2980b9}
</style></head><body>
<h1>GTFS validation report</h1>
<table>
<tr><th>Feed</th><td>${escapeHtml(s.gtfsInput)}</td></tr>
<tr><th>Validated at</th><td>${escapeHtml(s.validatedAt)} (date for validation ${escapeHtml(s.dateForValidation)})</td></tr>
<tr><th>Validator</th><td>${escapeHtml(s.validatorVersion)}, notice codes of MobilityData's gtfs-validator</td></tr>
<tr><th>Files</th><td>${s.files.map(escapeHtml).join(", ")}</td></tr>
<tr><th>Notices</th><td>${by("ERROR")} errors, ${by("WARNING")} warnings, ${by("INFO")} infos</td></tr>
</table>
<h2>Notices</h2>
${rows || "<p>No notices.</p>"}
</body></html>
`;
}
