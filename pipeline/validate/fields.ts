/**
 * Field-level notices, from the spec (gtfs-spec.ts) of each file's columns: values that do not
 * parse as their type (invalid_url, invalid_date, invalid_time, invalid_integer, ...), numbers out
 * of range, enum values not in the spec, required and recommended fields missing, ids with
 * non-ASCII characters, whitespace and newlines around values, names not in mixed case, duplicate
 * primary keys and foreign keys without their row. One counting query per file finds which
 * checks fire; only those are asked for samples.
 */
import type { DuckDBConnection } from "@duckdb/node-api";
import { sqlString } from "../../shared/sql.ts";
import type { FieldSpec } from "./gtfs-spec.ts";
import { q, vTable, type LoadedFile } from "./load.ts";
import type { NoticeCode, Notices } from "./notices.ts";
import { sampleRows } from "./sql.ts";

interface Check {
  code: NoticeCode;
  field: string;
  /** SQL condition over the row (v = the trimmed value) */
  where: string;
  /** the sample's fields (SQL expressions by field name) */
  fields: Record<string, string>;
}

const RE = {
  url: "(?i)(https?|ftp)://[^\\s]+",
  email: "[^@\\s]+@[^@\\s]+\\.[^@\\s]+",
  color: "[0-9A-Fa-f]{6}",
  date: "[0-9]{8}",
  time: "[0-9]{1,3}:[0-5][0-9]:[0-5][0-9]",
  integer: "[+-]?[0-9]+",
  printable: "[\\x20-\\x7E]*",
};

/** Checks of one field on one file (the value is `v`). */
function fieldChecks(file: string, f: FieldSpec): Check[] {
  const v = q(f.name);
  const base = { filename: sqlString(file), csvRowNumber: "__line", fieldName: sqlString(f.name) };
  const withValue = { ...base, fieldValue: v };
  const out: Check[] = [];
  const add = (code: NoticeCode, where: string, fields: Record<string, string> = withValue) => out.push({ code, field: f.name, where, fields });
  if (f.required) add("missing_required_field", `${v} IS NULL`, base);
  if (f.recommended && file !== "feed_info.txt") add("missing_recommended_field", `${v} IS NULL`, base);
  const notMatching = (re: string) => `${v} IS NOT NULL AND NOT regexp_full_match(${v}, ${sqlString(re)})`;
  const range = (num: string, fieldType: string) => {
    const bad = f.nonNegative ? `${num} < 0` : f.positive ? `${num} <= 0` : f.nonZero ? `${num} = 0` : null;
    if (bad) add("number_out_of_range", `${v} IS NOT NULL AND ${num} IS NOT NULL AND ${bad}`, { ...withValue, fieldType: sqlString(fieldType) });
  };
  switch (f.type) {
    case "id":
      add("non_ascii_or_non_printable_char", notMatching(RE.printable), { filename: base.filename, csvRowNumber: "__line", columnName: base.fieldName, fieldValue: v });
      break;
    case "url": add("invalid_url", notMatching(RE.url)); break;
    case "email": add("invalid_email", notMatching(RE.email)); break;
    case "color": add("invalid_color", notMatching(RE.color)); break;
    case "date": add("invalid_date", `${v} IS NOT NULL AND (NOT regexp_full_match(${v}, ${sqlString(RE.date)}) OR try_strptime(${v}, '%Y%m%d') IS NULL)`); break;
    case "time": add("invalid_time", notMatching(RE.time)); break;
    case "integer":
      add("invalid_integer", notMatching(RE.integer));
      range(`TRY_CAST(${v} AS BIGINT)`, "integer");
      break;
    case "float": case "decimal":
      add("invalid_float", `${v} IS NOT NULL AND TRY_CAST(${v} AS DOUBLE) IS NULL`);
      range(`TRY_CAST(${v} AS DOUBLE)`, f.type);
      break;
    case "latitude": case "longitude": {
      const lim = f.type === "latitude" ? 90 : 180;
      add("invalid_float", `${v} IS NOT NULL AND TRY_CAST(${v} AS DOUBLE) IS NULL`);
      add("number_out_of_range", `abs(TRY_CAST(${v} AS DOUBLE)) > ${lim}`, { ...withValue, fieldType: sqlString(f.type) });
      break;
    }
    case "enum": {
      add("invalid_integer", notMatching(RE.integer));
      const values = (f.values ?? []).join(", ");
      // route_type: the extended (Hierarchical Vehicle Type) codes 100-1702 are accepted too
      const extra = file === "routes.txt" && f.name === "route_type" ? ` AND NOT (TRY_CAST(${v} AS BIGINT) BETWEEN 100 AND 1702)` : "";
      add("unexpected_enum_value", `TRY_CAST(${v} AS BIGINT) IS NOT NULL AND TRY_CAST(${v} AS BIGINT) NOT IN (${values})${extra}`);
      break;
    }
    default:
      break;
  }
  return out;
}

