/**
 * A country-sized GTFS test set made from New York's MTA feeds (issue 33): K copies of the ten
 * feeds, each copy with its ids prefixed, moved east by 3° of longitude per copy (so copies do not
 * overlap), and calendars that run a whole year (2026) with as much service a day as the feed has
 * (yearExceptions), holidays removed and a Saturday added by calendar_dates; copy 1 runs from July
 * 2026 to June 2027 (a feed across two years). Default feeds: the nine of bench:plan's NYC. Copies are
 * joined: copy k (k ≥ 1) has a bridge line (writeBridge) from next to copy k-1's subway station "101"
 * to next to its own, so the planner's footpaths (straight-line walks within its radius, across
 * feeds) join them and journeys ride from one copy into the next (its stops are in joined.json).
 *
 *   bun bench/scale/generate.ts --copies K --out DIR [--source bench/.mta] [--feeds a,b,...] [--single] [--zip]
 *
 * Output: DIR/c<k>-<feed>/ folders of .txt files (`interchange import` takes folders), zipped to
 * DIR/c<k>-<feed>.zip with `--zip` (needs the `zip` command). `--single`: every copy and feed in
 * one feed, DIR/single.zip (ids prefixed by copy and feed: c<k>f<j>_), for a single feed of tens of
 * millions of stop_times. Rows stream through (no file is held in memory). The source feeds:
 * `../shared/tools/mta-gtfs bench/.mta`. Prints rows written per file and the time.
 */
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { flag, hasFlag } from "../lib/args.ts";

/** Columns holding ids (or references to them) in any GTFS file: prefixed per copy. */
const ID_COLUMNS = new Set([
  "agency_id", "route_id", "service_id", "trip_id", "stop_id", "parent_station", "shape_id", "block_id", "zone_id", "origin_id", "destination_id",
  "contains_id", "from_stop_id", "to_stop_id", "from_route_id", "to_route_id", "from_trip_id", "to_trip_id", "level_id", "fare_id", "pathway_id",
  "network_id", "area_id", "location_id", "location_group_id",
]);
const LON_COLUMNS = new Set(["stop_lon", "shape_pt_lon"]);
/** The copies' shift east per copy (degrees of longitude): NYC's feeds span ~2.3° (Montauk to Staten Island). */
export const SHIFT_DEG = 3;
/** The station of each copy that a bridge line links to the previous copy's, and how far north its bridge stops are (degrees of latitude; ~110 m). */
export const BRIDGE_STATION = "101";
export const BRIDGE_OFFSET_DEG = 0.001;
/** The bridge line's speed (km/h), departures every 30 minutes from 05:00 to 23:00 each way. */
export const BRIDGE_KPH = 160;
/** Holidays removed from every weekday service, and the Saturday added (2026). */
export const HOLIDAYS = ["20260101", "20260525", "20260703", "20260907", "20261126", "20261225"];
export const ADDED_DAY = "20261226";

export interface CopyPlan {
  copy: number;
  /** prefix of every id */
  prefix: string;
  /** degrees added to every longitude */
  shift: number;
  /** calendar range */
  start: string;
  end: string;
}

export function copyPlan(copy: number, prefix = `c${copy}_`): CopyPlan {
  const twoYears = copy === 1;
  return { copy, prefix, shift: copy * SHIFT_DEG, start: twoYears ? "20260701" : "20260101", end: twoYears ? "20270630" : "20261231" };
}

