/**
 * An independent view of imported feeds for checking the planner: rows read straight from the
 * Parquet catalog with DuckDB, service-day activity computed from calendars, and a connection-scan
 * earliest-arrival search (Dibbelt et al., "Connection Scan Algorithm", 2018) over the same walking
 * rules as the planner (transfers.txt, and straight-line walks within the compile radius).
 */
import { join } from "node:path";
import { sql } from "../../support/duck.ts";
import { readManifest, activeVersions } from "../../../pipeline/schema/manifest.ts";
import { serviceDayStart } from "../../../server/planner/timetable/calendar.ts";

export interface RefStopTime { stop: string; seq: number; arr: number; dep: number; pickup: number; drop: number }
export interface RefTrip { key: string; tripId: string; service: string; tz: string; times: RefStopTime[] }
export interface RefStop { key: string; stopId: string; lat: number; lon: number }

interface Conn { dep: number; arr: number; from: string; to: string; trip: string; pickup: boolean; drop: boolean }
const dayOf = (iso: string) => Math.floor(Date.parse(`${iso}T00:00:00Z`) / 86400_000);

export class GtfsReference {
  trips = new Map<string, RefTrip>(); // key = feed|trip_id
  stops = new Map<string, RefStop>(); // key = feed|stop_id
  active = new Map<string, Set<number>>(); // feed|service_id -> days
  transfers: { from: string; to: string; min: number }[] = [];

  static async load(dataDir: string): Promise<GtfsReference> {
    const ref = new GtfsReference();
    const m = readManifest(dataDir);
    for (const v of activeVersions(m)) {
      const dir = join(dataDir, v.path);
      const p = (t: string) => `read_parquet('${join(dir, `${t}.parquet`)}')`;
      const f = v.sha1;
      const tz = (await sql<{ tz: string }>(`SELECT agency_timezone AS tz FROM ${p("agencies")} LIMIT 1`))[0]!.tz;
      for (const s of await sql<{ stop_id: string; stop_lat: number; stop_lon: number; parent_station: string | null }>(`SELECT stop_id, stop_lat, stop_lon, parent_station FROM ${p("stops")}`)) {
        ref.stops.set(`${f}|${s.stop_id}`, { key: `${f}|${s.stop_id}`, stopId: s.stop_id, lat: s.stop_lat, lon: s.stop_lon });
      }
      for (const c of await sql<Record<string, unknown>>(`SELECT service_id, monday, tuesday, wednesday, thursday, friday, saturday, sunday, CAST(start_date AS VARCHAR) s, CAST(end_date AS VARCHAR) e, list_transform(coalesce(added_dates, []), d -> CAST(d AS VARCHAR)) a, list_transform(coalesce(removed_dates, []), d -> CAST(d AS VARCHAR)) r FROM ${p("calendars")}`)) {
        const days = new Set<number>();
        const wd = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"];
        if (c.s && c.e) for (let d = dayOf(c.s as string); d <= dayOf(c.e as string); d++) if (c[wd[(d + 3) % 7]!] === 1) days.add(d);
        for (const a of c.a as string[]) days.add(dayOf(a));
        for (const r of c.r as string[]) days.delete(dayOf(r));
        ref.active.set(`${f}|${c.service_id}`, days);
      }
      const trips = await sql<{ trip_id: string; service_id: string }>(`SELECT trip_id, service_id FROM ${p("trips")}`);
      for (const t of trips) ref.trips.set(`${f}|${t.trip_id}`, { key: `${f}|${t.trip_id}`, tripId: t.trip_id, service: `${f}|${t.service_id}`, tz, times: [] });
      const st = await sql<{ trip_id: string; stop_id: string; stop_sequence: number; arrival_time: number; departure_time: number; pickup_type: number | null; drop_off_type: number | null }>(
        `SELECT trip_id, stop_id, stop_sequence, arrival_time, departure_time, pickup_type, drop_off_type FROM ${p("stop_times")} ORDER BY trip_id, stop_sequence`,
      );
      for (const r of st) ref.trips.get(`${f}|${r.trip_id}`)?.times.push({ stop: `${f}|${r.stop_id}`, seq: r.stop_sequence, arr: r.arrival_time, dep: r.departure_time, pickup: r.pickup_type ?? 0, drop: r.drop_off_type ?? 0 });
      for (const t of await sql<{ from_stop_id: string; to_stop_id: string; transfer_type: number | null; min_transfer_time: number | null }>(
        `SELECT from_stop_id, to_stop_id, transfer_type, min_transfer_time FROM ${p("transfers")} WHERE coalesce(from_trip_id,'')='' AND coalesce(to_trip_id,'')='' AND coalesce(from_route_id,'')='' AND coalesce(to_route_id,'')=''`,
      )) {
        if (t.transfer_type === 3) continue;
        ref.transfers.push({ from: `${f}|${t.from_stop_id}`, to: `${f}|${t.to_stop_id}`, min: t.transfer_type === 2 ? (t.min_transfer_time ?? 0) : 0 });
      }
    }
    return ref;
  }

  runsOn(trip: RefTrip, day: number): boolean {
    return this.active.get(trip.service)?.has(day) ?? false;
  }

