/**
 * An independent, deliberately simple GTFS reader for tests: unzips with fflate and parses CSV by
 * hand (RFC 4180 quoting), so expectations are computed without the pipeline's code paths.
 */
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { unzipSync, strFromU8 } from "fflate";

export type Row = Record<string, string>;
export type RawFeed = Map<string, Row[]>;

export function parseCsv(text: string): Row[] {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const records: string[][] = [];
  let field = "", rec: string[] = [], inQ = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (inQ) {
      if (ch === '"') {
        if (text[i + 1] === '"') { field += '"'; i++; } else inQ = false;
      } else field += ch;
    } else if (ch === '"') inQ = true;
    else if (ch === ",") { rec.push(field); field = ""; }
    else if (ch === "\n" || ch === "\r") {
      if (ch === "\r" && text[i + 1] === "\n") i++;
      rec.push(field); field = "";
      if (!(rec.length === 1 && rec[0] === "")) records.push(rec);
      rec = [];
    } else field += ch;
  }
  if (field !== "" || rec.length) { rec.push(field); records.push(rec); }
  const header = (records.shift() ?? []).map((h) => h.trim());
  return records.map((r) => Object.fromEntries(header.map((h, i) => [h, (r[i] ?? "").trim()])));
}

/** Read every .txt table of a GTFS zip or folder. */
export function readRawGtfs(path: string): RawFeed {
  const out: RawFeed = new Map();
  if (statSync(path).isDirectory()) {
    for (const f of readdirSync(path)) if (f.endsWith(".txt")) out.set(f, parseCsv(readFileSync(join(path, f), "utf8")));
    return out;
  }
  const files = unzipSync(new Uint8Array(readFileSync(path)));
  for (const [name, bytes] of Object.entries(files)) {
    if (!name.endsWith(".txt") || name.startsWith("__MACOSX") || name.includes("/._")) continue;
    out.set(name.split("/").pop()!, parseCsv(strFromU8(bytes)));
  }
  return out;
}

export function hmsToSec(t: string): number | null {
  const m = /^(\d{1,3}):(\d{2}):(\d{2})$/.exec(t.trim());
  return m ? Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]) : null;
}
