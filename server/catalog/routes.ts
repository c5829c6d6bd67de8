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
  AGENCY_PARAMS,
  agencyQuery,
  DEPARTURE_PARAMS,
  departureQuery,
  FEED_PARAMS,
  FEED_VERSION_PARAMS,
  feedQuery,
  feedVersionQuery,
  OPERATOR_PARAMS,
  operatorQuery,
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
import type { CatalogService, FeedEndpoints } from "./service.ts";
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

const NO_PARAMS = new URLSearchParams();
/** A request's query parameters; a URL without a query string is not parsed at all (most key lookups have none). */
const paramsOf = (request: Request): URLSearchParams => {
  const url = request.url;
  return url.includes("?") ? new URL(url).searchParams : NO_PARAMS;
};
const formatOf = (raw: string | null | undefined): Format => parseParam("format", PATH_PARAMS.format, raw ?? undefined);
const stopsOf = (request: Request, format: Format) => stopQuery(queryReader(paramsOf(request), STOP_PARAMS), format);
const tripsOf = (request: Request, format: Format) => tripQuery(queryReader(paramsOf(request), TRIP_PARAMS), format);
const routesOf = (request: Request, format: Format) => routeQuery(queryReader(paramsOf(request), ROUTE_PARAMS), format);
const departuresOf = (request: Request) => departureQuery(queryReader(paramsOf(request), DEPARTURE_PARAMS));
const feedsOf = (request: Request, format: Format) => feedQuery(queryReader(paramsOf(request), FEED_PARAMS), format);
const feedVersionsOf = (request: Request, format: Format) => feedVersionQuery(queryReader(paramsOf(request), FEED_VERSION_PARAMS), format);
const agenciesOf = (request: Request, format: Format) => agencyQuery(queryReader(paramsOf(request), AGENCY_PARAMS), format);
const operatorsOf = (request: Request, format: Format) => operatorQuery(queryReader(paramsOf(request), OPERATOR_PARAMS), format);

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
const FEED_QUERY = openApiParameters(FEED_PARAMS);
const FEED_VERSION_QUERY = openApiParameters(FEED_VERSION_PARAMS);
const AGENCY_QUERY = openApiParameters(AGENCY_PARAMS);
const OPERATOR_QUERY = openApiParameters(OPERATOR_PARAMS);
const KEY_FORMS_TEXT = "an integer id, `<feed onestop_id>:<agency_id>`, or an agency Onestop ID";
const pathText = (name: string, description: string): OpenApiParameter => ({ name, in: "path", required: true, description, schema: { type: "string" } });
const FEED_KEY = pathText("feed_key", "an integer feed id or a feed Onestop ID; may end in .json, .geojson or .geojsonl");
const FEED_KEY_PLAIN = pathText("feed_key", "an integer feed id or a feed Onestop ID");
const FEED_VERSION_KEY = pathText("feed_version_key", "an integer feed version id or a SHA-1; may end in .json, .geojson or .geojsonl");
const FEED_VERSION_KEY_PLAIN = pathText("feed_version_key", "an integer feed version id or a SHA-1");
const AGENCY_KEY = pathText("agency_key", `${KEY_FORMS_TEXT}; may end in .json, .geojson or .geojsonl`);
const AGENCY_KEY_PLAIN = pathText("agency_key", KEY_FORMS_TEXT);
const OPERATOR_KEY = pathText("operator_key", "an integer operator id or an operator Onestop ID; may end in .json, .geojson or .geojsonl");
const OPERATOR_KEY_PLAIN = pathText("operator_key", "an integer operator id or an operator Onestop ID");
const ONESTOP_ID = pathText("onestop_id", "a Onestop ID: f-... (feed), o-... (operator), s-... (stop) or r-... (route)");
/** by key, only the alerts and (agencies) versions, licences and routes apply */
const AGENCY_BY_KEY_QUERY = AGENCY_QUERY.filter((p) => ["include_alerts", "active_alerts", "include_routes", "feed_version_sha1", "feed_onestop_id"].includes(p.name) || p.name.startsWith("license_"));
const OPERATOR_BY_KEY_QUERY = OPERATOR_QUERY.filter((p) => p.name === "include_alerts" || p.name === "active_alerts");
const FILE_RESPONSES = { "200": { description: "the report" }, "400": { description: "a key that is not valid percent-encoded UTF-8: `{error, parameter}`" }, "401": { description: "missing or invalid API key" }, "404": { description: "unknown version, or no report: `{error}`" } };
const feedsDoc =
  "The feeds of the dataset (every one, active version or not), with their name and tags (feeds file), URLs, licence, active version and versions; geometry (geojson) = the convex hull of the active version's stops. " +
  "A static feed with realtime sources also has a feed of its own with spec gtfs-rt, Onestop ID `<static Onestop ID>~rt`, and its realtime_* URLs.";
