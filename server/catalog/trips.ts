/**
 * Trips of a route. A filter query picks trip ids (route, versions, service date, trip_id, id,
 * near a point) in id order; a render query turns ids into Trip JSON with DuckDB's to_json, joining
 * the per-dataset documents (feed version, route, calendar, frequencies, shape lines).
 * stop_times (single trip only) come from the in-memory stop_times table (or the version's Parquet).
 */
import { INTEGER, LIST, listValue, VARCHAR } from "@duckdb/node-api";
import { notFound } from "../errors.ts";
import { Params, type Query, sqlString } from "./db.ts";
import { effectiveServiceDate, isoWeekday, resolveRelativeDate } from "./dates.ts";
import { nearSql } from "./geo.ts";
import type { TripQuery } from "./params.ts";
import type { Item, Page } from "./render.ts";
import { parseKey, resolveRouteKey, visibleVersions } from "./scope.ts";
import type { CatalogData } from "./store.ts";

const INT_LIST = LIST(INTEGER);
const WEEKDAY_COLUMNS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"];

/** What a trips request covers once its route key and dates are resolved. */
export interface TripScope {
  routeIds: number[];
  versionIds: number[];
  /** effective service date per feed version (after relative_date and the service window), or null */
  dates: Map<number, string> | null;
}

export function tripScope(data: CatalogData, routeKey: string, q: TripQuery, nowMs: number): TripScope {
  const routeIds = resolveRouteKey(data, routeKey, q);
  const visible = visibleVersions(data, q, parseKey(routeKey).kind === "id");
  const versionIds = [...new Set(routeIds.map((id) => data.routes.get(id)!.fv))].filter((fv) => visible.has(fv));
  let dates: Map<number, string> | null = null;
  if (q.serviceDate || q.relativeDate) {
    dates = new Map();
    for (const fv of versionIds) {
      const v = data.versions.get(fv)!;
      const asked = q.serviceDate ?? resolveRelativeDate(q.relativeDate!, nowMs, v.timezone);
      dates.set(fv, effectiveServiceDate(asked, v, q.useServiceWindow));
    }
  }
  return { routeIds, versionIds, dates };
}

/** SQL condition: calendar row `c` has service on `date` (calendar.txt + calendar_dates.txt). */
function activeOn(p: Params, date: string): string {
  const d = `${p.add(date, VARCHAR)}::DATE`;
  return (
    `(list_contains(c.added_dates, ${d}) OR (c.start_date <= ${d} AND c.end_date >= ${d} ` +
    `AND c.${WEEKDAY_COLUMNS[isoWeekday(date)]} = 1 AND NOT list_contains(coalesce(c.removed_dates, []::DATE[]), ${d})))`
  );
}

/** `col` is one of `ids` (a plain equality for one id: cheaper, and DuckDB can prune with it). */
function inList(p: Params, col: string, ids: number[]): string {
  if (ids.length === 1) return `${col} = ${p.add(ids[0]!, INTEGER)}`;
  return `list_contains(${p.add(listValue(ids), INT_LIST)}, ${col})`;
}

/** The filter query (trip ids in id order), built into `p`. */
function filterSql(p: Params, scope: TripScope, q: TripQuery, singleId: number | null, limit: number | null): string {
  const where: string[] = [inList(p, "t.route_ref", scope.routeIds), inList(p, "t.feed_version_id", scope.versionIds)];
  if (singleId !== null) where.push(`t.id = ${p.add(singleId, INTEGER)}`);
  if (q.id !== null) where.push(`t.id = ${p.add(q.id, INTEGER)}`);
  if (q.after > 0) where.push(`t.id > ${p.add(q.after, INTEGER)}`);
  if (q.tripId !== null) where.push(`t.trip_id = ${p.add(q.tripId, VARCHAR)}`);
  if (scope.dates) {
    const perVersion = [...scope.dates].map(([fv, date]) => `(t.feed_version_id = ${p.add(fv, INTEGER)} AND ${activeOn(p, date)})`);
    where.push(perVersion.length ? `(${perVersion.join(" OR ")})` : "false");
  }
  let near = "";
  if (q.near) {
    near =
      `SEMI JOIN (SELECT DISTINCT feed_version_id, stop_pattern_id FROM ` +
      `(SELECT feed_version_id, stop_pattern_id, unnest(stop_refs) AS stop_ref FROM stop_patterns) ` +
      `WHERE stop_ref IN (SELECT s.id FROM stops s WHERE ${nearSql(p, q.near, "s.stop_lat", "s.stop_lon")})) np ` +
      `ON np.feed_version_id = t.feed_version_id AND np.stop_pattern_id = t.stop_pattern_id `;
  }
  const lim = limit === null ? "" : ` LIMIT ${p.add(limit, INTEGER)}`;
  return `SELECT t.id FROM trips t LEFT JOIN calendars c ON c.id = t.calendar_ref ${near}WHERE ${where.join(" AND ")} ORDER BY t.id${lim}`;
}

