/**
 * Which feed versions a request may see, and path-key resolution.
 *
 * Versions: only active ones, unless feed_version_sha1 names one (any state) or the key is an
 * integer id (which pins its own version). feed_onestop_id and the license_* filters narrow further.
 *
 * Keys (stop_key, route_key): all digits → internal id; `<feed onestop_id>:<gtfs id>` (split at the
 * first colon) → that feed's row; anything else → Onestop ID. Unlike the reference service, the
 * trips endpoint accepts the `feed:route_id` form too.
 */
import { notFound } from "../errors.ts";
import type { CommonQuery } from "./params.ts";
import type { CatalogData, VersionInfo } from "./data.ts";

export type KeyKind = "id" | "feed" | "onestop";

export interface ParsedKey {
  kind: KeyKind;
  raw: string;
  id?: number;
  feed?: string;
  gtfsId?: string;
}

export function parseKey(raw: string): ParsedKey {
  if (/^\d{1,10}$/.test(raw)) return { kind: "id", raw, id: Number(raw) };
  const colon = raw.indexOf(":");
  if (colon > 0 && colon < raw.length - 1) return { kind: "feed", raw, feed: raw.slice(0, colon), gtfsId: raw.slice(colon + 1) };
  return { kind: "onestop", raw };
}

function licenseOk(v: VersionInfo, q: CommonQuery): boolean {
  for (const { field, value } of q.licenses) {
    const actual = v.license[field] ?? "unknown";
    if (value === "exclude_no" ? actual === "no" : actual !== value) return false;
  }
  return true;
}

/**
 * Versions visible to a request. `pinned` = the key was an integer id, which reaches any version.
 * `withFilters` = also apply feed_onestop_id and license_* (not done when only checking existence).
 */
export function visibleVersions(data: CatalogData, q: CommonQuery, pinned: boolean, withFilters = true): ReadonlySet<number> {
  // no sha1, and no filters that apply: the same set for every such request of this dataset
  if (!q.feedVersionSha1 && (!withFilters || (!q.feedOnestopId && q.licenses.length === 0))) return data.versionIdSet(pinned);
  const out = new Set<number>();
  for (const v of data.versions.values()) {
    if (q.feedVersionSha1 ? v.sha1 !== q.feedVersionSha1 : !pinned && !v.active) continue;
    if (withFilters && q.feedOnestopId && v.feedOnestopId.toLowerCase() !== q.feedOnestopId.toLowerCase()) continue;
    if (withFilters && !licenseOk(v, q)) continue;
    out.add(v.id);
  }
  return out;
}

function resolve(
  key: ParsedKey,
  data: CatalogData,
  q: CommonQuery,
  byId: (id: number) => { fv: number } | undefined,
  byFeed: (feed: string, id: string) => number[],
  byOnestop: (osid: string) => number[],
  what: string,
): number[] {
  const scope = visibleVersions(data, q, key.kind === "id", false);
  let ids: number[];
  if (key.kind === "id") ids = byId(key.id!) ? [key.id!] : [];
  else if (key.kind === "feed") ids = byFeed(key.feed!, key.gtfsId!);
  else ids = byOnestop(key.raw);
  ids = ids.filter((id) => scope.has(byId(id)!.fv));
  if (!ids.length) {
    const where = q.feedVersionSha1 ? ` in feed version ${q.feedVersionSha1}` : key.kind === "id" ? "" : " in the active feed versions";
    throw notFound(`${what} not found: ${key.raw}${where}`);
  }
  return ids;
}

/** Stop ids a stop_key names (several for a Onestop ID shared by feeds); 404 when none. */
export function resolveStopKey(data: CatalogData, raw: string, q: CommonQuery): number[] {
  return resolve(
    parseKey(raw),
    data,
    q,
    (id) => data.stops.get(id),
    (f, id) => data.stopsByFeed(f, id),
    (o) => data.stopsByOnestop.get(o) ?? [],
    "stop",
  );
}

/** Route ids a route_key names; 404 when none. */
export function resolveRouteKey(data: CatalogData, raw: string, q: CommonQuery): number[] {
  return resolve(
    parseKey(raw),
    data,
    q,
    (id) => data.routes.get(id),
    (f, id) => data.routesByFeed(f, id),
    (o) => data.routesByOnestop.get(o) ?? [],
    "route",
  );
}
