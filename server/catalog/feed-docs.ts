/**
 * The documents of the feed endpoints (feeds, feed versions, agencies, operators), built once per
 * loaded dataset (store.ts calls buildFeedDirectory after the stops and routes are indexed) and
 * kept as plain objects: these lists are short (one entry per feed, version or agency), so each
 * request filters and serialises them (feeds.ts). No HTTP here.
 *
 * Where the fields come from:
 * - feeds: the manifest (id, Onestop ID, name and tags of the feeds file, source URL, licence,
 *   active version) and their versions; and one GTFS-Realtime feed (spec gtfs-rt) per realtime
 *   status file of a static feed: `<static Onestop ID>~rt`, id REALTIME_FEED_ID_BASE + the static
 *   feed's, its realtime URLs and last fetch outcome, the static feed's name, tags and licence;
 * - feed versions: feed_version.parquet and feed_info.parquet (in DuckDB at load), the version's
 *   import report (`report.json`: files with their row counts, warnings, skipped and interpolated
 *   rows), its validation report (pipeline/schema/validation.ts) and its service levels
 *   (service-levels.ts);
 * - agencies: agencies.parquet, their stops (agency_stops) for the geometry (convex hull) and the
 *   places (the stops' Natural Earth admin-0/admin-1 areas holding at least 20 % of them);
 * - operators: derived from the agencies of the active versions, one per agency Onestop ID across
 *   feeds (as Transitland does for agencies without an operator record).
 *
 * Local file paths (a feed imported from a file) are never shown: a source that is not an
 * http(s) URL reads as null, and credentials in a URL (user info, key/token parameters) are removed.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type Manifest, UNKNOWN_LICENSE } from "../../pipeline/schema/manifest.ts";
import { readRealtimeStatuses } from "../../pipeline/schema/realtime.ts";
import { validationOf } from "../../pipeline/schema/validation.ts";
import type { CatalogData, VersionInfo } from "./data.ts";
import type { Database } from "./db.ts";
import { LICENSE_FIELDS } from "./license.ts";
import { type ServiceLevel, serviceLevelsByVersion } from "./service-levels.ts";
import { type AgencyDoc, emptyFeedDirectory, REALTIME_FEED_ID_BASE, REALTIME_FEED_SUFFIX, type FeedDirectory, type FeedDoc, type Geometry, type Json, type Place, type VersionDoc } from "./feed-directory.ts";

export type { FeedDirectory } from "./feed-directory.ts";

// ---- public URLs

const SECRET_PARAM = /(key|token|secret|password|passwd|auth|signature|sig|credential)/i;

/** An http(s) URL without credentials; null for a local path or anything else. */
export function publicUrl(source: string | null | undefined): string | null {
  if (!source || !/^https?:\/\//i.test(source)) return null;
  try {
    const u = new URL(source);
    u.username = "";
    u.password = "";
    for (const name of [...u.searchParams.keys()]) if (SECRET_PARAM.test(name)) u.searchParams.delete(name);
    return u.toString();
  } catch {
    return null;
  }
}

// ---- geometry

/** Convex hull (Andrew's monotone chain) of [lon, lat] points as GeoJSON; null without points. */
export function hullOf(points: [number, number][]): Geometry {
  const pts = [...new Map(points.map((p) => [`${p[0]},${p[1]}`, p])).values()].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  if (pts.length === 0) return null;
  if (pts.length === 1) return { type: "Point", coordinates: pts[0]! };
  const cross = (o: number[], a: number[], b: number[]) => (a[0]! - o[0]!) * (b[1]! - o[1]!) - (a[1]! - o[1]!) * (b[0]! - o[0]!);
  const lower: [number, number][] = [];
  for (const p of pts) {
    while (lower.length >= 2 && cross(lower[lower.length - 2]!, lower[lower.length - 1]!, p) <= 0) lower.pop();
    lower.push(p);
  }
  const upper: [number, number][] = [];
  for (let i = pts.length - 1; i >= 0; i--) {
    const p = pts[i]!;
    while (upper.length >= 2 && cross(upper[upper.length - 2]!, upper[upper.length - 1]!, p) <= 0) upper.pop();
    upper.push(p);
  }
  const ring = [...lower.slice(0, -1), ...upper.slice(0, -1)];
  if (ring.length < 3) return { type: "LineString", coordinates: [pts[0]!, pts[pts.length - 1]!] };
  // counter-clockwise (RFC 7946's exterior ring order), closed
  return { type: "Polygon", coordinates: [[...ring, ring[0]!]] };
}

function boxOf(points: [number, number][]): [number, number, number, number] | null {
  if (!points.length) return null;
  let [minLon, minLat, maxLon, maxLat] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const [lon, lat] of points) {
    if (lon < minLon) minLon = lon;
    if (lon > maxLon) maxLon = lon;
    if (lat < minLat) minLat = lat;
    if (lat > maxLat) maxLat = lat;
  }
  return [minLon, minLat, maxLon, maxLat];
}