export interface RenderOptions {
  /** put shape.geometry inside the JSON object (json format) */
  embedGeometry: boolean;
  /** select the shape line as a separate column (geojson formats) */
  geometryColumn: boolean;
  includeAlerts: boolean;
}

/**
 * The render query: Trip JSON for the trips the condition selects, in id order. Shape geometry is
 * fetched separately (attachGeometry): joining the geometry column would copy every shape line of
 * the dataset into the join's hash table on each request.
 */
function renderSql(condition: string, o: RenderOptions): string {
  const shape = `CASE WHEN nz(t.shape_id) IS NULL THEN NULL ELSE struct_pack(shape_id := t.shape_id, generated := coalesce(sl.generated, false)) END`;
  return `SELECT t.id, t.feed_version_id, to_json(struct_pack(
      id := t.id, trip_id := t.trip_id, trip_headsign := nz(t.trip_headsign), trip_short_name := nz(t.trip_short_name),
      direction_id := t.direction_id, block_id := nz(t.block_id), wheelchair_accessible := t.wheelchair_accessible,
      bikes_allowed := t.bikes_allowed, cars_allowed := t.cars_allowed, schedule_relationship := 'STATIC',
      stop_pattern_id := t.stop_pattern_id, feed_version := fv.json, shape := ${shape},
      calendar := cj.json, frequencies := coalesce(tf.json, '[]'::JSON),
      alerts := ${o.includeAlerts ? "'[]'::JSON" : "NULL::JSON"}, route := rj.json))::VARCHAR AS props,
      nz(t.shape_id) AS shape_id
    FROM trips t
    JOIN fv_json fv ON fv.feed_version_id = t.feed_version_id
    JOIN route_json rj ON rj.id = t.route_ref
    LEFT JOIN calendar_json cj ON cj.id = t.calendar_ref
    LEFT JOIN trip_freq tf ON tf.trip_ref = t.id
    LEFT JOIN shape_lines sl ON sl.feed_version_id = t.feed_version_id AND sl.shape_id = t.shape_id
    WHERE ${condition}
    ORDER BY t.id`;
}

/** Rendered rows → Trip JSON plus shape geometry (looked up for the rows' shapes when wanted). */
async function withGeometry(data: CatalogData, rows: unknown[][], o: RenderOptions): Promise<{ props: string; geometry: string | null }[]> {
  const geometry = new Map<string, string>();
  if (o.embedGeometry || o.geometryColumn) {
    const byVersion = new Map<number, Set<string>>();
    for (const r of rows) if (r[3] != null) (byVersion.get(Number(r[1])) ?? byVersion.set(Number(r[1]), new Set()).get(Number(r[1]))!).add(String(r[3]));
    for (const [fv, shapes] of byVersion) {
      const p = new Params();
      const found = await data.db.rows(
        p.query(`SELECT shape_id, geometry FROM shape_lines WHERE feed_version_id = ${p.add(fv, INTEGER)} AND list_contains(${p.add(listValue([...shapes]), LIST(VARCHAR))}, shape_id)`),
      );
      for (const [id, g] of found) geometry.set(`${fv}\u0000${id}`, String(g));
    }
  }
  return rows.map((r) => {
    let props = String(r[2]);
    const g = r[3] == null ? null : (geometry.get(`${Number(r[1])}\u0000${r[3]}`) ?? null);
    if (o.embedGeometry && r[3] != null) {
      // "shape":{"shape_id":<id>,"generated":…} → "shape":{"shape_id":<id>,"geometry":<line>,"generated":…}
      const head = `"shape":{"shape_id":${JSON.stringify(String(r[3]))}`;
      const at = props.indexOf(head);
      if (at >= 0) props = `${props.slice(0, at + head.length)},"geometry":${g ?? "null"}${props.slice(at + head.length)}`;
    }
    return { props, geometry: g };
  });
}

async function toItems(data: CatalogData, rows: unknown[][], o: RenderOptions): Promise<Item[]> {
  return (await withGeometry(data, rows, o)).map((r) => toItem(r.props, o.geometryColumn ? r.geometry : null));
}

export function renderOptions(q: TripQuery, single: boolean): RenderOptions {
  const geo = q.format !== "json";
  return { embedGeometry: !geo && (single || q.includeGeometry), geometryColumn: geo, includeAlerts: q.includeAlerts };
}

const toItem = (props: string, geometry: string | null): Item => ({
  json: props,
  feature: `{"type":"Feature","geometry":${geometry ?? "null"},"properties":${props}}`,
});

