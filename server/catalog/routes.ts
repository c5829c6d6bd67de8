/**
 * The HTTP edge of the catalog: the endpoint forms under /api/v2/rest (routes, trips of a route,
 * stops, a stop's departures). A handler reads the path pieces and the query string into a typed
 * query (params.ts: the zod schemas, which also
 * give /docs its parameters), asks CatalogService, and renders the Listing (render.ts). Errors
 * are thrown as AppError and answered by the catalog's renderer (catalogErrors, registered with
 * the app for the prefix): `{error, parameter?, allowed?}` JSON, 429/503 plain text.
 *
 * OpenAPI: @elysiajs/swagger leaves out every path containing a dot (its excludeStaticFile
 * option), so the `.{format}` forms never reach /docs from the route table. Each base path's
 * description names its `.{format}` form, and `catalogFormatPaths()` gives their path items,
 * which the feature hands to the app (Feature.docPaths) for `documentation.paths` (merged after
 * that filter).
 */
import { Elysia } from "elysia";
import { AppError, invalidParameter, renderError } from "../errors.ts";
import type { FeatureErrors } from "../feature.ts";
import type { PublicOrigin } from "../origin.ts";
import { type OpenApiParameter, openApiParameters, parseParam } from "../params.ts";
import {
  DEPARTURE_PARAMS,
  departureQuery,
  type Format,
  FORMATS,
  PATH_PARAMS,
  queryReader,
  ROUTE_PARAMS,
  routeQuery,
  STOP_PARAMS,
  stopQuery,
  TRIP_PARAMS,
  tripQuery,
} from "./params.ts";
import { listingResponse } from "./render.ts";
import type { CatalogService } from "./service.ts";
import type { Listing } from "./listing.ts";

const BASE = "/api/v2/rest";

/** The catalog's errors: the service-wide `{error, parameter?, allowed?}` bodies. */
export const catalogErrors: FeatureErrors = { prefix: `${BASE}/`, render: (err) => renderError(err) };

// ---- path pieces

/** split "<key>.<format>" when the suffix is a format name */
export function splitFormat(raw: string): { key: string; format: string | null } {
  const dot = raw.lastIndexOf(".");
  if (dot <= 0) return { key: raw, format: null };
  const suffix = raw.slice(dot + 1).toLowerCase();
  if ((FORMATS as readonly string[]).includes(suffix)) return { key: raw.slice(0, dot), format: suffix };
  return { key: raw, format: null };
}

/** For an unknown "<key>.<suffix>" that looks like a format request. */
export function unknownFormat(suffix: string): AppError {
  return invalidParameter("format", `format must be one of json, geojson, geojsonl; got "${suffix}"`, "json, geojson, geojsonl");
}

const formatOf = (raw: string | null | undefined): Format => parseParam("format", PATH_PARAMS.format, raw ?? undefined);
const stopsOf = (request: Request, format: Format) => stopQuery(queryReader(new URL(request.url).searchParams, STOP_PARAMS), format);
const tripsOf = (request: Request, format: Format) => tripQuery(queryReader(new URL(request.url).searchParams, TRIP_PARAMS), format);
const routesOf = (request: Request, format: Format) => routeQuery(queryReader(new URL(request.url).searchParams, ROUTE_PARAMS), format);
const departuresOf = (request: Request) => departureQuery(queryReader(new URL(request.url).searchParams, DEPARTURE_PARAMS));

// ---- OpenAPI

const path = (name: keyof typeof PATH_PARAMS, description?: string): OpenApiParameter => {
  const [p] = openApiParameters({ [name]: PATH_PARAMS[name] }, "path");
  return description ? { ...p!, description } : p!;
};
const FORMAT = path("format");
const ROUTE_KEY = path("route_key");
const ROUTE_KEY_FORMAT = path("route_key", `${PATH_PARAMS.route_key.description}; may end in .json, .geojson or .geojsonl`);
const STOP_KEY = path("stop_key", `${PATH_PARAMS.stop_key.description}; may end in .json, .geojson or .geojsonl`);
const STOP_KEY_PLAIN = path("stop_key");
const TRIP_ID = path("id");
const TRIP_QUERY = openApiParameters(TRIP_PARAMS);
const STOP_QUERY = openApiParameters(STOP_PARAMS);
/** by key, the area filters are accepted (and checked) but mean nothing */
const STOP_BY_KEY_QUERY = STOP_QUERY.filter((p) => !["bbox", "lat", "lon", "radius"].includes(p.name));
const ROUTE_QUERY = openApiParameters(ROUTE_PARAMS);
/** by key, the list filters are accepted (and checked) but mean nothing: versions, licences, alerts and route_stops apply */
const ROUTE_BY_KEY_QUERY = ROUTE_QUERY.filter((p) => p.name === "include_stops" || p.name === "include_alerts" || p.name === "active_alerts" || p.name.startsWith("license_") || p.name.startsWith("feed_"));
const DEPARTURE_QUERY = openApiParameters(DEPARTURE_PARAMS);

