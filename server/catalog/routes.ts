/**
 * The eight catalog endpoint forms under /api/v2/rest, with their OpenAPI descriptions. Handlers
 * only map path pieces to CatalogService calls; query parsing is done there (by hand, so a bad
 * value is a 400 naming the parameter, never Elysia's 422).
 *
 * OpenAPI: @elysiajs/swagger leaves out every path containing a dot (its excludeStaticFile
 * option), so the four `.{format}` forms never reach /docs from the route table. Each base path's
 * description names its `.{format}` form, and `catalogFormatPaths()` gives the four path items
 * for the app's `documentation.paths` (merged after that filter).
 */
import { Elysia } from "elysia";
import { renderError } from "../errors.ts";
import type { Logger } from "../feature.ts";
import { DEFAULT_LIMIT, DEFAULT_TRIP_RADIUS_M, LICENSE_PARAMS, MAX_LIMIT, MAX_RADIUS_M, RELATIVE_DATES } from "./params.ts";
import type { CatalogService } from "./service.ts";

interface ParamDoc {
  name: string;
  in: "query" | "path";
  description: string;
  schema: Record<string, unknown>;
  required?: boolean;
}
const q = (name: string, description: string, schema: Record<string, unknown> = { type: "string" }): ParamDoc => ({ name, in: "query", description, schema });
const path = (name: string, description: string): ParamDoc => ({ name, in: "path", description, schema: { type: "string" }, required: true });

const FORMAT = path("format", "json (default), geojson (FeatureCollection) or geojsonl (one Feature per line); anything else is a 400");
const COMMON: ParamDoc[] = [
  q("limit", `rows per page, 1..${MAX_LIMIT}, default ${DEFAULT_LIMIT}; geojsonl without a limit streams every matching row`, { type: "integer", minimum: 1, maximum: MAX_LIMIT }),
  q("after", "opaque cursor from meta.next of the previous page", { type: "integer", minimum: 0 }),
  q("feed_version_sha1", "search this feed version (active or not) instead of the active ones"),
  q("feed_onestop_id", "only records of this feed"),
  q("include_alerts", "true/false: add alerts (an empty list until real-time data is configured)", { type: "string", enum: ["true", "false"] }),
  ...LICENSE_PARAMS.map((n) => q(n, "yes, no, unknown, or exclude_no (= yes or unknown)", { type: "string", enum: ["yes", "no", "unknown", "exclude_no"] })),
];
const KEY_FORMS = "an integer id, `<feed onestop_id>:<gtfs id>`, or a Onestop ID";
const STOP_KEY = path("stop_key", `${KEY_FORMS}; may end in .json, .geojson or .geojsonl`);
const ROUTE_KEY = path("route_key", KEY_FORMS);
const TRIP_PARAMS: ParamDoc[] = [
  q("service_date", "YYYY-MM-DD: trips with service on that date", { type: "string", format: "date" }),
  q("relative_date", "a date relative to today in the feed's timezone", { type: "string", enum: [...RELATIVE_DATES] }),
  q("use_service_window", "true (default)/false: a date outside the feed version's service window is replaced by the same weekday of its best week", { type: "string", enum: ["true", "false"] }),
  q("trip_id", "GTFS trip_id"),
  q("id", "internal trip id", { type: "integer" }),
  q("include_geometry", "true/false: include shape geometry in json lists", { type: "string", enum: ["true", "false"] }),
  q("lat", "with lon: trips serving a stop within radius of the point", { type: "number" }),
  q("lon", "with lat", { type: "number" }),
  q("radius", `meters for lat/lon, default ${DEFAULT_TRIP_RADIUS_M}, at most ${MAX_RADIUS_M}`, { type: "number" }),
  ...COMMON,
];
const STOP_PARAMS: ParamDoc[] = [
  q("served_by_onestop_ids", "comma-separated route (r-...) and agency (o-...) Onestop IDs"),
  q("served_by_route_types", "comma-separated GTFS route_type integers"),
  q("location_type", "0 stop/platform, 1 station, 2 entrance/exit, 3 generic node, 4 boarding area", { type: "integer", minimum: 0, maximum: 4 }),
  q("bbox", "min_lon,min_lat,max_lon,max_lat"),
  q("lat", "with lon and radius (all three required)", { type: "number" }),
  q("lon", "with lat and radius", { type: "number" }),
  q("radius", `meters, at most ${MAX_RADIUS_M}`, { type: "number", maximum: MAX_RADIUS_M }),
  q("stop_id", "GTFS stop_id"),
  q("onestop_id", "stop Onestop ID"),
  ...COMMON,
];

