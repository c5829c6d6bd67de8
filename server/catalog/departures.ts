/**
 * Departures of a stop (GET /stops/{stop_key}/departures): Transitland's stop departures, answered
 * from an index built at load over the in-memory stop_times (tripindex.ts), no scan per request.
 *
 * The index (DepartureIndex): per stop, its stop_time rows in departure-time order (a counting sort
 * by time, then a stable split by stop: ties stay in trip id order), leaving out the last stop_time
 * of each trip (no departure there, as the reference does) and rows without a stop or a time; rows
 * of trips with frequencies.txt entries are kept apart per stop and expanded per request. A query
 * for one service day and a time window is a binary search to the window's start and a walk until
 * its end, keeping the trips whose service runs that day (the calendar rule, cached per service).
 *
 * A request turns its dates and times into windows of service days (departureWindows): `service_date`
 * is one GTFS service day, its times counted from that day's start (25:10:00 is 1:10 the next
 * morning); `date` / `relative_date` / today (for `next` and a bare start_time/end_time) is a
 * calendar day, read from the previous service days' trips past midnight, that day's, and the next
 * day's when end_time goes past 24:00:00. Each departure reports the service date asked (under
 * use_service_window the schedule of the best week's same weekday is shown for a day outside the
 * feed version's window, as the reference does) and its calendar `date`. Realtime: the trip's
 * update (the catalog's trip updates port) applies when it is for that service day (its start_date,
 * else the local date of its snapshot).
 */
import { AppError, notFound } from "../errors.ts";
import { dayNumber, dayToIso, isoWeekday, isValidTimezone, localParts, serviceDayStart as gtfsDayStart, tzOffsetSec } from "../../shared/time.ts";
import { activeOn } from "../../shared/service-calendar.ts";
import type { TripUpdate, TripUpdateLookup } from "../trip-updates.ts";
import { type AlertLookup, stopItemWithAlerts } from "./alerts.ts";
import { effectiveServiceDate, resolveRelativeDate } from "./dates.ts";
import type { Item } from "./listing.ts";
import type { DepartureQuery } from "./params.ts";
import { resolveStopKey, visibleVersions } from "./scope.ts";
import { stopItem } from "./stops.ts";
import type { CatalogData, StopDoc, VersionInfo } from "./data.ts";
import { projectStopTimes, type ScheduledStop, scheduleRelationship, serviceDayStart, type StopRealtime, realtimeStopFields } from "./trip-updates.ts";
import { NULL_I32 } from "./tripindex.ts";
import { feedOf, routeJson } from "./trips.ts";

const DAY = 86_400;

// ---- a request's windows

/** One service day of a request and the part of it asked for. */
export interface DepartureWindow {
  /** the service date reported (asked) */
  serviceDate: string;
  /** the date whose schedule is read (the best week's same weekday under use_service_window, else serviceDate) */
  scheduleDate: string;
  /** departures from..to, service-day seconds */
  from: number;
  to: number;
  /** days from the request's calendar day (or service date) to this service day: orders departures across days */
  shift: number;
}

/** The end of a calendar day when end_time is not given: 23:59:59 (24:00:00 is the next day's midnight). */
const END_OF_DAY = DAY - 1;

