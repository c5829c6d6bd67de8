/**
 * The feed endpoints' queries over a loaded dataset's FeedDirectory (feed-docs.ts): feeds, feed
 * versions, agencies and operators filtered, paged by id (`after` = the last id of the previous
 * page) and rendered as Listing items; and the Onestop ID resolver behind /onestop_id/{id}.
 * No HTTP here: the service calls these, routes.ts renders the listings.
 *
 * Which records a request sees:
 * - feeds and feed versions: all of them, active or not (they describe what the dataset holds);
 * - agencies: those of the active versions, unless feed_version_sha1 names a version or an integer
 *   id names the agency (as stops and routes); feed_onestop_id and license_* narrow further;
 * - operators: derived from the agencies of the active versions.
 */
import { notFound } from "../errors.ts";
import type { AlertLookup } from "./alerts.ts";
import type { CatalogData } from "./data.ts";
import type { AgencyDoc, FeedDirectory, FeedDoc, Json, OperatorDoc, Place, VersionDoc } from "./feed-directory.ts";
import type { Item, Listing } from "./listing.ts";
import type { AgencyQuery, BBox, CommonQuery, DirectoryQuery, FeedQuery, FeedVersionQuery, Near, OperatorQuery, PlaceFilter } from "./params.ts";
import { parseKey, visibleVersions } from "./scope.ts";
import type { License } from "../../pipeline/schema/manifest.ts";

const propsOf = (fields: Record<string, Json>) => JSON.stringify(fields).slice(0, -1);
const geometryText = (g: unknown) => (g ? JSON.stringify(g) : "null");

/** One page of `rows` (ascending ids) after `q.after`, at most `q.limit` (null: all). */
function page<T extends { id: number }>(rows: T[], q: { after: number; limit: number | null }, render: (r: T) => Item): Listing {
  const from = rows.filter((r) => r.id > q.after);
  if (q.limit === null || from.length <= q.limit) return { items: from.map(render), after: null };
  const taken = from.slice(0, q.limit);
  return { items: taken.map(render), after: taken[taken.length - 1]!.id };
}

/** The ids of stops inside the query's box and/or circle, or null when it gives neither. */
function stopsInArea(data: CatalogData, q: { bbox: BBox | null; near: Near | null }): Set<number> | null {
  if (!q.bbox && !q.near) return null;
  return new Set(data.spatial.selectIds(q.bbox, q.near));
}

function anyIn(stops: Int32Array | number[], area: Set<number>): boolean {
  for (const s of stops) if (area.has(s)) return true;
  return false;
}

function licenseOk(license: License | undefined, q: DirectoryQuery): boolean {
  for (const { field, value } of q.licenses) {
    const actual = license?.[field] ?? "unknown";
    if (value === "exclude_no" ? actual === "no" : actual !== value) return false;
  }
  return true;
}

function placeMatches(places: Place[], f: PlaceFilter): boolean {
  if (!f.adm0Name && !f.adm0Iso && !f.adm1Name && !f.adm1Iso) return true;
  return places.some(
    (p) =>
      (!f.adm0Name || p.adm0_name?.toLowerCase() === f.adm0Name) &&
      (!f.adm0Iso || p.adm0_iso?.toLowerCase() === f.adm0Iso) &&
      (!f.adm1Name || p.adm1_name?.toLowerCase() === f.adm1Name) &&
      (!f.adm1Iso || p.adm1_iso?.toLowerCase() === f.adm1Iso),
  );
}

const placeJson = (p: Place) => ({ city_name: p.city_name, adm0_name: p.adm0_name, adm1_name: p.adm1_name });
const feedRef = (f: FeedDoc) => ({ id: f.id, onestop_id: f.onestopId, name: f.name, spec: f.spec });

// ---- feeds

/** The feed a key names (an integer id or a Onestop ID, case-insensitive), or undefined. */
export function feedByKey(dir: FeedDirectory, key: string): FeedDoc | undefined {
  return /^\d{1,10}$/.test(key) ? dir.feedById.get(Number(key)) : dir.feedByOnestop.get(key.toLowerCase());
}

