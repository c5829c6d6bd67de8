/**
 * Text timetables for planner scenario tests (OTP raptor "moduletests" style). Format, one item a line:
 *   timezone America/New_York            (default UTC)
 *   service WD 2024-03-04..2024-03-08 mon,tue,wed,thu,fri   (default service "ALL" runs every day of 2024)
 *   stop A 40.0 -73.0                    (optional; unplaced stops are kilometres apart)
 *   route R1 type=3                      then a header of stops and one row per trip:
 *     A      B      C
 *     T1 08:00 08:10 08:20                (a cell "08:10/08:12" = arrival/departure, "08:10!p" = no pickup,
 *                                           "08:10!d" = no drop-off; first token trip[@service])
 *   freq T1 08:00 09:00 600              (frequency-based trip: start, end, headway seconds)
 *   transfer A B 120                     (transfers.txt min_transfer_time; "transfer A A 60" = same-stop slack)
 * and helpers that run RAPTOR and print journeys on one line: "R1 A 08:00 C 08:20, walk C-D, R2 D 08:30 E 08:45".
 */
import { assembleTimetable } from "../../../pipeline/timetable/assemble.ts";
import { tablesToIpc } from "../../../pipeline/timetable/arrow-io.ts";
import type { SourceCalendar, SourceData, SourceFrequency, SourceRoute, SourceStop, SourceTransfer, SourceTrip } from "../../../pipeline/timetable/source.ts";
import { loadTimetable } from "../../../server/planner/timetable/arrow-loader.ts";
import type { Timetable } from "../../../server/planner/timetable/types.ts";
import { reverseCore } from "../../../server/planner/timetable/reverse.ts";
import { buildServiceDays, isoToDay, localToUnix, localParts } from "../../../server/planner/timetable/calendar.ts";
import { RaptorStatePool, prepare, searchJourneys } from "../../../server/planner/raptor/index.ts";
import type { Journey, StopIdx } from "../../../server/planner/api.ts";

const DAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"];

export function parseTime(s: string): number {
  const [h, m, sec] = s.split(":").map(Number);
  return h! * 3600 + m! * 60 + (sec ?? 0);
}
export function fmtTime(sec: number): string {
  const h = Math.floor(sec / 3600), m = Math.floor((sec % 3600) / 60), s = sec % 60;
  return `${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}${s ? `:${String(s).padStart(2, "0")}` : ""}`;
}

export function textTimetable(text: string, walkRadiusM = 0): Timetable {
  let tz = "UTC";
  const stops = new Map<string, SourceStop>();
  const routes: SourceRoute[] = [];
  const trips: SourceTrip[] = [];
  const calendars = new Map<string, SourceCalendar>();
  const freqs: SourceFrequency[] = [];
  const transfers: SourceTransfer[] = [];
  const st = { trip: [] as number[], seq: [] as number[], stop: [] as number[], arr: [] as number[], dep: [] as number[], pickup: [] as number[], dropOff: [] as number[] };
  const stop = (name: string): SourceStop => {
    let s = stops.get(name);
    if (!s) {
      const i = stops.size;
      s = { key: 1000 + i, feed: 0, stopId: name, code: "", name, lat: 10 + i * 0.1, lon: 10, wheelchair: 0, onestopId: `s-test-${name}`, parent: -1 };
      stops.set(name, s);
    }
    return s;
  };
  const calendar = (name: string): SourceCalendar => {
    let c = calendars.get(name);
    if (!c) {
      if (name !== "ALL") throw new Error(`unknown service ${name}`);
      c = { key: 5000 + calendars.size, feed: 0, weekdays: 127, startDay: isoToDay("2024-01-01"), endDay: isoToDay("2024-12-31"), added: [], removed: [] };
      calendars.set(name, c);
    }
    return c;
  };
  const tripKeys = new Map<string, number>();
  let header: string[] | null = null;
  let route: SourceRoute | null = null;
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (!line || line.startsWith("#")) continue;
    const tok = line.split(/\s+/);
    const cmd = tok[0]!;
    if (cmd === "timezone") tz = tok[1]!;
    else if (cmd === "service") {
      const [a, b] = tok[2]!.split("..");
      let weekdays = 0;
      for (const d of (tok[3] ?? "").split(",")) if (DAYS.includes(d)) weekdays |= 1 << DAYS.indexOf(d);
      calendars.set(tok[1]!, { key: 5000 + calendars.size, feed: 0, weekdays, startDay: isoToDay(a!), endDay: isoToDay(b!), added: [], removed: [] });
    } else if (cmd === "stop") {
      const s = stop(tok[1]!);
      s.lat = Number(tok[2]);
      s.lon = Number(tok[3]);
    } else if (cmd === "route") {
      const type = Number((tok.find((t) => t.startsWith("type=")) ?? "type=3").slice(5));
      route = { key: 2000 + routes.length, feed: 0, agency: 1, routeId: tok[1]!, shortName: tok[1]!, longName: "", type, color: "", textColor: "", onestopId: `r-test-${tok[1]}` };
      routes.push(route);
      header = null;
    } else if (cmd === "freq") {
      freqs.push({ trip: tripKeys.get(tok[1]!)!, startSec: parseTime(tok[2]!), endSec: parseTime(tok[3]!), headwaySec: Number(tok[4]) });
    } else if (cmd === "transfer") {
      transfers.push({ fromStop: stop(tok[1]!).key, toStop: stop(tok[2]!).key, type: 2, minSec: Number(tok[3]) });
    } else if (route && !header) {
      header = tok;
      for (const h of header) stop(h);
    } else if (route && header) {
      const [tripId, service = "ALL"] = cmd.split("@");
      const key = 3000 + trips.length;
      tripKeys.set(tripId!, key);
      trips.push({ key, feed: 0, route: route.key, service: calendar(service).key, tripId: tripId!, headsign: header[header.length - 1]!, blockId: "", shapeId: "", wheelchair: 0 });
      tok.slice(1).forEach((cell, j) => {
        if (cell === "-") return;
        // "08:10!p": no pickup there, "08:10!d": no drop-off, "08:10!pd": neither
        const [time, rules = ""] = cell.split("!");
        const [a, d] = time!.split("/");
        st.pickup.push(rules.includes("p") ? 1 : 0);
        st.dropOff.push(rules.includes("d") ? 1 : 0);
        st.trip.push(key);
        st.seq.push(j + 1);
        st.stop.push(stop(header![j]!).key);
        st.arr.push(parseTime(a!));
        st.dep.push(parseTime(d ?? a!));
      });
    }
  }
  const src: SourceData = {
    feeds: [{ onestopId: "f-test", sha1: "0".repeat(40), startDay: isoToDay("2024-01-01"), endDay: isoToDay("2024-12-31") }],
    agencies: [{ key: 1, feed: 0, agencyId: "A", name: "Test Agency", timezone: tz }],
    routes,
    stops: [...stops.values()],
    trips,
    stopTimes: {
      trip: Int32Array.from(st.trip),
      stopSequence: Int32Array.from(st.seq),
      stop: Int32Array.from(st.stop),
      arrSec: Int32Array.from(st.arr),
      depSec: Int32Array.from(st.dep),
      pickupType: Uint8Array.from(st.pickup),
      dropOffType: Uint8Array.from(st.dropOff),
    },
    calendars: [...calendars.values()],
    frequencies: freqs,
    transfers,
    shapes: [],
  };
  return loadTimetable(tablesToIpc(assembleTimetable(src, { walkRadiusM })));
}

