/**
 * GTFS time, once for the whole project: day numbers (days since 1970-01-01), wall-clock
 * conversions in IANA time zones (one cache of Intl formatters), and the GTFS service day.
 *
 * The service day: GTFS times count from "noon minus 12 h" of the local service date (so a DST
 * day is 23 or 25 hours long and 25:10:00 is the next morning). `serviceDayStart` is that rule and
 * `serviceDayOf` its inverse; both share one bounded cache (LRU, SERVICE_DAY_CACHE_SIZE entries).
 *
 * An unknown time zone (one Intl does not know) is read as UTC, everywhere, with one warning per
 * zone on stderr: what the catalog did already at every call (departures, trip updates, "today"),
 * so no catalog answer changes; the planner, which threw a RangeError on such a zone, now answers
 * in UTC like the catalog.
 *
 * (Whether a service runs on a day is shared/service-calendar.ts.) No HTTP, no DuckDB: the planner
 * core may import it.
 */
import { Lru } from "./lru.ts";
import { weekdayOfDay } from "./service-calendar.ts";

const DAY_MS = 86_400_000;
const NOON_SEC = 12 * 3600;

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
      console.warn(`interchange: unknown time zone ${JSON.stringify(tz)}: read as UTC`);
    }
    formatters.set(tz, f);
  }
  return f;
}

/** Does Intl know the zone? (An unknown one is read as UTC by every function here.) */
export function isValidTimezone(tz: string): boolean {
  return formatter(tz) !== null;
}

/** Local wall-clock fields of a Unix time in tz: day number and seconds into the day (UTC's for an unknown zone). */
export function localParts(unixSec: number, tz: string): { day: number; sec: number } {
  const f = formatter(tz);
  if (!f) {
    const day = Math.floor(unixSec / 86400);
    return { day, sec: unixSec - day * 86400 };
  }
  const p: Record<string, number> = {};
  for (const part of f.formatToParts(new Date(unixSec * 1000))) if (part.type !== "literal") p[part.type] = Number(part.value);
  const asUtc = Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!) / 1000;
  return { day: Math.floor(asUtc / 86400), sec: asUtc - Math.floor(asUtc / 86400) * 86400 };
}

/** UTC offset of tz at a Unix time, seconds (0 for an unknown zone). */
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

/** The calendar date (YYYY-MM-DD) at instant `nowMs` in an IANA time zone. */
export function localDate(nowMs: number, tz: string): string {
  return dayToIso(localParts(Math.floor(nowMs / 1000), tz).day);
}

// ---- service days

/** Entries of the service-day cache (both directions together): a few years of days in a few dozen zones. */
export const SERVICE_DAY_CACHE_SIZE = 4096;
const serviceDays = new Lru<string, number>(SERVICE_DAY_CACHE_SIZE);

/** Unix time of the GTFS service-day origin ("noon minus 12 h") of local day number `day` in tz. */
export function serviceDayStart(day: number, tz: string): number {
  const key = `s${tz}|${day}`;
  let v = serviceDays.get(key);
  if (v === undefined) serviceDays.set(key, (v = localToUnix(day, NOON_SEC, tz) - NOON_SEC));
  return v;
}

/** The inverse of serviceDayStart: the local day number of the service day whose origin is Unix time `dayStart` in tz. */
export function serviceDayOf(dayStart: number, tz: string): number {
  const key = `d${tz}|${dayStart}`;
  let v = serviceDays.get(key);
  if (v === undefined) serviceDays.set(key, (v = localParts(dayStart + NOON_SEC, tz).day));
  return v;
}