const feedVersionsDoc =
  "The feed versions of the dataset (active or not): fetch time, calendar range, convex hull of the stops, files with row counts, feed_info, service_levels (seconds of scheduled service per weekday over runs of weeks with the same totals), the import's counts and the validation summary with links to the full report.";
const agenciesDoc = "Agencies of the active feed versions (or of feed_version_sha1), with their operator, places, feed version and convex hull; routes with include_routes=true.";
const operatorsDoc = "Operators derived from the agencies of the active feed versions, one per agency Onestop ID across feeds, with their feeds and agencies.";

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
    [`${BASE}/feeds.{format}`]: { get: detail("List or search feeds, in a format", feedsDoc, [FORMAT, ...FEED_QUERY], "getApiV2RestFeedsInFormat") },
    [`${BASE}/feeds/{feed_key}.{format}`]: { get: detail("One feed by key, in a format", feedsDoc, [FEED_KEY_PLAIN, FORMAT], "getApiV2RestFeedsByFeed_keyInFormat") },
    [`${BASE}/feed_versions.{format}`]: {
      get: detail("List or search feed versions, in a format", feedVersionsDoc, [FORMAT, ...FEED_VERSION_QUERY], "getApiV2RestFeed_versionsInFormat"),
    },
    [`${BASE}/feed_versions/{feed_version_key}.{format}`]: {
      get: detail("One feed version by key, in a format", feedVersionsDoc, [FEED_VERSION_KEY_PLAIN, FORMAT], "getApiV2RestFeed_versionsByFeed_version_keyInFormat"),
    },
    [`${BASE}/feed_versions/{feed_version_key}/validation.json`]: {
      get: { ...detail("A feed version's validation report (MobilityData's report.json form)", "404 when the version was imported without validation.", [FEED_VERSION_KEY_PLAIN], "getApiV2RestFeedVersionValidationJson"), responses: FILE_RESPONSES },
    },
    [`${BASE}/feed_versions/{feed_version_key}/validation.html`]: {
      get: { ...detail("A feed version's validation report as HTML", "404 when the version was imported without validation.", [FEED_VERSION_KEY_PLAIN], "getApiV2RestFeedVersionValidationHtml"), responses: FILE_RESPONSES },
    },
    [`${BASE}/agencies.{format}`]: { get: detail("List or search agencies, in a format", agenciesDoc, [FORMAT, ...AGENCY_QUERY], "getApiV2RestAgenciesInFormat") },
    [`${BASE}/agencies/{agency_key}.{format}`]: {
      get: detail("One agency by key, in a format", agenciesDoc, [AGENCY_KEY_PLAIN, FORMAT, ...AGENCY_BY_KEY_QUERY], "getApiV2RestAgenciesByAgency_keyInFormat"),
    },
    [`${BASE}/operators.{format}`]: { get: detail("List or search operators, in a format", operatorsDoc, [FORMAT, ...OPERATOR_QUERY], "getApiV2RestOperatorsInFormat") },
    [`${BASE}/operators/{operator_key}.{format}`]: {
      get: detail("One operator by key, in a format", operatorsDoc, [OPERATOR_KEY_PLAIN, FORMAT, ...OPERATOR_BY_KEY_QUERY], "getApiV2RestOperatorsByOperator_keyInFormat"),
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

/** What the catalog's handlers answer from: the two services and the public origin of next links. */
interface CatalogEdge {
  service: CatalogService;
  feeds: FeedEndpoints;
  origin: PublicOrigin;
}

/** The catalog's Elysia instance, under /api/v2/rest: each endpoint family adds its routes to it. */
const catalogApp = () => new Elysia({ name: "catalog", prefix: BASE });
type CatalogApp = ReturnType<typeof catalogApp>;

/** A listing as a Response, its next links behind the request's public origin. */
const listed = (edge: CatalogEdge, format: Format, key: string, listing: Listing, request: Request) => listingResponse(format, key, listing, request.url, edge.origin.of(request));

/** The `format` path piece of a `/things.:format` route. */
const formatParam = (params: unknown) => pathParam(params, "format");

/**
 * An entity by key with an optional format suffix (`/stops/{stop_key}[.format]`,
 * `/routes/{route_key}[.format]`): "/stops/123.xml", a key that does not exist with what looks
 * like a format suffix, is an unknown format, not an unknown key.
 */
async function byKey<Q>(edge: CatalogEdge, request: Request, rawKey: string, kind: string, queryOf: (r: Request, f: Format) => Q, find: (key: string, q: Q) => Listing | Promise<Listing>) {
  const { key, format: rawFormat } = splitFormat(rawKey);
  const format = formatOf(rawFormat);
  try {
    return listed(edge, format, kind, await find(key, queryOf(request, format)), request);
  } catch (e) {
    const suffix = /\.([A-Za-z][A-Za-z0-9]{0,9})$/.exec(rawKey)?.[1];
    if (e instanceof AppError && e.code === "NOT_FOUND" && rawFormat === null && suffix) throw unknownFormat(suffix);
    throw e;
  }
}

/** A list endpoint of the feed endpoints: `/things[.format]`. */
const directoryList =
  <Q>(edge: CatalogEdge, key: string, queryOf: (r: Request, f: Format) => Q, find: (q: Q) => Listing) =>
  (request: Request, rawFormat: string | null) => {
    const format = formatOf(rawFormat);
    return listed(edge, format, key, find(queryOf(request, format)), request);
  };

/** One record by key with an optional format suffix: `/things/{key}[.format]`. */
const directoryOne =
  <Q>(edge: CatalogEdge, key: string, queryOf: (r: Request, f: Format) => Q, find: (k: string, q: Q) => Listing) =>
  (request: Request, rawKey: string) =>
    byKey(edge, request, rawKey, key, queryOf, async (k, q) => find(k, q));

/** GET /routes[.format], /routes/{route_key}[.format], and a route's trips. */
function routeEndpoints(app: CatalogApp, edge: CatalogEdge) {
  const { service } = edge;
  /** GET /routes[.format] */
  const routes = async (request: Request, rawFormat: string | null) => {
    const format = formatOf(rawFormat);
    return listed(edge, format, "routes", await service.routes(routesOf(request, format)), request);
  };
  /** GET /routes/{route_key}[.format] */
  const route = (request: Request, rawKey: string) => byKey(edge, request, rawKey, "routes", routesOf, (k, q) => service.route(k, q));
  /** GET /routes/{route_key}/trips[.format] */
  const trips = async (request: Request, routeKey: string, rawFormat: string | null) => {
    const format = formatOf(rawFormat);
    return listed(edge, format, "trips", await service.trips(routeKey, tripsOf(request, format)), request);
  };
  /** GET /routes/{route_key}/trips/{id}[.format] */
  const trip = async (request: Request, routeKey: string, rawId: string) => {
    const { key, format: rawFormat } = splitFormat(rawId);
    const suffix = /^\d+\.(.*)$/.exec(key)?.[1];
    if (suffix !== undefined) throw unknownFormat(suffix);
    const format = formatOf(rawFormat);
    const id = parseParam("id", PATH_PARAMS.id, key)!;
    return listed(edge, format, "trips", await service.trip(routeKey, id, tripsOf(request, format)), request);
  };
  app
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
    });
}

