/**
 * The catalog's parameters, each described once as a zod schema (server/params.ts): the raw text
 * → typed value with the error message naming the parameter and what is allowed (400), and in
 * `.meta()` the description and JSON Schema type that /docs shows. No client input reaches DuckDB
 * unchecked. Empty values count as absent, like the reference service; a parameter given twice
 * counts with its first non-empty value (lists: every value, comma-separated).
 *
 * The shapes are in validation order: the first bad parameter in that order is the one reported.
 * stopQuery / tripQuery turn the parsed values into the typed queries the service takes.
 */
import { z } from "zod";
import { invalidParameter } from "../errors.ts";
import { type ParamSchema, type ParamValues, param, parseParams, reject } from "../params.ts";
import { LICENSE_FIELDS, type LicenseField } from "./license.ts";

export const FORMATS = ["json", "geojson", "geojsonl"] as const;
export type Format = (typeof FORMATS)[number];

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
  licenses: { field: LicenseField; value: LicenseFilterValue }[];
  /** include_alerts=true (or active_alerts=true): alerts from the realtime feeds */
  includeAlerts: boolean;
  /** active_alerts=true: only alerts whose active period contains the request's time */
  activeAlerts: boolean;
}

export interface StopQuery extends CommonQuery {
  servedByRouteOnestopIds: string[];
  servedByAgencyOnestopIds: string[];
  servedByRouteTypes: number[] | null;
  locationType: number | null;
  bbox: BBox | null;
  near: Near | null;
  stopId: string | null;
  stopCode: string | null;
  onestopId: string | null;
}

/** GET /routes[.format], /routes/{route_key}[.format] */
export interface RouteQuery extends CommonQuery {
  id: number | null;
  routeKey: string | null;
  routeId: string | null;
  /** route_type and route_types together */
  routeTypes: number[] | null;
  onestopId: string | null;
  agencyKey: string | null;
  operatorOnestopId: string | null;
  /** null when absent or shorter than 2 characters (the reference ignores those) */
  search: string | null;
  stopKey: string | null;
  bbox: BBox | null;
  near: Near | null;
  includeGeometry: boolean;
  includeStops: boolean;
}

/** GET /stops/{stop_key}/departures (json only; `after` is not taken) */
export interface DepartureQuery extends CommonQuery {
  serviceDate: string | null;
  date: string | null;
  relativeDate: RelativeDate | null;
  /** seconds from now; null when not given */
  next: number | null;
  /** seconds since the start of the day (may exceed 24 h) */
  startTime: number | null;
  endTime: number | null;
  useServiceWindow: boolean;
  includeGeometry: boolean;
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

// ---- parameter kinds

type Ctx = z.RefinementCtx;
const LISTS = new WeakSet<z.ZodType>();

/** A comma-separated list (repeated parameters add to it); null when it names nothing. */
function list<T>(description: string, parse: (item: string, ctx: Ctx) => T): ParamSchema<T[] | null> {
  const s = param({ type: "string" }, description, null, (raw, ctx) => {
    const items = raw
      .split(",")
      .map((v) => v.trim())
      .filter((v) => v !== "");
    return items.length ? items.map((v) => parse(v, ctx)) : null;
  });
  LISTS.add(s);
  return s;
}

const INT_RE = /^[+-]?\d+$/;
const NUM_RE = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

function checkInteger(ctx: Ctx, name: string, raw: string, min: number, max: number, allowed?: string): number {
  const what = allowed ?? `an integer from ${min} to ${max}`;
  if (!INT_RE.test(raw)) return reject(ctx, `${name} must be ${what}, got "${raw}"`, what);
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < min || n > max) return reject(ctx, `${name} must be ${what}, got ${raw}`, what);
  return n;
}

function checkNumber(ctx: Ctx, name: string, raw: string, min: number, max: number, unit = ""): number {
  const what = `a number from ${min} to ${max}${unit}`;
  if (!NUM_RE.test(raw)) return reject(ctx, `${name} must be ${what}, got "${raw}"`, what);
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min || n > max) return reject(ctx, `${name} must be ${what}, got ${raw}`, what);
  return n;
}

const integer = (name: string, min: number, max: number, description: string, allowed?: string) =>
  param({ type: "integer", minimum: min, maximum: max }, description, null, (raw, ctx) => checkInteger(ctx, name, raw, min, max, allowed));

const number = (name: string, min: number, max: number, description: string, unit = "") =>
  param({ type: "number", minimum: min, maximum: max }, description, null, (raw, ctx) => checkNumber(ctx, name, raw, min, max, unit));

