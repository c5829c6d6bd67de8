/**
 * The validator's view of a feed folder: every GTFS file of the spec (gtfs-spec.ts) as a DuckDB
 * table `v_<name>` with every column of the spec (trimmed text, NULL when empty or when the file
 * lacks the column) and `__line`, the CSV row number (1 = header), plus `__ws` and `__nl`, bit
 * masks of the columns whose raw value had leading/trailing whitespace or a newline. Absent files
 * get an empty table, so that rules can name any file and column; so does stop_times.txt when the
 * fast reader's columns stand in for it (fast-stop-times.ts).
 *
 * File-level notices are raised here: missing_required_file, empty_file, unknown_file,
 * empty_column_name, duplicated_column, unknown_column, missing_required_column,
 * invalid_row_length, csv_parsing_failed (unreadable rows; files not in UTF-8: UTF-16 files are
 * transcoded, Latin-1 files read as Latin-1, so that the other rules still see their rows).
 */
import type { DuckDBConnection } from "@duckdb/node-api";
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sqlString } from "../../shared/sql.ts";
import { readHeader } from "../gtfs/load.ts";
import type { FastStopTimes } from "../gtfs/stop-times/fast.ts";
import type { FastStopTimesRead } from "./fast-stop-times.ts";
import { GTFS_SPEC, OTHER_KNOWN_FILES, type FileSpec } from "./gtfs-spec.ts";
import { Notices } from "./notices.ts";

export const vTable = (file: string) => `v_${file.replace(/\.txt$/, "")}`;
export const q = (ident: string) => `"${ident.replace(/"/g, '""')}"`;

export interface LoadedFile {
  spec: FileSpec;
  /** the file has a header line */
  present: boolean;
  rows: number;
  /** the header's names (as read) */
  header: string[];
  /** spec columns the header has, in spec order (index into the __ws/__nl masks) */
  columns: string[];
  /** stop_times.txt: the fast reader's columns, when they stand in for the file (its table is then empty) */
  fast?: FastStopTimes;
}

/** Files the caller has loaded some other way (the import's stop times): no table is made for them here. */
export interface LoadOptions {
  /** a folder for transcoded copies of files not in UTF-8 */
  scratchDir: string;
  skip?: ReadonlySet<string>;
  /** stop_times.txt being read by the fast reader: its columns are taken instead of a table when they can be (fast-stop-times.ts) */
  fastStopTimes?: FastStopTimesRead | null;
}

/** Whether a file starts with a UTF-16 byte-order mark, and which. */
function utf16Of(path: string): "utf-16le" | "utf-16be" | null {
  const fd = openSync(path, "r");
  try {
    const b = Buffer.alloc(2);
    if (readSync(fd, b, 0, 2, 0) < 2) return null;
    return b[0] === 0xff && b[1] === 0xfe ? "utf-16le" : b[0] === 0xfe && b[1] === 0xff ? "utf-16be" : null;
  } finally {
    closeSync(fd);
  }
}

