/**
 * Service days and timezones: GTFS times count from "noon minus 12h" of the local service date
 * (so DST days are 23 or 25 hours long and 25:10 is next morning), per agency timezone.
 * Builds the ServiceDays a search needs: yesterday, today and tomorrow in each timezone.
 */
import type { ServiceDays } from "../api.ts";
import type { Timetable } from "./types.ts";

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", { timeZone: tz, hourCycle: "h23", year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit" });
    formatters.set(tz, f);
  }
  return f;
}

export function isValidTimezone(tz: string): boolean {
  try {
    formatter(tz);
    return true;
  } catch {
    return false;
  }
}

/** Local wall-clock fields of a Unix time in tz. */
export function localParts(unixSec: number, tz: string): { day: number; sec: number } {
  const p: Record<string, number> = {};
  for (const part of formatter(tz).formatToParts(new Date(unixSec * 1000))) if (part.type !== "literal") p[part.type] = Number(part.value);
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

const dayStartCache = new Map<string, number>();
/** Unix time of the GTFS service-day origin ("noon minus 12h") of a local date. */
export function serviceDayStart(day: number, tz: string): number {
  const key = `${tz}|${day}`;
  let v = dayStartCache.get(key);
  if (v === undefined) {
    v = localToUnix(day, 12 * 3600, tz) - 12 * 3600;
    dayStartCache.set(key, v);
  }
  return v;
}

/**
 * Service days around a Unix time: slots = local date of `aroundUnix` plus each delta, per
 * timezone. Offsets are relative to epochSec.
 */
export function buildServiceDays(tt: Timetable, epochSec: number, aroundUnix: number, deltas: number[] = [-1, 0, 1]): ServiceDays {
  const { nTz, nServices } = tt.core;
  const { serviceDay0, serviceStart, serviceDays, timezones } = tt.meta;
  const nSlots = deltas.length;
  const offsetSec = new Int32Array(nSlots * nTz);
  const active = new Uint8Array(nSlots * nTz * nServices);
  for (let z = 0; z < nTz; z++) {
    const tz = timezones[z]!;
    const today = localParts(aroundUnix, tz).day;
    deltas.forEach((delta, slot) => {
      const day = today + delta;
      offsetSec[slot * nTz + z] = serviceDayStart(day, tz) - epochSec;
      const base = (slot * nTz + z) * nServices;
      for (let s = 0; s < nServices; s++) {
        const at = serviceStart[s]! + day - serviceDay0[s]!;
        if (at >= serviceStart[s]! && at < serviceStart[s + 1]!) active[base + s] = serviceDays[at]!;
      }
    });
  }
  return { nSlots, offsetSec, active };
}

export function dayToIso(day: number): string {
  return new Date(day * 86400_000).toISOString().slice(0, 10);
}
export function isoToDay(iso: string): number {
  return Math.floor(Date.parse(`${iso}T00:00:00Z`) / 86400_000);
}
