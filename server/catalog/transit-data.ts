/**
 * The catalog's implementation of the transit-data port (server/transit-data.ts) the GTFS GraphQL
 * API reads: the loaded dataset's JS indexes (store.ts), restricted to the active feed versions.
 * Stop and route records are parsed from the documents rendered at load, once per dataset and
 * entity, on first use; agencies' details are read from DuckDB once per dataset.
 */
import type {
  BoundingBox, CallRealtime, DepartureSearch, TransitAgency, TransitAlert, TransitCall, TransitData, TransitPattern, TransitRoute, TransitSnapshot,
  TransitStop, TransitStopTime, TransitTrip,
} from "../transit-data.ts";
import type { TripUpdate, TripUpdateLookup, TripUpdateSource } from "../trip-updates.ts";
import { dayNumber, dayToIso, serviceDayOf, serviceDayStart as gtfsDayStart } from "../../shared/time.ts";
import { activeOn } from "../../shared/service-calendar.ts";
import { departureCalls, instantWindows } from "./departures.ts";
import { projectStopTimes, type ScheduledStop, serviceDayStart } from "./trip-updates.ts";
import { NO_TRIP_UPDATES } from "./trip-updates.ts";
import { keyOf } from "./data.ts";
import type { CatalogData } from "./store.ts";
import { NULL_I32 } from "./tripindex.ts";

/** The realtime the port reads: trip updates (server/trip-updates.ts) and the alerts as records. */
export interface TransitRealtimeSource {
  updates: TripUpdateSource;
  /** every alert served at `nowMs` (server/realtime), with its informed entities */
  alerts(nowMs: number): TransitAlert[];
}

export const NO_TRANSIT_REALTIME: TransitRealtimeSource = { updates: NO_TRIP_UPDATES, alerts: () => [] };

const nz = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);
const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

class CatalogSnapshot implements TransitSnapshot {
  private readonly stopCache = new Map<number, TransitStop>();
  private readonly routeCache = new Map<number, TransitRoute>();
  private activeStops: Int32Array | null = null;
  private activeRoutes: Int32Array | null = null;
  private readonly active: Set<number>;
  private readonly tripCache = new Map<number, TransitTrip>();
  private tripKeys: Map<string, number> | null = null;
  private activeTrips: Int32Array | null = null;
  private readonly routePatterns = new Map<number, TransitPattern[]>();
  private readonly tripPattern = new Map<number, TransitPattern>();
  private readonly serviceIds = new Map<number, string | null>();
  /** the trip updates of the last clock reading asked (one request's) */
  private lastUpdates: { nowMs: number; lookup: TripUpdateLookup } | null = null;

  constructor(
    private readonly data: CatalogData,
    private readonly agencyDetails: Map<number, TransitAgency>,
    private readonly realtime: TransitRealtimeSource = NO_TRANSIT_REALTIME,
  ) {
    this.active = new Set(data.activeVersionIds);
  }

  private updates(nowMs: number): TripUpdateLookup {
    if (!this.lastUpdates || this.lastUpdates.nowMs !== nowMs) this.lastUpdates = { nowMs, lookup: this.realtime.updates.tripUpdates(nowMs) };
    return this.lastUpdates.lookup;
  }

  private feedOf(fv: number): string {
    return this.data.versions.get(fv)!.feedOnestopId;
  }

  feeds(): string[] {
    return [...new Set([...this.active].map((fv) => this.feedOf(fv)))].sort();
  }

  stop(ref: number): TransitStop | null {
    const cached = this.stopCache.get(ref);
    if (cached) return cached;
    const d = this.data.stops.get(ref);
    if (!d || !this.active.has(d.fv)) return null;
    const p = JSON.parse(`${d.propsOpen}}`) as Record<string, unknown>;
    const s: TransitStop = {
      ref, feed: this.feedOf(d.fv), id: d.stopId, name: d.stopName, code: nz(p.stop_code), desc: nz(p.stop_desc), url: nz(p.stop_url),
      lat: d.lat, lon: d.lon, locationType: d.locationType, parent: d.parentRef, timezone: d.timezone, platformCode: nz(p.platform_code),
      zoneId: nz(p.zone_id), wheelchairBoarding: num(p.wheelchair_boarding),
    };
    this.stopCache.set(ref, s);
    return s;
  }

  private firstActive(refs: number[], get: (ref: number) => unknown): number | null {
    for (const r of refs) if (get(r)) return r;
    return null;
  }

  stopById(feed: string, id: string): TransitStop | null {
    const ref = this.firstActive(this.data.stopsByFeed(feed, id), (r) => this.stop(r));
    return ref === null ? null : this.stop(ref);
  }