const tripsDoc = "Trips of a route. stop_times only for a single trip; shape geometry for a single trip, geojson(l), or include_geometry=true.";
const stopsDoc = "Stops of the active feed versions (or of feed_version_sha1).";
const routesDoc =
  "Routes of the active feed versions (or of feed_version_sha1), with their agency, feed version and route_stops; geometry (the most used shapes, MultiLineString) with include_geometry=true or geojson(l).";
const routeDoc = "One route by key, with its geometry; several when a Onestop ID is shared by feeds.";
const departuresDoc =
  "The stop (several when a Onestop ID is shared by feeds) with its departures, and its child stops (a station's platforms) with theirs: StopTimes with their trip and route on a service date, " +
  "realtime estimates where a trip update has them. Default: the next hour from now. json only.";
const alsoAt = (path: string) => ` Also at \`${BASE}${path}\` (format json, geojson or geojsonl).`;

const RESPONSES = {
  "200": { description: "`{routes|trips|stops: [...], meta?: {after, next}}`, a GeoJSON FeatureCollection, or GeoJSON lines" },
  "400": { description: "bad parameter: `{error, parameter, allowed}`" },
  "401": { description: "missing or invalid API key: `{error}`" },
  "404": { description: "unknown key: `{error}`" },
};
const detail = (summary: string, description: string, parameters: OpenApiParameter[], operationId?: string) => ({
  ...(operationId ? { operationId } : {}),
  tags: ["catalog"],
  summary,
  description,
  parameters,
  responses: RESPONSES,
});

/**
 * OpenAPI path items of the six `.{format}` forms (the swagger plugin drops dotted paths from the
 * route table): to be merged into the app's `documentation.paths`.
 */
export function catalogFormatPaths(): Record<string, { get: ReturnType<typeof detail> }> {
  return {
    [`${BASE}/routes.{format}`]: {
      get: detail("List or search routes, in a format", routesDoc, [FORMAT, ...ROUTE_QUERY], "getApiV2RestRoutesInFormat"),
    },
    [`${BASE}/routes/{route_key}.{format}`]: {
      get: detail("One route by key, in a format", routeDoc, [ROUTE_KEY, FORMAT, ...ROUTE_BY_KEY_QUERY], "getApiV2RestRoutesByRoute_keyInFormat"),
    },
    [`${BASE}/routes/{route_key}/trips.{format}`]: {
      get: detail("List trips of a route, in a format", tripsDoc, [ROUTE_KEY, FORMAT, ...TRIP_QUERY], "getApiV2RestRoutesByRoute_keyTripsInFormat"),
    },
    [`${BASE}/routes/{route_key}/trips/{id}.{format}`]: {
      get: detail(
        "One trip of a route, in a format",
        "The single-trip form (stop_times and geometry) as json, a one-Feature FeatureCollection, or one GeoJSON line.",
        [ROUTE_KEY, TRIP_ID, FORMAT, ...TRIP_QUERY],
        "getApiV2RestRoutesByRoute_keyTripsByIdInFormat",
      ),
    },
    [`${BASE}/stops.{format}`]: {
      get: detail("List or search stops, in a format", stopsDoc, [FORMAT, ...STOP_QUERY], "getApiV2RestStopsInFormat"),
    },
    [`${BASE}/stops/{stop_key}.{format}`]: {
      get: detail("One stop by key, in a format", "Several stops when a Onestop ID is shared by feeds.", [STOP_KEY_PLAIN, FORMAT, ...STOP_BY_KEY_QUERY], "getApiV2RestStopsByStop_keyInFormat"),
    },
  };
}

// ---- handlers

/**
 * A path parameter as Elysia decoded it; it hands over null for one that is not valid
 * percent-encoded UTF-8 (e.g. /stops/%FF), a 400 here (it was a 500, found by test/fuzz).
 */
function pathParam(params: unknown, name: string): string {
  const v = (params as Record<string, string | null | undefined>)[name];
  if (typeof v !== "string") throw invalidParameter(name, `${name} is not valid percent-encoded UTF-8`);
  return v;
}

