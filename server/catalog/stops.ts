/**
 * Stops: DuckDB filters and orders (returning ids), the stop documents rendered at load time
 * supply the bodies. Order is by internal id; the `after` cursor is the last id of a page.
 */
import { INTEGER, LIST, listValue, VARCHAR } from "@duckdb/node-api";
import { notFound } from "../errors.ts";
import { Params, type Query } from "./db.ts";
import { nearSql } from "./geo.ts";
import type { StopQuery } from "./params.ts";
import type { Item } from "./listing.ts";
import { resolveStopKey, visibleVersions } from "./scope.ts";
import type { CatalogData, StopDoc } from "./store.ts";

export const stopItem = (d: StopDoc): Item => ({ props: d.propsOpen, geometry: d.geometry, geometryInJson: true });

const intList = (xs: number[]) => listValue(xs);
const INT_LIST = LIST(INTEGER);
const STR_LIST = LIST(VARCHAR);

/** The filtering query: ids of matching stops in id order, `limit` rows at most (null = all). */
export function stopIdsQuery(data: CatalogData, q: StopQuery, limit: number | null): Query {
  const p = new Params();
  const where: string[] = [`list_contains(${p.add(intList([...visibleVersions(data, q, false)]), INT_LIST)}, s.feed_version_id)`];
  if (q.after > 0) where.push(`s.id > ${p.add(q.after, INTEGER)}`);
  if (q.bbox) {
    const b = q.bbox;
    where.push(`s.stop_lon BETWEEN ${p.add(b.minLon)}::DOUBLE AND ${p.add(b.maxLon)}::DOUBLE`);
    where.push(`s.stop_lat BETWEEN ${p.add(b.minLat)}::DOUBLE AND ${p.add(b.maxLat)}::DOUBLE`);
  }
  if (q.near) where.push(nearSql(p, q.near, "s.stop_lat", "s.stop_lon"));
  if (q.locationType !== null) where.push(`coalesce(s.location_type, 0) = ${p.add(q.locationType, INTEGER)}`);
  if (q.stopId !== null) where.push(`s.stop_id = ${p.add(q.stopId, VARCHAR)}`);
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

/** One page of stops (limit + 1 rows fetched to know whether a next page exists) and the next page's cursor. */
export async function findStopPage(data: CatalogData, q: StopQuery): Promise<{ items: Item[]; after: number | null }> {
  const limit = q.limit!;
  const rows = await data.db.rows(stopIdsQuery(data, q, limit + 1));
  const docs = rows.slice(0, limit).map((r) => data.stops.get(Number(r[0]))!);
  const more = rows.length > limit;
  return { items: docs.map(stopItem), after: more ? docs[docs.length - 1]!.id : null };
}

/** Every matching stop, streamed chunk by chunk; `end` runs when the stream finishes. */
export async function* streamStops(data: CatalogData, q: StopQuery, end?: () => void): AsyncGenerator<Item[]> {
  try {
    for await (const rows of data.db.stream(stopIdsQuery(data, q, null))) {
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
