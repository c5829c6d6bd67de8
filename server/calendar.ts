/**
 * Dates and time zones shared by the catalog and the planner: day numbers (days since 1970-01-01)
 * and wall-clock conversions in IANA time zones with one cache of Intl formatters. (Whether a
 * service runs on a day is the dataset contract's rule: pipeline/schema/calendar.ts.) No HTTP, no
 * DuckDB: the planner core may import it.
 */
import { weekdayOfDay } from "../pipeline/schema/calendar.ts";

const DAY_MS = 86_400_000;

/** Day number (days since 1970-01-01) of a YYYY-MM-DD date. */
export const dayNumber = (ymd: string) => Math.round(Date.parse(`${ymd}T00:00:00Z`) / DAY_MS);
/** YYYY-MM-DD of a day number. */
export const dayToIso = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);
/** ISO weekday index of a YYYY-MM-DD date, Monday = 0 ... Sunday = 6. */
export const isoWeekday = (ymd: string) => weekdayOfDay(dayNumber(ymd));
/** The YYYY-MM-DD date `n` days after `ymd`. */
export const addDays = (ymd: string, n: number) => dayToIso(dayNumber(ymd) + n);


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
