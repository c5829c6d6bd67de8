/**
 * Realtime test helpers: a real dataset (real feeds, real pipeline) in a fresh folder per test
 * file, the real server over it on port 0 with a clock the test moves, hand-made GTFS-Realtime
 * messages encoded with gtfs-realtime-bindings, and the real ingest.
 */
import GtfsRealtimeBindings from "gtfs-realtime-bindings";
import { cpSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { startServer, type RunningServer } from "../../server/main.ts";
import { serverConfigFrom } from "../../server/config.ts";
import type { Logger } from "../../server/feature.ts";
import { readManifest } from "../../pipeline/schema/manifest.ts";
import { FUTURE_TOLERANCE_S, readRealtimeStatus, statusPath, type RealtimeFeedStatus } from "../../pipeline/schema/realtime.ts";
import { Ingester } from "../../pipeline/realtime/ingest.ts";
import { gtfs, importedDataset, SHARED, tempDir } from "../support/dataset.ts";

const { transit_realtime: rt } = GtfsRealtimeBindings;

export const RT_DIR = join(SHARED, "data", "gtfs-rt");
export const rtFile = (name: string) => join(RT_DIR, name);

/** A fresh copy of an imported dataset (the import is shared, the realtime files are the test's own). */
export async function datasetCopy(name: string, feeds: string[]): Promise<string> {
  const src = await importedDataset(`rt-${name}`, feeds, { timetable: false });
  const dir = tempDir(`interchange-rt-${name}-`);
  cpSync(src, dir, { recursive: true });
  return dir;
}

/** The Onestop ID the importer gave a shared-data feed. */
export function feedIdOf(dataDir: string, name: string): string {
  const f = readManifest(dataDir).feeds.find((x) => x.source === gtfs(name));
  if (!f) throw new Error(`feed ${name} not in ${dataDir}`);
  return f.onestop_id;
}

export const quietLog: Logger = { info() {}, warn() {}, error: (m, f) => console.error(m, f) };

/** A clock the test sets (ms since epoch). */
export class Clock {
  constructor(public ms: number) {}
  readonly now = () => this.ms;
  setS(seconds: number) {
    this.ms = seconds * 1000;
  }
}

export interface RtServer extends RunningServer {
  get(path: string): Promise<Response>;
  json<T = any>(path: string): Promise<T>;
}

export async function rtServer(dataDir: string, clock: Clock, maxAgeS = 600): Promise<RtServer> {
  const config = serverConfigFrom({ data: dataDir, port: 0, host: "127.0.0.1", noAuth: true, realtimeMaxAgeS: maxAgeS });
  const server = await startServer(config, { log: quietLog, now: clock.now });
  const get = (path: string) => fetch(server.url + path);
  return {
    ...server,
    get,
    async json(path: string) {
      const r = await get(path);
      if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${await r.text()}`);
      return (await r.json()) as any;
    },
  };
}

/** An ingester like import-rt's (archival) or the poller's (refuses stale and backwards snapshots). */
export async function ingester(dataDir: string, mode: "import-rt" | "poller", maxAgeS = 600): Promise<Ingester & { close(): void }> {
  const db = await DuckDBInstance.create(":memory:", { threads: "1" });
  const conn = await db.connect();
  const poll = mode === "poller";
  const ing = new Ingester({ dataDir, maxAgeS: poll ? maxAgeS : null, futureToleranceS: FUTURE_TOLERANCE_S, retentionDays: 0, refuseBackwards: poll }, conn) as Ingester & { close(): void };
  ing.close = () => {
    conn.closeSync();
    db.closeSync();
  };
  return ing;
}

export const statusOf = (dataDir: string, feedId: string): RealtimeFeedStatus => readRealtimeStatus(statusPath(dataDir, feedId))!;

// ---- hand-made GTFS-Realtime messages

export const tr = (text: string, language = "en") => ({ translation: [{ text, language }] });

/** A FeedMessage (plain object in the bindings' camelCase form) encoded as protobuf bytes. */
export function encodeFeed(timestampS: number, entity: Record<string, unknown>[]): Uint8Array {
  const msg = rt.FeedMessage.fromObject({ header: { gtfsRealtimeVersion: "2.0", incrementality: "FULL_DATASET", timestamp: timestampS }, entity });
  return rt.FeedMessage.encode(msg).finish();
}

/** An alert entity: `id`, its selectors, periods and texts. */
export function alertEntity(id: string, informedEntity: Record<string, unknown>[], more: Record<string, unknown> = {}): Record<string, unknown> {
  return { id, alert: { informedEntity, headerText: tr(`alert ${id}`), ...more } };
}

/** Write bytes to a temporary .pb file (for import-rt). */
export function pbFile(bytes: Uint8Array, name = "feed.pb"): string {
  const p = join(tempDir("interchange-pb-"), name);
  writeFileSync(p, bytes);
  return p;
}

/** Rows of a DuckDB query over the dataset's files. */
export async function duckRows(sql: string): Promise<Record<string, unknown>[]> {
  const db = await DuckDBInstance.create(":memory:");
  const conn = await db.connect();
  try {
    return (await conn.runAndReadAll(sql)).getRowObjectsJson() as Record<string, unknown>[];
  } finally {
    conn.closeSync();
    db.closeSync();
  }
}

export const ROOT = resolve(import.meta.dir, "..", "..");
