/**
 * Compiles the planner timetable (the file pipeline/schema/timetable.ts describes) from feed
 * versions' catalog tables with DuckDB: every active version's Parquet files (compileTimetable),
 * or, during an import, the new version's in-memory tables beside the others' Parquet files
 * (buildTimetable). Where the file goes and how the manifest points at it: publish.ts.
 */
import { DuckDBInstance, type DuckDBConnection } from "@duckdb/node-api";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { jsRows as rows, intColumns, numColumns, stringColumns } from "../duck.ts";
import { sqlString } from "../../shared/sql.ts";
import { allocStopTimes, copyStopTimes, countStopTimes, readStopTimesInto, stopTimesRange, type StopTimesColumns } from "../gtfs/stop-times/columns.ts";
import { activeStreets, activeVersions, readManifest, type StreetEntry } from "../schema/manifest.ts";
import { Task } from "../tasks.ts";
import { assembleTimetable } from "./assemble.ts";
import { readFareSource } from "./fares.ts";
import { timetableRelPath, writeTimetableFile } from "./file.ts";
import { DEFAULT_WALK_RADIUS_M, type SourceData, type VersionTables } from "./source.ts";

export interface CompileOptions {
  walkRadiusM?: number;
  progress?: (msg: string) => void;
}


/** The Parquet files of a version folder. */
export const parquetTables = (dir: string): VersionTables => (table) => `read_parquet(${sqlString(join(dir, `${table}.parquet`))})`;

/** The street dataset whose pedestrian network measures the footpaths (street-footpaths.ts). */
export interface FootpathStreets {
  dataDir: string;
  entry: StreetEntry;
}

/**
 * The timetable of these versions (in the manifest's active order) as Arrow IPC, passed to `write`
 * chunk by chunk as each table is encoded (their concatenation is the file); its size in bytes.
 * Read with `conn` (any DuckDB connection that can see the relations); `stopTimes[i]`, when given,
 * gives version i's stop times, already being read or made (a StopTimesColumns producer), instead
 * of reading its stop_times relation here. With `streets`, footpaths are measured on its streets.
 */
export async function buildTimetable(
  conn: DuckDBConnection, versions: VersionTables[], write: (chunk: Uint8Array) => void, walkRadiusM = DEFAULT_WALK_RADIUS_M, progress?: (msg: string) => void,
  stopTimes?: ((() => Promise<StopTimesColumns>) | null)[], streets?: FootpathStreets | null,
): Promise<number> {
  // the Arrow writer (apache-arrow) loads while DuckDB reads: an import that needs no timetable never loads it
  const arrowIo = new Task("load the Arrow writer", () => import("./arrow-io.ts"));
  let src: SourceData | null = await readSource(conn, versions, stopTimes);
  progress?.(`timetable: read ${src.stopTimes.trip.length} stop_times from ${versions.length} versions`);
  // what the reads left behind (DuckDB's rows as JavaScript values) collected before the assembly
  // allocates, so that it reuses that memory instead of growing the process
  Bun.gc(true);
  const t = assembleTimetable(src, { walkRadiusM });
  for (const w of src.warnings ?? []) progress?.(`timetable: ${w}`);
  // the source rows are in the tables now: what only they held (the stop times this compile read,
  // the trips' and stops' rows) is let go of before the tables are encoded
  src = null;
  Bun.gc(true);
  progress?.(`timetable: assembled`);
  if (streets) {
    const { openStreetActor, streetFootpaths } = await import("./street-footpaths.ts");
    const actor = await openStreetActor(streets.dataDir, streets.entry);
    const { footpaths, report } = await streetFootpaths(actor, t.stops.lat, t.stops.lon, t.footpaths);
    t.footpaths = footpaths;
    t.meta.streets_sha1 = [streets.entry.sha1];
    progress?.(`timetable: footpaths on the streets of ${streets.entry.sha1.slice(0, 12)}: ${report.on_streets} measured, ${report.dropped} not connected (dropped), ${report.straight_line} straight lines kept (${report.stops_off_streets} of ${report.stops_on_streets + report.stops_off_streets} stops off the streets)`);
  }
  // each table written as it is encoded, and let go of then
  const bytes = (await arrowIo.result()).writeTablesIpc(t, write);
  progress?.(`timetable: encoded`);
  return bytes;
}