export interface ScenarioQuery {
  from: string;
  to: string;
  /** YYYY-MM-DD, default 2024-03-05 (a Tuesday) */
  date?: string;
  time: string;
  arriveBy?: boolean;
  maxTransfers?: number;
  windowSec?: number;
}

/** Run a search and print each Pareto journey on one line, sorted by arrival (departure for arriveBy). */
export function runScenario(tt: Timetable, q: ScenarioQuery): string[] {
  const tz = tt.meta.timezones[0]!;
  const day = isoToDay(q.date ?? "2024-03-05");
  const t = localToUnix(day, parseTime(q.time), tz);
  const epoch = t - 2 * 86400;
  const idx = (name: string) => {
    const i = tt.meta.stopId.indexOf(name);
    if (i < 0) throw new Error(`no stop ${name}`);
    return i as StopIdx;
  };
  const res = searchJourneys(
    prepare({ forward: tt.core, backward: () => (tt.reversed ??= reverseCore(tt.core)) }),
    {
      epochSec: epoch,
      timeSec: t - epoch,
      arriveBy: q.arriveBy ?? false,
      windowSec: q.windowSec ?? 0,
      horizonSec: 86400,
      access: [{ stop: idx(q.from), walkSec: 0 }],
      egress: [{ stop: idx(q.to), walkSec: 0 }],
      maxTransfers: q.maxTransfers ?? 5,
      walkSpeed: 1.33,
      days: buildServiceDays(tt, epoch, t),
      wheelchair: false,
    },
    new RaptorStatePool(),
  );
  const js = [...res.journeys].sort((a, b) => a.arriveSec - b.arriveSec || a.rides - b.rides || b.departSec - a.departSec);
  return js.map((j) => describe(tt, j, epoch, tz, day));
}

/** One line per journey; times are local, hours past 24 when after midnight of the query date. */
export function describe(tt: Timetable, j: Journey, epoch: number, tz: string, day: number): string {
  const name = (s: number) => tt.meta.stopId[s]!;
  const local = (rel: number) => {
    const unix = epoch + rel;
    const p = localParts(unix, tz);
    return fmtTime((p.day - day) * 86400 + p.sec);
  };
  const parts: string[] = [];
  for (const l of j.legs) {
    if (l.kind === "ride") parts.push(`${tt.meta.gtfsRoutes[tt.meta.routeGtfsRoute[l.route]!]!.routeId} ${name(l.fromStop)} ${local(l.depSec)} ${name(l.toStop)} ${local(l.arrSec)}`);
    else if (l.kind === "transfer") parts.push(`walk ${name(l.fromStop)}-${name(l.toStop)}`);
  }
  return parts.join(", ");
}
