/**
 * Realtime trip updates in catalog documents (issue 20 item 4), through the port server/trip-updates.ts
 * (server/realtime implements it, main.ts hands it over). A trip's `schedule_relationship` is
 * `STATIC` when no update of its feed's current trip updates snapshot names its trip_id, else the
 * update's (SCHEDULED when the update gives none). On the single-trip form, each stop_time gets
 * realtime fields beside the scheduled ones (README "Trip updates in the catalog"): the update of
 * the stop (by stop_sequence, else by stop_id when the trip visits the stop once), the delay
 * carried on to later stops without an update of their own (GTFS-Realtime's propagation rule).
 */
import { dayNumber, localParts, serviceDayStart as dayStart } from "../../shared/time.ts";
import type { StopTimeUpdate, TripUpdate, TripUpdateSource } from "../trip-updates.ts";

export const NO_TRIP_UPDATES: TripUpdateSource = { tripUpdates: () => ({ trip: () => null }) };

/** A trip's schedule_relationship. */
export const scheduleRelationship = (u: TripUpdate | null) => (u ? (u.schedule_relationship ?? "SCHEDULED") : "STATIC");

/** A scheduled stop_time: service-day seconds. */
export interface ScheduledStop {
  seq: number;
  stopId: string;
  arr: number | null;
  dep: number | null;
}

/** The realtime side of one stop_time, in service-day seconds (the scheduled fields' clock). */
export interface StopRealtime {
  arrival_time: number | null;
  arrival_delay: number | null;
  departure_time: number | null;
  departure_delay: number | null;
  schedule_relationship: string | null;
}

/**
 * POSIX seconds of the service day's start ("noon minus 12 h" in the feed's time zone) of the
 * update's start_date, else of the local date of its snapshot's timestamp.
 */
export function serviceDayStart(u: TripUpdate, tz: string, nowMs: number): number {
  let day: number;
  if (u.start_date && /^\d{8}$/.test(u.start_date)) day = dayNumber(`${u.start_date.slice(0, 4)}-${u.start_date.slice(4, 6)}-${u.start_date.slice(6, 8)}`);
  else {
    const at = u.header_timestamp ?? Math.floor(nowMs / 1000);
    day = localParts(at, tz).day;
  }
  return dayStart(day, tz);
}

/** The realtime side of each stop_time of a trip (all null without an update). */
export function projectStopTimes(stops: ScheduledStop[], u: TripUpdate | null, dayStart: number): (StopRealtime | null)[] {
  if (!u) return stops.map(() => null);
  const visits = new Map<string, number>();
  for (const s of stops) visits.set(s.stopId, (visits.get(s.stopId) ?? 0) + 1);
  const bySeq = new Map<number, StopTimeUpdate>();
  const byStop = new Map<string, StopTimeUpdate>();
  for (const x of u.stops) {
    if (x.stop_sequence !== null) bySeq.set(x.stop_sequence, x);
    else if (x.stop_id !== null) byStop.set(x.stop_id, x);
  }
  // with no stop updates, the trip's own delay (if any) holds for every stop
  let carried: number | null = u.stops.length ? null : u.delay;
  const canceled = u.schedule_relationship === "CANCELED";
  return stops.map((s) => {
    if (canceled) return { arrival_time: null, arrival_delay: null, departure_time: null, departure_delay: null, schedule_relationship: "SKIPPED" };
    const x = bySeq.get(s.seq) ?? (visits.get(s.stopId) === 1 ? byStop.get(s.stopId) : undefined);
    if (x) {
      if (x.schedule_relationship === "SKIPPED" || x.schedule_relationship === "NO_DATA") {
        if (x.schedule_relationship === "NO_DATA") carried = null;
        return { arrival_time: null, arrival_delay: null, departure_time: null, departure_delay: null, schedule_relationship: x.schedule_relationship };
      }
      const event = (time: number | null, delay: number | null, sched: number | null) => {
        const d = delay ?? (time !== null && sched !== null ? time - (dayStart + sched) : carried);
        const t = time !== null ? time - dayStart : sched !== null && d !== null ? sched + d : null;
        return { t, d };
      };
      const a = event(x.arrival_time, x.arrival_delay, s.arr);
      carried = a.d ?? carried;
      const d = event(x.departure_time, x.departure_delay, s.dep);
      carried = d.d ?? carried;
      return { arrival_time: a.t, arrival_delay: a.d, departure_time: d.t, departure_delay: d.d, schedule_relationship: x.schedule_relationship ?? "SCHEDULED" };
    }
    if (carried === null) return null;
    return {
      arrival_time: s.arr === null ? null : s.arr + carried, arrival_delay: carried,
      departure_time: s.dep === null ? null : s.dep + carried, departure_delay: carried, schedule_relationship: "SCHEDULED",
    };
  });
}

const pad = (n: number) => (n < 10 ? `0${n}` : String(n));
/** service-day seconds as HH:MM:SS (may exceed 24:00:00; negative: null) */
const hms = (s: number | null) => (s === null || s < 0 ? "null" : `"${pad(Math.floor(s / 3600))}:${pad(Math.floor((s % 3600) / 60))}:${pad(s % 60)}"`);
const num = (v: number | null) => (v === null ? "null" : String(v));

/** The realtime fields of a stop_time, as a JSON fragment starting with a comma. */
export function realtimeStopFields(r: StopRealtime | null): string {
  return (
    `,"realtime_arrival_time":${hms(r?.arrival_time ?? null)},"arrival_delay":${num(r?.arrival_delay ?? null)},` +
    `"realtime_departure_time":${hms(r?.departure_time ?? null)},"departure_delay":${num(r?.departure_delay ?? null)},` +
    `"realtime_schedule_relationship":${r?.schedule_relationship ? JSON.stringify(r.schedule_relationship) : "null"}`
  );
}
