/**
 * FEATURE UNDER TEST: the catalog index cache (server/catalog/index-cache.ts): the first load
 * builds the stop_times, shapes and departure indexes and writes `<index-dir>/catalog-<key>.bin`; the next
 * load maps it and answers trips, departures and routes exactly as the built one did; a garbage or
 * torn file is ignored and rewritten; another dataset content uses another file (and a load removes
 * the files of other contents).
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startServer, type RunningServer } from "../../server/main.ts";
import { serverConfigFrom } from "../../server/config.ts";
import type { Logger } from "../../server/feature.ts";
import { importedDataset, tempDir } from "../support/dataset.ts";
import { readManifest } from "../../pipeline/schema/manifest.ts";
import { indexKey, indexPath } from "../../server/catalog/index-cache.ts";

const FEEDS: [string, string][] = [
  ["bart", "2019-06-04"],
  ["google-sample-feed", "2008-06-02"],
];

const logs: Record<string, unknown>[] = [];
const log: Logger = { info: (m, f) => m === "catalog loaded" && logs.push(f ?? {}), warn() {}, error: (m, f) => console.error(m, f) };

let dataDir = "";
let indexDir = "";
beforeAll(async () => {
  dataDir = await importedDataset("index-cache", FEEDS.map((f) => f[0]), { timetable: false });
  indexDir = tempDir("interchange-indexes-");
}, 120_000);

async function serve(dir = indexDir): Promise<RunningServer> {
  return startServer(serverConfigFrom({ data: dataDir, indexDir: dir, port: 0, host: "127.0.0.1", noAuth: true }), { log });
}

/** Every answer the index serves: routes, their trips with stop_times, and departures of stops of each feed. */
async function answers(s: RunningServer): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const get = async (path: string) => {
    const r = await fetch(s.url + path);
    const text = await r.text();
    out.set(path, `${r.status} ${text}`);
    return JSON.parse(text);
  };
  const manifest = readManifest(dataDir);
  const routes = (await get(`/api/v2/rest/routes?limit=100`)).routes as { id: number }[];
  for (const r of routes.slice(0, 12)) {
    const trips = (await get(`/api/v2/rest/routes/${r.id}/trips?limit=20`)).trips as { id: number }[];
    for (const t of trips.slice(0, 5)) await get(`/api/v2/rest/routes/${r.id}/trips/${t.id}`);
  }
  for (const feed of manifest.feeds) {
    const date = FEEDS.find(([name]) => (feed.source ?? "").includes(name))?.[1] ?? "2019-06-04";
    const stops = (await get(`/api/v2/rest/stops?feed_onestop_id=${encodeURIComponent(feed.onestop_id)}&limit=30`)).stops as { id: number }[];
    for (const st of stops) await get(`/api/v2/rest/stops/${st.id}/departures?service_date=${date}&start_time=00:00:00&end_time=30:00:00&limit=1000`);
  }
  return out;
}

function cacheFiles(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir).filter((f) => f.startsWith("catalog-")) : [];
}

describe("catalog index cache", () => {
  let built: Map<string, string>;
  let path = "";
  beforeAll(async () => {
    path = indexPath(indexDir, indexKey(readManifest(dataDir)));
  });

  test("the first load builds and writes the file; the second maps it and answers identically", async () => {
    expect(existsSync(path)).toBe(false);
    const a = await serve();
    try {
      built = await answers(a);
    } finally {
      await a.stop();
    }
    expect(logs.at(-1)!.index_cache).toBe("built");
    expect(logs.at(-1)!.index_cache_shapes).toBe("read");
    expect(existsSync(path)).toBe(true);
    expect(cacheFiles(indexDir)).toEqual([path.split("/").at(-1)!]);
    // the answers are real: departures and trips with stop_times were served
    expect([...built.values()].some((v) => v.startsWith("200") && v.includes('"departures":[{'))).toBe(true);
    expect([...built.values()].some((v) => v.startsWith("200") && v.includes('"stop_times":[{'))).toBe(true);
    // and shapes (the trips' geometry, in the file too)
    expect([...built.values()].some((v) => v.startsWith("200") && /"shape":\{"shape_id":"[^"]+","geometry":\{"type":"LineString"/.test(v))).toBe(true);

    const b = await serve();
    try {
      const mapped = await answers(b);
      expect(logs.at(-1)!.index_cache).toBe("mapped");
      expect(logs.at(-1)!.index_cache_shapes).toBe("mapped");
      expect([...mapped.keys()]).toEqual([...built.keys()]);
      for (const [k, v] of built) expect(mapped.get(k), k).toBe(v);
    } finally {
      await b.stop();
    }
  }, 120_000);

  test("a garbage or torn file is ignored and rebuilt, never a crash", async () => {
    const good = readFileSync(path);
    for (const spoil of [() => writeFileSync(path, "garbage, not an index"), () => truncateSync(path, Math.floor(good.length / 2))]) {
      spoil();
      const s = await serve();
      try {
        expect(logs.at(-1)!.index_cache).toBe("built");
        const again = await answers(s);
        for (const [k, v] of built) expect(again.get(k), k).toBe(v);
      } finally {
        await s.stop();
      }
      expect(statSync(path).size).toBe(good.length);
      expect(readFileSync(path).equals(good)).toBe(true);
    }
  }, 120_000);

  test("another dataset content uses another file; a load removes the files of other contents", async () => {
    const other = await importedDataset("index-cache-other", ["google-sample-feed"], { timetable: false });
    const otherKey = indexKey(readManifest(other));
    expect(otherKey).not.toBe(indexKey(readManifest(dataDir)));
    const s = await startServer(serverConfigFrom({ data: other, indexDir, port: 0, host: "127.0.0.1", noAuth: true }), { log });
    await s.stop();
    expect(logs.at(-1)!.index_cache).toBe("built");
    expect(cacheFiles(indexDir)).toEqual([indexPath(indexDir, otherKey).split("/").at(-1)!]);
    // the default folder is <data>/indexes
    const d = await startServer(serverConfigFrom({ data: other, port: 0, host: "127.0.0.1", noAuth: true }), { log });
    await d.stop();
    expect(existsSync(join(other, "indexes", `catalog-${otherKey}.bin`))).toBe(true);
  }, 120_000);
});

