/**
 * Routes (GET /routes[.format], /routes/{route_key}[.format]): Transitland's Route objects, answered
 * from JS indexes built at load (store.ts), no DuckDB round trip per request:
 * - the route documents (every field but route_stops and geometry), rendered once by DuckDB
 *   (sql.ts route_docs);
 * - route_stops both ways (route → stops, stop → routes), from route_stops.parquet;
 * - the route's geometry: its most used shapes (chooseRouteShapes, counted over its trips in the
 *   trip index), drawn per request from the trip index's shape points as a MultiLineString.
 *
 * Lists filter every route in id order in JS (the `after` cursor is the last id of a page); the
 * geographic filters (bbox, lat/lon/radius) ask the stops' spatial index (spatial.ts) for the stops
 * in the area, then take the routes serving them; stop_key takes the routes serving a stop (a
 * station: its child stops).
 */
import { notFound } from "../errors.ts";
import { type AlertLookup, routeWithAlerts } from "./alerts.ts";
import { type Item, renderedInBatches } from "./listing.ts";
import type { RouteQuery } from "./params.ts";
import { parseKey, resolveRouteKey, visibleVersions } from "./scope.ts";
import type { CatalogData, RouteRef } from "./data.ts";
import type { TripIndex } from "./tripindex.ts";

/** Shapes in a route's geometry at most, the most used first (a bus route of a large feed has dozens of variants). */
export const MAX_SHAPES_PER_ROUTE = 8;
/** route documents per batch when a list streams */
const STREAM_BATCH = 100;

/**
 * Per route, its MAX_SHAPES_PER_ROUTE most used shapes (by the number of its trips using each, then
 * by shape_id), as ShapeIndex numbers; shapes with fewer than two located points are left out.
 */
export function chooseRouteShapes(ix: TripIndex): Map<number, Int32Array> {
  const out = new Map<number, Int32Array>();
  const sh = ix.shapes;
  const drawable = (s: number) => {
    let n = 0;
    for (let i = sh.offsets[s]!, end = sh.offsets[s + 1]!; i < end && n < 2; i++) if (sh.lat[i] === sh.lat[i] && sh.lon[i] === sh.lon[i]) n++;
    return n >= 2;
  };
  for (const [route, trips] of ix.byRoute) {
    const uses = new Map<number, number>();
    for (const t of trips) {
      const s = ix.shape[t]!;
      if (s >= 0) uses.set(s, (uses.get(s) ?? 0) + 1);
    }
    if (!uses.size) continue;
    const ids = new Map<number, string>();
    for (const t of trips) if (ix.shape[t]! >= 0 && !ids.has(ix.shape[t]!)) ids.set(ix.shape[t]!, ix.shapeId.get(t) ?? "");
    const chosen = [...uses.entries()]
      .filter(([s]) => drawable(s))
      .sort((a, b) => b[1] - a[1] || (ids.get(a[0])! < ids.get(b[0])! ? -1 : ids.get(a[0])! > ids.get(b[0])! ? 1 : 0))
      .slice(0, MAX_SHAPES_PER_ROUTE)
      .map(([s]) => s);
    if (chosen.length) out.set(route, Int32Array.from(chosen));
  }
  return out;
}

const LINE_PREFIX = '{"type":"LineString","coordinates":';

/** The route's geometry: a MultiLineString of its chosen shapes, or "null" when it has none. */
export function routeGeometry(data: CatalogData, routeId: number): string {
  const shapes = data.routeShapes.get(routeId);
  if (!shapes?.length) return "null";
  const lines: string[] = [];
  for (const s of shapes) lines.push(data.trips.shapes.geometry(s).slice(LINE_PREFIX.length, -1));
  return `{"type":"MultiLineString","coordinates":[${lines.join(",")}]}`;
}