/** Every field-level notice of the loaded files (those in `skip` excepted). */
export async function checkFields(conn: DuckDBConnection, files: Map<string, LoadedFile>, notices: Notices, skip: ReadonlySet<string>): Promise<void> {
  for (const f of files.values()) {
    if (!f.present || skip.has(f.spec.file) || f.rows === 0) continue;
    const t = vTable(f.spec.file);
    const checks = f.columns.flatMap((c) => fieldChecks(f.spec.file, f.spec.fields.find((s) => s.name === c)!));
    // whitespace and newlines, by the load's masks
    f.columns.forEach((c, i) => {
      const field = { filename: sqlString(f.spec.file), csvRowNumber: "__line", fieldName: sqlString(c), fieldValue: q(c) };
      checks.push({ code: "leading_or_trailing_whitespaces", field: c, where: `(__ws & ${2 ** i}) <> 0`, fields: field });
      checks.push({ code: "new_line_in_value", field: c, where: `(__nl & ${2 ** i}) <> 0`, fields: field });
    });
    if (checks.length === 0) continue;
    const counts = (await conn.runAndReadAll(`SELECT ${checks.map((c) => `count_if(${c.where})`).join(", ")} FROM ${t}`)).getRows()[0]!;
    for (const [i, c] of checks.entries()) {
      const n = Number(counts[i]);
      if (n > 0) notices.addMany(c.code, n, await sampleRows(conn, `SELECT ${fieldsSql(c.fields)} FROM ${t} WHERE ${c.where} ORDER BY __line`));
    }
    await checkValueSets(conn, f, notices);
    await checkMixedCase(conn, f, notices);
  }
}

export const fieldsSql = (fields: Record<string, string>) => Object.entries(fields).map(([k, e]) => `${e} AS ${q(k)}`).join(", ");

let zones: Set<string> | null = null, currencies: Set<string> | null = null;

function validZone(z: string): boolean {
  zones ??= new Set(Intl.supportedValuesOf("timeZone"));
  if (zones.has(z)) return true;
  try {
    new Intl.DateTimeFormat("en", { timeZone: z });
    return true;
  } catch {
    return false;
  }
}

function validLanguage(l: string): boolean {
  if (!/^[A-Za-z]{2,3}([-_][A-Za-z0-9]{1,8})*$/.test(l)) return false;
  try {
    return Intl.getCanonicalLocales(l.replace(/_/g, "-")).length === 1;
  } catch {
    return false;
  }
}

function validCurrency(c: string): boolean {
  currencies ??= new Set(Intl.supportedValuesOf("currency"));
  return currencies.has(c.toUpperCase()) && /^[A-Z]{3}$/.test(c);
}

/** Time zones, language codes and currencies: their distinct values checked here. */
async function checkValueSets(conn: DuckDBConnection, f: LoadedFile, notices: Notices): Promise<void> {
  const t = vTable(f.spec.file);
  const kinds: [FieldSpec["type"], NoticeCode, (s: string) => boolean][] = [
    ["timezone", "invalid_timezone", validZone], ["language_code", "invalid_language_code", validLanguage], ["currency_code", "invalid_currency", validCurrency],
  ];
  for (const c of f.columns) {
    const spec = f.spec.fields.find((s) => s.name === c)!;
    const kind = kinds.find(([k]) => k === spec.type);
    if (!kind) continue;
    const distinct = (await conn.runAndReadAll(`SELECT DISTINCT ${q(c)} FROM ${t} WHERE ${q(c)} IS NOT NULL LIMIT 10000`)).getRows().map((r) => String(r[0]));
    const bad = distinct.filter((v) => !kind[2](v));
    if (bad.length === 0) continue;
    const inList = `${q(c)} IN (${bad.map(sqlString).join(", ")})`;
    const n = Number((await conn.runAndReadAll(`SELECT count(*) FROM ${t} WHERE ${inList}`)).getRows()[0]![0]);
    notices.addMany(kind[1], n, await sampleRows(conn, `SELECT ${fieldsSql({ filename: sqlString(f.spec.file), csvRowNumber: "__line", fieldName: sqlString(c), fieldValue: q(c) })} FROM ${t} WHERE ${inList} ORDER BY __line`));
  }
}

/** MobilityData's mixed-case rule: one all-lowercase word, or 2+ letter-only words none of which mixes cases. */
export function needsMixedCase(value: string): boolean {
  // as Java's String.split: trailing empty tokens dropped, a leading one kept
  const tokens = value.split(/[^\p{L}]+/u);
  while (tokens.length > 1 && tokens[tokens.length - 1] === "") tokens.pop();
  if (tokens.length === 1) return tokens[0]!.length > 1 && /^\p{Ll}+$/u.test(tokens[0]!);
  let words = 0;
  for (const t of tokens) {
    if (t.length <= 1) continue;
    words++;
    if (/\p{Lu}/u.test(t) && /\p{Ll}/u.test(t)) return false;
  }
  return words >= 2;
}

