/**
 * Loads each GTFS file into a DuckDB table `raw_<name>` of trimmed VARCHAR columns (NULL for empty
 * values and for optional columns the file lacks), keeping file order so `rowid + 2` is the line
 * number (adjusted for rows the CSV reader rejected). Unparsable rows (too many fields, broken
 * quoting) are skipped and reported as `csv_unparsable`.
 */
import type { DuckDBConnection } from "@duckdb/node-api";
import { closeSync, existsSync, openSync, readSync, statSync } from "node:fs";
import { join } from "node:path";
import { GTFS_FILES, type GtfsFileSpec } from "./files.ts";
import { DataError, type Issues } from "../report.ts";

export interface RawTable {
  spec: GtfsFileSpec;
  present: boolean;
  rows: number;
  /** sorted line numbers of rejected rows, to turn rowids into line numbers */
  rejectedLines: number[];
}

export const tableName = (file: string) => `raw_${file.replace(/\.txt$/, "")}`;
export const q = (ident: string) => `"${ident.replace(/"/g, '""')}"`;
export const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;

/** Parse the header line of a CSV file (BOM stripped, names trimmed). */
export function readHeader(path: string): string[] {
  const fd = openSync(path, "r");
  try {
    const buf = Buffer.alloc(65536);
    const n = readSync(fd, buf, 0, buf.length, 0);
    let text = buf.subarray(0, n).toString("utf8");
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    const end = text.search(/\r?\n/);
    const line = end >= 0 ? text.slice(0, end) : text;
    const out: string[] = [];
    let cur = "", inQ = false;
    for (let i = 0; i < line.length; i++) {
      const ch = line[i]!;
      if (inQ) {
        if (ch === '"' && line[i + 1] === '"') { cur += '"'; i++; }
        else if (ch === '"') inQ = false;
        else cur += ch;
      } else if (ch === '"') inQ = true;
      else if (ch === ",") { out.push(cur.trim()); cur = ""; }
      else cur += ch;
    }
    out.push(cur.trim());
    return out.length === 1 && out[0] === "" ? [] : out;
  } finally {
    closeSync(fd);
  }
}

export function lineOf(raw: RawTable, rowid: number): number {
  let line = rowid + 2;
  for (const l of raw.rejectedLines) if (l <= line) line++;
  return line;
}

