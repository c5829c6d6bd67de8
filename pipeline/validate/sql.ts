/**
 * Small DuckDB helpers of the validator: samples of a notice query as plain objects (BIGINT as
 * numbers), and counts.
 */
import type { DuckDBConnection } from "@duckdb/node-api";
import { MAX_SAMPLES, type NoticeFields } from "./notices.ts";

const plain = (v: unknown): string | number | boolean | null =>
  v == null ? null : typeof v === "bigint" ? Number(v) : typeof v === "number" || typeof v === "boolean" || typeof v === "string" ? v : String(v);

/** The first MAX_SAMPLES rows of a query, as notice samples. */
export async function sampleRows(conn: DuckDBConnection, sql: string): Promise<NoticeFields[]> {
  const rows = (await conn.runAndReadAll(`SELECT * FROM (${sql}) LIMIT ${MAX_SAMPLES}`)).getRowObjectsJS() as Record<string, unknown>[];
  return rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, plain(v)])));
}

export async function count(conn: DuckDBConnection, sql: string): Promise<number> {
  return Number((await conn.runAndReadAll(`SELECT count(*) FROM (${sql})`)).getRows()[0]![0]);
}
