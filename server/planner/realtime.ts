/**
 * Realtime in plans. The planner's port to the realtime feature (PlannerRealtime: the trip updates
 * and alerts served at a time; server/realtime implements it and server/main.ts hands it over, so
 * neither feature imports the other), and what the plan service makes of it:
 *
 * - applyTripUpdates: GTFS-Realtime trip updates applied to the timetable's trips, per service day
 *   (the RAPTOR core's RealtimeTrip: realtime stop times, or canceled). The rules (README "Realtime
 *   in plans"), GTFS-Realtime's with OpenTripPlanner 1's choices where the spec leaves one:
 *   - a trip is matched by trip_id in the feed of its Onestop ID; ADDED and unknown trips are
 *     counted, not planned on; a trip_id the timetable holds more than once (frequencies.txt trips)
 *     is left on its schedule (counted): the port carries no start_time to tell its runs apart;
 *   - the service day: start_date when given (a trip whose service does not run that day is
 *     counted and left alone), otherwise the day on which the trip runs nearest to the snapshot's
 *     time, among yesterday, today and tomorrow in the agency's timezone;
 *   - CANCELED (and DELETED) trips are not boarded that day; a SKIPPED stop is neither boarded nor
 *     alighted at; NO_DATA at a stop means its schedule, and the delay after it is 0 until the next
 *     update;
 *   - stop time updates match route positions by stop_sequence, else (none given, or the stop
 *     there is not the stop_id given) by stop_id, in order; an
 *     absolute time wins over a delay; a stop without an update takes the delay of the departure
 *     before it (stops before the first update: TripUpdate.delay, else none); a missing departure
 *     takes the arrival's delay (and never leaves before the arrival), a missing arrival the
 *     propagated delay (never after the departure);
 *   - an update that names a stop the trip does not serve, or whose times would run backwards
 *     along the trip, is rejected whole and the trip keeps its schedule (OTP1 does the same).
 * - Leg alerts (legAlerts): the alerts on a ride's trip, route, agency and its boarding and
 *   alighting stops, as OTP1's LocalizedAlert, only those active during the leg unless
 *   disableAlertFiltering.
 */
import type { RealtimeDays, RealtimeTrip } from "./api.ts";
import { localParts, serviceDayStart } from "./timetable/calendar.ts";
import { MAX_STOP_TIME_SEC, NO_DROP_OFF, NO_PICKUP, arrAt, depAt, flagsAt, type Timetable } from "./timetable/types.ts";
import type { StopTimeUpdate, TripUpdate } from "../trip-updates.ts";

/** One feed's trip updates snapshot as served: `key` names it (a new snapshot, a new key). */
export interface TripUpdateSnapshot {
  /** the feed's Onestop ID, lower case */
  feed: string;
  key: string;
  byTrip: ReadonlyMap<string, TripUpdate>;
}

export interface AlertTranslation {
  language: string | null;
  text: string;
}

/** An alert as a leg shows it. */
export interface PlanAlert {
  header: AlertTranslation[];
  description: AlertTranslation[];
  url: AlertTranslation[] | null;
  /** active periods, POSIX seconds (null: open); none = always active */
  periods: { start: number | null; end: number | null }[];
}

/** The alerts on an entity of a feed (its Onestop ID, any case; GTFS ids), as served at one time. */
export interface LegAlertLookup {
  trip(feed: string, tripId: string): readonly PlanAlert[];
  route(feed: string, routeId: string): readonly PlanAlert[];
  agency(feed: string, agencyId: string): readonly PlanAlert[];
  stop(feed: string, stopId: string): readonly PlanAlert[];
}

/** What the planner asks of the realtime feature. */
export interface PlannerRealtime {
  tripUpdates(nowMs: number): TripUpdateSnapshot[];
  alerts(nowMs: number): LegAlertLookup;
}

const NONE: readonly PlanAlert[] = [];
export const NO_ALERTS: LegAlertLookup = { trip: () => NONE, route: () => NONE, agency: () => NONE, stop: () => NONE };
export const NO_REALTIME: PlannerRealtime = { tripUpdates: () => [], alerts: () => NO_ALERTS };