/** The feed's files into their tables; file-level notices into `notices`. */
export async function loadFeed(conn: DuckDBConnection, dir: string, notices: Notices, opts: LoadOptions): Promise<Map<string, LoadedFile>> {
  const names = existsSync(dir) ? readdirSync(dir) : [];
  for (const n of names.sort()) {
    if (!GTFS_SPEC.some((s) => s.file === n) && !OTHER_KNOWN_FILES.has(n) && /\.(txt|geojson)$/i.test(n)) notices.add("unknown_file", { filename: n });
  }
  const out = new Map<string, LoadedFile>();
  // while the fast reader reads stop_times.txt, the files after it are read, their notices kept
  // aside and added after stop_times.txt's: the notices (and their samples) in the files' order
  let sink = notices;
  let pending: { f: LoadedFile; path: string } | null = null;
  for (const spec of GTFS_SPEC) {
    const f: LoadedFile = { spec, present: false, rows: 0, header: [], columns: [] };
    out.set(spec.file, f);
    if (opts.skip?.has(spec.file)) {
      f.present = true;
      continue;
    }
    let path = join(dir, spec.file);
    const exists = existsSync(path) && statSync(path).isFile();
    let utf16: ReturnType<typeof utf16Of> = null;
    if (exists && statSync(path).size > 0) {
      utf16 = utf16Of(path);
      if (utf16) {
        sink.add("csv_parsing_failed", { filename: spec.file, charIndex: 0, columnIndex: 0, lineIndex: 0, message: `file is ${utf16.toUpperCase()} encoded; GTFS files must be UTF-8 (read as ${utf16.toUpperCase()})`, parsedContent: null });
        mkdirSync(opts.scratchDir, { recursive: true });
        const copy = join(opts.scratchDir, spec.file);
        writeFileSync(copy, new TextDecoder(utf16).decode(readFileSync(path)));
        path = copy;
      }
      f.header = readHeader(path);
    }
    if (!exists || f.header.length === 0) {
      if (exists) sink.add("empty_file", { filename: spec.file });
      else if (spec.required) sink.add("missing_required_file", { filename: spec.file });
      await emptyTable(conn, spec);
      continue;
    }
    f.present = true;
    checkHeader(spec, f, sink);
    f.columns = spec.fields.map((c) => c.name).filter((c) => f.header.includes(c));
    if (spec.file === "stop_times.txt" && !utf16 && opts.fastStopTimes) {
      pending = { f, path };
      sink = new Notices();
      continue;
    }
    await readTable(conn, spec, f, path, sink);
    if (f.rows === 0 && spec.required) sink.add("empty_file", { filename: spec.file });
  }
  if (pending) {
    const { f, path } = pending;
    const fast = await opts.fastStopTimes!.take(f.header, new Set(f.spec.fields.map((c) => c.name)));
    if (fast) {
      // (the file as DuckDB would read it: fast.rows rows, none rejected)
      f.fast = fast;
      f.rows = fast.rows;
      await emptyTable(conn, f.spec);
    } else {
      await readTable(conn, f.spec, f, path, notices);
      if (f.rows === 0 && f.spec.required) notices.add("empty_file", { filename: f.spec.file });
    }
    notices.addAll(sink);
  }
  return out;
}



/**
 * Reads a file the fast reader stood in for after all (load.ts took its columns, the stop-time pass
 * could not): its table as loadFeed makes it. (A file the fast reader accepts gives no notice here.)
 */
export async function readTakenFile(conn: DuckDBConnection, dir: string, f: LoadedFile, notices: Notices): Promise<void> {
  f.fast = undefined;
  await readTable(conn, f.spec, f, join(dir, f.spec.file), notices);
}

async function emptyTable(conn: DuckDBConnection, spec: FileSpec): Promise<void> {
  const cols = spec.fields.map((c) => `NULL::VARCHAR AS ${q(c.name)}`).join(", ");
  const t = vTable(spec.file);
  await conn.run(`CREATE OR REPLACE TABLE ${t}_raw AS SELECT ${cols}, 0::BIGINT AS __ws, 0::BIGINT AS __nl LIMIT 0`);
  await conn.run(`CREATE OR REPLACE VIEW ${t} AS SELECT rowid + 2 AS __line, * FROM ${t}_raw`);
}

function checkHeader(spec: FileSpec, f: LoadedFile, notices: Notices): void {
  const known = new Set(spec.fields.map((c) => c.name));
  const first = new Map<string, number>();
  f.header.forEach((h, i) => {
    if (h === "") {
      notices.add("empty_column_name", { filename: spec.file, index: i });
      return;
    }
    const prev = first.get(h);
    if (prev !== undefined) notices.add("duplicated_column", { filename: spec.file, fieldName: h, firstIndex: prev, secondIndex: i });
    else first.set(h, i);
    if (!known.has(h)) notices.add("unknown_column", { filename: spec.file, fieldName: h, index: i });
  });
  for (const c of spec.fields) if (c.required && !first.has(c.name)) notices.add("missing_required_column", { filename: spec.file, fieldName: c.name });
}

