/**
 * Stops: DuckDB filters and orders (returning ids), the stop documents rendered at load time
 * supply the bodies. Order is by internal id; the `after` cursor is the last id of a page.
 *
 * Geographic searches (bbox, lat/lon/radius) start from the spatial index (spatial.ts): it gives
 * the matching stop ids in id order, and the other filters run over them in JS (version, cursor,
 * location_type, stop_id, onestop_id), or, for served_by_onestop_ids / served_by_route_types
 * (which need the route_stops / agency_stops tables) and stop_code, in DuckDB with those ids in place of the area
 * condition. Either way the answer is the one the plain SQL form (geo.ts nearSql and a BETWEEN box)
 * gives.
 */
import { INTEGER, LIST, listValue, VARCHAR } from "@duckdb/node-api";
import { notFound } from "../errors.ts";
import { Params, type Query } from "./db.ts";
import type { StopQuery } from "./params.ts";
import type { Item } from "./listing.ts";
import { resolveStopKey, visibleVersions } from "./scope.ts";
import type { CatalogData, StopDoc } from "./data.ts";

export const stopItem = (d: StopDoc): Item => ({ props: d.propsOpen, geometry: d.geometry, geometryInJson: true });

const intList = (xs: ArrayLike<number>) => listValue(Array.from(xs));
const INT_LIST = LIST(INTEGER);
const STR_LIST = LIST(VARCHAR);
/** rows per batch when a geographic search streams every match */
const STREAM_BATCH = 2048;

const isGeographic = (q: StopQuery) => q.bbox !== null || q.near !== null;
/** filters only DuckDB can apply (the served-by tables), or whose SQL meaning (or field: stop_code) a stop document does not carry */
const needsDuckDb = (q: StopQuery) => q.servedByRouteOnestopIds.length > 0 || q.servedByAgencyOnestopIds.length > 0 || q.servedByRouteTypes !== null || q.onestopId === "" || q.stopCode !== null;

/**
 * The filtering query: ids of matching stops in id order, `limit` rows at most (null = all).
 * `areaIds`: for a geographic search, the ids the spatial index matched (they replace the area condition).
 */
export function stopIdsQuery(data: CatalogData, q: StopQuery, limit: number | null, areaIds: Int32Array | null = null): Query {
  if (isGeographic(q) && !areaIds) throw new Error("a geographic stop search takes its ids from the spatial index");
  const p = new Params();
  const where: string[] = [`list_contains(${p.add(intList([...visibleVersions(data, q, false)]), INT_LIST)}, s.feed_version_id)`];
  if (q.after > 0) where.push(`s.id > ${p.add(q.after, INTEGER)}`);
  if (areaIds) where.push(`s.id IN (SELECT unnest(${p.add(intList(areaIds), INT_LIST)}))`);
  if (q.locationType !== null) where.push(`coalesce(s.location_type, 0) = ${p.add(q.locationType, INTEGER)}`);
  if (q.stopId !== null) where.push(`s.stop_id = ${p.add(q.stopId, VARCHAR)}`);
  if (q.stopCode !== null) where.push(`s.stop_code = ${p.add(q.stopCode, VARCHAR)}`);
  if (q.onestopId !== null) where.push(`s.onestop_id = ${p.add(q.onestopId, VARCHAR)}`);
  const served: string[] = [];
  if (q.servedByRouteOnestopIds.length) {
    served.push(`SELECT stop_ref FROM route_stops WHERE list_contains(${p.add(listValue(q.servedByRouteOnestopIds), STR_LIST)}, route_onestop_id)`);
  }
  if (q.servedByAgencyOnestopIds.length) {
    served.push(`SELECT stop_ref FROM agency_stops WHERE list_contains(${p.add(listValue(q.servedByAgencyOnestopIds), STR_LIST)}, agency_onestop_id)`);
  }
  if (served.length) where.push(`s.id IN (${served.join(" UNION ")})`);
  if (q.servedByRouteTypes) {
    where.push(`s.id IN (SELECT stop_ref FROM route_stops WHERE list_contains(${p.add(intList(q.servedByRouteTypes), INT_LIST)}, route_type))`);
  }
  const lim = limit === null ? "" : ` LIMIT ${p.add(limit, INTEGER)}`;
  return p.query(`SELECT s.id FROM stops s WHERE ${where.join(" AND ")} ORDER BY s.id${lim}`);
}

