/**
 * FEATURE UNDER TEST: the nightly job from the command line, as cron runs it through npx: the run
 * report of `interchange import --feeds` on stdout (--json) and in a file (--report), its exit
 * code, the `keep` of a feeds file, and `interchange prune` (flags, environment, exit codes); the
 * README documents every prune flag.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PRUNE_FLAGS } from "../../pipeline/prune.ts";
import type { RunReport } from "../../pipeline/run-report.ts";
import { readManifest } from "../../pipeline/schema/manifest.ts";
import type { PruneReport } from "../../pipeline/store/prune.ts";
import { ROOT, runCli } from "../support/cli.ts";
import { gtfs, tempDir } from "../support/dataset.ts";
import { startFeedServer, withZipComment } from "../pipeline/feed-server.ts";

const run = runCli;

const servers: { stop(): void }[] = [];
afterAll(() => servers.forEach((s) => s.stop()));

describe("interchange import --feeds and interchange prune", () => {
  test("prune --help lists every flag with its environment variable, and docs/cli.md documents them", async () => {
    const r = await run(["prune", "--help"]);
    expect(r.code).toBe(0);
    const readme = readFileSync(join(ROOT, "docs", "cli.md"), "utf8");
    const prune = readme.slice(readme.indexOf("### interchange prune"));
    const missing = PRUNE_FLAGS.filter((f) => !r.out.includes(`--${f.name}`) || !r.out.includes(f.env!) || !prune.includes(`| \`--${f.name}`) || !prune.includes(`\`${f.env}\``));
    expect(missing.map((f) => f.name)).toEqual([]);
  });

  test("the run report on stdout and in a file; a failed feed makes exit code 1; the feeds file's keep prunes after the import", async () => {
    const sample = new Uint8Array(await Bun.file(gtfs("google-sample-feed")).bytes());
    const feeds = startFeedServer({ "/a.zip": { body: withZipComment(sample, "a1") }, "/broken.zip": { status: 503 } });
    servers.push(feeds);
    const dir = tempDir();
    const data = join(dir, "data");
    const feedsFile = join(dir, "feeds.json");
    writeFileSync(feedsFile, JSON.stringify({ keep: 1, feeds: [{ id: "f-a", url: feeds.url("/a.zip") }, { id: "f-broken", url: feeds.url("/broken.zip"), retries: 0 }] }));
    const reportFile = join(dir, "report.json");
    const first = await run(["import", "--data", data, "--feeds", feedsFile, "--quiet", "--json", "--report", reportFile]);
    expect(first.code).toBe(1);
    const onStdout = JSON.parse(first.out) as RunReport;
    expect(JSON.parse(readFileSync(reportFile, "utf8"))).toEqual(onStdout);
    expect(onStdout).toMatchObject({ format: 1, exit_code: 1, counts: { imported: 1, unchanged: 0, failed: 1 }, timetable: { outcome: "compiled" } });
    expect(onStdout.feeds.map((f) => [f.feed_onestop_id, f.outcome, f.error?.stage ?? null, f.fetch?.http_status])).toEqual([["f-a", "imported", null, 200], ["f-broken", "failed", "fetch", 503]]);
    expect(onStdout.prune).toMatchObject({ keep: 1, unlisted: { versions: [] } });

    // the feed changes and the broken one is back; the run imports both, and keep 1 unlists f-a's first version
    const old = onStdout.feeds[0]!.sha1!;
    feeds.set("/a.zip", { body: withZipComment(sample, "a2") });
    feeds.set("/broken.zip", { body: sample });
    const second = await run(["import", "--data", data, "--feeds", feedsFile, "--quiet", "--json"]);
    expect(second.code).toBe(0);
    const report = JSON.parse(second.out) as RunReport;
    expect(report.counts).toEqual({ imported: 2, unchanged: 0, failed: 0 });
    // its folder waits for the grace period (default 600 s): a server may have loaded it a moment ago
    expect(report.prune).toMatchObject({ grace_s: 600, unlisted: { versions: [{ sha1: old, feed_onestop_id: "f-a" }] }, removed: { versions: [] } });
    expect((report.prune as PruneReport).waiting.map((w) => w.path)).toContain(`versions/${old}`);
    expect(readManifest(data).versions.map((v) => v.sha1)).not.toContain(old);
    expect(existsSync(join(data, "versions", old))).toBe(true);

    // prune from the command line: the environment gives the keep, the flag the grace period
    const pruned = await run(["prune", "--data", data, "--json", "--quiet", "--grace-s", "0"], { INTERCHANGE_KEEP: "1" });
    expect(pruned.code).toBe(0);
    const p = JSON.parse(pruned.out) as PruneReport;
    expect(p).toMatchObject({ keep: 1, grace_s: 0, unlisted: { versions: [] } });
    expect(p.removed.versions).toEqual([`versions/${old}`]);
    expect(existsSync(join(data, "versions", old))).toBe(false);
    expect(readManifest(data).versions).toHaveLength(2);
  });

  test("prune: bad usage exits 2, a held lock exits 1", async () => {
    const data = tempDir();
    expect((await run(["prune", "--data", data, "--keep", "0"])).code).toBe(2);
    expect((await run(["prune", "--data", data], { INTERCHANGE_KEEP: "many" })).code).toBe(2);
    expect((await run(["prune", "--data", data, "--grace-s", "-1"])).code).toBe(2);
    expect((await run(["prune", "--data", data, "extra"])).code).toBe(2);
    writeFileSync(join(data, ".import.lock"), String(process.pid)); // this test process: alive
    const locked = await run(["prune", "--data", data, "--keep", "1"]);
    expect(locked.code).toBe(1);
    expect(locked.err).toContain("another import");
  });
});
