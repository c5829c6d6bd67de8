/**
 * Trips of a route, answered from the JS trip index built at load (tripindex.ts): the route's
 * trips (in id order) are filtered by version, service date, trip_id, id and cursor in JS, and each
 * Trip document is assembled from per-dataset pieces rendered once (feed version, route, calendar,
 * frequencies) plus the trip's own columns. Only the lat/lon filter asks DuckDB (which stop
 * patterns pass near the point). stop_times (single trip only) come from the index's per-trip row
 * range, or from the version's Parquet file when the dataset is too large to hold them.
 */
import { INTEGER, LIST, listValue } from "@duckdb/node-api";
import { notFound } from "../errors.ts";
import { Params } from "./db.ts";
import { sqlString } from "../sql.ts";
import { effectiveServiceDate, resolveRelativeDate } from "./dates.ts";
import { dayNumber, isoWeekday } from "../calendar.ts";
import { activeOn } from "../../pipeline/schema/calendar.ts";
import { nearSql } from "./geo.ts";
import type { TripQuery } from "./params.ts";
import type { Item } from "./listing.ts";
import { parseKey, resolveRouteKey, visibleVersions } from "./scope.ts";
import type { CatalogData } from "./store.ts";
import { NULL_I32 } from "./tripindex.ts";

const INT_LIST = LIST(INTEGER);

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

/** Stop patterns (per feed version) that visit a stop near the request's point. */
async function nearPatterns(data: CatalogData, scope: TripScope, q: TripQuery): Promise<Map<number, Set<number>>> {
  const out = new Map<number, Set<number>>();
  if (!scope.versionIds.length) return out;
  const p = new Params();
  const rows = await data.db.rows(
    p.query(
      `SELECT DISTINCT feed_version_id, stop_pattern_id FROM
         (SELECT feed_version_id, stop_pattern_id, unnest(stop_refs) AS stop_ref FROM stop_patterns
          WHERE list_contains(${p.add(listValue(scope.versionIds), INT_LIST)}, feed_version_id))
       WHERE stop_ref IN (SELECT s.id FROM stops s WHERE ${nearSql(p, q.near!, "s.stop_lat", "s.stop_lon")})`,
    ),
  );
  for (const [fv, pattern] of rows) {
    if (pattern == null) continue;
    let s = out.get(Number(fv));
    if (!s) out.set(Number(fv), (s = new Set()));
    s.add(Number(pattern));
  }
  return out;
}

/**
 * The request's filters (everything but the route) as a predicate over trip indexes: visible
 * version, service on the version's effective date (calendar.txt weekdays and range plus
 * calendar_dates additions, minus removals), id, cursor, trip_id, and lat/lon.
 */
async function tripFilter(data: CatalogData, scope: TripScope, q: TripQuery): Promise<(t: number) => boolean> {
  const ix = data.trips;
  const versions = new Set(scope.versionIds);
  let byDate: Map<number, { day: number; weekday: number; seen: Map<number, boolean> }> | null = null;
  if (scope.dates) {
    byDate = new Map();
    for (const [fv, date] of scope.dates) byDate.set(fv, { day: dayNumber(date), weekday: isoWeekday(date), seen: new Map() });
  }
  const near = q.near ? await nearPatterns(data, scope, q) : null;
  return (t) => {
    const fv = ix.fv[t]!;
    if (!versions.has(fv)) return false;
    const id = ix.ids[t]!;
    if (q.id !== null && id !== q.id) return false;
    if (id <= q.after) return false;
    if (q.tripId !== null && ix.tripId.get(t) !== q.tripId) return false;
    if (byDate) {
      const d = byDate.get(fv);
      if (!d) return false;
      const cal = ix.calendar[t]!;
      let ok = d.seen.get(cal);
      if (ok === undefined) {
        const c = ix.calendars.get(cal);
        ok = c !== undefined && activeOn(c, d.day, d.weekday);
        d.seen.set(cal, ok);
      }
      if (!ok) return false;
    }
    if (near) {
      const pattern = ix.pattern[t]!;
      if (pattern === NULL_I32 || !near.get(fv)?.has(pattern)) return false;
    }
    return true;
  };
}

