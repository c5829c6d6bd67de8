/**
 * Service days and timezones: GTFS times count from "noon minus 12h" of the local service date
 * (so DST days are 23 or 25 hours long and 25:10 is next morning), per agency timezone.
 * Builds the ServiceDays a search needs: yesterday, today and tomorrow in each timezone. The
 * wall-clock conversions and the service-day rule are shared/time.ts's (one formatter cache and one
 * service-day cache with the catalog), re-exported.
 */
import type { ServiceDays } from "../api.ts";
import type { Timetable } from "./types.ts";
import { localParts, serviceDayStart, tzOffsetSec } from "../../../shared/time.ts";

export { dayNumber as isoToDay, dayToIso, isValidTimezone, localParts, localToUnix, serviceDayOf, serviceDayStart, tzOffsetSec } from "../../../shared/time.ts";

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

/** UTC offsets change only at instants that are multiples of 15 minutes: one value per 15-minute bucket. */
const OFFSET_BUCKET_MS = 900_000;
const offsetCache = new Map<string, Map<number, number>>();
/** UTC offset of tz at `ms`, milliseconds (java.util.TimeZone.getOffset), cached per 15-minute bucket (no Intl work per leg once warm). */
export function tzOffsetMs(tz: string, ms: number): number {
  let m = offsetCache.get(tz);
  if (!m) offsetCache.set(tz, (m = new Map()));
  const b = Math.floor(ms / OFFSET_BUCKET_MS);
  let v = m.get(b);
  if (v === undefined) {
    if (m.size > 4096) m.clear();
    v = tzOffsetSec((b * OFFSET_BUCKET_MS) / 1000, tz) * 1000;
    m.set(b, v);
  }
  return v;
}
