/**
 * One realtime snapshot in: bytes decoded, checked (header timestamp against the clock and the
 * current snapshot, ids against the static feed), written as Parquet, made current, and the
 * outcome counted in the feed's status file. Bad input is an outcome, never an exception: the
 * current snapshot stays until something better arrives. Shared by `interchange import-rt` and
 * the poller of `interchange serve --realtime`.
 */
import type { DuckDBConnection } from "@duckdb/node-api";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { createHash } from "node:crypto";
import { type Outcome, type RealtimeKind, type SnapshotRef, snapshotRelPath } from "../schema/realtime.ts";
import { DecodeError, decodeFeed, type FeedMessage, headerTimestamp, kindsOf } from "./decode.ts";
import { snapshotRows } from "./rows.ts";
import { activeVersionOf, NO_STATIC_IDS, readStaticIds, type StaticIds } from "./static-ids.ts";
import { applyRetention, currentSnapshot, recordOutcome, writeSnapshot } from "./store.ts";

export interface IngestSettings {
  dataDir: string;
  /**
   * Refuse snapshots whose header timestamp is older than this many seconds (stale on arrival;
   * the poller). null accepts any age (import-rt archives old snapshots).
   */
  maxAgeS: number | null;
  /** header timestamps up to this many seconds ahead of the clock are accepted (producers' clocks drift) */
  futureToleranceS: number;
  /** date partitions older than this many days are removed after each write (0 keeps all) */
  retentionDays: number;
  /**
   * true (the poller): a snapshot older than the current one is refused (timestamp_backwards);
   * false (import-rt): it is written for the record but does not become current.
   */
  refuseBackwards: boolean;
}

export interface IngestResult {
  kind: RealtimeKind | null;
  outcome: Outcome;
  message?: string;
  /** the snapshot written (accepted only) */
  snapshot?: SnapshotRef;
  /** whether the snapshot became the current one */
  current?: boolean;
}

/** Static ids per feed, read again when the feed's active version changes. */
export class Ingester {
  private readonly ids = new Map<string, StaticIds>();
  constructor(
    readonly settings: IngestSettings,
    private readonly conn: DuckDBConnection,
  ) {}

  private async staticIds(feedId: string): Promise<StaticIds> {
    const active = activeVersionOf(this.settings.dataDir, feedId);
    if (!active) return NO_STATIC_IDS;
    const cached = this.ids.get(feedId);
    if (cached?.version === active.sha1) return cached;
    const ids = await readStaticIds(this.conn, this.settings.dataDir, feedId);
    this.ids.set(feedId, ids);
    return ids;
  }

  /** Record an outcome that has no snapshot (a fetch failure, a time-out, ...). */
  fail(feedId: string, kind: RealtimeKind, source: string | null, outcome: Outcome, message: string, at: Date): IngestResult {
    recordOutcome(this.settings.dataDir, feedId, kind, { outcome, at, source, message });
    return { kind, outcome, message };
  }

  /**
   * Ingest `bytes` read at `fetchedAt`. `kind` null: every kind the feed has entities of (an empty
   * feed then needs a kind). One result per kind.
   */
  async ingest(feedId: string, kind: RealtimeKind | null, bytes: Uint8Array, source: string, fetchedAt: Date): Promise<IngestResult[]> {
    let msg: FeedMessage;
    try {
      msg = decodeFeed(bytes);
    } catch (e) {
      if (!(e instanceof DecodeError)) throw e;
      return kind ? [this.fail(feedId, kind, source, "decode_error", e.message, fetchedAt)] : [{ kind: null, outcome: "decode_error", message: e.message }];
    }
    const present = kindsOf(msg);
    if (kind === null) {
      if (!present.length) return [{ kind: null, outcome: "wrong_kind", message: "the feed has no entities: name its kind (--kind alerts|trip_updates|vehicle_positions)" }];
      const out: IngestResult[] = [];
      for (const k of present) out.push(await this.ingestKind(feedId, k, msg, bytes, source, fetchedAt));
      return out;
    }
    if (present.length && !present.includes(kind)) {
      return [this.fail(feedId, kind, source, "wrong_kind", `expected ${kind} entities, the feed has ${present.join(", ")}`, fetchedAt)];
    }
    return [await this.ingestKind(feedId, kind, msg, bytes, source, fetchedAt)];
  }

  private async ingestKind(feedId: string, kind: RealtimeKind, msg: FeedMessage, bytes: Uint8Array, source: string, fetchedAt: Date): Promise<IngestResult> {
    const s = this.settings;
    const nowS = Math.floor(fetchedAt.getTime() / 1000);
    const header = headerTimestamp(msg);
    const ts = header ?? nowS;
    if (ts > nowS + s.futureToleranceS) {
      return this.fail(feedId, kind, source, "timestamp_future", `header timestamp ${new Date(ts * 1000).toISOString()} is ${ts - nowS} s ahead of the clock (tolerance ${s.futureToleranceS} s)`, fetchedAt);
    }
    if (s.maxAgeS !== null && ts < nowS - s.maxAgeS) {
      return this.fail(feedId, kind, source, "timestamp_past", `header timestamp ${new Date(ts * 1000).toISOString()} is ${nowS - ts} s old (maximum age ${s.maxAgeS} s)`, fetchedAt);
    }
    const sha1 = createHash("sha1").update(bytes).digest("hex");
    const current = currentSnapshot(s.dataDir, feedId, kind);
    const relPath = snapshotRelPath(kind, feedId, ts, sha1);
    if (current?.sha1 === sha1 || existsSync(join(s.dataDir, relPath))) {
      recordOutcome(s.dataDir, feedId, kind, { outcome: "unchanged", at: fetchedAt, source });
      return { kind, outcome: "unchanged" };
    }
    const older = current !== null && current.header_timestamp !== null && ts < current.header_timestamp;
    if (older && s.refuseBackwards) {
      return this.fail(feedId, kind, source, "timestamp_backwards", `header timestamp ${new Date(ts * 1000).toISOString()} is older than the current snapshot's (${new Date(current.header_timestamp! * 1000).toISOString()})`, fetchedAt);
    }
    const ids = await this.staticIds(feedId);
    const built = snapshotRows(msg, kind, fetchedAt, ids);
    await writeSnapshot(this.conn, s.dataDir, kind, relPath, built.rows);
    const snapshot: SnapshotRef = {
      path: relPath, header_timestamp: header, fetched_at: fetchedAt.toISOString(), sha1, entities: built.entities, rows: built.rows.length,
      unknown: built.unknown, ...(kind === "alerts" ? { unattached_alerts: built.unattachedAlerts } : {}), checked_against: ids.version,
    };
    const message = older ? "older than the current snapshot: written for the record, not made current" : undefined;
    recordOutcome(s.dataDir, feedId, kind, { outcome: "accepted", at: fetchedAt, source, message, current: older ? undefined : snapshot });
    applyRetention(s.dataDir, feedId, s.retentionDays, fetchedAt);
    return { kind, outcome: "accepted", snapshot, current: !older, ...(message ? { message } : {}) };
  }
}
