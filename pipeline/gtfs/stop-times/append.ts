/**
 * The fast reader's columns (fast.ts) into st0, the table the stop_times module (../tables/stop-times.ts) makes of
 * stop_times.txt: the same columns, types and rows its direct path would make of the same file.
 * The values go in a chunk of 2048 rows at a time, each column copied as a block of memory (the
 * binding's data-chunk calls: node-api's per-vector objects rebuild an ENUM type's value list for
 * every chunk): st0's rows through a table function, in two parts inserted at once
 * (insertColumns), trip_check's through an appender.
 */
import type { DuckDBAppender, DuckDBConnection } from "@duckdb/node-api";
import duckdb from "@duckdb/node-bindings";
import { sqlString, stringColumns } from "../../duck.ts";
import { Task } from "../../tasks.ts";
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

/** What st0 holds after appendFastStopTimes, per row in st0's order, for checks made in JavaScript (fastTripCheck). */
export interface FastRows {
  tix: Int32Array;
  stopRef: Int32Array;
  seq: Int32Array;
  arr: Int32Array;
  dep: Int32Array;
  /** when the file has the column (NULL_INT when empty) */
  pickup?: Int32Array;
  dropOff?: Int32Array;
  /** the file's rows were not in (tix, stop_sequence) order: st0 has them sorted (rid still the place in the file) */
  sorted: boolean;
  /** st0's columns */
  columns: string[];
}

/** Each trip_id's tix and each stop_id's stop id (stop ids start at `stopBase`). */
export interface IdPositions {
  tixOf: Map<string, number>;
  refOf: Map<string, number>;
  stopBase: number;
}

/** t1's trip ids (in tix order) and the stops' ids (in id order, from `stopBase`), as IdPositions: all appendFastStopTimes needs of the database besides st0. */
export async function idPositions(conn: DuckDBConnection, stopBase: number): Promise<IdPositions> {
  const [tripIds] = await stringColumns(conn, `(SELECT tix AS id, trip_id FROM t1)`, ["trip_id"]);
  const [stopIds] = await stringColumns(conn, "stops", ["stop_id"]);
  return { tixOf: new Map(tripIds!.map((id, k) => [id, k + 1])), refOf: new Map(stopIds!.map((id, k) => [id, stopBase + k])), stopBase };
}

/**
 * Creates st0 from `fast` when every trip_id is one of t1's and every stop_id one of stops' (the
 * ENUM types trip_enum and stop_enum hold them in tix and id order; stop ids start at `stopBase`)
 * and returns its rows; otherwise creates nothing and says why (the direct path then reads the
 * file). `optional`: the optional columns st0 keeps (the file's), with their SQL types. st0 gets
 * rid (the row's place in the file) like the direct path's, and is in (tix, stop_sequence) order
 * (sorted here when the file is not).
 */
