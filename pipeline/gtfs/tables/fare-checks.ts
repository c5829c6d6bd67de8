/**
 * What the fare table modules (fare-attributes.ts, fare-rules.ts, fares-v2.ts) share: a check that
 * reports the rows of a working table matching a condition under one warning kind and deletes them
 * (counted as skipped rows of the file), and the SQL of the values they parse.
 */
import { TABLE_BY_NAME } from "../../schema/catalog.ts";
import type { BuildContext } from "../build.ts";

/**
 * Reports the rows of `table` (a working table with the raw row's `rid`) where `where` holds as
 * `kind` of `file`, with `message` (SQL over the row), and deletes them. Returns how many.
 */
export async function skipRows(ctx: BuildContext, file: string, table: string, kind: string, where: string, message: string): Promise<number> {
  const n = ctx.skip(file, await ctx.reportSkipped(kind, file, `SELECT * FROM ${table} WHERE ${where}`, message));
  if (n) await ctx.conn.run(`DELETE FROM ${table} WHERE ${where}`);
  return n;
}

/**
 * Most feeds have no fare files, or only some: a module whose file has no rows makes its empty
 * table in one statement (the checks would cost ~10 ms a module for nothing). Returns true then.
 */
export async function emptyWhenAbsent(ctx: BuildContext, file: string, table: string): Promise<boolean> {
  if ((ctx.raw.get(file)?.rows ?? 0) > 0) return false;
  const cols = TABLE_BY_NAME.get(table)!.columns.map((c) => (c.name === "feed_version_id" ? `${ctx.fvid}::INTEGER AS feed_version_id` : `NULL::${c.type} AS "${c.name}"`));
  await ctx.conn.run(`CREATE TABLE ${table} AS SELECT ${cols.join(", ")} LIMIT 0`);
  return true;
}

/** Rows after the first of each `key` (SQL column list) in `table`, as a condition on rid. */
export const laterDuplicates = (table: string, key: string) =>
  `rid IN (SELECT rid FROM ${table} QUALIFY row_number() OVER (PARTITION BY ${key} ORDER BY rid) > 1)`;

/** SQL: a GTFS currency code (ISO 4217, three letters) in upper case, or NULL when `x` is not one. */
export const currencyCode = (x: string) => `CASE WHEN regexp_full_match(${x}, '[A-Za-z]{3}') THEN upper(${x}) END`;

/** SQL: a decimal amount (`2.50`, `100`, `-0.5`), or NULL when `x` is not one. */
export const decimal = (x: string) => `CASE WHEN regexp_full_match(${x}, '-?[0-9]+(\\.[0-9]*)?|-?\\.[0-9]+') THEN TRY_CAST(${x} AS DOUBLE) END`;

/** SQL: a non-negative integer written as plain digits, or NULL. */
export const count = (x: string) => `CASE WHEN regexp_full_match(${x}, '[0-9]{1,9}') THEN TRY_CAST(${x} AS INTEGER) END`;
