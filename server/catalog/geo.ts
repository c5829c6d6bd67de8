/**
 * Plain-SQL geometry (no spatial extension): great-circle distance by the haversine formula on a
 * sphere of the mean Earth radius, with a lat/lon bounding box in front so DuckDB can skip most rows.
 */
import { DOUBLE } from "@duckdb/node-api";
import type { Params } from "./db.ts";
import type { Near } from "./params.ts";
import { EARTH_RADIUS_M } from "../geo.ts";

const M_PER_DEG_LAT = (Math.PI * EARTH_RADIUS_M) / 180;

/**
 * SQL condition: the row's (lat, lon) columns lie within `near.radius` meters of the point.
 * The bounding box is a slightly widened superset, so the haversine test alone decides.
 */
export function nearSql(p: Params, near: Near, latCol: string, lonCol: string): string {
  const dLat = (near.radius / M_PER_DEG_LAT) * 1.01 + 1e-6;
  const cosLat = Math.cos((Math.min(89.9, Math.abs(near.lat) + dLat) * Math.PI) / 180);
  const dLon = Math.min(360, dLat / Math.max(cosLat, 1e-6));
  const d = (x: number) => p.add(x, DOUBLE);
  const lat = d(near.lat);
  const lon = d(near.lon);
  const box =
    `${latCol} BETWEEN ${d(near.lat - dLat)} AND ${d(near.lat + dLat)}` +
    (dLon >= 180 ? "" : ` AND ${lonCol} BETWEEN ${d(near.lon - dLon)} AND ${d(near.lon + dLon)}`);
  const hav =
    `2 * ${EARTH_RADIUS_M} * asin(least(1, sqrt(pow(sin(radians(${latCol} - ${lat}) / 2), 2) + ` +
    `cos(radians(${lat})) * cos(radians(${latCol})) * pow(sin(radians(${lonCol} - ${lon}) / 2), 2)))) <= ${d(near.radius)}`;
  return `(${box} AND ${hav})`;
}