/** One page of trips: ids first (limit + 1, to know about a next page), then their documents. */
export async function findTripPage(data: CatalogData, scope: TripScope, q: TripQuery, requestUrl: string, nextUrl: (u: string, after: number) => string) {
  const limit = q.limit!;
  const fp = new Params();
  const ids = (await data.db.rows(fp.query(filterSql(fp, scope, q, null, limit + 1)))).map((r) => Number(r[0]));
  const pageIds = ids.slice(0, limit);
  const after = ids.length > limit ? pageIds[pageIds.length - 1]! : null;
  const page: Page = { after, next: after === null ? null : nextUrl(requestUrl, after) };
  const rp = new Params();
  // the id range lets DuckDB skip row groups of every joined table's probe side
  const range = pageIds.length ? `t.id BETWEEN ${rp.add(pageIds[0]!, INTEGER)} AND ${rp.add(pageIds[pageIds.length - 1]!, INTEGER)} AND ` : "";
  const render: Query = rp.query(renderSql(`${range}${inList(rp, "t.id", pageIds.length ? pageIds : [0])}`, renderOptions(q, false)));
  return { render, page, count: pageIds.length };
}

/** Render query for every matching trip (geojsonl without a limit). */
export function allTripsQuery(scope: TripScope, q: TripQuery): Query {
  const p = new Params();
  const filter = filterSql(p, scope, q, null, null);
  return p.query(renderSql(`${inList(p, "t.route_ref", scope.routeIds)} AND t.id IN (${filter})`, renderOptions(q, false)));
}

export async function runRender(data: CatalogData, render: Query, o: RenderOptions): Promise<Item[]> {
  return toItems(data, await data.db.rows(render), o);
}

export async function* streamRender(data: CatalogData, render: Query, o: RenderOptions): AsyncGenerator<Item[]> {
  for await (const rows of data.db.stream(render)) yield await toItems(data, rows, o);
}

const hms = (t: unknown) => {
  if (t == null) return null;
  const s = Number(t);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${pad(Math.floor(s / 3600))}:${pad(Math.floor((s % 3600) / 60))}:${pad(s % 60)}`;
};

/** stop_times of one trip as a JSON array. */
async function stopTimesJson(data: CatalogData, fv: number, tripId: number): Promise<string> {
  const path = data.versions.get(fv)?.stopTimesPath;
  if (!data.stopTimesInMemory && !path) return "[]";
  const source = data.stopTimesInMemory ? "stop_times" : `read_parquet(${sqlString(path!)})`;
  const p = new Params();
  const rows = await data.db.rows(
    p.query(
      `SELECT arrival_time, departure_time, stop_sequence, stop_headsign, pickup_type, drop_off_type, timepoint, interpolated, stop_ref
       FROM ${source} WHERE trip_ref = ${p.add(tripId, INTEGER)} ORDER BY stop_sequence`,
    ),
  );
  const parts = rows.map(([arr, dep, seq, headsign, pickup, dropoff, timepoint, interpolated, stopRef]) => {
    const d = stopRef == null ? undefined : data.stops.get(Number(stopRef));
    const stop = d
      ? `{"id":${d.id},"stop_id":${JSON.stringify(d.stopId)},"stop_name":${JSON.stringify(d.stopName)},"geometry":${d.geometry},"alerts":[]}`
      : "null";
    return (
      `{"arrival_time":${JSON.stringify(hms(arr))},"departure_time":${JSON.stringify(hms(dep))},"stop_sequence":${Number(seq)},` +
      `"stop_headsign":${JSON.stringify(headsign || null)},"pickup_type":${pickup ?? null},"drop_off_type":${dropoff ?? null},` +
      `"timepoint":${timepoint ?? null},"interpolated":${interpolated ?? null},"stop":${stop}}`
    );
  });
  return `[${parts.join(",")}]`;
}

/** One trip by internal id, with stop_times and geometry; 404 when the route or filters exclude it. */
export async function findTrip(data: CatalogData, scope: TripScope, q: TripQuery, tripId: number): Promise<Item> {
  const p = new Params();
  const filter = filterSql(p, scope, q, tripId, 1);
  const o = renderOptions(q, true);
  const rows = await data.db.rows(p.query(renderSql(`t.id = ${p.add(tripId, INTEGER)} AND t.id IN (${filter})`, o)));
  const row = rows[0];
  if (!row) throw notFound(`trip not found: ${tripId} (not a trip of this route, or excluded by the request's filters)`);
  const [r] = await withGeometry(data, [row], o);
  const json = `${r!.props.slice(0, -1)},"stop_times":${await stopTimesJson(data, Number(row[1]), tripId)}}`;
  return toItem(json, o.geometryColumn ? r!.geometry : null);
}
