/**
 * FEATURE UNDER TEST: the feed fields Transitland serves that come from the feeds file and the
 * schedule, end to end: `interchange import --feeds FILE` with feeds' `name` and `tags` (the real
 * CLI), `interchange import-rt` of a realtime snapshot fetched over HTTP, then the real server:
 * - /feeds `name` and `tags`, the tag_key/tag_value filter and `search` in the name;
 * - /feed_versions `service_levels`: exact values on a hand-written feed (computed by hand below),
 *   and on Caltrain every day checked against the test's own reading of its GTFS files;
 * - the GTFS-Realtime feed of a static feed as a feed of its own (spec gtfs-rt, `~rt`).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runImport } from "../../pipeline/cli.ts";
import { runImportRt } from "../../pipeline/realtime/cli.ts";
import { readManifest } from "../../pipeline/schema/manifest.ts";
import { readRealtimeStatuses } from "../../pipeline/schema/realtime.ts";
import { SERVICE_LEVELS_FILE } from "../../pipeline/schema/service-levels.ts";
import { Database } from "../../server/catalog/db.ts";
import { serviceLevelsByVersion } from "../../server/catalog/service-levels.ts";
import { serverConfigFrom } from "../../server/config.ts";
import { startServer, type RunningServer } from "../../server/main.ts";
import { gtfs, SHARED, tempDir } from "../support/dataset.ts";
import { dateRange, gtfsFeed } from "../support/gtfs-reader.ts";

const BASE = "/api/v2/rest";
const CALTRAIN = "f-9q9-caltrain";
const FIXTURE = join(import.meta.dir, "../fixtures/gtfs/service-levels");
const RT_FILE = join(SHARED, "data", "gtfs-rt", "caltrain-trip-updates.pb");
let dataDir: string;
let server: RunningServer;
let rtOrigin: ReturnType<typeof Bun.serve>;
let rtUrl: string;
let fixtureId: string;

async function json(path: string): Promise<any> {
  const r = await fetch(server.url + path);
  if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${await r.text()}`);
  return r.json();
}
const ids = async (query: string) => (await json(`${BASE}/feeds?${query}`)).feeds.map((f: any) => f.onestop_id);

beforeAll(async () => {
  dataDir = tempDir("interchange-feed-fields-");
  const feedsFile = join(tempDir("interchange-feeds-file-"), "feeds.json");
  writeFileSync(
    feedsFile,
    JSON.stringify([
      { id: CALTRAIN, path: gtfs("caltrain"), name: "Caltrain", tags: { gtfs_data_exchange: "caltrain", unstable_url: "true" } },
      { path: FIXTURE, name: "Service Level Test", tags: { unstable_url: "false" } },
    ]),
  );
  expect(await runImport(["--data", dataDir, "--feeds", feedsFile, "--quiet"])).toBe(0);
  fixtureId = readManifest(dataDir).feeds.find((f) => f.onestop_id !== CALTRAIN)!.onestop_id;
  // a realtime source over HTTP, so that its URL is public
  const pb = readFileSync(RT_FILE);
  rtOrigin = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response(pb, { headers: { "content-type": "application/x-protobuf" } }) });
  rtUrl = `http://127.0.0.1:${rtOrigin.port}/caltrain/trip-updates.pb`;
  await runImportRt(["--data", dataDir, "--feed-id", CALTRAIN, rtUrl]);
  server = await startServer(serverConfigFrom({ data: dataDir, port: 0, host: "127.0.0.1", noAuth: true }), { log: { info() {}, warn() {}, error: (m, f) => console.error(m, f) } });
}, 240_000);
afterAll(() => {
  server?.stop();
  rtOrigin?.stop(true);
});

describe("feeds' name and tags (feeds file)", () => {
  test("kept in the manifest and served on /feeds, the feed versions' feed and operators' feeds", async () => {
    const m = readManifest(dataDir);
    expect(m.feeds.find((f) => f.onestop_id === CALTRAIN)).toMatchObject({ name: "Caltrain", tags: { gtfs_data_exchange: "caltrain", unstable_url: "true" } });
    const caltrain = (await json(`${BASE}/feeds/${CALTRAIN}`)).feeds[0];
    expect(caltrain.name).toBe("Caltrain");
    expect(caltrain.tags).toEqual({ gtfs_data_exchange: "caltrain", unstable_url: "true" });
    const fixture = (await json(`${BASE}/feeds/${fixtureId}`)).feeds[0];
    expect(fixture).toMatchObject({ name: "Service Level Test", tags: { unstable_url: "false" } });
    const versions = (await json(`${BASE}/feeds/${CALTRAIN}/feed_versions`)).feed_versions;
    expect(versions[0].feed).toMatchObject({ onestop_id: CALTRAIN, name: "Caltrain", spec: "gtfs" });
    const operators = (await json(`${BASE}/operators?feed_onestop_id=${CALTRAIN}`)).operators;
    expect(operators.length).toBeGreaterThan(0);
    expect(operators[0].feeds.find((f: any) => f.onestop_id === CALTRAIN).name).toBe("Caltrain");
  });

  test("tag_key alone: feeds having the tag; with tag_value: that value; search finds the name", async () => {
    // the realtime feed carries its static feed's tags
    expect(await ids("tag_key=unstable_url")).toEqual([CALTRAIN, fixtureId, `${CALTRAIN}~rt`].sort(byId(await idMap())));
    expect(await ids("tag_key=unstable_url&tag_value=true")).toEqual([CALTRAIN, `${CALTRAIN}~rt`]);
    expect(await ids("tag_key=unstable_url&tag_value=false")).toEqual([fixtureId]);
    expect(await ids("tag_key=gtfs_data_exchange&tag_value=")).toEqual([CALTRAIN, `${CALTRAIN}~rt`]);
    expect(await ids("tag_key=nope")).toEqual([]);
    expect(await ids("tag_key=unstable_url&tag_value=TRUE")).toEqual([]);
    expect(await ids("search=level%20test")).toEqual([fixtureId]);
    const r = await fetch(`${server.url}${BASE}/feeds?tag_value=true`);
    expect(r.status).toBe(400);
    expect(((await r.json()) as any).parameter).toBe("tag_value");
  });

  test("the OpenAPI description documents tags, gtfs-rt feeds and service levels", async () => {
    const doc = JSON.stringify(await json("/docs/json"));
    expect(doc).toContain("the feeds file's `tags`");
    expect(doc).toContain("spec gtfs-rt");
    expect(doc).toContain("service_levels");
  });
});

async function idMap(): Promise<Map<string, number>> {
  return new Map<string, number>((await json(`${BASE}/feeds`)).feeds.map((f: any) => [f.onestop_id, f.id]));
}
const byId = (m: Map<string, number>) => (a: string, b: string) => m.get(a)! - m.get(b)!;

describe("service levels", () => {
  test("a hand-written feed: seconds per weekday over runs of equal weeks", async () => {
    const fv = (await json(`${BASE}/feeds/${fixtureId}/feed_versions`)).feed_versions[0];
    // WK (Mon-Fri, 2024-01-01..02-04, not 01-15): t1 30 min + t2 45 min = 4500 s (t5 has one stop_time: not counted)
    // WE (Sat-Sun): t3 20 min x 3 departures (10:00, 10:30, 11:00 every 1800 s) = 3600 s
    // EXTRA (calendar_dates only, Wed 2024-01-10): t4 5 min = 300 s
    const week = (mon: number, tue: number, wed: number, thu: number, fri: number, sat: number, sun: number) =>
      ({ monday: mon, tuesday: tue, wednesday: wed, thursday: thu, friday: fri, saturday: sat, sunday: sun });
    const normal = week(4500, 4500, 4500, 4500, 4500, 3600, 3600);
    expect(fv.service_levels).toEqual([
      { start_date: "2024-01-01", end_date: "2024-01-07", ...normal },
      { start_date: "2024-01-08", end_date: "2024-01-14", ...normal, wednesday: 4500 + 300 },
      { start_date: "2024-01-15", end_date: "2024-01-21", ...normal, monday: 0 },
      // weeks 4 and 5 are alike: one level; week 1 has their totals but is not next to them
      { start_date: "2024-01-22", end_date: "2024-02-04", ...normal },
    ]);
    // the same on /feed_versions/{key}
    expect((await json(`${BASE}/feed_versions/${fv.sha1}`)).feed_versions[0].service_levels).toEqual(fv.service_levels);
  });

  test("the import keeps them in the version folder; a version without that file (imported before it existed) gets the same from its Parquet files", async () => {
    const m = readManifest(dataDir);
    const served = new Map<string, unknown>((await json(`${BASE}/feed_versions`)).feed_versions.map((v: any) => [v.sha1, v.service_levels]));
    for (const v of m.versions) {
      const file = join(dataDir, v.path, SERVICE_LEVELS_FILE);
      expect(existsSync(file)).toBe(true);
      expect(JSON.parse(readFileSync(file, "utf8"))).toEqual(served.get(v.sha1));
    }
    // the server's reading without the files: the SQL over the versions' Parquet, as a dataset imported before
    const copy = tempDir("interchange-feed-fields-nofile-");
    cpSync(dataDir, copy, { recursive: true });
    for (const v of m.versions) rmSync(join(copy, v.path, SERVICE_LEVELS_FILE));
    const db = await Database.create({ threads: 1, poolSize: 1 });
    const computed = await serviceLevelsByVersion(db, copy, readManifest(copy));
    for (const v of m.versions) expect(computed.get(v.id)).toEqual(served.get(v.sha1) as never);
    expect([...computed.values()].some((levels) => levels.length > 0)).toBe(true);
  });

  test("Caltrain: every day's seconds are those of the GTFS files' trips running that day", async () => {
    const fv = (await json(`${BASE}/feeds/${CALTRAIN}/feed_versions`)).feed_versions[0];
    const levels: any[] = fv.service_levels;
    expect(levels.length).toBeGreaterThan(1);
    const feed = gtfsFeed(gtfs("caltrain"));
    // the test's own reading: a trip's seconds = last arrival - first departure (x its frequencies' departures)
    const secs = (t: string) => t.split(":").reduce((a, x) => a * 60 + Number(x), 0);
    const byTrip = new Map<string, { first: number; last: number; n: number }>();
    for (const st of feed.table("stop_times")) {
      const e = byTrip.get(st.trip_id!) ?? { first: Infinity, last: -Infinity, n: 0 };
      e.n++;
      if (st.departure_time) e.first = Math.min(e.first, secs(st.departure_time));
      if (st.arrival_time) e.last = Math.max(e.last, secs(st.arrival_time));
      byTrip.set(st.trip_id!, e);
    }
    const repeats = new Map<string, number>();
    for (const f of feed.table("frequencies")) {
      const h = Number(f.headway_secs);
      const n = h > 0 && secs(f.end_time!) >= secs(f.start_time!) ? Math.floor((secs(f.end_time!) - secs(f.start_time!)) / h) + 1 : 0;
      repeats.set(f.trip_id!, (repeats.get(f.trip_id!) ?? 0) + n);
    }
    const byService = new Map<string, number>();
    for (const t of feed.table("trips")) {
      const e = byTrip.get(t.trip_id!);
      if (!e || e.n < 2) continue;
      byService.set(t.service_id!, (byService.get(t.service_id!) ?? 0) + (e.last - e.first) * (repeats.get(t.trip_id!) ?? 1));
    }
    const names = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"];
    const span = feed.calendarSpan();
    let checked = 0;
    for (const day of dateRange(span.first, span.last)) {
      const want = [...feed.servicesOn(day)].reduce((a, s) => a + (byService.get(s) ?? 0), 0);
      const level = levels.find((l) => l.start_date <= day && day <= l.end_date);
      const got = level ? level[names[new Date(`${day}T00:00:00Z`).getUTCDay()]!] : 0;
      if (got !== want) throw new Error(`${day}: service level ${got} s, GTFS files ${want} s`);
      checked++;
    }
    expect(checked).toBeGreaterThan(200);
    // levels are Monday to Sunday runs, in order, without overlap
    for (const [i, l] of levels.entries()) {
      expect(new Date(`${l.start_date}T00:00:00Z`).getUTCDay()).toBe(1);
      expect(new Date(`${l.end_date}T00:00:00Z`).getUTCDay()).toBe(0);
      if (i > 0) expect(l.start_date > levels[i - 1].end_date).toBe(true);
    }
  });
});

describe("GTFS-Realtime feeds", () => {
  test("the realtime source of a static feed is a feed of its own: spec gtfs-rt, its realtime URLs", async () => {
    const status = readRealtimeStatuses(dataDir).find((s) => s.feed_id === CALTRAIN)!;
    expect(status.kinds.trip_updates?.source).toBe(rtUrl);
    const rt = (await json(`${BASE}/feeds?spec=gtfs-rt`)).feeds;
    expect(rt.map((f: any) => f.onestop_id)).toEqual([`${CALTRAIN}~rt`]);
    const feed = rt[0];
    const staticFeed = (await json(`${BASE}/feeds/${CALTRAIN}`)).feeds[0];
    expect(feed).toMatchObject({ spec: "gtfs-rt", name: "Caltrain", feed_versions: [], feed_state: { feed_version: null } });
    expect(feed.urls).toEqual({
      static_current: "", static_historic: [], static_planned: [], realtime_vehicle_positions: "", realtime_trip_updates: rtUrl, realtime_alerts: "",
      gbfs_auto_discovery: "", mds_provider: "",
    });
    expect(feed.license).toEqual(staticFeed.license);
    const lastOk = ["accepted", "unchanged"].includes(status.kinds.trip_updates!.last!.outcome);
    expect(feed.feed_state.last_fetch_error === "").toBe(lastOk);
    // the static feed keeps its static URL only
    expect(staticFeed.urls.realtime_trip_updates).toBe("");
    expect(staticFeed.spec).toBe("gtfs");
    // by key (Onestop ID, integer id), filters
    expect((await json(`${BASE}/feeds/${CALTRAIN}~rt`)).feeds[0].id).toBe(feed.id);
    expect((await json(`${BASE}/feeds/${feed.id}`)).feeds[0].onestop_id).toBe(`${CALTRAIN}~rt`);
    expect(await ids("spec=GTFS_RT")).toEqual([`${CALTRAIN}~rt`]);
    expect(await ids("spec=gtfs")).not.toContain(`${CALTRAIN}~rt`);
    expect(await ids("url_type=realtime_trip_updates")).toEqual([`${CALTRAIN}~rt`]);
    expect(await ids(`url=${encodeURIComponent(rtUrl)}`)).toEqual([`${CALTRAIN}~rt`]);
    expect(await ids(`fetch_error=${!lastOk}`)).toContain(`${CALTRAIN}~rt`);
    expect((await json(`${BASE}/feeds/${CALTRAIN}~rt/feed_versions`)).feed_versions).toEqual([]);
    // operators list it with their static feed
    const op = (await json(`${BASE}/operators?feed_onestop_id=${CALTRAIN}`)).operators[0];
    expect(op.feeds.map((f: any) => [f.onestop_id, f.spec])).toEqual([[CALTRAIN, "gtfs"], [`${CALTRAIN}~rt`, "gtfs-rt"]]);
  });

  test("download_latest_rt answers the same for the realtime feed's key and the static feed's", async () => {
    const a = await fetch(`${server.url}${BASE}/feeds/${CALTRAIN}/download_latest_rt/trip_updates.json`);
    const b = await fetch(`${server.url}${BASE}/feeds/${CALTRAIN}~rt/download_latest_rt/trip_updates.json`);
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    const [ja, jb]: any[] = [await a.json(), await b.json()];
    // (the header's timestamp is the time of the request; the 2023 snapshot's entities are too old to be served)
    expect(ja.header.gtfsRealtimeVersion).toBe("2.0");
    expect({ ...jb, header: { ...jb.header, timestamp: null } }).toEqual({ ...ja, header: { ...ja.header, timestamp: null } });
    expect((await fetch(`${server.url}${BASE}/feeds/f-nope~rt/download_latest_rt/trip_updates.json`)).status).toBe(404);
  });
});

describe("labels of an unchanged feed", () => {
  test("importing the feeds file again with new name and tags updates them without a new version", async () => {
    const before = readManifest(dataDir);
    const feedsFile = join(tempDir("interchange-feeds-file-"), "feeds.json");
    writeFileSync(feedsFile, JSON.stringify([{ id: CALTRAIN, path: gtfs("caltrain"), name: "Caltrain (JPB)", tags: { unstable_url: "false" } }]));
    expect(await runImport(["--data", dataDir, "--feeds", feedsFile, "--quiet"])).toBe(0);
    const after = readManifest(dataDir);
    expect(after.versions.map((v) => v.sha1)).toEqual(before.versions.map((v) => v.sha1));
    expect(after.feeds.find((f) => f.onestop_id === CALTRAIN)).toMatchObject({ name: "Caltrain (JPB)", tags: { unstable_url: "false" } });
    // the server reloads on the manifest switch
    let feed: any = null;
    for (let i = 0; i < 100 && feed?.name !== "Caltrain (JPB)"; i++) {
      await Bun.sleep(200);
      feed = (await json(`${BASE}/feeds/${CALTRAIN}`)).feeds[0];
    }
    expect(feed).toMatchObject({ name: "Caltrain (JPB)", tags: { unstable_url: "false" } });
    expect(await ids("tag_key=unstable_url&tag_value=false")).toEqual([CALTRAIN, fixtureId, `${CALTRAIN}~rt`].sort(byId(await idMap())));
    // the service levels are those computed before (versions do not change)
    const levels = (await json(`${BASE}/feeds/${fixtureId}/feed_versions`)).feed_versions[0].service_levels;
    expect(levels).toHaveLength(4);
  }, 120_000);
});
