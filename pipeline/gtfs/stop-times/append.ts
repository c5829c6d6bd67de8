/**
 * The fast reader's columns (fast.ts) into DuckDB: mapped to the import's trips and stops
 * (fastRowsOf), checked trip by trip (fastTripCheck, the table trip_check), and inserted as a table:
 * st0, the table the stop_times module (../tables/stop-times.ts) makes of stop_times.txt, with the
 * same columns, types and rows its direct path would make of the same file (insertSt0), or the
 * stop-times contract's table (columns.ts storeStopTimes). The values go in a chunk of 2048 rows
 * at a time, each column copied as a block of memory (the binding's data-chunk calls: node-api's
 * per-vector objects rebuild an ENUM type's value list for every chunk): a table's rows through a
 * table function, in two parts inserted at once (insertColumns), trip_check's through an appender.
 */
import type { DuckDBAppender, DuckDBConnection } from "@duckdb/node-api";
import duckdb from "@duckdb/node-bindings";
import { stringColumns } from "../../duck.ts";
import { sqlString } from "../../../shared/sql.ts";
import { NULL_INT, type FastStopTimes } from "./fast.ts";

/** Rows per appended chunk (DuckDB's vector size). */
const CHUNK = 2048;

type Codes = Uint8Array | Uint16Array | Uint32Array;

/** An ENUM type's codes as the typed array of its physical width. */
function codesFor(type: duckdb.LogicalType, n: number): Codes {
  switch (duckdb.enum_internal_type(type)) {
    case duckdb.Type.UTINYINT: return new Uint8Array(n);
    case duckdb.Type.USMALLINT: return new Uint16Array(n);
    default: return new Uint32Array(n);
  }
}

/**
 * The fast reader's rows mapped to the import's ids, in (tix, stop_sequence) order: what st0 holds
 * when it is made from them (insertSt0), and what the stop-times contract is made of when no check
 * changes them (../stop-times/columns.ts stopTimesFromFastRows). For checks made in JavaScript (fastTripCheck).
 */
export interface FastRows {
  /** the reader's columns, in this order (sorted when the file is not: `order`) */
  fast: FastStopTimes;
  /** per row: its trip (t1.tix) and stop (stops.id) */
  tix: Int32Array;
  stopRef: Int32Array;
  /** per row, its place in the file when the file's rows were not in (tix, stop_sequence) order; null when they were */
  order: Int32Array | null;
  /** the optional columns st0 keeps (the file's), with their SQL types */
  optional: ReadonlyArray<readonly [name: string, type: string]>;
  /** the stop id of stop_enum's code 0 */
  stopBase: number;
  /** st0's columns (when made from these rows) */
  columns: string[];
}

/** Each trip_id's tix and each stop_id's stop id (stop ids start at `stopBase`). */
export interface IdPositions {
  tixOf: Map<string, number>;
  refOf: Map<string, number>;
  stopBase: number;
}

/** t1's trip ids (in tix order) and the stops' ids (in id order, from `stopBase`), as IdPositions: all fastRowsOf needs of the database. */
export async function idPositions(conn: DuckDBConnection, stopBase: number): Promise<IdPositions> {
  const [tripIds] = await stringColumns(conn, `(SELECT tix AS id, trip_id FROM t1)`, ["trip_id"]);
  const [stopIds] = await stringColumns(conn, "stops", ["stop_id"]);
  return { tixOf: new Map(tripIds!.map((id, k) => [id, k + 1])), refOf: new Map(stopIds!.map((id, k) => [id, stopBase + k])), stopBase };
}

/**
 * `fast`'s rows with their trip (tix) and stop (stop_ref), when every trip_id is one of t1's and
 * every stop_id one of stops' (the ENUM types trip_enum and stop_enum hold them in tix and id
 * order; stop ids start at `stopBase`); otherwise why not (the direct path then reads the file).
 * `optional`: the optional columns st0 keeps (the file's), with their SQL types. The rows are put
 * in (tix, stop_sequence) order here when the file's are not, each keeping its place in the file.
 */
