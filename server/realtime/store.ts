/**
 * The realtime snapshots the server serves: it follows the feeds' status files
 * (DIR/realtime/feeds/*.json, written by the ingest: `interchange import-rt` or the poller of
 * `serve --realtime`), loads each feed's current alerts and trip updates snapshots from their
 * Parquet files and swaps each new index in whole (a request sees one snapshot or the other, never
 * a mix). A snapshot older than the maximum age (by its header timestamp, else its fetch time), or
 * stamped too far in the future, is not served: it is dropped, and the feed has no alerts (or trip
 * updates) until a fresh one arrives. A
 * snapshot that cannot be loaded leaves the previous one in place. Health: /health
 * features.realtime.
 */
import type { DuckDBConnection, DuckDBInstance } from "@duckdb/node-api";
import { join } from "node:path";
import { FUTURE_TOLERANCE_S, type RealtimeFeedStatus, readRealtimeStatuses, type SnapshotRef } from "../../pipeline/schema/realtime.ts";
import type { Logger } from "../feature.ts";
import { sqlString } from "../../shared/sql.ts";
import { type AlertDoc, AlertIndex, type AlertRecord, type AlertRow, alertsText } from "./alerts.ts";
import type { TripUpdate } from "../trip-updates.ts";
import type { EncodedFeedMessage, RealtimeFeeds, RtKind } from "../realtime-feeds.ts";
import { encodeFeedMessage, feedMessageObject, MESSAGE_COLUMNS } from "./feed-message.ts";
import { TRIP_UPDATE_COLUMNS, TripUpdateIndex, type TripUpdateRow } from "./trip-updates.ts";

/** The kinds the server serves, and what each is read into. */
type Served = { alerts: AlertIndex; trip_updates: TripUpdateIndex };
type ServedKind = keyof Served;
const SERVED_KINDS: ServedKind[] = ["alerts", "trip_updates"];

interface Loaded<T> {
  path: string;
  /** header timestamp, else fetch time (POSIX seconds) */
  stampS: number;
  /** the header timestamp (POSIX seconds), null when the feed gave none */
  header: number | null;
  index: T;
}
type LoadedMaps = { [K in ServedKind]: Map<string, Loaded<Served[K]>> };

const ALERT_COLUMNS = ["entity_id", "is_deleted", "cause", "effect", "severity_level", "url", "header_text", "description_text", "tts_header_text", "tts_description_text", "active_period", "informed_entity"];

/**
 * The alerts of one request, as JSON array texts per entity (the shape the catalog's AlertSource
 * asks for; main.ts hands the store over, so neither feature imports the other).
 */
export interface AlertLookup {
  trip(feed: string, tripId: string): string;
  route(feed: string, routeId: string): string;
  agency(feed: string, agencyId: string): string;
  stop(feed: string, stopId: string): string;
}

const stampOf = (s: SnapshotRef) => s.header_timestamp ?? Math.floor(Date.parse(s.fetched_at) / 1000);
const emptyMaps = (): LoadedMaps => ({ alerts: new Map(), trip_updates: new Map() });

export class RealtimeStore implements RealtimeFeeds {
  /** per kind: lowercase feed Onestop ID -> its served snapshot */
  private feeds: LoadedMaps = emptyMaps();
  private statuses: RealtimeFeedStatus[] = [];
  /** snapshots dropped for their age (not loaded again): path -> why */
  private readonly dropped = new Map<string, string>();
  /** current snapshots stamped too far in the future to serve yet: path -> stamp (POSIX s) */
  private waiting = new Map<string, number>();
  private loadErrors = 0;
  private lastLoadError: string | null = null;
  private chain: Promise<void> = Promise.resolve();
  private db: { instance: DuckDBInstance; conn: DuckDBConnection } | null = null;
  /** the queries on `db`, one at a time (snapshot loads and the downloads' reads) */
  private dbQueue: Promise<unknown> = Promise.resolve();
  /** per feed and kind: the FeedMessage of the snapshot last asked for (the downloads) */
  private readonly messages = new Map<string, { path: string; encoded: Promise<EncodedFeedMessage> }>();
  private closed = false;

  constructor(
    private readonly dataDir: string,
    /** snapshots older than this are not served */
    private readonly maxAgeS: number,
    private readonly log: Logger,
    private readonly now: () => number,
  ) {}