  stopRefs(): Int32Array {
    if (!this.activeStops) {
      const out: number[] = [];
      for (const d of this.data.stops.values()) if (this.active.has(d.fv)) out.push(d.id);
      this.activeStops = Int32Array.from(out).sort();
    }
    return this.activeStops;
  }

  private activeOnly(ids: Int32Array): Int32Array {
    return ids.filter((id) => {
      const d = this.data.stops.get(id);
      return d !== undefined && this.active.has(d.fv);
    });
  }

  stopsInBox(box: BoundingBox): Int32Array {
    return this.activeOnly(this.data.spatial.selectIds(box, null));
  }

  stopsNear(lat: number, lon: number, radius: number): Int32Array {
    return this.activeOnly(this.data.spatial.selectIds(null, { lat, lon, radius }));
  }

  childrenOf(ref: number): number[] {
    return this.data.childrenOf.get(ref) ?? [];
  }

  routesOfStops(refs: readonly number[]): Int32Array[] {
    return refs.map((r) => this.data.stopRoutes.get(r) ?? new Int32Array(0));
  }

  route(ref: number): TransitRoute | null {
    const cached = this.routeCache.get(ref);
    if (cached) return cached;
    const r = this.data.routes.get(ref);
    if (!r || !this.active.has(r.fv)) return null;
    const p = JSON.parse(`${r.propsOpen}}`) as Record<string, unknown>;
    const out: TransitRoute = {
      ref, feed: this.feedOf(r.fv), id: r.routeId, agency: r.agencyRef, shortName: r.shortName, longName: r.longName, desc: nz(p.route_desc),
      type: r.routeType, url: nz(p.route_url), color: nz(p.route_color), textColor: nz(p.route_text_color), sortOrder: num(p.route_sort_order),
    };
    this.routeCache.set(ref, out);
    return out;
  }

  routeById(feed: string, id: string): TransitRoute | null {
    const ref = this.firstActive(this.data.routesByFeed(feed, id), (r) => this.route(r));
    return ref === null ? null : this.route(ref);
  }

  routeRefs(): Int32Array {
    if (!this.activeRoutes) this.activeRoutes = this.data.routeOrder.filter((id) => this.active.has(this.data.routes.get(id)!.fv));
    return this.activeRoutes;
  }

  stopsOfRoute(ref: number): Int32Array {
    return this.data.routeStops.get(ref) ?? new Int32Array(0);
  }

  agency(ref: number): TransitAgency | null {
    return this.agencyDetails.get(ref) ?? null;
  }

  agencyById(feed: string, id: string): TransitAgency | null {
    const ref = this.firstActive(this.data.agenciesByFeed(feed, id), (r) => this.agency(r));
    return ref === null ? null : this.agency(ref);
  }

  agencyRefs(): Int32Array {
    return Int32Array.from([...this.agencyDetails.keys()]).sort();
  }

  // ---- trips

  private isActiveTrip(t: number): boolean {
    return t >= 0 && t < this.data.trips.n && this.active.has(this.data.trips.fv[t]!);
  }

  private serviceIdOf(cal: number): string | null {
    let id = this.serviceIds.get(cal);
    if (id === undefined) {
      const c = this.data.trips.calendars.get(cal);
      id = c ? ((JSON.parse(c.json) as { service_id?: string | null }).service_id ?? null) : null;
      this.serviceIds.set(cal, id);
    }
    return id;
  }

  trip(t: number): TransitTrip | null {
    const cached = this.tripCache.get(t);
    if (cached) return cached;
    if (!this.isActiveTrip(t)) return null;
    const ix = this.data.trips;
    const i32 = (v: number) => (v === NULL_I32 ? null : v);
    const out: TransitTrip = {
      ref: t, feed: this.feedOf(ix.fv[t]!), id: ix.tripId.get(t)!, route: ix.route[t]!, serviceId: this.serviceIdOf(ix.calendar[t]!),
      headsign: ix.headsign.get(t), shortName: ix.shortName.get(t), blockId: ix.blockId.get(t), shapeId: ix.shapeId.get(t),
      directionId: i32(ix.direction[t]!), wheelchair: i32(ix.wheelchair[t]!), bikes: i32(ix.bikes[t]!),
    };
    this.tripCache.set(t, out);
    return out;
  }

  tripById(feed: string, id: string): TransitTrip | null {
    if (!this.tripKeys) {
      // built on the first lookup by id: one entry per active trip
      const keys = new Map<string, number>();
      const ix = this.data.trips;
      for (const t of this.tripRefs()) keys.set(keyOf(this.feedOf(ix.fv[t]!), ix.tripId.get(t)!), t);
      this.tripKeys = keys;
    }
    const t = this.tripKeys.get(keyOf(feed, id));
    return t === undefined ? null : this.trip(t);
  }

