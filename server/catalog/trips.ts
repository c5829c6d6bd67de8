/**
 * Trips of a route, answered from the JS trip index built at load (tripindex.ts): the route's
 * trips (in id order) are filtered by version, service date, trip_id, id and cursor in JS, and each
 * Trip document is assembled from per-dataset pieces rendered once (feed version, route, calendar,
 * frequencies) plus the trip's own columns. The lat/lon filter asks the spatial index (spatial.ts)
 * which stop patterns pass near the point. stop_times (single trip only) come from the index's
 * per-trip row range, or from the version's Parquet file when the dataset is too large to hold them.
 */
import { INTEGER } from "@duckdb/node-api";
import { notFound } from "../errors.ts";
import { Params } from "./db.ts";
import { sqlString } from "../../shared/sql.ts";
import { effectiveServiceDate, resolveRelativeDate } from "./dates.ts";
import { dayNumber, isoWeekday } from "../../shared/time.ts";
import { activeOn } from "../../shared/service-calendar.ts";
import type { TripQuery } from "./params.ts";
import { type Item, renderedInBatches } from "./listing.ts";
import { type AlertLookup, NO_ALERTS, routeWithAlerts, stopRefWithAlerts } from "./alerts.ts";
import { projectStopTimes, realtimeStopFields, type ScheduledStop, scheduleRelationship, serviceDayStart } from "./trip-updates.ts";
import type { TripUpdateLookup } from "../trip-updates.ts";
import { parseKey, resolveRouteKey, visibleVersions } from "./scope.ts";
import type { CatalogData } from "./data.ts";
import { FLEX_ST_COLUMNS, FlexIndex, flexStopTime, type FlexStopTime, hasColumns, NULL_I32 } from "./tripindex.ts";

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

/** Stop patterns (per feed version) that visit a stop near the request's point (the spatial index's answer). */
function nearPatterns(data: CatalogData, scope: TripScope, q: TripQuery): Map<number, Set<number>> {
  return data.spatial.patternsNear(q.near!, new Set(scope.versionIds));
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
  const near = q.near ? nearPatterns(data, scope, q) : null;
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
  /** the request's realtime alerts (include_alerts=true), else null */
  alerts: AlertLookup | null;
  /** the realtime trip updates served now (schedule_relationship, stop_times' realtime fields), or null */
  updates?: TripUpdateLookup | null;
  /** the request's time, ms (a trip update without start_date is for the service day of its snapshot) */
  nowMs?: number;
}

export function renderOptions(q: TripQuery, single: boolean, alerts: AlertLookup | null = null, updates: TripUpdateLookup | null = null, nowMs = 0): RenderOptions {
  const geo = q.format !== "json";
  return { embedGeometry: !geo && (single || q.includeGeometry), geometryColumn: geo, alerts: q.includeAlerts ? (alerts ?? NO_ALERTS.lookup(0, false)) : null, updates, nowMs };
}

const str = (s: string | null) => (s === null ? "null" : JSON.stringify(s));
const int = (v: number) => (v === NULL_I32 ? "null" : String(v));

export const feedOf = (data: CatalogData, t: number) => data.versions.get(data.trips.fv[t]!)?.feedOnestopId ?? "";

