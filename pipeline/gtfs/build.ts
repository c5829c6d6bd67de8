/**
 * Builds the catalog tables from the raw GTFS tables inside one DuckDB connection: validation
 * (bad rows skipped and reported by kind, see README "Bad feeds"), integer ids, derived data
 * (calendars, stop patterns, generated shapes, interpolated times, route/agency stop links).
 * Every rule here is decided per case the way the README's "Bad feeds" table documents.
 */
import type { DuckDBConnection } from "@duckdb/node-api";
import { DataError, Issues } from "../report.ts";
import { csvReader, lineOf, loadDeferred, openDeferred, q, recordRejects, untrimmed, type CsvPlan, type RawTable } from "./load.ts";
import { interpolateTrip, type StopRow } from "./interpolate.ts";
import type { FastRows, IdPositions } from "./stop-times-append.ts";
import type { Declined, FastStopTimes } from "./stop-times-fast.ts";

export type Allocate = (kind: string, count: number) => number;

interface Ctx {
  conn: DuckDBConnection;
  /** another connection to the same database (the fast path inserts stop_times on two at once) */
  connect: () => Promise<DuckDBConnection>;
  raw: Map<string, RawTable>;
  issues: Issues;
  fvid: number;
  allocate: Allocate;
  progress: (msg: string) => void;
  /**
   * Called once the `stop_times` view is final (nothing changes st0 afterwards), while the other
   * tables are still being built: the importer starts writing stop_times.parquet on another
   * connection then.
   */
  stopTimesReady?: (timetableColumns: (() => Int32Array[]) | null) => void;
  /** buildShapes, when the importer runs it on another connection (else buildTables runs it itself) */
  shapes?: Promise<ShapesBuilt>;
  /** the fast reader's stop_times.txt (stop-times-fast.ts), when the importer started it */
  fastStopTimes?: Promise<FastStopTimes | Declined>;
  /** puts stop_times.txt on disk when DuckDB is to read it (a zip member the fast reader read is in memory only) */
  stopTimesFile?: () => Promise<void>;
}

/** What buildShapes did: rows of shapes.txt it skipped, and its warnings (absorbed by buildTables in its place). */
export interface ShapesBuilt {
  skipped: number;
  issues: Issues;
}

/**
 * sh0 (the valid shape points, by rid) and shape_ids from raw_shapes, with its own warnings: the
 * importer runs it on a second connection while the trips and stop_times are read (ctx.shapes);
 * `ctx.raw` needs only shapes.txt. No macros (the main connection may be creating them meanwhile).
 */
export async function buildShapes(ctx: Pick<Ctx, "conn" | "raw">): Promise<ShapesBuilt> {
  const { conn } = ctx;
  const own: Ctx = { ...ctx, connect: () => Promise.reject(new Error("buildShapes opens no connection")), issues: new Issues(), fvid: 0, allocate: () => 0, progress: () => {} };
  let skipped = 0;
  await conn.run(`CREATE TABLE sh0 AS SELECT rowid AS rid, shape_id, TRY_CAST(shape_pt_sequence AS INTEGER) AS seq, TRY_CAST(shape_pt_lat AS DOUBLE) AS lat,
      TRY_CAST(shape_pt_lon AS DOUBLE) AS lon, TRY_CAST(shape_dist_traveled AS DOUBLE) AS dist, shape_pt_sequence FROM raw_shapes`);
  const badSh = `SELECT rid, shape_id, shape_pt_sequence FROM sh0 WHERE shape_id IS NULL OR seq IS NULL OR seq < 0 OR lat IS NULL OR lon IS NULL OR lat NOT BETWEEN -90 AND 90 OR lon NOT BETWEEN -180 AND 180`;
  const nBad = await reportSkipped(own, "invalid_shape_point", "shapes.txt", badSh,
    `'shape ' || coalesce(shape_id, '(empty)') || ' point ' || coalesce(shape_pt_sequence, '(empty)') || ': invalid sequence or coordinates'`);
  if (nBad) await conn.run(`DELETE FROM sh0 WHERE rid IN (SELECT rid FROM (${badSh}))`);
  const nDup = await reportSkipped(own, "duplicate_key", "shapes.txt",
    `SELECT rid, shape_id, seq FROM sh0 QUALIFY row_number() OVER (PARTITION BY shape_id, seq ORDER BY rid) > 1`, `'duplicate shape_id/shape_pt_sequence ' || shape_id || ' ' || seq`);
  if (nDup) await conn.run(`DELETE FROM sh0 WHERE rid IN (SELECT rid FROM sh0 QUALIFY row_number() OVER (PARTITION BY shape_id, seq ORDER BY rid) > 1)`);
  skipped += nBad + nDup;
  await conn.run(`CREATE TABLE shape_ids AS SELECT DISTINCT shape_id FROM sh0`);
  return { skipped, issues: own.issues };
}

async function rows(conn: DuckDBConnection, sql: string): Promise<Record<string, unknown>[]> {
  return (await conn.runAndReadAll(sql)).getRowObjects() as Record<string, unknown>[];
}
async function scalar(conn: DuckDBConnection, sql: string): Promise<number> {
  const r = await rows(conn, sql);
  const v = r[0] ? Object.values(r[0])[0] : 0;
  return v == null ? 0 : Number(v);
}

/**
 * Report rows of `fromSql` (a query over a raw table exposing `rid`) as skipped under `kind`:
 * counts them, records up to 5 examples with line numbers.
 */
async function reportSkipped(ctx: Ctx, kind: string, file: string, fromSql: string, messageSql: string): Promise<number> {
  const n = await scalar(ctx.conn, `SELECT count(*) FROM (${fromSql})`);
  if (n === 0) return 0;
  const ex = await rows(ctx.conn, `SELECT rid, ${messageSql} AS msg FROM (${fromSql}) ORDER BY rid LIMIT 5`);
  const raw = ctx.raw.get(file)!;
  ctx.issues.addMany(kind, n, ex.map((r) => ({ file, line: lineOf(raw, Number(r.rid)), message: String(r.msg) })));
  return n;
}

const MACROS = `
CREATE OR REPLACE MACRO gtfs_time(t) AS CASE WHEN regexp_full_match(t, '[0-9]{1,3}:[0-5][0-9]:[0-5][0-9]')
  THEN CAST(epoch(TRY_CAST(t AS INTERVAL)) AS INTEGER) END;
CREATE OR REPLACE MACRO gtfs_date(d) AS TRY_CAST(TRY_STRPTIME(d, '%Y%m%d') AS DATE);
CREATE OR REPLACE MACRO gtfs_int(x) AS TRY_CAST(x AS INTEGER);
CREATE OR REPLACE MACRO hav_m(lat1, lon1, lat2, lon2) AS 2 * 6371008.8 * asin(sqrt(
  pow(sin(radians(lat2 - lat1) / 2), 2) + cos(radians(lat1)) * cos(radians(lat2)) * pow(sin(radians(lon2 - lon1) / 2), 2)));
`;

/**
 * Optional stop_times.txt columns: name, conversion of the raw value `st.<name>`, and type. st0 keeps
 * only those the file has; queries name the others as typed NULLs (stCol in buildTables).
 */
const ST_OPTIONAL: ReadonlyArray<readonly [name: string, conversion: string, type: string]> = [
  ["stop_headsign", "st.stop_headsign", "VARCHAR"],
  ["pickup_type", "gtfs_int(st.pickup_type)", "INTEGER"],
  ["drop_off_type", "gtfs_int(st.drop_off_type)", "INTEGER"],
  ["continuous_pickup", "gtfs_int(st.continuous_pickup)", "INTEGER"],
  ["continuous_drop_off", "gtfs_int(st.continuous_drop_off)", "INTEGER"],
  ["shape_dist_traveled", "TRY_CAST(st.shape_dist_traveled AS DOUBLE)", "DOUBLE"],
  ["timepoint", "gtfs_int(st.timepoint)", "INTEGER"],
];

