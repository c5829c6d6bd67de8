/**
 * FEATURE UNDER TEST: the catalog's downloads (issue 30, server/catalog/downloads.ts): a version's
 * zip kept at import and served byte for byte (SHA-1, ETag and If-None-Match, one byte range, 416,
 * HEAD), the active version's zip by feed key, the licence's redistribution_allowed "no" refused
 * (403), 404s for unknown keys and for a version whose zip is not kept; the current realtime
 * snapshots re-encoded as FeedMessages (protobuf and the protobuf JSON mapping), equal to the
 * messages they were ingested from. Real imports of shared feeds, the real realtime ingest, the
 * real server.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import GtfsRealtimeBindings from "gtfs-realtime-bindings";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { importFeed } from "../../pipeline/import.ts";
import { readManifest, VERSION_ZIP, type Manifest } from "../../pipeline/schema/manifest.ts";
import { decodeFeed, type FeedMessage } from "../../pipeline/realtime/decode.ts";
import { runImportRt } from "../../pipeline/realtime/cli.ts";
import { gtfs, tempDir } from "../support/dataset.ts";
import { Clock, rtFile, rtServer, type RtServer } from "../realtime/support.ts";
import { catalogServer } from "./harness.ts";

const { transit_realtime: rt } = GtfsRealtimeBindings;
const sha1 = (b: Uint8Array) => createHash("sha1").update(b).digest("hex");
const REST = "/api/v2/rest";
const RT_FILES = { alerts: "caltrain-alerts-20260218.pb", trip_updates: "caltrain-trip-updates-20260218.pb", vehicle_positions: "caltrain-vehicle-positions.pb" } as const;

const USF_VP = "usf-bullrunner-vehicle-positions.pb";
let data: string;
let clockS: number;
let s: RtServer;
let m: Manifest;
const feedOf = (name: string) => m.feeds.find((f) => f.source === gtfs(name))!;
const versionOf = (name: string) => m.versions.find((v) => v.sha1 === feedOf(name).active)!;
const get = (path: string, headers: Record<string, string> = {}, method = "GET") => fetch(s.url + path, { headers, method });
const bytes = async (r: Response) => new Uint8Array(await r.arrayBuffer());

beforeAll(async () => {
  data = tempDir("interchange-downloads-");
  for (const [name, license] of [["caltrain", {}], ["google-sample-feed", { redistribution_allowed: "no" as const }], ["usf-bullrunner", {}], ["vvs-bus-752", {}]] as const) {
    const r = await importFeed({ dataDir: data, source: gtfs(name), license });
    if (r.status !== "imported") throw new Error(`${name}: ${r.status} ${r.error?.message}`);
  }
  m = readManifest(data);
  // usf-bullrunner stands for a version imported before the import kept its zip
  rmSync(join(data, versionOf("usf-bullrunner").path, VERSION_ZIP));
  const caltrain = feedOf("caltrain").onestop_id;
  const origLog = console.log;
  console.log = () => {};
  try {
    for (const f of Object.values(RT_FILES)) expect(await runImportRt(["--data", data, "--feed-id", caltrain, "--retention-days", "0", rtFile(f)])).toBe(0);
    // usf-bullrunner: a realtime source with vehicle positions only
    expect(await runImportRt(["--data", data, "--feed-id", feedOf("usf-bullrunner").onestop_id, "--retention-days", "0", rtFile(USF_VP)])).toBe(0);
  } finally {
    console.log = origLog;
  }
  // the clock at the newest snapshot, every one young enough to be served
  const stamps = [...Object.values(RT_FILES), USF_VP].map((f) => decodeFeed(readFileSync(rtFile(f))).header.timestamp!);
  clockS = Math.max(...stamps);
  s = await rtServer(data, new Clock(clockS * 1000), 10 * 365 * 86400);
}, 180_000);
afterAll(() => s?.stop());

describe("a version's zip", () => {
  test("the import keeps the zip in the version folder, byte for byte", () => {
    const v = versionOf("caltrain");
    const kept = readFileSync(join(data, v.path, VERSION_ZIP));
    expect(sha1(kept)).toBe(v.sha1);
    expect(Buffer.compare(kept, readFileSync(gtfs("caltrain")))).toBe(0);
  });

  test("by SHA-1 and by integer id: the zip, its SHA-1 the version's, with ETag and a file name", async () => {
    const v = versionOf("caltrain");
    for (const key of [v.sha1, String(v.id), v.sha1.toUpperCase()]) {
      const r = await get(`${REST}/feed_versions/${key}/download`);
      expect(r.status).toBe(200);
      expect(r.headers.get("content-type")).toBe("application/zip");
      expect(r.headers.get("etag")).toBe(`"${v.sha1}"`);
      expect(r.headers.get("accept-ranges")).toBe("bytes");
      expect(r.headers.get("content-disposition")).toBe(`attachment; filename="${v.feed_onestop_id}-${v.sha1}.zip"`);
      const body = await bytes(r);
      expect(Number(r.headers.get("content-length"))).toBe(body.length);
      expect(sha1(body)).toBe(v.sha1);
    }
  });

  test("the latest version by Onestop ID and by feed id is the active one's zip", async () => {
    const f = feedOf("caltrain");
    for (const key of [f.onestop_id, String(f.id)]) {
      const r = await get(`${REST}/feeds/${key}/download_latest_feed_version`);
      expect(r.status).toBe(200);
      expect(r.headers.get("etag")).toBe(`"${f.active}"`);
      expect(sha1(await bytes(r))).toBe(f.active!);
    }
  });

  test("If-None-Match naming the version: 304 without a body; another tag: 200", async () => {
    const v = versionOf("caltrain");
    for (const path of [`${REST}/feed_versions/${v.sha1}/download`, `${REST}/feeds/${v.feed_onestop_id}/download_latest_feed_version`]) {
      for (const tag of [`"${v.sha1}"`, `W/"${v.sha1}"`, `"x", "${v.sha1}"`, "*"]) {
        const r = await get(path, { "if-none-match": tag });
        expect(r.status).toBe(304);
        expect(r.headers.get("etag")).toBe(`"${v.sha1}"`);
        expect((await bytes(r)).length).toBe(0);
      }
      const other = await get(path, { "if-none-match": `"${"0".repeat(40)}"` });
      expect(other.status).toBe(200);
      expect(sha1(await bytes(other))).toBe(v.sha1);
    }
  });

  test("one byte range: 206 with Content-Range and exactly those bytes", async () => {
    const v = versionOf("caltrain");
    const whole = readFileSync(gtfs("caltrain"));
    const size = whole.length;
    const path = `${REST}/feed_versions/${v.sha1}/download`;
    for (const [range, start, end] of [["bytes=100-199", 100, 199], ["bytes=1000-", 1000, size - 1], ["bytes=-500", size - 500, size - 1], [`bytes=0-${size + 1000}`, 0, size - 1]] as const) {
      const r = await get(path, { range });
      expect(r.status).toBe(206);
      expect(r.headers.get("content-range")).toBe(`bytes ${start}-${end}/${size}`);
      const body = await bytes(r);
      expect(body.length).toBe(end - start + 1);
      expect(Buffer.compare(Buffer.from(body), whole.subarray(start, end + 1))).toBe(0);
    }
    // If-Range with this version's tag: the range; with another: the whole file
    expect((await get(path, { range: "bytes=0-9", "if-range": `"${v.sha1}"` })).status).toBe(206);
    const stale = await get(path, { range: "bytes=0-9", "if-range": `"${"1".repeat(40)}"` });
    expect(stale.status).toBe(200);
    expect(sha1(await bytes(stale))).toBe(v.sha1);
    // several ranges, or a malformed one: the whole file
    for (const range of ["bytes=0-9,20-29", "bytes=9-0", "lines=1-2"]) {
      const r = await get(path, { range });
      expect(r.status).toBe(200);
      expect((await bytes(r)).length).toBe(size);
    }
  });

  test("a range outside the file: 416 with Content-Range bytes */size and a JSON error", async () => {
    const v = versionOf("caltrain");
    const size = readFileSync(gtfs("caltrain")).length;
    for (const range of [`bytes=${size}-`, `bytes=${size + 10}-${size + 20}`, "bytes=-0"]) {
      const r = await get(`${REST}/feed_versions/${v.sha1}/download`, { range });
      expect(r.status).toBe(416);
      expect(r.headers.get("content-range")).toBe(`bytes */${size}`);
      expect(((await r.json()) as { error: string }).error).toContain(`${size} bytes`);
    }
  });

  test("HEAD: the GET's status and headers, no body", async () => {
    const v = versionOf("caltrain");
    const size = readFileSync(gtfs("caltrain")).length;
    const r = await get(`${REST}/feed_versions/${v.sha1}/download`, {}, "HEAD");
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("application/zip");
    expect(r.headers.get("etag")).toBe(`"${v.sha1}"`);
    expect(Number(r.headers.get("content-length"))).toBe(size);
    expect((await bytes(r)).length).toBe(0);
    const latest = await get(`${REST}/feeds/${v.feed_onestop_id}/download_latest_feed_version`, { range: "bytes=0-9" }, "HEAD");
    expect(latest.status).toBe(206);
    expect(latest.headers.get("content-range")).toBe(`bytes 0-9/${size}`);
    expect((await get(`${REST}/feed_versions/${"0".repeat(40)}/download`, {}, "HEAD")).status).toBe(404);
  });

  test("a feed whose licence says redistribution_allowed no: 403 with {error}, on every download", async () => {
    const f = feedOf("google-sample-feed");
    expect(f.license.redistribution_allowed).toBe("no");
    const v = versionOf("google-sample-feed");
    expect(existsSync(join(data, v.path, VERSION_ZIP))).toBe(true); // kept, but not given out
    for (const path of [`/feed_versions/${v.sha1}/download`, `/feed_versions/${v.id}/download`, `/feeds/${f.onestop_id}/download_latest_feed_version`, `/feeds/${f.id}/download_latest_rt/alerts.pb`]) {
      const r = await get(REST + path);
      expect(r.status).toBe(403);
      const body = (await r.json()) as { error: string };
      expect(body.error).toContain("redistribution");
      expect(Object.keys(body)).toEqual(["error"]);
    }
  });

  test("404: unknown version or feed, and a version whose zip is not kept (said so); 400: a key that is no key", async () => {
    const notKept = versionOf("usf-bullrunner");
    const cases: [string, number, string][] = [
      [`/feed_versions/${"0".repeat(40)}/download`, 404, "no feed version"],
      [`/feed_versions/999999/download`, 404, "no feed version"],
      [`/feeds/f-nowhere/download_latest_feed_version`, 404, "no feed"],
      [`/feeds/999999/download_latest_feed_version`, 404, "no feed"],
      [`/feed_versions/${notKept.sha1}/download`, 404, "not kept"],
      [`/feeds/${notKept.feed_onestop_id}/download_latest_feed_version`, 404, "not kept"],
      [`/feed_versions/not-a-sha1/download`, 400, "SHA-1"],
      [`/feed_versions/%FF/download`, 400, "percent-encoded"],
    ];
    for (const [path, status, text] of cases) {
      const r = await get(REST + path);
      expect([path, r.status]).toEqual([path, status]);
      expect(((await r.json()) as { error: string }).error).toContain(text);
    }
  });
});

