/**
 * The GTFS-Realtime part of the dataset contract: the Parquet snapshots the realtime ingest writes
 * (pipeline/realtime/, `interchange import-rt` and the poller of `interchange serve --realtime`)
 * and the per-feed status file that says which snapshot is current. The server reads only these
 * (server/realtime/). Layout, all under `DIR/realtime/`:
 *
 *   <kind>/feed_id=<feed>/date=<YYYY-MM-DD>/<YYYYMMDDTHHMMSSZ>-<sha1 prefix>.parquet   one file per snapshot
 *   feeds/<feed>.json                                                                the feed's status
 *
 * `<kind>` is alerts, trip_updates or vehicle_positions; `<feed>` the Onestop ID of the static feed
 * the realtime feed belongs to; `date` and the file name are the UTC date and time of the feed
 * header's timestamp (the fetch time when the header has none). `feed_id` and `date` are Hive
 * partition keys: DuckDB adds them as columns (`read_parquet('DIR/realtime/alerts/*\/*\/*.parquet')`),
 * so they are not stored inside the files. docs/dataset-schema.md's realtime tables are generated from
 * REALTIME_TABLES (docRealtimeSchemaMarkdown, `npm run docs:schema`).
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { ColumnDef, TableDef } from "./catalog.ts";
import { watchFolder } from "./watch.ts";

export const REALTIME_DIR = "realtime";
export const REALTIME_KINDS = ["alerts", "trip_updates", "vehicle_positions"] as const;
export type RealtimeKind = (typeof REALTIME_KINDS)[number];

/**
 * A header timestamp up to this many seconds ahead of the clock is accepted (producers' clocks
 * drift); further ahead, the ingest refuses the snapshot and the server does not serve it.
 */
export const FUTURE_TOLERANCE_S = 120;

const c = (name: string, type: string, doc = ""): ColumnDef => ({ name, type, doc });
const TRANSLATED = "STRUCT(language VARCHAR, text VARCHAR)[]";
const TRIP = `STRUCT(trip_id VARCHAR, route_id VARCHAR, direction_id INTEGER, start_time VARCHAR, start_date VARCHAR, schedule_relationship VARCHAR)`;
/** Columns every snapshot table starts with. */
const SNAPSHOT = [
  c("header_timestamp", "BIGINT", "FeedHeader.timestamp, POSIX seconds (NULL when the feed gives none)"),
  c("fetched_at", "TIMESTAMPTZ", "when the snapshot was fetched (or read from a file)"),
  c("entity_id", "VARCHAR", "FeedEntity.id"),
  c("is_deleted", "BOOLEAN", "FeedEntity.is_deleted (NULL when absent)"),
];
const TRIP_COLUMNS = [
  c("trip_id", "VARCHAR", "TripDescriptor.trip_id"), c("route_id", "VARCHAR"), c("direction_id", "INTEGER"),
  c("start_time", "VARCHAR", "HH:MM:SS as sent"), c("start_date", "VARCHAR", "YYYYMMDD as sent"),
  c("schedule_relationship", "VARCHAR", "the trip's: SCHEDULED, ADDED, UNSCHEDULED, CANCELED, REPLACEMENT, DUPLICATED, DELETED"),
  c("vehicle_id", "VARCHAR", "VehicleDescriptor.id"), c("vehicle_label", "VARCHAR"), c("vehicle_license_plate", "VARCHAR"),
];
const UNKNOWN = (what: string) => c("unknown", "VARCHAR[]", `which ids of ${what} the feed's active static version does not have (trip_id, route_id, stop_id); empty when all are known`);

