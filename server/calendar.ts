/**
 * Dates and time zones shared by the catalog and the planner: day numbers (days since 1970-01-01),
 * the GTFS rule of whether a service runs on a day (calendar.txt weekdays and date range, plus
 * calendar_dates.txt additions and removals), and wall-clock conversions in IANA time zones with
 * one cache of Intl formatters. No HTTP, no DuckDB: the planner core may import it.
 */

const DAY_MS = 86_400_000;

/** Day number (days since 1970-01-01) of a YYYY-MM-DD date. */
export const dayNumber = (ymd: string) => Math.round(Date.parse(`${ymd}T00:00:00Z`) / DAY_MS);
/** YYYY-MM-DD of a day number. */
export const dayToIso = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);
/** ISO weekday index of a day number, Monday = 0 ... Sunday = 6 (1970-01-01 was a Thursday). */
export const weekdayOfDay = (day: number) => (((day + 3) % 7) + 7) % 7;
/** ISO weekday index of a YYYY-MM-DD date, Monday = 0 ... Sunday = 6. */
export const isoWeekday = (ymd: string) => weekdayOfDay(dayNumber(ymd));
/** The YYYY-MM-DD date `n` days after `ymd`. */
export const addDays = (ymd: string, n: number) => dayToIso(dayNumber(ymd) + n);

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

/** Does service `c` run on `day` (ISO weekday `weekday`)? An added date runs even outside the range. */
export function activeOn(c: ServiceCalendar, day: number, weekday: number = weekdayOfDay(day)): boolean {
  if (c.added.has(day)) return true;
  return c.start !== null && c.end !== null && c.start <= day && day <= c.end && ((c.weekdays >> weekday) & 1) === 1 && !c.removed.has(day);
}

// ---- time zones

const formatters = new Map<string, Intl.DateTimeFormat | null>();

/** The wall-clock formatter of a zone (cached), or null when the zone is unknown. */
function formatter(tz: string): Intl.DateTimeFormat | null {
  let f = formatters.get(tz);
  if (f === undefined) {
    try {
      f = new Intl.DateTimeFormat("en-US", { timeZone: tz, hourCycle: "h23", year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit" });
    } catch {
      f = null;
    }
    formatters.set(tz, f);
  }
  return f;
}

export function isValidTimezone(tz: string): boolean {
  return formatter(tz) !== null;
}

/** Local wall-clock fields of a Unix time in tz: day number and seconds into the day. Throws for an unknown zone. */
export function localParts(unixSec: number, tz: string): { day: number; sec: number } {
  const f = formatter(tz);
  if (!f) throw new RangeError(`Invalid time zone specified: ${tz}`);
  const p: Record<string, number> = {};
  for (const part of f.formatToParts(new Date(unixSec * 1000))) if (part.type !== "literal") p[part.type] = Number(part.value);
  const asUtc = Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!) / 1000;
  return { day: Math.floor(asUtc / 86400), sec: asUtc - Math.floor(asUtc / 86400) * 86400 };
}

/** UTC offset of tz at a Unix time, seconds. */
export function tzOffsetSec(unixSec: number, tz: string): number {
  const { day, sec } = localParts(Math.floor(unixSec), tz);
  return day * 86400 + sec - Math.floor(unixSec);
}

/** Unix time of a local wall-clock time (day since epoch, seconds into the day) in tz. */
export function localToUnix(day: number, sec: number, tz: string): number {
  const wall = day * 86400 + sec;
  let guess = wall - tzOffsetSec(wall, tz);
  guess = wall - tzOffsetSec(guess, tz);
  return guess;
}

/** The calendar date (YYYY-MM-DD) at instant `nowMs` in an IANA time zone (UTC when the zone is unknown). */
export function localDate(nowMs: number, tz: string): string {
  return dayToIso(localParts(Math.floor(nowMs / 1000), isValidTimezone(tz) ? tz : "UTC").day);
}