/** The service days and time windows a request covers at a stop of version `v`. */
export function departureWindows(q: DepartureQuery, v: VersionInfo, nowMs: number, maxTime: number): DepartureWindow[] {
  const tz = v.timezone;
  const now = localParts(Math.floor(nowMs / 1000), tz);
  const today = dayToIso(now.day);
  // next: from now (default 3600 s when no date and no time is given)
  const next = q.next ?? (q.serviceDate === null && q.date === null && q.relativeDate === null && q.startTime === null && q.endTime === null ? 3600 : null);
  const from = q.startTime ?? (next !== null ? now.sec : 0);
  const window = (serviceDate: string, a: number, b: number, shift: number): DepartureWindow => ({
    serviceDate,
    scheduleDate: effectiveServiceDate(serviceDate, v, q.useServiceWindow),
    from: a,
    to: b,
    shift,
  });
  if (q.serviceDate !== null) {
    const to = q.endTime ?? (next !== null ? now.sec + next : Number.MAX_SAFE_INTEGER);
    return [window(q.serviceDate, from, to, 0)];
  }
  const base = q.date ?? (q.relativeDate !== null ? resolveRelativeDate(q.relativeDate, nowMs, tz) : today);
  const to = q.endTime ?? (next !== null ? now.sec + next : END_OF_DAY);
  const out: DepartureWindow[] = [];
  // service day base + k serves the calendar day's [from, to] at its own times [from - k·DAY, to - k·DAY];
  // the days before reach it with their trips past midnight (as far back as the latest time indexed)
  const back = Math.floor(Math.max(0, maxTime) / DAY);
  for (let k = -back; k * DAY <= to; k++) {
    const a = Math.max(0, from - k * DAY);
    const b = to - k * DAY;
    if (b < 0) continue;
    out.push(window(dayToIso(dayNumber(base) + k), a, b, k));
  }
  return out;
}

// ---- rendering

const pad = (n: number) => (n < 10 ? `0${n}` : String(n));
const hms = (s: number | null) => (s === null || s < 0 ? "null" : `"${pad(Math.floor(s / 3600))}:${pad(Math.floor((s % 3600) / 60))}:${pad(s % 60)}"`);
const str = (s: string | null) => (s === null ? "null" : JSON.stringify(s));
const int = (v: number) => (v === NULL_I32 ? "null" : String(v));

const utcIso = (unix: number) => `"${new Date(unix * 1000).toISOString().slice(0, 19)}Z"`;
function localIso(unix: number, tz: string): string {
  const off = tzOffsetSec(unix, tz);
  const sign = off < 0 ? "-" : "+";
  const a = Math.abs(off);
  return `"${new Date((unix + off) * 1000).toISOString().slice(0, 19)}${sign}${pad(Math.floor(a / 3600))}:${pad(Math.floor((a % 3600) / 60))}"`;
}

/**
 * Transitland's StopTimeEvent: the scheduled time (service-day seconds), its instant in UTC and in
 * the stop's time zone, and the estimate from the trip update (same clock, may pass 24:00:00).
 */
function eventJson(sched: number | null, est: number | null, delay: number | null, dayStart: number, stopTz: string): string {
  if (sched === null) return "null";
  const at = dayStart + sched;
  const estAt = est === null ? null : dayStart + est;
  return (
    `{"scheduled":${hms(sched)},"scheduled_utc":${utcIso(at)},"scheduled_local":${localIso(at, stopTz)},` +
    `"estimated":${hms(est)},"estimated_utc":${estAt === null ? "null" : utcIso(estAt)},"estimated_local":${estAt === null ? "null" : localIso(estAt, stopTz)},` +
    `"estimated_delay":${estAt === null ? "null" : String(estAt - at)},"delay":${delay === null ? "null" : String(delay)},"uncertainty":null,"stop_timezone":${JSON.stringify(stopTz)}}`
  );
}

export interface DepartureRender {
  alerts: AlertLookup | null;
  updates: TripUpdateLookup | null;
  nowMs: number;
  includeGeometry: boolean;
  limit: number;
}

/** One departure found: the stop_time row, its trip, the time shift of a frequency instance, its window. */
interface Found {
  row: number;
  t: number;
  /** seconds added to the template's times (frequency instances), else 0 */
  shift: number;
  w: DepartureWindow;
  /** service-day seconds of the departure */
  dep: number;
}

/**
 * Departures at one stop over the request's windows, in time order, `limit` at most; `keep` (when
 * given) leaves rows out before they count toward the limit.
 */