async function checkMixedCase(conn: DuckDBConnection, f: LoadedFile, notices: Notices): Promise<void> {
  const t = vTable(f.spec.file);
  for (const c of f.columns) {
    if (!f.spec.fields.find((s) => s.name === c)!.mixedCase) continue;
    const groups = (await conn.runAndReadAll(`SELECT ${q(c)} AS v, count(*) AS n, min(__line) AS line FROM ${t}
      WHERE ${q(c)} IS NOT NULL AND (${q(c)} = upper(${q(c)}) OR ${q(c)} = lower(${q(c)})) GROUP BY 1 ORDER BY 3 LIMIT 100000`)).getRowObjectsJS() as { v: string; n: bigint; line: bigint }[];
    let n = 0;
    const samples = [];
    for (const g of groups) {
      if (!needsMixedCase(g.v)) continue;
      n += Number(g.n);
      samples.push({ filename: f.spec.file, fieldName: c, fieldValue: g.v, csvRowNumber: Number(g.line) });
    }
    notices.addMany("mixed_case_recommended_field", n, samples);
  }
}

/** duplicate_key on each file's primary key (files in `skip` excepted). */
export async function checkKeys(conn: DuckDBConnection, files: Map<string, LoadedFile>, notices: Notices, skip: ReadonlySet<string>): Promise<void> {
  for (const f of files.values()) {
    if (!f.present || skip.has(f.spec.file) || f.rows === 0) continue;
    const key = f.spec.fields.filter((c) => c.primaryKey).map((c) => c.name);
    if (key.length === 0 || !f.columns.includes(key[0]!)) continue;
    const t = vTable(f.spec.file);
    const cols = key.map(q).join(", ");
    const fields: Record<string, string> = { filename: sqlString(f.spec.file), oldCsvRowNumber: "first_line", newCsvRowNumber: "__line" };
    key.forEach((k, i) => { fields[`fieldName${i + 1}`] = sqlString(k); fields[`fieldValue${i + 1}`] = q(k); });
    // a grouping says whether there is any duplicate (cheaper than the window that finds their rows)
    const n = Number((await conn.runAndReadAll(`SELECT coalesce(sum(c - 1), 0) FROM (SELECT count(*) AS c FROM ${t} WHERE ${q(key[0]!)} IS NOT NULL GROUP BY ${cols} HAVING count(*) > 1)`)).getRows()[0]![0]);
    const sql = `SELECT * FROM (SELECT ${cols}, __line, min(__line) OVER (PARTITION BY ${cols}) AS first_line FROM ${t} WHERE ${q(key[0]!)} IS NOT NULL) WHERE __line <> first_line`;
    if (n > 0) notices.addMany("duplicate_key", n, await sampleRows(conn, `SELECT ${fieldsSql(fields)} FROM (${sql}) ORDER BY __line`));
  }
}

/** foreign_key_violation on each declared foreign key whose child file is loaded (files in `skip` excepted). */
export async function checkForeignKeys(conn: DuckDBConnection, files: Map<string, LoadedFile>, notices: Notices, skip: ReadonlySet<string>): Promise<void> {
  for (const f of files.values()) {
    if (!f.present || skip.has(f.spec.file) || f.rows === 0) continue;
    for (const c of f.spec.fields) {
      if (!c.foreignKey || !f.columns.includes(c.name)) continue;
      const [parentFile, parentField] = c.foreignKey;
      const parent = files.get(parentFile);
      if (!parent) continue;
      // trips.service_id names a service of calendar.txt or calendar_dates.txt
      const parents = f.spec.file === "trips.txt" && c.name === "service_id"
        ? `SELECT service_id AS k FROM v_calendar UNION ALL SELECT service_id FROM v_calendar_dates`
        : `SELECT ${q(parentField)} AS k FROM ${vTable(parentFile)}`;
      const where = `${q(c.name)} IS NOT NULL AND NOT EXISTS (SELECT 1 FROM (${parents}) p WHERE p.k = ${vTable(f.spec.file)}.${q(c.name)})`;
      const t = vTable(f.spec.file);
      const n = Number((await conn.runAndReadAll(`SELECT count(*) FROM ${t} WHERE ${where}`)).getRows()[0]![0]);
      if (n === 0) continue;
      const fields = {
        childFilename: sqlString(f.spec.file), childFieldName: sqlString(c.name), parentFilename: sqlString(parentFile === "calendar.txt" ? "calendar.txt or calendar_dates.txt" : parentFile),
        parentFieldName: sqlString(parentField), fieldValue: q(c.name), csvRowNumber: "__line",
      };
      notices.addMany("foreign_key_violation", n, await sampleRows(conn, `SELECT ${fieldsSql(fields)} FROM ${t} WHERE ${where} ORDER BY __line`));
    }
  }
}
