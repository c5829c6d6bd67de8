/**
 * The import's validation lane: the version validated (pipeline/validate/, MobilityData's notice
 * codes) on a connection of the import's database while the build runs: the unpacked files other
 * than stop_times.txt are read and checked at once, the stop-time rules run on the import's
 * stop_times relation once the trip checks have made it final (stop_times.txt is not read again).
 * Then the policy: a refused version is never published; its reports go to `<data>/reports/`.
 */
import { basename, join } from "node:path";
import { VALIDATION_DIR, VALIDATION_HTML, VALIDATION_JSON } from "../schema/validation.ts";
import type { Build } from "../gtfs/build.ts";
import type { Task } from "../tasks.ts";
import { refusal } from "../validate/policy.ts";
import type { ValidationReport } from "../validate/report.ts";
import { summaryOf, validateFolder, writeReports } from "../validate/validate.ts";
import { RefusedError, type ImportRun } from "./run.ts";
import type { ImportSession } from "./session.ts";

/** Starts the validation lane of an import (null when the import does not validate). */
export async function startValidation(run: ImportRun, session: ImportSession, gtfsDir: string, build: Build): Promise<Task<ValidationReport> | null> {
  if (!run.validate) return null;
  const conn = await session.connect();
  const ready = build.after("trip_check");
  return session.lanes.start("validate", () => validateFolder({
    dir: gtfsDir, input: reportInput(run.source), scratchDir: join(session.dir, "validate"), today: run.opts.validationDate ?? run.now(),
    stopTimesRelation: "stop_times", stopTimesReady: () => ready.result(), stopTimesContract: () => build.facts.stopTimesColumns ?? null,
  }, conn));
}

/**
 * How the report names its input: the reports are served (GET /feed_versions/{key}/validation.*),
 * so a local file is named by its file name only and a URL without credentials or query string.
 */
export function reportInput(source: string): string {
  if (!/^https?:\/\//i.test(source)) return basename(source);
  try {
    const u = new URL(source);
    return `${u.origin}${u.pathname}`;
  } catch {
    return basename(source);
  }
}

/**
 * The validation's outcome: its reports into the version folder and its summary into the import
 * report; a version the policy refuses is rejected here (its reports kept in `<data>/reports/`).
 */
export async function applyValidation(run: ImportRun, session: ImportSession, sha1: string, lane: Task<ValidationReport> | null): Promise<void> {
  if (!lane) return;
  let report: ValidationReport;
  try {
    report = await lane.result();
  } catch (e) {
    // the validator failed on this feed: the import goes on without a report, unless a policy needs one
    if (run.validationPolicy !== "accept") throw new RefusedError(`the validation failed, so the validation policy cannot accept the version: ${(e as Error).message}`);
    run.issues.add("validation_failed", { file: "", message: (e as Error).message });
    return;
  }
  const why = refusal(report, run.validationPolicy);
  const [json, html] = why
    ? [join("reports", `${sha1}-validation.json`), join("reports", `${sha1}-validation.html`)]
    : [join("versions", sha1, VALIDATION_DIR, VALIDATION_JSON), join("versions", sha1, VALIDATION_DIR, VALIDATION_HTML)];
  const base = why ? run.dataDir : session.versionDir;
  const rel = (p: string) => (why ? p : p.slice(join("versions", sha1).length + 1));
  writeReports(report, join(base, rel(json)), join(base, rel(html)));
  run.report.validation = summaryOf(report, json, html);
  const s = run.report.validation;
  run.progress(`validated: ${s.errors} errors, ${s.warnings} warnings, ${s.infos} infos (${run.elapsed()} s)`);
  if (why) throw new RefusedError(why);
}