/** a time the file has that does not parse (over st0's columns arr and dep of a raw row `st`) */
const BAD_TIME = `(st.arrival_time IS NOT NULL AND arr IS NULL) OR (st.departure_time IS NOT NULL AND dep IS NULL)`;

/**
 * st0's columns parsed from a raw stop_times row `st`: the optional ones the file has (`present`), and
 * bad_time unless the caller rules unparsable times out otherwise (the direct path: such a row is suspect).
 */
function stTimeCols(present: (col: string) => boolean, badTime: boolean): string {
  return [
    `gtfs_int(st.stop_sequence) AS seq`,
    `gtfs_time(st.arrival_time) AS arr`,
    `CASE WHEN st.departure_time = st.arrival_time THEN arr ELSE gtfs_time(st.departure_time) END AS dep`,
    ...(badTime ? [`${BAD_TIME} AS bad_time`] : []),
    ...ST_OPTIONAL.filter(([c]) => present(c)).map(([c, conv]) => `${conv} AS ${c}`),
  ].join(", ");
}

export interface BuildResult {
  counts: Record<string, number>;
  derived: Record<string, number>;
  skipped: Record<string, number>;
}

export async function buildTables(ctx: Ctx): Promise<BuildResult> {
  const { conn } = ctx;
  const skipped: Record<string, number> = {};
  const derived: Record<string, number> = {};
  const skip = (file: string, n: number) => {
    skipped[file] = (skipped[file] ?? 0) + n;
    return n;
  };
  await conn.run(MACROS);
  for (const [file, r] of ctx.raw) if (r.rejectedLines.length) skip(file, r.rejectedLines.length); // csv_unparsable rows
  const t0 = performance.now();
  const step = (name: string) => ctx.progress(`${name} (${((performance.now() - t0) / 1000).toFixed(2)} s)`);

  // ---------------------------------------------------------------- agencies
  await conn.run(`CREATE TABLE a0 AS SELECT rowid AS rid, coalesce(agency_id, '') AS agency_id, * EXCLUDE (agency_id) FROM raw_agency`);
  if (skip("agency.txt", await reportSkipped(ctx, "duplicate_key", "agency.txt",
    `SELECT rid, agency_id FROM a0 QUALIFY row_number() OVER (PARTITION BY agency_id ORDER BY rid) > 1`, `'duplicate agency_id ' || agency_id`))) await conn.run(`DELETE FROM a0 WHERE rid IN (SELECT rid FROM a0 QUALIFY row_number() OVER (PARTITION BY agency_id ORDER BY rid) > 1)`);
  const nAg = await scalar(conn, `SELECT count(*) FROM a0`);
  if (nAg === 0) throw new DataError("no agency rows", "agency.txt");
  await reportSkipped(ctx, "missing_agency_timezone", "agency.txt", `SELECT rid FROM a0 WHERE agency_timezone IS NULL`, `'agency_timezone is empty; using the first agency timezone or UTC'`);
  const agBase = ctx.allocate("agencies", nAg);
  await conn.run(`CREATE TABLE agencies AS SELECT (${agBase} + row_number() OVER (ORDER BY rid) - 1)::INTEGER AS id, ${ctx.fvid}::INTEGER AS feed_version_id,
      agency_id, coalesce(agency_name, agency_id, '') AS agency_name, agency_url,
      coalesce(agency_timezone, (SELECT agency_timezone FROM a0 WHERE agency_timezone IS NOT NULL ORDER BY rid LIMIT 1), 'UTC') AS agency_timezone,
      agency_lang, agency_phone, agency_fare_url, agency_email, NULL::VARCHAR AS onestop_id, rid
    FROM a0 ORDER BY rid`);

  // ---------------------------------------------------------------- stops
  await conn.run(`CREATE TABLE s0 AS SELECT rowid AS rid, *, TRY_CAST(stop_lat AS DOUBLE) AS lat, TRY_CAST(stop_lon AS DOUBLE) AS lon,
      coalesce(gtfs_int(location_type), 0) AS lt FROM raw_stops`);
  if (skip("stops.txt", await reportSkipped(ctx, "missing_required_value", "stops.txt", `SELECT rid FROM s0 WHERE stop_id IS NULL`, `'stop_id is empty'`))) await conn.run(`DELETE FROM s0 WHERE stop_id IS NULL`);
  if (skip("stops.txt", await reportSkipped(ctx, "duplicate_key", "stops.txt",
    `SELECT rid, stop_id FROM s0 QUALIFY row_number() OVER (PARTITION BY stop_id ORDER BY rid) > 1`, `'duplicate stop_id ' || stop_id`))) await conn.run(`DELETE FROM s0 WHERE rid IN (SELECT rid FROM s0 QUALIFY row_number() OVER (PARTITION BY stop_id ORDER BY rid) > 1)`);
  const badCoord = `SELECT rid, stop_id, stop_lat, stop_lon FROM s0 WHERE lt IN (0, 1, 2) AND (lat IS NULL OR lon IS NULL OR lat NOT BETWEEN -90 AND 90 OR lon NOT BETWEEN -180 AND 180 OR (lat = 0 AND lon = 0))`;
  if (skip("stops.txt", await reportSkipped(ctx, "invalid_coordinates", "stops.txt", badCoord,
    `'stop ' || stop_id || ': invalid stop_lat/stop_lon (' || coalesce(stop_lat, '') || ',' || coalesce(stop_lon, '') || ')'`))) await conn.run(`DELETE FROM s0 WHERE rid IN (SELECT rid FROM (${badCoord}))`);
  await reportSkipped(ctx, "unknown_parent_station", "stops.txt",
    `SELECT rid, stop_id, parent_station FROM s0 WHERE parent_station IS NOT NULL AND parent_station NOT IN (SELECT stop_id FROM s0)`,
    `'stop ' || stop_id || ': parent_station ' || parent_station || ' does not exist (kept without parent)'`);
  // a stop whose parent_station chain leads back to it (its own parent, stations parented to each
  // other): the links on the cycle are dropped, the stops kept. UNION walks each (stop, ancestor)
  // pair once, so the walk ends on cycles.
  const cyclic = `SELECT rid, stop_id, parent_station FROM s0 WHERE stop_id IN (
      WITH RECURSIVE up(start, cur) AS (
        SELECT stop_id, parent_station FROM s0 WHERE parent_station IS NOT NULL
        UNION SELECT up.start, s.parent_station FROM up JOIN s0 s ON s.stop_id = up.cur WHERE s.parent_station IS NOT NULL)
      SELECT start FROM up WHERE cur = start)`;
  if (await reportSkipped(ctx, "circular_parent_station", "stops.txt", cyclic,
    `'stop ' || stop_id || ': parent_station ' || parent_station || CASE WHEN parent_station = stop_id THEN ' is the stop itself ('
      ELSE ' leads back to ' || stop_id || ' (a cycle; ' END || 'kept without parent)'`)) {
    await conn.run(`UPDATE s0 SET parent_station = NULL WHERE rid IN (SELECT rid FROM (${cyclic}))`);
  }
  const nStops = await scalar(conn, `SELECT count(*) FROM s0`);
  const stBase = ctx.allocate("stops", nStops);
  await conn.run(`CREATE TABLE stops AS
    WITH s1 AS (SELECT (${stBase} + row_number() OVER (ORDER BY rid) - 1)::INTEGER AS id, * FROM s0)
    SELECT s1.id, ${ctx.fvid}::INTEGER AS feed_version_id, s1.stop_id, s1.stop_code, s1.stop_name, s1.tts_stop_name, s1.stop_desc,
      coalesce(s1.lat, p.lat) AS stop_lat, coalesce(s1.lon, p.lon) AS stop_lon, s1.zone_id, s1.stop_url, s1.lt::INTEGER AS location_type,
      CASE WHEN p.id IS NULL THEN NULL ELSE s1.parent_station END AS parent_station, p.id AS parent_ref,
      s1.stop_timezone, gtfs_int(s1.wheelchair_boarding) AS wheelchair_boarding, s1.level_id, s1.platform_code,
      gtfs_int(s1.stop_access) AS stop_access, NULL::VARCHAR AS onestop_id
    FROM s1 LEFT JOIN s1 p ON p.stop_id = s1.parent_station ORDER BY s1.id`);
  step(`stops: ${nStops}`);

  // ---------------------------------------------------------------- routes
  await conn.run(`CREATE TABLE r0 AS SELECT rowid AS rid, *, gtfs_int(route_type) AS rt FROM raw_routes`);
  if (skip("routes.txt", await reportSkipped(ctx, "missing_required_value", "routes.txt", `SELECT rid FROM r0 WHERE route_id IS NULL`, `'route_id is empty'`))) await conn.run(`DELETE FROM r0 WHERE route_id IS NULL`);
  if (skip("routes.txt", await reportSkipped(ctx, "duplicate_key", "routes.txt",
    `SELECT rid, route_id FROM r0 QUALIFY row_number() OVER (PARTITION BY route_id ORDER BY rid) > 1`, `'duplicate route_id ' || route_id`))) await conn.run(`DELETE FROM r0 WHERE rid IN (SELECT rid FROM r0 QUALIFY row_number() OVER (PARTITION BY route_id ORDER BY rid) > 1)`);
  if (skip("routes.txt", await reportSkipped(ctx, "invalid_route_type", "routes.txt", `SELECT rid, route_id, route_type FROM r0 WHERE rt IS NULL OR rt < 0`,
    `'route ' || route_id || ': route_type ' || coalesce(route_type, '(empty)') || ' is not a GTFS route type'`))) await conn.run(`DELETE FROM r0 WHERE rt IS NULL OR rt < 0`);
  // agency_id may be omitted when the feed has one agency
  const single = nAg === 1 ? `(SELECT agency_id FROM agencies LIMIT 1)` : `NULL`;
  await conn.run(`ALTER TABLE r0 ADD COLUMN ag VARCHAR; UPDATE r0 SET ag = coalesce(agency_id, ${single}, '')`);
  // a feed whose only agency has no agency_id: routes naming one still belong to it
  if (nAg === 1 && (await scalar(conn, `SELECT count(*) FROM agencies WHERE agency_id = ''`)) === 1) await conn.run(`UPDATE r0 SET ag = ''`);
  const unkAg = `SELECT rid, route_id, ag FROM r0 WHERE ag NOT IN (SELECT agency_id FROM agencies)`;
  if (skip("routes.txt", await reportSkipped(ctx, "unknown_agency", "routes.txt", unkAg, `'route ' || route_id || ': agency_id ' || ag || ' does not exist'`))) await conn.run(`DELETE FROM r0 WHERE rid IN (SELECT rid FROM (${unkAg}))`);
  const nRoutes = await scalar(conn, `SELECT count(*) FROM r0`);
  const rtBase = ctx.allocate("routes", nRoutes);
  await conn.run(`CREATE TABLE routes AS SELECT (${rtBase} + row_number() OVER (ORDER BY r0.rid) - 1)::INTEGER AS id, ${ctx.fvid}::INTEGER AS feed_version_id,
      r0.route_id, r0.ag AS agency_id, a.id AS agency_ref, route_short_name, route_long_name, route_desc, rt::INTEGER AS route_type, route_url,
      upper(route_color) AS route_color, upper(route_text_color) AS route_text_color, gtfs_int(route_sort_order) AS route_sort_order,
      gtfs_int(continuous_pickup) AS continuous_pickup, gtfs_int(continuous_drop_off) AS continuous_drop_off, network_id, NULL::VARCHAR AS onestop_id
    FROM r0 JOIN agencies a ON a.agency_id = r0.ag ORDER BY r0.rid`);
  step(`routes: ${nRoutes}`);

  // ---------------------------------------------------------------- calendars
  await conn.run(`CREATE TABLE c0 AS SELECT rowid AS rid, service_id, gtfs_int(monday) AS mo, gtfs_int(tuesday) AS tu, gtfs_int(wednesday) AS we,
      gtfs_int(thursday) AS th, gtfs_int(friday) AS fr, gtfs_int(saturday) AS sa, gtfs_int(sunday) AS su,
      gtfs_date(start_date) AS sd, gtfs_date(end_date) AS ed, start_date, end_date FROM raw_calendar`);
  if (skip("calendar.txt", await reportSkipped(ctx, "duplicate_key", "calendar.txt",
    `SELECT rid, service_id FROM c0 QUALIFY row_number() OVER (PARTITION BY service_id ORDER BY rid) > 1`, `'duplicate service_id ' || service_id`))) await conn.run(`DELETE FROM c0 WHERE rid IN (SELECT rid FROM c0 QUALIFY row_number() OVER (PARTITION BY service_id ORDER BY rid) > 1)`);
  const badCal = `SELECT rid, service_id, start_date, end_date FROM c0 WHERE service_id IS NULL OR sd IS NULL OR ed IS NULL OR ed < sd
      OR NOT (list_value(mo, tu, we, th, fr, sa, su) <@ [0, 1]) OR mo IS NULL OR tu IS NULL OR we IS NULL OR th IS NULL OR fr IS NULL OR sa IS NULL OR su IS NULL`;
  if (skip("calendar.txt", await reportSkipped(ctx, "invalid_calendar", "calendar.txt", badCal,
    `'service ' || coalesce(service_id, '(empty)') || ': invalid dates or weekday flags (' || coalesce(start_date, '') || '..' || coalesce(end_date, '') || ')'`))) await conn.run(`DELETE FROM c0 WHERE rid IN (SELECT rid FROM (${badCal}))`);
  await conn.run(`CREATE TABLE cd0 AS SELECT rowid AS rid, service_id, gtfs_date(date) AS d, gtfs_int(exception_type) AS et, date FROM raw_calendar_dates`);
  const badCd = `SELECT rid, service_id, date FROM cd0 WHERE service_id IS NULL OR d IS NULL OR et IS NULL OR et NOT IN (1, 2)`;
  if (skip("calendar_dates.txt", await reportSkipped(ctx, "invalid_calendar_date", "calendar_dates.txt", badCd,
    `'service ' || coalesce(service_id, '(empty)') || ': invalid date or exception_type on ' || coalesce(date, '(empty)')`))) await conn.run(`DELETE FROM cd0 WHERE rid IN (SELECT rid FROM (${badCd}))`);
  if (skip("calendar_dates.txt", await reportSkipped(ctx, "duplicate_key", "calendar_dates.txt",
    `SELECT rid, service_id, date FROM cd0 QUALIFY row_number() OVER (PARTITION BY service_id, d ORDER BY rid) > 1`, `'duplicate service_id/date ' || service_id || ' ' || date`))) await conn.run(`DELETE FROM cd0 WHERE rid IN (SELECT rid FROM cd0 QUALIFY row_number() OVER (PARTITION BY service_id, d ORDER BY rid) > 1)`);
  await conn.run(`CREATE TABLE cal_ids AS
    SELECT service_id, min(o) AS o FROM (SELECT service_id, rid AS o FROM c0 UNION ALL SELECT service_id, 1e12 + rid AS o FROM cd0) GROUP BY service_id`);
  const nCal = await scalar(conn, `SELECT count(*) FROM cal_ids`);
  const calBase = ctx.allocate("calendars", nCal);
  await conn.run(`CREATE TABLE calendars AS
    WITH ex AS (SELECT service_id, list(d ORDER BY d) FILTER (WHERE et = 1) AS added, list(d ORDER BY d) FILTER (WHERE et = 2) AS removed,
                       min(d) AS mind, max(d) AS maxd FROM cd0 GROUP BY service_id)
    SELECT (${calBase} + row_number() OVER (ORDER BY i.o) - 1)::INTEGER AS id, ${ctx.fvid}::INTEGER AS feed_version_id, i.service_id,
      coalesce(c.mo, 0)::INTEGER AS monday, coalesce(c.tu, 0)::INTEGER AS tuesday, coalesce(c.we, 0)::INTEGER AS wednesday,
      coalesce(c.th, 0)::INTEGER AS thursday, coalesce(c.fr, 0)::INTEGER AS friday, coalesce(c.sa, 0)::INTEGER AS saturday, coalesce(c.su, 0)::INTEGER AS sunday,
      coalesce(c.sd, ex.mind) AS start_date, coalesce(c.ed, ex.maxd) AS end_date,
      coalesce(ex.added, []::DATE[]) AS added_dates, coalesce(ex.removed, []::DATE[]) AS removed_dates, c.service_id IS NULL AS generated
    FROM cal_ids i LEFT JOIN c0 c USING (service_id) LEFT JOIN ex USING (service_id) ORDER BY i.o`);
  derived.calendars_from_calendar_dates = await scalar(conn, `SELECT count(*) FROM calendars WHERE generated`);

  // ---------------------------------------------------------------- shapes
  // (sh0 and shape_ids: buildShapes, on another connection while the trips and stop_times are read
  // when the importer started it, here otherwise; awaited before the trips' shape_ids are checked)
  const shapes: Promise<ShapesBuilt> | ShapesBuilt = ctx.shapes ?? (await buildShapes(ctx));

  // ---------------------------------------------------------------- trips
  // the raw table itself, with its rowid (the line) as rid: no copy of every string
  await conn.run(`ALTER TABLE raw_trips RENAME TO t0; ALTER TABLE t0 ADD COLUMN rid BIGINT; UPDATE t0 SET rid = rowid`);
  if (skip("trips.txt", await reportSkipped(ctx, "missing_required_value", "trips.txt", `SELECT rid FROM t0 WHERE trip_id IS NULL`, `'trip_id is empty'`))) await conn.run(`DELETE FROM t0 WHERE trip_id IS NULL`);
  if (skip("trips.txt", await reportSkipped(ctx, "duplicate_key", "trips.txt",
    `SELECT rid, trip_id FROM t0 QUALIFY row_number() OVER (PARTITION BY trip_id ORDER BY rid) > 1`, `'duplicate trip_id ' || trip_id`))) await conn.run(`DELETE FROM t0 WHERE rid IN (SELECT rid FROM t0 QUALIFY row_number() OVER (PARTITION BY trip_id ORDER BY rid) > 1)`);
  const unkRoute = `SELECT rid, trip_id, route_id FROM t0 WHERE route_id IS NULL OR route_id NOT IN (SELECT route_id FROM routes)`;
  if (skip("trips.txt", await reportSkipped(ctx, "unknown_route", "trips.txt", unkRoute, `'trip ' || trip_id || ': route_id ' || coalesce(route_id, '(empty)') || ' does not exist'`))) await conn.run(`DELETE FROM t0 WHERE rid IN (SELECT rid FROM (${unkRoute}))`);
  const unkSvc = `SELECT rid, trip_id, service_id FROM t0 WHERE service_id IS NULL OR service_id NOT IN (SELECT service_id FROM calendars)`;
  if (skip("trips.txt", await reportSkipped(ctx, "unknown_service", "trips.txt", unkSvc, `'trip ' || trip_id || ': service_id ' || coalesce(service_id, '(empty)') || ' is in neither calendar.txt nor calendar_dates.txt'`))) await conn.run(`DELETE FROM t0 WHERE rid IN (SELECT rid FROM (${unkSvc}))`);
  // tix = the trip's rank in file order; when no row was deleted (rid runs 0 .. n - 1, t0 is in rid
  // order) that is rid + 1, with no window, no sort and no copy of the table (a column added)
  const dense = await scalar(conn, `SELECT (count(*) = 0 OR (min(rid) = 0 AND max(rid) = count(*) - 1))::INTEGER FROM t0`);
  await conn.run(dense
    ? `ALTER TABLE t0 RENAME TO t1; ALTER TABLE t1 ADD COLUMN tix INTEGER; UPDATE t1 SET tix = (rid + 1)::INTEGER`
    : `CREATE TABLE t1 AS SELECT row_number() OVER (ORDER BY rid)::INTEGER AS tix, * FROM t0 ORDER BY rid`);
  step(`trips: ${await scalar(conn, "SELECT count(*) FROM t1")}`);

  // Trip ids are allocated for every candidate trip (id = base + tix - 1), so stop_times get their
  // trip_ref by arithmetic instead of a join; trips skipped below leave gaps, which is harmless.
  const trBase = ctx.allocate("trips", await scalar(conn, `SELECT count(*) FROM t1`));

  // ---------------------------------------------------------------- stop_times
  // st0 is in (trip, stop_sequence) order; deletes and updates keep that order, so stop_times.parquet
  // is written without a second sort. Many feeds (the MTA's, 12 of the 19 test feeds) list stop_times
  // trip by trip in trips.txt order already: st0 is then read in file order and not sorted at all. The trip and stop references come
  // from ENUM types over trips.txt and stops.txt (a lookup per row that keeps the row order, which a
  // join does not); an ENUM value's code is its position, so tix = code + 1 and stop_ref = first id + code.
  // On the raw path the raw strings stay in raw_stop_times (messages look them up by rid); the direct
  // path (stopTimesDirect) is only taken when no message needs them.
  const stopBase = await enumLookups(conn);
  // GTFS-Flex rows (location_id / location_group_id instead of stop_id), when the file has those columns
  const stFlex = (present: (col: string) => boolean) =>
    present("location_id") || present("location_group_id") ? `, (st.location_id IS NOT NULL OR st.location_group_id IS NOT NULL) AS flex` : "";
  // st0's columns over a row `st` that has the ENUM values trip_e and stop_e (withEnums casts each
  // once per row): trip_id and stop_id are kept as ENUM values (a code each, not a copy of the
  // strings; NULL for unknown ids, whose messages read the raw strings)
  const stEnumCols = (base: number, present: (col: string) => boolean, badTime: boolean) => `st.trip_e AS trip_id, st.stop_e AS stop_id, ${stTimeCols(present, badTime)},
        enum_code(st.trip_e)::INTEGER + 1 AS tix, enum_code(st.stop_e)::INTEGER + ${base} AS stop_ref${stFlex(present)}`;
  const withEnums = (rel: string, extra = "") => `(SELECT *${extra}, TRY_CAST(trip_id AS trip_enum) AS trip_e, TRY_CAST(stop_id AS stop_enum) AS stop_e FROM ${rel})`;
  // stop_times.txt is read here (loadRawTables deferred it): straight into st0 when it can be
  // (stopTimesDirect), else into raw_stop_times like the other files
  const stRaw = ctx.raw.get("stop_times.txt")!;
  let direct = false;
  let readBy = "direct";
  // st0's rows as the fast reader's path appended them, while st0 still holds exactly those (in order)
  let fastRows: FastRows | null = null;
  // the file's columns (st0 keeps the optional ones it has; raw_stop_times has every column, NULL when absent)
  let present: (col: string) => boolean = () => true;
  // (loaded here, not with this module: it loads DuckDB's binding, which `interchange import` loads
  // while the zip is unpacked, see pipeline/import.ts)
  const fastAppend = ctx.fastStopTimes ? await import("./stop-times-append.ts") : null;
  if (stRaw.deferred) {
    // the fast reader's columns when it took the file (stop-times-fast.ts), else DuckDB reads it
    if (stopBase !== null && ctx.fastStopTimes && fastAppend) {
      // (the ids' positions are read while the worker may still be reading the file)
      const ids = fastAppend.idPositions(conn, stopBase);
      const fast = await ctx.fastStopTimes;
      const read = "declined" in fast ? (await ids, fast.declined) : await stopTimesFast(ctx, stRaw, fast, await ids, fastAppend.appendFastStopTimes);
      if (typeof read === "string") ctx.progress(`stop_times.txt: read with DuckDB (the fast reader declined: ${read})`);
      else {
        [fastRows, direct, readBy] = [read, true, "fast"];
        present = (col) => (fast as FastStopTimes).header.includes(col);
      }
    }
    if (!direct) {
      await ctx.stopTimesFile?.();
      const plan = await openDeferred(conn, stRaw);
      if (!plan) throw new DataError("required file is missing", "stop_times.txt"); // required: openDeferred throws first
      present = (col) => plan.presentCols.includes(col);
      if (stopBase !== null) direct = await stopTimesDirect(ctx, stRaw, plan, stEnumCols(stopBase, present, false), withEnums);
      if (!direct) await loadDeferred(conn, stRaw, plan, ctx.issues);
    }
    skip("stop_times.txt", stRaw.rejectedLines.length); // csv_unparsable rows
  }
  let order = "sorted";
  if (stopBase !== null) {
    if (!direct) await conn.run(`CREATE TABLE st0 AS SELECT st.rid, ${stEnumCols(stopBase, present, true)} FROM ${withEnums("raw_stop_times", ", rowid AS rid")} st`);
    // rows out of (tix, stop_sequence) order in the file (the comparison is with the previous row
    // that has both; rows without are skipped below): sort
    const unordered = fastRows ? (fastAppend!.fastInOrder(fastRows) ? 0 : 1) : await scalar(conn, `SELECT count(*) FROM (SELECT k, lag(k IGNORE NULLS) OVER () AS pk
      FROM (SELECT CASE WHEN seq >= 0 THEN (tix::BIGINT << 32) + seq END AS k FROM st0)) WHERE k <= pk`);
    if (unordered > 0) {
      await conn.run(`CREATE OR REPLACE TABLE st0 AS SELECT * FROM st0 ORDER BY tix, seq`);
      fastRows = null;
    } else if (!fastRows?.sorted) order = "in file order";
  } else {
    await conn.run(`CREATE TABLE st0 AS SELECT st.rowid AS rid, st.trip_id, st.stop_id, ${stTimeCols(present, true)}, t.tix, s.id AS stop_ref${stFlex(present)}
      FROM raw_stop_times st LEFT JOIN t1 t ON t.trip_id = st.trip_id LEFT JOIN stops s ON s.stop_id = st.stop_id
      ORDER BY tix, seq`);
  }
  // st0 keeps only the optional columns the file has (and bad_time, flex only where they can be
  // true): the others are named as typed NULLs (or false)
  const stHas = new Set(fastRows?.columns ?? (await rows(conn, `SELECT column_name FROM duckdb_columns() WHERE table_name = 'st0'`)).map((r) => String(r.column_name)));
  const stCol = (col: string, absent: string) => (stHas.has(col) ? col : absent);
  // the shapes, and trips naming a shape that does not exist (their shape is generated)
  const sh = await shapes;
  ctx.issues.absorb(sh.issues);
  skip("shapes.txt", sh.skipped);
  await reportSkipped(ctx, "unknown_shape", "trips.txt", `SELECT rid, trip_id, shape_id FROM t1 WHERE shape_id IS NOT NULL AND shape_id NOT IN (SELECT shape_id FROM shape_ids)`,
    `'trip ' || trip_id || ': shape_id ' || shape_id || ' does not exist (a shape is generated from the stops)'`);
  await conn.run(`UPDATE t1 SET shape_id = NULL WHERE shape_id IS NOT NULL AND shape_id NOT IN (SELECT shape_id FROM shape_ids)`);
  step(`stop_times read: ${await scalar(conn, "SELECT count(*) FROM st0")} (${order}${direct ? `, ${readBy}` : ""})`);
  const rawSt = (col: string) => `(SELECT r.${col} FROM raw_stop_times r WHERE r.rowid = rid)`;
  const stSkip = async (kind: string, where: string, msg: string) => {
    const n = await reportSkipped(ctx, kind, "stop_times.txt", `SELECT * FROM st0 WHERE ${where}`, msg);
    skip("stop_times.txt", n);
    if (n) {
      await conn.run(`DELETE FROM st0 WHERE ${where}`);
      fastRows = null;
    }
  };
  await stSkip("unknown_trip", "tix IS NULL",
    `'stop_time of trip ' || coalesce(${rawSt("trip_id")}, '(empty)') || ': trip does not exist or was skipped'`);
  await stSkip("flex_stop_time_unsupported", `stop_ref IS NULL AND ${stCol("flex", "false")}`,
    `'trip ' || trip_id || ': GTFS-Flex stop_time (location_id/location_group_id) is not supported yet'`);
  await stSkip("unknown_stop", "stop_ref IS NULL", `'trip ' || trip_id || ': stop_id ' || coalesce(${rawSt("stop_id")}, '(empty)') || ' does not exist'`);
  await stSkip("invalid_stop_sequence", "seq IS NULL OR seq < 0", `'trip ' || trip_id || ': stop_sequence ' || coalesce(${rawSt("stop_sequence")}, '(empty)') || ' is not a non-negative integer'`);
  // One pass per trip (in stop_sequence order) finds duplicate stop_sequences and the trips that
  // cannot be used (< 2 stop_times, no time at the first or last stop, times going backwards), and
  // computes what the stop patterns need: first departure, last arrival, and a digest of the
  // (position, stop) pairs. Unparsable times count as missing; a time missing on one side takes the
  // other's. Later steps delete whole trips and interpolate interior times between earlier and
  // later ones, which changes none of these values for the trips that remain.
  const tripCheckSql = `CREATE OR REPLACE TABLE trip_check AS
    WITH o AS (SELECT tix, seq, stop_ref, coalesce(arr, dep) AS a, coalesce(dep, arr) AS d, row_number() OVER w AS k,
                      count(*) OVER (PARTITION BY tix) AS n, lag(coalesce(dep, arr) IGNORE NULLS) OVER w AS prev_dep, lag(seq) OVER w AS prev_seq
               FROM st0 WINDOW w AS (PARTITION BY tix ORDER BY seq))
    SELECT tix, max(n)::INTEGER AS n,
      bool_or(seq = prev_seq) AS dup_seq,
      bool_or((k = 1 OR k = n) AND a IS NULL) AS missing_terminal,
      bool_or(a > d OR a < prev_dep) AS backwards,
      bool_or(a IS NULL) AS needs_interp,
      min(d) AS first_dep, max(a) AS last_arr, sum(hash(k, stop_ref)) AS h1, bit_xor(hash(stop_ref, k, 'stop pattern')) AS h2
    FROM o GROUP BY tix`;
  // (from the fast reader's rows when st0 still holds exactly them, in order: no sort, no window)
  if (!fastRows || (await fastAppend!.fastTripCheck(conn, fastRows)) !== null) await conn.run(tripCheckSql);
  if ((await scalar(conn, `SELECT count(*) FROM trip_check WHERE dup_seq`)) > 0) {
    const dupSt = `rid IN (SELECT rid FROM st0 QUALIFY row_number() OVER (PARTITION BY tix, seq ORDER BY rid) > 1)`;
    await stSkip("duplicate_key", dupSt, `'trip ' || trip_id || ': duplicate stop_sequence ' || seq`);
    await conn.run(tripCheckSql);
  }
  // unparsable times become missing (then interpolated between their neighbours)
  await reportSkipped(ctx, "invalid_time", "stop_times.txt", `SELECT * FROM st0 WHERE ${stCol("bad_time", "false")}`,
    `'trip ' || trip_id || ' stop_sequence ' || seq || ': unparsable time ' || coalesce(${rawSt("arrival_time")}, '') || '/' || coalesce(${rawSt("departure_time")}, '') || ' (treated as missing and interpolated)'`);
  await conn.run(`UPDATE st0 SET arr = coalesce(arr, dep), dep = coalesce(dep, arr) WHERE arr IS NULL OR dep IS NULL`);
  // no message needs the raw strings any more: give their memory to the steps that follow
  await conn.run(`DROP TABLE IF EXISTS raw_stop_times`);

  const badTrip = async (kind: string, cond: string, msg: string) => {
    const fromSql = `SELECT t.rid, t.trip_id FROM t1 t JOIN trip_check c USING (tix) WHERE ${cond}`;
    const n = await reportSkipped(ctx, kind, "trips.txt", fromSql, msg);
    if (n) {
      skip("trips.txt", n);
      const stN = await scalar(conn, `SELECT count(*) FROM st0 WHERE tix IN (SELECT tix FROM trip_check c WHERE ${cond})`);
      ctx.issues.add("stop_time_of_skipped_trip", { file: "stop_times.txt", message: `${stN} stop_times of trips skipped as ${kind}` }, stN);
      skip("stop_times.txt", stN);
      await conn.run(`DELETE FROM st0 WHERE tix IN (SELECT tix FROM trip_check c WHERE ${cond})`);
      fastRows = null;
      await conn.run(`DELETE FROM t1 WHERE tix IN (SELECT tix FROM trip_check c WHERE ${cond})`);
      await conn.run(`DELETE FROM trip_check c WHERE ${cond}`);
    }
  };
  await badTrip("too_few_stop_times", "c.n < 2", `'trip ' || trip_id || ': fewer than 2 usable stop_times'`);
  await badTrip("missing_terminal_time", "c.missing_terminal", `'trip ' || trip_id || ': first or last stop has no arrival/departure time'`);
  await badTrip("decreasing_times", "c.backwards", `'trip ' || trip_id || ': times go backwards along the trip'`);
  const noStopTimes = `SELECT rid, trip_id FROM t1 WHERE tix NOT IN (SELECT tix FROM trip_check)`;
  const nNoSt = await reportSkipped(ctx, "trip_without_stop_times", "trips.txt", noStopTimes, `'trip ' || trip_id || ': has no stop_times'`);
  skip("trips.txt", nNoSt);
  if (nNoSt) await conn.run(`DELETE FROM t1 WHERE tix NOT IN (SELECT tix FROM trip_check)`);

  // interpolation of missing times by distance along the shape (pipeline/gtfs/interpolate.ts)
  const nInterpTrips = await scalar(conn, `SELECT count(*) FROM trip_check WHERE needs_interp`);
  let interpolated = 0;
  // (a column only when some time is interpolated: otherwise the view says 0 for every row)
  if (nInterpTrips > 0) {
    await conn.run(`ALTER TABLE st0 ADD COLUMN interpolated INTEGER DEFAULT 0`);
    interpolated = await interpolateMissing(conn, stHas.has("shape_dist_traveled") ? "st.shape_dist_traveled" : "NULL::DOUBLE");
  }
  derived.interpolated_stop_times = interpolated;
  step(`stop_times checked (${interpolated} interpolated)`);
  // st0 is final from here on (only read): the Parquet writer reads it through a view, in st0's
  // order, without a copy of 2.4 M rows, and may start now
  await conn.run(`CREATE VIEW stop_times AS
    SELECT ${ctx.fvid}::INTEGER AS feed_version_id, (${trBase} + st.tix - 1)::INTEGER AS trip_ref, st.trip_id, st.seq::INTEGER AS stop_sequence, st.stop_ref, st.stop_id,
      st.arr::INTEGER AS arrival_time, st.dep::INTEGER AS departure_time, ${ST_OPTIONAL.map(([c, , type]) => `${stCol(c, `NULL::${type}`)} AS ${c}`).join(", ")},
      ${nInterpTrips > 0 ? "st.interpolated::INTEGER" : "0::INTEGER"} AS interpolated
    FROM st0 st`);
  // (and when st0 still holds exactly the fast reader's rows, the timetable takes its columns from them)
  const rowsNow = nInterpTrips === 0 ? fastRows : null;
  ctx.stopTimesReady?.(rowsNow ? () => fastAppend!.timetableColumns(rowsNow, trBase) : null);

  // ---------------------------------------------------------------- final trip ids, stop patterns
  const nTrips = await scalar(conn, `SELECT count(*) FROM t1`);
  await conn.run(`CREATE TABLE trip_ids AS SELECT tix, (${trBase} + tix - 1)::INTEGER AS id FROM t1`);
  // A trip's stop pattern is its stop sequence. Building a list per trip (an ordered aggregate over
  // every stop_time) costs a sort per group; instead trips are grouped by a 128-bit digest of their
  // (position, stop) pairs (two independent 64-bit hashes, plus the count; trip_check above) and the
  // list is built once per pattern, from its first trip.
  await conn.run(`CREATE TABLE pat_key AS SELECT n, h1, h2, min(tix) AS rep, row_number() OVER (ORDER BY min(tix))::INTEGER AS stop_pattern_id,
      count(*)::INTEGER AS trip_count FROM trip_check GROUP BY n, h1, h2`);
  await conn.run(`CREATE TABLE trip_pat AS SELECT c.tix, c.first_dep, c.last_arr, c.n, k.stop_pattern_id FROM trip_check c JOIN pat_key k USING (n, h1, h2)`);
  await conn.run(`CREATE TABLE patterns AS SELECT k.stop_pattern_id, k.trip_count, list(st.stop_ref ORDER BY st.seq) AS pat
    FROM pat_key k JOIN st0 st ON st.tix = k.rep GROUP BY k.stop_pattern_id, k.trip_count`);
  await conn.run(`DROP TABLE pat_key`);
  await conn.run(`CREATE TABLE stop_patterns AS SELECT ${ctx.fvid}::INTEGER AS feed_version_id, stop_pattern_id, pat AS stop_refs, trip_count FROM patterns ORDER BY stop_pattern_id`);
  // generated shapes: one per stop pattern used by trips without a shape
  await conn.run(`CREATE TABLE gen_pat AS SELECT DISTINCT p.stop_pattern_id, p.pat FROM t1 JOIN trip_pat tp USING (tix) JOIN patterns p USING (stop_pattern_id) WHERE t1.shape_id IS NULL`);
  derived.generated_shapes = await scalar(conn, `SELECT count(*) FROM gen_pat`);
  await conn.run(`CREATE TABLE shapes AS
    SELECT ${ctx.fvid}::INTEGER AS feed_version_id, shape_id, seq::INTEGER AS shape_pt_sequence, lat AS shape_pt_lat, lon AS shape_pt_lon,
           dist AS shape_dist_traveled, false AS generated FROM sh0
    UNION ALL
    SELECT ${ctx.fvid}::INTEGER, 'generated-' || stop_pattern_id, (k - 1)::INTEGER, lat, lon,
           coalesce(sum(hop) OVER (PARTITION BY stop_pattern_id ORDER BY k ROWS UNBOUNDED PRECEDING), 0), true
    FROM (SELECT *, coalesce(hav_m(lag(lat) OVER w, lag(lon) OVER w, lat, lon), 0) AS hop FROM (
            SELECT g.stop_pattern_id, u.k, s.stop_lat AS lat, s.stop_lon AS lon
            FROM gen_pat g, unnest(g.pat) WITH ORDINALITY AS u(sref, k) JOIN stops s ON s.id = u.sref) WINDOW w AS (PARTITION BY stop_pattern_id ORDER BY k))
    ORDER BY shape_id, shape_pt_sequence`);
  await conn.run(`CREATE TABLE trips AS
    SELECT i.id, ${ctx.fvid}::INTEGER AS feed_version_id, t.trip_id, t.route_id, r.id AS route_ref, t.service_id, c.id AS calendar_ref,
      t.trip_headsign, t.trip_short_name, gtfs_int(t.direction_id) AS direction_id, t.block_id,
      coalesce(t.shape_id, 'generated-' || p.stop_pattern_id) AS shape_id,
      gtfs_int(t.wheelchair_accessible) AS wheelchair_accessible, gtfs_int(t.bikes_allowed) AS bikes_allowed, gtfs_int(t.cars_allowed) AS cars_allowed,
      p.stop_pattern_id, tp.first_dep AS first_departure, tp.last_arr AS last_arrival, tp.n AS stop_count
    FROM t1 t JOIN trip_ids i USING (tix) JOIN trip_pat tp USING (tix) JOIN patterns p USING (stop_pattern_id)
      JOIN routes r ON r.route_id = t.route_id JOIN calendars c ON c.service_id = t.service_id
    ORDER BY i.id`);
  step(`trips: ${nTrips}, stop_times: ${await scalar(conn, "SELECT count(*) FROM stop_times")}`);

  // ---------------------------------------------------------------- frequencies, transfers, feed_info
  await conn.run(`CREATE TABLE f0 AS SELECT f.rowid AS rid, f.*, gtfs_time(start_time) AS st, gtfs_time(end_time) AS et, gtfs_int(headway_secs) AS hw,
      gtfs_int(exact_times) AS ex, t.id AS trip_ref FROM raw_frequencies f LEFT JOIN trips t USING (trip_id)`);
  const fSkip = async (kind: string, where: string, msg: string) => {
    const n = await reportSkipped(ctx, kind, "frequencies.txt", `SELECT * FROM f0 WHERE ${where}`, msg);
    skip("frequencies.txt", n);
    if (n) await conn.run(`DELETE FROM f0 WHERE ${where}`);
  };
  await fSkip("unknown_trip", "trip_ref IS NULL", `'frequency of trip ' || coalesce(trip_id, '(empty)') || ': trip does not exist or was skipped'`);
  await fSkip("invalid_frequency", "st IS NULL OR et IS NULL OR hw IS NULL OR hw <= 0 OR et < st",
    `'trip ' || trip_id || ': invalid start_time/end_time/headway_secs ' || coalesce(start_time, '') || ' ' || coalesce(end_time, '') || ' ' || coalesce(headway_secs, '')`);
  await conn.run(`CREATE TABLE frequencies AS SELECT ${ctx.fvid}::INTEGER AS feed_version_id, trip_ref, trip_id, st::INTEGER AS start_time, et::INTEGER AS end_time,
      hw::INTEGER AS headway_secs, ex::INTEGER AS exact_times FROM f0 ORDER BY trip_ref, start_time`);

  await conn.run(`CREATE TABLE x0 AS SELECT x.rowid AS rid, x.*, fs.id AS from_ref, ts.id AS to_ref FROM raw_transfers x
      LEFT JOIN stops fs ON fs.stop_id = x.from_stop_id LEFT JOIN stops ts ON ts.stop_id = x.to_stop_id`);
  const unkX = `SELECT * FROM x0 WHERE (from_stop_id IS NOT NULL AND from_ref IS NULL) OR (to_stop_id IS NOT NULL AND to_ref IS NULL)`;
  if (skip("transfers.txt", await reportSkipped(ctx, "unknown_stop", "transfers.txt", unkX,
    `'transfer ' || coalesce(from_stop_id, '') || ' -> ' || coalesce(to_stop_id, '') || ': stop does not exist'`))) await conn.run(`DELETE FROM x0 WHERE rid IN (SELECT rid FROM (${unkX}))`);
  // an unparsable (or negative) min_transfer_time is reported and left out; the transfer is kept
  const mtt = `CASE WHEN gtfs_int(min_transfer_time) >= 0 THEN gtfs_int(min_transfer_time) END`;
  await reportSkipped(ctx, "invalid_min_transfer_time", "transfers.txt", `SELECT * FROM x0 WHERE min_transfer_time IS NOT NULL AND ${mtt} IS NULL`,
    `'transfer ' || coalesce(from_stop_id, '') || ' -> ' || coalesce(to_stop_id, '') || ': min_transfer_time ' || min_transfer_time || ' is not a non-negative integer (kept without it)'`);
  await conn.run(`CREATE TABLE transfers AS SELECT ${ctx.fvid}::INTEGER AS feed_version_id, from_stop_id, to_stop_id, from_ref AS from_stop_ref, to_ref AS to_stop_ref,
      from_route_id, to_route_id, from_trip_id, to_trip_id, coalesce(gtfs_int(transfer_type), 0) AS transfer_type, ${mtt} AS min_transfer_time
    FROM x0 ORDER BY rid`);
  await conn.run(`CREATE TABLE feed_info AS SELECT ${ctx.fvid}::INTEGER AS feed_version_id, feed_publisher_name, feed_publisher_url, feed_lang, default_lang,
      gtfs_date(feed_start_date) AS feed_start_date, gtfs_date(feed_end_date) AS feed_end_date, feed_version, feed_contact_email, feed_contact_url FROM raw_feed_info LIMIT 1`);

  // ---------------------------------------------------------------- links for served_by_*
  await conn.run(`CREATE TABLE route_stops AS
    SELECT DISTINCT ${ctx.fvid}::INTEGER AS feed_version_id, t.route_ref, u.stop_ref, r.agency_ref, r.route_type, NULL::VARCHAR AS route_onestop_id
    FROM (SELECT DISTINCT route_ref, stop_pattern_id FROM trips) t JOIN stop_patterns p USING (stop_pattern_id),
         unnest(p.stop_refs) AS u(stop_ref), routes r WHERE r.id = t.route_ref ORDER BY u.stop_ref, t.route_ref`);
  await conn.run(`CREATE TABLE agency_stops AS SELECT DISTINCT ${ctx.fvid}::INTEGER AS feed_version_id, agency_ref, stop_ref, NULL::VARCHAR AS agency_onestop_id
    FROM route_stops ORDER BY stop_ref, agency_ref`);
  step("links");

  const counts: Record<string, number> = {};
  for (const t of ["agencies", "routes", "stops", "trips", "stop_times", "shapes", "calendars", "frequencies", "transfers", "feed_info", "stop_patterns", "route_stops", "agency_stops"]) {
    counts[t] = await scalar(conn, `SELECT count(*) FROM ${t}`);
  }
  return { counts, derived, skipped };
}