/** The trip's route object (with its agency), carrying their alerts when the request asks for alerts. */
export function routeJson(data: CatalogData, t: number, alerts: AlertLookup | null): string {
  const json = data.trips.routeJson.get(data.trips.route[t]!);
  const r = data.routes.get(data.trips.route[t]!);
  if (json === undefined) return "null";
  return alerts && r ? routeWithAlerts(json, alerts, feedOf(data, t), r.routeId, r.agencyId) : json;
}

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
    `"schedule_relationship":"${o.updates ? scheduleRelationship(o.updates.trip(feedOf(data, t), ix.tripId.get(t)!)) : "STATIC"}","stop_pattern_id":${int(ix.pattern[t]!)},"feed_version":${ix.versionJson.get(ix.fv[t]!) ?? "null"},` +
    `"shape":${shape},"calendar":${ix.calendars.get(ix.calendar[t]!)?.json ?? "null"},"frequencies":${ix.frequencies.get(t) ?? "[]"},` +
    `"alerts":${o.alerts ? o.alerts.trip(feedOf(data, t), ix.tripId.get(t)!) : "null"},"route":${routeJson(data, t, o.alerts)}` +
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
export function streamTrips(data: CatalogData, indexes: Iterable<number>, o: RenderOptions, end?: () => void, batch = 100): AsyncGenerator<Item[]> {
  return renderedInBatches(indexes, (t) => renderTrip(data, t, o), batch, end);
}

const pad = (n: number) => (n < 10 ? `0${n}` : String(n));
const hms = (s: number | null) => (s === null ? "null" : `"${pad(Math.floor(s / 3600))}:${pad(Math.floor((s % 3600) / 60))}:${pad(s % 60)}"`);

function stopTimeJson(
  data: CatalogData, arr: number | null, dep: number | null, seq: number | null, headsign: string | null, flags: (number | null)[], stopRef: number | null,
  alerts: AlertLookup | null = null, flex: FlexStopTime | null = null, fv = 0,
): string {
  const d = stopRef === null ? undefined : data.stops.get(stopRef);
  const stop = d && alerts ? stopRefWithAlerts(d.ref, alerts, data.versions.get(d.fv)?.feedOnestopId ?? "", d.stopId) : d?.ref;
  return (
    `{"arrival_time":${hms(arr)},"departure_time":${hms(dep)},"stop_sequence":${Number(seq)},"stop_headsign":${str(headsign || null)},` +
    `"pickup_type":${flags[0]},"drop_off_type":${flags[1]},"timepoint":${flags[2]},"interpolated":${flags[3]},"stop":${stop ?? "null"}` +
    (flex ? flexFields(data, flex, fv) : "") + "}"
  );
}

/**
 * Interchange's GTFS-Flex fields of a stop_time (only on stop_times that have them): the zone or the
 * location group served instead of a stop, the pickup/drop-off window, the booking rules' ids.
 */
function flexFields(data: CatalogData, f: FlexStopTime, fv: number): string {
  const flex = data.trips.flex;
  let location = "null";
  if (f.locationId !== null) {
    location = flex.zones.get(FlexIndex.key(fv, f.locationId)) ?? `{"type":"location","id":${JSON.stringify(f.locationId)},"name":null,"geometry":null}`;
  } else if (f.groupId !== null) {
    const g = flex.groups.get(FlexIndex.key(fv, f.groupId));
    const stops = (g?.stops ?? []).map((ref) => data.stops.get(ref)?.ref).filter((x) => x !== undefined);
    location = `{"type":"location_group","id":${JSON.stringify(f.groupId)},"name":${str(g?.name ?? null)},"stops":[${stops.join(",")}]}`;
  }
  return (
    `,"location":${location},"start_pickup_drop_off_window":${hms(f.start)},"end_pickup_drop_off_window":${hms(f.end)},` +
    `"pickup_booking_rule_id":${str(f.pickupRule)},"drop_off_booking_rule_id":${str(f.dropOffRule)}`
  );
}

/** whether a version's stop_times.parquet has the GTFS-Flex columns (versions imported before them do not), by path */
const flexColumnsIn = new Map<string, Promise<boolean>>();

