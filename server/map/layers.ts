/**
 * The map page's data that the public API has no endpoint for, built from the active dataset when
 * it loads (and again when the manifest changes). (The route layer, and a stop's departures, come
 * from the catalog's routes and departures endpoints.)
 *
 * - the **dataset summary** (`/map/data/dataset.json`): the active feed versions with their
 *   service dates (so the page opens on a date with service), time zones, the stops' bounding
 *   box, and the active street dataset.
 * - the **street background** (`/map/data/streets.geojson`): the active street dataset's
 *   STREET_LAYOUT.map file (written at street import by pipeline/street/street-map.ts), gzip as
 *   stored; an empty FeatureCollection for a dataset built before it existed, or none.
 *
 * The summary is read with DuckDB from the versions' feed_version and stops Parquet files, with the
 * row counts the manifest records (the dataset contract, pipeline/schema): the catalog has no feeds
 * or feed versions endpoint.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { DuckDBInstance } from "@duckdb/node-api";
import { activeStreets, activeVersions, readManifest } from "../../pipeline/schema/manifest.ts";
import { STREET_LAYOUT } from "../../pipeline/schema/street.ts";
import { sqlString } from "../../shared/sql.ts";

export interface MapLayers {
  /** the manifest generation they were built from */
  generation: number;
  dataset: DatasetSummary;
  /** gzip of the street background, or null (no street dataset, or one without a background) */
  streetsGz: Uint8Array | null;
}

export interface FeedSummary {
  feed_onestop_id: string;
  sha1: string;
  timezone: string | null;
  earliest_calendar_date: string | null;
  latest_calendar_date: string | null;
  best_week_start: string | null;
  routes: number;
  stops: number;
  trips: number;
}

export interface DatasetSummary {
  feeds: FeedSummary[];
  /** [min_lon, min_lat, max_lon, max_lat] of the stops with coordinates, or null */
  bbox: [number, number, number, number] | null;
  /** a date with service to open the page on: today when a feed runs today, else the Tuesday of the busiest feed's best week */
  suggested_date: string | null;
  streets: { sha1: string; bbox: [number, number, number, number] | null; background: boolean } | null;
}

export const EMPTY_FEATURES = gzipSync('{"type":"FeatureCollection","features":[]}\n');

const isoDate = (v: unknown): string | null => (v === null || v === undefined ? null : String(v).slice(0, 10));

/** Builds the layers of the dataset in `dataDir` as its manifest is now. `todayOf(tz)`: today's date in a time zone. */
export async function buildMapLayers(dataDir: string, todayOf: (tz: string) => string): Promise<MapLayers> {
  const m = readManifest(dataDir);
  const versions = activeVersions(m).filter((v) => existsSync(join(dataDir, v.path, "routes.parquet")));
  const street = activeStreets(m);
  const streetFile = street ? join(dataDir, street.path, STREET_LAYOUT.map) : null;
  const streetsGz = streetFile && existsSync(streetFile) ? readFileSync(streetFile) : null;
  const streets = street ? { sha1: street.sha1, bbox: street.bbox, background: streetsGz !== null } : null;
  if (!versions.length) {
    return { generation: m.generation, dataset: { feeds: [], bbox: null, suggested_date: null, streets }, streetsGz };
  }
  const files = (table: string) => `[${versions.map((v) => sqlString(join(dataDir, v.path, `${table}.parquet`))).join(", ")}]`;
  const db = await DuckDBInstance.create(":memory:", { threads: "1" });
  const conn = await db.connect();
  const rows = async (sql: string) => (await conn.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[];
  try {
    const feeds = await rows(`
      SELECT fv.id, fv.feed_onestop_id, fv.sha1, fv.default_timezone AS timezone, CAST(fv.earliest_calendar_date AS VARCHAR) AS earliest_calendar_date, CAST(fv.latest_calendar_date AS VARCHAR) AS latest_calendar_date, CAST(fv.best_week_start AS VARCHAR) AS best_week_start
      FROM read_parquet(${files("feed_version")}) fv ORDER BY fv.id`);
    // the row counts the import recorded in the manifest (no scan of the tables)
    const countsOf = new Map(versions.map((v) => [v.sha1, v.counts]));
    const [box] = await rows(`SELECT min(stop_lon) w, min(stop_lat) s, max(stop_lon) e, max(stop_lat) n FROM read_parquet(${files("stops")}) WHERE stop_lat IS NOT NULL AND stop_lon IS NOT NULL`);
    const feedList: FeedSummary[] = feeds.map((f) => ({
      feed_onestop_id: String(f.feed_onestop_id),
      sha1: String(f.sha1),
      timezone: (f.timezone as string | null) ?? null,
      earliest_calendar_date: isoDate(f.earliest_calendar_date),
      latest_calendar_date: isoDate(f.latest_calendar_date),
      best_week_start: isoDate(f.best_week_start),
      routes: countsOf.get(String(f.sha1))?.routes ?? 0,
      stops: countsOf.get(String(f.sha1))?.stops ?? 0,
      trips: countsOf.get(String(f.sha1))?.trips ?? 0,
    }));
    const bbox = box && box.w !== null ? ([box.w, box.s, box.e, box.n].map(Number) as [number, number, number, number]) : null;
    return {
      generation: m.generation,
      dataset: { feeds: feedList, bbox, suggested_date: suggestDate(feedList, todayOf), streets },
      streetsGz,
    };
  } finally {
    conn.closeSync();
    db.closeSync();
  }
}

/**
 * The date the page opens on: today (in the feed's time zone) when some feed has service today,
 * else the Tuesday of the best week of the feed with the most trips (a weekday with service), else
 * that feed's first date with service.
 */
export function suggestDate(feeds: FeedSummary[], todayOf: (tz: string) => string): string | null {
  for (const f of feeds) {
    const today = todayOf(f.timezone ?? "UTC");
    if (f.earliest_calendar_date && f.latest_calendar_date && today >= f.earliest_calendar_date && today <= f.latest_calendar_date) return today;
  }
  const busiest = [...feeds].sort((a, b) => b.trips - a.trips)[0];
  if (!busiest) return null;
  if (busiest.best_week_start) {
    const d = new Date(`${busiest.best_week_start}T00:00:00Z`);
    d.setUTCDate(d.getUTCDate() + 1);
    return d.toISOString().slice(0, 10);
  }
  return busiest.earliest_calendar_date;
}
