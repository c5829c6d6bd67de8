/**
 * Compiles the planner timetable from every active feed version's Parquet files (DuckDB) into one
 * Arrow IPC file, `<data>/timetables/<hash of the active sha1s>.arrow`, written atomically (temp
 * file + rename). The manifest is not touched: the caller points `manifest.timetable` at the result.
 */
import { DuckDBDoubleVector, DuckDBInstance, DuckDBIntegerVector, type DuckDBConnection } from "@duckdb/node-api";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, renameSync } from "node:fs";
import { dirname, join } from "node:path";
import { activeVersions, readManifest, writeFileDurable, fsyncDir } from "../store/manifest.ts";
import { assembleTimetable } from "./assemble.ts";
import { DEFAULT_WALK_RADIUS_M, type SourceData } from "./source.ts";

/** Bump when the layout of the compiled file changes, so old files are not reused. */
export const TIMETABLE_FORMAT = 3; // 3: stop times packed in one Int32 column (stop_time_words)

export interface CompileOptions {
  walkRadiusM?: number;
  progress?: (msg: string) => void;
}

/** Where a version's tables are read from: a SQL relation per catalog table name. */
export type VersionTables = (table: string) => string;

/** The Parquet files of a version folder. */
export const parquetTables = (dir: string): VersionTables => (table) => `read_parquet('${join(dir, `${table}.parquet`).replace(/'/g, "''")}')`;

/** Path (relative to the data dir) of the timetable of this set of active versions. */
export function timetableRelPath(activeSha1s: string[], walkRadiusM = DEFAULT_WALK_RADIUS_M): string {
  const hash = createHash("sha1").update(JSON.stringify({ f: TIMETABLE_FORMAT, radius: walkRadiusM, active: [...activeSha1s].sort() })).digest("hex").slice(0, 16);
  return join("timetables", `${hash}.arrow`);
}

/**
 * The timetable of these versions (in the manifest's active order) as Arrow IPC chunks, read with
 * `conn` (any DuckDB connection that can see the relations); `stopTimes[i]`, when given, is version
 * i's readStopTimes, started earlier.
 */
export async function buildTimetableChunks(
  conn: DuckDBConnection, versions: VersionTables[], walkRadiusM = DEFAULT_WALK_RADIUS_M, progress?: (msg: string) => void, stopTimes?: (Promise<Int32Array[] | null> | null)[],
): Promise<Uint8Array[]> {
  // the Arrow writer (apache-arrow) loads while DuckDB reads: an import that needs no timetable never loads it
  const arrowIo = import("./arrow-io.ts");
  arrowIo.catch(() => {}); // awaited below
  const src = await readSource(conn, versions, stopTimes);
  progress?.(`timetable: read ${src.stopTimes.trip.length} stop_times from ${versions.length} versions`);
  const t = assembleTimetable(src, { walkRadiusM });
  progress?.(`timetable: assembled`);
  const c = (await arrowIo).tablesToIpcChunks(t);
  progress?.(`timetable: encoded`);
  return c;
}

/** Writes timetable chunks to `path` durably (temp file + fsync + rename). */
export function writeTimetableFile(path: string, chunks: Uint8Array[]): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileDurable(tmp, chunks);
  renameSync(tmp, path);
  fsyncDir(dirname(path));
}