/** What happened to the trip updates of the snapshots applied (in /health features.planner.realtime). */
export interface AppliedCounts {
  /** trips planned on with realtime times */
  updated: number;
  canceled: number;
  /** ADDED / UNSCHEDULED / DUPLICATED trips: not in the timetable, not planned on */
  not_scheduled: number;
  unknown_trip: number;
  /** trip_ids the timetable holds more than once (frequencies.txt) */
  ambiguous_trip: number;
  /** start_date on which the trip's service does not run */
  not_running: number;
  /** updates rejected whole: a stop the trip does not serve, times running backwards, a bad start_date */
  rejected: number;
}

/** Trip updates applied: per service day (days since 1970-01-01), forward trip index -> its realtime times. */
export interface AppliedUpdates {
  /** names the snapshots applied (the day views built from them are kept under it) */
  key: string;
  byDay: Map<number, Map<number, RealtimeTrip>>;
  counts: AppliedCounts;
  /** the last rejection, for /health */
  lastRejection: string | null;
  /**
   * the rides of updated trips from a stop to the next faster than every scheduled trip of their
   * route (a trip catching up), which the destination bounds (raptor/heuristic.ts) take in; null: none
   */
  fasterHops: RealtimeDays["fasterHops"];
}

export const NOTHING_APPLIED: AppliedUpdates = {
  key: "",
  byDay: new Map(),
  counts: { updated: 0, canceled: 0, not_scheduled: 0, unknown_trip: 0, ambiguous_trip: 0, not_running: 0, rejected: 0 },
  lastRejection: null,
  fasterHops: null,
};

/**
 * trip_id -> timetable trips, per feed (lower-case Onestop ID), and trip -> RAPTOR route: one per
 * timetable. A feed's trip ids are read (decoded from the timetable) when an update of that feed
 * first needs them, and a route's shortest scheduled rides when an updated trip of it is first
 * checked for faster rides: the first snapshot costs what it names, not the whole timetable (at
 * 6x New York, 1.8 M trip ids).
 */
export class TripIndex {
  /** trip -> its RAPTOR route */
  readonly tripRoute: Int32Array;
  /** trip -> index of its feed in meta.feeds (-1: none) */
  private readonly tripFeed: Int32Array;
  private readonly feeds = new Map<string, Map<string, number[]> | undefined>();
  /** route stop (core.routeStops index) -> the shortest scheduled ride to the next stop over the route's trips (filled per route on first use) */
  private readonly hopMin: Int32Array;
  private readonly hopDone: Uint8Array;

  constructor(private readonly tt: Timetable) {
    const { core, meta: m } = tt;
    this.tripRoute = new Int32Array(core.nTrips);
    for (let r = 0; r < core.nRoutes; r++) this.tripRoute.fill(r, core.routeTripStart[r]!, core.routeTripStart[r + 1]!);
    // the feed of each GTFS route, then of each trip (numbers only: no string is decoded here)
    const routeFeed = new Int32Array(m.gtfsRoutes.length).fill(-1);
    m.gtfsRoutes.forEach((gr, i) => {
      const ag = m.agencies[gr.agency];
      if (ag && ag.feed >= 0 && ag.feed < m.feeds.length) routeFeed[i] = ag.feed;
    });
    this.tripFeed = new Int32Array(core.nTrips);
    for (let t = 0; t < core.nTrips; t++) this.tripFeed[t] = routeFeed[m.tripGtfsRoute[t]!]!;
    this.hopMin = new Int32Array(core.routeStops.length);
    this.hopDone = new Uint8Array(core.nRoutes);
  }