export function fastRowsOf(fast: FastStopTimes, ids: IdPositions, optional: ReadonlyArray<readonly [name: string, type: string]>): FastRows | string {
  const { tixOf, refOf, stopBase } = ids;
  const codeTix = new Int32Array(fast.tripIds.length);
  for (let c = 0; c < fast.tripIds.length; c++) {
    const t = tixOf.get(fast.tripIds[c]!);
    if (t === undefined) return `trip_id ${fast.tripIds[c]} is not a trip`;
    codeTix[c] = t;
  }
  const codeRef = new Int32Array(fast.stopIds.length);
  for (let c = 0; c < fast.stopIds.length; c++) {
    const s = refOf.get(fast.stopIds[c]!);
    if (s === undefined) return `stop_id ${fast.stopIds[c]} is not a stop`;
    codeRef[c] = s;
  }
  for (const [c] of optional) if (c !== "stop_headsign" && c !== "shape_dist_traveled" && !fast.ints[c]) return `no values for column ${c}`;
  const n = fast.rows;
  // per row: tix and stop_ref (the ENUM codes are tix - 1 and stop_ref - stopBase)
  let tix = new Int32Array(n), stopRef = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    tix[i] = codeTix[fast.trip[i]!]!;
    stopRef[i] = codeRef[fast.stop[i]!]!;
  }
  // a file in another order is sorted here, each row keeping its place in the file (st0's rid),
  // as the other paths sort st0 in SQL
  const order = tripOrder(tix, fast.seq, tixOf.size);
  if (order) {
    fast = permuted(fast, order);
    [tix, stopRef] = [pick(tix, order), pick(stopRef, order)];
  }
  const columns = ["trip_id", "stop_id", "seq", "arr", "dep", ...optional.map(([c]) => c), "tix", "stop_ref", "rid"];
  return { fast, tix, stopRef, order, optional, stopBase, columns };
}

/**
 * A dictionary column's values as the ENUM type `name` (created here), or null when it has none
 * (the column is then all NULL, a VARCHAR).
 */
export async function dictionaryType(conn: DuckDBConnection, name: string, values: readonly string[] | undefined): Promise<string | null> {
  if (!values?.length) return null;
  await conn.run(`CREATE TYPE ${name} AS ENUM (${values.map(sqlString).join(", ")})`);
  return name;
}

/**
 * Creates st0 from `r`: the same columns, types and rows the direct path would make of the file
 * (st0 gets rid, the row's place in the file, like the direct path's). null when done, else why
 * not (nothing is left created).
 */
export async function insertSt0(conn: DuckDBConnection, connect: () => Promise<DuckDBConnection>, r: FastRows): Promise<string | null> {
  const { fast, optional } = r;
  const hsType = await dictionaryType(conn, "st_headsign", optional.some(([c]) => c === "stop_headsign") ? fast.headsigns : undefined);
  const spec: [name: string, type: string][] = [
    ["trip_id", "trip_enum"], ["stop_id", "stop_enum"], ["seq", "INTEGER"], ["arr", "INTEGER"], ["dep", "INTEGER"],
    ...optional.map(([c, t]): [string, string] => [c, c === "stop_headsign" ? hsType ?? "VARCHAR" : t]),
    ["tix", "INTEGER"], ["stop_ref", "INTEGER"], ["rid", "BIGINT"],
  ];
  const columns: AppendColumn[] = [enumCodes(r.tix, 1), enumCodes(r.stopRef, r.stopBase), { data: fast.seq }, nullableInts(fast.arr), nullableInts(fast.dep)];
  for (const [c] of optional) {
    if (c === "stop_headsign") columns.push(dictionaryCodes(fast.headsign!, hsType));
    else if (c === "shape_dist_traveled") columns.push(nullableDoubles(fast.shapeDist!));
    else columns.push(nullableInts(fast.ints[c]!));
  }
  columns.push({ data: r.tix }, { data: r.stopRef }, { data: rowNumbers(fast.rows, r.order) });
  const why = await insertTable(conn, connect, "st0", spec, fast.rows, columns);
  if (why !== null && hsType) await conn.run(`DROP TYPE IF EXISTS ${hsType}`);
  return why;
}

