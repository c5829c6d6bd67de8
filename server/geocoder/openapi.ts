/** The OpenAPI description of the geocoder's operations (the parameters Pelias documents and ./params.ts reads). */
import { DEFAULT_SIZE, KNOWN_LAYERS, MAX_RADIUS_KM, MAX_SIZE, MAX_TEXT_CHARS } from "./params.ts";

type Op = "autocomplete" | "search" | "reverse";
const q = (name: string, description: string, schema: Record<string, unknown>, required = false) => ({ name, in: "query", required, description, schema });
const lat = { type: "number", minimum: -90, maximum: 90 };
const lon = { type: "number", minimum: -180, maximum: 180 };

export function geocodeDocs(op: Op, prefix: string) {
  const common = [
    q("size", `results wanted (default ${DEFAULT_SIZE}, at most ${MAX_SIZE})`, { type: "integer", minimum: 1, maximum: MAX_SIZE }),
    q("layers", `comma-separated layers: ${KNOWN_LAYERS.join(", ")}, coarse`, { type: "string" }),
    q("sources", "comma-separated sources: osm, gtfs (also openstreetmap, transit, oa, wof, gn: no data here)", { type: "string" }),
    q("boundary.country", "ISO 3166-1 alpha-2 country code", { type: "string", pattern: "^[A-Za-z]{2}$" }),
  ];
  const text = [
    q("text", `what the user typed (1 to ${MAX_TEXT_CHARS} characters)`, { type: "string", minLength: 1, maxLength: MAX_TEXT_CHARS }, true),
    q("focus.point.lat", "rank places near this point higher", lat), q("focus.point.lon", "with focus.point.lat", lon),
    q("boundary.rect.min_lat", "only places in this box", lat), q("boundary.rect.min_lon", "", lon), q("boundary.rect.max_lat", "", lat), q("boundary.rect.max_lon", "", lon),
    q("boundary.circle.lat", "only places in this circle", lat), q("boundary.circle.lon", "", lon),
    q("boundary.circle.radius", `km (default 50, at most ${MAX_RADIUS_KM})`, { type: "number", minimum: 0, maximum: MAX_RADIUS_KM }),
  ];
  const reverse = [
    q("point.lat", "the point", lat, true), q("point.lon", "the point", lon, true),
    q("boundary.circle.radius", `km searched around the point (default 5, at most ${MAX_RADIUS_KM})`, { type: "number", minimum: 0, maximum: MAX_RADIUS_KM }),
  ];
  const summary = { autocomplete: "Places as the user types (Pelias autocomplete)", search: "Places matching a text (Pelias search)", reverse: "Places nearest a point (Pelias reverse)" }[op];
  return {
    tags: ["geocoder"],
    summary,
    operationId: `geocode${op[0]!.toUpperCase()}${op.slice(1)}${prefix === "/v1" ? "" : "Api"}`,
    description: "A GeoJSON FeatureCollection in Pelias's form (docs/api-geocoder.md). Errors: `{geocoding: {errors: [...]}, type, features: []}`.",
    parameters: op === "reverse" ? [...reverse, ...common] : [...text, ...common],
    responses: { "200": { description: "GeoJSON FeatureCollection with the `geocoding` block" }, "400": { description: "bad parameter: `{geocoding: {errors}}`" }, "401": { description: "missing or invalid API key" } },
  };
}
