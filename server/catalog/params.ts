/**
 * Query-parameter parsing for the catalog endpoints. Every value arrives as a string; each parser
 * either returns a typed value or throws INVALID_PARAMETER naming the parameter and what is allowed
 * (400), so no client input can reach DuckDB unchecked. Empty values count as absent, like the
 * reference service.
 */
import { invalidParameter } from "../errors.ts";

export const FORMATS = ["json", "geojson", "geojsonl"] as const;
export type Format = (typeof FORMATS)[number];

export const LICENSE_PARAMS = [
  "license_commercial_use_allowed",
  "license_share_alike_optional",
  "license_create_derived_product",
  "license_redistribution_allowed",
  "license_use_without_attribution",
] as const;
export type LicenseParam = (typeof LICENSE_PARAMS)[number];
export const LICENSE_VALUES = ["yes", "no", "unknown", "exclude_no"] as const;
export type LicenseFilterValue = (typeof LICENSE_VALUES)[number];

export const RELATIVE_DATES = [
  "TODAY",
  "MONDAY",
  "TUESDAY",
  "WEDNESDAY",
  "THURSDAY",
  "FRIDAY",
  "SATURDAY",
  "SUNDAY",
  "NEXT_MONDAY",
  "NEXT_TUESDAY",
  "NEXT_WEDNESDAY",
  "NEXT_THURSDAY",
  "NEXT_FRIDAY",
  "NEXT_SATURDAY",
  "NEXT_SUNDAY",
] as const;
export type RelativeDate = (typeof RELATIVE_DATES)[number];

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 1000;
export const MAX_RADIUS_M = 10_000;
/** radius of the trips lat/lon search when none is given */
export const DEFAULT_TRIP_RADIUS_M = 500;
const INT32_MAX = 2_147_483_647;

export interface Near {
  lat: number;
  lon: number;
  radius: number;
}
export interface BBox {
  minLon: number;
  minLat: number;
  maxLon: number;
  maxLat: number;
}

/** Parameters shared by the trip and stop endpoints. */
export interface CommonQuery {
  format: Format;
  /** null = no limit (geojsonl without an explicit limit streams every row) */
  limit: number | null;
  after: number;
  feedVersionSha1: string | null;
  feedOnestopId: string | null;
  licenses: { field: LicenseParam; value: LicenseFilterValue }[];
  includeAlerts: boolean;
}

export interface StopQuery extends CommonQuery {
  servedByRouteOnestopIds: string[];
  servedByAgencyOnestopIds: string[];
  servedByRouteTypes: number[] | null;
  locationType: number | null;
  bbox: BBox | null;
  near: Near | null;
  stopId: string | null;
  onestopId: string | null;
}

export interface TripQuery extends CommonQuery {
  serviceDate: string | null;
  relativeDate: RelativeDate | null;
  useServiceWindow: boolean;
  tripId: string | null;
  includeGeometry: boolean;
  id: number | null;
  near: Near | null;
}

/** Read access to a query string: first non-empty value per name. */
class Reader {
  constructor(private readonly sp: URLSearchParams) {}
  get(name: string): string | null {
    for (const v of this.sp.getAll(name)) if (v.trim() !== "") return v.trim();
    return null;
  }
  /** comma-separated list, repeated parameters joined */
  list(name: string): string[] | null {
    const all = this.sp
      .getAll(name)
      .flatMap((v) => v.split(","))
      .map((v) => v.trim())
      .filter((v) => v !== "");
    return all.length ? all : null;
  }
}

const INT_RE = /^[+-]?\d+$/;
const NUM_RE = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

export function parseInteger(param: string, raw: string, min: number, max: number, allowed?: string): number {
  const what = allowed ?? `an integer from ${min} to ${max}`;
  if (!INT_RE.test(raw)) throw invalidParameter(param, `${param} must be ${what}, got "${raw}"`, what);
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < min || n > max) throw invalidParameter(param, `${param} must be ${what}, got ${raw}`, what);
  return n;
}

function parseNumber(param: string, raw: string, min: number, max: number, unit = ""): number {
  const what = `a number from ${min} to ${max}${unit}`;
  if (!NUM_RE.test(raw)) throw invalidParameter(param, `${param} must be ${what}, got "${raw}"`, what);
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min || n > max) throw invalidParameter(param, `${param} must be ${what}, got ${raw}`, what);
  return n;
}

function parseBoolean(param: string, raw: string | null, dflt: boolean): boolean {
  if (raw === null) return dflt;
  const v = raw.toLowerCase();
  if (v === "true") return true;
  if (v === "false") return false;
  throw invalidParameter(param, `${param} must be true or false, got "${raw}"`, "true, false");
}

function parseEnum<T extends string>(param: string, raw: string, values: readonly T[], normalize: (s: string) => string): T {
  const v = normalize(raw) as T;
  if (!values.includes(v)) throw invalidParameter(param, `${param} must be one of ${values.join(", ")}; got "${raw}"`, values.join(", "));
  return v;
}

/** YYYY-MM-DD naming a real calendar day. */
export function parseDate(param: string, raw: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(raw);
  const ok =
    m &&
    (() => {
      const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
      return d.getUTCFullYear() === Number(m[1]) && d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3]);
    })();
  if (!ok) throw invalidParameter(param, `${param} must be a date YYYY-MM-DD, got "${raw}"`, "YYYY-MM-DD");
  return raw;
}

export function parseFormat(raw: string | null | undefined): Format {
  if (raw == null || raw === "") return "json";
  return parseEnum("format", raw, FORMATS, (s) => s.toLowerCase());
}