/** The file into v_<name>: trimmed values, masks of whitespace and newlines, rejected rows as notices. */
async function readTable(conn: DuckDBConnection, spec: FileSpec, f: LoadedFile, path: string, notices: Notices): Promise<void> {
  const t = vTable(spec.file);
  const readerCols = uniqueNames(f.header);
  const colOf = new Map<string, string>();
  f.header.forEach((h, i) => { if (!colOf.has(h)) colOf.set(h, readerCols[i]!); });
  // (trim() of spaces: with a character list DuckDB's trim is twice as slow on a large file)
  const trimmed = (c: string) => `NULLIF(trim(${q(c)}), '')`;
  const select = spec.fields.map((c) => (colOf.has(c.name) ? `${trimmed(colOf.get(c.name)!)} AS ${q(c.name)}` : `NULL::VARCHAR AS ${q(c.name)}`)).join(", ");
  const mask = (cond: (c: string) => string) =>
    f.columns.length === 0 ? "0::BIGINT" : f.columns.map((c, i) => `(CASE WHEN ${cond(q(colOf.get(c)!))} THEN ${2 ** i} ELSE 0 END)::BIGINT`).join(" + ");
  // (each mask costs a pass over every value: it is computed only when the bytes allow a hit)
  const bytes = readPatterns(path);
  const ws = bytes.spaces ? mask((c) => `${c} <> trim(${c})`) : "0::BIGINT";
  const nl = bytes.quotes ? mask((c) => `(strpos(${c}, chr(10)) > 0 OR strpos(${c}, chr(13)) > 0)`) : "0::BIGINT";
  const columns = `{${readerCols.map((c) => `${sqlString(c)}: 'VARCHAR'`).join(", ")}}`;
  const rej = `rej_${t}`;
  const read = (encoding: string) => conn.run(`CREATE OR REPLACE TABLE ${t}_raw AS SELECT ${select}, ${ws} AS __ws, ${nl} AS __nl
    FROM read_csv(${sqlString(path)}, header = true, auto_detect = false, columns = ${columns}, delim = ',', quote = '"', escape = '"',
      null_padding = true, store_rejects = true, rejects_table = ${sqlString(rej)}, rejects_scan = ${sqlString(`${rej}_scan`)},
      max_line_size = 4194304, encoding = ${sqlString(encoding)}, parallel = true)`);
  await read("utf-8");
  let rejects = await conn.runAndReadAll(`SELECT line, error_type::VARCHAR AS kind, csv_line, error_message FROM ${rej} ORDER BY line`);
  let rows = rejects.getRowObjectsJS() as { line: bigint | number; kind: string; csv_line: string | null; error_message: string }[];
  const badEncoding = (r: (typeof rows)[number]) => /unicode|encod/i.test(`${r.kind} ${r.error_message}`);
  if (rows.some(badEncoding)) {
    notices.add("csv_parsing_failed", { filename: spec.file, charIndex: 0, columnIndex: 0, lineIndex: Number(rows.find(badEncoding)!.line), message: "file is not valid UTF-8 (read as Latin-1)", parsedContent: null });
    await read("latin-1");
    rejects = await conn.runAndReadAll(`SELECT line, error_type::VARCHAR AS kind, csv_line, error_message FROM ${rej} ORDER BY line`);
    rows = rejects.getRowObjectsJS() as typeof rows;
  }
  const rejectedLines: number[] = [];
  // rows with fewer fields than the header are kept (NULL-padded) and found by a scan of the file's lines
  const short = statSync(path).size <= SHORT_ROW_SCAN_BYTES ? shortRows(path, f.header.length) : [];
  let rowLength = short.length, parsing = 0;
  const lengthSamples: Record<string, number | string>[] = short.slice(0, 50).map(([line, n]) => ({ filename: spec.file, csvRowNumber: line, rowLength: n, headerCount: f.header.length }));
  const parsingSamples: Record<string, number | string | null>[] = [];
  for (const r of rows) {
    const line = Number(r.line);
    if (rejectedLines[rejectedLines.length - 1] === line) continue; // one row, several errors
    rejectedLines.push(line);
    if (/TOO.MANY|MISSING/i.test(r.kind)) {
      rowLength++;
      if (lengthSamples.length < 50) lengthSamples.push({ filename: spec.file, csvRowNumber: line, rowLength: countFields(r.csv_line ?? ""), headerCount: f.header.length });
    } else {
      parsing++;
      if (parsingSamples.length < 50) parsingSamples.push({ filename: spec.file, charIndex: 0, columnIndex: 0, lineIndex: line, message: r.error_message.split("\n")[0]!, parsedContent: r.csv_line });
    }
  }
  notices.addMany("invalid_row_length", rowLength, lengthSamples);
  notices.addMany("csv_parsing_failed", parsing, parsingSamples);
  await conn.run(`DROP TABLE IF EXISTS ${rej}; DROP TABLE IF EXISTS ${rej}_scan`);
  // __line: the row's line in the file (reader lines: a quoted newline is not counted), past rejected rows
  if (rejectedLines.length === 0) {
    await conn.run(`CREATE OR REPLACE VIEW ${t} AS SELECT rowid + 2 AS __line, * FROM ${t}_raw`);
  } else {
    const list = `[${rejectedLines.join(",")}]`;
    // the k-th kept row's line: the smallest line L with L - 1 - |{rejected < L}| = k + 1 ... found by stepping over the sorted list
    // (a row's line: past the rejected rows before it; approximate when several are adjacent)
    await conn.run(`CREATE OR REPLACE TABLE ${t}_lined AS SELECT rowid + 2 + (SELECT count(*) FROM unnest(${list}) AS u(l) WHERE l <= rowid + 2) AS __line, * FROM ${t}_raw`);
    await conn.run(`CREATE OR REPLACE VIEW ${t} AS SELECT * FROM ${t}_lined`);
  }
  f.rows = Number((await conn.runAndReadAll(`SELECT count(*) FROM ${t}`)).getRows()[0]![0]);
}