function pointsOf(data: CatalogData, stopIds: Iterable<number>): [number, number][] {
  const out: [number, number][] = [];
  for (const id of stopIds) {
    const s = data.stops.get(id);
    if (s && s.lat !== null && s.lon !== null) out.push([s.lon, s.lat]);
  }
  return out;
}

// ---- import reports

interface ImportReport {
  tables?: Record<string, { source_rows?: number; imported_rows?: number; skipped_rows?: number }>;
  derived?: Record<string, number>;
  warnings?: Record<string, unknown> | unknown[];
}

function readImportReport(dataDir: string, path: string | undefined): ImportReport | null {
  if (!path) return null;
  const p = join(dataDir, path, "report.json");
  if (!existsSync(p)) return null;
  try {
    const r = JSON.parse(readFileSync(p, "utf8")) as ImportReport;
    return r && typeof r === "object" ? r : null;
  } catch {
    return null;
  }
}

const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : 0);
const str = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
const nz = (v: unknown): string | null => {
  const s = str(v);
  return s === "" ? null : s;
};

// ---- the directory

/**
 * Build the documents from the loaded dataset: `db` holds feed_version, agencies, stops and
 * agency_stops (store.ts's memory tables); `data` the versions and stops already indexed.
 */
export async function buildFeedDirectory(db: Database, data: CatalogData, dataDir: string, manifest: Manifest): Promise<FeedDirectory> {
  const dir = emptyFeedDirectory();
  const stopsByVersion = new Map<number, number[]>();
  for (const s of data.stops.values()) (stopsByVersion.get(s.fv) ?? stopsByVersion.set(s.fv, []).get(s.fv)!).push(s.id);
  const stopsByAgency = await agencyStops(db);
  await addVersions(dir, db, data, dataDir, manifest, stopsByVersion);
  addStaticFeeds(dir, manifest);
  addRealtimeFeeds(dir, dataDir);
  for (const v of dir.versions) {
    const feed = dir.feedByOnestop.get(v.feedOnestopId.toLowerCase());
    v.fields.feed = { id: feed?.id ?? v.feedId, onestop_id: v.feedOnestopId, name: feed?.name ?? null, spec: "gtfs" };
  }
  await addAgencies(dir, db, data, stopsByAgency);
  addOperators(dir, data);
  for (const id of data.routeOrder) {
    const r = data.routes.get(id);
    if (r?.agencyRef != null) (dir.routesByAgency.get(r.agencyRef) ?? dir.routesByAgency.set(r.agencyRef, []).get(r.agencyRef)!).push(id);
  }
  dir.operators.sort((a, b) => a.id - b.id);
  for (const o of dir.operators) dir.operatorByOnestop.set(o.onestopId, o);
  return dir;
}