/** An Int32 column, NULL_INT as NULL. */
export const nullableInts = (a: Int32Array): AppendColumn => ({ data: a, isNull: a.includes(NULL_INT) ? (i) => a[i] === NULL_INT : undefined });
/** A Float64 column, NaN as NULL. */
export const nullableDoubles = (d: Float64Array): AppendColumn => ({ data: d, isNull: d.some(Number.isNaN) ? (i) => Number.isNaN(d[i]!) : undefined });
/** Values of an ENUM type whose codes are value - `offset`. */
export const enumCodes = (values: Int32Array, offset: number): AppendColumn => ({ data: values, enumOffset: offset });
/** A dictionary column's codes (-1: NULL) as values of its ENUM type (dictionaryType), or all NULL when it has none. */
export const dictionaryCodes = (codes: Int32Array, type: string | null): AppendColumn =>
  type ? { data: codes, enumOffset: 0, isNull: codes.includes(-1) ? (i) => codes[i]! < 0 : undefined } : { data: null, isNull: () => true };

/**
 * Creates `table` (`spec`: its columns and SQL types) and inserts `n` rows of `columns` (in
 * `spec`'s order) at once (insertColumns). null when done, else why not (the table is dropped).
 */
export async function insertTable(
  conn: DuckDBConnection, connect: () => Promise<DuckDBConnection>, table: string, spec: ReadonlyArray<readonly [name: string, type: string]>, n: number, columns: AppendColumn[],
): Promise<string | null> {
  let why: string | null;
  try {
    await conn.run(`CREATE TABLE ${table} (${spec.map(([c, t]) => `${c} ${t}`).join(", ")})`);
    const types = await columnTypes(conn, table, spec.length);
    why = await insertColumns(conn, connect, table, n, types, columns.map((col, j) => ({ ...col, name: spec[j]![0] })));
  } catch (e) {
    why = `making ${table} failed: ${(e as Error).message}`;
  }
  if (why !== null) await conn.run(`DROP TABLE IF EXISTS ${table}`);
  return why;
}

/**
 * The rows in (tix, stop_sequence) order as row numbers, ties in file order; null when they are in
 * that order already. A counting sort by tix (1 .. trips), then each trip's rows by stop_sequence.
 */
function tripOrder(tix: Int32Array, seq: Int32Array, trips: number): Int32Array | null {
  const n = tix.length;
  let ordered = true;
  for (let i = 1; i < n && ordered; i++) if (tix[i]! < tix[i - 1]! || (tix[i] === tix[i - 1] && seq[i]! < seq[i - 1]!)) ordered = false;
  if (ordered) return null;
  const start = new Int32Array(trips + 2);
  for (let i = 0; i < n; i++) start[tix[i]! + 1]!++;
  for (let t = 1; t < start.length; t++) start[t]! += start[t - 1]!;
  const order = new Int32Array(n);
  const at = start.slice();
  for (let i = 0; i < n; i++) order[at[tix[i]!]!++] = i;
  const bySeq = (x: number, y: number) => seq[x]! - seq[y]! || x - y;
  for (let t = 1; t <= trips; t++) {
    const from = start[t]!, to = start[t + 1]!;
    for (let k = from + 1; k < to; k++) {
      if (seq[order[k]!]! < seq[order[k - 1]!]!) {
        order.subarray(from, to).sort(bySeq);
        break;
      }
    }
  }
  return order;
}

