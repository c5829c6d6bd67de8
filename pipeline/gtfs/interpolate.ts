/**
 * Interpolation of stop_times without times, by distance along the trip's shape
 * (https://gtfs.org/documentation/schedule/reference/#stop_timestxt: "arrival_time ... interpolated").
 * Distances, in order of preference: the feed's shape_dist_traveled when the trip gives it at
 * every stop and it never decreases; else each stop projected onto the trip's shape (searching
 * forward from the previous stop's projection, so loops are followed in order); else the
 * cumulative straight-line distance between the stops.
 */
import { EARTH_RADIUS_M, haversineM } from "../../shared/geo.ts";

export interface StopRow {
  rid: number;
  arr: number | null;
  dep: number | null;
  lat: number;
  lon: number;
  sd: number | null;
}

const R = EARTH_RADIUS_M;
const rad = Math.PI / 180;

/** Distance of each stop along the polyline (lat/lon pairs), in meters, never decreasing. */
export function projectAlong(points: Array<[number, number]>, stops: Array<[number, number]>): number[] {
  const cum = [0];
  for (let i = 1; i < points.length; i++) cum.push(cum[i - 1]! + haversineM(points[i - 1]![0], points[i - 1]![1], points[i]![0], points[i]![1]));
  const out: number[] = [];
  let seg = 0, lastT = 0;
  for (const [lat, lon] of stops) {
    const kx = Math.cos(lat * rad) * R * rad, ky = R * rad; // local equirectangular meters per degree
    let best = Infinity, bestSeg = seg, bestT = 0;
    for (let i = seg; i < points.length - 1; i++) {
      const [aLat, aLon] = points[i]!, [bLat, bLon] = points[i + 1]!;
      const ax = (aLon - lon) * kx, ay = (aLat - lat) * ky, bx = (bLon - lon) * kx, by = (bLat - lat) * ky;
      const dx = bx - ax, dy = by - ay, len2 = dx * dx + dy * dy;
      let t = len2 > 0 ? -(ax * dx + ay * dy) / len2 : 0;
      if (i === seg && t < lastT) t = lastT;
      t = Math.max(0, Math.min(1, t));
      const px = ax + t * dx, py = ay + t * dy;
      const d = px * px + py * py;
      if (d < best - 1e-9) { best = d; bestSeg = i; bestT = t; }
    }
    seg = bestSeg;
    lastT = bestT;
    const segLen = seg < points.length - 1 ? cum[seg + 1]! - cum[seg]! : 0;
    out.push(cum[seg]! + bestT * segLen);
  }
  return out;
}

/** Fill arr/dep of untimed stops (rows in stop order); returns [rid, time] of the filled ones. */
export function interpolateTrip(rows: StopRow[], shape: Array<[number, number]> | null): Array<[number, number]> {
  let d: number[];
  const sdOk = rows.every((r, i) => r.sd != null && (i === 0 || r.sd >= rows[i - 1]!.sd!));
  if (sdOk) d = rows.map((r) => r.sd!);
  else if (shape && shape.length >= 2) d = projectAlong(shape, rows.map((r) => [r.lat, r.lon]));
  else {
    d = [0];
    for (let i = 1; i < rows.length; i++) d.push(d[i - 1]! + haversineM(rows[i - 1]!.lat, rows[i - 1]!.lon, rows[i]!.lat, rows[i]!.lon));
  }
  const out: Array<[number, number]> = [];
  let prev = -1;
  for (let i = 0; i < rows.length; i++) {
    if (rows[i]!.arr != null) { prev = i; continue; }
    let next = i + 1;
    while (next < rows.length && rows[next]!.arr == null) next++;
    if (prev < 0 || next >= rows.length) continue; // terminal without time: the trip was already refused
    const t0 = rows[prev]!.dep!, t1 = rows[next]!.arr!;
    const span = d[next]! - d[prev]!;
    const f = span > 0 ? Math.min(1, Math.max(0, (d[i]! - d[prev]!) / span)) : (i - prev) / (next - prev);
    out.push([rows[i]!.rid, Math.round(t0 + (t1 - t0) * f)]);
  }
  return out;
}