function findDepartures(data: CatalogData, stop: StopDoc, windows: DepartureWindow[], limit: number, keep?: (row: number, t: number, w: DepartureWindow) => boolean): Found[] {
  const ix = data.trips;
  const di = data.departures;
  const st = ix.stopTimes!;
  const found: Found[] = [];
  for (const w of windows) {
    const day = dayNumber(w.scheduleDate);
    const weekday = isoWeekday(w.scheduleDate);
    const seen = new Map<number, boolean>();
    const runs = (t: number) => {
      const cal = ix.calendar[t]!;
      let ok = seen.get(cal);
      if (ok === undefined) {
        const c = ix.calendars.get(cal);
        ok = c !== undefined && activeOn(c, day, weekday);
        seen.set(cal, ok);
      }
      return ok;
    };
    let n = 0;
    for (const row of di.scheduled(stop.id, w.from, w.to)) {
      const t = di.tripOf(row);
      if (ix.fv[t] !== stop.fv || !runs(t) || (keep && !keep(row, t, w))) continue;
      found.push({ row, t, shift: 0, w, dep: st.departure(row)! });
      if (++n >= limit) break;
    }
    for (const row of di.frequencyRows(stop.id)) {
      const t = di.tripOf(row);
      if (ix.fv[t] !== stop.fv || !runs(t) || (keep && !keep(row, t, w))) continue;
      const first = st.departure(st.offsets[t]!) ?? st.arrival.get(st.offsets[t]!) ?? 0;
      const template = st.departure(row)!;
      for (const f of di.frequencies.get(t) ?? []) {
        for (let start = f.start; start < f.end; start += f.headway) {
          const dep = template + (start - first);
          if (dep >= w.from && dep <= w.to) found.push({ row, t, shift: start - first, w, dep });
        }
      }
    }
  }
  found.sort((a, b) => a.w.shift * DAY + a.dep - (b.w.shift * DAY + b.dep) || ix.ids[a.t]! - ix.ids[b.t]! || a.row - b.row);
  return found.slice(0, limit);
}

/** The trip update of a departure's trip when it is for the departure's service day. */
function updateFor(data: CatalogData, t: number, shift: number, serviceDate: string, v: VersionInfo, o: { updates: TripUpdateLookup | null; nowMs: number }): TripUpdate | null {
  if (!o.updates || shift !== 0 || data.departures.frequencies.has(t)) return null;
  const u = o.updates.trip(feedOf(data, t), data.trips.tripId.get(t)!);
  if (!u) return null;
  const tz = v.timezone;
  return serviceDayStart(u, tz, o.nowMs) === gtfsDayStart(dayNumber(serviceDate), tz) ? u : null;
}

/** The realtime side of a departure's stop_time (the whole trip is projected: delays carry on along it). */
function realtimeOf(data: CatalogData, f: Found, u: TripUpdate, v: VersionInfo, o: { nowMs: number }): StopRealtime | null {
  const st = data.trips.stopTimes!;
  const sched: ScheduledStop[] = [];
  for (let i = st.offsets[f.t]!, end = st.offsets[f.t + 1]!; i < end; i++) {
    const ref = st.stop.get(i);
    sched.push({ seq: Number(st.seq.get(i)), stopId: ref === null ? "" : (data.stops.get(ref)?.stopId ?? ""), arr: st.arrival.get(i), dep: st.departure(i) });
  }
  const tz = v.timezone;
  return projectStopTimes(sched, u, serviceDayStart(u, tz, o.nowMs))[f.row - st.offsets[f.t]!] ?? null;
}

/** The departure's trip: Transitland's trip fields with its route (and agency), shape and frequencies. */
function tripJson(data: CatalogData, t: number, relationship: string, o: DepartureRender): string {
  const ix = data.trips;
  const shapeId = ix.shapeId.get(t);
  const s = ix.shape[t]!;
  const shape =
    shapeId === null
      ? "null"
      : `{"shape_id":${JSON.stringify(shapeId)}${o.includeGeometry ? `,"geometry":${s >= 0 ? ix.shapes.geometry(s) : "null"}` : ""},"generated":${s >= 0 && ix.shapes.generated[s] ? "true" : "false"}}`;
  return (
    `{"id":${ix.ids[t]},"trip_id":${JSON.stringify(ix.tripId.get(t))},"trip_headsign":${str(ix.headsign.get(t))},` +
    `"trip_short_name":${str(ix.shortName.get(t))},"direction_id":${int(ix.direction[t]!)},"block_id":${str(ix.blockId.get(t))},` +
    `"wheelchair_accessible":${int(ix.wheelchair[t]!)},"bikes_allowed":${int(ix.bikes[t]!)},"cars_allowed":${int(ix.cars[t]!)},` +
    `"stop_pattern_id":${int(ix.pattern[t]!)},"schedule_relationship":"${relationship}","shape":${shape},"frequencies":${ix.frequencies.get(t) ?? "[]"},` +
    `"alerts":${o.alerts ? o.alerts.trip(feedOf(data, t), ix.tripId.get(t)!) : "null"},"route":${routeJson(data, t, o.alerts)}}`
  );
}