/** `a`'s values in `order` */
function pick<T extends Int32Array | Float64Array>(a: T, order: Int32Array): T {
  const out = new (a.constructor as { new (n: number): T })(order.length);
  for (let k = 0; k < order.length; k++) out[k] = a[order[k]!]!;
  return out;
}

/** The reader's rows in `order` (the dictionaries unchanged). */
function permuted(f: FastStopTimes, order: Int32Array): FastStopTimes {
  return {
    ...f,
    trip: pick(f.trip, order),
    stop: pick(f.stop, order),
    seq: pick(f.seq, order),
    arr: pick(f.arr, order),
    dep: pick(f.dep, order),
    ints: Object.fromEntries(Object.entries(f.ints).map(([c, v]) => [c, pick(v, order)])),
    ...(f.shapeDist ? { shapeDist: pick(f.shapeDist, order) } : {}),
    ...(f.headsign ? { headsign: pick(f.headsign, order) } : {}),
  };
}

/**
 * A column for appendColumns: `data` in the table's type (null when every value is NULL), or, with
 * `enumOffset`, values whose ENUM codes are value - enumOffset; `isNull` when some rows are NULL.
 */
export interface AppendColumn {
  data: Int32Array | BigInt64Array | Float64Array | Codes | null;
  enumOffset?: number;
  isNull?: (row: number) => boolean;
}

/**
 * 0, 1, ..., n - 1 (or `order`'s values) as BIGINTs, written as 32-bit halves where the platform
 * is little-endian (a BigInt per row is 4x slower).
 */
function rowNumbers(n: number, order: Int32Array | null = null): BigInt64Array {
  const out = new BigInt64Array(n);
  if (new Uint8Array(new Uint16Array([1]).buffer)[0] === 1) {
    const halves = new Int32Array(out.buffer);
    for (let i = 0; i < n; i++) halves[2 * i] = order ? order[i]! : i;
  } else for (let i = 0; i < n; i++) out[i] = BigInt(order ? order[i]! : i);
  return out;
}

/** The column types of `table`, as the C API sees them (an ENUM column's type is its ENUM type). */
async function columnTypes(conn: DuckDBConnection, table: string, count: number): Promise<duckdb.LogicalType[]> {
  const app = await conn.createAppender(table);
  try {
    const raw = (app as unknown as { appender?: duckdb.Appender }).appender;
    if (!raw) throw new Error("the appender's binding handle is not reachable");
    return Array.from({ length: count }, (_, j) => duckdb.appender_column_type(raw, j));
  } finally {
    closeQuietly(app);
  }
}

/** ENUM columns as codes in the type's physical width; the others as they are. */
function physicalData(columns: AppendColumn[], types: duckdb.LogicalType[], n: number): AppendColumn["data"][] {
  return columns.map((col, j) => {
    if (col.enumOffset === undefined || !col.data) return col.data;
    const codes = codesFor(types[j]!, n);
    const v = col.data as Int32Array;
    for (let i = 0; i < n; i++) codes[i] = Math.max(0, v[i]! - col.enumOffset);
    return codes;
  });
}

/** Copies rows [s, s + m) of `columns` (`data`: physicalData) into the vectors of `chunk`, from its row 0. */
function fillChunk(chunk: duckdb.DataChunk, columns: AppendColumn[], data: AppendColumn["data"][], s: number, m: number, validity: Uint8Array): void {
  duckdb.data_chunk_set_size(chunk, m);
  for (let j = 0; j < columns.length; j++) {
    const col = columns[j]!, d = data[j];
    const v = duckdb.data_chunk_get_vector(chunk, j);
    if (d) duckdb.copy_data_to_vector(v, 0, d.buffer as ArrayBuffer, d.byteOffset + s * d.BYTES_PER_ELEMENT, m * d.BYTES_PER_ELEMENT);
    if (col.isNull) {
      // chunks are reused: a nullable column's validity is written whole every time
      validity.fill(0);
      for (let i = 0; i < m; i++) if (!col.isNull(s + i)) validity[i >> 3] = validity[i >> 3]! | (1 << (i & 7));
      duckdb.vector_ensure_validity_writable(v);
      duckdb.copy_data_to_vector_validity(v, 0, validity.buffer as ArrayBuffer, 0, Math.ceil(m / 64) * 8);
    }
  }
}