const boolean = (name: string, dflt: boolean, description: string) =>
  param({ type: "string", enum: ["true", "false"], default: String(dflt) }, description, dflt, (raw, ctx) => {
    const v = raw.toLowerCase();
    if (v === "true") return true;
    if (v === "false") return false;
    return reject(ctx, `${name} must be true or false, got "${raw}"`, "true, false");
  });

function oneOf<T extends string>(name: string, values: readonly T[], normalize: (s: string) => string, description: string) {
  return param({ type: "string", enum: [...values] }, description, null, (raw, ctx) => {
    const v = normalize(raw) as T;
    return values.includes(v) ? v : reject(ctx, `${name} must be one of ${values.join(", ")}; got "${raw}"`, values.join(", "));
  });
}

const text = (description: string) => param({ type: "string" }, description, null, (raw) => raw);

/** YYYY-MM-DD naming a real calendar day. */
const date = (name: string, description: string) =>
  param({ type: "string", format: "date" }, description, null, (raw, ctx) => {
    const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(raw);
    const d = m && new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
    const ok = m && d && d.getUTCFullYear() === Number(m[1]) && d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3]);
    return ok ? raw : reject(ctx, `${name} must be a date YYYY-MM-DD, got "${raw}"`, "YYYY-MM-DD");
  });

/** HH:MM:SS (or HH:MM), hours 0 to 99 (times past midnight count on: 25:30:00), as seconds. */
const TIME_ALLOWED = "HH:MM:SS (hours 0 to 99; past midnight is 24:00:00 and on)";
const timeOfDay = (name: string, description: string) =>
  param({ type: "string", pattern: "^\\d{1,2}:\\d{2}(:\\d{2})?$" }, description, null, (raw, ctx) => {
    const m = /^(\d{1,2}):([0-5]\d)(?::([0-5]\d))?$/.exec(raw);
    if (!m) return reject(ctx, `${name} must be a time HH:MM:SS, got "${raw}"`, TIME_ALLOWED);
    return Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3] ?? 0);
  });

const BBOX_ALLOWED = "min_lon,min_lat,max_lon,max_lat (four numbers, comma-separated)";
const bbox = param({ type: "string" }, "min_lon,min_lat,max_lon,max_lat", null, (raw, ctx): BBox => {
  const parts = raw.split(",").map((s) => s.trim());
  if (parts.length !== 4 || parts.some((p) => !NUM_RE.test(p))) {
    return reject(ctx, `bbox must be four comma-separated numbers min_lon,min_lat,max_lon,max_lat; got "${raw}"`, BBOX_ALLOWED);
  }
  const [minLon, minLat, maxLon, maxLat] = parts.map(Number) as [number, number, number, number];
  if ([minLon, maxLon].some((x) => x < -180 || x > 180) || [minLat, maxLat].some((x) => x < -90 || x > 90)) {
    return reject(ctx, `bbox longitudes must be within -180..180 and latitudes within -90..90; got "${raw}"`, BBOX_ALLOWED);
  }
  if (minLon > maxLon || minLat > maxLat) return reject(ctx, `bbox minimums must not exceed maximums; got "${raw}"`, BBOX_ALLOWED);
  return { minLon, minLat, maxLon, maxLat };
});

/** lat, lon (and radius when required) come together; checked before lat is parsed. */
function nearTogether(requireRadius: boolean) {
  const need = requireRadius ? "lat, lon and radius" : "lat and lon";
  return (raw: (name: string) => string | undefined) => {
    const lat = raw("lat");
    const lon = raw("lon");
    const radius = raw("radius");
    if (lat === undefined && lon === undefined && radius === undefined) return null;
    if (lat === undefined) return invalidParameter("lat", `lat is missing: a geographic search needs ${need} together`, need);
    if (lon === undefined) return invalidParameter("lon", `lon is missing: a geographic search needs ${need} together`, need);
    if (requireRadius && radius === undefined) return invalidParameter("radius", `radius is missing: a geographic search needs ${need} together`, need);
    return null;
  };
}

// ---- path parameters

/** `.{format}` of a path; absent = json. */
export const formatParam = param(
  { type: "string", enum: [...FORMATS] },
  "json (default), geojson (FeatureCollection) or geojsonl (one Feature per line); anything else is a 400",
  "json" as Format,
  (raw, ctx) => {
    if (raw === "") return "json";
    const v = raw.toLowerCase() as Format;
    return FORMATS.includes(v) ? v : reject(ctx, `format must be one of ${FORMATS.join(", ")}; got "${raw}"`, FORMATS.join(", "));
  },
);