/** The trips of the scope's routes, as trip indexes in id order. */
function routeTrips(data: CatalogData, scope: TripScope): Int32Array {
  const ix = data.trips;
  const versions = new Set(scope.versionIds);
  const lists: Int32Array[] = [];
  for (const r of scope.routeIds) {
    const list = ix.byRoute.get(r);
    if (list && versions.has(data.routes.get(r)!.fv)) lists.push(list);
  }
  if (lists.length === 1) return lists[0]!;
  const all = new Int32Array(lists.reduce((n, l) => n + l.length, 0));
  let k = 0;
  for (const l of lists) {
    all.set(l, k);
    k += l.length;
  }
  return all.sort();
}

/** Matching trips of a request: a lazy sequence of trip indexes in id order. */
export interface TripSelection {
  matches(): Generator<number>;
}

export async function selectTrips(data: CatalogData, scope: TripScope, q: TripQuery): Promise<TripSelection> {
  const list = routeTrips(data, scope);
  const pred = await tripFilter(data, scope, q);
  const start = data.trips.firstAfter(list, q.after);
  return {
    *matches() {
      for (let k = start; k < list.length; k++) if (pred(list[k]!)) yield list[k]!;
    },
  };
}

/** One page: at most `limit` trip indexes, and the next page's cursor when more rows follow. */
export function tripPage(data: CatalogData, sel: TripSelection, limit: number): { indexes: number[]; after: number | null } {
  const indexes: number[] = [];
  let more = false;
  for (const t of sel.matches()) {
    if (indexes.length === limit) {
      more = true;
      break;
    }
    indexes.push(t);
  }
  return { indexes, after: more ? data.trips.ids[indexes[indexes.length - 1]!]! : null };
}

export interface RenderOptions {
  /** put shape.geometry inside the JSON object (json format) */
  embedGeometry: boolean;
  /** the shape line is the Feature geometry (geojson formats) */
  geometryColumn: boolean;
  includeAlerts: boolean;
}

export function renderOptions(q: TripQuery, single: boolean): RenderOptions {
  const geo = q.format !== "json";
  return { embedGeometry: !geo && (single || q.includeGeometry), geometryColumn: geo, includeAlerts: q.includeAlerts };
}

const str = (s: string | null) => (s === null ? "null" : JSON.stringify(s));
const int = (v: number) => (v === NULL_I32 ? "null" : String(v));

/** One Trip document (field order as in the spec), `stopTimes` appended for the single-trip form. */
function renderTrip(data: CatalogData, t: number, o: RenderOptions, stopTimes: string | null = null): Item {
  const ix = data.trips;
  const shapeId = ix.shapeId.get(t);
  const s = ix.shape[t]!;
  const geometry = shapeId !== null && s >= 0 && (o.embedGeometry || o.geometryColumn) ? ix.shapes.geometry(s) : null;
  const shape =
    shapeId === null
      ? "null"
      : `{"shape_id":${JSON.stringify(shapeId)}${o.embedGeometry ? `,"geometry":${geometry ?? "null"}` : ""},"generated":${s >= 0 && ix.shapes.generated[s] ? "true" : "false"}}`;
  const props =
    `{"id":${ix.ids[t]},"trip_id":${JSON.stringify(ix.tripId.get(t))},"trip_headsign":${str(ix.headsign.get(t))},` +
    `"trip_short_name":${str(ix.shortName.get(t))},"direction_id":${int(ix.direction[t]!)},"block_id":${str(ix.blockId.get(t))},` +
    `"wheelchair_accessible":${int(ix.wheelchair[t]!)},"bikes_allowed":${int(ix.bikes[t]!)},"cars_allowed":${int(ix.cars[t]!)},` +
    `"schedule_relationship":"STATIC","stop_pattern_id":${int(ix.pattern[t]!)},"feed_version":${ix.versionJson.get(ix.fv[t]!) ?? "null"},` +
    `"shape":${shape},"calendar":${ix.calendars.get(ix.calendar[t]!)?.json ?? "null"},"frequencies":${ix.frequencies.get(t) ?? "[]"},` +
    `"alerts":${o.includeAlerts ? "[]" : "null"},"route":${ix.routeJson.get(ix.route[t]!) ?? "null"}` +
    (stopTimes === null ? "" : `,"stop_times":${stopTimes}`);
  return { props, geometry: o.geometryColumn ? (geometry ?? "null") : "null", geometryInJson: false };
}

