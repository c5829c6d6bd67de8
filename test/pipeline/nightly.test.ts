/**
 * FEATURE UNDER TEST: the nightly job, `interchange import --feeds feeds.json` against feed URLs:
 * conditional requests (an unchanged feed costs one 304 and no import work), a changed feed
 * imported as a new version, time-outs and retries, and each failure (slow, stalled, truncated
 * zip, HTTP 500, 404) reported in the run report while the other feeds are published, exit code 1.
 * Real feeds from ../shared/data/gtfs, served by a local HTTP server (feed-server.ts).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runImport } from "../../pipeline/cli.ts";
import type { RunReport } from "../../pipeline/run-report.ts";
import { activeVersions, readManifest } from "../../pipeline/schema/manifest.ts";
import { gtfs, tempDir } from "../support/dataset.ts";
import { startFeedServer } from "./feed-server.ts";

const bytes = async (name: string) => new Uint8Array(await Bun.file(gtfs(name)).bytes());
const sha1 = (b: Uint8Array) => new Bun.CryptoHasher("sha1").update(b).digest("hex");
const readReport = (p: string) => JSON.parse(readFileSync(p, "utf8")) as RunReport;

const servers: { stop(): void }[] = [];
afterAll(() => servers.forEach((s) => s.stop()));

describe("nightly import of feed URLs", () => {
  test("first run imports; the second costs one 304 per feed and imports nothing; a changed feed becomes a new active version", async () => {
    const [sample, ct2017, ct] = await Promise.all([bytes("google-sample-feed"), bytes("caltrain-2017"), bytes("caltrain")]);
    const feeds = startFeedServer({
      "/sample.zip": { body: sample, lastModified: new Date("2024-05-01T00:00:00Z") }, // ETag and Last-Modified
      "/caltrain.zip": { body: ct2017, etag: false, lastModified: new Date("2024-05-01T00:00:00Z") }, // Last-Modified only
    });
    servers.push(feeds);
    const dir = tempDir();
    const data = join(dir, "data");
    const feedsFile = join(dir, "feeds.json");
    writeFileSync(feedsFile, JSON.stringify([{ id: "f-sample", url: feeds.url("/sample.zip") }, { id: "f-caltrain", url: feeds.url("/caltrain.zip") }]));
    const reportFile = join(dir, "run.json");
    const nightly = async (...extra: string[]) => {
      const code = await runImport(["--data", data, "--feeds", feedsFile, "--report", reportFile, "--quiet", ...extra]);
      return { code, run: readReport(reportFile) };
    };

    const first = await nightly();
    expect(first.code).toBe(0);
    expect(first.run.counts).toEqual({ imported: 2, unchanged: 0, failed: 0 });
    expect(first.run.feeds.map((f) => [f.feed_onestop_id, f.outcome, f.sha1, f.activated, f.fetch?.http_status, f.fetch?.conditional])).toEqual([
      ["f-sample", "imported", sha1(sample), true, 200, false],
      ["f-caltrain", "imported", sha1(ct2017), true, 200, false],
    ]);
    expect(first.run.timetable.outcome).not.toBe("failed");
    expect(first.run.exit_code).toBe(0);
    expect(readdirSync(join(data, "sources"))).toHaveLength(2); // the validators, per URL
    const after1 = readManifest(data);

    const second = await nightly();
    expect(second.code).toBe(0);
    expect(second.run.counts).toEqual({ imported: 0, unchanged: 2, failed: 0 });
    for (const f of second.run.feeds) {
      expect(f.outcome).toBe("unchanged");
      expect(f.fetch).toMatchObject({ attempts: 1, http_status: 304, not_modified: true, conditional: true, bytes: 0 });
    }
    expect(second.run.feeds.map((f) => f.sha1)).toEqual([sha1(sample), sha1(ct2017)]);
    expect(second.run.timetable.outcome).toBe("unchanged");
    // no import work: no manifest switch, no new version, nothing left in staging
    expect(readManifest(data)).toEqual(after1);
    expect(readdirSync(join(data, "versions")).sort()).toEqual([sha1(sample), sha1(ct2017)].sort());
    expect(feeds.hits("/sample.zip").map((h) => [h.conditional, h.status])).toEqual([[false, 200], [true, 304]]);
    expect(feeds.hits("/caltrain.zip").map((h) => [h.conditional, h.status])).toEqual([[false, 200], [true, 304]]);

    // the feed changes upstream: a new version, made active; the other stays a 304
    feeds.set("/caltrain.zip", { body: ct, etag: false, lastModified: new Date("2024-06-01T00:00:00Z") });
    const third = await nightly();
    expect(third.code).toBe(0);
    expect(third.run.counts).toEqual({ imported: 1, unchanged: 1, failed: 0 });
    expect(third.run.feeds[1]).toMatchObject({ feed_onestop_id: "f-caltrain", outcome: "imported", sha1: sha1(ct), activated: true, fetch: { http_status: 200, conditional: true } });
    expect(third.run.timetable.outcome).toBe("compiled");
    const m = readManifest(data);
    expect(m.versions).toHaveLength(3);
    expect(activeVersions(m).map((v) => v.sha1)).toEqual([sha1(sample), sha1(ct)]);

    // --no-conditional: downloaded in full, found to be the version already there
    const full = await nightly("--no-conditional");
    expect(full.run.counts).toEqual({ imported: 0, unchanged: 2, failed: 0 });
    expect(full.run.feeds.map((f) => [f.fetch?.http_status, f.fetch?.not_modified, f.fetch?.conditional])).toEqual([[200, false, false], [200, false, false]]);
    expect(readManifest(data).generation).toBe(m.generation);
  });

  test("slow, stalled, truncated, 500 and 404 feeds are reported with their reasons, retried where it may help; the good feed is published; exit code 1", async () => {
    const [sample, ct2017] = await Promise.all([bytes("google-sample-feed"), bytes("caltrain-2017")]);
    const feeds = startFeedServer({
      "/sample.zip": { body: sample },
      "/slow.zip": { body: ct2017, delayMs: 3_000 },
      "/stalled.zip": { body: ct2017, stallMs: 3_000 },
      "/truncated.zip": { body: ct2017.subarray(0, Math.floor(ct2017.length / 2)) },
      "/error.zip": { status: 500 },
    });
    servers.push(feeds);
    const dir = tempDir();
    const data = join(dir, "data");
    const feedsFile = join(dir, "feeds.json");
    writeFileSync(feedsFile, JSON.stringify({
      feeds: [
        { id: "f-slow", url: feeds.url("/slow.zip") },
        { id: "f-stalled", url: feeds.url("/stalled.zip") },
        { id: "f-truncated", url: feeds.url("/truncated.zip") },
        { id: "f-error", url: feeds.url("/error.zip") },
        { id: "f-missing", url: feeds.url("/missing.zip") },
        { id: "f-sample", url: feeds.url("/sample.zip"), retries: 0 },
      ],
    }));
    const reportFile = join(dir, "run.json");
    const code = await runImport(["--data", data, "--feeds", feedsFile, "--report", reportFile, "--quiet", "--fetch-timeout-ms", "400", "--fetch-retries", "1", "--fetch-backoff-ms", "50"]);
    expect(code).toBe(1);
    const run = readReport(reportFile);
    expect(run.exit_code).toBe(1);
    expect(run.counts).toEqual({ imported: 1, unchanged: 0, failed: 5 });
    const by = new Map(run.feeds.map((f) => [f.source.split("/").pop()!, f]));
    for (const slow of ["slow.zip", "stalled.zip"]) {
      expect(by.get(slow)).toMatchObject({ outcome: "failed", sha1: null, error: { stage: "fetch" }, fetch: { attempts: 2, http_status: null } });
      expect(by.get(slow)!.error!.message).toContain("timed out (no complete answer within 400 ms) (2 attempts)");
      expect(feeds.hits(`/${slow}`)).toHaveLength(2);
    }
    expect(by.get("truncated.zip")).toMatchObject({ outcome: "failed", sha1: sha1(ct2017.subarray(0, Math.floor(ct2017.length / 2))), error: { stage: "import" }, fetch: { attempts: 1, http_status: 200 } });
    expect(by.get("truncated.zip")!.error!.message).toContain("not a readable zip file");
    expect(by.get("error.zip")).toMatchObject({ outcome: "failed", error: { stage: "fetch", message: expect.stringContaining("HTTP 500 (2 attempts)") }, fetch: { attempts: 2, http_status: 500 } });
    expect(feeds.hits("/error.zip")).toHaveLength(2);
    // a 404 is not retried
    expect(by.get("missing.zip")).toMatchObject({ outcome: "failed", error: { stage: "fetch", message: expect.stringContaining("HTTP 404 (not retried)") }, fetch: { attempts: 1, http_status: 404 } });
    expect(by.get("sample.zip")).toMatchObject({ outcome: "imported", feed_onestop_id: "f-sample", activated: true, error: null });
    // published and served: the good feed is active and the timetable of it compiled
    const m = readManifest(data);
    expect(activeVersions(m).map((v) => v.feed_onestop_id)).toEqual(["f-sample"]);
    expect(run.timetable).toMatchObject({ outcome: "compiled", path: m.timetable!.path });
    expect(existsSync(join(data, m.timetable!.path))).toBe(true);
    // only the imported feed's answer is remembered: the failed ones are asked in full next time
    expect(readdirSync(join(data, "sources"))).toHaveLength(1);
    // the full report of the refused feed is where the run report says
    expect(JSON.parse(readFileSync(join(data, by.get("truncated.zip")!.report!), "utf8")).status).toBe("rejected");
    expect(by.get("slow.zip")!.report).toBeNull(); // never read: the run report is all there is
  });
});