const KEY_FORMS = "an integer id, `<feed onestop_id>:<gtfs id>`, or a Onestop ID";
export const PATH_PARAMS = {
  route_key: text(KEY_FORMS),
  stop_key: text(KEY_FORMS),
  /** a trip's internal id in /routes/{route_key}/trips/{id} */
  id: param({ type: "integer", minimum: 1, maximum: INT32_MAX }, "internal trip id", null, (raw, ctx) =>
    checkInteger(ctx, "id", raw, 1, INT32_MAX, "a positive integer trip id (use ?trip_id= for a GTFS trip_id)"),
  ),
  format: formatParam,
};

// ---- query parameters

const COMMON = {
  limit: integer("limit", 1, MAX_LIMIT, `rows per page, 1..${MAX_LIMIT}, default ${DEFAULT_LIMIT}; geojsonl without a limit streams every matching row`),
  after: integer("after", 0, INT32_MAX, "opaque cursor from meta.next of the previous page", "a cursor taken from meta.next (a non-negative integer)"),
  feed_version_sha1: param({ type: "string", pattern: "^[0-9a-fA-F]{40}$" }, "search this feed version (active or not) instead of the active ones", null, (raw, ctx) =>
    /^[0-9a-fA-F]{40}$/.test(raw) ? raw.toLowerCase() : reject(ctx, `feed_version_sha1 must be 40 hexadecimal characters, got "${raw}"`, "40 hex characters"),
  ),
  ...(Object.fromEntries(
    LICENSE_FIELDS.map((f) => [`license_${f}`, oneOf(`license_${f}`, LICENSE_VALUES, (s) => s.toLowerCase(), "yes, no, unknown, or exclude_no (= yes or unknown)")]),
  ) as Record<`license_${LicenseField}`, ParamSchema<LicenseFilterValue | null>>),
  feed_onestop_id: text("only records of this feed"),
  include_alerts: boolean("include_alerts", false, "true/false: add the realtime alerts of trips, routes, agencies and stops (every alert of the feed's current snapshot)"),
  active_alerts: boolean("active_alerts", false, "true/false: only alerts active now (no active_period, or one containing the request's time); implies include_alerts=true"),
};

export const STOP_PARAMS = {
  ...COMMON,
  served_by_onestop_ids: list("comma-separated route (r-...) and agency (o-...) Onestop IDs", (id, ctx) =>
    id.startsWith("r-") || id.startsWith("o-")
      ? id
      : reject(ctx, `served_by_onestop_ids takes route (r-...) or agency (o-...) Onestop IDs; got "${id}"`, "comma-separated route (r-...) or agency (o-...) Onestop IDs"),
  ),
  served_by_route_types: list("comma-separated GTFS route_type integers", (t, ctx) =>
    checkInteger(ctx, "served_by_route_types", t, 0, 9999, "comma-separated GTFS route_type integers"),
  ),
  location_type: integer(
    "location_type",
    0,
    4,
    "0 stop/platform, 1 station, 2 entrance/exit, 3 generic node, 4 boarding area",
    "0 (stop/platform), 1 (station), 2 (entrance/exit), 3 (generic node), 4 (boarding area)",
  ),
  bbox,
  lat: number("lat", -90, 90, "with lon and radius (all three required)"),
  lon: number("lon", -180, 180, "with lat and radius"),
  radius: number("radius", 0, MAX_RADIUS_M, `meters, at most ${MAX_RADIUS_M}`, " meters"),
  stop_id: text("GTFS stop_id"),
  stop_code: text("GTFS stop_code (exact match)"),
  onestop_id: text("stop Onestop ID"),
};

export const TRIP_PARAMS = {
  ...COMMON,
  service_date: date("service_date", "YYYY-MM-DD: trips with service on that date"),
  relative_date: oneOf("relative_date", RELATIVE_DATES, (s) => s.toUpperCase(), "a date relative to today in the feed's timezone"),
  use_service_window: boolean(
    "use_service_window",
    true,
    "true (default)/false: a date outside the feed version's service window is replaced by the same weekday of its best week",
  ),
  trip_id: text("GTFS trip_id"),
  include_geometry: boolean("include_geometry", false, "true/false: include shape geometry in json lists"),
  id: integer("id", 1, INT32_MAX, "internal trip id", "a positive integer trip id"),
  lat: number("lat", -90, 90, "with lon: trips serving a stop within radius of the point"),
  lon: number("lon", -180, 180, "with lat"),
  radius: number("radius", 0, MAX_RADIUS_M, `meters for lat/lon, default ${DEFAULT_TRIP_RADIUS_M}, at most ${MAX_RADIUS_M}`, " meters"),
};

