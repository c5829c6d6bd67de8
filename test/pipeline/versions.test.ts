/**
 * FEATURE UNDER TEST: feed versions and the atomic active switch: SHA-1 identity, re-import no-op,
 * --no-activate, feeds file with licences, folder and URL sources, and a kill -9 mid-import.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { unzipSync } from "fflate";
import { importFeed } from "../../pipeline/import.ts";
import { readFeedsFile } from "../../pipeline/cli.ts";
import { activeVersions, readManifest } from "../../pipeline/schema/manifest.ts";
import { gtfs, importKilledAt, tempDir } from "../support/dataset.ts";
import { sql } from "../support/duck.ts";


describe("feed versions", () => {
  test("re-importing the same bytes is a no-op", async () => {
    const data = tempDir();
    const a = await importFeed({ dataDir: data, source: gtfs("caltrain") });
    const before = readManifest(data);
    const b = await importFeed({ dataDir: data, source: gtfs("caltrain") });
    expect(a.status).toBe("imported");
    expect(b).toMatchObject({ status: "unchanged", sha1: a.sha1, feed_onestop_id: a.feed_onestop_id, activated: true });
    expect(readManifest(data)).toEqual(before);
    expect(a.sha1).toBe(new Bun.CryptoHasher("sha1").update(await Bun.file(gtfs("caltrain")).bytes()).digest("hex"));
  });

  test("a new version becomes active; --no-activate keeps the old one active", async () => {
    const data = tempDir();
    const v1 = await importFeed({ dataDir: data, source: gtfs("bart"), feedId: "f-9q9-bart" });
    const v2 = await importFeed({ dataDir: data, source: gtfs("bart-2023"), feedId: "f-9q9-bart", activate: false });
    let m = readManifest(data);
    expect(m.feeds).toHaveLength(1);
    expect(m.versions.map((v) => v.sha1)).toEqual([v1.sha1!, v2.sha1!]);
    expect(activeVersions(m).map((v) => v.sha1)).toEqual([v1.sha1!]);
    const v3 = await importFeed({ dataDir: data, source: gtfs("caltrain-2017"), feedId: "f-9q9-bart" });
    m = readManifest(data);
    expect(activeVersions(m).map((v) => v.sha1)).toEqual([v3.sha1!]);
    // ids never collide across versions
    const ids = await sql<{ n: number; d: number }>(`SELECT count(*)::INTEGER AS n, count(DISTINCT id)::INTEGER AS d FROM read_parquet([${m.versions.map((v) => `'${join(data, v.path, "stops.parquet")}'`).join(",")}])`);
    expect(ids[0]!.n).toBe(ids[0]!.d);
  });

  test("a feeds file sets feed ids and licences, which reach feed_version.parquet", async () => {
    const dir = tempDir();
    const feedsFile = join(dir, "feeds.json");
    writeFileSync(feedsFile, JSON.stringify([
      { id: "f-9q9-caltrain", path: gtfs("caltrain"), license: { commercial_use_allowed: "yes", share_alike_optional: "no" } },
      { id: "f-sample", path: gtfs("google-sample-feed") },
    ]));
    const { feeds } = await readFeedsFile(feedsFile);
    const data = join(dir, "data");
    for (const f of feeds) expect((await importFeed({ dataDir: data, ...f })).status).toBe("imported");
    const m = readManifest(data);
    expect(m.feeds.map((f) => [f.onestop_id, f.license.commercial_use_allowed, f.license.share_alike_optional, f.license.redistribution_allowed])).toEqual([
      ["f-9q9-caltrain", "yes", "no", "unknown"], ["f-sample", "unknown", "unknown", "unknown"],
    ]);
    const [fv] = await sql<Record<string, string>>(`SELECT feed_onestop_id, license_commercial_use_allowed AS c, license_share_alike_optional AS s FROM read_parquet('${join(data, m.versions[0]!.path, "feed_version.parquet")}')`);
    expect(fv).toEqual({ feed_onestop_id: "f-9q9-caltrain", c: "yes", s: "no" });
    writeFileSync(feedsFile, JSON.stringify([{ id: "f-x", license: { commercial_use_allowed: "maybe" } }]));
    await expect(readFeedsFile(feedsFile)).rejects.toThrow(/feeds\.json/);
  });

  test("an unpacked folder imports like its zip, with a stable SHA-1", async () => {
    const folder = join(tempDir(), "bart");
    mkdirSync(folder);
    for (const [n, b] of Object.entries(unzipSync(await Bun.file(gtfs("bart")).bytes()))) writeFileSync(join(folder, n), b);
    const a = await importFeed({ dataDir: tempDir(), source: folder });
    const b = await importFeed({ dataDir: tempDir(), source: folder });
    const z = await importFeed({ dataDir: tempDir(), source: gtfs("bart") });
    expect(a.status).toBe("imported");
    expect(a.sha1!).toBe(b.sha1!);
    expect(a.tables).toEqual(z.tables);
  });

  test("an http URL of a zip imports", async () => {
    const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (req) =>
      new URL(req.url).pathname === "/feed.zip" ? new Response(Bun.file(gtfs("google-sample-feed"))) : new Response("no", { status: 404 }) });
    try {
      const data = tempDir();
      const r = await importFeed({ dataDir: data, source: `http://127.0.0.1:${server.port}/feed.zip` });
      expect(r.status).toBe("imported");
      expect(readManifest(data).versions[0]!.source).toBe(`http://127.0.0.1:${server.port}/feed.zip`);
      const bad = await importFeed({ dataDir: data, source: `http://127.0.0.1:${server.port}/missing.zip` });
      expect(bad.status).toBe("rejected");
      expect(bad.error!.message).toContain("HTTP 404");
    } finally {
      server.stop(true);
    }
  });

  test("kill -9 during an import leaves the previous active version active, and the next import works", async () => {
    const data = tempDir();
    const first = await importFeed({ dataDir: data, source: gtfs("caltrain"), feedId: "f-test" });
    const before = readManifest(data);
    // kill it hard once it is past unpacking and into the build
    const seen = await importKilledAt(["--data", data, "--feed-id", "f-test", gtfs("bydgoszcz")], "stop_times read");
    expect(seen).toContain("stop_times read");
    expect(existsSync(join(data, ".import.lock"))).toBe(true); // left behind by the killed process
    expect(readManifest(data)).toEqual(before);
    expect(activeVersions(readManifest(data)).map((v) => v.sha1)).toEqual([first.sha1!]);
    expect(readdirSync(join(data, "versions"))).toEqual([String(first.sha1)]);
    // the stale lock is taken over and the debris cleaned
    const next = await importFeed({ dataDir: data, source: gtfs("google-sample-feed"), feedId: "f-test" });
    expect(next.status).toBe("imported");
    expect(existsSync(join(data, "staging"))).toBe(false);
    expect(activeVersions(readManifest(data)).map((v) => v.sha1)).toEqual([next.sha1!]);
  });
});
