/**
 * FEATURE UNDER TEST: validation at import and from the command line. An import keeps report.json
 * and report.html in the version folder and its summary in the import report (validationOf reads
 * them back); a validation policy refuses a version (never published nor activated; the reports
 * kept in reports/, the run report saying why); `interchange validate` exits 1 on ERROR notices
 * and writes an HTML report with every value escaped.
 */
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { importFeed } from "../../pipeline/import.ts";
import { readManifest } from "../../pipeline/schema/manifest.ts";
import { validationOf } from "../../pipeline/schema/validation.ts";
import { tempDir } from "../support/dataset.ts";
import { CLEAN, edit, sub, TODAY, writeFeed } from "./validate-support.ts";

const ROOT = resolve(import.meta.dir, "..", "..");
const cli = (...args: string[]) => spawnSync(process.execPath, [join(ROOT, "bin", "interchange.ts"), ...args], { encoding: "utf8", cwd: ROOT });

/** An ERROR the importer itself tolerates: an agency_url that is no URL. */
const WITH_ERROR = edit(CLEAN, { "agency.txt": sub("https://demo.example/,America", "demo dot example,America") });
/** A WARNING only: route colours without contrast. */
const WITH_WARNING = edit(CLEAN, { "routes.txt": sub("0000FF,FFFFFF", "0000FF,0000EE") });

describe("validation at import", () => {
  test("the reports are kept in the version folder and summarized in the import report", async () => {
    const data = tempDir();
    const r = await importFeed({ dataDir: data, source: writeFeed(WITH_WARNING), validationDate: TODAY, validate: true });
    expect(r.status).toBe("imported");
    expect(r.activated).toBe(true);
    expect(r.validation).toMatchObject({ errors: 0, warnings: 1, infos: 0, codes: { route_color_contrast: { severity: "WARNING", total: 1 } } });
    const dir = join(data, "versions", r.sha1!, "validation");
    const json = JSON.parse(readFileSync(join(dir, "report.json"), "utf8"));
    // the report is served (GET /feed_versions/{key}/validation.json): a local file is named by its file name only
    expect(json.summary.gtfsInput).toBe(basename(r.source));
    expect(json.notices.map((n: { code: string }) => n.code)).toEqual(["route_color_contrast"]);
    expect(readFileSync(join(dir, "report.html"), "utf8")).toContain("route_color_contrast");
    const v = validationOf(data, r.sha1!);
    expect(v).toEqual(r.validation!);
    expect(existsSync(join(data, v!.report_json))).toBe(true);
    expect(existsSync(join(data, v!.report_html))).toBe(true);
    expect(validationOf(data, "0".repeat(40))).toBeNull();
    expect(validationOf(data, "../../etc/passwd")).toBeNull();
  });

  test("stop-time rules run on the import's stop times (also when the import skipped a trip)", async () => {
    const decreasing = edit(CLEAN, { "stop_times.txt": sub("S3,3,1,1100\nT2", "S3,3,1,500\nT2") });
    const r = await importFeed({ dataDir: tempDir(), source: writeFeed(decreasing), validationDate: TODAY, validate: true });
    expect(r.validation?.codes.decreasing_or_equal_stop_time_distance?.total).toBe(1);
    // the importer skips a trip whose times go backwards (its own warning); the rest is validated
    const backwards = edit(CLEAN, { "stop_times.txt": sub("T1,06:02:00,06:02:00", "T1,05:59:00,05:59:00") });
    const s = await importFeed({ dataDir: tempDir(), source: writeFeed(backwards), validationDate: TODAY, validate: true });
    expect(s.warnings.decreasing_times?.count).toBe(1);
    expect(s.warnings.validation_failed).toBeUndefined();
    expect(s.validation).toBeDefined();
  });

  test("policy errors: a version with ERROR notices is refused, never published nor activated", async () => {
    const data = tempDir();
    const ok = await importFeed({ dataDir: data, source: writeFeed(CLEAN), validationDate: TODAY, validate: true, validationPolicy: "errors" });
    expect(ok.status).toBe("imported");
    const r = await importFeed({ dataDir: data, source: writeFeed(WITH_ERROR), validationDate: TODAY, validate: true, validationPolicy: "errors" });
    expect(r.status).toBe("rejected");
    expect(r.activated).toBe(false);
    expect(r.error).toMatchObject({ stage: "validate" });
    expect(r.error!.message).toContain("invalid_url (1)");
    const m = readManifest(data);
    expect(m.versions.map((v) => v.sha1)).toEqual([ok.sha1!]);
    expect(m.feeds[0]!.active).toBe(ok.sha1);
    expect(existsSync(join(data, "versions", r.sha1!))).toBe(false);
    // its reports are kept beside the import reports
    expect(validationOf(data, r.sha1!)).toMatchObject({ errors: 1, report_json: join("reports", `${r.sha1}-validation.json`) });
    // accepted by default
    const accepted = await importFeed({ dataDir: data, source: writeFeed(WITH_ERROR), validationDate: TODAY, validate: true });
    expect(accepted).toMatchObject({ status: "imported", activated: true });
  });

  test("policy of named codes: refuses only those codes", async () => {
    const data = tempDir();
    const named = await importFeed({ dataDir: data, source: writeFeed(WITH_ERROR), validationDate: TODAY, validate: true, validationPolicy: ["route_color_contrast"] });
    expect(named.status).toBe("imported");
    const refused = await importFeed({ dataDir: data, source: writeFeed(WITH_WARNING), validationDate: TODAY, validate: true, validationPolicy: ["route_color_contrast"] });
    expect(refused.status).toBe("rejected");
    expect(refused.error!.message).toContain("route_color_contrast");
    expect(readManifest(data).feeds[0]!.active).toBe(named.sha1);
  });

  test("the feeds file's refuse: the run report says why, exit status 1", () => {
    const data = tempDir();
    const feeds = join(tempDir(), "feeds.json");
    const runReport = join(tempDir(), "run.json");
    writeFileSync(feeds, JSON.stringify([{ id: "f-demo", path: writeFeed(WITH_ERROR), refuse: "errors" }]));
    const r = cli("import", "--data", data, "--feeds", feeds, "--report", runReport, "--quiet");
    expect(r.status).toBe(1);
    expect(r.stdout).toContain("REFUSED");
    const run = JSON.parse(readFileSync(runReport, "utf8"));
    expect(run.feeds[0]).toMatchObject({ outcome: "failed", activated: false, error: { stage: "validate" } });
    expect(run.feeds[0].validation.codes.invalid_url.total).toBe(1);
    writeFileSync(feeds, JSON.stringify([{ path: writeFeed(CLEAN), refuse: ["no_such_code"] }]));
    expect(cli("import", "--data", data, "--feeds", feeds, "--quiet").status).toBe(2);
  });
});