export const ROUTE_PARAMS = {
  ...COMMON,
  id: integer("id", 1, INT32_MAX, "internal route id (reaches any feed version, like an integer key)", "a positive integer route id"),
  route_key: text("a route key: an integer id, `<feed onestop_id>:<route_id>`, or a route Onestop ID"),
  route_id: text("GTFS route_id"),
  route_type: integer("route_type", 0, 9999, "GTFS route_type", "a GTFS route_type integer"),
  route_types: list("comma-separated GTFS route_type integers", (t, ctx) => checkInteger(ctx, "route_types", t, 0, 9999, "comma-separated GTFS route_type integers")),
  onestop_id: text("route Onestop ID"),
  agency_key: text("the routes of an agency: an integer id, `<feed onestop_id>:<agency_id>`, or an agency (operator) Onestop ID"),
  operator_onestop_id: text("the routes of the agency with this Onestop ID (o-...)"),
  search: text("case-insensitive text in route_short_name or route_long_name (ignored when shorter than 2 characters)"),
  stop_key: text("routes serving this stop (a station: its platforms): an integer id, `<feed onestop_id>:<stop_id>`, or a stop Onestop ID"),
  bbox,
  lat: number("lat", -90, 90, "with lon and radius (all three required): routes serving a stop within radius"),
  lon: number("lon", -180, 180, "with lat and radius"),
  radius: number("radius", 0, MAX_RADIUS_M, `meters, at most ${MAX_RADIUS_M}`, " meters"),
  include_geometry: boolean("include_geometry", false, "true/false: the route's geometry (its most used shapes, MultiLineString) in json lists; always in geojson(l) and by key"),
  include_stops: boolean("include_stops", true, "true (default)/false: route_stops, the stops the route serves"),
};

// ---- the feed endpoints (feeds, feed versions, agencies, operators)

const LICENSES = Object.fromEntries(
  LICENSE_FIELDS.map((f) => [`license_${f}`, COMMON[`license_${f}`]]),
) as Record<`license_${LicenseField}`, ParamSchema<LicenseFilterValue | null>>;
const PAGE = { limit: COMMON.limit, after: COMMON.after };
const AREA = {
  bbox,
  lat: number("lat", -90, 90, "with lon and radius (all three required)"),
  lon: number("lon", -180, 180, "with lat and radius"),
  radius: number("radius", 0, MAX_RADIUS_M, `meters, at most ${MAX_RADIUS_M}`, " meters"),
};
const ADM = {
  adm0_name: text("country name (Natural Earth admin-0, case-insensitive) of the places the agency serves"),
  adm0_iso: text("country ISO 3166-1 alpha-2 code of the places the agency serves"),
  adm1_name: text("state or province name (Natural Earth admin-1, case-insensitive) of the places the agency serves"),
  adm1_iso: text("state or province ISO 3166-2 code of the places the agency serves"),
  city_name: param({ type: "string" }, "not supported: the dataset has no city boundaries (a 400 says so)", null, (raw, ctx) =>
    reject(ctx, `city_name is not supported: this service has no city boundaries; filter by adm0_name, adm0_iso, adm1_name or adm1_iso instead (got "${raw}")`, "adm0_name, adm0_iso, adm1_name, adm1_iso"),
  ),
};
const datetime = (name: string, description: string) =>
  param({ type: "string", format: "date-time" }, description, null, (raw, ctx) => {
    const ok = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(raw) && !Number.isNaN(Date.parse(raw.replace(" ", "T")));
    return ok ? Date.parse(raw.replace(" ", "T")) : reject(ctx, `${name} must be a date-time such as 2023-01-01T00:00:00Z, got "${raw}"`, "an ISO 8601 date-time (UTC unless it names an offset)");
  });
export const FEED_SPECS = ["gtfs", "gtfs-rt", "gbfs", "mds"] as const;
export const FEED_URL_TYPES = ["static_current", "static_historic", "static_planned", "realtime_vehicle_positions", "realtime_trip_updates", "realtime_alerts", "gbfs_auto_discovery", "mds_provider"] as const;