/** A message decoded, encoded and decoded again from its JSON form (the JSON's floats are the shortest that read back as the same float32). */
const fromJson = (json: unknown): FeedMessage => decodeFeed(rt.FeedMessage.encode(rt.FeedMessage.fromObject(json as Record<string, unknown>)).finish());

describe("the latest realtime snapshot as a FeedMessage", () => {
  for (const [kind, file] of Object.entries(RT_FILES)) {
    test(`${kind}: protobuf and JSON, the same entities as the message ingested`, async () => {
      const feed = feedOf("caltrain").onestop_id;
      const pb = await get(`${REST}/feeds/${feed}/download_latest_rt/${kind}.pb`);
      expect(pb.status).toBe(200);
      expect(pb.headers.get("content-type")).toBe("application/x-protobuf");
      const ours = decodeFeed(await bytes(pb));
      const original = decodeFeed(readFileSync(rtFile(file)));
      const field = kind === "alerts" ? "alert" : kind === "trip_updates" ? "tripUpdate" : "vehicle";
      const want = (original.entity ?? []).filter((e) => e[field]);
      expect(want.length).toBeGreaterThan(0);
      expect(ours.header).toEqual({ gtfsRealtimeVersion: "2.0", incrementality: "FULL_DATASET", timestamp: original.header.timestamp });
      expect(ours.entity).toEqual(want);

      const json = await get(`${REST}/feeds/${feed}/download_latest_rt/${kind}.json`);
      expect(json.status).toBe(200);
      expect(json.headers.get("content-type")).toBe("application/json");
      const body = (await json.json()) as { header: { timestamp: unknown }; entity: Record<string, unknown>[] };
      // the protobuf JSON mapping: lowerCamelCase names, uint64 as strings
      expect(body.header.timestamp).toBe(String(original.header.timestamp));
      expect(body.entity[0]![field]).toBeDefined();
      expect(fromJson(body)).toEqual(ours);
    });
  }

  test("JSON float fields in their shortest form, as protojson writes them", async () => {
    const body = (await (await get(`${REST}/feeds/${feedOf("caltrain").onestop_id}/download_latest_rt/vehicle_positions.json`)).json()) as { entity: { vehicle: { position: { latitude: number } } }[] };
    for (const e of body.entity) {
      const lat = e.vehicle.position.latitude;
      expect(String(lat).length).toBeLessThanOrEqual(String(Math.fround(lat)).length);
      expect(Math.fround(lat)).toBe(Math.fround(Number(lat.toPrecision(9))));
    }
  });

  test("HEAD, by feed id; 404 for a feed without a realtime source; 400 for an unknown kind or format", async () => {
    const f = feedOf("caltrain");
    const head = await get(`${REST}/feeds/${f.id}/download_latest_rt/alerts.pb`, {}, "HEAD");
    expect(head.status).toBe(200);
    expect(Number(head.headers.get("content-length"))).toBeGreaterThan(0);
    expect((await bytes(head)).length).toBe(0);
    const none = await get(`${REST}/feeds/${feedOf("vvs-bus-752").onestop_id}/download_latest_rt/trip_updates.json`);
    expect(none.status).toBe(404);
    expect(((await none.json()) as { error: string }).error).toContain("no realtime source");
    for (const [file, parameter] of [["alerts.xml", "format"], ["service_alerts.pb", "rt_type"], ["alerts", "format"]]) {
      const r = await get(`${REST}/feeds/${f.onestop_id}/download_latest_rt/${file}`);
      expect(r.status).toBe(400);
      expect(((await r.json()) as { parameter: string }).parameter).toBe(parameter);
    }
    expect((await get(`${REST}/feeds/f-nowhere/download_latest_rt/alerts.pb`)).status).toBe(404);
  });
});