/** The stop refs of each agency (agency_stops), in ref order. */
async function agencyStops(db: Database): Promise<Map<number, number[]>> {
  const stopsByAgency = new Map<number, number[]>();
  for await (const rows of db.stream({ sql: `SELECT agency_ref, stop_ref FROM agency_stops WHERE agency_ref IS NOT NULL AND stop_ref IS NOT NULL ORDER BY agency_ref, stop_ref`, values: [] })) {
    for (const [a, s] of rows) {
      const k = Number(a);
      (stopsByAgency.get(k) ?? stopsByAgency.set(k, []).get(k)!).push(Number(s));
    }
  }
  return stopsByAgency;
}

/** The feed version documents, in id order: dates, hull of the stops, feed_info, service levels, import report, validation. */
async function addVersions(dir: FeedDirectory, db: Database, data: CatalogData, dataDir: string, manifest: Manifest, stopsByVersion: Map<number, number[]>): Promise<void> {
  const entryBySha = new Map(manifest.versions.map((v) => [v.sha1, v]));
  const feedInfos = await feedInfoByVersion(db, dataDir, manifest);
  const serviceLevels = await serviceLevelsByVersion(db, dataDir, manifest);
  const fvRows = await db.all({
    sql: `SELECT id, sha1, source, fetched_at::VARCHAR AS fetched_at, earliest_calendar_date::VARCHAR AS earliest, latest_calendar_date::VARCHAR AS latest FROM feed_version ORDER BY id`,
    values: [],
  });
  for (const r of fvRows) {
    const v = data.versions.get(Number(r.id));
    if (!v) continue;
    const entry = entryBySha.get(v.sha1);
    const points = pointsOf(data, stopsByVersion.get(v.id) ?? []);
    const report = readImportReport(dataDir, entry?.path);
    const doc: VersionDoc = {
      id: v.id, sha1: v.sha1, feedId: v.feedId, feedOnestopId: v.feedOnestopId, active: v.active,
      fetchedAt: fetchedAtOf(v, r.fetched_at), earliest: str(r.earliest), latest: str(r.latest),
      geometry: hullOf(points), box: boxOf(points), fields: {}, validation: validationOf(dataDir, v.sha1),
    };
    doc.fields = versionFields(doc, publicUrl(str(r.source) ?? entry?.source), report, feedInfos.get(v.id) ?? [], serviceLevels.get(v.id) ?? []);
    dir.versions.push(doc);
    dir.versionById.set(doc.id, doc);
  }
}

/** The manifest's feeds (spec gtfs), in id order, with their versions newest first. */
function addStaticFeeds(dir: FeedDirectory, manifest: Manifest): void {
  for (const f of [...manifest.feeds].sort((a, b) => a.id - b.id)) {
    const versions = dir.versions.filter((v) => v.feedOnestopId.toLowerCase() === f.onestop_id.toLowerCase()).sort((a, b) => b.id - a.id);
    const active = versions.find((v) => v.sha1 === f.active) ?? null;
    const urls = feedUrls({ static_current: publicUrl(f.source) ?? "" });
    const doc: FeedDoc = {
      id: f.id, onestopId: f.onestop_id, spec: "gtfs", name: f.name ?? null, tags: tagsOf(f.tags), associated: null,
      versions, activeVersion: active, urls, fetchError: false, license: { ...UNKNOWN_LICENSE, ...f.license }, fields: {},
    };
    doc.fields = feedFields(doc, "", active
      ? { id: active.id, sha1: active.sha1, url: active.fields.url ?? null, fetched_at: active.fetchedAt, geometry: active.geometry, feed_version_gtfs_import: active.fields.feed_version_gtfs_import ?? null }
      : null);
    addFeed(dir, doc);
  }
}

