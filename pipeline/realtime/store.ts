/**
 * The writing side of the realtime part of a dataset (layout and types: pipeline/schema/realtime.ts):
 * a snapshot's Parquet file (written under DIR/realtime/.tmp, flushed, renamed into its partition:
 * never a half-written file), the feed's status file (replaced atomically), and retention.
 */
import type { DuckDBConnection } from "@duckdb/node-api";
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, renameSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { sqlString } from "../../shared/sql.ts";
import {
  REALTIME_DIR, REALTIME_KINDS, REALTIME_TABLES, readRealtimeStatus, statusDir, statusPath,
  type KindStatus, type Outcome, type RealtimeFeedStatus, type RealtimeKind, type SnapshotRef,
} from "../schema/realtime.ts";
import { fsyncDir, writeFileDurable } from "../store/durable.ts";
import type { Row } from "./rows.ts";

const tmpDir = (dataDir: string) => join(dataDir, REALTIME_DIR, ".tmp");
let seq = 0;
const tmpName = (dataDir: string, ext: string) => join(tmpDir(dataDir), `${process.pid}-${Date.now()}-${++seq}.${ext}`);

/** read_json's `columns` argument for a table: every column with its DuckDB type. */
const columnsArg = (kind: RealtimeKind) => `{${REALTIME_TABLES[kind].columns.map((c) => `${sqlString(c.name)}: ${sqlString(c.type)}`).join(", ")}}`;

/**
 * Write `rows` as the snapshot file `relPath` (relative to the data dir): NDJSON handed to DuckDB
 * with the contract's column types, Parquet written to a temporary file, flushed, renamed into place.
 */
export async function writeSnapshot(conn: DuckDBConnection, dataDir: string, kind: RealtimeKind, relPath: string, rows: Row[]): Promise<void> {
  mkdirSync(tmpDir(dataDir), { recursive: true });
  const json = tmpName(dataDir, "ndjson");
  const parquet = tmpName(dataDir, "parquet");
  try {
    writeFileDurable(json, rows.map((r) => JSON.stringify(r)).join("\n") + (rows.length ? "\n" : ""));
    const cols = REALTIME_TABLES[kind].columns.map((c) => `"${c.name}"`).join(", ");
    const source = rows.length
      ? `SELECT ${cols} FROM read_json(${sqlString(json)}, format = 'newline_delimited', columns = ${columnsArg(kind)})`
      : `SELECT ${REALTIME_TABLES[kind].columns.map((c) => `NULL::${c.type} AS "${c.name}"`).join(", ")} LIMIT 0`;
    await conn.run(`COPY (${source}) TO ${sqlString(parquet)} (FORMAT parquet, COMPRESSION zstd)`);
    const fd = openSync(parquet, "r");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    const final = join(dataDir, relPath);
    mkdirSync(dirname(final), { recursive: true });
    renameSync(parquet, final);
    fsyncDir(dirname(final));
  } finally {
    rmSync(json, { force: true });
    rmSync(parquet, { force: true });
  }
}

const emptyKind = (): KindStatus => ({ source: null, current: null, last: null, counts: {} });

/**
 * Record one outcome in the feed's status file (read, changed, replaced atomically: the poller and
 * `import-rt` may both write it). `current` replaces the current snapshot when given.
 */
export function recordOutcome(
  dataDir: string,
  feedId: string,
  kind: RealtimeKind,
  o: { outcome: Outcome; at: Date; source: string | null; message?: string; current?: SnapshotRef },
): RealtimeFeedStatus {
  const path = statusPath(dataDir, feedId);
  const status: RealtimeFeedStatus = readRealtimeStatus(path) ?? { format: 1, feed_id: feedId, updated_at: "", kinds: {} };
  const k = (status.kinds[kind] ??= emptyKind());
  k.source = o.source;
  k.counts[o.outcome] = (k.counts[o.outcome] ?? 0) + 1;
  k.last = { at: o.at.toISOString(), outcome: o.outcome, ...(o.message ? { message: o.message } : {}) };
  if (o.current) k.current = o.current;
  status.updated_at = o.at.toISOString();
  mkdirSync(statusDir(dataDir), { recursive: true });
  const tmp = join(statusDir(dataDir), `.${feedId}.${process.pid}.${++seq}.tmp`);
  writeFileDurable(tmp, JSON.stringify(status, null, 2) + "\n");
  renameSync(tmp, path);
  fsyncDir(statusDir(dataDir));
  return status;
}

/** The current snapshot of a feed's kind, from its status file. */
export function currentSnapshot(dataDir: string, feedId: string, kind: RealtimeKind): SnapshotRef | null {
  return readRealtimeStatus(statusPath(dataDir, feedId))?.kinds[kind]?.current ?? null;
}

/**
 * Remove a feed's date partitions older than `days` days before `now` (UTC dates), never the one
 * holding a current snapshot. 0 keeps everything. Returns the number of folders removed.
 */
export function applyRetention(dataDir: string, feedId: string, days: number, now: Date): number {
  if (!(days > 0)) return 0;
  const cutoff = new Date(now.getTime() - days * 86400_000).toISOString().slice(0, 10);
  const status = readRealtimeStatus(statusPath(dataDir, feedId));
  const keep = new Set(Object.values(status?.kinds ?? {}).flatMap((k) => (k?.current ? [dirname(join(dataDir, k.current.path))] : [])));
  let removed = 0;
  for (const kind of REALTIME_KINDS) {
    const feedDir = join(dataDir, REALTIME_DIR, kind, `feed_id=${feedId}`);
    if (!existsSync(feedDir)) continue;
    for (const d of readdirSync(feedDir)) {
      const m = /^date=(\d{4}-\d{2}-\d{2})$/.exec(d);
      const dir = join(feedDir, d);
      if (!m || m[1]! >= cutoff || keep.has(dir)) continue;
      rmSync(dir, { recursive: true, force: true });
      removed++;
    }
  }
  return removed;
}