/**
 * One departure found, typed: its stop_time row and trip, the service day, the times (service-day
 * seconds, frequency instances shifted), the trip's update for that day and the stop_time's
 * realtime side. What the REST document (departureJson) and the transit-data port render.
 */
export interface DepartureCall {
  row: number;
  /** trip index */
  t: number;
  serviceDate: string;
  /** POSIX seconds of the service day's start (noon minus 12 h) */
  dayStart: number;
  arrival: number | null;
  departure: number | null;
  /** the trip's update when it is for this service day */
  update: TripUpdate | null;
  realtime: StopRealtime | null;
}

function callOf(data: CatalogData, f: Found, v: VersionInfo, o: { updates: TripUpdateLookup | null; nowMs: number }): DepartureCall {
  const st = data.trips.stopTimes!;
  const arr = st.arrival.get(f.row);
  const dep = st.departure(f.row);
  const u = updateFor(data, f.t, f.shift, f.w.serviceDate, v, o);
  return {
    row: f.row, t: f.t, serviceDate: f.w.serviceDate, dayStart: gtfsDayStart(dayNumber(f.w.serviceDate), v.timezone),
    arrival: arr === null ? null : arr + f.shift, departure: dep === null ? null : dep + f.shift,
    update: u, realtime: u ? realtimeOf(data, f, u, v, o) : null,
  };
}

/** One departure: Transitland's StopTime with its trip, on its service date. */
function departureJson(data: CatalogData, c: DepartureCall, stop: StopDoc, v: VersionInfo, o: DepartureRender): string {
  const st = data.trips.stopTimes!;
  const i = c.row;
  const a = c.arrival;
  const d = c.departure;
  const h = st.headsign.get(i);
  const rt = c.realtime;
  const tz = v.timezone;
  const stopTz = stop.timezone && isValidTimezone(stop.timezone) ? stop.timezone : tz;
  const dayStart = c.dayStart;
  const relationship = scheduleRelationship(c.update);
  const calendarDate = dayToIso(dayNumber(c.serviceDate) + Math.floor((d ?? a ?? 0) / DAY));
  return (
    `{"arrival_time":${hms(a)},"departure_time":${hms(d)},"stop_sequence":${Number(st.seq.get(i))},"stop_headsign":${str(h === null ? null : st.headsigns[h]!)},` +
    `"pickup_type":${st.flags.get(i, 0)},"drop_off_type":${st.flags.get(i, 1)},"timepoint":${st.flags.get(i, 2)},"interpolated":${st.flags.get(i, 3)},` +
    `"service_date":"${c.serviceDate}","date":"${calendarDate}","schedule_relationship":"${relationship}",` +
    `"arrival":${eventJson(a, rt?.arrival_time ?? null, rt?.arrival_delay ?? null, dayStart, stopTz)},` +
    `"departure":${eventJson(d, rt?.departure_time ?? null, rt?.departure_delay ?? null, dayStart, stopTz)}` +
    `${realtimeStopFields(rt)},"trip":${tripJson(data, c.t, relationship, o)}}`
  );
}

/**
 * The departures at a stop over windows of service days, typed, in time order, `limit` at most
 * (the REST endpoint's search; the transit-data port's stop times). `filter` leaves out, before
 * they count, the stop_times without pickup (pickup_type 1), the trips canceled that day, the trips
 * not in `trips`.
 */