describe("a feed with a realtime source but not every kind", () => {
  test("the kind it has: its entities; a kind it has not: a FeedMessage with a header (the clock's time) and no entity", async () => {
    const feed = feedOf("usf-bullrunner").onestop_id;
    const vp = decodeFeed(await bytes(await get(`${REST}/feeds/${feed}/download_latest_rt/vehicle_positions.pb`)));
    expect(vp.entity).toEqual((decodeFeed(readFileSync(rtFile(USF_VP))).entity ?? []).filter((e) => e.vehicle));
    for (const kind of ["alerts", "trip_updates"]) {
      const pb = await get(`${REST}/feeds/${feed}/download_latest_rt/${kind}.pb`);
      expect(pb.status).toBe(200);
      const msg = decodeFeed(await bytes(pb));
      expect(msg.header).toEqual({ gtfsRealtimeVersion: "2.0", incrementality: "FULL_DATASET", timestamp: clockS });
      expect(msg.entity ?? []).toEqual([]);
      const json = (await (await get(`${REST}/feeds/${feed}/download_latest_rt/${kind}.json`)).json()) as Record<string, unknown>;
      // (protojson leaves an empty repeated field out)
      expect(json).toEqual({ header: { gtfsRealtimeVersion: "2.0", incrementality: "FULL_DATASET", timestamp: String(clockS) } });
    }
  });
});

