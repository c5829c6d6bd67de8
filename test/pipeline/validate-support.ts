/**
 * Support for the validator's tests: a tiny clean feed (no notice at all on the test date), edits
 * of its files, and validation of a feed written to a temporary folder on one shared DuckDB
 * connection (the validator replaces its tables on each run).
 */
import type { DuckDBConnection } from "@duckdb/node-api";
import { DuckDBInstance } from "@duckdb/node-api";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ValidationReport } from "../../pipeline/validate/report.ts";
import { validateFolder } from "../../pipeline/validate/validate.ts";
import { tempDir } from "../support/dataset.ts";

export type Feed = Record<string, string | Uint8Array>;

/** The date the tests validate on. */
export const TODAY = new Date("2026-06-01T00:00:00Z");

/** A clean feed: every rule it meets passes on TODAY. */
export const CLEAN: Feed = {
  "agency.txt": `agency_id,agency_name,agency_url,agency_timezone,agency_lang
A1,Demo Transit,https://demo.example/,America/New_York,en
`,
  "stops.txt": `stop_id,stop_name,stop_lat,stop_lon,location_type,parent_station,stop_url
S1,Main Street,40.7000,-74.0000,0,,
S2,Oak Avenue,40.7050,-74.0000,0,,
S3,Park Road,40.7100,-74.0000,0,,
`,
  "routes.txt": `route_id,agency_id,route_short_name,route_long_name,route_type,route_color,route_text_color
R1,A1,10,Downtown Loop,3,0000FF,FFFFFF
`,
  "trips.txt": `route_id,service_id,trip_id,shape_id,block_id,trip_headsign
R1,WK,T1,SH1,B1,Park Road
R1,WK,T2,SH1,B1,Park Road
`,
  "stop_times.txt": `trip_id,arrival_time,departure_time,stop_id,stop_sequence,timepoint,shape_dist_traveled
T1,06:00:00,06:00:00,S1,1,1,0
T1,06:02:00,06:02:00,S2,2,1,550
T1,06:04:00,06:04:00,S3,3,1,1100
T2,07:00:00,07:00:00,S1,1,1,0
T2,07:02:00,07:02:00,S2,2,1,550
T2,07:04:00,07:04:00,S3,3,1,1100
`,
  "calendar.txt": `service_id,monday,tuesday,wednesday,thursday,friday,saturday,sunday,start_date,end_date
WK,1,1,1,1,1,1,1,20260101,20271231
`,
  "shapes.txt": `shape_id,shape_pt_lat,shape_pt_lon,shape_pt_sequence,shape_dist_traveled
SH1,40.7000,-74.0000,1,0
SH1,40.7050,-74.0000,2,550
SH1,40.7100,-74.0000,3,1100
`,
  "feed_info.txt": `feed_publisher_name,feed_publisher_url,feed_lang,feed_start_date,feed_end_date,feed_version,feed_contact_email
Demo Transit,https://demo.example/,en,20260101,20271231,v1,ops@demo.example
`,
};

/** The feed with edits: a file's text replaced (string), edited (function), or removed (null). */
export function edit(feed: Feed, edits: Record<string, string | Uint8Array | null | ((text: string) => string)>): Feed {
  const out: Feed = { ...feed };
  for (const [file, e] of Object.entries(edits)) {
    if (e === null) delete out[file];
    else if (typeof e === "function") out[file] = e(String(out[file] ?? ""));
    else out[file] = e;
  }
  return out;
}

/** Replace `from` by `to` in a file (which must contain it). */
export const sub = (from: string, to: string) => (text: string) => {
  if (!text.includes(from)) throw new Error(`fixture edit: "${from}" not found`);
  return text.replace(from, to);
};
/** Append lines to a file. */
export const add = (...lines: string[]) => (text: string) => text + lines.map((l) => `${l}\n`).join("");

export function writeFeed(feed: Feed): string {
  const dir = join(tempDir("interchange-validate-"), "feed");
  mkdirSync(dir, { recursive: true });
  for (const [file, content] of Object.entries(feed)) writeFileSync(join(dir, file), content);
  return dir;
}

let shared: Promise<DuckDBConnection> | null = null;

/** Validates a feed (written to a temporary folder) on TODAY. */
export async function validate(feed: Feed): Promise<ValidationReport> {
  const conn = await (shared ??= DuckDBInstance.create(":memory:", { threads: "1" }).then((db) => db.connect()));
  const dir = writeFeed(feed);
  return validateFolder({ dir, input: "test-feed", scratchDir: join(dir, "..", "scratch"), today: TODAY }, conn);
}

export const codesOf = (r: ValidationReport) => r.notices.map((n) => n.code);