/** One gtfs-rt feed per realtime status file, `<static Onestop ID>~rt`, associated with its static feed. */
function addRealtimeFeeds(dir: FeedDirectory, dataDir: string): void {
  for (const s of readRealtimeStatuses(dataDir)) {
    const owner = dir.feedByOnestop.get(s.feed_id.toLowerCase());
    // (a static feed may own the `~rt` Onestop ID already: a derived id `<id>~<file name>` of a file rt.zip)
    if (!owner || owner.spec !== "gtfs" || dir.feedByOnestop.has((owner.onestopId + REALTIME_FEED_SUFFIX).toLowerCase())) continue;
    const rtUrl = (kind: "alerts" | "trip_updates" | "vehicle_positions") => publicUrl(s.kinds[kind]?.source ?? null) ?? "";
    const urls = feedUrls({ realtime_vehicle_positions: rtUrl("vehicle_positions"), realtime_trip_updates: rtUrl("trip_updates"), realtime_alerts: rtUrl("alerts") });
    const errors = Object.values(s.kinds).filter((k) => k?.last && k.last.outcome !== "accepted" && k.last.outcome !== "unchanged");
    const doc: FeedDoc = {
      id: REALTIME_FEED_ID_BASE + owner.id, onestopId: owner.onestopId + REALTIME_FEED_SUFFIX, spec: "gtfs-rt", name: owner.name, tags: owner.tags, associated: owner.onestopId,
      versions: [], activeVersion: null, urls, fetchError: errors.length > 0, license: owner.license, fields: {},
    };
    doc.fields = feedFields(doc, errors.map((k) => k!.last!.message ?? k!.last!.outcome).join("; "), null);
    addFeed(dir, doc);
    owner.associated = doc.onestopId;
  }
}

/** The agency documents of the loaded versions, in id order: their stops, places and hull. */
async function addAgencies(dir: FeedDirectory, db: Database, data: CatalogData, stopsByAgency: Map<number, number[]>): Promise<void> {
  const places = await placesByAgency(db);
  const agencyRows = await db.all({
    sql: `SELECT id, feed_version_id, agency_id, agency_name, agency_url, agency_timezone, agency_lang, agency_phone, agency_fare_url, agency_email, onestop_id FROM agencies ORDER BY id`,
    values: [],
  });
  for (const r of agencyRows) {
    const v = data.versions.get(Number(r.feed_version_id));
    if (!v) continue;
    const id = Number(r.id);
    const stops = Int32Array.from(stopsByAgency.get(id) ?? []);
    const doc: AgencyDoc = {
      id, fv: v.id, agencyId: String(r.agency_id ?? ""), agencyName: String(r.agency_name ?? ""), onestopId: nz(r.onestop_id),
      stops, places: places.get(id) ?? [], geometry: hullOf(pointsOf(data, stops)), fields: {},
    };
    doc.fields = {
      id, agency_name: doc.agencyName, agency_id: doc.agencyId, onestop_id: doc.onestopId, agency_url: str(r.agency_url), agency_timezone: str(r.agency_timezone),
      agency_lang: nz(r.agency_lang), agency_phone: nz(r.agency_phone), agency_fare_url: nz(r.agency_fare_url), agency_email: nz(r.agency_email), cemv_support: null,
    };
    dir.agencies.push(doc);
    dir.agencyById.set(id, doc);
  }
}

/** Operators: the agencies of the active versions grouped by Onestop ID, with their feeds (static and realtime). */
function addOperators(dir: FeedDirectory, data: CatalogData): void {
  const groups = new Map<string, AgencyDoc[]>();
  for (const a of dir.agencies) {
    if (!a.onestopId || !data.versions.get(a.fv)?.active) continue;
    (groups.get(a.onestopId) ?? groups.set(a.onestopId, []).get(a.onestopId)!).push(a);
  }
  for (const [onestopId, agencies] of groups) {
    const feeds = [...new Set(agencies.map((a) => data.versions.get(a.fv)!.feedOnestopId.toLowerCase()))].map((f) => dir.feedByOnestop.get(f)).filter((f): f is FeedDoc => !!f);
    // and their realtime feeds (Transitland lists an operator's associated gtfs-rt feeds with its static ones)
    for (const f of [...feeds]) if (f.associated) feeds.push(dir.feedByOnestop.get(f.associated.toLowerCase())!);
    const first = agencies[0]!;
    const stops = agencies.flatMap((a) => [...a.stops]);
    dir.operators.push({ id: first.id, onestopId, name: first.agencyName, website: (first.fields.agency_url as string | null) ?? null, agencies, feeds, geometry: hullOf(pointsOf(data, stops)) });
  }
}