  /** Why a snapshot stamped `stampS` is not served at `nowS`, or null when it is. */
  private refusal(stampS: number, nowS: number): string | null {
    if (stampS < nowS - this.maxAgeS) return `older than the maximum age (${nowS - stampS} s > ${this.maxAgeS} s)`;
    if (stampS > nowS + FUTURE_TOLERANCE_S) return `stamped ${stampS - nowS} s in the future`;
    return null;
  }

  /** Drop the snapshots that are too old (or too far ahead) at `nowS`; returns the ones served. */
  private served(nowS: number): LoadedMaps {
    // a snapshot that was ahead of the clock is loaded once the clock reaches it (by later requests)
    if ([...this.waiting.values()].some((stamp) => !this.refusal(stamp, nowS))) {
      this.waiting.clear();
      void this.refresh();
    }
    for (const kind of SERVED_KINDS) {
      for (const [feed, f] of this.feeds[kind]) {
        const why = this.refusal(f.stampS, nowS);
        if (!why) continue;
        this.feeds[kind].delete(feed);
        if (f.stampS < nowS) this.dropped.set(f.path, why);
        else this.waiting.set(f.path, f.stampS); // the clock went back: served again when it gets there
        this.log.warn("realtime snapshot dropped, not served", { feed_id: feed, kind, path: f.path, reason: why });
      }
    }
    return this.feeds;
  }

  /** Follow the status files: load new current snapshots, forget removed ones. Calls run one at a time. */
  refresh(): Promise<void> {
    this.chain = this.chain.then(() => this.load()).catch((e) => {
      this.log.error("realtime refresh failed", { error: String((e as Error)?.message ?? e) });
    });
    return this.chain;
  }

  private async load(): Promise<void> {
    if (this.closed) return;
    this.statuses = readRealtimeStatuses(this.dataDir);
    const nowS = Math.floor(this.now() / 1000);
    const next = emptyMaps();
    const waiting = new Map<string, number>();
    for (const s of this.statuses) {
      const feed = s.feed_id.toLowerCase();
      for (const kind of SERVED_KINDS) {
        const cur = s.kinds[kind]?.current;
        if (!cur) continue;
        const loaded = this.feeds[kind].get(feed) as Loaded<never> | undefined;
        const put = (l: Loaded<unknown>) => (next[kind] as Map<string, Loaded<unknown>>).set(feed, l);
        if (loaded?.path === cur.path) {
          put(loaded);
          continue;
        }
        if (this.dropped.has(cur.path)) continue;
        const why = this.refusal(stampOf(cur), nowS);
        if (why) {
          // too old stays too old; a snapshot from the future may become servable: checked again next time
          if (stampOf(cur) < nowS) this.dropped.set(cur.path, why);
          else waiting.set(cur.path, stampOf(cur));
          continue;
        }
        try {
          const file = join(this.dataDir, cur.path);
          put({ path: cur.path, stampS: stampOf(cur), header: cur.header_timestamp, index: kind === "alerts" ? await this.readAlerts(file) : await this.readTripUpdates(file, cur.header_timestamp) });
        } catch (e) {
          this.loadErrors++;
          this.lastLoadError = `${cur.path}: ${String((e as Error)?.message ?? e)}`;
          this.log.error("realtime snapshot load failed; still serving the previous one", { feed_id: feed, kind, error: this.lastLoadError });
          if (loaded) put(loaded);
        }
      }
    }
    if (this.closed) return;
    this.feeds = next;
    this.waiting = waiting;
  }

  /** A snapshot file's rows as objects (nested lists and structs as JSON), in file order; one query at a time. */
  private readRows<T>(file: string, columns: string[]): Promise<T[]> {
    const next = this.dbQueue.then(() => this.query<T>(file, columns));
    this.dbQueue = next.catch(() => {});
    return next;
  }

  private async connection(): Promise<DuckDBConnection> {
    if (!this.db) {
      const { DuckDBInstance } = await import("@duckdb/node-api");
      const instance = await DuckDBInstance.create(":memory:", { threads: "1" });
      this.db = { instance, conn: await instance.connect() };
    }
    return this.db.conn;
  }

  private async query<T>(file: string, columns: string[]): Promise<T[]> {
    const conn = await this.connection();
    const cols = columns.map((c) => `"${c}"`).join(", ");
    const res = await conn.runAndReadAll(`SELECT to_json(r)::VARCHAR FROM (SELECT ${cols} FROM read_parquet(${sqlString(file)}, hive_partitioning = false)) r`);
    return res.getRows().map(([j]) => JSON.parse(String(j)) as T);
  }