/** route_stops of a route as JSON, `[{"stop":{id, stop_id, stop_name[, geometry]}}, ...]`, cached per route and form. */
const routeStopsCache = new WeakMap<CatalogData, Map<number, string>>();
function routeStopsJson(data: CatalogData, routeId: number, withGeometry: boolean): string {
  let cache = routeStopsCache.get(data);
  if (!cache) routeStopsCache.set(data, (cache = new Map()));
  const key = withGeometry ? -routeId - 1 : routeId;
  let json = cache.get(key);
  if (json === undefined) {
    const parts: string[] = [];
    for (const id of data.routeStops.get(routeId) ?? []) {
      const d = data.stops.get(id);
      if (!d) continue;
      parts.push(`{"stop":{"id":${d.id},"stop_id":${JSON.stringify(d.stopId)},"stop_name":${JSON.stringify(d.stopName)}${withGeometry ? `,"geometry":${d.geometry}` : ""}}}`);
    }
    cache.set(key, (json = `[${parts.join(",")}]`));
  }
  return json;
}

export interface RouteRender {
  /** json: put "geometry" inside the object (include_geometry=true, or by key) */
  embedGeometry: boolean;
  /** geojson(l): the geometry is the Feature's */
  geometryColumn: boolean;
  includeStops: boolean;
  alerts: AlertLookup | null;
}

export function routeRender(q: RouteQuery, byKey: boolean, alerts: AlertLookup | null): RouteRender {
  const geo = q.format !== "json";
  return { embedGeometry: !geo && (byKey || q.includeGeometry), geometryColumn: geo, includeStops: q.includeStops, alerts };
}

/** One Route document. */
export function routeItem(data: CatalogData, r: RouteRef, o: RouteRender): Item {
  let props = r.propsOpen;
  if (o.alerts) props = routeWithAlerts(props, o.alerts, data.versions.get(r.fv)?.feedOnestopId ?? "", r.routeId, r.agencyId);
  if (o.includeStops) props += `,"route_stops":${routeStopsJson(data, r.id, o.embedGeometry || o.geometryColumn)}`;
  const geometry = o.embedGeometry || o.geometryColumn ? routeGeometry(data, r.id) : "null";
  return { props, geometry, geometryInJson: o.embedGeometry };
}

/** Route ids a key names (no 404: an unknown key matches nothing). */
function routesOfKey(data: CatalogData, raw: string): number[] {
  const k = parseKey(raw);
  if (k.kind === "id") return data.routes.has(k.id!) ? [k.id!] : [];
  if (k.kind === "feed") return data.routesByFeed(k.feed!, k.gtfsId!);
  return data.routesByOnestop.get(raw) ?? [];
}

function agenciesOfKey(data: CatalogData, raw: string): number[] {
  const k = parseKey(raw);
  if (k.kind === "id") return data.agencies.has(k.id!) ? [k.id!] : [];
  if (k.kind === "feed") return data.agenciesByFeed(k.feed!, k.gtfsId!);
  return data.agenciesByOnestop.get(raw) ?? [];
}

/** Stop ids a key names, each with its child stops (a station's platforms). */
function stopsOfKey(data: CatalogData, raw: string): number[] {
  const k = parseKey(raw);
  let ids: number[];
  if (k.kind === "id") ids = data.stops.has(k.id!) ? [k.id!] : [];
  else if (k.kind === "feed") ids = data.stopsByFeed(k.feed!, k.gtfsId!);
  else ids = data.stopsByOnestop.get(raw) ?? [];
  return ids.flatMap((id) => [id, ...(data.childrenOf.get(id) ?? [])]);
}

/** Routes serving any of `stops`. */
function servingRoutes(data: CatalogData, stops: Iterable<number>): Set<number> {
  const out = new Set<number>();
  for (const s of stops) for (const r of data.stopRoutes.get(s) ?? []) out.add(r);
  return out;
}

/**
 * The request's filters as a predicate over routes, with the candidate ids (null: every route)
 * when a filter names them (id, route_key, stop_key, the area).
 */
