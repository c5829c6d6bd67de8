/**
 * Loads each GTFS file into a DuckDB table `raw_<name>` of trimmed VARCHAR columns (NULL for empty
 * values and for optional columns the file lacks), keeping file order so `rowid + 2` is the line
 * number (adjusted for rows the CSV reader rejected, and where needed by a line map, see lineOf).
 * Unparsable rows (too many fields, broken quoting) are skipped and reported as
 * `csv_unparsable`. Lines of only spaces or tabs are ignored like empty lines. A file the caller
 * asks to defer (stop_times.txt) is not loaded here: its table module (tables/stop-times.ts) reads
 * it straight into its typed table when it can, and through loadDeferred (the same raw table) otherwise.
 */
import type { DuckDBConnection } from "@duckdb/node-api";
import { sqlString } from "../../shared/sql.ts";
import { closeSync, existsSync, openSync, readSync, statSync } from "node:fs";
import { join } from "node:path";
import { DataError, Issues } from "../report.ts";
import type { Task } from "../tasks.ts";

/**
 * A GTFS file as the importer reads it (the table modules declare theirs: tables/index.ts
 * GTFS_FILES). `required` columns missing from a present file reject the feed; optional columns
 * missing are read as NULL. Extra columns are ignored.
 */
export interface GtfsFileSpec {
  file: string;
  /** the feed is rejected when this file is missing */
  required: boolean;
  required_columns: readonly string[];
  optional_columns: readonly string[];
}

export interface RawTable {
  spec: GtfsFileSpec;
  present: boolean;
  rows: number;
  /** sorted line numbers of rejected rows (reader lines, see LineMap), to turn rowids into line numbers */
  rejectedLines: number[];
  /** the CSV file, for line numbers */
  path?: string;
  /** made on first use by lineMapOf; null when reader lines are the file's lines */
  lineMap?: LineMap | null;
  /** set while a deferred file (see loadRawTables) is not read yet; `ready()` settles once it is fully written */
  deferred?: { ready: () => Promise<void> };
}

/**
 * DuckDB's CSV reader numbers lines without counting newlines inside quoted values ("reader
 * lines"): that is what its rejects table says, and what `rowid + 2` plus the rejected lines give,
 * except that an empty line, which the reader skips, has no rowid. Line numbers are only needed for
 * warning examples, so a file is looked at when its first example needs one: one quick pass (native
 * searches, about 40 ms for 150 MB) tells whether it has a quote or an empty line at all; only then
 * does a byte-by-byte scan (about 4 times slower) find the quoted newlines and the empty lines.
 */
export interface LineMap {
  /** sorted reader lines that have no rowid: rejected rows and empty lines */
  skipped: number[];
  /** reader lines after at[i] are extra[i] physical lines further down (at ascending) */
  at: number[];
  extra: number[];
}

export const tableName = (file: string) => `raw_${file.replace(/\.txt$/, "")}`;
export const q = (ident: string) => `"${ident.replace(/"/g, '""')}"`;
const lit = sqlString;

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

/** Physical line (1 = header) where the row with this rowid starts. */
export function lineOf(raw: RawTable, rowid: number): number {
  let line = rowid + 2;
  for (const l of lineMapOf(raw)?.skipped ?? raw.rejectedLines) if (l <= line) line++;
  return physicalLine(raw, line);
}

/** Physical line of a reader line (see LineMap). */
export function physicalLine(raw: RawTable, readerLine: number): number {
  const m = lineMapOf(raw);
  if (!m || m.at.length === 0 || m.at[0]! >= readerLine) return readerLine;
  let lo = 0, hi = m.at.length - 1; // largest i with at[i] < readerLine
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (m.at[mid]! < readerLine) lo = mid;
    else hi = mid - 1;
  }
  return readerLine + m.extra[lo]!;
}

function lineMapOf(raw: RawTable): LineMap | null {
  if (raw.lineMap === undefined) raw.lineMap = raw.path && mayHaveOtherLines(raw.path) ? scanLines(raw.path, raw.rejectedLines) : null;
  return raw.lineMap;
}

