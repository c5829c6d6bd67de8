/**
 * The Pelias parameters of /v1/autocomplete, /v1/search and /v1/reverse, read from the query
 * string and checked: a bad one is an AppError INVALID_PARAMETER naming it (rendered as Pelias's
 * `{geocoding: {errors: [...]}}` 400 by ./render.ts). Unknown parameters are ignored, as Pelias
 * does (clients send `api_key`); a known one given twice is refused.
 */
import { invalidParameter } from "../errors.ts";
import { MAX_TEXT_TOKENS, tokens } from "../../shared/geocode-text.ts";
import type { Area } from "./engine.ts";

/** Longest `text` accepted (characters). */
export const MAX_TEXT_CHARS = 500;
/** Largest `size` (Pelias's own maximum); the default is 10. */
export const MAX_SIZE = 40;
export const DEFAULT_SIZE = 10;
/** Largest boundary.circle.radius and reverse search radius (km). */
export const MAX_RADIUS_KM = 250;

/** Layers a client may name: Pelias's (those without data here answer nothing) and the transit layers. */
export const KNOWN_LAYERS = [
  "stations", "stops", "venue", "address", "street", "intersection", "neighbourhood", "macrohood", "microhood", "borough", "locality",
  "localadmin", "county", "macrocounty", "region", "macroregion", "dependency", "country", "empire", "continent", "marinearea", "ocean", "postalcode",
] as const;
const LAYER_ALIASES: Record<string, string[]> = {
  coarse: ["neighbourhood", "macrohood", "microhood", "borough", "locality", "localadmin", "county", "macrocounty", "region", "macroregion", "dependency", "country", "empire", "continent", "marinearea", "ocean", "postalcode"],
  stop: ["stops"], station: ["stations"],
};
/** Sources a client may name, with Pelias's long names; `gtfs` is the feeds' stops and stations. */
const SOURCE_NAMES: Record<string, string> = {
  osm: "osm", openstreetmap: "osm", gtfs: "gtfs", transit: "gtfs", oa: "oa", openaddresses: "oa", wof: "wof", whosonfirst: "wof", gn: "gn", geonames: "gn",
};

export interface CommonParams extends Area {
  size: number;
  layers: Set<string> | null;
  sources: Set<string> | null;
  /** the query block of the answer's `geocoding` header, as Pelias echoes it */
  echo: Record<string, unknown>;
}
export interface TextParams extends CommonParams {
  text: string;
  words: string[];
  focus?: { lat: number; lon: number };
}
export interface ReverseParams extends CommonParams {
  point: { lat: number; lon: number };
  radiusKm: number;
}

type Query = URLSearchParams;

function one(q: Query, name: string): string | undefined {
  const all = q.getAll(name);
  if (all.length > 1) throw invalidParameter(name, `invalid param '${name}': given ${all.length} times, send it once`);
  return all[0];
}

const NUMBER = /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/;
function num(q: Query, name: string, min: number, max: number): number | undefined {
  const v = one(q, name);
  if (v === undefined) return undefined;
  const x = NUMBER.test(v) ? Number(v) : NaN;
  if (!Number.isFinite(x)) throw invalidParameter(name, `invalid param '${name}': must be a number`, `${min} to ${max}`);
  if (x < min || x > max) throw invalidParameter(name, `invalid param '${name}': must be between ${min} and ${max}`, `${min} to ${max}`);
  return x;
}

function latLon(q: Query, prefix: string, required: boolean): { lat: number; lon: number } | undefined {
  const lat = num(q, `${prefix}.lat`, -90, 90);
  const lon = num(q, `${prefix}.lon`, -180, 180);
  if (lat === undefined && lon === undefined && !required) return undefined;
  if (lat === undefined || lon === undefined) {
    throw invalidParameter(lat === undefined ? `${prefix}.lat` : `${prefix}.lon`, `parameters ${prefix}.lat and ${prefix}.lon must both be specified`);
  }
  return { lat, lon };
}

function list(q: Query, name: string, known: (v: string) => string[] | null, valid: string): Set<string> | null {
  const v = one(q, name);
  if (v === undefined) return null;
  const items = v.split(",").map((s) => s.trim().toLowerCase()).filter((s) => s !== "");
  if (items.length === 0) throw invalidParameter(name, `invalid param '${name}': must be a comma-separated list of ${valid}`, valid);
  const out = new Set<string>();
  for (const item of items) {
    const k = known(item);
    if (!k) throw invalidParameter(name, `'${item.slice(0, 40)}' is an invalid ${name} parameter. Valid options: ${valid}`, valid);
    for (const x of k) out.add(x);
  }
  return out;
}