export const REALTIME_TABLES: Record<RealtimeKind, TableDef> = {
  alerts: {
    name: "alerts",
    doc: "One row per Alert entity, with its informed entities, active periods and translations as nested lists (UNNEST them).",
    sortedBy: "",
    columns: [
      ...SNAPSHOT,
      c("cause", "VARCHAR", "Cause enum name, e.g. MEDICAL_EMERGENCY (NULL when absent)"),
      c("effect", "VARCHAR", "Effect enum name (NULL when absent)"),
      c("severity_level", "VARCHAR", "UNKNOWN_SEVERITY, INFO, WARNING, SEVERE (NULL when absent)"),
      c("url", TRANSLATED, "translations; NULL when absent"),
      c("header_text", TRANSLATED), c("description_text", TRANSLATED), c("tts_header_text", TRANSLATED), c("tts_description_text", TRANSLATED),
      c("active_period", `STRUCT("start" BIGINT, "end" BIGINT)[]`, "POSIX seconds, NULL = open end; an empty list means always active"),
      c(
        "informed_entity",
        `STRUCT(agency_id VARCHAR, route_id VARCHAR, route_type INTEGER, direction_id INTEGER, trip ${TRIP}, stop_id VARCHAR, "unknown" VARCHAR[])[]`,
        "EntitySelectors; `unknown` lists the selector's ids (agency_id, route_id, trip_id, stop_id) the feed's active static version does not have",
      ),
    ],
  },
  trip_updates: {
    name: "trip_updates",
    doc: "One row per StopTimeUpdate (a TripUpdate without any has one row with NULL stop columns).",
    sortedBy: "",
    columns: [
      ...SNAPSHOT, ...TRIP_COLUMNS,
      c("timestamp", "BIGINT", "TripUpdate.timestamp, POSIX seconds"), c("delay", "INTEGER", "TripUpdate.delay, seconds"),
      c("stop_sequence", "INTEGER"), c("stop_id", "VARCHAR"),
      c("arrival_time", "BIGINT", "POSIX seconds"), c("arrival_delay", "INTEGER", "seconds"), c("arrival_uncertainty", "INTEGER", "seconds"),
      c("departure_time", "BIGINT", "POSIX seconds"), c("departure_delay", "INTEGER", "seconds"), c("departure_uncertainty", "INTEGER", "seconds"),
      c("stop_schedule_relationship", "VARCHAR", "SCHEDULED, SKIPPED, NO_DATA, UNSCHEDULED"),
      UNKNOWN("the trip and the stop"),
    ],
  },
  vehicle_positions: {
    name: "vehicle_positions",
    doc: "One row per VehiclePosition.",
    sortedBy: "",
    columns: [
      ...SNAPSHOT, ...TRIP_COLUMNS,
      c("latitude", "DOUBLE"), c("longitude", "DOUBLE"), c("bearing", "DOUBLE", "degrees clockwise from north"), c("odometer", "DOUBLE", "meters"), c("speed", "DOUBLE", "meters per second"),
      c("current_stop_sequence", "INTEGER"), c("stop_id", "VARCHAR"), c("current_status", "VARCHAR", "INCOMING_AT, STOPPED_AT, IN_TRANSIT_TO"),
      c("timestamp", "BIGINT", "VehiclePosition.timestamp, POSIX seconds"),
      c("congestion_level", "VARCHAR"), c("occupancy_status", "VARCHAR"), c("occupancy_percentage", "INTEGER"),
      UNKNOWN("the trip and the stop"),
    ],
  },
};

/** `20190807T174542Z` for POSIX seconds. */
export function compactUtc(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace(/\.\d+Z$/, "Z").replace(/[-:]/g, "");
}

/** Where a snapshot's Parquet file goes, relative to the data dir. */
export function snapshotRelPath(kind: RealtimeKind, feedId: string, timestampS: number, sha1: string): string {
  const date = new Date(timestampS * 1000).toISOString().slice(0, 10);
  return join(REALTIME_DIR, kind, `feed_id=${feedId}`, `date=${date}`, `${compactUtc(timestampS)}-${sha1.slice(0, 12)}.parquet`);
}

export const statusDir = (dataDir: string) => join(dataDir, REALTIME_DIR, "feeds");
export const statusPath = (dataDir: string, feedId: string) => join(statusDir(dataDir), `${feedId}.json`);

/**
 * How one fetch (or file read) of a realtime feed ended. Everything but `accepted` leaves the
 * current snapshot in place.
 */