const BASE = "/api/v2/rest";
const tripsDoc = "Trips of a route. stop_times only for a single trip; shape geometry for a single trip, geojson(l), or include_geometry=true.";
const stopsDoc = "Stops of the active feed versions (or of feed_version_sha1).";
const alsoAt = (path: string) => ` Also at \`${BASE}${path}\` (format json, geojson or geojsonl).`;
const TRIP_ID = path("id", "internal trip id");
const STOP_KEY_PLAIN = path("stop_key", KEY_FORMS);
const STOP_BY_KEY_PARAMS = STOP_PARAMS.filter((p) => !["bbox", "lat", "lon", "radius"].includes(p.name));

const RESPONSES = {
  "200": { description: "`{trips|stops: [...], meta?: {after, next}}`, a GeoJSON FeatureCollection, or GeoJSON lines" },
  "400": { description: "bad parameter: `{error, parameter, allowed}`" },
  "401": { description: "missing or invalid API key: `{error}`" },
  "404": { description: "unknown key: `{error}`" },
};
const detail = (summary: string, description: string, parameters: ParamDoc[], operationId?: string) => ({
  ...(operationId ? { operationId } : {}),
  tags: ["catalog"],
  summary,
  description,
  parameters,
  responses: RESPONSES,
});

/**
 * OpenAPI path items of the four `.{format}` forms (the swagger plugin drops dotted paths from the
 * route table): to be merged into the app's `documentation.paths`.
 */
export function catalogFormatPaths(): Record<string, { get: ReturnType<typeof detail> }> {
  return {
    [`${BASE}/routes/{route_key}/trips.{format}`]: {
      get: detail("List trips of a route, in a format", tripsDoc, [ROUTE_KEY, FORMAT, ...TRIP_PARAMS], "getApiV2RestRoutesByRoute_keyTripsInFormat"),
    },
    [`${BASE}/routes/{route_key}/trips/{id}.{format}`]: {
      get: detail(
        "One trip of a route, in a format",
        "The single-trip form (stop_times and geometry) as json, a one-Feature FeatureCollection, or one GeoJSON line.",
        [ROUTE_KEY, TRIP_ID, FORMAT, ...TRIP_PARAMS],
        "getApiV2RestRoutesByRoute_keyTripsByIdInFormat",
      ),
    },
    [`${BASE}/stops.{format}`]: {
      get: detail("List or search stops, in a format", stopsDoc, [FORMAT, ...STOP_PARAMS], "getApiV2RestStopsInFormat"),
    },
    [`${BASE}/stops/{stop_key}.{format}`]: {
      get: detail("One stop by key, in a format", "Several stops when a Onestop ID is shared by feeds.", [STOP_KEY_PLAIN, FORMAT, ...STOP_BY_KEY_PARAMS], "getApiV2RestStopsByStop_keyInFormat"),
    },
  };
}

export function catalogRoutes(service: CatalogService, log: Logger) {
  const run = async (fn: () => Promise<Response>): Promise<Response> => {
    try {
      return await fn();
    } catch (err) {
      if (!(err && (err as { name?: string }).name === "AppError")) log.error("catalog request failed", { error: String((err as Error)?.stack ?? err) });
      return renderError(err, "catalog");
    }
  };
  return new Elysia({ name: "catalog", prefix: BASE })
    .get("/routes/:route_key/trips", ({ request, params }) => run(() => service.trips(request, params.route_key, null)), {
      detail: detail("List trips of a route", tripsDoc + alsoAt("/routes/{route_key}/trips.{format}"), [ROUTE_KEY, ...TRIP_PARAMS]),
    })
    .get("/routes/:route_key/trips.:format", ({ request, params }) => run(() => service.trips(request, params.route_key, (params as Record<string, string>).format ?? null)), {
      detail: detail("List trips of a route, in a format", tripsDoc, [ROUTE_KEY, FORMAT, ...TRIP_PARAMS]),
    })
    .get("/routes/:route_key/trips/:id", ({ request, params }) => run(() => service.trip(request, params.route_key, params.id)), {
      detail: detail("One trip of a route, with stop_times and geometry", "`id` is the internal trip id." + alsoAt("/routes/{route_key}/trips/{id}.{format}"), [
        ROUTE_KEY,
        path("id", "internal trip id, optionally followed by .format"),
        ...TRIP_PARAMS,
      ]),
    })
    .get("/stops", ({ request }) => run(() => service.stops(request, null)), { detail: detail("List or search stops", stopsDoc + alsoAt("/stops.{format}"), STOP_PARAMS) })
    .get("/stops.:format", ({ request, params }) => run(() => service.stops(request, (params as Record<string, string>).format ?? null)), {
      detail: detail("List or search stops, in a format", stopsDoc, [FORMAT, ...STOP_PARAMS]),
    })
    .get("/stops/:stop_key", ({ request, params }) => run(() => service.stop(request, params.stop_key)), {
      detail: detail("One stop by key", "Several stops when a Onestop ID is shared by feeds." + alsoAt("/stops/{stop_key}.{format}"), [STOP_KEY, ...STOP_BY_KEY_PARAMS]),
    });
}