describe("API keys", () => {
  test("the downloads need a key like every catalog path: 401 without, the zip with", async () => {
    const k = await catalogServer("downloads-keys", ["google-sample-feed"], { apiKeys: [{ key: "download-key-1", account: "dl" }] });
    try {
      const v = readManifest(k.dataDir).versions[0]!;
      for (const path of [`${REST}/feed_versions/${v.sha1}/download`, `${REST}/feeds/${v.feed_onestop_id}/download_latest_feed_version`, `${REST}/feeds/${v.feed_onestop_id}/download_latest_rt/alerts.pb`]) {
        const r = await k.get(path);
        expect(r.status).toBe(401);
        expect(((await r.json()) as { error: string }).error).toContain("API key");
      }
      const ok = await k.get(`${REST}/feed_versions/${v.sha1}/download`, { apikey: "download-key-1" });
      expect(ok.status).toBe(200);
      expect(sha1(await bytes(ok))).toBe(v.sha1);
    } finally {
      await k.stop();
    }
  });
});

describe("a version imported before the import kept its zip", () => {
  test("importing its zip again is unchanged, and leaves the zip in its folder: then it downloads", async () => {
    const v = versionOf("usf-bullrunner");
    expect(existsSync(join(data, v.path, VERSION_ZIP))).toBe(false);
    const r = await importFeed({ dataDir: data, source: gtfs("usf-bullrunner") });
    expect(r.status).toBe("unchanged");
    expect(readManifest(data).generation).toBe(m.generation); // no manifest switch
    const got = await get(`${REST}/feed_versions/${v.sha1}/download`);
    expect(got.status).toBe(200);
    expect(sha1(await bytes(got))).toBe(v.sha1);
  });
});

describe("OpenAPI", () => {
  test("/docs/json lists the three downloads with their path parameters", async () => {
    const doc = (await (await get("/docs/json")).json()) as { paths: Record<string, { get?: { parameters?: { name: string; in: string; schema?: { enum?: string[] } }[] } }> };
    const params = (path: string) => (doc.paths[`${REST}${path}`]?.get?.parameters ?? []).filter((p) => p.in === "path");
    expect(params("/feed_versions/{feed_version_key}/download").map((p) => p.name)).toEqual(["feed_version_key"]);
    expect(params("/feeds/{feed_key}/download_latest_feed_version").map((p) => p.name)).toEqual(["feed_key"]);
    const rtParams = params("/feeds/{feed_key}/download_latest_rt/{rt_type}.{format}");
    expect(rtParams.map((p) => p.name)).toEqual(["feed_key", "rt_type", "format"]);
    expect(rtParams[1]!.schema!.enum).toEqual(["alerts", "trip_updates", "vehicle_positions"]);
    expect(rtParams[2]!.schema!.enum).toEqual(["pb", "json"]);
    expect(Object.keys(doc.paths).some((p) => p.includes("{rt_file}"))).toBe(false);
  });
});