/** Rows per part below which insertColumns does not split the rows. */
const MIN_PART_ROWS = 1 << 17;

/**
 * Inserts `n` rows of `columns` (in the table's column order, of the table's `types`: columnTypes)
 * into the empty `table`; null when done, else why not (nothing inserted). An appender would do it on this thread, and most of the
 * time is DuckDB's (column statistics, storage): here the rows are split in two parts, each read
 * by DuckDB through a table function over the arrays (its calls copy a chunk, on this thread) and
 * inserted by its own connection and transaction, so both parts are stored at once on DuckDB's
 * threads. The transactions commit in part order, so the rows keep their order (and rowids).
 */
async function insertColumns(
  conn: DuckDBConnection, connect: () => Promise<DuckDBConnection>, table: string, n: number, types: duckdb.LogicalType[], columns: (AppendColumn & { name: string })[],
): Promise<string | null> {
  const parts = Math.max(1, Math.min(2, Math.floor(n / MIN_PART_ROWS)));
  const per = Math.ceil(n / parts / CHUNK) * CHUNK;
  const opened: DuckDBConnection[] = [];
  try {
    const raw = (conn as unknown as { connection?: duckdb.Connection }).connection;
    if (!raw) throw new Error("the connection's binding handle is not reachable");
    const data = physicalData(columns, types, n);
    const fn = duckdb.create_table_function();
    const name = `interchange_rows_${table}`;
    duckdb.table_function_set_name(fn, name);
    duckdb.table_function_add_parameter(fn, duckdb.create_logical_type(duckdb.Type.INTEGER));
    const guard = <I,>(setError: (info: I, e: string) => void, body: (info: I) => void) => (info: I) => {
      try {
        body(info);
      } catch (e) {
        setError(info, (e as Error).message);
      }
    };
    duckdb.table_function_set_bind(fn, guard(duckdb.bind_set_error, (info) => {
      columns.forEach((c, j) => duckdb.bind_add_result_column(info, c.name, types[j]!));
      const part = duckdb.get_int32(duckdb.bind_get_parameter(info, 0));
      duckdb.bind_set_bind_data(info, { from: part * per, to: Math.min(n, (part + 1) * per) });
    }));
    duckdb.table_function_set_init(fn, guard(duckdb.init_set_error, (info) => {
      const { from, to } = duckdb.init_get_bind_data(info) as { from: number; to: number };
      duckdb.init_set_init_data(info, { next: from, to, validity: new Uint8Array(CHUNK / 8) });
      duckdb.init_set_max_threads(info, 1);
    }));
    duckdb.table_function_set_function(fn, (info, out) => {
      try {
        const st = duckdb.function_get_init_data(info) as { next: number; to: number; validity: Uint8Array };
        const m = Math.max(0, Math.min(CHUNK, st.to - st.next));
        if (m > 0) fillChunk(out, columns, data, st.next, m, st.validity);
        else duckdb.data_chunk_set_size(out, 0);
        st.next += m;
      } catch (e) {
        duckdb.function_set_error(info, (e as Error).message);
      }
    });
    duckdb.register_table_function(raw, fn);
    for (let p = 0; p < parts; p++) opened.push(await connect());
    await Promise.all(opened.map((c) => c.run("BEGIN TRANSACTION")));
    const inserted = await Promise.allSettled(opened.map((c, p) => c.run(`INSERT INTO ${table} SELECT * FROM ${name}(${p})`)));
    const failed = inserted.find((r) => r.status === "rejected");
    if (failed) {
      for (const c of opened) {
        try {
          await c.run("ROLLBACK");
        } catch { /* the failed part's transaction may be gone already: its connection is closed below */ }
      }
      return `inserting failed: ${(failed as PromiseRejectedResult).reason?.message ?? failed.reason}`;
    }
    for (const c of opened) await c.run("COMMIT");
    return null;
  } catch (e) {
    return `inserting failed: ${(e as Error).message}`;
  } finally {
    for (const c of opened) c.closeSync();
  }
}