  tripRefs(): Int32Array {
    if (!this.activeTrips) {
      const ix = this.data.trips;
      const out: number[] = [];
      for (let t = 0; t < ix.n; t++) if (this.active.has(ix.fv[t]!)) out.push(t);
      this.activeTrips = Int32Array.from(out);
    }
    return this.activeTrips;
  }

  tripsOfRoute(route: number): Int32Array {
    const list = this.data.trips.byRoute.get(route);
    return list ? list.filter((t) => this.isActiveTrip(t)) : new Int32Array(0);
  }

  stopTimesOf(t: number): TransitStopTime[] {
    const st = this.data.trips.stopTimes;
    if (!st || !this.isActiveTrip(t)) return [];
    const out: TransitStopTime[] = [];
    for (let i = st.offsets[t]!, end = st.offsets[t + 1]!; i < end; i++) {
      const stop = st.stop.get(i);
      if (stop === null) continue; // a flex stop_time (a zone, not a stop)
      const h = st.headsign.get(i);
      out.push({
        stop, index: i - st.offsets[t]!, seq: Number(st.seq.get(i)), arrival: st.arrival.get(i), departure: st.departure(i),
        pickupType: st.flags.get(i, 0), dropOffType: st.flags.get(i, 1), timepoint: st.flags.get(i, 2), headsign: h === null ? null : st.headsigns[h]!,
      });
    }
    return out;
  }

  shapeOf(t: number): [number, number][] | null {
    if (!this.isActiveTrip(t)) return null;
    const shapes = this.data.trips.shapes;
    const s = this.data.trips.shape[t]!;
    if (s < 0) return null;
    const out: [number, number][] = [];
    for (let i = shapes.offsets[s]!, end = shapes.offsets[s + 1]!; i < end; i++) {
      const lat = shapes.lat[i]!;
      const lon = shapes.lon[i]!;
      if (lat === lat && lon === lon) out.push([lat, lon]);
    }
    return out.length ? out : null;
  }

  serviceDatesOf(t: number): string[] {
    if (!this.isActiveTrip(t)) return [];
    const ix = this.data.trips;
    const c = ix.calendars.get(ix.calendar[t]!);
    const v = this.data.versions.get(ix.fv[t]!)!;
    if (!c) return [];
    const days = new Set<number>(c.added);
    if (c.start !== null && c.end !== null) for (let d = c.start; d <= c.end; d++) if (activeOn(c, d)) days.add(d);
    const lo = v.serviceStart ? dayNumber(v.serviceStart) : -Infinity;
    const hi = v.serviceEnd ? dayNumber(v.serviceEnd) : Infinity;
    return [...days].filter((d) => !c.removed.has(d) && d >= lo && d <= hi).sort((a, b) => a - b).map(dayToIso);
  }

  runsOn(t: number, date: string): boolean {
    if (!this.isActiveTrip(t)) return false;
    const c = this.data.trips.calendars.get(this.data.trips.calendar[t]!);
    return c !== undefined && activeOn(c, dayNumber(date));
  }

  timezoneOf(feed: string): string | null {
    for (const fv of this.active) {
      const v = this.data.versions.get(fv)!;
      if (v.feedOnestopId.toLowerCase() === feed.toLowerCase()) return v.timezone;
    }
    return null;
  }

  serviceTimeRange(): { start: number; end: number } | null {
    let start = Infinity;
    let end = -Infinity;
    for (const fv of this.active) {
      const v = this.data.versions.get(fv)!;
      if (v.serviceStart) start = Math.min(start, gtfsDayStart(dayNumber(v.serviceStart), v.timezone));
      if (v.serviceEnd) end = Math.max(end, gtfsDayStart(dayNumber(v.serviceEnd) + 1, v.timezone));
    }
    return start === Infinity || end === -Infinity ? null : { start, end };
  }

  // ---- patterns

