/**
 * Service-date resolution: relative_date in a feed's timezone, and the use_service_window
 * substitution (a date outside the version's service window becomes the same weekday of the
 * version's best week, computed on import as feed_version.best_week_start).
 */
import type { RelativeDate } from "./params.ts";
import type { VersionInfo } from "./store.ts";

const DAY_MS = 86_400_000;
const WEEKDAYS = ["MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY", "SATURDAY", "SUNDAY"];

const toUtcMs = (ymd: string) => Date.parse(`${ymd}T00:00:00Z`);
const fromUtcMs = (ms: number) => new Date(ms).toISOString().slice(0, 10);
/** ISO weekday index, Monday = 0 ... Sunday = 6 */
export const isoWeekday = (ymd: string) => (new Date(toUtcMs(ymd)).getUTCDay() + 6) % 7;
export const addDays = (ymd: string, n: number) => fromUtcMs(toUtcMs(ymd) + n * DAY_MS);

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The calendar date at instant `nowMs` in an IANA timezone (UTC when the zone is unknown). */
export function localDate(nowMs: number, timeZone: string): string {
  let f = formatters.get(timeZone);
  if (!f) {
    try {
      f = new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" });
    } catch {
      f = new Intl.DateTimeFormat("en-CA", { timeZone: "UTC", year: "numeric", month: "2-digit", day: "2-digit" });
    }
    formatters.set(timeZone, f);
  }
  const parts = Object.fromEntries(f.formatToParts(new Date(nowMs)).map((p) => [p.type, p.value]));
  return `${parts.year}-${parts.month}-${parts.day}`;
}

/**
 * TODAY = today; MONDAY..SUNDAY = the next such day, today included; NEXT_MONDAY..NEXT_SUNDAY = the
 * next such day after today.
 */
export function resolveRelativeDate(rel: RelativeDate, nowMs: number, timeZone: string): string {
  const today = localDate(nowMs, timeZone);
  if (rel === "TODAY") return today;
  const next = rel.startsWith("NEXT_");
  const target = WEEKDAYS.indexOf(next ? rel.slice(5) : rel);
  let delta = (target - isoWeekday(today) + 7) % 7;
  if (next && delta === 0) delta = 7;
  return addDays(today, delta);
}

/** The date whose service is shown for `date` in version `v` (best-week substitution). */
export function effectiveServiceDate(date: string, v: VersionInfo, useServiceWindow: boolean): string {
  if (!useServiceWindow || !v.serviceStart || !v.serviceEnd || !v.bestWeekStart) return date;
  if (date >= v.serviceStart && date <= v.serviceEnd) return date;
  return addDays(v.bestWeekStart, isoWeekday(date));
}