/**
 * Whether a file has a quote (a value with a newline must be quoted) and a space next to a comma or
 * a line end (a value with leading or trailing spaces), found by native searches over its bytes.
 */
function readPatterns(path: string): { quotes: boolean; spaces: boolean } {
  const fd = openSync(path, "r");
  const out = { quotes: false, spaces: false };
  try {
    const buf = Buffer.allocUnsafe(1 << 22);
    let pos = 0, keep = 0;
    for (;;) {
      const n = readSync(fd, buf, keep, buf.length - keep, pos);
      if (n <= 0) return out;
      pos += n;
      const v = buf.subarray(0, keep + n);
      if (!out.quotes && v.indexOf(0x22) >= 0) out.quotes = true;
      if (!out.spaces && [", ", " ,", " \n", " \r", "\n ", "\t"].some((p) => v.indexOf(p) >= 0)) out.spaces = true;
      if (pos <= n && !out.spaces && v[0] === 0x20) out.spaces = true;
      if (out.quotes && out.spaces) return out;
      keep = Math.min(2, v.length);
      buf.copyWithin(0, v.length - keep, v.length);
    }
  } finally {
    closeSync(fd);
  }
}

/** Files up to this size are scanned for rows shorter than their header (larger ones: not reported). */
const SHORT_ROW_SCAN_BYTES = 64 << 20;

/** [line, fields] of the non-empty lines with fewer fields than the header (quotes respected, a quoted newline stays in its row). */
function shortRows(path: string, headerCount: number): [number, number][] {
  const buf = readFileSync(path);
  const out: [number, number][] = [];
  let line = 1, rowLine = 1, fields = 1, inQ = false, empty = true;
  for (let i = 0; i < buf.length; i++) {
    const b = buf[i]!;
    if (b === 0x22) inQ = !inQ;
    else if (inQ) { if (b === 0x0a) line++; }
    else if (b === 0x2c) { fields++; empty = false; }
    else if (b === 0x0a) {
      if (rowLine > 1 && !empty && fields < headerCount) out.push([rowLine, fields]);
      line++;
      rowLine = line;
      fields = 1;
      empty = true;
    } else if (b !== 0x0d && b !== 0x20 && b !== 0x09) empty = false;
  }
  if (rowLine > 1 && !empty && fields < headerCount) out.push([rowLine, fields]);
  return out;
}

/** Reader names for the header (empty and repeated names made unique). */
function uniqueNames(header: string[]): string[] {
  const seen = new Map<string, number>();
  return header.map((h, i) => {
    const base = h || `column_${i}`;
    const k = seen.get(base) ?? 0;
    seen.set(base, k + 1);
    return k === 0 ? base : `${base}__dup${k}`;
  });
}

/** Fields of a CSV line (quotes respected). */
function countFields(line: string): number {
  let n = 1, inQ = false;
  for (const ch of line) {
    if (ch === '"') inQ = !inQ;
    else if (ch === "," && !inQ) n++;
  }
  return n;
}
