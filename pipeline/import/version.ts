/**
 * The "describe" stage: once the tables are built, what the new version is. Its feed (the given
 * Onestop id, or one derived from the data), its service window, its licence, the feed_version
 * row, and the manifest change that publishes it (applied to a copy first, to know the active
 * versions of a timetable prepared before the switch).
 */
import type { DuckDBConnection } from "@duckdb/node-api";
import { sqlString } from "../../shared/sql.ts";
import { basename } from "node:path";
import { deriveOnestopIds, serviceWindow } from "../gtfs/derive.ts";
import { onestopName } from "../onestop.ts";
import { DataError, type Issues } from "../report.ts";
import { LICENSE_FIELDS, UNKNOWN_LICENSE, type License, type Manifest } from "../schema/manifest.ts";
import { allocateIds } from "../store/manifest.ts";
import type { ImportRun } from "./run.ts";

const FEED_ID_RE = /^f-[\p{L}\p{N}~<>-]{1,62}$/u;

export function validateFeedId(id: string): void {
  if (!FEED_ID_RE.test(id) || id !== id.toLowerCase()) {
    throw new DataError(`feed id "${id}" is not a valid Onestop feed id: expected f-<geohash>-<name> or f-<name>, lowercase letters, digits, ~ < > and -, at most 64 characters`);
  }
}

/** The version being imported, as the manifest will list it. */
export interface NewVersion {
  sha1: string;
  /** feed version id */
  id: number;
  feedOnestopId: string;
  /** row counts per catalog table */
  counts: Record<string, number>;
  /** The manifest switch: the version listed (and its feed made, or updated), active when the import activates. */
  publish(m: Manifest): void;
}

/**
 * Derives the Onestop ids (the feed's among them), creates the feed_version table and returns the
 * version. `scratch`: the manifest with this import's ids allocated (its next_ids are published).
 */
export async function describeVersion(
  run: ImportRun, conn: DuckDBConnection, v: { sha1: string; id: number; fetchedAt: Date; manifest: Manifest; scratch: Manifest; counts: Record<string, number> },
): Promise<NewVersion> {
  const { manifest, scratch, sha1, fetchedAt } = v;
  const derivedFeedId = await deriveOnestopIds(conn);
  const feedOnestopId = run.opts.feedId ?? disambiguate(manifest, derivedFeedId, run.source, run.issues);
  validateFeedId(feedOnestopId);
  run.report.feed_onestop_id = feedOnestopId;
  const win = await serviceWindow(conn, fetchedAt);
  const feedEntry = manifest.feeds.find((f) => f.onestop_id === feedOnestopId);
  const license: License = { ...UNKNOWN_LICENSE, ...(feedEntry?.license ?? {}), ...(run.opts.license ?? {}) };
  const feedIntId = feedEntry?.id ?? allocateIds(scratch, "feeds", 1);
  const sqlDate = (d: string | null) => (d ? `DATE '${d}'` : "NULL::DATE");
  const s = (x: string | null) => (x == null ? "NULL::VARCHAR" : sqlString(x));
  await conn.run(`CREATE TABLE feed_version AS SELECT ${v.id}::INTEGER AS id, ${s(sha1)} AS sha1, ${feedIntId}::INTEGER AS feed_id,
      ${s(feedOnestopId)} AS feed_onestop_id, TIMESTAMPTZ '${fetchedAt.toISOString()}' AS fetched_at, ${s(run.source)} AS source,
      (SELECT agency_timezone FROM agencies ORDER BY id LIMIT 1) AS default_timezone,
      ${sqlDate(win.windowStart)} AS service_start_date, ${sqlDate(win.windowEnd)} AS service_end_date,
      ${sqlDate(win.earliest)} AS earliest_calendar_date, ${sqlDate(win.latest)} AS latest_calendar_date, ${sqlDate(win.bestWeekStart)} AS best_week_start,
      ${LICENSE_FIELDS.map((f) => `${s(license[f])} AS license_${f}`).join(", ")}`);
  const counts = { ...v.counts };
  return {
    sha1, id: v.id, feedOnestopId, counts,
    publish: (m) => {
      m.next_ids = { ...m.next_ids, ...scratch.next_ids };
      let feed = m.feeds.find((f) => f.onestop_id === feedOnestopId);
      if (!feed) {
        feed = { id: feedIntId, onestop_id: feedOnestopId, source: run.source, license, active: null };
        m.feeds.push(feed);
      }
      feed.license = license;
      feed.source = run.source;
      if (run.opts.name !== undefined) feed.name = run.opts.name;
      if (run.opts.tags !== undefined) feed.tags = { ...run.opts.tags };
      m.versions.push({ id: v.id, sha1, feed_onestop_id: feedOnestopId, fetched_at: fetchedAt.toISOString(), source: run.source, path: `versions/${sha1}`, counts });
      if (run.activate) feed.active = sha1;
    },
  };
}

/**
 * Without --feed-id, the source (path or URL) tells feeds apart: a derived id already used by a
 * feed from another source (MTA's subway and bus feeds share agency and area) gets `~<file name>`.
 */
function disambiguate(m: Manifest, derived: string, source: string, issues: Issues): string {
  const owner = (id: string) => m.feeds.find((f) => f.onestop_id === id);
  const first = owner(derived);
  if (!first || first.source === source) return derived;
  const stem = onestopName(basename(source.replace(/[?#].*$/, "")).replace(/\.zip$/i, "")) || "feed";
  let id = `${derived}~${stem}`.slice(0, 64);
  for (let n = 2; owner(id) && owner(id)!.source !== source; n++) id = `${derived}~${stem}${n}`.slice(0, 64);
  issues.add("derived_feed_id_taken", { file: "agency.txt", message: `feed id ${derived} belongs to ${first.source}; this source is imported as ${id} (pass --feed-id to choose)` });
  return id;
}