  /** trip_id -> the timetable's trips with it, of a feed (lower-case Onestop ID); undefined for a feed the timetable does not hold */
  idsOf(feed: string): Map<string, number[]> | undefined {
    if (this.feeds.has(feed)) return this.feeds.get(feed);
    const { meta: m, core } = this.tt;
    // (every feed of the timetable with this Onestop ID: their trips share the map)
    const wanted = new Uint8Array(m.feeds.length + 1);
    m.feeds.forEach((x, f) => (wanted[f] = x.onestopId.toLowerCase() === feed ? 1 : 0));
    let ids: Map<string, number[]> | undefined;
    if (wanted.includes(1)) {
      ids = new Map();
      for (let t = 0; t < core.nTrips; t++) {
        const f = this.tripFeed[t]!;
        if (f < 0 || !wanted[f]) continue;
        const id = m.tripId[t]!;
        const list = ids.get(id);
        if (list) list.push(t);
        else ids.set(id, [t]);
      }
      // a feed with no trip is as unknown as one the timetable lacks
      if (ids.size === 0) ids = undefined;
    }
    this.feeds.set(feed, ids);
    return ids;
  }

  /** The shortest scheduled rides of route r from each of its stops to the next (route-stop indexes, as core.routeStops). */
  hopMinOf(r: number): Int32Array {
    const { core } = this.tt;
    const s0 = core.routeStopStart[r]!;
    const nS = core.routeStopStart[r + 1]! - s0;
    if (!this.hopDone[r]) {
      this.hopMin.fill(0x3fffffff, s0, s0 + nS);
      for (let t = core.routeTripStart[r]!; t < core.routeTripStart[r + 1]!; t++) {
        const base = core.routeTime0[r]! + (t - core.routeTripStart[r]!) * nS;
        for (let j = 0; j + 1 < nS; j++) {
          const hop = arrAt(core.stopTimes, base + j + 1) - depAt(core.stopTimes, base + j);
          if (hop < this.hopMin[s0 + j]!) this.hopMin[s0 + j] = hop;
        }
      }
      this.hopDone[r] = 1;
    }
    return this.hopMin;
  }
}

export const tripIndex = (tt: Timetable): TripIndex => new TripIndex(tt);

const NOT_SCHEDULED = new Set(["ADDED", "UNSCHEDULED", "DUPLICATED", "NEW", "REPLACEMENT"]);
const CANCELED = new Set(["CANCELED", "DELETED"]);

/** The name of a snapshot among those applied (AppliedUpdates.key joins them). */
const snapshotKey = (s: TripUpdateSnapshot) => `${s.feed}=${s.key}`;

/**
 * The trip updates of `snapshots` applied to the timetable (`nowMs`: when the snapshots carry no
 * timestamp). `applied` holds each snapshot's own result by its name: a snapshot found there is
 * not applied again (a feed's new snapshot costs its own trips, not every feed's); the map is
 * left holding exactly the snapshots given. The result is the same as applying them all in order.
 */
export function applyTripUpdates(tt: Timetable, ix: TripIndex, snapshots: TripUpdateSnapshot[], nowMs: number, applied = new Map<string, AppliedUpdates>()): AppliedUpdates {
  const parts = snapshots.map((snap) => {
    const k = snapshotKey(snap);
    return applied.get(k) ?? applyOne(tt, ix, snap, nowMs);
  });
  const keys = new Set(snapshots.map(snapshotKey));
  for (const k of [...applied.keys()]) if (!keys.has(k)) applied.delete(k);
  snapshots.forEach((snap, i) => applied.set(snapshotKey(snap), parts[i]!));
  return joinApplied(snapshots.map(snapshotKey).join(";"), parts);
}