/**
 * stop_times.txt read straight into st0 (`cols`: st0's columns over the reader's row `st`), without
 * the raw table of strings the other files get: on a clean file the rows are exactly those the raw
 * path gives (the same conversions of the same strings). Anything trimming could change, or whose
 * message needs the raw strings, makes a row "suspect": an id not found (ENUM cast failed), a value
 * that does not convert, a negative stop_sequence, a kept string with leading or trailing
 * whitespace (or empty), and so does a line that is not UTF-8 or a quoted newline; then st0 is
 * dropped and false returned, and the caller takes the raw path. Rows the reader rejects are
 * recorded as for any file; st0 gets `rid` (its rowid: rows are inserted in file order).
 */
async function stopTimesDirect(ctx: Ctx, table: RawTable, plan: CsvPlan, cols: string, withEnums: (rel: string) => string): Promise<boolean> {
  const { conn } = ctx;
  const rej = "rej_stop_times_direct";
  const drop = () => conn.run(`DROP TABLE IF EXISTS st0; DROP TABLE IF EXISTS ${rej}; DROP TABLE IF EXISTS ${rej}_scan`);
  const has = (c: string) => plan.presentCols.includes(c);
  const unconverted = (c: string, conv: string) => (has(c) ? [`(st.${c} IS NOT NULL AND ${conv} IS NULL)`] : []);
  const suspect = [
    "tix IS NULL", "stop_ref IS NULL", "seq IS NULL", "seq < 0", BAD_TIME,
    ...ST_OPTIONAL.filter(([c]) => c !== "stop_headsign").flatMap(([c, conv]) => unconverted(c, conv)),
    ...(has("stop_headsign") ? [untrimmed("st.stop_headsign")] : []),
    ...(plan.presentCols.includes(plan.first) ? [] : [untrimmed(`st.${q(plan.first)}`)]),
  ].join(" OR ");
  try {
    await conn.run(`CREATE TABLE st0 AS SELECT ${cols}, (${suspect}) AS suspect FROM ${withEnums(`(SELECT ${plan.select} FROM ${csvReader(plan, rej, true, "utf-8")})`)} st`);
    const bad = await scalar(conn, `SELECT (SELECT count(*) FROM st0 WHERE suspect) + (SELECT count(*) FROM ${rej} WHERE error_type = 'INVALID ENCODING')`);
    if (bad > 0) {
      await drop();
      return false;
    }
  } catch {
    // e.g. a newline inside a quoted value, which the parallel reader refuses: the raw path copes
    await drop();
    return false;
  }
  await recordRejects(conn, table, rej, await scalar(conn, `SELECT count(*) FROM st0`), ctx.issues);
  await conn.run(`ALTER TABLE st0 ADD COLUMN rid BIGINT; UPDATE st0 SET rid = rowid`);
  return true;
}