function routeFilter(data: CatalogData, q: RouteQuery): { candidates: Int32Array; keep: (r: RouteRef) => boolean } {
  // an integer id (as `id` or route_key) reaches any version, like an integer path key
  const pinned = q.id !== null || (q.routeKey !== null && parseKey(q.routeKey).kind === "id");
  const visible = visibleVersions(data, q, pinned);
  let only: Set<number> | null = null;
  const narrow = (ids: Iterable<number>) => {
    const next = new Set<number>();
    for (const id of ids) if (!only || only.has(id)) next.add(id);
    only = next;
  };
  if (q.id !== null) narrow([q.id]);
  if (q.routeKey !== null) narrow(routesOfKey(data, q.routeKey));
  if (q.stopKey !== null) narrow(servingRoutes(data, stopsOfKey(data, q.stopKey)));
  if (q.bbox !== null || q.near !== null) narrow(servingRoutes(data, data.spatial.selectIds(q.bbox, q.near)));
  const agencies = q.agencyKey === null ? null : new Set(agenciesOfKey(data, q.agencyKey));
  const types = q.routeTypes === null ? null : new Set(q.routeTypes);
  const search = q.search?.toLowerCase() ?? null;
  const candidates = only === null ? data.routeOrder : Int32Array.from(only as Set<number>).sort();
  const keep = (r: RouteRef) => {
    if (!visible.has(r.fv)) return false;
    if (q.routeId !== null && r.routeId !== q.routeId) return false;
    if (types && (r.routeType === null || !types.has(r.routeType))) return false;
    if (q.onestopId !== null && r.onestopId !== q.onestopId) return false;
    if (agencies && (r.agencyRef === null || !agencies.has(r.agencyRef))) return false;
    if (q.operatorOnestopId !== null && r.agencyOnestopId !== q.operatorOnestopId) return false;
    if (search !== null && !(r.shortName?.toLowerCase().includes(search) || r.longName?.toLowerCase().includes(search))) return false;
    return true;
  };
  return { candidates, keep };
}

/** Matching routes in id order, from the first after the cursor. */
function* matchingRoutes(data: CatalogData, q: RouteQuery): Generator<RouteRef> {
  const { candidates, keep } = routeFilter(data, q);
  // first candidate past the cursor (ids ascending)
  let lo = 0;
  let hi = candidates.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (candidates[mid]! <= q.after) lo = mid + 1;
    else hi = mid;
  }
  for (let k = lo; k < candidates.length; k++) {
    const r = data.routes.get(candidates[k]!);
    if (r && keep(r)) yield r;
  }
}

/** One page of routes (limit + 1 looked at to know whether a next page exists) and the next page's cursor. */
export function findRoutePage(data: CatalogData, q: RouteQuery): { routes: RouteRef[]; after: number | null } {
  const limit = q.limit!;
  const routes: RouteRef[] = [];
  let more = false;
  for (const r of matchingRoutes(data, q)) {
    if (routes.length === limit) {
      more = true;
      break;
    }
    routes.push(r);
  }
  return { routes, after: more ? routes[routes.length - 1]!.id : null };
}

/** Route documents in batches, rendered as the response stream pulls them; `end` runs when the stream finishes. */
export function streamRoutes(data: CatalogData, routes: Iterable<RouteRef>, o: RouteRender, end?: () => void): AsyncGenerator<Item[]> {
  return renderedInBatches(routes, (r) => routeItem(data, r, o), STREAM_BATCH, end);
}

/** Every matching route (bulk geojsonl). */
export const allRoutes = (data: CatalogData, q: RouteQuery) => matchingRoutes(data, q);

/** The routes a route key names, after the request's version and licence filters; 404 when none is left. */
export function findRoutesByKey(data: CatalogData, key: string, q: RouteQuery): RouteRef[] {
  const ids = resolveRouteKey(data, key, q);
  const visible = visibleVersions(data, q, parseKey(key).kind === "id");
  const routes = ids
    .map((id) => data.routes.get(id)!)
    .filter((r) => visible.has(r.fv))
    .sort((a, b) => a.id - b.id);
  if (!routes.length) throw notFound(`route not found: ${key} (excluded by the request's filters)`);
  return routes;
}