  private async readAlerts(file: string): Promise<AlertIndex> {
    const index = new AlertIndex();
    for (const r of await this.readRows<AlertRow>(file, ALERT_COLUMNS)) index.add(r);
    return index;
  }

  private async readTripUpdates(file: string, headerTimestamp: number | null): Promise<TripUpdateIndex> {
    const index = new TripUpdateIndex(headerTimestamp);
    index.addRows(await this.readFlatRows<TripUpdateRow>(file, TRIP_UPDATE_COLUMNS));
    return index;
  }

  /**
   * A snapshot file's rows of flat columns (no lists or structs) as objects, in file order, read
   * column by column (no JSON text per row: a large trip updates snapshot is read several times
   * faster); BIGINT columns as numbers. One query at a time, like readRows.
   */
  private readFlatRows<T>(file: string, columns: readonly string[]): Promise<T[]> {
    const next = this.dbQueue.then(async () => {
      const conn = await this.connection();
      const types = new Map((await conn.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet(${sqlString(file)}, hive_partitioning = false)`)).getRows().map(([n, t]) => [String(n), String(t)]));
      const select = columns.map((c) => (types.get(c) === "BIGINT" ? `"${c}"::DOUBLE AS "${c}"` : `"${c}"`)).join(", ");
      const cols = (await conn.runAndReadAll(`SELECT ${select} FROM read_parquet(${sqlString(file)}, hive_partitioning = false)`)).getColumns();
      const n = cols[0]?.length ?? 0;
      const rows: T[] = new Array(n);
      for (let i = 0; i < n; i++) {
        const row: Record<string, unknown> = {};
        for (let c = 0; c < columns.length; c++) row[columns[c]!] = cols[c]![i] ?? null;
        rows[i] = row as T;
      }
      return rows;
    });
    this.dbQueue = next.catch(() => {});
    return next;
  }

  /** The trip updates served at `nowMs` (the catalog's TripUpdateSource). */
  tripUpdates(nowMs: number): { trip(feed: string, tripId: string): TripUpdate | null } {
    const feeds = new Map(this.served(Math.floor(nowMs / 1000)).trip_updates);
    return { trip: (feed, id) => feeds.get(feed.toLowerCase())?.index.byTrip.get(id) ?? null };
  }

  /**
   * The trip updates snapshots served at `nowMs`, one per feed, each named by its file (the
   * planner's PlannerRealtime.tripUpdates: it applies them to the timetable once per snapshot).
   */
  tripUpdateSnapshots(nowMs: number): { feed: string; key: string; byTrip: ReadonlyMap<string, TripUpdate> }[] {
    const out = [];
    for (const [feed, f] of this.served(Math.floor(nowMs / 1000)).trip_updates) out.push({ feed, key: f.path, byTrip: f.index.byTrip });
    return out;
  }

  /** The alerts served at `nowMs` per entity, as documents (the planner's leg alerts; it filters by the leg's time). */
  alertDocs(nowMs: number): { trip(feed: string, id: string): AlertDoc[]; route(feed: string, id: string): AlertDoc[]; agency(feed: string, id: string): AlertDoc[]; stop(feed: string, id: string): AlertDoc[] } {
    const feeds = new Map(this.served(Math.floor(nowMs / 1000)).alerts);
    const ix = (feed: string) => feeds.get(feed.toLowerCase())?.index;
    const none: AlertDoc[] = [];
    return {
      trip: (feed, id) => ix(feed)?.byTrip.get(id) ?? none,
      route: (feed, id) => ix(feed)?.byRoute.get(id) ?? none,
      agency: (feed, id) => ix(feed)?.byAgency.get(id) ?? none,
      stop: (feed, id) => ix(feed)?.byStop.get(id) ?? none,
    };
  }

  /** Every alert served at `nowMs` with its feed (the lowercase feed Onestop ID) and informed entities (the GraphQL API's). */
  alertRecords(nowMs: number): (AlertRecord & { feed: string })[] {
    const out: (AlertRecord & { feed: string })[] = [];
    for (const [feed, f] of this.served(Math.floor(nowMs / 1000)).alerts) for (const r of f.index.records) out.push({ ...r, feed });
    return out;
  }

  lookup(nowMs: number, activeOnly: boolean): AlertLookup {
    const nowS = Math.floor(nowMs / 1000);
    const feeds = new Map(this.served(nowS).alerts);
    const t = activeOnly ? nowS : null;
    const ix = (feed: string) => feeds.get(feed.toLowerCase())?.index;
    return {
      trip: (feed, id) => alertsText(ix(feed)?.byTrip.get(id), t),
      route: (feed, id) => alertsText(ix(feed)?.byRoute.get(id), t),
      agency: (feed, id) => alertsText(ix(feed)?.byAgency.get(id), t),
      stop: (feed, id) => alertsText(ix(feed)?.byStop.get(id), t),
    };
  }

  /**
   * The feed's current snapshot of `kind` as a FeedMessage (the catalog's realtime downloads, port
   * server/realtime-feeds.ts): alerts and trip updates as served (the same snapshot, dropped past
   * the maximum age), vehicle positions (which nothing else serves) by the same rule from the
   * status file. A feed with a status file but no such snapshot: a message with a header only (its
   * timestamp the clock's). null: no realtime source for the feed. Encoded once per snapshot.
   */
  async feedMessage(feedOnestopId: string, kind: RtKind, nowMs: number): Promise<EncodedFeedMessage | null> {
    if (this.closed) throw new Error("the realtime store is closed");
    const feed = feedOnestopId.toLowerCase();
    const nowS = Math.floor(nowMs / 1000);
    const status = this.statuses.find((s) => s.feed_id.toLowerCase() === feed);
    if (!status) return null;
    let snapshot: { path: string; header: number | null } | null = null;
    if (kind === "vehicle_positions") {
      const cur = status.kinds.vehicle_positions?.current;
      if (cur && !this.dropped.has(cur.path) && !this.refusal(stampOf(cur), nowS)) snapshot = { path: cur.path, header: cur.header_timestamp };
    } else {
      snapshot = this.served(nowS)[kind].get(feed) ?? null;
    }
    if (!snapshot) return encodeFeedMessage(feedMessageObject(kind, nowS, []));
    const key = `${feed}\u0000${kind}`;
    const cached = this.messages.get(key);
    if (cached?.path === snapshot.path) return cached.encoded;
    const { path, header } = snapshot;
    const encoded = this.readRows<Record<string, unknown>>(join(this.dataDir, path), MESSAGE_COLUMNS[kind]).then((rows) => encodeFeedMessage(feedMessageObject(kind, header, rows)));
    this.messages.set(key, { path, encoded });
    encoded.catch(() => {
      if (this.messages.get(key)?.encoded === encoded) this.messages.delete(key);
    });
    return encoded;
  }

  /** Per feed and kind: what is served and the ingest's counts (from the status files). */
  health(): Record<string, unknown> {
    const nowS = Math.floor(this.now() / 1000);
    const served = this.served(nowS);
    const feeds: Record<string, unknown> = {};
    for (const s of this.statuses) {
      const kinds: Record<string, unknown> = {};
      for (const [kind, k] of Object.entries(s.kinds)) {
        if (!k) continue;
        const cur = k.current;
        const isServed = (SERVED_KINDS as string[]).includes(kind);
        const loaded = isServed ? served[kind as ServedKind].get(s.feed_id.toLowerCase()) : undefined;
        kinds[kind] = {
          serving: isServed ? Boolean(loaded && cur && loaded.path === cur.path) : undefined,
          not_served: cur && isServed ? (this.dropped.get(cur.path) ?? (this.waiting.has(cur.path) ? "stamped in the future" : undefined)) : undefined,
          snapshot: cur
            ? { path: cur.path, header_timestamp: cur.header_timestamp, age_s: nowS - stampOf(cur), entities: cur.entities, unknown: cur.unknown, unattached_alerts: cur.unattached_alerts }
            : null,
          alerts: kind === "alerts" && loaded ? (loaded.index as AlertIndex).count : undefined,
          trips: kind === "trip_updates" && loaded ? (loaded.index as TripUpdateIndex).byTrip.size : undefined,
          last: k.last,
          counts: k.counts,
        };
      }
      feeds[s.feed_id] = kinds;
    }
    return { status: "ok", max_age_s: this.maxAgeS, feeds, load_errors: this.loadErrors, last_load_error: this.lastLoadError ?? undefined };
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.chain;
    await this.dbQueue;
    this.feeds = emptyMaps();
    this.messages.clear();
    if (this.db) {
      this.db.conn.closeSync();
      this.db.instance.closeSync();
      this.db = null;
    }
  }
}