/**
 * stop_times.txt into st0 from the fast reader's columns (stop-times-append.ts), with what
 * stopTimesDirect records besides: the row count, no rejected rows, no line map (the fast reader
 * takes no file with quotes or blank lines). Its rows when done, else why not (nothing created).
 */
async function stopTimesFast(
  ctx: Ctx, table: RawTable, fast: FastStopTimes, ids: IdPositions, append: typeof import("./stop-times-append.ts").appendFastStopTimes,
): Promise<FastRows | string> {
  const optional = ST_OPTIONAL.filter(([c]) => fast.header.includes(c));
  const rows = await append(ctx.conn, ctx.connect, fast, ids, optional.map(([c, , t]) => [c, t] as const));
  if (typeof rows === "string") return rows;
  table.deferred = undefined;
  table.rows = fast.rows;
  table.rejectedLines = [];
  table.lineMap = null;
  return rows;
}

/**
 * Create the ENUM types trip_enum (t1.trip_id in tix order) and stop_enum (stops.stop_id in id
 * order) for st0's lookups, when their codes give tix (code + 1) and the stop id (first id + code):
 * ids contiguous, keys unique and non-null (checked, and so are the codes themselves). Returns the
 * first stop id, or null when the lookups cannot be used (st0 then joins).
 */