export async function compileTimetable(dataDir: string, opts: CompileOptions = {}): Promise<{ path: string; active_sha1s: string[]; streets_sha1: string | null }> {
  const m = readManifest(dataDir);
  const versions = activeVersions(m);
  const active_sha1s = versions.map((v) => v.sha1);
  const radius = opts.walkRadiusM ?? DEFAULT_WALK_RADIUS_M;
  const streets = activeStreets(m);
  const streets_sha1 = streets?.sha1 ?? null;
  const rel = timetableRelPath(active_sha1s, radius, streets_sha1);
  const out = join(dataDir, rel);
  if (existsSync(out)) return { path: rel, active_sha1s, streets_sha1 };
  const t0 = performance.now();
  // no automatic checkpoint (it would compress the in-memory tables for nothing; see pipeline/import.ts)
  const db = await DuckDBInstance.create(":memory:", { checkpoint_threshold: "1TB" });
  const conn = await db.connect();
  try {
    const step = opts.progress && ((msg: string) => opts.progress!(`${msg} (${((performance.now() - t0) / 1000).toFixed(2)} s)`));
    let size = 0;
    await writeTimetableFile(out, async (write) => {
      size = await buildTimetable(conn, versions.map((v) => parquetTables(join(dataDir, v.path))), write, radius, step, undefined, streets && { dataDir, entry: streets });
    });
    opts.progress?.(`timetable: ${rel} (${(size / 1e6).toFixed(1)} MB) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  } finally {
    conn.closeSync();
    db.closeSync();
  }
  return { path: rel, active_sha1s, streets_sha1 };
}

const days = (col: string) => `CAST(${col} - DATE '1970-01-01' AS INTEGER)`;
const s = (v: unknown) => (v == null ? "" : String(v));
const num = (v: unknown, d = 0) => (v == null ? d : Number(v));

/**
 * The transfers.txt rows of version `feed`: stop-to-stop rows (both stops named), and rows naming
 * routes or trips, whose ids are resolved to the version's route and trip keys here. A row naming
 * a route or trip the version does not have is left out and reported (src.warnings), as is a row
 * that needs stops and names none (types 0-3); transfer_type 4 and 5 may leave the stops out.
 */
async function readTransfers(conn: DuckDBConnection, pq: VersionTables, src: SourceData, feed: number): Promise<void> {
  const id = (c: string) => `nullif(x.${c}, '')`;
  const skipped = new Map<string, number>();
  for (const r of await rows(
    conn,
    `SELECT x.from_stop_ref, x.to_stop_ref, coalesce(x.transfer_type, 0) AS t, coalesce(x.min_transfer_time, 0) AS m,
        ${id("from_route_id")} AS from_route_id, ${id("to_route_id")} AS to_route_id, ${id("from_trip_id")} AS from_trip_id, ${id("to_trip_id")} AS to_trip_id,
        fr.id AS from_route, tr.id AS to_route, ft.id AS from_trip, tt.id AS to_trip
     FROM ${pq("transfers")} x
       LEFT JOIN ${pq("routes")} fr ON fr.route_id = ${id("from_route_id")} LEFT JOIN ${pq("routes")} tr ON tr.route_id = ${id("to_route_id")}
       LEFT JOIN ${pq("trips")} ft ON ft.trip_id = ${id("from_trip_id")} LEFT JOIN ${pq("trips")} tt ON tt.trip_id = ${id("to_trip_id")}
     -- a join's rows come in an order its threads choose: sorted by every column read, so that the
     -- rules and rule trips are numbered alike by every build of the same feed (rows alike are alike)
     ORDER BY x.from_stop_ref NULLS FIRST, x.to_stop_ref NULLS FIRST, t, m, from_route_id NULLS FIRST, to_route_id NULLS FIRST,
       from_trip_id NULLS FIRST, to_trip_id NULLS FIRST, from_route NULLS FIRST, to_route NULLS FIRST, from_trip NULLS FIRST, to_trip NULLS FIRST`,
  )) {
    const type = num(r.t);
    const fromStop = num(r.from_stop_ref, -1), toStop = num(r.to_stop_ref, -1);
    const specific = r.from_route_id != null || r.to_route_id != null || r.from_trip_id != null || r.to_trip_id != null;
    const skip = (why: string) => skipped.set(why, (skipped.get(why) ?? 0) + 1);
    if (!specific) {
      if (type > 3) skip("in-seat transfer_type without from_trip_id and to_trip_id");
      else if (fromStop >= 0 && toStop >= 0) src.transfers.push({ fromStop, toStop, type, minSec: num(r.m) });
      else skip("no from_stop_id / to_stop_id");
      continue;
    }
    const unknown = [["from_route_id", "from_route"], ["to_route_id", "to_route"], ["from_trip_id", "from_trip"], ["to_trip_id", "to_trip"]].filter(([name, ref]) => r[name!] != null && r[ref!] == null);
    if (unknown.length) {
      for (const [name] of unknown) skip(`unknown ${name}`);
      continue;
    }
    if (type > 5 || (type <= 3 && (fromStop < 0 || toStop < 0))) {
      skip(type > 5 ? "transfer_type beyond 5" : "no from_stop_id / to_stop_id");
      continue;
    }
    if (type >= 4 && (r.from_trip == null || r.to_trip == null)) {
      skip("in-seat transfer_type without from_trip_id and to_trip_id");
      continue;
    }
    src.transfers.push({ fromStop, toStop, type, minSec: num(r.m), fromRoute: num(r.from_route, -1), toRoute: num(r.to_route, -1), fromTrip: num(r.from_trip, -1), toTrip: num(r.to_trip, -1) });
  }
  for (const [why, n] of skipped) (src.warnings ??= []).push(`${src.feeds[feed]?.onestopId ?? feed}: ${n} transfers.txt row(s) left out (${why})`);
}

/** `stopTimes[feed]`, when given, is that version's stop times (see buildTimetable). */
async function readSource(conn: DuckDBConnection, versions: VersionTables[], stopTimes?: ((() => Promise<StopTimesColumns>) | null)[]): Promise<SourceData> {
  const src: SourceData = {
    feeds: [], agencies: [], routes: [], stops: [], trips: [], calendars: [], frequencies: [], transfers: [], shapes: [],
    stopTimes: { trip: new Int32Array(), stopSequence: new Int32Array(), stop: new Int32Array(), arrSec: new Int32Array(), depSec: new Int32Array(), pickupType: new Uint8Array(), dropOffType: new Uint8Array() },
  };
  const stParts: (StopTimesColumns | string)[] = [];
  for (let feed = 0; feed < versions.length; feed++) {
    const pq = versions[feed]!;
    // the planner's service span is the calendars' (first to last date with service), never the
    // catalog's service window, which feed_info dates override (OTP1 too plans on every date its
    // calendars serve); the window only when a version has no calendar dates at all
    const [fv] = await rows(conn, `SELECT sha1, feed_onestop_id, ${days("coalesce(earliest_calendar_date, service_start_date)")} AS s, ${days("coalesce(latest_calendar_date, service_end_date)")} AS e FROM ${pq("feed_version")}`);
    src.feeds.push({ onestopId: s(fv?.feed_onestop_id), sha1: s(fv?.sha1), startDay: num(fv?.s), endDay: num(fv?.e) });
    for (const r of await rows(conn, `SELECT id, agency_id, agency_name, agency_timezone, agency_url FROM ${pq("agencies")}`)) {
      src.agencies.push({ key: num(r.id), feed, agencyId: s(r.agency_id), name: s(r.agency_name), timezone: s(r.agency_timezone) || "UTC", url: s(r.agency_url) });
    }
    for (const r of await rows(conn, `SELECT id, agency_ref, route_id, route_short_name, route_long_name, route_type, route_color, route_text_color, onestop_id FROM ${pq("routes")}`)) {
      src.routes.push({ key: num(r.id), feed, agency: num(r.agency_ref, -1), routeId: s(r.route_id), shortName: s(r.route_short_name), longName: s(r.route_long_name), type: num(r.route_type, 3), color: s(r.route_color), textColor: s(r.route_text_color), onestopId: s(r.onestop_id) });
    }
    const [stopId, code, name, onestopId, zoneId, platformCode] = await stringColumns(conn, pq("stops"), ["stop_id", "stop_code", "stop_name", "onestop_id", "zone_id", "platform_code"]);
    const [sId, sWc, sParent] = await intColumns(conn, `SELECT id, coalesce(wheelchair_boarding, 0)::INTEGER, coalesce(parent_ref, -1)::INTEGER FROM ${pq("stops")} ORDER BY id`, 3);
    const [sLat, sLon] = await numColumns(conn, `SELECT coalesce(stop_lat, 0)::DOUBLE, coalesce(stop_lon, 0)::DOUBLE FROM ${pq("stops")} ORDER BY id`, ["double", "double"]);
    for (let i = 0; i < sId!.length; i++) {
      src.stops.push({ key: sId![i]!, feed, stopId: stopId![i]!, code: code![i]!, name: name![i]!, lat: sLat![i]!, lon: sLon![i]!, wheelchair: sWc![i]!, onestopId: onestopId![i]!, parent: sParent![i]!, zoneId: zoneId![i]!, platformCode: platformCode![i]! });
    }
    const [tripId, headsign, blockId, shapeId, tripShortName] = await stringColumns(conn, pq("trips"), ["trip_id", "trip_headsign", "block_id", "shape_id", "trip_short_name"]);
    for (const c of [headsign, blockId, shapeId, tripShortName]) interned(c!);
    const [tId, tRoute, tService, tWc] = await intColumns(conn, `SELECT id, coalesce(route_ref, -1)::INTEGER, coalesce(calendar_ref, -1)::INTEGER, coalesce(wheelchair_accessible, 0)::INTEGER FROM ${pq("trips")} ORDER BY id`, 4);
    for (let i = 0; i < tId!.length; i++) {
      src.trips.push({ key: tId![i]!, feed, route: tRoute![i]!, service: tService![i]!, tripId: tripId![i]!, headsign: headsign![i]!, blockId: blockId![i]!, shapeId: shapeId![i]!, wheelchair: tWc![i]!, shortName: tripShortName![i]! });
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
    await readTransfers(conn, pq, src, feed);
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
    (src.fares ??= []).push(await readFareSource(conn, pq));
    const made = stopTimes?.[feed];
    stParts.push(made ? await made() : pq("stop_times"));
  }
  src.stopTimes = await allStopTimes(conn, stParts);
  return src;
}

/**
 * A column's repeated values made one string each, in place: trips repeat their headsign, shape,
 * block and short name, and a country's million trips held a copy of each (~30 bytes a value).
 */
function interned(col: string[]): void {
  const seen = new Map<string, string>();
  for (let i = 0; i < col.length; i++) {
    const v = col[i]!;
    const first = seen.get(v);
    if (first === undefined) seen.set(v, v);
    else col[i] = first;
  }
}

/**
 * Every version's stop times one after the other in one set of columns: a version's columns
 * (made by its producer) copied in, a relation read into its place (readStopTimesInto), so no
 * version's stop times are held twice. One version's columns are taken as they are.
 */
async function allStopTimes(conn: DuckDBConnection, parts: (StopTimesColumns | string)[]): Promise<StopTimesColumns> {
  if (parts.length === 1 && typeof parts[0] !== "string") return parts[0]!;
  let n = 0;
  for (const p of parts) n += typeof p === "string" ? await countStopTimes(conn, p) : p.trip.length;
  const out = allocStopTimes(n);
  let at = 0;
  for (const p of parts) at = typeof p === "string" ? at + (await readStopTimesInto(conn, p, out, at)) : copyStopTimes(p, out, at);
  return at === n ? out : stopTimesRange(out, 0, at);
}
