/**
 * trip_check (derived): the stop times of st0 checked trip by trip, and the stop-times contract
 * made of them (../stop-times/columns.ts: the relation `stop_times`, which the Parquet writer
 * writes, and the columns the timetable takes). Stop times of unknown trips, stops or GTFS-Flex zones (locations,
 * location groups), bad or duplicated stop_sequences skipped; trips that cannot be used (fewer than
 * 2 stop times, no time at the first or last stop, times going backwards) skipped with their stop
 * times; missing times interpolated by distance along the shape (../interpolate.ts). GTFS-Flex
 * stop_times (a zone or group instead of a stop, a pickup/drop-off window instead of times) are
 * kept as they are: the time checks and the interpolation are about the other rows, and a trip with
 * a flex stop_time gets a stop pattern of its own (Transitland's rule). trip_check holds, per trip, what the
 * stop patterns need (patterns.ts). When the fast reader's rows need no check's change, the
 * stop_times module made the contract of them already and there is no st0: trip_check is the
 * reader's (../stop-times/append.ts fastTripCheck). Once this module is built nothing changes the
 * stop times: the importer writes stop_times.parquet meanwhile (pipeline/import.ts) and the timetable may take them.
 */
import type { DuckDBConnection } from "@duckdb/node-api";
import { rows } from "../../duck.ts";
import { sqlString } from "../../../shared/sql.ts";
import type { BuildContext, TableModule } from "../build.ts";
import { interpolateTrip, type StopRow } from "../interpolate.ts";
import { stopTimesOverSt0, type StopTimesColumns } from "../stop-times/columns.ts";
import type { StopTimesState } from "../build.ts";

export const tripCheck: TableModule = {
  name: "trip_check",
  file: null,
  columns: { required: [], optional: [] },
  dependsOn: ["stop_times", "shapes", "locations", "location_groups"],
  async build(ctx) {
    const st = ctx.fact("stopTimes");
    let interpolated = 0;
    if (st.final) {
      // the fast reader's rows, which no check changes: their trip_check is the reader's
      const why = await st.fastAppend!.writeTripCheck(ctx.conn, st.fastCheck!);
      if (why !== null) throw new Error(`trip_check not written: ${why}`);
    } else interpolated = await checkSt0(ctx, st);
    const noStopTimes = `SELECT rid, trip_id FROM t1 WHERE tix NOT IN (SELECT tix FROM trip_check)`;
    const nNoSt = await ctx.reportSkipped("trip_without_stop_times", "trips.txt", noStopTimes, `'trip ' || trip_id || ': has no stop_times'`);
    ctx.skip("trips.txt", nNoSt);
    if (nNoSt) await ctx.conn.run(`DELETE FROM t1 WHERE tix NOT IN (SELECT tix FROM trip_check)`);
    ctx.derived.interpolated_stop_times = interpolated;
    ctx.step(`stop_times checked (${interpolated} interpolated)`);
    // (the timetable takes the contract's columns when they were made, else reads them from the
    // relation): the planner's fields only. The rest of the fast reader's columns are in DuckDB now,
    // and nothing reads them here any more (but the validation lane, when the import validates):
    // letting go of them frees their memory for what follows.
    ctx.facts.stopTimesColumns = st.final && (ctx.keepStopTimesRest ? st.final : plannerFields(st.final));
    [st.final, st.fastRows, st.fastCheck] = [null, null, null];
    // (collected now, not whenever the next collection comes: the Parquet writers and the timetable,
    // the import's largest users of memory, start now; ~90 MB of bus_bk's columns)
    if (st.fastAppend) Bun.gc(true);
  },
};

/**
 * The planner's fields of the stop-times contract's columns, without `rest` (the catalog's other
 * columns), each in a buffer of its own size: a view of the fast reader's larger buffer (its
 * columns have room to grow: stop_sequence's is often twice the rows) is copied, so the rest of
 * that buffer goes with the reader's other columns.
 */
