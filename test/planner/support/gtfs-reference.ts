/**
 * An independent view of imported feeds for checking the planner: rows read straight from the
 * Parquet catalog with DuckDB, service-day activity computed from calendars, and a connection-scan
 * earliest-arrival search (Dibbelt et al., "Connection Scan Algorithm", 2018) over the same walking
 * rules as the planner (transfers.txt, and straight-line walks within the compile radius), with
 * transfers.txt rows naming routes or trips applied as GTFS says (the most specific matching row
 * wins): exactly, keeping per stop the earliest arrival of every route (of every trip a rule names).
 */
import { join } from "node:path";
import { sql } from "../../support/duck.ts";
import { readManifest, activeVersions } from "../../../pipeline/schema/manifest.ts";
import { serviceDayStart } from "../../../server/planner/timetable/calendar.ts";

export interface RefStopTime { stop: string; seq: number; arr: number; dep: number; pickup: number; drop: number }
export interface RefTrip { key: string; tripId: string; route: string; service: string; tz: string; times: RefStopTime[] }
export interface RefStop { key: string; stopId: string; lat: number; lon: number }
/** a transfers.txt row naming routes or trips, per stop pair (keys feed|id; null: not named) */
export interface RefRule { from: string; to: string; fromRoute: string | null; toRoute: string | null; fromTrip: string | null; toTrip: string | null; type: number; min: number; rank: number }

interface Conn { dep: number; arr: number; from: string; to: string; trip: string; tripKey: string; route: string; pickup: boolean; drop: boolean }
const dayOf = (iso: string) => Math.floor(Date.parse(`${iso}T00:00:00Z`) / 86400_000);

