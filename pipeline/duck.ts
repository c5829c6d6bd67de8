/**
 * Reading DuckDB results into JavaScript: rows as objects, a single number, and whole columns as
 * typed arrays or string arrays (the importer's and the timetable compiler's bulk reads).
 * Only types are imported from DuckDB at the top: `interchange import` loads DuckDB (~50 ms on
 * its thread) while the zip is unpacked (pipeline/import/session.ts), not when it starts.
 */
import type { DuckDBConnection } from "@duckdb/node-api";

/** Rows as objects (DuckDB values: BIGINT as bigint, DATE as DuckDBDateValue, ...). */
export async function rows(conn: DuckDBConnection, sql: string): Promise<Record<string, unknown>[]> {
  return (await conn.runAndReadAll(sql)).getRowObjects() as Record<string, unknown>[];
}

/** Rows as plain JavaScript objects (numbers, strings, arrays). */
export async function jsRows(conn: DuckDBConnection, sql: string): Promise<Record<string, unknown>[]> {
  return (await conn.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[];
}

/** The first column of the first row as a number (0 when there is no row or it is NULL). */
export async function scalar(conn: DuckDBConnection, sql: string): Promise<number> {
  const r = await rows(conn, sql);
  const v = r[0] ? Object.values(r[0])[0] : 0;
  return v == null ? 0 : Number(v);
}

const s = (v: unknown) => (v == null ? "" : String(v));
const num = (v: unknown, d = 0) => (v == null ? d : Number(v));

type NumArray = Int32Array | Float64Array;

/**
 * NOT NULL numeric columns (coalesce them in `sql`) as typed arrays: Int32Array for INTEGER columns,
 * Float64Array for DOUBLE ones, as `kinds` says (stop_times can have tens of millions of rows). The
 * result is materialised by DuckDB first (its threads run the whole query; streaming it chunk by
 * chunk ran it on one, and took twice as long), then copied chunk by chunk.
 */
export async function numColumns(conn: DuckDBConnection, sql: string, kinds: ("int" | "double")[], sizeHint = 1 << 16): Promise<NumArray[]> {
  let cap = Math.max(1, sizeHint);
  const alloc = (k: "int" | "double", size: number): NumArray => (k === "int" ? new Int32Array(size) : new Float64Array(size));
  let cols = kinds.map((k) => alloc(k, cap));
  let n = 0;
  const vectors = await import("@duckdb/node-api");
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
    copyChunk(vectors, chunk, cols, n);
    n += rc;
  }
  return cols.map((c) => (n === c.length ? c : c.slice(0, n)));
}

type DuckApi = typeof import("@duckdb/node-api");

/**
 * A result chunk's first `cols.length` columns (numeric, no NULLs: a NULL reads 0) copied into
 * `cols` from index `at`. INTEGER and DOUBLE vectors keep their data in a typed array (`items`, not
 * part of the typed API): copied whole when the column is of the same type, value by value into
 * another (a Uint8Array keeps the low byte); any other vector takes the per-item path.
 */
function copyChunk(api: DuckApi, chunk: import("@duckdb/node-api").DuckDBDataChunk, cols: (Int32Array | Float64Array | Uint8Array)[], at: number): void {
  const rc = chunk.rowCount;
  for (let j = 0; j < cols.length; j++) {
    const v = chunk.getColumnVector(j);
    const col = cols[j]!;
    const items = v instanceof api.DuckDBIntegerVector || v instanceof api.DuckDBDoubleVector ? (v as unknown as { items?: unknown }).items : undefined;
    if ((items instanceof Int32Array || items instanceof Float64Array) && items.length === rc) {
      if (items.constructor === col.constructor) col.set(items, at);
      else for (let i = 0; i < rc; i++) col[at + i] = items[i]!;
    } else for (let i = 0; i < rc; i++) col[at + i] = (v.getItem(i) as number | null) ?? 0;
  }
}

/**
 * String columns of `rel` in `id` order, null as "": each column is fetched as one string_agg value
 * and split in JavaScript (turning bus_bk's 58 k trips into row objects value by value took ~100 ms,
 * this way ~10 ms). When some value contains the separator (U+001F), the rows are read instead.
 */
export async function stringColumns(conn: DuckDBConnection, rel: string, cols: string[]): Promise<string[][]> {
  const v = (c: string) => `coalesce(CAST(${c} AS VARCHAR), '')`;
  const [r] = await jsRows(conn, `SELECT count(*) AS n, ${cols.map((c) => `coalesce(bool_or(contains(${v(c)}, chr(31))), false)`).join(" OR ")} AS bad,
      ${cols.map((c, i) => `string_agg(${v(c)}, chr(31) ORDER BY id) AS c${i}`).join(", ")} FROM ${rel}`);
  if (r!.bad) {
    const all = await jsRows(conn, `SELECT ${cols.join(", ")} FROM ${rel} ORDER BY id`);
    return cols.map((c) => all.map((row) => s(row[c])));
  }
  const n = num(r!.n);
  return cols.map((_, i) => {
    const out = n === 0 ? [] : String(r![`c${i}`]).split("\u001f");
    if (out.length !== n) throw new Error(`${rel}: ${cols[i]} read ${out.length} values for ${n} rows`);
    return out;
  });
}

/**
 * NOT NULL INTEGER columns of `sql` written into `into` (one array per column; an Int32Array takes
 * the values as they are, a Uint8Array their low byte) from index `at` on, chunk by chunk (the
 * result materialised by DuckDB first, as numColumns does); the number of rows. Throws when the
 * result has more rows than the arrays hold from `at`.
 */
export async function intColumnsInto(conn: DuckDBConnection, sql: string, into: (Int32Array | Uint8Array)[], at: number): Promise<number> {
  const api = await import("@duckdb/node-api");
  const res = await conn.run(sql);
  let n = 0;
  for (let ci = 0; ci < res.chunkCount; ci++) {
    const chunk = res.getChunk(ci);
    const rc = chunk.rowCount;
    if (rc === 0) continue;
    if (at + n + rc > into[0]!.length) throw new Error(`more rows than the ${into[0]!.length - at} expected: ${sql}`);
    copyChunk(api, chunk, into, at + n);
    n += rc;
  }
  return n;
}

export const intColumns = async (conn: DuckDBConnection, sql: string, nCols: number, sizeHint?: number) =>
  (await numColumns(conn, sql, Array(nCols).fill("int"), sizeHint)) as Int32Array[];