export function departureCalls(
  data: CatalogData,
  stop: StopDoc,
  windows: DepartureWindow[],
  limit: number,
  o: { updates: TripUpdateLookup | null; nowMs: number },
  filter: { omitNonPickups?: boolean; omitCanceled?: boolean; trips?: ReadonlySet<number> } = {},
): DepartureCall[] {
  const v = data.versions.get(stop.fv)!;
  const st = data.trips.stopTimes!;
  const keep =
    filter.omitNonPickups || filter.omitCanceled || filter.trips
      ? (row: number, t: number, w: DepartureWindow) =>
          !(filter.trips && !filter.trips.has(t)) &&
          !(filter.omitNonPickups && st.flags.get(row, 0) === 1) &&
          !(filter.omitCanceled && updateFor(data, t, 0, w.serviceDate, v, o)?.schedule_relationship === "CANCELED")
      : undefined;
  return findDepartures(data, stop, windows, limit, keep).map((f) => callOf(data, f, v, o));
}

/**
 * The windows covering [fromUnix, toUnix] (POSIX seconds) at a stop of version `v`: every service
 * day whose trips (up to `maxTime` past its start) can depart in that span, each with the span in its
 * own service-day seconds.
 */
export function instantWindows(v: VersionInfo, fromUnix: number, toUnix: number, maxTime: number): DepartureWindow[] {
  const tz = v.timezone;
  const first = localParts(fromUnix, tz).day - Math.floor(Math.max(0, maxTime) / DAY) - 1;
  const last = localParts(toUnix, tz).day + 1;
  const out: DepartureWindow[] = [];
  for (let d = first; d <= last; d++) {
    const start = gtfsDayStart(d, tz);
    const from = Math.max(0, fromUnix - start);
    const to = toUnix - start;
    if (to < 0 || from > maxTime) continue;
    const date = dayToIso(d);
    out.push({ serviceDate: date, scheduleDate: date, from, to, shift: d - first });
  }
  return out;
}

/** A stop document with its departures (and, for its children, theirs). */
function stopWithDepartures(data: CatalogData, stop: StopDoc, q: DepartureQuery, o: DepartureRender, children: StopDoc[] | null): Item {
  const v = data.versions.get(stop.fv)!;
  const windows = departureWindows(q, v, o.nowMs, data.departures.maxTime);
  const base = o.alerts ? stopItemWithAlerts(stopItem(stop), data, o.alerts) : stopItem(stop);
  const deps = departureCalls(data, stop, windows, o.limit, o).map((c) => departureJson(data, c, stop, v, o));
  let props = `${base.props},"departures":[${deps.join(",")}]`;
  if (children) {
    const kids = children.map((c) => {
      const it = stopWithDepartures(data, c, q, o, null);
      return `${it.props},"geometry":${it.geometry}}`;
    });
    props += `,"children":[${kids.join(",")}]`;
  }
  return { props, geometry: base.geometry, geometryInJson: true };
}

/**
 * The stops a stop key names (after the request's version and licence filters), each with its
 * departures and its child stops' (a station's platforms); 404 when none is left.
 */
export function findStopDepartures(data: CatalogData, key: string, q: DepartureQuery, o: DepartureRender): Item[] {
  const ids = resolveStopKey(data, key, q);
  const visible = visibleVersions(data, q, /^\d+$/.test(key));
  const docs = ids
    .map((id) => data.stops.get(id)!)
    .filter((d) => visible.has(d.fv))
    .sort((a, b) => a.id - b.id);
  if (!docs.length) throw notFound(`stop not found: ${key} (excluded by the request's filters)`);
  if (!data.departures.available) {
    throw new AppError("UNAVAILABLE", "departures need the stop_times in memory, which this dataset is too large for");
  }
  return docs.map((d) => stopWithDepartures(data, d, q, o, (data.childrenOf.get(d.id) ?? []).map((c) => data.stops.get(c)!).filter(Boolean)));
}