export function renderTrips(data: CatalogData, indexes: Iterable<number>, o: RenderOptions): Item[] {
  const out: Item[] = [];
  for (const t of indexes) out.push(renderTrip(data, t, o));
  return out;
}

/**
 * Documents in batches, rendered as the response stream pulls them (bodies with shapes, bulk
 * export); `end` runs when the stream finishes.
 */
export async function* streamTrips(data: CatalogData, indexes: Iterable<number>, o: RenderOptions, end?: () => void, batch = 100): AsyncGenerator<Item[]> {
  try {
    let items: Item[] = [];
    for (const t of indexes) {
      items.push(renderTrip(data, t, o));
      if (items.length === batch) {
        yield items;
        items = [];
      }
    }
    if (items.length) yield items;
  } finally {
    end?.();
  }
}

const pad = (n: number) => (n < 10 ? `0${n}` : String(n));
const hms = (s: number | null) => (s === null ? "null" : `"${pad(Math.floor(s / 3600))}:${pad(Math.floor((s % 3600) / 60))}:${pad(s % 60)}"`);

function stopTimeJson(data: CatalogData, arr: number | null, dep: number | null, seq: number | null, headsign: string | null, flags: (number | null)[], stopRef: number | null): string {
  const d = stopRef === null ? undefined : data.stops.get(stopRef);
  return (
    `{"arrival_time":${hms(arr)},"departure_time":${hms(dep)},"stop_sequence":${Number(seq)},"stop_headsign":${str(headsign || null)},` +
    `"pickup_type":${flags[0]},"drop_off_type":${flags[1]},"timepoint":${flags[2]},"interpolated":${flags[3]},"stop":${d ? d.ref : "null"}}`
  );
}

/** stop_times of trip index `t` as a JSON array. */
async function stopTimesJson(data: CatalogData, t: number): Promise<string> {
  const ix = data.trips;
  const st = ix.stopTimes;
  const parts: string[] = [];
  if (st) {
    const flags: (number | null)[] = [null, null, null, null];
    for (let i = st.offsets[t]!, end = st.offsets[t + 1]!; i < end; i++) {
      for (let k = 0; k < 4; k++) flags[k] = st.flags.get(i, k);
      const h = st.headsign.get(i);
      parts.push(stopTimeJson(data, st.arrival.get(i), st.departure(i), st.seq.get(i), h === null ? null : st.headsigns[h]!, flags, st.stop.get(i)));
    }
    return `[${parts.join(",")}]`;
  }
  const path = data.versions.get(ix.fv[t]!)?.stopTimesPath;
  if (!path) return "[]";
  const p = new Params();
  const rows = await data.db.rows(
    p.query(
      `SELECT arrival_time, departure_time, stop_sequence, stop_headsign, pickup_type, drop_off_type, timepoint, interpolated, stop_ref
       FROM read_parquet(${sqlString(path)}) WHERE trip_ref = ${p.add(ix.ids[t]!, INTEGER)} ORDER BY stop_sequence`,
    ),
  );
  for (const [arr, dep, seq, headsign, pickup, dropoff, timepoint, interpolated, stopRef] of rows) {
    const n = (v: unknown) => (v == null ? null : Number(v));
    parts.push(stopTimeJson(data, n(arr), n(dep), n(seq), (headsign as string | null) ?? null, [n(pickup), n(dropoff), n(timepoint), n(interpolated)], n(stopRef)));
  }
  return `[${parts.join(",")}]`;
}

/** One trip by internal id, with stop_times and geometry; 404 when the route or filters exclude it. */
export async function findTrip(data: CatalogData, scope: TripScope, q: TripQuery, tripId: number): Promise<Item> {
  const ix = data.trips;
  const t = ix.indexOf(tripId);
  const ok = t >= 0 && scope.routeIds.includes(ix.route[t]!) && (await tripFilter(data, scope, q))(t);
  if (!ok) throw notFound(`trip not found: ${tripId} (not a trip of this route, or excluded by the request's filters)`);
  return renderTrip(data, t, renderOptions(q, true), await stopTimesJson(data, t));
}