function plannerFields(c: StopTimesColumns): StopTimesColumns {
  const own = <A extends Int32Array | Uint8Array>(a: A): A => (a.byteLength < a.buffer.byteLength ? (a.slice() as A) : a);
  return {
    trip: own(c.trip), stopSequence: own(c.stopSequence), stop: own(c.stop), arrSec: own(c.arrSec), depSec: own(c.depSec),
    pickupType: own(c.pickupType), dropOffType: own(c.dropOffType),
  };
}

/**
 * The checks over st0 (the DuckDB readers' rows, or the fast reader's when a check is to change
 * some): skips, interpolation; then the contract's relation over st0 (stopTimesOverSt0). Returns
 * the number of interpolated stop times.
 */
async function checkSt0(ctx: BuildContext, st: StopTimesState): Promise<number> {
  const { conn } = ctx;
  await skipUnknownStopTimes(ctx, st);
  await buildTripCheck(ctx, st);
  await fillMissingTimes(ctx, st);
  await skipUnusableTrips(ctx, st);
  // interpolation of missing times by distance along the shape (pipeline/gtfs/interpolate.ts)
  const nInterpTrips = await ctx.scalar(`SELECT count(*) FROM trip_check WHERE needs_interp`);
  let interpolated = 0;
  // (a column only when some time is interpolated: otherwise the relation says 0 for every row)
  if (nInterpTrips > 0) {
    await conn.run(`ALTER TABLE st0 ADD COLUMN interpolated INTEGER DEFAULT 0`);
    interpolated = await interpolateMissing(conn, st.has("shape_dist_traveled") ? "st.shape_dist_traveled" : "NULL::DOUBLE");
  }
  // st0 is final from here on (only read): the contract's relation is a view over it, which the
  // Parquet writer reads in st0's order, without a copy of 2.4 M rows, and may start now
  await stopTimesOverSt0(conn, { feedVersionId: ctx.fvid, tripBase: ctx.fact("tripBase"), has: st.has, interpolated: nInterpTrips > 0 });
  return interpolated;
}

/** A stop_times.txt field of a st0 row, as the file gave it (for messages). */
const rawSt = (col: string) => `(SELECT r.${col} FROM raw_stop_times r WHERE r.rowid = rid)`;

/** The st0 rows matching `where` reported as `kind` (message `msg`, SQL) and deleted; then st0 is no longer the fast reader's. */
async function skipStopTimes(ctx: BuildContext, st: StopTimesState, kind: string, where: string, msg: string): Promise<void> {
  const n = await ctx.reportSkipped(kind, "stop_times.txt", `SELECT * FROM st0 WHERE ${where}`, msg);
  ctx.skip("stop_times.txt", n);
  if (n) {
    await ctx.conn.run(`DELETE FROM st0 WHERE ${where}`);
    [st.fastRows, st.fastCheck] = [null, null];
  }
}

/** The stop times of unknown trips, GTFS-Flex zones or groups, stops, and with a bad stop_sequence skipped. */
async function skipUnknownStopTimes(ctx: BuildContext, st: StopTimesState): Promise<void> {
  await skipStopTimes(ctx, st, "unknown_trip", "tix IS NULL",
    `'stop_time of trip ' || coalesce(${rawSt("trip_id")}, '(empty)') || ': trip does not exist or was skipped'`);
  // GTFS-Flex rows: their zone (location_id) or group (location_group_id) must exist
  const flex = st.column("flex", "false");
  if (st.has("flex")) {
    const locId = st.column("location_id", "NULL::VARCHAR"), groupId = st.column("location_group_id", "NULL::VARCHAR");
    await skipStopTimes(ctx, st, "unknown_location", `stop_ref IS NULL AND flex AND ${locId} IS NOT NULL AND ${locId} NOT IN (SELECT location_id FROM locations)`,
      `'trip ' || trip_id || ': location_id ' || ${locId} || ' does not exist (not in locations.geojson)'`);
    await skipStopTimes(ctx, st, "unknown_location_group", `stop_ref IS NULL AND flex AND ${locId} IS NULL AND ${groupId} NOT IN (SELECT location_group_id FROM location_groups)`,
      `'trip ' || trip_id || ': location_group_id ' || ${groupId} || ' does not exist'`);
  }
  await skipStopTimes(ctx, st, "unknown_stop", `stop_ref IS NULL AND NOT ${flex}`, `'trip ' || trip_id || ': stop_id ' || coalesce(${rawSt("stop_id")}, '(empty)') || ' does not exist'`);
  await skipStopTimes(ctx, st, "invalid_stop_sequence", "seq IS NULL OR seq < 0", `'trip ' || trip_id || ': stop_sequence ' || coalesce(${rawSt("stop_sequence")}, '(empty)') || ' is not a non-negative integer'`);
}

