/**
 * The catalog's one distance rule: great-circle distance by the haversine formula on a sphere of
 * the mean Earth radius (shared/geo.ts; the SQL form is its haversineSql), with a lat/lon bounding box in front. Two forms of the
 * same test: `nearSql` (plain SQL, no spatial extension) and `isNear` (JS, for the in-memory
 * spatial index, spatial.ts). Both evaluate box AND haversine with the same operations in the same
 * order, so they answer alike.
 */
import { DOUBLE } from "@duckdb/node-api";
import type { Params } from "./db.ts";
import type { Near } from "./params.ts";
import { EARTH_RADIUS_M, haversineM, haversineSql } from "../../shared/geo.ts";

const M_PER_DEG_LAT = (Math.PI * EARTH_RADIUS_M) / 180;

/** The box in front of the haversine test: a slightly widened superset of the circle. */
export interface NearBox {
  minLat: number;
  maxLat: number;
  /** null when the box spans every longitude (near a pole, or a huge radius) */
  minLon: number | null;
  maxLon: number | null;
}

export function nearBox(near: Near): NearBox {
  const dLat = (near.radius / M_PER_DEG_LAT) * 1.01 + 1e-6;
  const cosLat = Math.cos((Math.min(89.9, Math.abs(near.lat) + dLat) * Math.PI) / 180);
  const dLon = Math.min(360, dLat / Math.max(cosLat, 1e-6));
  const wrap = dLon >= 180;
  return { minLat: near.lat - dLat, maxLat: near.lat + dLat, minLon: wrap ? null : near.lon - dLon, maxLon: wrap ? null : near.lon + dLon };
}

/**
 * SQL condition: the row's (lat, lon) columns lie within `near.radius` meters of the point.
 * The bounding box is a slightly widened superset, so the haversine test alone decides.
 */
export function nearSql(p: Params, near: Near, latCol: string, lonCol: string): string {
  const b = nearBox(near);
  const d = (x: number) => p.add(x, DOUBLE);
  const lat = d(near.lat);
  const lon = d(near.lon);
  const box = `${latCol} BETWEEN ${d(b.minLat)} AND ${d(b.maxLat)}` + (b.minLon === null ? "" : ` AND ${lonCol} BETWEEN ${d(b.minLon)} AND ${d(b.maxLon!)}`);
  const hav = `${haversineSql(lat, lon, latCol, lonCol)} <= ${d(near.radius)}`;
  return `(${box} AND ${hav})`;
}

/** JS form of nearSql for one point (`box` = nearBox(near), computed once per request). */
export function isNear(near: Near, box: NearBox, lat: number, lon: number): boolean {
  if (lat < box.minLat || lat > box.maxLat) return false;
  if (box.minLon !== null && (lon < box.minLon || lon > box.maxLon!)) return false;
  return haversineM(near.lat, near.lon, lat, lon) <= near.radius;
}
