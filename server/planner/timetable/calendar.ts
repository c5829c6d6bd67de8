/**
 * Service days and timezones: GTFS times count from "noon minus 12h" of the local service date
 * (so DST days are 23 or 25 hours long and 25:10 is next morning), per agency timezone.
 * Builds the ServiceDays a search needs: yesterday, today and tomorrow in each timezone. The
 * wall-clock conversions and the service-day rule are shared/time.ts's (one formatter cache and one
 * service-day cache with the catalog), re-exported.
 */
import type { ServiceDays } from "../api.ts";
import type { Timetable } from "./types.ts";
import { localParts, serviceDayStart } from "../../../shared/time.ts";

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