/** Appends `n` rows of `columns` (in the table's column order) to `table`; null when done, else why not. */
async function appendColumns(conn: DuckDBConnection, table: string, n: number, columns: AppendColumn[]): Promise<string | null> {
  const app = await conn.createAppender(table);
  try {
    const raw = (app as unknown as { appender?: duckdb.Appender }).appender;
    if (!raw) throw new Error("the appender's binding handle is not reachable");
    const types = columns.map((_, j) => duckdb.appender_column_type(raw, j));
    const data = physicalData(columns, types, n);
    const chunk = duckdb.create_data_chunk(types);
    const validity = new Uint8Array(CHUNK / 8);
    for (let s = 0; s < n; s += CHUNK) {
      fillChunk(chunk, columns, data, s, Math.min(CHUNK, n - s), validity);
      duckdb.append_data_chunk(raw, chunk);
    }
  } catch (e) {
    closeQuietly(app);
    return `appending failed: ${(e as Error).message}`;
  }
  app.closeSync();
  return null;
}

/** (tix, seq) strictly ascending row by row: st0 is in the order the later steps need, unsorted. */
export function fastInOrder(r: FastRows): boolean {
  const { tix } = r, { seq } = r.fast;
  for (let i = 1; i < tix.length; i++) if (tix[i]! < tix[i - 1]! || (tix[i] === tix[i - 1] && seq[i]! <= seq[i - 1]!)) return false;
  return true;
}

/** The table trip_check as fastTripCheck computes it, a column per field, and whether a check changes a row. */
export interface FastTripCheck {
  trips: number;
  columns: {
    tix: Int32Array; n: Int32Array; dup: Uint8Array; missing: Uint8Array; back: Uint8Array; interp: Uint8Array;
    firstDep: Int32Array; lastArr: Int32Array; h1: BigInt64Array; h2: BigInt64Array;
  };
  /**
   * some trip has a duplicate stop_sequence, fewer than 2 stop times, no time at its first or last
   * stop, times going backwards, or a time to interpolate: the checks of ../tables/trip-check.ts
   * change rows (else they change none: the fast reader's rows have known trips and stops and valid
   * stop_sequences and times)
   */
  changesRows: boolean;
}

/**
 * The table trip_check (see ../tables/trip-check.ts, tripCheckSql) of the rows `r`, in JavaScript
 * (written by writeTripCheck): per trip its stop count, the checks, first departure, last arrival,
 * and a stop pattern key. The SQL groups trips by a digest of their (position, stop) pairs (n, h1,
 * h2); here h1 numbers the distinct stop sequences exactly (compared stop by stop) and h2 is 0,
 * which groups the trips the same way. Valid for st0 while it holds exactly these rows.
 */
