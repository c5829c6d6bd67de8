/**
 * stop_times.txt → st0, the stop times in (trip, stop_sequence) order with their trip (tix) and
 * stop (stop_ref), by the first of three readers that takes the file:
 * - the fast reader (../stop-times/fast.ts, in a worker thread while the other files load), its
 *   columns checked trip by trip in JavaScript and inserted (../stop-times/append.ts): into st0 when
 *   a check of trip-check.ts is to change rows, else, as they are the stop times then, straight as
 *   the stop-times contract (../stop-times/columns.ts: the relation `stop_times`), with no st0;
 * - DuckDB straight into st0 (stopTimesDirect), when nothing in the file needs trimming;
 * - DuckDB into the raw table of trimmed strings like every other file, then st0 from it.
 * On a clean file the three give the same rows (tests compare them). Checks: trip-check.ts.
 *
 * st0 is in (trip, stop_sequence) order; deletes and updates keep that order, so stop_times.parquet
 * is written without a second sort. Many feeds (the MTA's, 12 of the 19 test feeds) list stop_times
 * trip by trip in trips.txt order already: st0 is then read in file order and not sorted at all.
 * The trip and stop references come from ENUM types over trips.txt and stops.txt (a lookup per row
 * that keeps the row order, which a join does not); an ENUM value's code is its position, so tix =
 * code + 1 and stop_ref = first id + code. On the raw path the raw strings stay in raw_stop_times
 * (messages look them up by rid); the direct path is only taken when no message needs them.
 */
import type { DuckDBConnection } from "@duckdb/node-api";
import { DataError } from "../../report.ts";
import type { BuildContext, TableModule } from "../build.ts";
import { csvReader, loadDeferred, openDeferred, q, recordRejects, untrimmed, type CsvPlan, type RawTable } from "../load.ts";
import type { FastRows, FastTripCheck, IdPositions } from "../stop-times/append.ts";
import { stopTimesFromFastRows, storeStopTimes, type StopTimesColumns } from "../stop-times/columns.ts";
import type { FastStopTimes } from "../stop-times/fast.ts";

/**
 * Optional stop_times.txt columns: name, conversion of the raw value `st.<name>`, and type. st0 keeps
 * only those the file has; queries name the others as typed NULLs (StopTimesState.column).
 */
export const ST_OPTIONAL: ReadonlyArray<readonly [name: string, conversion: string, type: string]> = [
  ["stop_headsign", "st.stop_headsign", "VARCHAR"],
  ["pickup_type", "gtfs_int(st.pickup_type)", "INTEGER"],
  ["drop_off_type", "gtfs_int(st.drop_off_type)", "INTEGER"],
  ["continuous_pickup", "gtfs_int(st.continuous_pickup)", "INTEGER"],
  ["continuous_drop_off", "gtfs_int(st.continuous_drop_off)", "INTEGER"],
  ["shape_dist_traveled", "TRY_CAST(st.shape_dist_traveled AS DOUBLE)", "DOUBLE"],
  ["timepoint", "gtfs_int(st.timepoint)", "INTEGER"],
];

/**
 * GTFS-Flex columns of stop_times.txt (name, conversion, type): st0 keeps those the file has, like
 * ST_OPTIONAL, on the DuckDB paths; the fast reader takes no file with a flex value (nor one with
 * windows or booking rules: stopTimesFast declines it), so its st0 has none (they are NULL).
 * A flex row (a location_id or location_group_id, no stop_id) has `flex` set and stop_ref NULL.
 */
export const ST_FLEX: ReadonlyArray<readonly [name: string, conversion: string, type: string]> = [
  ["location_id", "st.location_id", "VARCHAR"],
  ["location_group_id", "st.location_group_id", "VARCHAR"],
  ["start_pickup_drop_off_window", "gtfs_time(st.start_pickup_drop_off_window)", "INTEGER"],
  ["end_pickup_drop_off_window", "gtfs_time(st.end_pickup_drop_off_window)", "INTEGER"],
  ["pickup_booking_rule_id", "st.pickup_booking_rule_id", "VARCHAR"],
  ["drop_off_booking_rule_id", "st.drop_off_booking_rule_id", "VARCHAR"],
];

/** a time the file has that does not parse (over st0's columns arr and dep of a raw row `st`) */
export const BAD_TIME = `(st.arrival_time IS NOT NULL AND arr IS NULL) OR (st.departure_time IS NOT NULL AND dep IS NULL)`;