/** Snapshots applied one by one, as one: days' trips in the snapshots' order, counts summed, the last rejection, the faster rides of all. */
function joinApplied(key: string, parts: AppliedUpdates[]): AppliedUpdates {
  const out: AppliedUpdates = { key, byDay: new Map(), counts: { ...NOTHING_APPLIED.counts }, lastRejection: null, fasterHops: null };
  if (parts.length === 1) {
    const p = parts[0]!;
    return { ...p, key, fasterHops: p.fasterHops && { ...p.fasterHops, key } };
  }
  const faster: { from: Int32Array[]; to: Int32Array[]; sec: Int32Array[] } = { from: [], to: [], sec: [] };
  for (const p of parts) {
    for (const [day, trips] of p.byDay) {
      const m = out.byDay.get(day);
      if (!m) out.byDay.set(day, new Map(trips));
      else for (const [t, trip] of trips) m.set(t, trip);
    }
    for (const name of Object.keys(out.counts) as (keyof AppliedCounts)[]) out.counts[name] += p.counts[name];
    if (p.lastRejection !== null) out.lastRejection = p.lastRejection;
    if (p.fasterHops) {
      faster.from.push(p.fasterHops.from);
      faster.to.push(p.fasterHops.to);
      faster.sec.push(p.fasterHops.sec);
    }
  }
  const concat = (xs: Int32Array[]) => {
    const all = new Int32Array(xs.reduce((a, x) => a + x.length, 0));
    let at = 0;
    for (const x of xs) {
      all.set(x, at);
      at += x.length;
    }
    return all;
  };
  if (faster.from.length) out.fasterHops = { key, from: concat(faster.from), to: concat(faster.to), sec: concat(faster.sec) };
  return out;
}

/** One snapshot's trip updates applied to the timetable. */
function applyOne(tt: Timetable, ix: TripIndex, snap: TripUpdateSnapshot, nowMs: number): AppliedUpdates {
  const out: AppliedUpdates = { key: snapshotKey(snap), byDay: new Map(), counts: { ...NOTHING_APPLIED.counts }, lastRejection: null, fasterHops: null };
  const faster: { from: number[]; to: number[]; sec: number[] } = { from: [], to: [], sec: [] };
  const c = out.counts;
  {
    const ids = ix.idsOf(snap.feed.toLowerCase());
    for (const [tripId, u] of snap.byTrip) {
      const rel = u.schedule_relationship ?? "SCHEDULED";
      if (NOT_SCHEDULED.has(rel)) {
        c.not_scheduled++;
        continue;
      }
      const trips = ids?.get(tripId);
      if (!trips) {
        c.unknown_trip++;
        continue;
      }
      if (trips.length > 1) {
        c.ambiguous_trip++;
        continue;
      }
      const t = trips[0]!;
      const r = ix.tripRoute[t]!;
      const tz = tt.meta.timezones[tt.core.routeTz[r]!] ?? "UTC";
      const day = serviceDayOf(tt, t, r, tz, u, nowMs);
      if (day === "bad") {
        c.rejected++;
        out.lastRejection = `${snap.feed} trip ${tripId}: start_date ${u.start_date} is not a date`;
        continue;
      }
      if (day === null) {
        c.not_running++;
        continue;
      }
      let trip: RealtimeTrip;
      if (CANCELED.has(rel)) {
        trip = { stopTimes: null };
        c.canceled++;
      } else {
        const words = realtimeTimes(tt, t, r, u, serviceDayStart(day, tz));
        if (typeof words === "string") {
          c.rejected++;
          out.lastRejection = `${snap.feed} trip ${tripId}: ${words}`;
          continue;
        }
        trip = { stopTimes: words };
        c.updated++;
        fasterRides(tt, ix, r, words, faster);
      }
      let m = out.byDay.get(day);
      if (!m) out.byDay.set(day, (m = new Map()));
      m.set(t, trip);
    }
  }
  if (faster.sec.length) out.fasterHops = { key: out.key, from: Int32Array.from(faster.from), to: Int32Array.from(faster.to), sec: Int32Array.from(faster.sec) };
  return out;
}

/** Is trip t's service active on `day`? */
function runsOn(tt: Timetable, t: number, day: number): boolean {
  const { serviceDay0, serviceStart, serviceDays } = tt.meta;
  const s = tt.core.tripService[t]!;
  const at = serviceStart[s]! + day - serviceDay0[s]!;
  return at >= serviceStart[s]! && at < serviceStart[s + 1]! && serviceDays[at] === 1;
}