function parseNear(r: Reader, requireRadius: boolean, defaultRadius: number): Near | null {
  const lat = r.get("lat");
  const lon = r.get("lon");
  const radius = r.get("radius");
  if (lat === null && lon === null && radius === null) return null;
  const need = requireRadius ? "lat, lon and radius" : "lat and lon";
  if (lat === null) throw invalidParameter("lat", `lat is missing: a geographic search needs ${need} together`, need);
  if (lon === null) throw invalidParameter("lon", `lon is missing: a geographic search needs ${need} together`, need);
  if (requireRadius && radius === null) throw invalidParameter("radius", `radius is missing: a geographic search needs ${need} together`, need);
  return {
    lat: parseNumber("lat", lat, -90, 90),
    lon: parseNumber("lon", lon, -180, 180),
    radius: radius === null ? defaultRadius : parseNumber("radius", radius, 0, MAX_RADIUS_M, " meters"),
  };
}

function parseBBox(raw: string): BBox {
  const allowed = "min_lon,min_lat,max_lon,max_lat (four numbers, comma-separated)";
  const parts = raw.split(",").map((s) => s.trim());
  if (parts.length !== 4 || parts.some((p) => !NUM_RE.test(p))) {
    throw invalidParameter("bbox", `bbox must be four comma-separated numbers min_lon,min_lat,max_lon,max_lat; got "${raw}"`, allowed);
  }
  const [minLon, minLat, maxLon, maxLat] = parts.map(Number) as [number, number, number, number];
  if ([minLon, maxLon].some((x) => x < -180 || x > 180) || [minLat, maxLat].some((x) => x < -90 || x > 90)) {
    throw invalidParameter("bbox", `bbox longitudes must be within -180..180 and latitudes within -90..90; got "${raw}"`, allowed);
  }
  if (minLon > maxLon || minLat > maxLat) throw invalidParameter("bbox", `bbox minimums must not exceed maximums; got "${raw}"`, allowed);
  return { minLon, minLat, maxLon, maxLat };
}

function parseCommon(r: Reader, format: Format): CommonQuery {
  const limitRaw = r.get("limit");
  const limit = limitRaw === null ? (format === "geojsonl" ? null : DEFAULT_LIMIT) : parseInteger("limit", limitRaw, 1, MAX_LIMIT);
  const afterRaw = r.get("after");
  const after = afterRaw === null ? 0 : parseInteger("after", afterRaw, 0, INT32_MAX, "a cursor taken from meta.next (a non-negative integer)");
  const sha = r.get("feed_version_sha1");
  if (sha !== null && !/^[0-9a-fA-F]{40}$/.test(sha)) {
    throw invalidParameter("feed_version_sha1", `feed_version_sha1 must be 40 hexadecimal characters, got "${sha}"`, "40 hex characters");
  }
  const licenses: CommonQuery["licenses"] = [];
  for (const field of LICENSE_PARAMS) {
    const raw = r.get(field);
    if (raw !== null) licenses.push({ field, value: parseEnum(field, raw, LICENSE_VALUES, (s) => s.toLowerCase()) });
  }
  return {
    format,
    limit,
    after,
    feedVersionSha1: sha?.toLowerCase() ?? null,
    feedOnestopId: r.get("feed_onestop_id"),
    licenses,
    includeAlerts: parseBoolean("include_alerts", r.get("include_alerts"), false),
  };
}

export function parseStopQuery(sp: URLSearchParams, format: Format): StopQuery {
  const r = new Reader(sp);
  const common = parseCommon(r, format);
  const routes: string[] = [];
  const agencies: string[] = [];
  for (const id of r.list("served_by_onestop_ids") ?? []) {
    if (id.startsWith("r-")) routes.push(id);
    else if (id.startsWith("o-")) agencies.push(id);
    else
      throw invalidParameter(
        "served_by_onestop_ids",
        `served_by_onestop_ids takes route (r-...) or agency (o-...) Onestop IDs; got "${id}"`,
        "comma-separated route (r-...) or agency (o-...) Onestop IDs",
      );
  }
  const types = r.list("served_by_route_types")?.map((t) => parseInteger("served_by_route_types", t, 0, 9999, "comma-separated GTFS route_type integers"));
  const lt = r.get("location_type");
  const bbox = r.get("bbox");
  return {
    ...common,
    servedByRouteOnestopIds: routes,
    servedByAgencyOnestopIds: agencies,
    servedByRouteTypes: types ?? null,
    locationType: lt === null ? null : parseInteger("location_type", lt, 0, 4, "0 (stop/platform), 1 (station), 2 (entrance/exit), 3 (generic node), 4 (boarding area)"),
    bbox: bbox === null ? null : parseBBox(bbox),
    near: parseNear(r, true, 0),
    stopId: r.get("stop_id"),
    onestopId: r.get("onestop_id"),
  };
}

export function parseTripQuery(sp: URLSearchParams, format: Format): TripQuery {
  const r = new Reader(sp);
  const common = parseCommon(r, format);
  const sd = r.get("service_date");
  const rd = r.get("relative_date");
  if (sd !== null && rd !== null) {
    throw invalidParameter("relative_date", "give service_date or relative_date, not both", "either service_date or relative_date");
  }
  const id = r.get("id");
  return {
    ...common,
    serviceDate: sd === null ? null : parseDate("service_date", sd),
    relativeDate: rd === null ? null : parseEnum("relative_date", rd, RELATIVE_DATES, (s) => s.toUpperCase()),
    useServiceWindow: parseBoolean("use_service_window", r.get("use_service_window"), true),
    tripId: r.get("trip_id"),
    includeGeometry: parseBoolean("include_geometry", r.get("include_geometry"), false),
    id: id === null ? null : parseInteger("id", id, 1, INT32_MAX, "a positive integer trip id"),
    near: parseNear(r, false, DEFAULT_TRIP_RADIUS_M),
  };
}
