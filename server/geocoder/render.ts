/**
 * Pelias's answers: a GeoJSON FeatureCollection with the `geocoding` header block (version,
 * attribution, the query as understood, engine, timestamp), each feature's Pelias properties (id,
 * gid, layer, source, source_id, name, housenumber, street, postalcode, confidence, match_type,
 * accuracy, distance in km, country, country_code, region, region_a, locality, neighbourhood,
 * label, addendum) and bbox; errors as `{geocoding: {errors: [...]}, type, features: []}` with the
 * status of server/errors.ts (429 and 503 stay plain text, as everywhere in the service).
 */
import { AppError, HTTP_STATUS, jsonError, renderError } from "../errors.ts";
import type { Hit } from "./engine.ts";

export const ENGINE = { name: "Interchange", author: "Interchange", version: "1.0" } as const;
export const ATTRIBUTION = "OpenStreetMap contributors (ODbL) and the transit agencies of the imported GTFS feeds";

const header = (query: Record<string, unknown>, now: number, extra: Record<string, unknown> = {}) => ({
  version: "0.2", attribution: ATTRIBUTION, query, ...extra, engine: ENGINE, timestamp: now,
});

/** The label Pelias would show: name, locality, region, country (each once). */
export function label(p: { name: string; locality?: string; region?: string; region_a?: string; country?: string; country_code?: string }): string {
  const parts = [p.name, p.locality, p.region_a ?? p.region, p.country_code ?? p.country].filter((x): x is string => Boolean(x));
  return parts.filter((x, i) => parts.indexOf(x) === i).join(", ");
}

export function featureCollection(hits: Hit[], query: Record<string, unknown>, now: number, opts: { distances: boolean }): Record<string, unknown> {
  let bbox: [number, number, number, number] | null = null;
  const features = hits.map((h) => {
    const p = h.index.props(h.doc);
    const lon = h.index.lon(h.doc), lat = h.index.lat(h.doc);
    const layer = h.index.layer(h.doc), source = h.index.source(h.doc);
    const { bbox: fb, addendum, source_id, ...names } = p;
    const props: Record<string, unknown> = {
      id: source_id, gid: `${source}:${layer}:${source_id}`, layer, source, source_id, ...names,
      confidence: h.confidence, ...(h.matchType ? { match_type: h.matchType } : {}),
      accuracy: fb ? "centroid" : "point", ...(opts.distances && h.distanceM !== undefined ? { distance: Math.round(h.distanceM) / 1000 } : {}),
      label: label(p), ...(addendum ? { addendum } : {}),
    };
    const b = fb ?? [lon, lat, lon, lat];
    bbox = bbox ? [Math.min(bbox[0], b[0]), Math.min(bbox[1], b[1]), Math.max(bbox[2], b[2]), Math.max(bbox[3], b[3])] : [...b];
    return { type: "Feature", geometry: { type: "Point", coordinates: [lon, lat] }, properties: props, ...(fb ? { bbox: fb } : {}) };
  });
  return { geocoding: header(query, now), type: "FeatureCollection", features, ...(bbox ? { bbox } : {}) };
}

/** The geocoder's error bodies (server/feature.ts FeatureErrors). */
export function renderGeocodeError(err: unknown, now = Date.now()): Response {
  if (!(err instanceof AppError)) return renderError(err);
  const status = HTTP_STATUS[err.code];
  if (status === 429 || status === 503) return renderError(err);
  const body = { geocoding: header({}, now, { errors: [err.message] }), type: "FeatureCollection", features: [] };
  return jsonError(status, body);
}