describe("interchange validate", () => {
  test("exit status: 0 without ERROR notices, 1 with; --fail-on codes; usage errors 2", () => {
    const clean = cli("validate", "--date", "2026-06-01", writeFeed(CLEAN));
    expect(clean.status).toBe(0);
    expect(clean.stdout).toContain("0 errors");
    const bad = cli("validate", "--date", "2026-06-01", writeFeed(WITH_ERROR));
    expect(bad.status).toBe(1);
    expect(bad.stdout).toContain("invalid_url=1");
    expect(cli("validate", "--date", "2026-06-01", "--fail-on", "none", writeFeed(WITH_ERROR)).status).toBe(0);
    expect(cli("validate", "--date", "2026-06-01", "--fail-on", "route_color_contrast", writeFeed(WITH_WARNING)).status).toBe(1);
    expect(cli("validate", "--fail-on", "bogus").status).toBe(2);
    expect(cli("validate").status).toBe(2);
    expect(cli("validate", join(tempDir(), "missing.zip")).status).toBe(1);
  });

  test("--json prints report.json; --output writes report.json and an escaped report.html", () => {
    const out = tempDir();
    const feed = writeFeed(edit(CLEAN, { "stops.txt": sub("S1,Main Street", `S1,"<script>alert('x')</script> & co"`) }));
    const r = cli("validate", "--date", "2026-06-01", "--json", "--output", out, feed);
    const json = JSON.parse(r.stdout);
    expect(Object.keys(json)).toEqual(["summary", "notices"]);
    expect(json.summary.dateForValidation).toBe("2026-06-01");
    const mixed = json.notices.find((n: { code: string }) => n.code === "mixed_case_recommended_field");
    expect(mixed).toMatchObject({ severity: "WARNING", totalNotices: 1 });
    expect(mixed.sampleNotices[0]).toEqual({ filename: "stops.txt", fieldName: "stop_name", fieldValue: "<script>alert('x')</script> & co", csvRowNumber: 2 });
    const html = readFileSync(join(out, "feed.report.html"), "utf8");
    expect(html).not.toContain("<script>");
    expect(html).toContain("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; co");
    expect(JSON.parse(readFileSync(join(out, "feed.report.json"), "utf8")).notices).toEqual(json.notices);
  });
});