export async function loadRawTables(conn: DuckDBConnection, dir: string, issues: Issues): Promise<Map<string, RawTable>> {
  const out = new Map<string, RawTable>();
  for (const spec of GTFS_FILES) {
    const path = join(dir, spec.file);
    const name = tableName(spec.file);
    const present = existsSync(path) && statSync(path).size > 0;
    const header = present ? readHeader(path) : [];
    if (!present || header.length === 0) {
      if (spec.required) throw new DataError(present ? "file is empty (no header line)" : "required file is missing", spec.file);
      const cols = [...spec.required_columns, ...spec.optional_columns].map((c) => `NULL::VARCHAR AS ${q(c)}`).join(", ");
      await conn.run(`CREATE TABLE ${name} AS SELECT ${cols || "NULL::VARCHAR AS dummy"} LIMIT 0`);
      out.set(spec.file, { spec, present: false, rows: 0, rejectedLines: [] });
      continue;
    }
    for (const col of spec.required_columns) {
      if (!header.includes(col)) throw new DataError(`required column "${col}" is missing (header: ${header.join(",")})`, spec.file, 1);
    }
    // Unique names for the reader; duplicated header names keep the first occurrence.
    const seen = new Map<string, number>();
    const readerCols = header.map((h, i) => {
      const base = h || `column_${i}`;
      const k = seen.get(base) ?? 0;
      seen.set(base, k + 1);
      return k === 0 ? base : `${base}__dup${k}`;
    });
    const columns = `{${readerCols.map((c) => `${lit(c)}: 'VARCHAR'`).join(", ")}}`;
    const wanted = [...spec.required_columns, ...spec.optional_columns];
    const presentCols = wanted.filter((c) => readerCols.includes(c));
    const select = wanted.map((c) => (readerCols.includes(c) ? q(c) : `NULL::VARCHAR AS ${q(c)}`)).join(", ");
    const rej = `rej_${name}`;
    // DuckDB's parallel reader refuses null_padding together with a newline inside a quoted value
    // (legal CSV, e.g. a two-line stop_name): such a file is read again by the serial reader.
    let parallel = true;
    const read = async (encoding: string) => {
      await conn.run(`DROP TABLE IF EXISTS ${name}; DROP TABLE IF EXISTS ${rej}; DROP TABLE IF EXISTS ${rej}_scan`);
      const sql = () =>
        `CREATE TABLE ${name} AS SELECT ${select} FROM read_csv(${lit(path)}, header = true, auto_detect = false, columns = ${columns},
           delim = ',', quote = '"', escape = '"', null_padding = true, store_rejects = true, parallel = ${parallel},
           rejects_table = ${lit(rej)}, rejects_scan = ${lit(`${rej}_scan`)}, max_line_size = 4194304, encoding = ${lit(encoding)})`;
      try {
        await conn.run(sql());
      } catch (e) {
        if (!parallel || !/quoted new ?lines/i.test((e as Error).message)) throw e;
        parallel = false;
        await conn.run(`DROP TABLE IF EXISTS ${name}; DROP TABLE IF EXISTS ${rej}; DROP TABLE IF EXISTS ${rej}_scan`);
        await conn.run(sql());
      }
    };
    try {
      await read("utf-8");
      // GTFS must be UTF-8; a file that is not is read as Latin-1 (the usual culprit) rather than losing rows
      const badEnc = Number((await conn.runAndReadAll(`SELECT count(*) AS n FROM ${rej} WHERE error_type = 'INVALID ENCODING'`)).getRowObjects()[0]!.n);
      if (badEnc > 0) {
        await read("latin-1");
        issues.add("non_utf8_encoding", { file: spec.file, message: `${badEnc} line(s) are not valid UTF-8; the file was read as Latin-1` });
      }
    } catch (e) {
      throw new DataError(`cannot parse CSV: ${(e as Error).message.split("\n")[0]}`, spec.file);
    }
    await trimColumns(conn, name, presentCols);
    const rejected = (await conn.runAndReadAll(`SELECT DISTINCT line, any_value(error_message) AS msg FROM ${rej} GROUP BY line ORDER BY line`)).getRowObjects();
    const rejectedLines = rejected.map((r) => Number(r.line));
    if (rejected.length) {
      issues.addMany(
        "csv_unparsable",
        rejected.length,
        rejected.slice(0, 5).map((r) => ({ file: spec.file, line: Number(r.line), message: String(r.msg) })),
      );
    }
    await conn.run(`DROP TABLE IF EXISTS ${rej}; DROP TABLE IF EXISTS ${rej}_scan`);
    const rows = Number((await conn.runAndReadAll(`SELECT count(*) AS n FROM ${name}`)).getRowObjects()[0]!.n);
    if (spec.required && rows + rejected.length === 0) throw new DataError("file is empty (a header line but no rows)", spec.file);
    out.set(spec.file, { spec, present: true, rows: rows + rejected.length, rejectedLines });
  }
  // calendar.txt and calendar_dates.txt are each optional, but a feed needs one of them
  if (out.get("calendar.txt")!.rows === 0 && out.get("calendar_dates.txt")!.rows === 0) {
    throw new DataError("required file is missing or has no rows (a feed needs calendar.txt or calendar_dates.txt)", "calendar.txt");
  }
  return out;
}

/**
 * Values are trimmed and empty strings read as missing. Trimming every value costs as much as
 * reading the file, and real feeds rarely need it, so one aggregate pass finds the columns that do
 * and only those are rewritten (UPDATE keeps row order, so rowids still give line numbers).
 */
async function trimColumns(conn: DuckDBConnection, table: string, columns: string[]): Promise<void> {
  if (columns.length === 0) return;
  const ws = `(x = '' OR x LIKE ' %' OR x LIKE '% ' OR x LIKE chr(9) || '%' OR x LIKE '%' || chr(9) OR x LIKE '%' || chr(13))`;
  const cond = (c: string) => ws.replaceAll("x", q(c));
  const flags = (await conn.runAndReadAll(`SELECT ${columns.map((c, i) => `bool_or(${cond(c)}) AS c${i}`).join(", ")} FROM ${table}`)).getRowObjects()[0]!;
  const dirty = columns.filter((_, i) => flags[`c${i}`] === true);
  for (const c of dirty) await conn.run(`UPDATE ${table} SET ${q(c)} = NULLIF(trim(${q(c)}, ' ' || chr(9) || chr(13)), '') WHERE ${cond(c)}`);
}
