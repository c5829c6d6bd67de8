/**
 * Service-date resolution: relative_date in a feed's timezone, and the use_service_window
 * substitution (a date outside the version's service window becomes the same weekday of the
 * version's best week, computed on import as feed_version.best_week_start). Date arithmetic and
 * time zones are shared/time.ts's.
 */
import { addDays, isoWeekday, localDate } from "../../shared/time.ts";
import type { RelativeDate } from "./params.ts";
import type { VersionInfo } from "./data.ts";

const WEEKDAYS = ["MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY", "SATURDAY", "SUNDAY"];

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