export const FEED_PARAMS = {
  ...PAGE,
  feed_key: text("a feed key: an integer id or a feed Onestop ID"),
  id: integer("id", 1, INT32_MAX, "feed id", "a positive integer feed id"),
  onestop_id: text("feed Onestop ID"),
  spec: oneOf("spec", FEED_SPECS, (s) => s.toLowerCase().replace("_", "-"), "type of data in the feed: gtfs (the static feeds imported), gtfs-rt (the realtime feed of a static feed, `<its Onestop ID>~rt`), gbfs, mds (none here); GTFS_RT is read as gtfs-rt"),
  search: text("case-insensitive text in the feed's Onestop ID or name"),
  fetch_error: boolean("fetch_error", false, "true: feeds whose last fetch failed (the gtfs-rt feeds' realtime fetches); false: the others"),
  tag_key: text("feeds having this tag (the feeds file's `tags`)"),
  tag_value: text("with tag_key: feeds whose tag has this value (empty: any value)"),
  url: text("feeds with this URL (of url_type when given, else any)"),
  url_type: oneOf("url_type", FEED_URL_TYPES, (s) => s.toLowerCase(), "which URL `url` is matched against; alone: feeds that have a URL of this type"),
  url_case_sensitive: boolean("url_case_sensitive", false, "true: match url case-sensitively"),
  ...AREA,
  ...LICENSES,
};

export const FEED_VERSION_PARAMS = {
  ...PAGE,
  feed_version_key: text("a feed version key: an integer id or a SHA-1"),
  feed_key: text("versions of a feed: an integer id or a feed Onestop ID"),
  id: integer("id", 1, INT32_MAX, "feed version id", "a positive integer feed version id"),
  feed_id: integer("feed_id", 1, INT32_MAX, "versions of the feed with this id", "a positive integer feed id"),
  feed_onestop_id: text("versions of the feed with this Onestop ID"),
  sha1: param({ type: "string", pattern: "^[0-9a-fA-F]{40}$" }, "feed version SHA-1", null, (raw, ctx) =>
    /^[0-9a-fA-F]{40}$/.test(raw) ? raw.toLowerCase() : reject(ctx, `sha1 must be 40 hexadecimal characters, got "${raw}"`, "40 hex characters"),
  ),
  fetched_before: datetime("fetched_before", "versions fetched before this date-time (UTC unless it names an offset)"),
  fetched_after: datetime("fetched_after", "versions fetched after this date-time (UTC unless it names an offset)"),
  covers_start_date: date("covers_start_date", "YYYY-MM-DD: versions whose calendars start on or before this date and end on or after it"),
  covers_end_date: date("covers_end_date", "YYYY-MM-DD: versions whose calendars end on or after this date (with covers_start_date: cover the whole range)"),
  ...AREA,
};

export const AGENCY_PARAMS = {
  ...COMMON,
  agency_key: text("an agency key: an integer id, `<feed onestop_id>:<agency_id>`, or an agency Onestop ID"),
  id: integer("id", 1, INT32_MAX, "internal agency id (reaches any feed version, like an integer key)", "a positive integer agency id"),
  agency_id: text("GTFS agency_id"),
  agency_name: text("agency_name (exact, case-insensitive)"),
  onestop_id: text("agency (operator) Onestop ID"),
  search: text("case-insensitive text in agency_name or the Onestop ID (ignored when shorter than 2 characters)"),
  include_routes: boolean("include_routes", false, "true/false: the agency's routes"),
  ...AREA,
  ...ADM,
};

export const OPERATOR_PARAMS = {
  ...PAGE,
  operator_key: text("an operator key: an integer id or an operator Onestop ID"),
  id: integer("id", 1, INT32_MAX, "operator id", "a positive integer operator id"),
  onestop_id: text("operator Onestop ID"),
  feed_onestop_id: COMMON.feed_onestop_id,
  search: text("case-insensitive text in the operator's name or Onestop ID, or its agencies' names (ignored when shorter than 2 characters)"),
  tag_key: text("operators with this tag (operators derived from agencies have none: matches none)"),
  tag_value: text("with tag_key: the tag's value"),
  include_alerts: COMMON.include_alerts,
  active_alerts: COMMON.active_alerts,
  ...AREA,
  ...ADM,
  ...LICENSES,
};

const { after: _after, ...COMMON_NO_CURSOR } = COMMON;

export const DEPARTURE_PARAMS = {
  ...COMMON_NO_CURSOR,
  limit: integer("limit", 1, MAX_LIMIT, `departures per stop (and per child stop), 1..${MAX_LIMIT}, default ${DEFAULT_LIMIT}`),
  service_date: date("service_date", "YYYY-MM-DD: departures of that GTFS service day (start_time/end_time count from its start, 25:00:00 is 1 am the next morning)"),
  date: date("date", "YYYY-MM-DD: departures on that calendar day (from the previous service day's trips past midnight too)"),
  relative_date: oneOf("relative_date", RELATIVE_DATES, (s) => s.toUpperCase(), "a calendar date relative to today in the feed's timezone (as date)"),
  next: integer("next", 1, 172_800, "seconds: departures from now to now + next (default 3600 when no date or time is given)", "seconds, 1 to 172800"),
  start_time: timeOfDay("start_time", "HH:MM:SS: departures at or after this time (default: the start of the day; not with next)"),
  end_time: timeOfDay("end_time", "HH:MM:SS: departures at or before this time (default: the end of the day; past 24:00:00 reaches into the next day)"),
  use_service_window: boolean(
    "use_service_window",
    true,
    "true (default)/false: a day outside the feed version's service window shows the same weekday of its best week",
  ),
  include_geometry: boolean("include_geometry", false, "true/false: each departure's trip.shape with its geometry"),
};

