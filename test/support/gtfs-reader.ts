/**
 * Expectations straight from GTFS files, for the catalog tests: which services run on a date
 * (calendar.txt + calendar_dates.txt), which trips of a route run, a trip's stop_times. Built on
 * the hand-written zip/CSV reader in raw-gtfs.ts, never on the pipeline.
 */
import { type RawFeed, readRawGtfs, type Row } from "./raw-gtfs.ts";

const WEEKDAYS = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"];

export class GtfsFeed {
  readonly raw: RawFeed;
  constructor(path: string) {
    this.raw = readRawGtfs(path);
  }

  table(name: string): Row[] {
    return this.raw.get(`${name}.txt`) ?? [];
  }

  /** service_ids with service on `date` (YYYY-MM-DD) */
  servicesOn(date: string): Set<string> {
    const ymd = date.replaceAll("-", "");
    const weekday = WEEKDAYS[new Date(`${date}T00:00:00Z`).getUTCDay()]!;
    const out = new Set<string>();
    for (const c of this.table("calendar")) {
      if (c.start_date! <= ymd && ymd <= c.end_date! && c[weekday] === "1") out.add(c.service_id!);
    }
    for (const d of this.table("calendar_dates")) {
      if (d.date !== ymd) continue;
      if (d.exception_type === "1") out.add(d.service_id!);
      if (d.exception_type === "2") out.delete(d.service_id!);
    }
    return out;
  }

  /** trip_ids of a route with service on `date`, or every trip of the route when date is null */
  tripsOfRoute(routeId: string, date: string | null): string[] {
    const services = date === null ? null : this.servicesOn(date);
    return this.table("trips")
      .filter((t) => t.route_id === routeId && (services === null || services.has(t.service_id!)))
      .map((t) => t.trip_id!)
      .sort();
  }

  /** stop_times rows of a trip in stop_sequence order */
  stopTimes(tripId: string): Row[] {
    return this.table("stop_times")
      .filter((st) => st.trip_id === tripId)
      .sort((a, b) => Number(a.stop_sequence) - Number(b.stop_sequence));
  }

  /** the date span covered by calendar.txt and calendar_dates.txt, YYYY-MM-DD */
  calendarSpan(): { first: string; last: string } {
    const dates: string[] = [];
    for (const c of this.table("calendar")) dates.push(c.start_date!, c.end_date!);
    for (const d of this.table("calendar_dates")) dates.push(d.date!);
    dates.sort();
    const iso = (s: string) => `${s.slice(0, 4)}-${s.slice(4, 6)}-${s.slice(6, 8)}`;
    return { first: iso(dates[0]!), last: iso(dates[dates.length - 1]!) };
  }
}

const cache = new Map<string, GtfsFeed>();
export function gtfsFeed(path: string): GtfsFeed {
  let f = cache.get(path);
  if (!f) {
    f = new GtfsFeed(path);
    cache.set(path, f);
  }
  return f;
}

/** every date from `first` to `last`, inclusive, stepping `step` days */
export function dateRange(first: string, last: string, step = 1): string[] {
  const out: string[] = [];
  for (let t = Date.parse(`${first}T00:00:00Z`); t <= Date.parse(`${last}T00:00:00Z`); t += step * 86_400_000) {
    out.push(new Date(t).toISOString().slice(0, 10));
  }
  return out;
}