/** GET /stops[.format] and /stops/{stop_key}[.format] (a stop's departures: departureEndpoint). */
function stopEndpoints(app: CatalogApp, edge: CatalogEdge) {
  const { service } = edge;
  /** GET /stops[.format] */
  const stops = async (request: Request, rawFormat: string | null) => {
    const format = formatOf(rawFormat);
    return listed(edge, format, "stops", await service.stops(stopsOf(request, format)), request);
  };
  /** GET /stops/{stop_key}[.format] */
  const stop = (request: Request, rawKey: string) => byKey(edge, request, rawKey, "stops", stopsOf, (k, q) => service.stop(k, q));
  app
    .get("/stops", ({ request }) => stops(request, null), { detail: detail("List or search stops", stopsDoc + alsoAt("/stops.{format}"), STOP_QUERY) })
    .get("/stops.:format", ({ request, params }) => stops(request, formatParam(params)), {
      detail: detail("List or search stops, in a format", stopsDoc, [FORMAT, ...STOP_QUERY]),
    })
    .get("/stops/:stop_key", ({ request, params }) => stop(request, pathParam(params, "stop_key")), {
      detail: detail("One stop by key", "Several stops when a Onestop ID is shared by feeds." + alsoAt("/stops/{stop_key}.{format}"), [STOP_KEY, ...STOP_BY_KEY_QUERY]),
    });
}