export function findFeeds(dir: FeedDirectory, data: CatalogData, q: FeedQuery): Listing {
  const area = stopsInArea(data, q);
  const stopsOfVersion = area ? versionStops(data, area) : null;
  const rows = dir.feeds.filter((f) => {
    if (q.key !== null && feedByKey(dir, q.key) !== f) return false;
    if (q.id !== null && f.id !== q.id) return false;
    if (q.onestopId !== null && f.onestopId.toLowerCase() !== q.onestopId.toLowerCase()) return false;
    if (q.spec !== null && q.spec !== f.spec) return false;
    if (q.search !== null && !f.onestopId.toLowerCase().includes(q.search) && !(f.name ?? "").toLowerCase().includes(q.search)) return false;
    if (q.fetchError !== null && f.fetchError !== q.fetchError) return false;
    if (q.tag !== null && !tagMatches(f.tags, q.tag)) return false;
    if (q.url !== null && !urlMatches(f, q.url)) return false;
    if (stopsOfVersion && !(f.activeVersion && stopsOfVersion.has(f.activeVersion.id))) return false;
    return licenseOk(f.license, q);
  });
  return page(rows, q, (f) => ({ props: propsOf(f.fields), geometry: geometryText(f.activeVersion?.geometry), geometryInJson: false }));
}

/** Transitland's tag filter: the key present, with this value when tag_value is given and not empty. */
function tagMatches(tags: Record<string, string> | null, tag: NonNullable<FeedQuery["tag"]>): boolean {
  if (!tags || !Object.hasOwn(tags, tag.key)) return false;
  return tag.value === null || tag.value === "" || tags[tag.key] === tag.value;
}

function urlMatches(f: FeedDoc, u: NonNullable<FeedQuery["url"]>): boolean {
  const norm = (s: string) => (u.caseSensitive ? s : s.toLowerCase());
  const want = u.url === null ? null : norm(u.url);
  const types = u.type ? [u.type] : Object.keys(f.urls);
  for (const t of types) {
    const v = f.urls[t];
    const values = Array.isArray(v) ? v : [v];
    if (values.some((x) => typeof x === "string" && x !== "" && (want === null || norm(x) === want))) return true;
  }
  return false;
}

/** The versions having a stop in `area`. */
function versionStops(data: CatalogData, area: Set<number>): Set<number> {
  const out = new Set<number>();
  for (const id of area) {
    const s = data.stops.get(id);
    if (s) out.add(s.fv);
  }
  return out;
}

// ---- feed versions

/** The version a key names (an integer id or a SHA-1), or undefined. */
export function versionByKey(dir: FeedDirectory, data: CatalogData, key: string): VersionDoc | undefined {
  if (/^\d{1,10}$/.test(key)) return dir.versionById.get(Number(key));
  const v = data.versionBySha.get(key.toLowerCase());
  return v ? dir.versionById.get(v.id) : undefined;
}

export function findFeedVersions(dir: FeedDirectory, data: CatalogData, q: FeedVersionQuery): Listing {
  const area = stopsInArea(data, q);
  const inArea = area ? versionStops(data, area) : null;
  const feed = q.feedKey === null ? null : feedByKey(dir, q.feedKey);
  if (q.feedKey !== null && !feed) throw notFound(`feed not found: ${q.feedKey}`);
  const keyed = q.key === null ? null : versionByKey(dir, data, q.key);
  const rows = dir.versions.filter((v) => {
    if (q.key !== null && keyed !== v) return false;
    if (feed && v.feedOnestopId.toLowerCase() !== feed.onestopId.toLowerCase()) return false;
    if (q.id !== null && v.id !== q.id) return false;
    if (q.feedId !== null && (dir.feedByOnestop.get(v.feedOnestopId.toLowerCase())?.id ?? v.feedId) !== q.feedId) return false;
    if (q.feedOnestopId !== null && v.feedOnestopId.toLowerCase() !== q.feedOnestopId.toLowerCase()) return false;
    if (q.sha1 !== null && v.sha1 !== q.sha1) return false;
    const fetched = Date.parse(v.fetchedAt);
    if (q.fetchedBefore !== null && !(fetched < q.fetchedBefore)) return false;
    if (q.fetchedAfter !== null && !(fetched > q.fetchedAfter)) return false;
    if (q.coversStart !== null || q.coversEnd !== null) {
      if (!v.earliest || !v.latest) return false;
      const start = q.coversStart ?? q.coversEnd!;
      const end = q.coversEnd ?? q.coversStart!;
      if (!(v.earliest <= start && v.latest >= end)) return false;
    }
    return !inArea || inArea.has(v.id);
  });
  return page(rows, q, versionItem);
}