export async function appendFastStopTimes(
  conn: DuckDBConnection, connect: () => Promise<DuckDBConnection>, fast: FastStopTimes, ids: IdPositions, optional: ReadonlyArray<readonly [name: string, type: string]>,
): Promise<FastRows | string> {
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
  // st0 (and the column types of its rows) made by DuckDB while the rows are mapped here
  const hsType = fast.headsigns?.length ? "st_headsign" : "VARCHAR";
  const spec: [name: string, type: string][] = [
    ["trip_id", "trip_enum"], ["stop_id", "stop_enum"], ["seq", "INTEGER"], ["arr", "INTEGER"], ["dep", "INTEGER"],
    ...optional.map(([c, t]): [string, string] => [c, c === "stop_headsign" ? hsType : t]),
    ["tix", "INTEGER"], ["stop_ref", "INTEGER"], ["rid", "BIGINT"],
  ];
  const headsigns = fast.headsigns;
  const table = new Task("create st0", async () => {
    if (hsType === "st_headsign") await conn.run(`CREATE TYPE st_headsign AS ENUM (${headsigns!.map(sqlString).join(", ")})`);
    await conn.run(`CREATE TABLE st0 (${spec.map(([c, t]) => `${c} ${t}`).join(", ")})`);
    return columnTypes(conn, "st0", spec.length);
  });
  const n = fast.rows;
  // per row: tix and stop_ref (the ENUM codes are tix - 1 and stop_ref - stopBase), rid
  let tix = new Int32Array(n), stopRef = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    tix[i] = codeTix[fast.trip[i]!]!;
    stopRef[i] = codeRef[fast.stop[i]!]!;
  }
  // st0 is in (tix, stop_sequence) order: a file in another order is sorted here, each row keeping
  // its rid (its place in the file), as the other paths sort st0 in SQL
  const order = tripOrder(tix, fast.seq, tixOf.size);
  if (order) {
    fast = permuted(fast, order);
    [tix, stopRef] = [pick(tix, order), pick(stopRef, order)];
  }
  const rid = rowNumbers(n, order);
  const ints = (a: Int32Array): AppendColumn => ({ data: a, isNull: a.includes(NULL_INT) ? (i) => a[i] === NULL_INT : undefined });
  const enumCodes = (values: Int32Array, offset: number): AppendColumn => ({ data: values, enumOffset: offset });
  const columns: AppendColumn[] = [enumCodes(tix, 1), enumCodes(stopRef, stopBase), { data: fast.seq }, ints(fast.arr), ints(fast.dep)];
  for (const [c] of optional) {
    if (c === "stop_headsign") {
      const h = fast.headsign!;
      columns.push(hsType === "st_headsign" ? { data: h, enumOffset: 0, isNull: h.includes(-1) ? (i) => h[i]! < 0 : undefined } : { data: null, isNull: () => true });
    } else if (c === "shape_dist_traveled") {
      const d = fast.shapeDist!;
      columns.push({ data: d, isNull: d.some(Number.isNaN) ? (i) => Number.isNaN(d[i]!) : undefined });
    } else columns.push(ints(fast.ints[c]!));
  }
  columns.push({ data: tix }, { data: stopRef }, { data: rid });
  const types = await table.result().catch((e: Error) => `making st0 failed: ${e.message}`);
  const why = typeof types === "string" ? types : await insertColumns(conn, connect, "st0", n, types, columns.map((col, j) => ({ ...col, name: spec[j]![0] })));
  if (why !== null) {
    await conn.run(`DROP TABLE IF EXISTS st0`);
    return why;
  }
  return { tix, stopRef, seq: fast.seq, arr: fast.arr, dep: fast.dep, pickup: fast.ints.pickup_type, dropOff: fast.ints.drop_off_type, sorted: order !== null, columns: spec.map(([c]) => c) };
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
interface AppendColumn {
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
  const { tix, seq } = r;
  for (let i = 1; i < tix.length; i++) if (tix[i]! < tix[i - 1]! || (tix[i] === tix[i - 1] && seq[i]! <= seq[i - 1]!)) return false;
  return true;
}

/**
 * The table trip_check (see ../tables/trip-check.ts, tripCheckSql) from st0's rows in JavaScript, when they are in
 * (tix, seq) order and none was deleted since appendFastStopTimes: per trip its stop count, the
 * checks, first departure, last arrival, and a stop pattern key. The SQL groups trips by a digest
 * of their (position, stop) pairs (n, h1, h2); here h1 numbers the distinct stop sequences exactly
 * (compared stop by stop) and h2 is 0, which groups the trips the same way.
 */
export async function fastTripCheck(conn: DuckDBConnection, r: FastRows): Promise<string | null> {
  const { tix, stopRef, seq, arr, dep } = r;
  const rows = tix.length;
  const out = {
    tix: new Int32Array(rows), n: new Int32Array(rows), dup: new Uint8Array(rows), missing: new Uint8Array(rows), back: new Uint8Array(rows),
    interp: new Uint8Array(rows), firstDep: new Int32Array(rows), lastArr: new Int32Array(rows), h1: new BigInt64Array(rows), h2: new BigInt64Array(rows),
  };
  const patterns = new Map<number, number[]>(); // digest -> first row of each distinct sequence with it
  const patternId = new Map<number, number>(); // first row -> pattern number
  let trips = 0;
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
    trips++;
    from = to;
  }
  await conn.run(`CREATE OR REPLACE TABLE trip_check (tix INTEGER, n INTEGER, dup_seq BOOLEAN, missing_terminal BOOLEAN, backwards BOOLEAN,
      needs_interp BOOLEAN, first_dep INTEGER, last_arr INTEGER, h1 BIGINT, h2 BIGINT)`);
  const nullable = (a: Int32Array): AppendColumn => ({ data: a, isNull: (i) => a[i] === NULL_INT });
  return appendColumns(conn, "trip_check", trips, [
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