/** The area's stop ids after the cursor, in id order (the spatial index's answer). */
function areaIds(data: CatalogData, q: StopQuery): Int32Array {
  const ids = data.spatial.selectIds(q.bbox, q.near);
  if (q.after <= 0) return ids;
  let lo = 0;
  let hi = ids.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ids[mid]! <= q.after) lo = mid + 1;
    else hi = mid;
  }
  return ids.subarray(lo);
}

/**
 * Documents of a geographic search filtered in JS: the same conditions as stopIdsQuery's (visible
 * version, location_type, stop_id, onestop_id; the cursor is already applied), `limit` at most.
 */
function* areaDocs(data: CatalogData, q: StopQuery, ids: Int32Array, limit: number): Generator<StopDoc> {
  const visible = visibleVersions(data, q, false);
  let n = 0;
  for (let i = 0; i < ids.length && n < limit; i++) {
    const d = data.stops.get(ids[i]!)!;
    if (!visible.has(d.fv)) continue;
    if (q.locationType !== null && d.locationType !== q.locationType) continue;
    if (q.stopId !== null && d.stopId !== q.stopId) continue;
    if (q.onestopId !== null && d.onestopId !== q.onestopId) continue;
    n++;
    yield d;
  }
}

/** Matching stop documents, `limit` at most, in id order. */
async function findStopDocs(data: CatalogData, q: StopQuery, limit: number): Promise<StopDoc[]> {
  let rows: unknown[][];
  if (isGeographic(q)) {
    const ids = areaIds(data, q);
    if (!ids.length) return [];
    if (!needsDuckDb(q)) return [...areaDocs(data, q, ids, limit)];
    rows = await data.db.rows(stopIdsQuery(data, q, limit, ids));
  } else {
    rows = await data.db.rows(stopIdsQuery(data, q, limit));
  }
  return rows.map((r) => data.stops.get(Number(r[0]))!);
}

/** One page of stops (limit + 1 rows fetched to know whether a next page exists) and the next page's cursor. */
export async function findStopPage(data: CatalogData, q: StopQuery): Promise<{ items: Item[]; after: number | null }> {
  const limit = q.limit!;
  const found = await findStopDocs(data, q, limit + 1);
  const docs = found.slice(0, limit);
  const more = found.length > limit;
  return { items: docs.map(stopItem), after: more ? docs[docs.length - 1]!.id : null };
}

/** Every matching stop, streamed chunk by chunk; `end` runs when the stream finishes. */
export async function* streamStops(data: CatalogData, q: StopQuery, end?: () => void): AsyncGenerator<Item[]> {
  try {
    let query: Query;
    if (isGeographic(q)) {
      const ids = areaIds(data, q);
      if (!ids.length) return;
      if (!needsDuckDb(q)) {
        let batch: Item[] = [];
        for (const d of areaDocs(data, q, ids, Infinity)) {
          batch.push(stopItem(d));
          if (batch.length === STREAM_BATCH) {
            yield batch;
            batch = [];
          }
        }
        if (batch.length) yield batch;
        return;
      }
      query = stopIdsQuery(data, q, null, ids);
    } else {
      query = stopIdsQuery(data, q, null);
    }
    for await (const rows of data.db.stream(query)) {
      yield rows.map((r) => stopItem(data.stops.get(Number(r[0]))!));
    }
  } finally {
    end?.();
  }
}

/** The stops a key names, after the request's filters; 404 when the filters leave none. */
export function findStopsByKey(data: CatalogData, key: string, q: StopQuery): Item[] {
  const ids = resolveStopKey(data, key, q);
  const visible = visibleVersions(data, q, /^\d+$/.test(key));
  const docs = ids
    .map((id) => data.stops.get(id)!)
    .filter((d) => visible.has(d.fv))
    .filter((d) => q.locationType === null || d.locationType === q.locationType)
    .sort((a, b) => a.id - b.id);
  if (!docs.length) throw notFound(`stop not found: ${key} (excluded by the request's filters)`);
  return docs.map(stopItem);
}