/** stop_times of trip index `t` as a JSON array. */
async function stopTimesJson(data: CatalogData, t: number, alerts: AlertLookup | null = null, o: RenderOptions | null = null): Promise<string> {
  const ix = data.trips;
  const st = ix.stopTimes;
  const parts: string[] = [];
  const sched: ScheduledStop[] = [];
  const stopIdOf = (ref: number | null) => (ref === null ? "" : (data.stops.get(ref)?.stopId ?? ""));
  if (st) {
    const flags: (number | null)[] = [null, null, null, null];
    for (let i = st.offsets[t]!, end = st.offsets[t + 1]!; i < end; i++) {
      for (let k = 0; k < 4; k++) flags[k] = st.flags.get(i, k);
      const h = st.headsign.get(i);
      parts.push(stopTimeJson(data, st.arrival.get(i), st.departure(i), st.seq.get(i), h === null ? null : st.headsigns[h]!, flags, st.stop.get(i), alerts, ix.flex.rows.get(i) ?? null, ix.fv[t]!));
      sched.push({ seq: Number(st.seq.get(i)), stopId: stopIdOf(st.stop.get(i)), arr: st.arrival.get(i), dep: st.departure(i) });
    }
    return `[${withRealtime(data, t, parts, sched, o).join(",")}]`;
  }
  const path = data.versions.get(ix.fv[t]!)?.stopTimesPath;
  if (!path) return "[]";
  const p = new Params();
  let withFlex = flexColumnsIn.get(path);
  if (!withFlex) flexColumnsIn.set(path, (withFlex = hasColumns(data.db, `read_parquet(${sqlString(path)})`, FLEX_ST_COLUMNS)));
  const flexCols = (await withFlex) ? `, ${FLEX_ST_COLUMNS.join(", ")}` : "";
  const rows = await data.db.rows(
    p.query(
      `SELECT arrival_time, departure_time, stop_sequence, stop_headsign, pickup_type, drop_off_type, timepoint, interpolated, stop_ref${flexCols}
       FROM read_parquet(${sqlString(path)}) WHERE trip_ref = ${p.add(ix.ids[t]!, INTEGER)} ORDER BY stop_sequence`,
    ),
  );
  for (const [arr, dep, seq, headsign, pickup, dropoff, timepoint, interpolated, stopRef, ...flex] of rows) {
    const n = (v: unknown) => (v == null ? null : Number(v));
    parts.push(stopTimeJson(data, n(arr), n(dep), n(seq), (headsign as string | null) ?? null, [n(pickup), n(dropoff), n(timepoint), n(interpolated)], n(stopRef), alerts, flexStopTime(flex), ix.fv[t]!));
    sched.push({ seq: Number(seq), stopId: stopIdOf(n(stopRef)), arr: n(arr), dep: n(dep) });
  }
  return `[${withRealtime(data, t, parts, sched, o).join(",")}]`;
}

/** Each stop_time object with its realtime fields (trip-updates.ts), null without an update for the trip. */
function withRealtime(data: CatalogData, t: number, parts: string[], sched: ScheduledStop[], o: RenderOptions | null): string[] {
  if (!o?.updates) return parts;
  const u = o.updates.trip(feedOf(data, t), data.trips.tripId.get(t)!);
  const rt = projectStopTimes(sched, u, u ? serviceDayStart(u, data.versions.get(data.trips.fv[t]!)?.timezone ?? "UTC", o.nowMs ?? 0) : 0);
  return parts.map((p, i) => `${p.slice(0, -1)}${realtimeStopFields(rt[i] ?? null)}}`);
}

/** One trip by internal id, with stop_times and geometry; 404 when the route or filters exclude it. */
export async function findTrip(data: CatalogData, scope: TripScope, q: TripQuery, tripId: number, alerts: AlertLookup | null = null, updates: TripUpdateLookup | null = null, nowMs = 0): Promise<Item> {
  const ix = data.trips;
  const t = ix.indexOf(tripId);
  const ok = t >= 0 && scope.routeIds.includes(ix.route[t]!) && (await tripFilter(data, scope, q))(t);
  if (!ok) throw notFound(`trip not found: ${tripId} (not a trip of this route, or excluded by the request's filters)`);
  const o = renderOptions(q, true, alerts, updates, nowMs);
  return renderTrip(data, t, o, await stopTimesJson(data, t, o.alerts, o));
}