export const OUTCOMES = [
  "accepted",
  /** same bytes as the current snapshot */
  "unchanged",
  /** not a GTFS-Realtime FeedMessage: corrupt, truncated, an HTML error page, ... */
  "decode_error",
  /** HTTP error status, connection refused, body too large, file unreadable */
  "fetch_error",
  /** no complete answer within the time-out */
  "timeout",
  /** header timestamp older than the maximum age: stale when it arrived */
  "timestamp_past",
  /** header timestamp older than the current snapshot's: the feed went backwards */
  "timestamp_backwards",
  /** header timestamp ahead of the clock by more than the tolerance */
  "timestamp_future",
  /** a feed with no entity of the kind asked for, but entities of other kinds */
  "wrong_kind",
] as const;
export type Outcome = (typeof OUTCOMES)[number];

/** Ids of a snapshot the static feed does not know: per field, and a few examples. */
export interface UnknownIds {
  count: number;
  by_field: Record<string, number>;
  examples: string[];
}

export interface SnapshotRef {
  /** relative to the data dir */
  path: string;
  header_timestamp: number | null;
  /** ISO time */
  fetched_at: string;
  sha1: string;
  /** FeedEntity count of the kind */
  entities: number;
  rows: number;
  /** ids the feed's active static version does not have */
  unknown: UnknownIds;
  /** alerts: how many have no selector that can be attached to a known agency, route, trip or stop */
  unattached_alerts?: number;
  /** the static feed version the ids were checked against (null: the feed is not in the dataset) */
  checked_against: string | null;
}

export interface KindStatus {
  /** URL or file last read */
  source: string | null;
  current: SnapshotRef | null;
  last: { at: string; outcome: Outcome; message?: string } | null;
  counts: Partial<Record<Outcome, number>>;
}

/** DIR/realtime/feeds/<feed>.json: the current snapshot of each kind and the counts of outcomes. */
export interface RealtimeFeedStatus {
  format: 1;
  feed_id: string;
  updated_at: string;
  kinds: Partial<Record<RealtimeKind, KindStatus>>;
}

/** The status of every realtime feed of the dataset (an unreadable status file is skipped). */
export function readRealtimeStatuses(dataDir: string): RealtimeFeedStatus[] {
  const dir = statusDir(dataDir);
  if (!existsSync(dir)) return [];
  const out: RealtimeFeedStatus[] = [];
  for (const f of readdirSync(dir).sort()) {
    if (!f.endsWith(".json") || f.startsWith(".")) continue;
    const s = readRealtimeStatus(join(dir, f));
    if (s) out.push(s);
  }
  return out;
}

export function readRealtimeStatus(path: string): RealtimeFeedStatus | null {
  try {
    const s = JSON.parse(readFileSync(path, "utf8")) as RealtimeFeedStatus;
    return s && s.format === 1 && typeof s.feed_id === "string" && s.kinds && typeof s.kinds === "object" ? s : null;
  } catch {
    return null;
  }
}

const mtimeOf = (dir: string) => {
  try {
    return readdirSync(dir).map((f) => `${f}:${statSync(join(dir, f)).mtimeMs}`).join("|");
  } catch {
    return "";
  }
};

/** Call onChange when a status file is written (fs.watch plus a 2 s poll as a fallback). */
export function watchRealtime(dataDir: string, onChange: () => void): () => void {
  const dir = statusDir(dataDir);
  let last = mtimeOf(dir);
  const check = () => {
    const now = mtimeOf(dir);
    if (now === last) return;
    last = now;
    onChange();
  };
  return watchFolder(dir, check);
}

export function docRealtimeSchemaMarkdown(): string {
  const out: string[] = [];
  for (const t of Object.values(REALTIME_TABLES)) {
    out.push(`#### \`realtime/${t.name}/feed_id=<feed>/date=<YYYY-MM-DD>/<time>-<sha1>.parquet\``, "", `${t.doc} Partition columns (from the path): feed_id VARCHAR, date DATE.`, "", "| column | type | notes |", "|---|---|---|");
    for (const col of t.columns) out.push(`| ${col.name} | ${col.type.replaceAll("|", "\\|")} | ${col.doc} |`);
    out.push("");
  }
  return out.join("\n");
}