export const stopTimes: TableModule = {
  name: "stop_times",
  file: { name: "stop_times.txt", required: true },
  columns: {
    required: ["trip_id", "stop_sequence"],
    optional: [
      "arrival_time", "departure_time", "stop_id", "stop_headsign", "pickup_type", "drop_off_type", "continuous_pickup",
      "continuous_drop_off", "shape_dist_traveled", "timepoint", "location_id", "location_group_id",
      "start_pickup_drop_off_window", "end_pickup_drop_off_window", "pickup_booking_rule_id", "drop_off_booking_rule_id",
    ],
  },
  dependsOn: ["trips", "stops"],
  async build(ctx) {
    const { conn } = ctx;
    const stopBase = await enumLookups(ctx);
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
    // the fast reader's rows while st0 (or the stored contract) holds exactly those (in order), their trip_check and the contract
    let fastRows: FastRows | null = null;
    let fastCheck: FastTripCheck | null = null;
    let final: StopTimesColumns | null = null;
    // the file's columns (st0 keeps the optional ones it has; raw_stop_times has every column, NULL when absent)
    let present: (col: string) => boolean = () => true;
    // (loaded here, not with this module: it loads DuckDB's binding, which `interchange import` loads
    // while the zip is unpacked, see pipeline/import.ts)
    const fastAppend = ctx.fastStopTimes ? await import("../stop-times/append.ts") : null;
    if (stRaw.deferred) {
      // the fast reader's columns when it took the file (stop-times/fast.ts), else DuckDB reads it
      if (stopBase !== null && ctx.fastStopTimes && fastAppend) {
        // (the ids' positions are read while the worker may still be reading the file)
        const ids = fastAppend.idPositions(conn, stopBase);
        const fast = await ctx.fastStopTimes();
        const read = "declined" in fast ? (await ids, fast.declined) : await stopTimesFast(ctx, stRaw, fast, await ids, fastAppend);
        if (typeof read === "string") ctx.progress(`stop_times.txt: read with DuckDB (the fast reader declined: ${read})`);
        else {
          [fastRows, fastCheck, final, direct, readBy] = [read.rows, read.check, read.final, true, "fast"];
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
      ctx.skip("stop_times.txt", stRaw.rejectedLines.length); // csv_unparsable rows
    }
    let order = "sorted";
    if (stopBase !== null) {
      if (!direct) await conn.run(`CREATE TABLE st0 AS SELECT st.rid, ${stEnumCols(stopBase, present, true)} FROM ${withEnums("raw_stop_times", ", rowid AS rid")} st`);
      // rows out of (tix, stop_sequence) order in the file (the comparison is with the previous row
      // that has both; rows without are skipped below): sort
      const unordered = fastRows ? (fastAppend!.fastInOrder(fastRows) ? 0 : 1) : await ctx.scalar(`SELECT count(*) FROM (SELECT k, lag(k IGNORE NULLS) OVER () AS pk
        FROM (SELECT CASE WHEN seq >= 0 THEN (tix::BIGINT << 32) + seq END AS k FROM st0)) WHERE k <= pk`);
      if (unordered > 0) {
        await conn.run(`CREATE OR REPLACE TABLE st0 AS SELECT * FROM st0 ORDER BY tix, seq`);
        [fastRows, fastCheck] = [null, null];
      } else if (!fastRows?.order) order = "in file order";
    } else {
      await conn.run(`CREATE TABLE st0 AS SELECT st.rowid AS rid, st.trip_id, st.stop_id, ${stTimeCols(present, true)}, t.tix, s.id AS stop_ref${stFlex(present)}
        FROM raw_stop_times st LEFT JOIN t1 t ON t.trip_id = st.trip_id LEFT JOIN stops s ON s.stop_id = st.stop_id
        ORDER BY tix, seq`);
    }
    // st0 keeps only the optional columns the file has (and bad_time, flex only where they can be
    // true): the others are named as typed NULLs (or false)
    const stHas = new Set(fastRows?.columns ?? (await ctx.rows(`SELECT column_name FROM duckdb_columns() WHERE table_name = 'st0'`)).map((r) => String(r.column_name)));
    ctx.facts.stopTimes = {
      final,
      fastRows,
      fastCheck,
      fastAppend,
      has: (col) => stHas.has(col),
      column: (col, absent) => (stHas.has(col) ? col : absent),
    };
    ctx.step(`stop_times read: ${fastRows?.fast.rows ?? (await ctx.scalar("SELECT count(*) FROM st0"))} (${order}${direct ? `, ${readBy}` : ""})`);
  },
};

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
    ...ST_FLEX.filter(([c]) => present(c)).map(([c, conv]) => `${conv} AS ${c}`),
  ].join(", ");
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
async function stopTimesDirect(ctx: BuildContext, table: RawTable, plan: CsvPlan, cols: string, withEnums: (rel: string) => string): Promise<boolean> {
  const { conn } = ctx;
  const rej = "rej_stop_times_direct";
  const drop = () => conn.run(`DROP TABLE IF EXISTS st0; DROP TABLE IF EXISTS ${rej}; DROP TABLE IF EXISTS ${rej}_scan`);
  const has = (c: string) => plan.presentCols.includes(c);
  const unconverted = (c: string, conv: string) => (has(c) ? [`(st.${c} IS NOT NULL AND ${conv} IS NULL)`] : []);
  const suspect = [
    "tix IS NULL", "stop_ref IS NULL", "seq IS NULL", "seq < 0", BAD_TIME,
    ...ST_OPTIONAL.filter(([c]) => c !== "stop_headsign").flatMap(([c, conv]) => unconverted(c, conv)),
    ...(has("stop_headsign") ? [untrimmed("st.stop_headsign")] : []),
    ...ST_FLEX.flatMap(([c, conv, type]) => (has(c) ? [type === "VARCHAR" ? untrimmed(`st.${c}`) : `(st.${c} IS NOT NULL AND ${conv} IS NULL)`] : [])),
    ...(plan.presentCols.includes(plan.first) ? [] : [untrimmed(`st.${q(plan.first)}`)]),
  ].join(" OR ");
  try {
    await conn.run(`CREATE TABLE st0 AS SELECT ${cols}, (${suspect}) AS suspect FROM ${withEnums(`(SELECT ${plan.select} FROM ${csvReader(plan, rej, true, "utf-8")})`)} st`);
    const bad = await ctx.scalar(`SELECT (SELECT count(*) FROM st0 WHERE suspect) + (SELECT count(*) FROM ${rej} WHERE error_type = 'INVALID ENCODING')`);
    if (bad > 0) {
      await drop();
      return false;
    }
  } catch {
    // e.g. a newline inside a quoted value, which the parallel reader refuses: the raw path copes
    await drop();
    return false;
  }
  await recordRejects(conn, table, rej, await ctx.scalar(`SELECT count(*) FROM st0`), ctx.issues);
  await conn.run(`ALTER TABLE st0 ADD COLUMN rid BIGINT; UPDATE st0 SET rid = rowid`);
  return true;
}

/**
 * stop_times.txt from the fast reader's columns (stop-times/append.ts), with what stopTimesDirect
 * records besides: the row count, no rejected rows, no line map (the fast reader takes no file with
 * quotes or blank lines). The rows are checked trip by trip first (fastTripCheck): when no check of
 * trip-check.ts changes any of them they are the stop times as they are, and go into DuckDB once,
 * as the stop-times contract's relation (`final`, ../stop-times/columns.ts), with no st0; else
 * they go into st0 for the checks. The rows when done, else why not (nothing created).
 */
async function stopTimesFast(
  ctx: BuildContext, table: RawTable, fast: FastStopTimes, ids: IdPositions, append: typeof import("../stop-times/append.ts"),
): Promise<{ rows: FastRows; check: FastTripCheck; final: StopTimesColumns | null } | string> {
  // (a GTFS-Flex window or booking rule column: st0 keeps those, the fast reader does not read them)
  const flex = ST_FLEX.find(([c]) => c !== "location_id" && c !== "location_group_id" && fast.header.includes(c));
  if (flex) return `a GTFS-Flex column (${flex[0]})`;
  const optional = ST_OPTIONAL.filter(([c]) => fast.header.includes(c));
  const rows = append.fastRowsOf(fast, ids, optional.map(([c, , t]) => [c, t] as const));
  if (typeof rows === "string") return rows;
  const check = append.fastTripCheck(rows);
  const final = check.changesRows ? null : stopTimesFromFastRows(rows, ctx.fact("tripBase"), ctx.fvid);
  const why = final ? await storeStopTimes(ctx.conn, ctx.connect, final) : await append.insertSt0(ctx.conn, ctx.connect, rows);
  if (why !== null) return why;
  table.deferred = undefined;
  table.rows = fast.rows;
  table.rejectedLines = [];
  table.lineMap = null;
  return { rows, check, final };
}

/**
 * Create the ENUM types trip_enum (t1.trip_id in tix order) and stop_enum (stops.stop_id in id
 * order) for st0's lookups, when their codes give tix (code + 1) and the stop id (first id + code):
 * ids contiguous, keys unique and non-null (checked, and so are the codes themselves). Returns the
 * first stop id, or null when the lookups cannot be used (st0 then joins).
 */
async function enumLookups(ctx: BuildContext): Promise<number | null> {
  const conn: DuckDBConnection = ctx.conn;
  const ok = async (sql: string) => (await ctx.scalar(sql)) === 1;
  const trips = `SELECT (count(*) > 0 AND count(DISTINCT trip_id) = count(*) AND min(tix) = 1 AND max(tix) = count(*))::INTEGER FROM t1`;
  const stops = `SELECT (count(*) > 0 AND count(DISTINCT stop_id) = count(*) AND max(id) - min(id) + 1 = count(*))::INTEGER FROM stops`;
  if (!(await ok(trips)) || !(await ok(stops))) return null;
  try {
    await conn.run(`CREATE TYPE trip_enum AS ENUM (SELECT trip_id FROM t1 ORDER BY tix)`);
    await conn.run(`CREATE TYPE stop_enum AS ENUM (SELECT stop_id FROM stops ORDER BY id)`);
    const base = await ctx.scalar(`SELECT min(id) FROM stops`);
    const codesOk =
      (await ok(`SELECT (count(*) = 0)::INTEGER FROM t1 WHERE enum_code(trip_id::trip_enum)::INTEGER + 1 <> tix`)) &&
      (await ok(`SELECT (count(*) = 0)::INTEGER FROM stops WHERE enum_code(stop_id::stop_enum)::INTEGER + ${base} <> id`));
    return codesOk ? base : null;
  } catch {
    // whatever DuckDB refuses here, the join always works
    return null;
  }
}
