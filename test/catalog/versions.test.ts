/**
 * Feed versions: a running server picks up a newly imported version (atomic swap on manifest
 * change); afterwards only the active version is served, except through feed_version_sha1 or
 * integer keys, which reach the inactive one.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { importFeed } from "../../pipeline/import.ts";
import { readManifest } from "../../pipeline/schema/manifest.ts";
import { startServer, type RunningServer } from "../../server/main.ts";
import { serverConfigFrom } from "../../server/config.ts";
import { gtfs, tempDir } from "../support/dataset.ts";
import { gtfsFeed } from "../support/gtfs-reader.ts";

let dir: string;
let server: RunningServer;
const quiet = { info() {}, warn() {}, error() {} };
const get = async (path: string) => {
  const r = await fetch(server.url + path);
  return { status: r.status, body: (await r.json()) as any };
};

async function until(check: () => Promise<boolean>, ms = 15_000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await Bun.sleep(100);
  }
  throw new Error("timed out waiting for the catalog to reload");
}

beforeAll(async () => {
  dir = tempDir("interchange-versions-");
  const r = await importFeed({ dataDir: dir, source: gtfs("bart"), feedId: "f-9q9-bart" });
  expect(r.status).not.toBe("rejected");
  server = await startServer(serverConfigFrom({ data: dir, port: 0, host: "127.0.0.1", noAuth: true }), { log: quiet });
}, 120_000);
afterAll(() => server?.stop());

describe("feed versions", () => {
  let oldSha: string;
  let newSha: string;
  let oldStopId: number;

  test("a new import is picked up while serving, and becomes the only version searched", async () => {
    const before = await get("/api/v2/rest/stops/f-9q9-bart:12TH");
    expect(before.status).toBe(200);
    oldStopId = before.body.stops[0].id;
    oldSha = before.body.stops[0].feed_version.sha1;

    const r = await importFeed({ dataDir: dir, source: gtfs("bart-2023"), feedId: "f-9q9-bart" });
    expect(r.status).not.toBe("rejected");
    newSha = readManifest(dir).feeds[0]!.active!;
    expect(newSha).not.toBe(oldSha);
    await until(async () => (await get("/api/v2/rest/stops/f-9q9-bart:12TH")).body.stops?.[0]?.feed_version.sha1 === newSha);

    // lists see only the active version
    const all = await get("/api/v2/rest/stops?limit=1000");
    expect(new Set(all.body.stops.map((s: any) => s.feed_version.sha1))).toEqual(new Set([newSha]));
    expect(all.body.stops.length).toBe(gtfsFeed(gtfs("bart-2023")).table("stops").length);
  }, 60_000);

  test("feed_version_sha1 reaches the inactive version", async () => {
    const old = await get(`/api/v2/rest/stops?limit=1000&feed_version_sha1=${oldSha}`);
    expect(old.body.stops.length).toBe(gtfsFeed(gtfs("bart")).table("stops").length);
    expect(new Set(old.body.stops.map((s: any) => s.feed_version.sha1))).toEqual(new Set([oldSha]));
    const byKey = await get(`/api/v2/rest/stops/f-9q9-bart:12TH?feed_version_sha1=${oldSha}`);
    expect(byKey.body.stops[0].id).toBe(oldStopId);
    const trips = await get(`/api/v2/rest/routes/f-9q9-bart:1/trips?feed_version_sha1=${oldSha}&limit=1`);
    expect(trips.status).toBe(200);
    expect(trips.body.trips[0].feed_version.sha1).toBe(oldSha);
  });

  test("an integer key pins its own (inactive) version; feed keys see only the active one", async () => {
    const byId = await get(`/api/v2/rest/stops/${oldStopId}`);
    expect(byId.status).toBe(200);
    expect(byId.body.stops[0].feed_version.sha1).toBe(oldSha);
    const byFeedKey = await get("/api/v2/rest/stops/f-9q9-bart:12TH");
    expect(byFeedKey.body.stops[0].feed_version.sha1).toBe(newSha);
  });

  test("an unknown but well-formed sha1 matches nothing", async () => {
    const r = await get(`/api/v2/rest/stops?feed_version_sha1=${"0".repeat(40)}`);
    expect(r.status).toBe(200);
    expect(r.body.stops).toEqual([]);
  });
});