export function catalogRoutes(service: CatalogService, origin: PublicOrigin) {
  /** a listing as a Response, its next links behind the request's public origin */
  const listed = (format: Format, key: string, listing: Listing, request: Request) => listingResponse(format, key, listing, request.url, origin.of(request));

  /** GET /stops[.format] */
  const stops = async (request: Request, rawFormat: string | null) => {
    const format = formatOf(rawFormat);
    return listed(format, "stops", await service.stops(stopsOf(request, format)), request);
  };

  /**
   * An entity by key with an optional format suffix (`/stops/{stop_key}[.format]`,
   * `/routes/{route_key}[.format]`): "/stops/123.xml", a key that does not exist with what looks
   * like a format suffix, is an unknown format, not an unknown key.
   */
  const byKey = async <Q>(request: Request, rawKey: string, kind: "stops" | "routes", queryOf: (r: Request, f: Format) => Q, find: (key: string, q: Q) => Promise<Listing>) => {
    const { key, format: rawFormat } = splitFormat(rawKey);
    const format = formatOf(rawFormat);
    try {
      return listed(format, kind, await find(key, queryOf(request, format)), request);
    } catch (e) {
      const suffix = /\.([A-Za-z][A-Za-z0-9]{0,9})$/.exec(rawKey)?.[1];
      if (e instanceof AppError && e.code === "NOT_FOUND" && rawFormat === null && suffix) throw unknownFormat(suffix);
      throw e;
    }
  };
  /** GET /stops/{stop_key}[.format] */
  const stop = (request: Request, rawKey: string) => byKey(request, rawKey, "stops", stopsOf, (k, q) => service.stop(k, q));

  /** GET /routes[.format] */
  const routes = async (request: Request, rawFormat: string | null) => {
    const format = formatOf(rawFormat);
    return listed(format, "routes", await service.routes(routesOf(request, format)), request);
  };

  /** GET /routes/{route_key}[.format] */
  const route = (request: Request, rawKey: string) => byKey(request, rawKey, "routes", routesOf, (k, q) => service.route(k, q));

  /** GET /stops/{stop_key}/departures */
  const departures = async (request: Request, key: string) => listed("json", "stops", await service.departures(key, departuresOf(request)), request);

  /** GET /routes/{route_key}/trips[.format] */
  const trips = async (request: Request, routeKey: string, rawFormat: string | null) => {
    const format = formatOf(rawFormat);
    return listed(format, "trips", await service.trips(routeKey, tripsOf(request, format)), request);
  };

  /** GET /routes/{route_key}/trips/{id}[.format] */
  const trip = async (request: Request, routeKey: string, rawId: string) => {
    const { key, format: rawFormat } = splitFormat(rawId);
    const suffix = /^\d+\.(.*)$/.exec(key)?.[1];
    if (suffix !== undefined) throw unknownFormat(suffix);
    const format = formatOf(rawFormat);
    const id = parseParam("id", PATH_PARAMS.id, key)!;
    return listed(format, "trips", await service.trip(routeKey, id, tripsOf(request, format)), request);
  };

  const formatParam = (params: unknown) => pathParam(params, "format");
  return new Elysia({ name: "catalog", prefix: BASE })
    .get("/routes", ({ request }) => routes(request, null), { detail: detail("List or search routes", routesDoc + alsoAt("/routes.{format}"), ROUTE_QUERY) })
    .get("/routes.:format", ({ request, params }) => routes(request, formatParam(params)), {
      detail: detail("List or search routes, in a format", routesDoc, [FORMAT, ...ROUTE_QUERY]),
    })
    .get("/routes/:route_key", ({ request, params }) => route(request, pathParam(params, "route_key")), {
      detail: detail("One route by key", routeDoc + alsoAt("/routes/{route_key}.{format}"), [ROUTE_KEY_FORMAT, ...ROUTE_BY_KEY_QUERY]),
    })
    .get("/routes/:route_key/trips", ({ request, params }) => trips(request, pathParam(params, "route_key"), null), {
      detail: detail("List trips of a route", tripsDoc + alsoAt("/routes/{route_key}/trips.{format}"), [ROUTE_KEY, ...TRIP_QUERY]),
    })
    .get("/routes/:route_key/trips.:format", ({ request, params }) => trips(request, pathParam(params, "route_key"), formatParam(params)), {
      detail: detail("List trips of a route, in a format", tripsDoc, [ROUTE_KEY, FORMAT, ...TRIP_QUERY]),
    })
    .get("/routes/:route_key/trips/:id", ({ request, params }) => trip(request, pathParam(params, "route_key"), pathParam(params, "id")), {
      detail: detail("One trip of a route, with stop_times and geometry", "`id` is the internal trip id." + alsoAt("/routes/{route_key}/trips/{id}.{format}"), [
        ROUTE_KEY,
        path("id", "internal trip id, optionally followed by .format"),
        ...TRIP_QUERY,
      ]),
    })
    .get("/stops", ({ request }) => stops(request, null), { detail: detail("List or search stops", stopsDoc + alsoAt("/stops.{format}"), STOP_QUERY) })
    .get("/stops.:format", ({ request, params }) => stops(request, formatParam(params)), {
      detail: detail("List or search stops, in a format", stopsDoc, [FORMAT, ...STOP_QUERY]),
    })
    .get("/stops/:stop_key", ({ request, params }) => stop(request, pathParam(params, "stop_key")), {
      detail: detail("One stop by key", "Several stops when a Onestop ID is shared by feeds." + alsoAt("/stops/{stop_key}.{format}"), [STOP_KEY, ...STOP_BY_KEY_QUERY]),
    })
    .get("/stops/:stop_key/departures", ({ request, params }) => departures(request, pathParam(params, "stop_key")), {
      detail: detail("Departures from a stop", departuresDoc, [STOP_KEY_PLAIN, ...DEPARTURE_QUERY]),
    });
}
