/**
 * `interchange validate FEED...`: validates GTFS feeds (zip, folder or http(s) URL of a zip)
 * without importing them, for the CI of feed producers. Prints one line per feed (or the
 * report.json with --json), writes report.json and report.html per feed with --output DIR, and
 * exits 1 when any feed has an ERROR notice (or, with --fail-on, one of the named codes), 2 on a
 * usage error.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { helpText, parseFlags, UsageError, type FlagSpec } from "../../config/flags.ts";
import { readSourceBytes, unpackZip } from "../source.ts";
import { NOTICE_SEVERITY } from "./notices.ts";
import { refusal, parsePolicy } from "./policy.ts";
import type { ValidationReport } from "./report.ts";
import { countsOf, validateFolder, writeReports } from "./validate.ts";

export const VALIDATE_FLAGS: FlagSpec[] = [
  { name: "output", env: "INTERCHANGE_VALIDATE_OUTPUT", type: "string", description: "write <feed>.report.json and <feed>.report.html per feed into this folder" },
  { name: "json", env: "INTERCHANGE_JSON", type: "boolean", default: false, description: "print the report.json of each feed on stdout (an array when several)" },
  { name: "date", env: "INTERCHANGE_VALIDATE_DATE", type: "string", description: "the date expiry rules compare with, YYYY-MM-DD (default: today)" },
  { name: "fail-on", env: "INTERCHANGE_VALIDATE_FAIL_ON", type: "string", default: "errors", description: "exit 1 when a feed has: errors (any ERROR notice), none, or a comma-separated list of notice codes" },
];

/** Validates one source (zip, folder or URL) in a scratch folder of its own. */
export async function validateSource(source: string, opts: { today?: Date } = {}): Promise<ValidationReport> {
  const scratch = mkdtempSync(join(tmpdir(), "interchange-validate-"));
  try {
    const read = await readSourceBytes(source);
    let dir = resolve(source);
    if (read.kind === "zip") {
      dir = join(scratch, "gtfs");
      await unpackZip(read.bytes!, dir, source);
    }
    return await validateFolder({ dir, input: source, scratchDir: join(scratch, "scratch"), today: opts.today });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

export async function runValidate(argv: string[]): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    console.log(helpText("validate [flags] FEED...", `Validate GTFS feeds (zip, folder or http(s) URL) with MobilityData's notice codes (${Object.keys(NOTICE_SEVERITY).length} codes), without importing them. Exit status 1 when a feed has ERROR notices (see --fail-on).`, VALIDATE_FLAGS));
    return 0;
  }
  const { values, positionals } = parseFlags(argv, VALIDATE_FLAGS);
  if (positionals.length === 0) throw new UsageError("nothing to validate: give FEED arguments (zip, folder or URL)");
  const policy = parsePolicy(String(values.failOn ?? "errors"), "--fail-on");
  let today: Date | undefined;
  if (values.date !== undefined) {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(String(values.date)) || Number.isNaN(Date.parse(String(values.date)))) throw new UsageError(`--date must be YYYY-MM-DD, got ${values.date}`);
    today = new Date(`${values.date}T00:00:00Z`);
  }
  let failed = false;
  const reports: ValidationReport[] = [];
  for (const source of positionals) {
    let report: ValidationReport;
    try {
      report = await validateSource(source, { today });
    } catch (e) {
      // an unreadable source (no such file, not a zip, a URL that failed) is a failed validation
      console.error(`FAIL ${source}: ${(e as Error).message}`);
      failed = true;
      continue;
    }
    reports.push(report);
    const c = countsOf(report);
    const why = refusal(report, policy);
    if (why) failed = true;
    if (values.output) {
      const name = basename(source.replace(/\/+$/, "")).replace(/\.zip$/i, "").replace(/[^\w.-]+/g, "_") || "feed";
      const out = resolve(String(values.output));
      writeReports(report, join(out, `${name}.report.json`), join(out, `${name}.report.html`));
    }
    if (!values.json) {
      const codes = report.notices.map((n) => `${n.code}=${n.totalNotices}`).join(", ");
      console.log(`${why ? "FAIL" : "ok"} ${source}: ${c.errors} errors, ${c.warnings} warnings, ${c.infos} infos${codes ? ` (${codes})` : ""}${why ? `; ${why}` : ""}`);
    }
  }
  if (values.json) console.log(JSON.stringify(reports.length === 1 ? reports[0] : reports, null, 2));
  return failed ? 1 : 0;
}