  patternsOfRoute(route: number): TransitPattern[] {
    let list = this.routePatterns.get(route);
    if (list) return list;
    const r = this.route(route);
    list = [];
    if (r) {
      const ix = this.data.trips;
      const groups = new Map<string, { dir: number | null; stops: number[]; trips: number[] }>();
      for (const t of this.tripsOfRoute(route)) {
        const stops = this.stopTimesOf(t).map((x) => x.stop);
        const dir = ix.direction[t] === NULL_I32 ? null : ix.direction[t]!;
        const key = `${dir}|${stops.join(",")}`;
        const g = groups.get(key);
        if (g) g.trips.push(t);
        else groups.set(key, { dir, stops, trips: [t] });
      }
      const tripId = (t: number) => ix.tripId.get(t)!;
      const byId = (a: number, b: number) => (tripId(a) < tripId(b) ? -1 : tripId(a) > tripId(b) ? 1 : 0);
      const all = [...groups.values()];
      for (const g of all) g.trips.sort(byId);
      all.sort((a, b) => (a.dir ?? -1) - (b.dir ?? -1) || b.trips.length - a.trips.length || byId(a.trips[0]!, b.trips[0]!));
      const n = new Map<number, number>();
      for (const g of all) {
        const k = (n.get(g.dir ?? -1) ?? 0) + 1;
        n.set(g.dir ?? -1, k);
        const heads = new Map<string, number>();
        for (const t of g.trips) {
          const h = ix.headsign.get(t);
          if (h !== null) heads.set(h, (heads.get(h) ?? 0) + 1);
        }
        let headsign: string | null = null;
        for (const [h, c] of heads) if (headsign === null || c > heads.get(headsign)!) headsign = h;
        const p: TransitPattern = { code: `${r.feed}:${r.id}:${g.dir ?? -1}:${String(k).padStart(2, "0")}`, route, directionId: g.dir, stops: g.stops, trips: g.trips, headsign };
        for (const t of g.trips) this.tripPattern.set(t, p);
        list.push(p);
      }
    }
    this.routePatterns.set(route, list);
    return list;
  }

  patternOfTrip(t: number): TransitPattern | null {
    if (!this.isActiveTrip(t)) return null;
    if (!this.tripPattern.has(t)) this.patternsOfRoute(this.data.trips.route[t]!);
    return this.tripPattern.get(t) ?? null;
  }

  patternByCode(code: string): TransitPattern | null {
    // FEED:ROUTE:DIR:NN, the route id may itself contain ":"
    const m = /^([^:]+):(.+):(-?\d+):(\d+)$/.exec(code);
    if (!m) return null;
    const r = this.routeById(m[1]!, m[2]!);
    if (!r) return null;
    return this.patternsOfRoute(r.ref).find((p) => p.code === `${r.feed}:${r.id}:${m[3]}:${m[4]}`) ?? null;
  }

  patternsAtStop(stop: number): TransitPattern[] {
    const out: TransitPattern[] = [];
    for (const r of this.routesOfStops([stop])[0]!) for (const p of this.patternsOfRoute(r)) if (p.stops.includes(stop)) out.push(p);
    return out;
  }

  // ---- calls (scheduled and realtime)

  private realtimeOf(u: TripUpdate | null, projected: { arrival_time: number | null; arrival_delay: number | null; departure_time: number | null; departure_delay: number | null; schedule_relationship: string | null } | null): CallRealtime | null {
    if (!u) return null;
    if (u.schedule_relationship === "CANCELED") return { arrival: null, departure: null, arrivalDelay: null, departureDelay: null, state: "CANCELED" };
    if (!projected) return null;
    return {
      arrival: projected.arrival_time, departure: projected.departure_time, arrivalDelay: projected.arrival_delay, departureDelay: projected.departure_delay,
      state: projected.schedule_relationship ?? "SCHEDULED",
    };
  }

  callsOf(t: number, serviceDate: string, nowMs: number): TransitCall[] | null {
    if (!this.isActiveTrip(t) || !this.runsOn(t, serviceDate)) return null;
    const ix = this.data.trips;
    const v = this.data.versions.get(ix.fv[t]!)!;
    const dayStart = gtfsDayStart(dayNumber(serviceDate), v.timezone);
    const stopTimes = this.stopTimesOf(t);
    let u = this.data.departures.frequencies.has(t) ? null : this.updates(nowMs).trip(v.feedOnestopId, ix.tripId.get(t)!);
    if (u && serviceDayStart(u, v.timezone, nowMs) !== dayStart) u = null;
    const sched: ScheduledStop[] = stopTimes.map((x) => ({ seq: x.seq, stopId: this.data.stops.get(x.stop)?.stopId ?? "", arr: x.arrival, dep: x.departure }));
    const rt = projectStopTimes(sched, u, dayStart);
    return stopTimes.map((x, i) => ({
      trip: t, stopTime: x, serviceDate, serviceDay: dayStart, arrival: x.arrival, departure: x.departure,
      tripState: u ? (u.schedule_relationship ?? "SCHEDULED") : null, realtime: this.realtimeOf(u, rt[i] ?? null),
    }));
  }