export async function compileTimetable(dataDir: string, opts: CompileOptions = {}): Promise<{ path: string; active_sha1s: string[] }> {
  const m = readManifest(dataDir);
  const versions = activeVersions(m);
  const active_sha1s = versions.map((v) => v.sha1);
  const radius = opts.walkRadiusM ?? DEFAULT_WALK_RADIUS_M;
  const rel = timetableRelPath(active_sha1s, radius);
  const out = join(dataDir, rel);
  if (existsSync(out)) return { path: rel, active_sha1s };
  const t0 = performance.now();
  // no automatic checkpoint (it would compress the in-memory tables for nothing; see pipeline/import.ts)
  const db = await DuckDBInstance.create(":memory:", { checkpoint_threshold: "1TB" });
  const conn = await db.connect();
  try {
    const step = opts.progress && ((msg: string) => opts.progress!(`${msg} (${((performance.now() - t0) / 1000).toFixed(2)} s)`));
    const chunks = await buildTimetableChunks(conn, versions.map((v) => parquetTables(join(dataDir, v.path))), radius, step);
    writeTimetableFile(out, chunks);
    const size = chunks.reduce((n, c) => n + c.length, 0);
    opts.progress?.(`timetable: ${rel} (${(size / 1e6).toFixed(1)} MB) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  } finally {
    conn.closeSync?.();
  }
  return { path: rel, active_sha1s };
}

const days = (col: string) => `CAST(${col} - DATE '1970-01-01' AS INTEGER)`;
const s = (v: unknown) => (v == null ? "" : String(v));
const num = (v: unknown, d = 0) => (v == null ? d : Number(v));

async function rows(conn: DuckDBConnection, sql: string): Promise<Record<string, unknown>[]> {
  return (await conn.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[];
}

type NumArray = Int32Array | Float64Array;

/**
 * NOT NULL numeric columns (coalesce them in `sql`) as typed arrays: Int32Array for INTEGER columns,
 * Float64Array for DOUBLE ones, as `kinds` says (stop_times can have tens of millions of rows). The
 * result is materialised by DuckDB first (its threads run the whole query; streaming it chunk by
 * chunk ran it on one, and took twice as long), then copied chunk by chunk.
 */
async function numColumns(conn: DuckDBConnection, sql: string, kinds: ("int" | "double")[], sizeHint = 1 << 16): Promise<NumArray[]> {
  let cap = Math.max(1, sizeHint);
  const alloc = (k: "int" | "double", size: number): NumArray => (k === "int" ? new Int32Array(size) : new Float64Array(size));
  let cols = kinds.map((k) => alloc(k, cap));
  let n = 0;
  const res = await conn.run(sql);
  for (let ci = 0; ci < res.chunkCount; ci++) {
    const chunk = res.getChunk(ci);
    const rc = chunk.rowCount;
    if (rc === 0) continue;
    if (n + rc > cap) {
      while (n + rc > cap) cap *= 2;
      cols = cols.map((c, j) => {
        const g = alloc(kinds[j]!, cap);
        g.set(c.subarray(0, n));
        return g;
      });
    }
    for (let j = 0; j < kinds.length; j++) {
      const v = chunk.getColumnVector(j);
      const col = cols[j]!;
      // INTEGER and DOUBLE vectors keep their data in a typed array (`items`, not part of the typed
      // API): copy it whole (the query has no NULLs); any other shape takes the per-item path.
      const items = v instanceof DuckDBIntegerVector || v instanceof DuckDBDoubleVector ? (v as unknown as { items?: unknown }).items : undefined;
      if ((items instanceof Int32Array || items instanceof Float64Array) && items.length === rc && items.constructor === col.constructor) col.set(items, n);
      else for (let i = 0; i < rc; i++) col[n + i] = (v.getItem(i) as number | null) ?? 0;
    }
    n += rc;
  }
  return cols.map((c) => (n === c.length ? c : c.slice(0, n)));
}

/**
 * String columns of `rel` in `id` order, null as "": each column is fetched as one string_agg value
 * and split in JavaScript (turning bus_bk's 58 k trips into row objects value by value took ~100 ms,
 * this way ~10 ms). When some value contains the separator (U+001F), the rows are read instead.
 */
export async function stringColumns(conn: DuckDBConnection, rel: string, cols: string[]): Promise<string[][]> {
  const v = (c: string) => `coalesce(CAST(${c} AS VARCHAR), '')`;
  const [r] = await rows(conn, `SELECT count(*) AS n, ${cols.map((c) => `coalesce(bool_or(contains(${v(c)}, chr(31))), false)`).join(" OR ")} AS bad,
      ${cols.map((c, i) => `string_agg(${v(c)}, chr(31) ORDER BY id) AS c${i}`).join(", ")} FROM ${rel}`);
  if (r!.bad) {
    const all = await rows(conn, `SELECT ${cols.join(", ")} FROM ${rel} ORDER BY id`);
    return cols.map((c) => all.map((row) => s(row[c])));
  }
  const n = num(r!.n);
  return cols.map((_, i) => {
    const out = n === 0 ? [] : String(r![`c${i}`]).split("\u001f");
    if (out.length !== n) throw new Error(`${rel}: ${cols[i]} read ${out.length} values for ${n} rows`);
    return out;
  });
}

const intColumns = async (conn: DuckDBConnection, sql: string, nCols: number, sizeHint?: number) =>
  (await numColumns(conn, sql, Array(nCols).fill("int"), sizeHint)) as Int32Array[];

/** (trip, stop_sequence) pairs are in ascending order. */
function sortedByTrip(trip: Int32Array, seq: Int32Array): boolean {
  for (let i = 1; i < trip.length; i++) if (trip[i]! < trip[i - 1]! || (trip[i] === trip[i - 1] && seq[i]! <= seq[i - 1]!)) return false;
  return true;
}

/**
 * A version's stop_times as the timetable reads them: trip, stop_sequence, stop, arrival, departure,
 * pickup and drop-off columns in (trip, stop_sequence) order.
 */
export async function readStopTimes(conn: DuckDBConnection, pq: VersionTables): Promise<Int32Array[]> {
  // the import writes stop_times sorted by (trip_ref, stop_sequence); read in file order, and sort
  // only when a version written otherwise is not
  const stSql = `SELECT coalesce(trip_ref, 0)::INTEGER, coalesce(stop_sequence, 0)::INTEGER, coalesce(stop_ref, 0)::INTEGER,
      coalesce(arrival_time, departure_time)::INTEGER, coalesce(departure_time, arrival_time)::INTEGER,
      coalesce(pickup_type, 0)::INTEGER, coalesce(drop_off_type, 0)::INTEGER
     FROM ${pq("stop_times")} WHERE arrival_time IS NOT NULL OR departure_time IS NOT NULL`;
  // row count (from the Parquet metadata: no scan): an upper bound, so the columns never grow
  const nSt = Number((await rows(conn, `SELECT count(*) AS n FROM ${pq("stop_times")}`))[0]!.n);
  const part = await intColumns(conn, stSql, 7, nSt);
  return sortedByTrip(part[0]!, part[1]!) ? part : intColumns(conn, `${stSql} ORDER BY 1, 2`, 7, nSt);
}

/** `stopTimes[feed]`, when given (and not resolving to null), is that version's readStopTimes, started earlier by the caller. */
async function readSource(conn: DuckDBConnection, versions: VersionTables[], stopTimes?: (Promise<Int32Array[] | null> | null)[]): Promise<SourceData> {
  const src: SourceData = {
    feeds: [], agencies: [], routes: [], stops: [], trips: [], calendars: [], frequencies: [], transfers: [], shapes: [],
    stopTimes: { trip: new Int32Array(), stopSequence: new Int32Array(), stop: new Int32Array(), arrSec: new Int32Array(), depSec: new Int32Array(), pickupType: new Uint8Array(), dropOffType: new Uint8Array() },
  };
  const stParts: Int32Array[][] = [];
  for (let feed = 0; feed < versions.length; feed++) {
    const pq = versions[feed]!;
    const [fv] = await rows(conn, `SELECT sha1, feed_onestop_id, ${days("service_start_date")} AS s, ${days("service_end_date")} AS e FROM ${pq("feed_version")}`);
    src.feeds.push({ onestopId: s(fv?.feed_onestop_id), sha1: s(fv?.sha1), startDay: num(fv?.s), endDay: num(fv?.e) });
    for (const r of await rows(conn, `SELECT id, agency_id, agency_name, agency_timezone FROM ${pq("agencies")}`)) {
      src.agencies.push({ key: num(r.id), feed, agencyId: s(r.agency_id), name: s(r.agency_name), timezone: s(r.agency_timezone) || "UTC" });
    }
    for (const r of await rows(conn, `SELECT id, agency_ref, route_id, route_short_name, route_long_name, route_type, route_color, route_text_color, onestop_id FROM ${pq("routes")}`)) {
      src.routes.push({ key: num(r.id), feed, agency: num(r.agency_ref, -1), routeId: s(r.route_id), shortName: s(r.route_short_name), longName: s(r.route_long_name), type: num(r.route_type, 3), color: s(r.route_color), textColor: s(r.route_text_color), onestopId: s(r.onestop_id) });
    }
    const [stopId, code, name, onestopId] = await stringColumns(conn, pq("stops"), ["stop_id", "stop_code", "stop_name", "onestop_id"]);
    const [sId, sWc, sParent] = await intColumns(conn, `SELECT id, coalesce(wheelchair_boarding, 0)::INTEGER, coalesce(parent_ref, -1)::INTEGER FROM ${pq("stops")} ORDER BY id`, 3);
    const [sLat, sLon] = await numColumns(conn, `SELECT coalesce(stop_lat, 0)::DOUBLE, coalesce(stop_lon, 0)::DOUBLE FROM ${pq("stops")} ORDER BY id`, ["double", "double"]);
    for (let i = 0; i < sId!.length; i++) {
      src.stops.push({ key: sId![i]!, feed, stopId: stopId![i]!, code: code![i]!, name: name![i]!, lat: sLat![i]!, lon: sLon![i]!, wheelchair: sWc![i]!, onestopId: onestopId![i]!, parent: sParent![i]! });
    }
    const [tripId, headsign, blockId, shapeId] = await stringColumns(conn, pq("trips"), ["trip_id", "trip_headsign", "block_id", "shape_id"]);
    const [tId, tRoute, tService, tWc] = await intColumns(conn, `SELECT id, coalesce(route_ref, -1)::INTEGER, coalesce(calendar_ref, -1)::INTEGER, coalesce(wheelchair_accessible, 0)::INTEGER FROM ${pq("trips")} ORDER BY id`, 4);
    for (let i = 0; i < tId!.length; i++) {
      src.trips.push({ key: tId![i]!, feed, route: tRoute![i]!, service: tService![i]!, tripId: tripId![i]!, headsign: headsign![i]!, blockId: blockId![i]!, shapeId: shapeId![i]!, wheelchair: tWc![i]! });
    }
    for (const r of await rows(
      conn,
      `SELECT id, monday, tuesday, wednesday, thursday, friday, saturday, sunday, ${days("start_date")} AS s, ${days("end_date")} AS e,
        list_transform(coalesce(added_dates, []), d -> ${days("d")}) AS added, list_transform(coalesce(removed_dates, []), d -> ${days("d")}) AS removed
       FROM ${pq("calendars")}`,
    )) {
      const wd = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"].reduce((m, d, i) => m | (num(r[d]) === 1 ? 1 << i : 0), 0);
      const list = (v: unknown) => (Array.isArray(v) ? v.map(Number) : []);
      src.calendars.push({ key: num(r.id), feed, weekdays: wd, startDay: num(r.s), endDay: num(r.e), added: list(r.added), removed: list(r.removed) });
    }
    for (const r of await rows(conn, `SELECT trip_ref, start_time, end_time, headway_secs FROM ${pq("frequencies")}`)) {
      src.frequencies.push({ trip: num(r.trip_ref), startSec: num(r.start_time), endSec: num(r.end_time), headwaySec: num(r.headway_secs) });
    }
    for (const r of await rows(
      conn,
      `SELECT from_stop_ref, to_stop_ref, coalesce(transfer_type, 0) AS t, coalesce(min_transfer_time, 0) AS m FROM ${pq("transfers")}
       WHERE coalesce(from_route_id, '') = '' AND coalesce(to_route_id, '') = '' AND coalesce(from_trip_id, '') = '' AND coalesce(to_trip_id, '') = ''
         AND from_stop_ref IS NOT NULL AND to_stop_ref IS NOT NULL`,
    )) {
      src.transfers.push({ fromStop: num(r.from_stop_ref), toStop: num(r.to_stop_ref), type: num(r.t), minSec: num(r.m) });
    }
    // shapes used by trips: their point counts (by shape_id), then every point in that order
    const used = `FROM ${pq("shapes")} WHERE shape_id IN (SELECT DISTINCT shape_id FROM ${pq("trips")})`;
    const counts = await rows(conn, `SELECT shape_id, count(*) AS n ${used} GROUP BY shape_id ORDER BY shape_id`);
    const nPts = counts.reduce((a, r) => a + num(r.n), 0);
    const [lat, lon] = (await numColumns(conn, `SELECT coalesce(shape_pt_lat, 0)::DOUBLE, coalesce(shape_pt_lon, 0)::DOUBLE ${used} ORDER BY shape_id, shape_pt_sequence`, ["double", "double"], nPts)) as Float64Array[];
    let at = 0;
    for (const r of counts) {
      const n = num(r.n);
      src.shapes.push({ feed, shapeId: s(r.shape_id), lat: lat!.subarray(at, at + n), lon: lon!.subarray(at, at + n) });
      at += n;
    }
    const part = (await stopTimes?.[feed]) ?? (await readStopTimes(conn, pq));
    stParts.push(part);
  }
  const total = stParts.reduce((n, p) => n + p[0]!.length, 0);
  const cat = (j: number) => {
    if (stParts.length === 1) return stParts[0]![j]!;
    const out = new Int32Array(total);
    let at = 0;
    for (const p of stParts) {
      out.set(p[j]!, at);
      at += p[j]!.length;
    }
    return out;
  };
  src.stopTimes = { trip: cat(0), stopSequence: cat(1), stop: cat(2), arrSec: cat(3), depSec: cat(4), pickupType: new Uint8Array(cat(5)), dropOffType: new Uint8Array(cat(6)) };
  return src;
}