function addFeed(dir: FeedDirectory, doc: FeedDoc): void {
  dir.feeds.push(doc);
  dir.feedById.set(doc.id, doc);
  dir.feedByOnestop.set(doc.onestopId.toLowerCase(), doc);
}

/** Transitland's eight URL fields, "" (or []) unless given. */
function feedUrls(given: Record<string, string>): Record<string, Json> {
  return {
    static_current: "", static_historic: [], static_planned: [], realtime_vehicle_positions: "", realtime_trip_updates: "", realtime_alerts: "",
    gbfs_auto_discovery: "", mds_provider: "", ...given,
  };
}

/** A manifest's tags as served: null when there are none. */
function tagsOf(tags: Record<string, string> | null | undefined): Record<string, string> | null {
  return tags && Object.keys(tags).length ? { ...tags } : null;
}

/** A feed's fields as /feeds serves them (Transitland's feed_request.gql). */
function feedFields(doc: FeedDoc, lastFetchError: string, activeVersion: Json): Record<string, Json> {
  const license: Record<string, Json> = { spdx_identifier: "", url: "" };
  for (const k of LICENSE_FIELDS) license[k] = doc.license[k];
  license.attribution_text = "";
  license.attribution_instructions = "";
  return {
    id: doc.id, spec: doc.spec, name: doc.name, onestop_id: doc.onestopId, languages: null, tags: doc.tags, urls: doc.urls, license,
    authorization: { type: "", param_name: "", info_url: "" },
    feed_state: { last_fetch_error: lastFetchError, feed_version: activeVersion },
    feed_versions: doc.versions.map((v) => ({ id: v.id, sha1: v.sha1, fetched_at: v.fetchedAt, url: v.fields.url ?? null, earliest_calendar_date: v.earliest, latest_calendar_date: v.latest })),
  };
}

function fetchedAtOf(v: VersionInfo, raw: unknown): string {
  if (v.fetchedAt) return v.fetchedAt;
  const s = str(raw);
  if (!s) return "";
  const d = new Date(s.replace(" ", "T"));
  return Number.isNaN(d.getTime()) ? s : d.toISOString();
}

function versionFields(v: VersionDoc, url: string | null, report: ImportReport | null, feedInfos: Record<string, Json>[], serviceLevels: ServiceLevel[]): Record<string, Json> {
  const files: Json[] = [];
  let skipped = 0;
  for (const [name, t] of Object.entries(report?.tables ?? {})) {
    skipped += num(t?.skipped_rows);
    if (num(t?.source_rows) > 0) files.push({ name, rows: num(t?.source_rows), sha1: null, header: null, csv_like: true, size: null });
  }
  const warnings = report?.warnings;
  const warningCount = Array.isArray(warnings) ? warnings.length : warnings && typeof warnings === "object" ? Object.keys(warnings).length : 0;
  const val = v.validation;
  return {
    id: v.id, sha1: v.sha1, fetched_at: v.fetchedAt, url, earliest_calendar_date: v.earliest, latest_calendar_date: v.latest,
    active: v.active,
    feed: null,
    files,
    feed_infos: feedInfos,
    service_levels: serviceLevels as unknown as Json[],
    feed_version_gtfs_import: {
      in_progress: false, success: true, exception_log: "", warning_count: warningCount, skip_entity_error_count: skipped,
      skip_entity_filter_count: 0, skip_entity_marked_count: 0, interpolated_stop_time_count: num(report?.derived?.interpolated_stop_times),
    },
    validation: val
      ? {
          errors: val.errors, warnings: val.warnings, infos: val.infos, date_for_validation: val.date_for_validation, validated_at: val.validated_at,
          codes: Object.fromEntries(Object.entries(val.codes).map(([code, c]) => [code, { severity: c.severity, total: c.total }])),
          // served by routes.ts (GET /feed_versions/{key}/validation.json and .html)
          report_json: `/api/v2/rest/feed_versions/${v.sha1}/validation.json`,
          report_html: `/api/v2/rest/feed_versions/${v.sha1}/validation.html`,
        }
      : null,
  };
}