/** GET /feed_versions/{key}/validation.json|.html: the stored report, the HTML one locked down as a document of its own. */
function validationReport(feeds: FeedEndpoints, key: string, kind: "json" | "html") {
  return new Response(feeds.validationReport(key, kind), {
    headers: {
      "content-type": kind === "json" ? "application/json; charset=utf-8" : "text/html; charset=utf-8",
      // the HTML report is a document of its own: no scripts, nothing embedded from elsewhere
      ...(kind === "html" ? { "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; img-src data:", "x-frame-options": "DENY" } : {}),
    },
  });
}

/** GET /feeds, /feeds/{feed_key}, a feed's versions, /feed_versions, /feed_versions/{key} and its validation reports. */
function feedEndpoints(app: CatalogApp, edge: CatalogEdge) {
  const { feeds } = edge;
  const feedList = directoryList(edge, "feeds", feedsOf, (q) => feeds.feeds(q));
  const feedOne = directoryOne(edge, "feeds", feedsOf, (k, q) => feeds.feed(k, q));
  const versionList = directoryList(edge, "feed_versions", feedVersionsOf, (q) => feeds.feedVersions(q));
  const versionOne = directoryOne(edge, "feed_versions", feedVersionsOf, (k) => feeds.feedVersion(k));
  /** GET /feeds/{feed_key}/feed_versions */
  const feedVersionsOfFeed = (request: Request, feedKey: string) => {
    const q = feedVersionsOf(request, "json");
    return listed(edge, "json", "feed_versions", feeds.feedVersions({ ...q, feedKey }), request);
  };
  app
    .get("/feeds", ({ request }) => feedList(request, null), { detail: detail("List or search feeds", feedsDoc + alsoAt("/feeds.{format}"), FEED_QUERY) })
    .get("/feeds.:format", ({ request, params }) => feedList(request, formatParam(params)), { detail: detail("List or search feeds, in a format", feedsDoc, [FORMAT, ...FEED_QUERY]) })
    .get("/feeds/:feed_key", ({ request, params }) => feedOne(request, pathParam(params, "feed_key")), {
      detail: detail("One feed by key", feedsDoc + alsoAt("/feeds/{feed_key}.{format}"), [FEED_KEY]),
    })
    .get("/feeds/:feed_key/feed_versions", ({ request, params }) => feedVersionsOfFeed(request, pathParam(params, "feed_key")), {
      detail: detail("Versions of a feed", feedVersionsDoc, [FEED_KEY_PLAIN, ...FEED_VERSION_QUERY.filter((p) => p.name !== "feed_key")]),
    })
    .get("/feed_versions", ({ request }) => versionList(request, null), {
      detail: detail("List or search feed versions", feedVersionsDoc + alsoAt("/feed_versions.{format}"), FEED_VERSION_QUERY),
    })
    .get("/feed_versions.:format", ({ request, params }) => versionList(request, formatParam(params)), {
      detail: detail("List or search feed versions, in a format", feedVersionsDoc, [FORMAT, ...FEED_VERSION_QUERY]),
    })
    .get("/feed_versions/:feed_version_key", ({ request, params }) => versionOne(request, pathParam(params, "feed_version_key")), {
      detail: detail("One feed version by key", feedVersionsDoc + alsoAt("/feed_versions/{feed_version_key}.{format}"), [FEED_VERSION_KEY]),
    })
    .get("/feed_versions/:feed_version_key/validation.json", ({ params }) => validationReport(feeds, pathParam(params, "feed_version_key"), "json"))
    .get("/feed_versions/:feed_version_key/validation.html", ({ params }) => validationReport(feeds, pathParam(params, "feed_version_key"), "html"));
}