export class GtfsReference {
  trips = new Map<string, RefTrip>(); // key = feed|trip_id
  stops = new Map<string, RefStop>(); // key = feed|stop_id
  active = new Map<string, Set<number>>(); // feed|service_id -> days
  transfers: { from: string; to: string; min: number }[] = [];
  /** rows naming routes or trips (types 0-4) by "from stop>to stop" */
  rules = new Map<string, RefRule[]>();
  /** rule sources: stop -> the stops its rules lead to */
  ruleTargets = new Map<string, Set<string>>();
  /** in-seat rows: "from trip>to trip" -> 4 or 5 */
  inSeat = new Map<string, number>();

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
      const trips = await sql<{ trip_id: string; service_id: string; route_id: string }>(`SELECT trip_id, service_id, route_id FROM ${p("trips")}`);
      for (const t of trips) ref.trips.set(`${f}|${t.trip_id}`, { key: `${f}|${t.trip_id}`, tripId: t.trip_id, route: `${f}|${t.route_id}`, service: `${f}|${t.service_id}`, tz, times: [] });
      const children = new Map<string, string[]>();
      for (const s of await sql<{ stop_id: string; parent_station: string | null }>(`SELECT stop_id, parent_station FROM ${p("stops")} WHERE parent_station IS NOT NULL`)) {
        const k = `${f}|${s.parent_station}`;
        children.set(k, [...(children.get(k) ?? []), `${f}|${s.stop_id}`]);
      }
      const expand = (id: string | null) => (id === null ? [] : (children.get(`${f}|${id}`) ?? [`${f}|${id}`]));
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
      type Row = { from_stop_id: string | null; to_stop_id: string | null; transfer_type: number | null; min_transfer_time: number | null; from_route_id: string | null; to_route_id: string | null; from_trip_id: string | null; to_trip_id: string | null };
      for (const t of await sql<Row>(
        `SELECT from_stop_id, to_stop_id, transfer_type, min_transfer_time, nullif(from_route_id, '') from_route_id, nullif(to_route_id, '') to_route_id, nullif(from_trip_id, '') from_trip_id, nullif(to_trip_id, '') to_trip_id
         FROM ${p("transfers")} WHERE coalesce(from_trip_id,'')<>'' OR coalesce(to_trip_id,'')<>'' OR coalesce(from_route_id,'')<>'' OR coalesce(to_route_id,'')<>''`,
      )) {
        const key = (id: string | null) => (id === null ? null : `${f}|${id}`);
        const ft = key(t.from_trip_id), tt = key(t.to_trip_id);
        const type = t.transfer_type ?? 0;
        if ((ft && !ref.trips.has(ft)) || (tt && !ref.trips.has(tt))) continue;
        const routes = new Set(trips.map((x) => `${f}|${x.route_id}`));
        const fr = ft ? ref.trips.get(ft)!.route : key(t.from_route_id), tr = tt ? ref.trips.get(tt)!.route : key(t.to_route_id);
        if ((fr && !routes.has(fr)) || (tr && !routes.has(tr))) continue;
        if (type >= 4) {
          if (!ft || !tt) continue;
          ref.inSeat.set(`${ft}>${tt}`, type);
          // in-seat: from the arriving trip's last stop to the departing trip's first, staying on (0 s)
          const s = ref.trips.get(ft)!.times.at(-1)?.stop, q = ref.trips.get(tt)!.times[0]?.stop;
          if (type === 5 || !s || !q) continue;
          ref.rules.set(`${s}>${q}`, [...(ref.rules.get(`${s}>${q}`) ?? []), { from: s, to: q, fromRoute: fr, toRoute: tr, fromTrip: ft, toTrip: tt, type, min: 0, rank: 6 }]);
          ref.ruleTargets.set(s, (ref.ruleTargets.get(s) ?? new Set()).add(q));
          continue;
        }
        // GTFS specificity: both trips, a trip and a route, one trip, both routes, one route
        const side = (trip: string | null, route: string | null) => (trip ? 2 : route ? 1 : 0);
        const a = side(ft, fr && !ft ? fr : null), b = side(tt, tr && !tt ? tr : null);
        const rank = a === 2 && b === 2 ? 6 : a + b === 3 ? 5 : a === 2 || b === 2 ? 4 : a + b === 2 ? 3 : 2;
        for (const s of expand(t.from_stop_id)) {
          for (const q of expand(t.to_stop_id)) {
            const k = `${s}>${q}`;
            ref.rules.set(k, [...(ref.rules.get(k) ?? []), { from: s, to: q, fromRoute: fr, toRoute: tr, fromTrip: ft, toTrip: tt, type, min: type === 2 ? (t.min_transfer_time ?? 0) : 0, rank }]);
            ref.ruleTargets.set(s, (ref.ruleTargets.get(s) ?? new Set()).add(q));
          }
        }
      }
    }
    return ref;
  }

  /**
   * Seconds from alighting trip `fromTrip` (route `fromRoute`) at s to boarding trip `toTrip` at q
   * under the most specific rule of the pair (the most restrictive of equally specific ones):
   * Infinity when not possible, null when no rule matches. Walks at `speed` between two stops.
   */
  ruleSeconds(s: string, q: string, fromTrip: string, fromRoute: string, toTrip: string, toRoute: string, speed: number): number | null {
    let best: RefRule | null = null;
    const restrict = (r: RefRule) => (r.type === 3 ? 1e9 : r.type === 2 ? 1e6 + r.min : r.type === 0 ? 1 : r.type === 1 ? 0 : -1);
    for (const r of this.rules.get(`${s}>${q}`) ?? []) {
      if ((r.fromTrip && r.fromTrip !== fromTrip) || (r.toTrip && r.toTrip !== toTrip) || (r.fromRoute && r.fromRoute !== fromRoute) || (r.toRoute && r.toRoute !== toRoute)) continue;
      if (!best || r.rank > best.rank || (r.rank === best.rank && restrict(r) > restrict(best))) best = r;
    }
    if (!best) return null;
    const walk = s === q ? 0 : Math.ceil(dist(this.stops.get(s)!, this.stops.get(q)!) / speed);
    return best.type === 3 ? Infinity : best.type === 2 ? Math.max(best.min, walk) : best.type === 4 ? 0 : walk;
  }

  runsOn(trip: RefTrip, day: number): boolean {
    return this.active.get(trip.service)?.has(day) ?? false;
  }

  /** Earliest arrival (Unix s) at `to` leaving `from` at `t0`, walking as the planner does, unlimited transfers. */
  earliestArrival(from: string, to: string, t0: number, day: number, walkRadiusM: number, walkSpeed: number): number {
    let best = Infinity;
    this.scan(from, t0, day, walkRadiusM, walkSpeed, false, (c) => {
      if (c.to === to) best = Math.min(best, c.arr);
    }, () => best);
    return best;
  }

  /**
   * The connection scan from `from` at t0: `arrive` sees every connection ridden (drop-off
   * allowed); connections leaving at or after `stopAt()` end it. With oneRide only trips boarded at
   * the origin are ridden. Boarding a trip: from the origin, from a stop's ready time (a stay or a
   * walk after a ride, the pairs transfer rules name left out), or from the earliest arrival of a
   * route (of a trip a rule names) at a stop whose rules lead there, under the rule of that pair of trips.
   */
  private scan(from: string, t0: number, day: number, radius: number, speed: number, oneRide: boolean, arrive: (c: Conn) => void, stopAt: () => number = () => Infinity): void {
    const conns = this.connections(day);
    const walks = this.footpaths(radius, speed);
    const ready = new Map<string, number>([[from, t0]]);
    // rule source stop -> class (route, or a trip a rule there names) -> earliest arrival and its trip, route
    const byClass = new Map<string, Map<string, { a: number; trip: string; route: string }>>();
    const named = new Set<string>();
    for (const rs of this.rules.values()) for (const r of rs) if (r.fromTrip) named.add(`${r.from}>${r.fromTrip}`);
    const rulePair = (s: string, q: string) => this.ruleTargets.get(s)?.has(q) ?? false;
    const sources = new Map<string, string[]>();
    for (const [s, qs] of this.ruleTargets) for (const q of qs) sources.set(q, [...(sources.get(q) ?? []), s]);
    const onTrip = new Set<string>();
    const boardable = (c: Conn): boolean => {
      if (oneRide) return c.from === from;
      if ((ready.get(c.from) ?? Infinity) <= c.dep) return true;
      for (const s of sources.get(c.from) ?? []) {
        for (const x of byClass.get(s)?.values() ?? []) {
          const sec = this.ruleSeconds(s, c.from, x.trip, x.route, c.tripKey, c.route, speed) ?? (s === c.from ? (walks.get(s)?.get(s) ?? 0) : (walks.get(s)?.get(c.from) ?? Infinity));
          if (x.a + sec <= c.dep) return true;
        }
      }
      return false;
    };
    for (const c of conns) {
      if (c.dep >= stopAt()) break;
      if (c.dep < t0) continue;
      if (!onTrip.has(c.trip)) {
        if (!c.pickup || !boardable(c)) continue;
        onTrip.add(c.trip);
      }
      if (!c.drop) continue;
      arrive(c);
      const w = walks.get(c.to);
      const improve = (q: string, t: number) => {
        if (t < (ready.get(q) ?? Infinity)) ready.set(q, t);
      };
      if (!rulePair(c.to, c.to)) improve(c.to, c.arr + (w?.get(c.to) ?? 0));
      if (w) for (const [q, sec] of w) if (q !== c.to && !rulePair(c.to, q)) improve(q, c.arr + sec);
      if (this.ruleTargets.has(c.to)) {
        const cls = named.has(`${c.to}>${c.tripKey}`) ? c.tripKey : c.route;
        const m = byClass.get(c.to) ?? byClass.set(c.to, new Map()).get(c.to)!;
        if (c.arr < (m.get(cls)?.a ?? Infinity)) m.set(cls, { a: c.arr, trip: c.tripKey, route: c.route });
      }
    }
  }

  /**
   * Earliest arrival (Unix s) at every stop leaving `from` at `t0`: by a ride, or by one walk after a
   * ride (the origin itself at t0). With oneRide only trips boarded at the origin count (maxTransfers=0);
   * walk = false leaves out the walks after rides (arrivals by ride only).
   */
  arrivalsEverywhere(from: string, t0: number, day: number, walkRadiusM: number, walkSpeed: number, oneRide: boolean, walk = true): Map<string, number> {
    const walks = this.footpaths(walkRadiusM, walkSpeed);
    const arrival = new Map<string, number>([[from, t0]]);
    const improve = (k: string, t: number) => {
      if (t < (arrival.get(k) ?? Infinity)) arrival.set(k, t);
    };
    this.scan(from, t0, day, walkRadiusM, walkSpeed, oneRide, (c) => {
      improve(c.to, c.arr);
      if (walk) for (const [q, sec] of walks.get(c.to) ?? []) if (q !== c.to) improve(q, c.arr + sec);
    });
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
          conns.push({ dep: base + a.dep, arr: base + b.arr, from: a.stop, to: b.stop, trip: `${trip.key}@${d}`, tripKey: trip.key, route: trip.route, pickup: a.pickup !== 1, drop: b.drop !== 1 });
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