const STOP_RULES = { before: { lat: nearTogether(true) } };
const TRIP_RULES = {
  before: {
    service_date: (raw: (name: string) => string | undefined) =>
      raw("service_date") !== undefined && raw("relative_date") !== undefined
        ? invalidParameter("relative_date", "give service_date or relative_date, not both", "either service_date or relative_date")
        : null,
    lat: nearTogether(false),
  },
};

const ROUTE_RULES = { before: { lat: nearTogether(true) } };
const oneDay = "one of service_date, date or relative_date";
const DEPARTURE_RULES = {
  before: {
    date: (raw: (name: string) => string | undefined) =>
      raw("date") !== undefined && raw("service_date") !== undefined ? invalidParameter("date", `give ${oneDay}, not several`, oneDay) : null,
    relative_date: (raw: (name: string) => string | undefined) =>
      raw("relative_date") !== undefined && (raw("service_date") !== undefined || raw("date") !== undefined)
        ? invalidParameter("relative_date", `give ${oneDay}, not several`, oneDay)
        : null,
    next: (raw: (name: string) => string | undefined) =>
      raw("next") !== undefined && (raw("start_time") !== undefined || raw("end_time") !== undefined)
        ? invalidParameter("next", "give next or start_time/end_time, not both", "either next or start_time/end_time")
        : null,
  },
};

/**
 * Raw values of a query string: the first non-empty value of a parameter, trimmed; a list
 * parameter's values joined (an absent or empty parameter is undefined).
 */
export function queryReader(sp: URLSearchParams, shape: Record<string, z.ZodType>): (name: string) => string | undefined {
  if (sp.size === 0) return () => undefined;
  const given: Record<string, string[]> = Object.create(null);
  for (const [name, value] of sp) (given[name] ??= []).push(value);
  return (name) => {
    const all = given[name];
    if (all === undefined) return undefined;
    if (LISTS.has(shape[name]!)) return all.some((v) => v.trim() !== "") ? all.join(",") : undefined;
    for (const v of all) if (v.trim() !== "") return v.trim();
    return undefined;
  };
}

const LICENSE_PARAMS = LICENSE_FIELDS.map((field) => [field, `license_${field}`] as const);

function licenses(v: ParamValues<typeof COMMON>): CommonQuery["licenses"] {
  const out: CommonQuery["licenses"] = [];
  for (const [field, name] of LICENSE_PARAMS) {
    const value = v[name];
    if (value !== null) out.push({ field, value });
  }
  return out;
}

/** The parameters the trip and stop endpoints share, as their queries hold them. */
function commonQuery(v: ParamValues<typeof COMMON>, format: Format): CommonQuery {
  return {
    format,
    limit: v.limit ?? (format === "geojsonl" ? null : DEFAULT_LIMIT),
    after: v.after ?? 0,
    feedVersionSha1: v.feed_version_sha1,
    feedOnestopId: v.feed_onestop_id,
    licenses: licenses(v),
    includeAlerts: v.include_alerts || v.active_alerts,
    activeAlerts: v.active_alerts,
  };
}

const near = (lat: number | null, lon: number | null, radius: number | null, dflt: number): Near | null =>
  lat === null || lon === null ? null : { lat, lon, radius: radius ?? dflt };

/** The stops query of a request (GET /stops[.format], /stops/{stop_key}[.format]). */
export function stopQuery(raw: (name: string) => string | undefined, format: Format): StopQuery {
  const v = parseParams(STOP_PARAMS, raw, STOP_RULES);
  const ids = v.served_by_onestop_ids ?? [];
  return {
    ...commonQuery(v, format),
    servedByRouteOnestopIds: ids.filter((id) => id.startsWith("r-")),
    servedByAgencyOnestopIds: ids.filter((id) => id.startsWith("o-")),
    servedByRouteTypes: v.served_by_route_types,
    locationType: v.location_type,
    bbox: v.bbox,
    near: near(v.lat, v.lon, v.radius, 0),
    stopId: v.stop_id,
    stopCode: v.stop_code,
    onestopId: v.onestop_id,
  };
}