  /** Earliest arrival (Unix s) at `to` leaving `from` at `t0`, walking as the planner does, unlimited transfers. */
  earliestArrival(from: string, to: string, t0: number, day: number, walkRadiusM: number, walkSpeed: number): number {
    const conns = this.connections(day);
    const walks = this.footpaths(walkRadiusM, walkSpeed);
    const ready = new Map<string, number>([[from, t0]]);
    const onTrip = new Set<string>();
    let best = Infinity;
    for (const c of conns) {
      if (c.dep >= best) break;
      if (c.dep < t0) continue;
      if (!onTrip.has(c.trip)) {
        if (!c.pickup || (ready.get(c.from) ?? Infinity) > c.dep) continue;
        onTrip.add(c.trip);
      }
      if (!c.drop) continue;
      if (c.to === to) best = Math.min(best, c.arr);
      const w = walks.get(c.to);
      const stay = c.arr + (w?.get(c.to) ?? 0);
      if (stay < (ready.get(c.to) ?? Infinity)) ready.set(c.to, stay);
      if (w) for (const [q, sec] of w) if (q !== c.to && c.arr + sec < (ready.get(q) ?? Infinity)) ready.set(q, c.arr + sec);
    }
    return best;
  }

  /**
   * Earliest arrival (Unix s) at every stop leaving `from` at `t0`: by a ride, or by one walk after a
   * ride (the origin itself at t0). With oneRide only trips boarded at the origin count (maxTransfers=0);
   * walk = false leaves out the walks after rides (arrivals by ride only).
   */
  arrivalsEverywhere(from: string, t0: number, day: number, walkRadiusM: number, walkSpeed: number, oneRide: boolean, walk = true): Map<string, number> {
    const conns = this.connections(day);
    const walks = this.footpaths(walkRadiusM, walkSpeed);
    const ready = new Map<string, number>([[from, t0]]);
    const arrival = new Map<string, number>([[from, t0]]);
    const onTrip = new Set<string>();
    const improve = (m: Map<string, number>, k: string, t: number) => {
      if (t < (m.get(k) ?? Infinity)) m.set(k, t);
    };
    for (const c of conns) {
      if (c.dep < t0) continue;
      if (!onTrip.has(c.trip)) {
        if (!c.pickup || (oneRide ? c.from !== from : (ready.get(c.from) ?? Infinity) > c.dep)) continue;
        onTrip.add(c.trip);
      }
      if (!c.drop) continue;
      improve(arrival, c.to, c.arr);
      const w = walks.get(c.to);
      improve(ready, c.to, c.arr + (w?.get(c.to) ?? 0));
      if (w) for (const [q, sec] of w) if (q !== c.to) {
        improve(ready, q, c.arr + sec);
        if (walk) improve(arrival, q, c.arr + sec);
      }
    }
    return arrival;
  }

  private connCache = new Map<number, Conn[]>();
  /** Every elementary connection of the trips running on day-1, day and day+1, by departure. */
  connections(day: number): Conn[] {
    const hit = this.connCache.get(day);
    if (hit) return hit;
    const conns: Conn[] = [];
    for (const trip of this.trips.values()) {
      for (const d of [day - 1, day, day + 1]) {
        if (!this.runsOn(trip, d)) continue;
        const base = serviceDayStart(d, trip.tz);
        for (let i = 0; i + 1 < trip.times.length; i++) {
          const a = trip.times[i]!, b = trip.times[i + 1]!;
          conns.push({ dep: base + a.dep, arr: base + b.arr, from: a.stop, to: b.stop, trip: `${trip.key}@${d}`, pickup: a.pickup !== 1, drop: b.drop !== 1 });
        }
      }
    }
    conns.sort((x, y) => x.dep - y.dep || x.arr - y.arr);
    this.connCache.set(day, conns);
    return conns;
  }

  private walkCache: Map<string, Map<string, number>> | null = null;
  /** stop -> stop -> walking seconds (the stop itself -> its same-stop minimum transfer time) */
  footpaths(radius: number, speed: number): Map<string, Map<string, number>> {
    if (this.walkCache) return this.walkCache;
    const served = new Set<string>();
    for (const t of this.trips.values()) for (const s of t.times) served.add(s.stop);
    const stops = [...served].map((k) => this.stops.get(k)!);
    const out = new Map<string, Map<string, number>>();
    const set = (a: string, b: string, sec: number, override = false) => {
      let m = out.get(a);
      if (!m) out.set(a, (m = new Map()));
      if (override || !m.has(b)) m.set(b, sec);
    };
    for (const t of this.transfers) {
      if (!served.has(t.from) || !served.has(t.to)) continue;
      const a = this.stops.get(t.from)!, b = this.stops.get(t.to)!;
      set(t.from, t.to, Math.max(t.min, t.from === t.to ? 0 : Math.ceil(dist(a, b) / speed)), true);
    }
    for (const a of stops) for (const b of stops) if (a !== b && dist(a, b) <= radius) set(a.key, b.key, Math.ceil(dist(a, b) / speed));
    this.walkCache = out;
    return out;
  }
}

export function dist(a: { lat: number; lon: number }, b: { lat: number; lon: number }): number {
  const r = Math.PI / 180;
  const x = Math.sin(((b.lat - a.lat) * r) / 2) ** 2 + Math.cos(a.lat * r) * Math.cos(b.lat * r) * Math.sin(((b.lon - a.lon) * r) / 2) ** 2;
  return 2 * 6371008.8 * Math.asin(Math.min(1, Math.sqrt(x)));
}