/** GET /agencies[.format], /agencies/{agency_key}[.format] and an agency's routes. */
function agencyEndpoints(app: CatalogApp, edge: CatalogEdge) {
  const { service, feeds } = edge;
  const agencyList = directoryList(edge, "agencies", agenciesOf, (q) => feeds.agencies(q));
  const agencyOne = directoryOne(edge, "agencies", agenciesOf, (k, q) => feeds.agency(k, q));
  /** GET /agencies/{agency_key}/routes: the routes list with agency_key (404 for an unknown agency) */
  const agencyRoutes = async (request: Request, agencyKey: string) => {
    const sp = new URL(request.url).searchParams;
    const reader = queryReader(sp, ROUTE_PARAMS);
    const q = routeQuery((name) => (name === "agency_key" ? agencyKey : reader(name)), "json");
    feeds.checkAgency(agencyKey, q);
    return listed(edge, "json", "routes", await service.routes(q), request);
  };
  app
    .get("/agencies", ({ request }) => agencyList(request, null), { detail: detail("List or search agencies", agenciesDoc + alsoAt("/agencies.{format}"), AGENCY_QUERY) })
    .get("/agencies.:format", ({ request, params }) => agencyList(request, formatParam(params)), {
      detail: detail("List or search agencies, in a format", agenciesDoc, [FORMAT, ...AGENCY_QUERY]),
    })
    .get("/agencies/:agency_key", ({ request, params }) => agencyOne(request, pathParam(params, "agency_key")), {
      detail: detail("One agency by key", "Several agencies when a Onestop ID is shared by feeds." + alsoAt("/agencies/{agency_key}.{format}"), [AGENCY_KEY, ...AGENCY_BY_KEY_QUERY]),
    })
    .get("/agencies/:agency_key/routes", ({ request, params }) => agencyRoutes(request, pathParam(params, "agency_key")), {
      detail: detail("Routes of an agency", routesDoc + " 404 for an unknown agency.", [AGENCY_KEY_PLAIN, ...ROUTE_QUERY.filter((p) => p.name !== "agency_key")]),
    });
}

/** GET /operators[.format] and /operators/{operator_key}[.format]. */
function operatorEndpoints(app: CatalogApp, edge: CatalogEdge) {
  const { feeds } = edge;
  const operatorList = directoryList(edge, "operators", operatorsOf, (q) => feeds.operators(q));
  const operatorOne = directoryOne(edge, "operators", operatorsOf, (k, q) => feeds.operator(k, q));
  app
    .get("/operators", ({ request }) => operatorList(request, null), { detail: detail("List or search operators", operatorsDoc + alsoAt("/operators.{format}"), OPERATOR_QUERY) })
    .get("/operators.:format", ({ request, params }) => operatorList(request, formatParam(params)), {
      detail: detail("List or search operators, in a format", operatorsDoc, [FORMAT, ...OPERATOR_QUERY]),
    })
    .get("/operators/:operator_key", ({ request, params }) => operatorOne(request, pathParam(params, "operator_key")), {
      detail: detail("One operator by key", operatorsDoc + alsoAt("/operators/{operator_key}.{format}"), [OPERATOR_KEY, ...OPERATOR_BY_KEY_QUERY]),
    });
}

/** GET /onestop_id/{onestop_id}: 302 to the entity's endpoint (the query string kept, without apikey). */
function onestopEndpoint(app: CatalogApp, { feeds, origin }: CatalogEdge) {
  const onestop = (request: Request, id: string) => {
    const kind = feeds.onestopId(id);
    const u = new URL(request.url);
    u.searchParams.delete("apikey");
    const query = u.searchParams.size ? `?${u.searchParams}` : "";
    return new Response(null, { status: 302, headers: { location: `${origin.of(request)}${BASE}/${kind}/${encodeURIComponent(id)}${query}` } });
  };
  app.get("/onestop_id/:onestop_id", ({ request, params }) => onestop(request, pathParam(params, "onestop_id")), {
    detail: {
      tags: ["catalog"],
      summary: "Resolve a Onestop ID",
      description: "302 to /feeds, /operators, /stops or /routes by the ID's prefix (f-, o-, s-, r-) when the dataset has that entity; 404 otherwise.",
      parameters: [ONESTOP_ID],
      responses: { "302": { description: "Location: the entity's endpoint" }, "401": { description: "missing or invalid API key" }, "404": { description: "`{error}`" } },
    },
  });
}

/** GET /stops/{stop_key}/departures (json only). */
function departureEndpoint(app: CatalogApp, edge: CatalogEdge) {
  const departures = async (request: Request, key: string) => listed(edge, "json", "stops", await edge.service.departures(key, departuresOf(request)), request);
  app.get("/stops/:stop_key/departures", ({ request, params }) => departures(request, pathParam(params, "stop_key")), {
    detail: detail("Departures from a stop", departuresDoc, [STOP_KEY_PLAIN, ...DEPARTURE_QUERY]),
  });
}

/**
 * The catalog's routes under /api/v2/rest, one family after another (the order is the order of
 * /docs' paths).
 */
export function catalogRoutes(service: CatalogService, feeds: FeedEndpoints, origin: PublicOrigin) {
  const edge: CatalogEdge = { service, feeds, origin };
  const app = catalogApp();
  routeEndpoints(app, edge);
  stopEndpoints(app, edge);
  feedEndpoints(app, edge);
  agencyEndpoints(app, edge);
  operatorEndpoints(app, edge);
  onestopEndpoint(app, edge);
  departureEndpoint(app, edge);
  return app;
}
