/**
 * The GTFS ids a realtime feed may name: agency_id, route_id, trip_id and stop_id of the active
 * version of its static feed (the manifest's feed with the same Onestop ID), read from that
 * version's Parquet files once per version.
 */
import type { DuckDBConnection } from "@duckdb/node-api";
import { join } from "node:path";
import { readManifest } from "../schema/manifest.ts";
import { sqlString } from "../../shared/sql.ts";

export interface StaticIds {
  /** sha1 of the version the ids come from; null when the dataset has no such feed */
  readonly version: string | null;
  agency(id: string): boolean;
  route(id: string): boolean;
  trip(id: string): boolean;
  stop(id: string): boolean;
}

const none = (): boolean => false;
export const NO_STATIC_IDS: StaticIds = { version: null, agency: none, route: none, trip: none, stop: none };

/** The active version's sha1 and folder for a feed (Onestop IDs compare case-insensitively). */
export function activeVersionOf(dataDir: string, feedId: string): { sha1: string; dir: string } | null {
  const m = readManifest(dataDir);
  const feed = m.feeds.find((f) => f.onestop_id.toLowerCase() === feedId.toLowerCase());
  const v = feed?.active ? m.versions.find((x) => x.sha1 === feed.active) : undefined;
  return v ? { sha1: v.sha1, dir: join(dataDir, v.path) } : null;
}

async function idSet(conn: DuckDBConnection, file: string, column: string): Promise<Set<string>> {
  const res = await conn.runAndReadAll(`SELECT DISTINCT "${column}" FROM read_parquet(${sqlString(file)}) WHERE "${column}" IS NOT NULL`);
  return new Set(res.getRows().map((r) => String(r[0])));
}

/** Ids of the feed's active version, cached per version by the caller. */
export async function readStaticIds(conn: DuckDBConnection, dataDir: string, feedId: string): Promise<StaticIds> {
  const v = activeVersionOf(dataDir, feedId);
  if (!v) return NO_STATIC_IDS;
  // one connection runs one query at a time
  const agencies = await idSet(conn, join(v.dir, "agencies.parquet"), "agency_id");
  const routes = await idSet(conn, join(v.dir, "routes.parquet"), "route_id");
  const trips = await idSet(conn, join(v.dir, "trips.parquet"), "trip_id");
  const stops = await idSet(conn, join(v.dir, "stops.parquet"), "stop_id");
  return { version: v.sha1, agency: (id) => agencies.has(id), route: (id) => routes.has(id), trip: (id) => trips.has(id), stop: (id) => stops.has(id) };
}