/**
 * trip_check built (the fast reader's when st0 still holds exactly its rows), and built again
 * after duplicate stop_sequences are skipped.
 */
async function buildTripCheck(ctx: BuildContext, st: StopTimesState): Promise<void> {
  const { conn } = ctx;
  // One pass per trip (in stop_sequence order) finds duplicate stop_sequences and the trips that
  // cannot be used (< 2 stop_times, no time at the first or last stop, times going backwards), and
  // computes what the stop patterns need: first departure, last arrival, and a digest of the
  // (position, stop) pairs. Unparsable times count as missing; a time missing on one side takes the
  // other's. Later steps delete whole trips and interpolate interior times between earlier and
  // later ones, which changes none of these values for the trips that remain.
  const hasFlex = st.has("flex") && (await ctx.scalar(`SELECT count(*) FROM st0 WHERE flex`)) > 0;
  const tripCheckSql = hasFlex ? flexTripCheckSql(st.column("start_pickup_drop_off_window", "NULL::INTEGER"), st.column("end_pickup_drop_off_window", "NULL::INTEGER")) : `CREATE OR REPLACE TABLE trip_check AS
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
  // (the fast reader's when st0 still holds exactly its rows, in order: no sort, no window)
  if (!st.fastRows || !st.fastCheck || (await st.fastAppend!.writeTripCheck(conn, st.fastCheck)) !== null) await conn.run(tripCheckSql);
  if ((await ctx.scalar(`SELECT count(*) FROM trip_check WHERE dup_seq`)) > 0) {
    const dupSt = `rid IN (SELECT rid FROM st0 QUALIFY row_number() OVER (PARTITION BY tix, seq ORDER BY rid) > 1)`;
    await skipStopTimes(ctx, st, "duplicate_key", dupSt, `'trip ' || trip_id || ': duplicate stop_sequence ' || seq`);
    await conn.run(tripCheckSql);
  }
}

/** Unparsable times reported (then treated as missing); a time missing on one side takes the other's; the raw rows dropped. */
async function fillMissingTimes(ctx: BuildContext, st: StopTimesState): Promise<void> {
  const { conn } = ctx;
  // unparsable times become missing (then interpolated between their neighbours)
  await ctx.reportSkipped("invalid_time", "stop_times.txt", `SELECT * FROM st0 WHERE ${st.column("bad_time", "false")}`,
    `'trip ' || trip_id || ' stop_sequence ' || seq || ': unparsable time ' || coalesce(${rawSt("arrival_time")}, '') || '/' || coalesce(${rawSt("departure_time")}, '') || ' (treated as missing and interpolated)'`);
  await conn.run(`UPDATE st0 SET arr = coalesce(arr, dep), dep = coalesce(dep, arr) WHERE arr IS NULL OR dep IS NULL`);
  // no message needs the raw strings any more: give their memory to the steps that follow
  await conn.run(`DROP TABLE IF EXISTS raw_stop_times`);
}

/** Trips that cannot be used (fewer than 2 stop times, no time at the first or last stop, times going backwards) skipped with their stop times. */
async function skipUnusableTrips(ctx: BuildContext, st: StopTimesState): Promise<void> {
  const { conn } = ctx;
  const badTrip = async (kind: string, cond: string, msg: string) => {
    const fromSql = `SELECT t.rid, t.trip_id FROM t1 t JOIN trip_check c USING (tix) WHERE ${cond}`;
    const n = await ctx.reportSkipped(kind, "trips.txt", fromSql, msg);
    if (n) {
      ctx.skip("trips.txt", n);
      const stN = await ctx.scalar(`SELECT count(*) FROM st0 WHERE tix IN (SELECT tix FROM trip_check c WHERE ${cond})`);
      ctx.issues.add("stop_time_of_skipped_trip", { file: "stop_times.txt", message: `${stN} stop_times of trips skipped as ${kind}` }, stN);
      ctx.skip("stop_times.txt", stN);
      await conn.run(`DELETE FROM st0 WHERE tix IN (SELECT tix FROM trip_check c WHERE ${cond})`);
      [st.fastRows, st.fastCheck] = [null, null];
      await conn.run(`DELETE FROM t1 WHERE tix IN (SELECT tix FROM trip_check c WHERE ${cond})`);
      await conn.run(`DELETE FROM trip_check c WHERE ${cond}`);
    }
  };
  await badTrip("too_few_stop_times", "c.n < 2", `'trip ' || trip_id || ': fewer than 2 usable stop_times'`);
  await badTrip("missing_terminal_time", "c.missing_terminal", `'trip ' || trip_id || ': first or last stop has no arrival/departure time'`);
  await badTrip("decreasing_times", "c.backwards", `'trip ' || trip_id || ': times go backwards along the trip'`);
}

/**
 * trip_check of a feed with GTFS-Flex stop_times (st0 has `flex`): as the usual one over the rows with
 * a stop, flex rows left out of the time checks (a window, not a time: a trip's first and last timed
 * stop must have a time), and each trip with a flex row a stop pattern of its own (its digest is its
 * tix). first_dep and last_arr fall back on the windows (`start`, `end`: st0's columns or NULLs), so
 * flex service counts in the service levels.
 */
function flexTripCheckSql(start: string, end: string): string {
  return `CREATE OR REPLACE TABLE trip_check AS
      WITH o AS (SELECT tix, seq, stop_ref, flex, coalesce(arr, dep) AS a, coalesce(dep, arr) AS d, row_number() OVER w AS k,
                        count(*) OVER (PARTITION BY tix) AS n, lag(coalesce(dep, arr) IGNORE NULLS) OVER w AS prev_dep, lag(seq) OVER w AS prev_seq,
                        row_number() OVER (PARTITION BY tix, flex ORDER BY seq) AS kf, count(*) OVER (PARTITION BY tix, flex) AS nf,
                        ${start} AS w0, ${end} AS w1
                 FROM st0 WINDOW w AS (PARTITION BY tix ORDER BY seq))
      SELECT tix, max(n)::INTEGER AS n,
        bool_or(seq = prev_seq) AS dup_seq,
        coalesce(bool_or(NOT flex AND (kf = 1 OR kf = nf) AND a IS NULL), false) AS missing_terminal,
        bool_or(a > d OR a < prev_dep) AS backwards,
        coalesce(bool_or(NOT flex AND a IS NULL), false) AS needs_interp,
        min(coalesce(d, w0)) AS first_dep, max(coalesce(a, w1)) AS last_arr,
        CASE WHEN bool_or(flex) THEN hash(tix, 'flex trip') ELSE sum(hash(k, stop_ref)) END AS h1,
        CASE WHEN bool_or(flex) THEN hash('flex trip', tix) ELSE bit_xor(hash(stop_ref, k, 'stop pattern')) END AS h2
      FROM o GROUP BY tix`;
}

/** `shapeDist`: st0's shape_dist_traveled over `st` (or a NULL when the file has none) */
async function interpolateMissing(conn: DuckDBConnection, shapeDist: string): Promise<number> {
  const stRows = await rows(conn, `SELECT st.rid, st.tix, st.arr, st.dep, s.stop_lat AS lat, s.stop_lon AS lon, ${shapeDist} AS sd
    FROM st0 st JOIN stops s ON s.id = st.stop_ref WHERE st.tix IN (SELECT tix FROM trip_check WHERE needs_interp) ORDER BY st.tix, st.seq`);
  const shapeOf = new Map((await rows(conn, `SELECT tix, shape_id FROM t1 WHERE shape_id IS NOT NULL AND tix IN (SELECT tix FROM trip_check WHERE needs_interp)`))
    .map((r) => [Number(r.tix), String(r.shape_id)]));
  const shapes = new Map<string, Array<[number, number]>>();
  if (shapeOf.size) {
    const ids = [...new Set(shapeOf.values())].map(sqlString).join(",");
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