function common(q: Query, echo: Record<string, unknown>, reverse = false): CommonParams {
  const size = num(q, "size", 1, Number.MAX_SAFE_INTEGER);
  if (size !== undefined && !Number.isInteger(size)) throw invalidParameter("size", "invalid param 'size': must be an integer", `1 to ${MAX_SIZE}`);
  const layers = list(q, "layers", (v) => ((KNOWN_LAYERS as readonly string[]).includes(v) ? [v] : LAYER_ALIASES[v] ?? null), [...KNOWN_LAYERS, ...Object.keys(LAYER_ALIASES)].join(","));
  const sources = list(q, "sources", (v) => (SOURCE_NAMES[v] ? [SOURCE_NAMES[v]!] : null), Object.keys(SOURCE_NAMES).join(","));
  const area: Area = {};
  const minLat = num(q, "boundary.rect.min_lat", -90, 90), maxLat = num(q, "boundary.rect.max_lat", -90, 90);
  const minLon = num(q, "boundary.rect.min_lon", -180, 180), maxLon = num(q, "boundary.rect.max_lon", -180, 180);
  const rect = [minLat, minLon, maxLat, maxLon];
  if (rect.some((x) => x !== undefined)) {
    if (rect.some((x) => x === undefined)) throw invalidParameter("boundary.rect", "parameters boundary.rect.min_lat, min_lon, max_lat and max_lon must all be specified");
    if (minLat! > maxLat!) throw invalidParameter("boundary.rect.min_lat", "min_lat is larger than max_lat");
    if (minLon! > maxLon!) throw invalidParameter("boundary.rect.min_lon", "min_lon is larger than max_lon");
    area.rect = { minLat: minLat!, minLon: minLon!, maxLat: maxLat!, maxLon: maxLon! };
  }
  const circle = reverse ? undefined : latLon(q, "boundary.circle", false);
  const radius = reverse ? undefined : num(q, "boundary.circle.radius", 0, MAX_RADIUS_KM);
  if (radius !== undefined && !circle) throw invalidParameter("boundary.circle.lat", "parameters boundary.circle.lat and boundary.circle.lon must be specified with boundary.circle.radius");
  if (circle) area.circle = { ...circle, radiusKm: radius ?? 50 };
  const country = one(q, "boundary.country");
  if (country !== undefined) {
    if (!/^[A-Za-z]{2}$/.test(country.trim())) throw invalidParameter("boundary.country", `invalid param 'boundary.country': an ISO 3166-1 alpha-2 code (${country.slice(0, 10)} is not one)`, "two letters, e.g. US");
    area.country = country.trim().toUpperCase();
  }
  if (size !== undefined) echo.size = Math.min(size, MAX_SIZE);
  if (layers) echo.layers = [...layers];
  if (sources) echo.sources = [...sources];
  return { ...area, size: Math.min(size ?? DEFAULT_SIZE, MAX_SIZE), layers, sources, echo };
}

/** autocomplete and search. */
export function textParams(url: URL): TextParams {
  const q = url.searchParams;
  const text = one(q, "text");
  if (text === undefined || text.trim() === "") throw invalidParameter("text", "invalid param 'text': text length, must be >0");
  if (text.length > MAX_TEXT_CHARS) throw invalidParameter("text", `invalid param 'text': text length, must be at most ${MAX_TEXT_CHARS} characters (it has ${text.length})`);
  const echo: Record<string, unknown> = { text };
  const c = common(q, echo);
  const focus = latLon(q, "focus.point", false);
  if (focus) Object.assign(echo, { "focus.point.lat": focus.lat, "focus.point.lon": focus.lon });
  return { ...c, text, words: tokens(text, MAX_TEXT_TOKENS), ...(focus ? { focus } : {}) };
}

/** reverse. */
export function reverseParams(url: URL): ReverseParams {
  const q = url.searchParams;
  const point = latLon(q, "point", true)!;
  const echo: Record<string, unknown> = { "point.lat": point.lat, "point.lon": point.lon };
  const c = common(q, echo, true);
  // the circle around the point searched (Pelias: boundary.circle.radius, km)
  const radiusKm = num(q, "boundary.circle.radius", 0, MAX_RADIUS_KM) ?? 5;
  return { ...c, point, radiusKm: Math.max(radiusKm, 0.001) };
}