/** One CSV line into fields (quotes respected; GTFS lines hold no newline here). */
export function splitCsv(line: string): string[] {
  if (!line.includes('"')) return line.split(",");
  const out: string[] = [];
  let cur = "", q = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (q) {
      if (c === '"') {
        if (line[i + 1] === '"') { cur += '"'; i++; } else q = false;
      } else cur += c;
    } else if (c === '"') q = true;
    else if (c === ",") { out.push(cur); cur = ""; }
    else cur += c;
  }
  out.push(cur);
  return out;
}
const csvField = (v: string) => (/[",\n\r]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v);

/** The lines of a file inside a zip, streamed (`unzip -p`). */
async function* zipLines(zip: string, name: string): AsyncGenerator<string> {
  const p = Bun.spawn(["unzip", "-p", zip, name], { stdout: "pipe", stderr: "ignore" });
  const dec = new TextDecoder();
  let rest = "";
  for await (const chunk of p.stdout) {
    const text = rest + dec.decode(chunk, { stream: true });
    const lines = text.split("\n");
    rest = lines.pop()!;
    for (const l of lines) yield l.endsWith("\r") ? l.slice(0, -1) : l;
  }
  rest += dec.decode();
  if (rest) yield rest.endsWith("\r") ? rest.slice(0, -1) : rest;
  await p.exited;
}

function filesOf(zip: string): string[] {
  const p = Bun.spawnSync(["unzip", "-Z1", zip], { stdout: "pipe" });
  return new TextDecoder().decode(p.stdout).split("\n").map((s) => s.trim()).filter((s) => s.endsWith(".txt"));
}

/** A buffered writer of lines. */
class Out {
  private parts: string[] = [];
  private size = 0;
  rows = 0;
  private readonly w: ReturnType<ReturnType<typeof Bun.file>["writer"]>;
  constructor(path: string) {
    this.w = Bun.file(path).writer({ highWaterMark: 1 << 20 });
  }
  line(s: string): void {
    this.parts.push(s);
    this.size += s.length;
    this.rows++;
    if (this.size > 1 << 20) this.flushParts();
  }
  private flushParts(): void {
    this.w.write(this.parts.join("\n") + "\n");
    this.parts = [];
    this.size = 0;
  }
  async close(): Promise<void> {
    if (this.parts.length) this.flushParts();
    await this.w.end();
  }
}

/** Where each file's rows go: one writer per (output folder, file name). */
class Sink {
  private readonly outs = new Map<string, { out: Out; header: string[] }>();
  constructor(private readonly dir: string, private readonly headers: Map<string, string[]> = new Map()) {
    mkdirSync(dir, { recursive: true });
  }
  /** the writer of `name`, its header written by the first caller (later callers' columns are mapped onto it) */
  of(name: string, header: string[]): { out: Out; header: string[] } {
    let o = this.outs.get(name);
    if (!o) {
      o = { out: new Out(join(this.dir, name)), header: this.headers.get(name) ?? header };
      header = o.header;
      o.out.line(header.join(","));
      o.out.rows = 0;
      this.outs.set(name, o);
    }
    return o;
  }
  async close(): Promise<Record<string, number>> {
    const rows: Record<string, number> = {};
    for (const [name, o] of this.outs) {
      await o.out.close();
      rows[name] = o.out.rows;
    }
    return rows;
  }
}

export interface Joined {
  copy: number;
  feed: string;
  /** a bridge stop (this copy's feed) and the station it is next to (the previous copy's, or this copy's) */
  stopId: string;
  nextToStopId: string;
  lat: number;
  lon: number;
}

const DAY_MS = 86_400_000;
const dayOf = (ymd: string) => Date.UTC(Number(ymd.slice(0, 4)), Number(ymd.slice(4, 6)) - 1, Number(ymd.slice(6, 8))) / DAY_MS;
const ymdOf = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10).replaceAll("-", "");
const WEEKDAYS = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"];

/**
 * The copy's calendar_dates: the feed's service spread over the copy's range without changing how
 * much runs on a day. Day d of the range is the feed's day `first + (d - first) mod L` (L: its
 * calendars' span rounded down to whole weeks, so weekdays stay); a service runs on d when it ran on
 * that day. calendar.txt's rows cover the whole range (their weekdays unchanged), so the exceptions
 * say where that differs; then the holidays are removed from the weekday services and the added
 * Saturday given to them.
 */
export function yearExceptions(calendar: Record<string, string>[], dates: Record<string, string>[], plan: CopyPlan): [string, string, "1" | "2"][] {
  const starts = calendar.map((c) => dayOf(c.start_date!)).concat(dates.map((d) => dayOf(d.date!)));
  const ends = calendar.map((c) => dayOf(c.end_date!)).concat(dates.map((d) => dayOf(d.date!)));
  if (!starts.length) return [];
  const first = Math.min(...starts);
  const span = Math.max(7, Math.floor((Math.max(...ends) - first + 1) / 7) * 7);
  const exc = new Map<string, Map<number, string>>();
  for (const d of dates) (exc.get(d.service_id!) ?? exc.set(d.service_id!, new Map()).get(d.service_id!)!).set(dayOf(d.date!), d.exception_type!);
  const rows = new Map(calendar.map((c) => [c.service_id!, c]));
  const services = new Set([...rows.keys(), ...exc.keys()]);
  const ranOn = (sid: string, day: number) => {
    const x = exc.get(sid)?.get(day);
    if (x === "1") return true;
    if (x === "2") return false;
    const c = rows.get(sid);
    return !!c && dayOf(c.start_date!) <= day && day <= dayOf(c.end_date!) && c[WEEKDAYS[new Date(day * DAY_MS).getUTCDay()]!] === "1";
  };
  const out: [string, string, "1" | "2"][] = [];
  const from = dayOf(plan.start), to = dayOf(plan.end);
  const holidays = new Set(HOLIDAYS.map(dayOf)), added = dayOf(ADDED_DAY);
  for (const sid of services) {
    const c = rows.get(sid);
    const weekdayService = !!c && ["monday", "tuesday", "wednesday", "thursday", "friday"].some((w) => c[w] === "1");
    for (let day = from; day <= to; day++) {
      const calendarSays = !!c && c[WEEKDAYS[new Date(day * DAY_MS).getUTCDay()]!] === "1";
      let runs = ranOn(sid, first + ((((day - first) % span) + span) % span));
      if (weekdayService && holidays.has(day)) runs = false;
      if (weekdayService && day === added) runs = true;
      if (runs !== calendarSays) out.push([plan.prefix + sid, ymdOf(day), runs ? "1" : "2"]);
    }
  }
  return out;
}

/** A small file of a zip as rows (objects by header). */
async function smallTable(zip: string, name: string): Promise<Record<string, string>[]> {
  if (!filesOf(zip).includes(name)) return [];
  let header: string[] | null = null;
  const out: Record<string, string>[] = [];
  for await (const line of zipLines(zip, name)) {
    if (header === null) header = splitCsv(line.replace(/^\uFEFF/, "")).map((h) => h.trim());
    else if (line) {
      const f = splitCsv(line);
      out.push(Object.fromEntries(header.map((h, i) => [h, (f[i] ?? "").trim()])));
    }
  }
  return out;
}

/**
 * One feed of one copy into `sink`: ids prefixed, longitudes shifted, calendar.txt over the copy's
 * range and calendar_dates from yearExceptions, and (copy k ≥ 1, the subway) the bridge line.
 */
export async function copyFeed(zip: string, feedName: string, plan: CopyPlan, sink: Sink, joined: Joined[], bridge: boolean): Promise<void> {
  const exceptions = yearExceptions(await smallTable(zip, "calendar.txt"), await smallTable(zip, "calendar_dates.txt"), plan);
  const bridgeAt = new Map<string, { lat: number; lon: number }>();
  let agencyId: string | null = null;
  for (const name of filesOf(zip)) {
    if (name === "calendar_dates.txt") continue; // replaced below
    let header: string[] | null = null;
    let target: { out: Out; header: string[] } | null = null;
    let map: number[] = [];
    let idCols: number[] = [], lonCols: number[] = [];
    let col: Record<string, number> = {};
    for await (const line of zipLines(zip, name)) {
      if (header === null) {
        header = splitCsv(line.replace(/^\uFEFF/, "")).map((h) => h.trim());
        col = Object.fromEntries(header.map((h, i) => [h, i]));
        target = sink.of(name, header);
        map = target.header.map((h) => (h in col ? col[h]! : -1));
        idCols = header.flatMap((h, i) => (ID_COLUMNS.has(h) ? [i] : []));
        lonCols = header.flatMap((h, i) => (LON_COLUMNS.has(h) ? [i] : []));
        continue;
      }
      if (line === "") continue;
      const f = splitCsv(line);
      for (const i of idCols) if (f[i]) f[i] = plan.prefix + f[i];
      for (const i of lonCols) if (f[i]) f[i] = (Number(f[i]) + plan.shift).toFixed(6);
      if (name === "calendar.txt") {
        f[col.start_date!] = plan.start;
        f[col.end_date!] = plan.end;
      }
      if (name === "stops.txt" && bridge && f[col.stop_id!] === plan.prefix + BRIDGE_STATION) {
        bridgeAt.set(BRIDGE_STATION, { lat: Number(f[col.stop_lat!]), lon: Number(f[col.stop_lon!]) });
      }
      if (name === "agency.txt" && agencyId === null) agencyId = f[col.agency_id!] ?? "";
      target!.out.line(map.map((i) => csvField(i >= 0 ? (f[i] ?? "") : "")).join(","));
    }
  }
  const cd = sink.of("calendar_dates.txt", ["service_id", "date", "exception_type"]);
  for (const row of exceptions) cd.out.line(row.join(","));
  const at = bridgeAt.get(BRIDGE_STATION);
  if (at) writeBridge(sink, plan, agencyId ?? "", at, joined, feedName);
}

/**
 * The bridge line of copy k: two stops 110 m north of the previous copy's station and of this
 * copy's, and trains between them at BRIDGE_KPH every 30 minutes each way, every day of the range
 * (the planner's footpaths join its ends to the stations: journeys ride from one copy into the next).
 */
function writeBridge(sink: Sink, plan: CopyPlan, agencyId: string, at: { lat: number; lon: number }, joined: Joined[], feedName: string): void {
  const p = plan.prefix;
  const west = { id: `${p}BRIDGE_W`, lat: at.lat + BRIDGE_OFFSET_DEG, lon: at.lon - SHIFT_DEG };
  const east = { id: `${p}BRIDGE_E`, lat: at.lat + BRIDGE_OFFSET_DEG, lon: at.lon };
  const km = (SHIFT_DEG * 111.195 * Math.cos((at.lat * Math.PI) / 180));
  const ride = Math.round((km / BRIDGE_KPH) * 3600);
  const put = (file: string, row: Record<string, string>) => {
    const t = sink.of(file, Object.keys(row));
    t.out.line(t.header.map((h) => csvField(row[h] ?? "")).join(","));
  };
  const hms = (s: number) => [Math.floor(s / 3600), Math.floor(s / 60) % 60, s % 60].map((x) => String(x).padStart(2, "0")).join(":");
  for (const s of [west, east]) put("stops.txt", { stop_id: s.id, stop_name: `Bridge ${s === west ? "west" : "east"} (copy ${plan.copy})`, stop_lat: s.lat.toFixed(6), stop_lon: s.lon.toFixed(6) });
  put("routes.txt", { route_id: `${p}BRIDGE`, agency_id: agencyId, route_short_name: "BR", route_long_name: `Bridge to copy ${plan.copy - 1}`, route_type: "2" });
  put("calendar.txt", { service_id: `${p}BRIDGE_ALL`, monday: "1", tuesday: "1", wednesday: "1", thursday: "1", friday: "1", saturday: "1", sunday: "1", start_date: plan.start, end_date: plan.end });
  let n = 0;
  for (let t = 5 * 3600; t <= 23 * 3600; t += 1800) {
    for (const [from, to] of [[west, east], [east, west]] as const) {
      const trip = `${p}BRIDGE_${n++}`;
      put("trips.txt", { route_id: `${p}BRIDGE`, service_id: `${p}BRIDGE_ALL`, trip_id: trip });
      put("stop_times.txt", { trip_id: trip, arrival_time: hms(t), departure_time: hms(t), stop_id: from.id, stop_sequence: "1" });
      put("stop_times.txt", { trip_id: trip, arrival_time: hms(t + ride), departure_time: hms(t + ride), stop_id: to.id, stop_sequence: "2" });
    }
  }
  joined.push({ copy: plan.copy, feed: feedName, stopId: west.id, nextToStopId: `c${plan.copy - 1}_${BRIDGE_STATION}`, lat: west.lat, lon: west.lon });
  joined.push({ copy: plan.copy, feed: feedName, stopId: east.id, nextToStopId: `${p}${BRIDGE_STATION}`, lat: east.lat, lon: east.lon });
}

async function main(): Promise<void> {
  const copies = Number(flag("copies", "1"));
  const out = resolve(flag("out", "bench/.work/scale"));
  const source = resolve(flag("source", "bench/.mta"));
  const single = hasFlag("single");
  const zipIt = hasFlag("zip") || single;
  if (!Number.isInteger(copies) || copies < 1) throw new Error("--copies must be a whole number >= 1");
  if (!existsSync(source)) throw new Error(`no MTA feeds in ${source}: build them with ../shared/tools/mta-gtfs ${source}`);
  // New York's nine feeds as bench:plan's NYC has them (mta-subway-supplemented is another take on the subway)
  const wanted = flag("feeds", "mta-subway,mta-bus-bk,mta-bus-bx,mta-bus-m,mta-bus-qns,mta-bus-si,mta-bus-busco,mta-lirr,mta-mnr").split(",");
  const feeds = wanted.map((f) => `${f}.zip`).filter((f) => existsSync(join(source, f)));
  if (!feeds.length) throw new Error(`no .zip in ${source}`);
  const t0 = performance.now();
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const joined: Joined[] = [];
  const written: Record<string, Record<string, number>> = {};
  // one feed of every copy and feed: each file's columns are the union of the feeds' columns
  const union = new Map<string, string[]>();
  if (single) {
    for (const feed of feeds) {
      for (const name of filesOf(join(source, feed))) {
        for await (const line of zipLines(join(source, feed), name)) {
          const cols = union.get(name) ?? [];
          for (const h of splitCsv(line.replace(/^\uFEFF/, "")).map((x) => x.trim())) if (!cols.includes(h)) cols.push(h);
          union.set(name, cols);
          break;
        }
      }
    }
    union.set("calendar_dates.txt", ["service_id", "date", "exception_type"]);
  }
  const singleSink = single ? new Sink(join(out, "single"), union) : null;
  for (let k = 0; k < copies; k++) {
    for (const [j, feed] of feeds.entries()) {
      const name = feed.replace(/\.zip$/, "");
      const plan = single ? copyPlan(k, `c${k}f${j}_`) : copyPlan(k);
      const sink = singleSink ?? new Sink(join(out, `c${k}-${name}`));
      await copyFeed(join(source, feed), name, plan, sink, joined, k > 0 && name === "mta-subway");
      if (!single) written[`c${k}-${name}`] = await sink.close();
      console.error(`copy ${k} ${name}: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    }
  }
  if (singleSink) written.single = await singleSink.close();
  // joined pairs: in single mode the previous copy's prefix names the same feed number
  if (single) for (const p of joined) p.nextToStopId = p.nextToStopId.replace(/^c(\d+)_/, (_, c) => `c${c}f${feeds.findIndex((f) => f.startsWith(p.feed))}_`);
  writeFileSync(join(out, "joined.json"), JSON.stringify({ copies, shift_deg: SHIFT_DEG, joined }, null, 2));
  if (zipIt) {
    for (const dir of Object.keys(written)) {
      const r = Bun.spawnSync(["zip", "-q", "-j", "-1", join(out, `${dir}.zip`), ...readdirSync(join(out, dir)).map((f) => join(out, dir, f))]);
      if (r.exitCode !== 0) throw new Error(`zip failed for ${dir} (is the zip command installed?)`);
      rmSync(join(out, dir), { recursive: true, force: true });
    }
  }
  const stopTimes = Object.values(written).reduce((n, w) => n + (w["stop_times.txt"] ?? 0), 0);
  console.log(JSON.stringify({ out, copies, single, feeds: Object.keys(written).length, stop_times: stopTimes, joined: joined.length, seconds: Math.round((performance.now() - t0) / 100) / 10 }));
}

if (import.meta.main) await main();