/** The trips query of a request (GET /routes/{route_key}/trips[.format], .../trips/{id}[.format]). */
export function tripQuery(raw: (name: string) => string | undefined, format: Format): TripQuery {
  const v = parseParams(TRIP_PARAMS, raw, TRIP_RULES);
  return {
    ...commonQuery(v, format),
    serviceDate: v.service_date,
    relativeDate: v.relative_date,
    useServiceWindow: v.use_service_window,
    tripId: v.trip_id,
    includeGeometry: v.include_geometry,
    id: v.id,
    near: near(v.lat, v.lon, v.radius, DEFAULT_TRIP_RADIUS_M),
  };
}

/** The routes query of a request (GET /routes[.format], /routes/{route_key}[.format]). */
export function routeQuery(raw: (name: string) => string | undefined, format: Format): RouteQuery {
  const v = parseParams(ROUTE_PARAMS, raw, ROUTE_RULES);
  const types = [...(v.route_type === null ? [] : [v.route_type]), ...(v.route_types ?? [])];
  return {
    ...commonQuery(v, format),
    id: v.id,
    routeKey: v.route_key,
    routeId: v.route_id,
    routeTypes: types.length ? types : null,
    onestopId: v.onestop_id,
    agencyKey: v.agency_key,
    operatorOnestopId: v.operator_onestop_id,
    search: v.search !== null && v.search.length >= 2 ? v.search : null,
    stopKey: v.stop_key,
    bbox: v.bbox,
    near: near(v.lat, v.lon, v.radius, 0),
    includeGeometry: v.include_geometry,
    includeStops: v.include_stops,
  };
}

/** The departures query of a request (GET /stops/{stop_key}/departures): json only, no cursor. */
export function departureQuery(raw: (name: string) => string | undefined): DepartureQuery {
  const v = parseParams(DEPARTURE_PARAMS, raw, DEPARTURE_RULES);
  if (v.start_time !== null && v.end_time !== null && v.end_time < v.start_time) {
    throw invalidParameter("end_time", `end_time must not be before start_time`, "a time at or after start_time");
  }
  return {
    ...commonQuery({ ...v, after: null }, "json"),
    serviceDate: v.service_date,
    date: v.date,
    relativeDate: v.relative_date,
    next: v.next,
    startTime: v.start_time,
    endTime: v.end_time,
    useServiceWindow: v.use_service_window,
    includeGeometry: v.include_geometry,
  };
}

// ---- feed endpoint queries

/** Paging, area and licence parts the feed endpoints share. */
export interface DirectoryQuery {
  format: Format;
  limit: number | null;
  after: number;
  bbox: BBox | null;
  near: Near | null;
  licenses: CommonQuery["licenses"];
}

/** Place filters of agencies and operators (lower-cased). */
export interface PlaceFilter {
  adm0Name: string | null;
  adm0Iso: string | null;
  adm1Name: string | null;
  adm1Iso: string | null;
}

export interface FeedQuery extends DirectoryQuery {
  /** feed_key, id or onestop_id: what names the feed (key forms) */
  key: string | null;
  id: number | null;
  onestopId: string | null;
  spec: (typeof FEED_SPECS)[number] | null;
  search: string | null;
  fetchError: boolean | null;
  tag: { key: string; value: string | null } | null;
  /** url and/or url_type: a feed with that URL (of that type), or with any URL of that type */
  url: { url: string | null; type: (typeof FEED_URL_TYPES)[number] | null; caseSensitive: boolean } | null;
}

export interface FeedVersionQuery extends DirectoryQuery {
  key: string | null;
  feedKey: string | null;
  id: number | null;
  feedId: number | null;
  feedOnestopId: string | null;
  sha1: string | null;
  /** epoch ms */
  fetchedBefore: number | null;
  fetchedAfter: number | null;
  coversStart: string | null;
  coversEnd: string | null;
}

export interface AgencyQuery extends CommonQuery {
  agencyKey: string | null;
  id: number | null;
  agencyId: string | null;
  agencyName: string | null;
  onestopId: string | null;
  search: string | null;
  includeRoutes: boolean;
  bbox: BBox | null;
  near: Near | null;
  places: PlaceFilter;
}

export interface OperatorQuery extends DirectoryQuery {
  key: string | null;
  id: number | null;
  onestopId: string | null;
  feedOnestopId: string | null;
  search: string | null;
  tag: { key: string; value: string | null } | null;
  includeAlerts: boolean;
  activeAlerts: boolean;
  places: PlaceFilter;
}