async function enumLookups(conn: DuckDBConnection): Promise<number | null> {
  const ok = async (sql: string) => (await scalar(conn, sql)) === 1;
  const trips = `SELECT (count(*) > 0 AND count(DISTINCT trip_id) = count(*) AND min(tix) = 1 AND max(tix) = count(*))::INTEGER FROM t1`;
  const stops = `SELECT (count(*) > 0 AND count(DISTINCT stop_id) = count(*) AND max(id) - min(id) + 1 = count(*))::INTEGER FROM stops`;
  if (!(await ok(trips)) || !(await ok(stops))) return null;
  try {
    await conn.run(`CREATE TYPE trip_enum AS ENUM (SELECT trip_id FROM t1 ORDER BY tix)`);
    await conn.run(`CREATE TYPE stop_enum AS ENUM (SELECT stop_id FROM stops ORDER BY id)`);
    const base = await scalar(conn, `SELECT min(id) FROM stops`);
    const codesOk =
      (await ok(`SELECT (count(*) = 0)::INTEGER FROM t1 WHERE enum_code(trip_id::trip_enum)::INTEGER + 1 <> tix`)) &&
      (await ok(`SELECT (count(*) = 0)::INTEGER FROM stops WHERE enum_code(stop_id::stop_enum)::INTEGER + ${base} <> id`));
    return codesOk ? base : null;
  } catch {
    // whatever DuckDB refuses here, the join always works
    return null;
  }
}

