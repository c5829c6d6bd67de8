/**
 * FEATURE UNDER TEST: the GraphQL plan's time scalars (server/graphql/plan/wire.ts): OffsetDateTime
 * and the local date/time a planConnection asks the planner for are read from the cached zone
 * offsets (one Intl call per 15 minutes of a zone, day prefixes and offsets cached); they must
 * write what the zone's wall clock reads per Intl at every instant: across DST changes (both
 * directions, both hemispheres), half-hour and 45-minute zones, UTC, years far from now, and an
 * unknown zone (read as UTC).
 */
import { describe, expect, test } from "bun:test";
import { localDaySec, offsetDateTime } from "../../server/graphql/plan/wire.ts";

/** The zone's wall clock and offset at an instant straight from Intl (no cache): the reference. */
const formats = new Map<string, Intl.DateTimeFormat | null>();
function intlWallClock(unixSec: number, tz: string): { day: number; sec: number; off: number } {
  if (!formats.has(tz)) {
    try {
      formats.set(tz, new Intl.DateTimeFormat("en-US", { timeZone: tz, hourCycle: "h23", year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit" }));
    } catch {
      formats.set(tz, null);
    }
  }
  const f = formats.get(tz);
  if (!f) {
    const day = Math.floor(unixSec / 86400);
    return { day, sec: unixSec - day * 86400, off: 0 };
  }
  const p: Record<string, number> = {};
  for (const part of f.formatToParts(new Date(unixSec * 1000))) if (part.type !== "literal") p[part.type] = Number(part.value);
  const local = Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!) / 1000;
  const day = Math.floor(local / 86400);
  return { day, sec: local - day * 86400, off: local - unixSec };
}

function referenceOffsetDateTime(unixSec: number, tz: string): string {
  const { day, sec, off } = intlWallClock(unixSec, tz);
  const d = new Date(day * 86400_000).toISOString().slice(0, 10);
  const two = (n: number) => String(n).padStart(2, "0");
  const zone = off === 0 ? "Z" : `${off < 0 ? "-" : "+"}${two(Math.floor(Math.abs(off) / 3600))}:${two(Math.floor((Math.abs(off) % 3600) / 60))}`;
  return `${d}T${two(Math.floor(sec / 3600))}:${two(Math.floor((sec % 3600) / 60))}:${two(sec % 60)}${zone}`;
}

const ZONES = ["America/New_York", "America/Los_Angeles", "Europe/Berlin", "Australia/Sydney", "Asia/Kolkata", "Asia/Kathmandu", "Australia/Lord_Howe", "UTC", "No/Such_Zone"];

describe("OffsetDateTime and the local date/time from the cached zone offsets", () => {
  test("every 7 minutes 13 seconds over three days around the 2026 DST changes, and at random instants over 1970-2100, as Intl reads them", () => {
    const instants: number[] = [];
    // around both 2026 changes of the northern and southern zones (March/April, October/November)
    for (const start of [Date.UTC(2026, 2, 7), Date.UTC(2026, 2, 27), Date.UTC(2026, 3, 3), Date.UTC(2026, 9, 2), Date.UTC(2026, 9, 23), Date.UTC(2026, 10, 0)]) {
      for (let t = start / 1000; t < start / 1000 + 3 * 86400; t += 433) instants.push(t);
    }
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    for (let i = 0; i < 1000; i++) instants.push(Math.floor(rand() * 4_102_444_800));
    let checked = 0;
    for (const tz of ZONES) {
      for (const t of instants) {
        const ref = intlWallClock(t, tz);
        expect(localDaySec(t, tz)).toEqual({ day: ref.day, sec: ref.sec });
        expect(offsetDateTime(t, tz)).toBe(referenceOffsetDateTime(t, tz));
        checked++;
      }
    }
    expect(checked).toBe(ZONES.length * instants.length);
  });

  test("the instant written is the instant given: parsing the OffsetDateTime back gives it", () => {
    for (const tz of ZONES) for (let t = 1_790_000_000; t < 1_790_000_000 + 86400 * 2; t += 3607) expect(Date.parse(offsetDateTime(t, tz)) / 1000).toBe(t);
  });
});