  departures(stop: number, q: DepartureSearch): TransitCall[] {
    const doc = this.data.stops.get(stop);
    if (!doc || !this.active.has(doc.fv) || !this.data.departures.available) return [];
    const v = this.data.versions.get(doc.fv)!;
    const windows = q.serviceDate
      ? [{ serviceDate: q.serviceDate, scheduleDate: q.serviceDate, from: 0, to: Number.MAX_SAFE_INTEGER, shift: 0 }]
      : instantWindows(v, q.from, q.to, this.data.departures.maxTime);
    const calls = departureCalls(this.data, doc, windows, q.limit, { updates: this.updates(q.nowMs), nowMs: q.nowMs }, { omitNonPickups: q.omitNonPickups, omitCanceled: q.omitCanceled, trips: q.trips });
    const st = this.data.trips.stopTimes!;
    return calls.map((c) => {
      const h = st.headsign.get(c.row);
      const stopTime: TransitStopTime = {
        stop, index: c.row - st.offsets[c.t]!, seq: Number(st.seq.get(c.row)), arrival: st.arrival.get(c.row), departure: st.departure(c.row),
        pickupType: st.flags.get(c.row, 0), dropOffType: st.flags.get(c.row, 1), timepoint: st.flags.get(c.row, 2), headsign: h === null ? null : st.headsigns[h]!,
      };
      return {
        trip: c.t, stopTime, serviceDate: c.serviceDate, serviceDay: c.dayStart, arrival: c.arrival, departure: c.departure,
        tripState: c.update ? (c.update.schedule_relationship ?? "SCHEDULED") : null,
        realtime: this.realtimeOf(c.update, c.realtime),
      };
    });
  }

  canceledTrips(nowMs: number): { trip: number; serviceDate: string }[] {
    const lookup = this.updates(nowMs);
    const ix = this.data.trips;
    const out: { trip: number; serviceDate: string }[] = [];
    for (const t of this.tripRefs()) {
      const v = this.data.versions.get(ix.fv[t]!)!;
      const u = lookup.trip(v.feedOnestopId, ix.tripId.get(t)!);
      if (u?.schedule_relationship !== "CANCELED") continue;
      out.push({ trip: t, serviceDate: dayToIso(serviceDayOf(serviceDayStart(u, v.timezone, nowMs), v.timezone)) });
    }
    return out;
  }

  alerts(nowMs: number): TransitAlert[] {
    // the realtime side names feeds in lowercase: answered with the static feed's spelling
    const feeds = new Map(this.feeds().map((f) => [f.toLowerCase(), f]));
    return this.realtime.alerts(nowMs).flatMap((a) => {
      const feed = feeds.get(a.feed.toLowerCase());
      return feed ? [{ ...a, feed }] : [];
    });
  }
}

/** Agencies' details of the active versions, read from the dataset's DuckDB once. */
async function loadAgencies(data: CatalogData): Promise<Map<number, TransitAgency>> {
  const active = new Set(data.activeVersionIds);
  const rows = await data.db.rows({
    sql: `SELECT id, feed_version_id, agency_id, agency_name, agency_url, agency_timezone, agency_lang, agency_phone, agency_fare_url FROM agencies ORDER BY id`,
    values: [],
  });
  const out = new Map<number, TransitAgency>();
  for (const [id, fv, agencyId, name, url, tz, lang, phone, fareUrl] of rows) {
    if (!active.has(Number(fv))) continue;
    const v = data.versions.get(Number(fv))!;
    out.set(Number(id), { ref: Number(id), feed: v.feedOnestopId, id: String(agencyId ?? ""), name: nz(name), url: nz(url), timezone: nz(tz), lang: nz(lang), phone: nz(phone), fareUrl: nz(fareUrl) });
  }
  return out;
}

/**
 * The port over the catalog's current dataset (`current()`, the service's): one snapshot per
 * loaded dataset, made on the first request after a load (its agencies read from DuckDB then).
 */
export function catalogTransitData(current: () => CatalogData | null, realtime: TransitRealtimeSource = NO_TRANSIT_REALTIME): TransitData {
  let built: { data: CatalogData; snap: CatalogSnapshot } | null = null;
  let preparing: { data: CatalogData; done: Promise<CatalogSnapshot> } | null = null;
  return {
    async snapshot() {
      const data = current();
      if (!data) return null;
      if (built && built.data === data) return built.snap;
      if (!preparing || preparing.data !== data) {
        const release = data.retain();
        const done = loadAgencies(data)
          .then((agencies) => new CatalogSnapshot(data, agencies, realtime))
          .finally(release);
        preparing = { data, done };
      }
      const snap = await preparing.done;
      built = { data, snap };
      return snap;
    },
  };
}