/**
 * The service day an update applies to: its start_date (null when the trip does not run then;
 * "bad" when it is no date), else the day, among yesterday, today and tomorrow at the snapshot's
 * time, on which the trip runs nearest to that time (null when it runs on none).
 */
function serviceDayOf(tt: Timetable, t: number, r: number, tz: string, u: TripUpdate, nowMs: number): number | null | "bad" {
  if (u.start_date) {
    const m = /^(\d{4})(\d{2})(\d{2})$/.exec(u.start_date);
    if (!m) return "bad";
    const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
    if (!Number.isFinite(ms) || new Date(ms).getUTCDate() !== Number(m[3])) return "bad";
    const day = Math.round(ms / 86_400_000);
    return runsOn(tt, t, day) ? day : null;
  }
  const nowS = u.header_timestamp ?? Math.floor(nowMs / 1000);
  const today = localParts(nowS, tz).day;
  const { core } = tt;
  const nS = core.routeStopStart[r + 1]! - core.routeStopStart[r]!;
  const base = core.routeTime0[r]! + (t - core.routeTripStart[r]!) * nS;
  const first = depAt(core.stopTimes, base), last = arrAt(core.stopTimes, base + nS - 1);
  let best: number | null = null, bestGap = Infinity;
  for (const day of [today - 1, today, today + 1]) {
    if (!runsOn(tt, t, day)) continue;
    const start = serviceDayStart(day, tz);
    const gap = nowS < start + first ? start + first - nowS : nowS > start + last ? nowS - start - last : 0;
    if (gap < bestGap) {
      bestGap = gap;
      best = day;
    }
  }
  return best;
}

/**
 * Trip t's stop times with the update applied (packed words, service-day seconds of the day that
 * starts at `dayStart`), or why the update is rejected.
 */
export function realtimeTimes(tt: Timetable, t: number, r: number, u: TripUpdate, dayStart: number): Int32Array | string {
  const { core, meta: m } = tt;
  const s0 = core.routeStopStart[r]!;
  const nS = core.routeStopStart[r + 1]! - s0;
  const base = core.routeTime0[r]! + (t - core.routeTripStart[r]!) * nS;
  // the updates' route positions, in order
  const at: (StopTimeUpdate | undefined)[] = new Array(nS);
  let from = 0;
  for (const su of u.stops) {
    let j = -1;
    // by stop_sequence, unless the stop there is not the stop_id given: then by stop_id (BART's
    // feed numbers some stops one off its static feed)
    if (su.stop_sequence !== null) for (let x = from; x < nS && j < 0; x++) if (m.routeStopSequence[s0 + x] === su.stop_sequence) j = x;
    if (j >= 0 && su.stop_id !== null && m.stopId[core.routeStops[s0 + j]!] !== su.stop_id) j = -1;
    if (j < 0 && su.stop_id !== null) for (let x = from; x < nS && j < 0; x++) if (m.stopId[core.routeStops[s0 + x]!] === su.stop_id) j = x;
    if (j < 0) return `stop_sequence ${su.stop_sequence ?? "-"} / stop_id ${su.stop_id ?? "-"} is not a stop of the trip after position ${from}`;
    at[j] = su;
    from = j + 1;
  }
  const words = new Int32Array(2 * nS);
  let delay = u.delay ?? 0;
  let prevDep = -Infinity, prevSDep = -Infinity;
  for (let j = 0; j < nS; j++) {
    const sArr = arrAt(core.stopTimes, base + j), sDep = depAt(core.stopTimes, base + j);
    let flags = flagsAt(core.stopTimes, base + j);
    const su = at[j];
    let arr = sArr + delay, dep = sDep + delay;
    if (su?.schedule_relationship === "NO_DATA") {
      delay = 0;
      arr = sArr;
      dep = sDep;
    } else if (su) {
      if (su.schedule_relationship === "SKIPPED") flags |= NO_PICKUP | NO_DROP_OFF;
      const arrGiven = su.arrival_time !== null || su.arrival_delay !== null;
      const depGiven = su.departure_time !== null || su.departure_delay !== null;
      if (su.arrival_time !== null) arr = su.arrival_time - dayStart;
      else if (su.arrival_delay !== null) arr = sArr + su.arrival_delay;
      if (su.departure_time !== null) dep = su.departure_time - dayStart;
      else if (su.departure_delay !== null) dep = sDep + su.departure_delay;
      else if (arrGiven) dep = sDep + (arr - sArr);
      if (!depGiven && dep < arr) dep = arr;
      if (!arrGiven && arr > dep) arr = dep;
      delay = dep - sDep;
    }
    // (a schedule that already runs backwards there is not the update's fault)
    if (dep < arr && sDep >= sArr) return `departure before arrival at position ${j}`;
    if (arr < prevDep && sArr >= prevSDep) return `arrival at position ${j} before the departure from the stop before`;
    if (Math.abs(arr) > MAX_STOP_TIME_SEC || Math.abs(dep) > MAX_STOP_TIME_SEC) return `time beyond the timetable's range at position ${j}`;
    prevDep = dep;
    prevSDep = sDep;
    words[2 * j] = arr * 4 + flags;
    words[2 * j + 1] = dep * 4 + flags;
  }
  return words;
}

