/**
 * The GTFS service rule, once for the whole project: whether a service runs on a day, from
 * calendar.txt's weekdays and date range and calendar_dates.txt's additions and removals. The
 * timetable compiler (pipeline/timetable/assemble.ts) and the catalog (server/catalog) both call
 * activeOn; the catalog's SQL twin is pipeline/gtfs/derive.ts (service days of the service window).
 * Part of the shared layer (shared/): imports nothing.
 *
 * A date both added and removed (a feed may list both exception types for one date) is removed:
 * calendar_dates.txt removals win, as in the derived service days.
 */

/** ISO weekday index of a day number (days since 1970-01-01), Monday = 0 ... Sunday = 6 (1970-01-01 was a Thursday). */
export const weekdayOfDay = (day: number) => (((day + 3) % 7) + 7) % 7;

/** A GTFS service as day numbers: calendar.txt's weekdays and range, calendar_dates.txt's exceptions. */
export interface ServiceCalendar {
  /** calendar.txt start_date and end_date, or null without a calendar.txt row */
  start: number | null;
  end: number | null;
  /** bit k set = service on ISO weekday k (Monday = 0) */
  weekdays: number;
  /** calendar_dates exception_type 1 and 2 */
  added: ReadonlySet<number>;
  removed: ReadonlySet<number>;
}

/** Does service `c` run on `day` (ISO weekday `weekday`)? A removed date never runs; an added one runs even outside the range. */
export function activeOn(c: ServiceCalendar, day: number, weekday: number = weekdayOfDay(day)): boolean {
  if (c.removed.has(day)) return false;
  if (c.added.has(day)) return true;
  return c.start !== null && c.end !== null && c.start <= day && day <= c.end && ((c.weekdays >> weekday) & 1) === 1;
}
