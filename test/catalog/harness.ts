/**
 * End-to-end harness for the catalog tests: real feeds imported by the real pipeline, the real
 * server on an ephemeral port, and small fetch helpers.
 */
import { expect } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startServer, type RunningServer } from "../../server/main.ts";
import { serverConfigFrom } from "../../server/config.ts";
import type { Logger } from "../../server/feature.ts";
import { importedDataset, gtfs, tempDir } from "../support/dataset.ts";
import { readManifest } from "../../pipeline/schema/manifest.ts";

/** The feeds most catalog tests share (small/medium, with stations, flex, frequencies). */
export const MAIN_FEEDS = ["bart", "caltrain", "google-sample-feed", "trimet-2routes", "wmata-rail", "ctran-flex"];

const quiet: Logger = { info() {}, warn() {}, error: (m, f) => console.error(m, f) };

export interface TestServer extends RunningServer {
  dataDir: string;
  get(path: string, headers?: Record<string, string>): Promise<Response>;
  json<T = any>(path: string): Promise<T>;
  /** feed onestop_id the importer gave a shared-data feed */
  feedId(name: string): string;
}

export async function catalogServer(
  datasetName = "catalog-main",
  feeds: string[] = MAIN_FEEDS,
  opts: { apiKeys?: { key: string; account: string }[]; now?: () => number } = {},
): Promise<TestServer> {
  const dataDir = await importedDataset(datasetName, feeds, { timetable: false });
  let apiKeys: string | undefined;
  if (opts.apiKeys) {
    apiKeys = join(tempDir("interchange-keys-"), "keys.json");
    writeFileSync(apiKeys, JSON.stringify(opts.apiKeys));
  }
  const config = serverConfigFrom({ data: dataDir, port: 0, host: "127.0.0.1", noAuth: !apiKeys, apiKeys });
  const server = await startServer(config, { log: quiet, now: opts.now });
  const manifest = readManifest(dataDir);
  const get = (path: string, headers: Record<string, string> = {}) => fetch(path.startsWith("http") ? path : server.url + path, { headers });
  return {
    ...server,
    stop: () => server.stop(),
    dataDir,
    get,
    async json(path: string) {
      const r = await get(path);
      if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${await r.text()}`);
      return (await r.json()) as any;
    },
    feedId(name: string) {
      const f = manifest.feeds.find((x) => x.source === gtfs(name));
      if (!f) throw new Error(`feed ${name} not in the dataset`);
      return f.onestop_id;
    },
  };
}

/** Follow meta.next links from `path`, returning every row of every page. */
export async function allPages<T = any>(s: TestServer, path: string, key: string): Promise<{ rows: T[]; pages: number }> {
  const rows: T[] = [];
  let pages = 0;
  let next: string | null = path;
  while (next) {
    const body: any = await s.json(next);
    pages++;
    rows.push(...body[key]);
    next = body.meta?.next ?? null;
    if (next) expect(body[key].length).toBeGreaterThan(0);
  }
  return { rows, pages };
}

/** GeoJSON lines body → features */
export const parseLines = (text: string) =>
  text
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l));