export const versionItem = (v: VersionDoc): Item => ({ props: propsOf(v.fields), geometry: geometryText(v.geometry), geometryInJson: true });

// ---- agencies

/** Agency ids a key names among the visible versions (integer id: any version). */
function agenciesByKey(dir: FeedDirectory, data: CatalogData, key: string, visible: ReadonlySet<number>): AgencyDoc[] {
  const k = parseKey(key);
  let ids: number[];
  if (k.kind === "id") ids = dir.agencyById.has(k.id!) ? [k.id!] : [];
  else if (k.kind === "feed") ids = data.agenciesByFeed(k.feed!, k.gtfsId!);
  else ids = data.agenciesByOnestop.get(k.raw) ?? [];
  return ids.map((id) => dir.agencyById.get(id)!).filter((a) => a && (k.kind === "id" || visible.has(a.fv)));
}

/** Render options of agency items: the request's alerts and routes. */
export interface AgencyRender {
  alerts: AlertLookup | null;
  includeRoutes: boolean;
}

export function findAgencies(dir: FeedDirectory, data: CatalogData, q: AgencyQuery, o: AgencyRender): Listing {
  const pinned = q.id !== null || (q.agencyKey !== null && parseKey(q.agencyKey).kind === "id");
  const visible = visibleVersions(data, q, pinned);
  const area = stopsInArea(data, q);
  const keyed = q.agencyKey === null ? null : new Set(agenciesByKey(dir, data, q.agencyKey, visible));
  const rows = dir.agencies.filter((a) => {
    if (!visible.has(a.fv)) return false;
    if (keyed && !keyed.has(a)) return false;
    if (q.id !== null && a.id !== q.id) return false;
    if (q.agencyId !== null && a.agencyId !== q.agencyId) return false;
    if (q.agencyName !== null && a.agencyName.toLowerCase() !== q.agencyName) return false;
    if (q.onestopId !== null && a.onestopId !== q.onestopId) return false;
    if (q.search !== null && !a.agencyName.toLowerCase().includes(q.search) && !(a.onestopId ?? "").toLowerCase().includes(q.search)) return false;
    if (area && !anyIn(a.stops, area)) return false;
    return placeMatches(a.places, q.places);
  });
  return page(rows, q, (a) => agencyItem(dir, data, a, o));
}

/** The agencies an agency key names (404 when none), for /agencies/{key} and /agencies/{key}/routes. */
export function resolveAgencies(dir: FeedDirectory, data: CatalogData, key: string, q: CommonQuery): AgencyDoc[] {
  const pinned = parseKey(key).kind === "id";
  const visible = visibleVersions(data, q, pinned);
  const found = agenciesByKey(dir, data, key, visible).filter((a) => visible.has(a.fv));
  if (!found.length) throw notFound(`agency not found: ${key}${q.feedVersionSha1 ? ` in feed version ${q.feedVersionSha1}` : pinned ? "" : " in the active feed versions"}`);
  return found;
}

export function agencyItem(dir: FeedDirectory, data: CatalogData, a: AgencyDoc, o: AgencyRender): Item {
  const v = data.versions.get(a.fv)!;
  const feed = dir.feedByOnestop.get(v.feedOnestopId.toLowerCase());
  const operator = a.onestopId ? dir.operatorByOnestop.get(a.onestopId) : undefined;
  const fields: Record<string, Json> = {
    ...a.fields,
    operator: operator ? { onestop_id: operator.onestopId, name: operator.name, short_name: null, tags: null, feeds: operator.feeds.map(feedRef) } : null,
    places: a.places.map(placeJson),
    feed_version: { id: v.id, sha1: v.sha1, fetched_at: v.fetchedAt, feed: { id: feed?.id ?? v.feedId, onestop_id: v.feedOnestopId } },
  };
  let props = propsOf(fields);
  if (o.alerts) props += `,"alerts":${o.alerts.agency(v.feedOnestopId, a.agencyId)}`;
  if (o.includeRoutes) {
    const routes = (dir.routesByAgency.get(a.id) ?? []).map((rid) => {
      const r = data.routes.get(rid)!;
      const alerts = o.alerts ? `,"alerts":${o.alerts.route(v.feedOnestopId, r.routeId)}` : "";
      return `{"id":${r.id},"route_id":${JSON.stringify(r.routeId)},"route_short_name":${JSON.stringify(r.shortName)},"route_long_name":${JSON.stringify(r.longName)}${alerts}}`;
    });
    props += `,"routes":[${routes.join(",")}]`;
  }
  return { props, geometry: geometryText(a.geometry), geometryInJson: true };
}