const AREA_RULES = { before: { lat: nearTogether(true) } };
const TAG_RULE = (raw: (name: string) => string | undefined) =>
  raw("tag_value") !== undefined && raw("tag_key") === undefined ? invalidParameter("tag_value", "tag_value needs tag_key", "tag_key with tag_value") : null;

const pageOf = (v: { limit: number | null; after: number | null }, format: Format) => ({
  format,
  limit: v.limit ?? (format === "geojsonl" ? null : DEFAULT_LIMIT),
  after: v.after ?? 0,
});
const lower = (s: string | null) => (s === null ? null : s.toLowerCase());
const searchOf = (s: string | null) => (s !== null && s.length >= 2 ? s.toLowerCase() : null);
const placesOf = (v: { adm0_name: string | null; adm0_iso: string | null; adm1_name: string | null; adm1_iso: string | null }): PlaceFilter => ({
  adm0Name: lower(v.adm0_name),
  adm0Iso: lower(v.adm0_iso),
  adm1Name: lower(v.adm1_name),
  adm1Iso: lower(v.adm1_iso),
});

/** GET /feeds[.format], /feeds/{feed_key}[.format] */
export function feedQuery(raw: (name: string) => string | undefined, format: Format): FeedQuery {
  const v = parseParams(FEED_PARAMS, raw, { before: { lat: nearTogether(true), tag_value: TAG_RULE } });
  return {
    ...pageOf(v, format),
    bbox: v.bbox,
    near: near(v.lat, v.lon, v.radius, 0),
    licenses: licenses(v as unknown as ParamValues<typeof COMMON>),
    key: v.feed_key,
    id: v.id,
    onestopId: v.onestop_id,
    spec: v.spec,
    search: v.search === null ? null : v.search.toLowerCase(),
    fetchError: raw("fetch_error") === undefined ? null : v.fetch_error,
    tag: v.tag_key === null ? null : { key: v.tag_key, value: v.tag_value },
    url: v.url === null && v.url_type === null ? null : { url: v.url, type: v.url_type, caseSensitive: v.url_case_sensitive },
  };
}

/** GET /feed_versions[.format], /feed_versions/{key}[.format], /feeds/{feed_key}/feed_versions */
export function feedVersionQuery(raw: (name: string) => string | undefined, format: Format): FeedVersionQuery {
  const v = parseParams(FEED_VERSION_PARAMS, raw, AREA_RULES);
  return {
    ...pageOf(v, format),
    bbox: v.bbox,
    near: near(v.lat, v.lon, v.radius, 0),
    licenses: [],
    key: v.feed_version_key,
    feedKey: v.feed_key,
    id: v.id,
    feedId: v.feed_id,
    feedOnestopId: v.feed_onestop_id,
    sha1: v.sha1,
    fetchedBefore: v.fetched_before,
    fetchedAfter: v.fetched_after,
    coversStart: v.covers_start_date,
    coversEnd: v.covers_end_date,
  };
}

/** GET /agencies[.format], /agencies/{agency_key}[.format] */
export function agencyQuery(raw: (name: string) => string | undefined, format: Format): AgencyQuery {
  const v = parseParams(AGENCY_PARAMS, raw, AREA_RULES);
  return {
    ...commonQuery(v, format),
    agencyKey: v.agency_key,
    id: v.id,
    agencyId: v.agency_id,
    agencyName: lower(v.agency_name),
    onestopId: v.onestop_id,
    search: searchOf(v.search),
    includeRoutes: v.include_routes,
    bbox: v.bbox,
    near: near(v.lat, v.lon, v.radius, 0),
    places: placesOf(v),
  };
}

/** GET /operators[.format], /operators/{operator_key}[.format] */
export function operatorQuery(raw: (name: string) => string | undefined, format: Format): OperatorQuery {
  const v = parseParams(OPERATOR_PARAMS, raw, { before: { lat: nearTogether(true), tag_value: TAG_RULE } });
  return {
    ...pageOf(v, format),
    bbox: v.bbox,
    near: near(v.lat, v.lon, v.radius, 0),
    licenses: licenses(v as unknown as ParamValues<typeof COMMON>),
    key: v.operator_key,
    id: v.id,
    onestopId: v.onestop_id,
    feedOnestopId: v.feed_onestop_id,
    search: searchOf(v.search),
    tag: v.tag_key === null ? null : { key: v.tag_key, value: v.tag_value },
    includeAlerts: v.include_alerts || v.active_alerts,
    activeAlerts: v.active_alerts,
    places: placesOf(v),
  };
}