/** feed_info rows of each version (read from its Parquet file; most feeds have 0 or 1). */
async function feedInfoByVersion(db: Database, dataDir: string, manifest: Manifest): Promise<Map<number, Record<string, Json>[]>> {
  const out = new Map<number, Record<string, Json>[]>();
  const files = manifest.versions.map((v) => join(dataDir, v.path, "feed_info.parquet")).filter((p) => existsSync(p));
  if (!files.length) return out;
  const list = files.map((f) => `'${f.replaceAll("'", "''")}'`).join(", ");
  const rows = await db.all({
    sql: `SELECT feed_version_id, feed_publisher_name, feed_publisher_url, feed_lang, default_lang, feed_start_date::VARCHAR AS feed_start_date,
            feed_end_date::VARCHAR AS feed_end_date, feed_version, feed_contact_email, feed_contact_url
          FROM read_parquet([${list}], union_by_name = true)`,
    values: [],
  });
  for (const r of rows) {
    const fv = Number(r.feed_version_id);
    const doc: Record<string, Json> = {
      feed_publisher_name: nz(r.feed_publisher_name), feed_publisher_url: nz(r.feed_publisher_url), feed_lang: nz(r.feed_lang), default_lang: nz(r.default_lang),
      feed_start_date: nz(r.feed_start_date), feed_end_date: nz(r.feed_end_date), feed_version: nz(r.feed_version), feed_contact_email: nz(r.feed_contact_email),
      feed_contact_url: nz(r.feed_contact_url),
    };
    (out.get(fv) ?? out.set(fv, []).get(fv)!).push(doc);
  }
  return out;
}

/** Each agency's places: the admin areas holding at least 20 % of its stops, most stops first. */
async function placesByAgency(db: Database): Promise<Map<number, Place[]>> {
  const rows = await db.all({
    sql: `WITH c AS (
            SELECT a.agency_ref, s.adm0_name, s.adm1_name, s.adm0_iso, s.adm1_iso, count(*) AS n
            FROM agency_stops a JOIN stops s ON s.id = a.stop_ref
            WHERE a.agency_ref IS NOT NULL AND (s.adm0_name IS NOT NULL OR s.adm1_name IS NOT NULL)
            GROUP BY ALL)
          SELECT agency_ref, adm0_name, adm1_name, adm0_iso, adm1_iso, n / sum(n) OVER (PARTITION BY agency_ref) AS rank FROM c
          ORDER BY agency_ref, rank DESC, adm0_name, adm1_name`,
    values: [],
  });
  const out = new Map<number, Place[]>();
  for (const r of rows) {
    const rank = Number(r.rank);
    if (!(rank >= 0.2)) continue;
    const k = Number(r.agency_ref);
    const p: Place = { city_name: null, adm0_name: nz(r.adm0_name), adm1_name: nz(r.adm1_name), adm0_iso: nz(r.adm0_iso), adm1_iso: nz(r.adm1_iso), rank: Math.round(rank * 1000) / 1000 };
    (out.get(k) ?? out.set(k, []).get(k)!).push(p);
  }
  return out;
}