// ---- operators

/** The operator a key names (an integer id or a Onestop ID), or undefined. */
export function operatorByKey(dir: FeedDirectory, key: string): OperatorDoc | undefined {
  return /^\d{1,10}$/.test(key) ? dir.operators.find((o) => o.id === Number(key)) : dir.operatorByOnestop.get(key);
}

export function findOperators(dir: FeedDirectory, data: CatalogData, q: OperatorQuery, alerts: AlertLookup | null): Listing {
  const area = stopsInArea(data, q);
  const keyed = q.key === null ? null : operatorByKey(dir, q.key);
  const rows = dir.operators.filter((op) => {
    if (q.key !== null && keyed !== op) return false;
    if (q.id !== null && op.id !== q.id) return false;
    if (q.onestopId !== null && op.onestopId !== q.onestopId) return false;
    if (q.feedOnestopId !== null && !op.feeds.some((f) => f.onestopId.toLowerCase() === q.feedOnestopId!.toLowerCase())) return false;
    if (q.search !== null && !op.onestopId.toLowerCase().includes(q.search) && !op.agencies.some((a) => a.agencyName.toLowerCase().includes(q.search!))) return false;
    if (q.tag !== null) return false; // operators derived from agencies have no tags
    if (area && !op.agencies.some((a) => anyIn(a.stops, area))) return false;
    if (!op.agencies.some((a) => placeMatches(a.places, q.places))) return false;
    return !q.licenses.length || op.feeds.some((f) => licenseOk(f.license, q));
  });
  return page(rows, q, (op) => operatorItem(data, op, alerts));
}

export function operatorItem(data: CatalogData, op: OperatorDoc, alerts: AlertLookup | null): Item {
  const agencies = op.agencies.map((a) => {
    const feed = data.versions.get(a.fv)!.feedOnestopId;
    const alertText = alerts ? `,"alerts":${alerts.agency(feed, a.agencyId)}` : "";
    return `{"id":${a.id},"agency_id":${JSON.stringify(a.agencyId)},"agency_name":${JSON.stringify(a.agencyName)},"geometry":${geometryText(a.geometry)},"places":${JSON.stringify(a.places.map(placeJson))}${alertText}}`;
  });
  const fields: Record<string, Json> = {
    id: op.id, onestop_id: op.onestopId, name: op.name, short_name: null, website: op.website, tags: null, generated: true, feeds: op.feeds.map(feedRef),
  };
  return { props: `${propsOf(fields)},"agencies":[${agencies.join(",")}]`, geometry: geometryText(op.geometry), geometryInJson: false };
}

// ---- Onestop IDs

export type OnestopKind = "feeds" | "operators" | "stops" | "routes";

/** Which endpoint holds a Onestop ID (by its prefix, f-, o-, s-, r-), if the dataset has it (active versions for stops and routes). */
export function resolveOnestopId(dir: FeedDirectory, data: CatalogData, id: string): OnestopKind | null {
  const active = (fv: number) => data.versions.get(fv)?.active === true;
  if (id.startsWith("f-")) return dir.feedByOnestop.has(id.toLowerCase()) ? "feeds" : null;
  if (id.startsWith("o-")) return dir.operatorByOnestop.has(id) ? "operators" : null;
  if (id.startsWith("s-")) return (data.stopsByOnestop.get(id) ?? []).some((s) => active(data.stops.get(s)!.fv)) ? "stops" : null;
  if (id.startsWith("r-")) return (data.routesByOnestop.get(id) ?? []).some((r) => active(data.routes.get(r)!.fv)) ? "routes" : null;
  return null;
}