/** `shapeDist`: st0's shape_dist_traveled over `st` (or a NULL when the file has none) */
async function interpolateMissing(conn: DuckDBConnection, shapeDist: string): Promise<number> {
  const stRows = await rows(conn, `SELECT st.rid, st.tix, st.arr, st.dep, s.stop_lat AS lat, s.stop_lon AS lon, ${shapeDist} AS sd
    FROM st0 st JOIN stops s ON s.id = st.stop_ref WHERE st.tix IN (SELECT tix FROM trip_check WHERE needs_interp) ORDER BY st.tix, st.seq`);
  const shapeOf = new Map((await rows(conn, `SELECT tix, shape_id FROM t1 WHERE shape_id IS NOT NULL AND tix IN (SELECT tix FROM trip_check WHERE needs_interp)`))
    .map((r) => [Number(r.tix), String(r.shape_id)]));
  const shapes = new Map<string, Array<[number, number]>>();
  if (shapeOf.size) {
    const ids = [...new Set(shapeOf.values())].map((s) => `'${s.replace(/'/g, "''")}'`).join(",");
    for (const p of await rows(conn, `SELECT shape_id, lat, lon FROM sh0 WHERE shape_id IN (${ids}) ORDER BY shape_id, seq`)) {
      const id = String(p.shape_id);
      (shapes.get(id) ?? shapes.set(id, []).get(id)!).push([Number(p.lat), Number(p.lon)]);
    }
  }
  const filled: Array<[number, number]> = [];
  let i = 0;
  while (i < stRows.length) {
    const tix = Number(stRows[i]!.tix);
    const trip: StopRow[] = [];
    for (; i < stRows.length && Number(stRows[i]!.tix) === tix; i++) {
      const r = stRows[i]!;
      trip.push({ rid: Number(r.rid), arr: r.arr == null ? null : Number(r.arr), dep: r.dep == null ? null : Number(r.dep), lat: Number(r.lat), lon: Number(r.lon), sd: r.sd == null ? null : Number(r.sd) });
    }
    const sid = shapeOf.get(tix);
    filled.push(...interpolateTrip(trip, sid ? shapes.get(sid) ?? null : null));
  }
  await conn.run(`CREATE TABLE st_i (rid BIGINT, t INTEGER)`);
  const app = await conn.createAppender("st_i");
  for (const [rid, t] of filled) {
    app.appendBigInt(BigInt(rid));
    app.appendInteger(t);
    app.endRow();
  }
  app.closeSync();
  await conn.run(`UPDATE st0 SET arr = st_i.t, dep = st_i.t, interpolated = 1 FROM st_i WHERE st0.rid = st_i.rid`);
  return filled.length;
}