/** Whether a file has a quote (so perhaps a quoted newline) or an empty line. */
function mayHaveOtherLines(path: string): boolean {
  const fd = openSync(path, "r");
  try {
    const buf = Buffer.allocUnsafe(1 << 22);
    let pos = 0, keep = 0; // the last 2 bytes of a block are searched again with the next one
    for (;;) {
      const n = readSync(fd, buf, keep, buf.length - keep, pos);
      if (n <= 0) return false;
      pos += n;
      const v = buf.subarray(0, keep + n);
      if (v.indexOf(0x22) >= 0 || v.indexOf("\n\n") >= 0 || v.indexOf("\n\r\n") >= 0) return true;
      keep = Math.min(2, v.length);
      buf.copyWithin(0, v.length - keep, v.length);
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * One pass over the bytes of a CSV file with quotes or empty lines, following the quoting
 * the way DuckDB's reader does (a quote opens a quoted value only at the start of a field; `""`
 * inside one is a quote): the reader lines holding quoted newlines, and the empty lines.
 */
function scanLines(path: string, rejectedLines: number[]): LineMap {
  const at: number[] = [], extra: number[] = [], empty: number[] = [];
  const fd = openSync(path, "r");
  try {
    const buf = Buffer.allocUnsafe(1 << 20);
    let line = 1, quotedNl = 0, lineLen = 0;
    let inQ = false, quoteSeen = false, fieldStart = true;
    let pos = 0;
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, pos);
      if (n <= 0) break;
      let i = pos === 0 && n >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? 3 : 0;
      pos += n;
      for (; i < n; i++) {
        const b = buf[i]!;
        if (quoteSeen) {
          quoteSeen = false;
          if (b === 0x22) continue; // "" inside quotes
          inQ = false;
        }
        if (inQ) {
          if (b === 0x22) quoteSeen = true;
          else if (b === 0x0a) {
            quotedNl++;
            if (at.length && at[at.length - 1] === line) extra[extra.length - 1] = quotedNl;
            else { at.push(line); extra.push(quotedNl); }
          }
        } else if (b === 0x0a) {
          if (lineLen === 0) empty.push(line);
          line++;
          lineLen = 0;
          fieldStart = true;
        } else if (b !== 0x0d) {
          lineLen++;
          if (b === 0x22 && fieldStart) inQ = true;
          fieldStart = b === 0x2c;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
  const skipped = [...rejectedLines, ...empty].sort((a, b) => a - b);
  return { skipped, at, extra };
}

/** How a present file is read: its header, the reader's column names and our projection. */
export interface CsvPlan {
  path: string;
  /** raw_<name> */
  name: string;
  /** the columns clause of read_csv (every header column, VARCHAR) */
  columns: string;
  /** our columns (NULL::VARCHAR for those the file lacks) plus the first field when that is not ours */
  select: string;
  /** our columns the file has */
  presentCols: string[];
  /** the column holding the file's first field (FIRST when it is not one of ours) */
  first: string;
}

/** The read_csv(...) call of a planned file (rejected rows go to table `rej`). */
export function csvReader(plan: CsvPlan, rej: string, parallel: boolean, encoding: string): string {
  return `read_csv(${lit(plan.path)}, header = true, auto_detect = false, columns = ${plan.columns},
           delim = ',', quote = '"', escape = '"', null_padding = true, store_rejects = true, parallel = ${parallel},
           rejects_table = ${lit(rej)}, rejects_scan = ${lit(`${rej}_scan`)}, max_line_size = 4194304, encoding = ${lit(encoding)})`;
}

/**
 * Every file of `files`, in order, into its raw table.
 * `pending`: files still being written (unpacked), by name: each is awaited (`ready()`) before it is read.
 * `defer`: files whose reading the caller does itself (tables/stop-times.ts reads stop_times.txt
 * straight into its typed table when it can): when present, their RawTable has `deferred` set and
 * nothing is read here; openDeferred then checks the header (once the file is written) and
 * loadDeferred reads it into its raw table like the others when the caller cannot do better.
 * `preloaded`: files read on another connection meanwhile (loadRawTable), taken at their place.
 */
export async function loadRawTables(
  conn: DuckDBConnection, dir: string, files: readonly GtfsFileSpec[], issues: Issues,
  opts: { pending?: Map<string, () => Promise<void>>; defer?: ReadonlySet<string>; preloaded?: Map<string, Task<PreloadedRaw>> } = {},
): Promise<Map<string, RawTable>> {
  const { pending, defer = new Set<string>(), preloaded } = opts;
  const out = new Map<string, RawTable>();
  for (const spec of files) {
    const path = join(dir, spec.file);
    const ready = pending?.get(spec.file) ?? (() => Promise.resolve());
    const pre = preloaded?.get(spec.file);
    if (pre) {
      // read on another connection meanwhile (loadRawTable): taken here, in file order, so its
      // error (if any) and its warnings come where reading it here would have put them
      const { table, issues: own } = await pre.result();
      issues.absorb(own);
      out.set(spec.file, table);
      continue;
    }
    // (a file still being unpacked is on its way: `pending` has it)
    if (defer.has(spec.file) && (existsSync(path) || pending?.has(spec.file))) {
      out.set(spec.file, { spec, present: true, rows: 0, rejectedLines: [], path, deferred: { ready } });
      continue;
    }
    await ready();
    const table: RawTable = { spec, present: true, rows: 0, rejectedLines: [], path };
    const plan = await planCsv(conn, table);
    if (plan) await readRaw(conn, table, plan, issues);
    out.set(spec.file, table);
  }
  // calendar.txt and calendar_dates.txt are each optional, but a feed needs one of them
  if (out.get("calendar.txt")!.rows === 0 && out.get("calendar_dates.txt")!.rows === 0) {
    throw new DataError("required file is missing or has no rows (a feed needs calendar.txt or calendar_dates.txt)", "calendar.txt");
  }
  return out;
}

/** A file read into its raw table by loadRawTable, with the warnings of that read. */
export interface PreloadedRaw {
  table: RawTable;
  issues: Issues;
}

/**
 * One file into its raw table as loadRawTables reads it, on `conn` (another connection of the same
 * database, so that it runs beside the other files), with warnings of its own: loadRawTables takes
 * the result (`preloaded`) at the file's place in the order.
 */
export async function loadRawTable(conn: DuckDBConnection, dir: string, spec: GtfsFileSpec, ready: Promise<void> = Promise.resolve()): Promise<PreloadedRaw> {
  const path = join(dir, spec.file);
  await ready;
  const issues = new Issues();
  const table: RawTable = { spec, present: true, rows: 0, rejectedLines: [], path };
  const plan = await planCsv(conn, table);
  if (plan) await readRaw(conn, table, plan, issues);
  return { table, issues };
}

/**
 * Header checks of a file and how to read it; null when the file is absent or has no header line
 * (a required one is then an error; an optional one gets an empty raw table, `present` false).
 */
async function planCsv(conn: DuckDBConnection, table: RawTable): Promise<CsvPlan | null> {
  const { spec } = table;
  const path = table.path!;
  const name = tableName(spec.file);
  const present = existsSync(path) && statSync(path).size > 0;
  const header = present ? readHeader(path) : [];
  if (!present || header.length === 0) {
    if (spec.required) throw new DataError(present ? "file is empty (no header line)" : "required file is missing", spec.file);
    const cols = [...spec.required_columns, ...spec.optional_columns].map((c) => `NULL::VARCHAR AS ${q(c)}`).join(", ");
    await conn.run(`CREATE TABLE ${name} AS SELECT ${cols || "NULL::VARCHAR AS dummy"} LIMIT 0`);
    table.present = false;
    table.path = undefined;
    return null;
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
  // The file's first field tells a line of only spaces or tabs from a row of empty values: when the
  // first column is not one of ours it is read too, as ${FIRST}, and dropped after the check.
  const first = presentCols.includes(readerCols[0]!) ? readerCols[0]! : FIRST;
  const select = wanted.map((c) => (readerCols.includes(c) ? q(c) : `NULL::VARCHAR AS ${q(c)}`)).join(", ") +
    (first === FIRST ? `, ${q(readerCols[0]!)} AS ${q(FIRST)}` : "");
  return { path, name, columns, select, presentCols, first };
}

/** A deferred file, once written: its plan (header checks as for any file), or null when absent or empty. */
export async function openDeferred(conn: DuckDBConnection, table: RawTable): Promise<CsvPlan | null> {
  await table.deferred!.ready();
  const plan = await planCsv(conn, table);
  if (!plan) table.deferred = undefined;
  return plan;
}

/** Read a deferred file into its raw table like every other file (the caller's fallback). */
export async function loadDeferred(conn: DuckDBConnection, table: RawTable, plan: CsvPlan, issues: Issues): Promise<void> {
  table.deferred = undefined;
  await readRaw(conn, table, plan, issues);
}

async function readRaw(conn: DuckDBConnection, table: RawTable, plan: CsvPlan, issues: Issues): Promise<void> {
  const { spec } = table;
  const { name, select, presentCols, first } = plan;
  const rej = `rej_${name}`;
  // DuckDB's parallel reader refuses null_padding together with a newline inside a quoted value
  // (legal CSV, e.g. a two-line stop_name): such a file is read again by the serial reader.
  let parallel = true;
  const read = async (encoding: string) => {
    await conn.run(`DROP TABLE IF EXISTS ${name}; DROP TABLE IF EXISTS ${rej}; DROP TABLE IF EXISTS ${rej}_scan`);
    const sql = () => `CREATE TABLE ${name} AS SELECT ${select} FROM ${csvReader(plan, rej, parallel, encoding)}`;
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
  await trimColumns(conn, name, presentCols, first);
  await recordRejects(conn, table, rej, Number((await conn.runAndReadAll(`SELECT count(*) AS n FROM ${name}`)).getRowObjects()[0]!.n), issues);
}

/**
 * After a file was read (`rowsRead` rows kept, rejected rows in table `rej`): its rejected lines,
 * reported as csv_unparsable, and its row count; the rejects tables are dropped.
 */
export async function recordRejects(conn: DuckDBConnection, table: RawTable, rej: string, rowsRead: number, issues: Issues): Promise<void> {
  const { spec } = table;
  const rejected = (await conn.runAndReadAll(`SELECT DISTINCT line, any_value(error_message) AS msg FROM ${rej} GROUP BY line ORDER BY line`)).getRowObjects();
  table.rejectedLines = rejected.map((r) => Number(r.line));
  if (rejected.length) {
    issues.addMany(
      "csv_unparsable",
      rejected.length,
      rejected.slice(0, 5).map((r) => ({ file: spec.file, line: physicalLine(table, Number(r.line)), message: String(r.msg) })),
    );
  }
  await conn.run(`DROP TABLE IF EXISTS ${rej}; DROP TABLE IF EXISTS ${rej}_scan`);
  if (spec.required && rowsRead + rejected.length === 0) throw new DataError("file is empty (a header line but no rows)", spec.file);
  table.rows = rowsRead + rejected.length;
}

/** SQL: the VARCHAR expression `x` is empty or has leading or trailing whitespace (what trimming would change). */
export const untrimmed = (x: string) => `(${x} = '' OR ${x} LIKE ' %' OR ${x} LIKE '% ' OR ${x} LIKE chr(9) || '%' OR ${x} LIKE '%' || chr(9) OR ${x} LIKE '%' || chr(13))`;

/** name of the extra column holding the file's first field when that is not a GTFS column */
const FIRST = "__first_field";

/**
 * Values are trimmed and empty strings read as missing. Trimming every value costs as much as
 * reading the file, and real feeds rarely need it, so one aggregate pass finds the columns that do
 * and only those are rewritten (UPDATE keeps row order, so rowids still give line numbers).
 * The same pass tells whether the first field (column `first`) ever starts with a space or tab:
 * only then can a line of only spaces or tabs exist (the reader makes it a row whose first field is
 * that whitespace and the others NULL), and such rows are deleted like the empty lines the reader
 * skips. A deleted row keeps its rowid, so later rows keep their line numbers.
 */
async function trimColumns(conn: DuckDBConnection, table: string, columns: string[], first: string): Promise<void> {
  const checked = columns.includes(first) ? columns : [...columns, first];
  const cond = (c: string) => untrimmed(q(c));
  const flags = (await conn.runAndReadAll(`SELECT ${checked.map((c, i) => `bool_or(${cond(c)}) AS c${i}`).join(", ")} FROM ${table}`)).getRowObjects()[0]!;
  const dirty = checked.filter((_, i) => flags[`c${i}`] === true);
  if (dirty.includes(first)) {
    const others = columns.filter((c) => c !== first).map((c) => ` AND ${q(c)} IS NULL`).join("");
    await conn.run(`DELETE FROM ${table} WHERE ${q(first)} <> '' AND trim(${q(first)}, ' ' || chr(9) || chr(13)) = ''${others}`);
  }
  if (first === FIRST) await conn.run(`ALTER TABLE ${table} DROP COLUMN ${q(FIRST)}`);
  for (const c of dirty) if (c !== FIRST) await conn.run(`UPDATE ${table} SET ${q(c)} = NULLIF(trim(${q(c)}, ' ' || chr(9) || chr(13)), '') WHERE ${cond(c)}`);
}