export function fastTripCheck(r: FastRows): FastTripCheck {
  const { tix, stopRef } = r, { seq, arr, dep } = r.fast;
  const rows = tix.length;
  const out = {
    tix: new Int32Array(rows), n: new Int32Array(rows), dup: new Uint8Array(rows), missing: new Uint8Array(rows), back: new Uint8Array(rows),
    interp: new Uint8Array(rows), firstDep: new Int32Array(rows), lastArr: new Int32Array(rows), h1: new BigInt64Array(rows), h2: new BigInt64Array(rows),
  };
  const patterns = new Map<number, number[]>(); // digest -> first row of each distinct sequence with it
  const patternId = new Map<number, number>(); // first row -> pattern number
  let trips = 0, changesRows = false;
  for (let from = 0; from < rows; ) {
    let to = from + 1;
    while (to < rows && tix[to] === tix[from]) to++;
    const n = to - from;
    let dup = 0, missing = 0, back = 0, interp = 0, prevD = NULL_INT, firstDep = NULL_INT, lastArr = NULL_INT, h = 0x811c9dc5 | 0;
    for (let k = 0; k < n; k++) {
      const i = from + k;
      const A = arr[i]!, D = dep[i]!;
      const a = A !== NULL_INT ? A : D, d = D !== NULL_INT ? D : A;
      if (k > 0 && seq[i] === seq[i - 1]) dup = 1;
      if (a === NULL_INT) {
        interp = 1;
        if (k === 0 || k === n - 1) missing = 1;
      } else {
        if ((d !== NULL_INT && a > d) || (prevD !== NULL_INT && a < prevD)) back = 1;
        if (lastArr === NULL_INT || a > lastArr) lastArr = a;
      }
      if (d !== NULL_INT) {
        if (firstDep === NULL_INT || d < firstDep) firstDep = d;
        prevD = d;
      }
      h = Math.imul(h ^ stopRef[i]!, 0x01000193);
    }
    // the trip's stop sequence: the pattern of an earlier trip with the same stops, or a new one
    const cands = patterns.get(h);
    let first = cands?.find((f) => sameStops(stopRef, f, from, n, tix));
    if (first === undefined) {
      first = from;
      if (cands) cands.push(from);
      else patterns.set(h, [from]);
      patternId.set(from, patternId.size);
    }
    out.tix[trips] = tix[from]!;
    out.n[trips] = n;
    out.dup[trips] = dup;
    out.missing[trips] = missing;
    out.back[trips] = back;
    out.interp[trips] = interp;
    out.firstDep[trips] = firstDep;
    out.lastArr[trips] = lastArr;
    out.h1[trips] = BigInt(patternId.get(first)!);
    if (dup || missing || back || interp || n < 2) changesRows = true;
    trips++;
    from = to;
  }
  return { trips, columns: out, changesRows };
}

/** Writes the table trip_check of `c` (fastTripCheck); null when done, else why not. */
export async function writeTripCheck(conn: DuckDBConnection, c: FastTripCheck): Promise<string | null> {
  const out = c.columns;
  await conn.run(`CREATE OR REPLACE TABLE trip_check (tix INTEGER, n INTEGER, dup_seq BOOLEAN, missing_terminal BOOLEAN, backwards BOOLEAN,
      needs_interp BOOLEAN, first_dep INTEGER, last_arr INTEGER, h1 BIGINT, h2 BIGINT)`);
  const nullable = (a: Int32Array): AppendColumn => ({ data: a, isNull: (i) => a[i] === NULL_INT });
  return appendColumns(conn, "trip_check", c.trips, [
    { data: out.tix }, { data: out.n }, { data: out.dup }, { data: out.missing }, { data: out.back }, { data: out.interp },
    nullable(out.firstDep), nullable(out.lastArr), { data: out.h1 }, { data: out.h2 },
  ]);
}

/** The trip at row `from` (n rows) has the same stops as the trip starting at row `first`. */
function sameStops(stopRef: Int32Array, first: number, from: number, n: number, tix: Int32Array): boolean {
  if (first + n > stopRef.length || (first + n < tix.length && tix[first + n] === tix[first]) || tix[first + n - 1] !== tix[first]) return false;
  for (let k = 0; k < n; k++) if (stopRef[first + k] !== stopRef[from + k]) return false;
  return true;
}

function closeQuietly(app: DuckDBAppender): void {
  try {
    app.closeSync();
  } catch {
    /* the table is dropped anyway */
  }
}