/** The rides of a realtime trip of route r from a stop to the next that are faster than the route's scheduled minimum, into `out`. */
function fasterRides(tt: Timetable, ix: TripIndex, r: number, words: Int32Array, out: { from: number[]; to: number[]; sec: number[] }): void {
  const { routeStopStart, routeStops } = tt.core;
  const s0 = routeStopStart[r]!;
  const nS = routeStopStart[r + 1]! - s0;
  const hopMin = ix.hopMinOf(r);
  for (let j = 0; j + 1 < nS; j++) {
    const sec = (words[2 * (j + 1)]! >> 2) - (words[2 * j + 1]! >> 2);
    if (sec >= hopMin[s0 + j]!) continue;
    out.from.push(routeStops[s0 + j]!);
    out.to.push(routeStops[s0 + j + 1]!);
    out.sec.push(sec);
  }
}

/** OTP1's LocalizedAlert: texts in the asked language (else the untagged one, else the first), times in ms. */
export interface LocalizedAlert {
  alertHeaderText?: string;
  alertDescriptionText?: string;
  alertUrl?: string;
  effectiveStartDate?: number;
  effectiveEndDate?: number;
}

function pick(ts: AlertTranslation[] | null, language: string | null): string | undefined {
  if (!ts || ts.length === 0) return undefined;
  const want = language?.toLowerCase().split(/[-_]/)[0] ?? null;
  const hit = (want !== null ? ts.find((x) => x.language?.toLowerCase().split(/[-_]/)[0] === want) : undefined) ?? ts.find((x) => !x.language) ?? ts[0]!;
  return hit.text;
}

/** Active at some time of [startS, endS] (POSIX seconds): no period, or one overlapping it. */
export function activeDuring(a: PlanAlert, startS: number, endS: number): boolean {
  if (a.periods.length === 0) return true;
  return a.periods.some((p) => (p.start === null || p.start <= endS) && (p.end === null || p.end > startS));
}

/** An alert as OTP1's LocalizedAlert (fields without a value left out, as OTP1's JSON mapper does). */
export function localizedAlert(a: PlanAlert, language: string | null): LocalizedAlert {
  const out: LocalizedAlert = {};
  const header = pick(a.header, language);
  const description = pick(a.description, language);
  const url = pick(a.url, language);
  if (header !== undefined) out.alertHeaderText = header;
  if (description !== undefined) out.alertDescriptionText = description;
  if (url !== undefined) out.alertUrl = url;
  const starts = a.periods.map((p) => p.start);
  const ends = a.periods.map((p) => p.end);
  if (starts.length && starts.every((s) => s !== null)) out.effectiveStartDate = Math.min(...(starts as number[])) * 1000;
  if (ends.length && ends.every((e) => e !== null)) out.effectiveEndDate = Math.max(...(ends as number[])) * 1000;
  return out;
}
