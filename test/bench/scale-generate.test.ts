/**
 * FEATURE UNDER TEST: the country-scale test set generator (bench/scale/generate.ts) on a tiny
 * input: a hand-written "mta-subway" feed (with the bridge station 101) and BART from the shared
 * data. Checks the copies' ids and references, the shift in space, the year-long calendars (as much
 * service a day as the source, holidays removed, the Saturday added, copy 1 across two years), the
 * joined stations within 200 m of the previous copy's, `--single`, and that the real pipeline
 * imports what it writes.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { importFeed } from "../../pipeline/import.ts";
import { haversineM } from "../../shared/geo.ts";
import { gtfs, tempDir } from "../support/dataset.ts";
import { GtfsFeed } from "../support/gtfs-reader.ts";

const GENERATE = resolve(import.meta.dir, "..", "..", "bench", "scale", "generate.ts");
const SUBWAY: Record<string, string> = {
  "agency.txt": "agency_id,agency_name,agency_url,agency_timezone\nMTA NYCT,MTA New York City Transit,https://new.mta.info,America/New_York\n",
  "stops.txt": "stop_id,stop_name,stop_lat,stop_lon,location_type,parent_station\n101,Van Cortlandt Park,40.889248,-73.898583,1,\n101N,Van Cortlandt Park,40.889248,-73.898583,,101\n103,238 St,40.884667,-73.90087,1,\n103N,238 St,40.884667,-73.90087,,103\n",
  "routes.txt": "route_id,agency_id,route_short_name,route_type\n1,MTA NYCT,1,1\n",
  "trips.txt": "route_id,service_id,trip_id\n1,Weekday,T1\n1,Saturday,T2\n",
  "stop_times.txt": "trip_id,arrival_time,departure_time,stop_id,stop_sequence\nT1,08:00:00,08:00:00,101N,1\nT1,08:02:00,08:02:00,103N,2\nT2,09:00:00,09:00:00,101N,1\nT2,09:02:00,09:02:00,103N,2\n",
  "calendar.txt": "service_id,monday,tuesday,wednesday,thursday,friday,saturday,sunday,start_date,end_date\nWeekday,1,1,1,1,1,0,0,20260526,20261031\nSaturday,0,0,0,0,0,1,0,20260526,20261031\n",
  "calendar_dates.txt": "service_id,date,exception_type\nWeekday,20260608,2\n",
  "transfers.txt": "from_stop_id,to_stop_id,transfer_type,min_transfer_time\n101,101,2,180\n",
};

let source: string;
let out: string;
let single: string;

function generate(args: string[]): void {
  const r = Bun.spawnSync([process.execPath, GENERATE, ...args], { stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(new TextDecoder().decode(r.stderr));
}

beforeAll(() => {
  source = tempDir("interchange-scale-src-");
  const dir = join(source, "subway");
  mkdirSync(dir);
  for (const [f, text] of Object.entries(SUBWAY)) writeFileSync(join(dir, f), text);
  Bun.spawnSync(["zip", "-q", "-j", join(source, "mta-subway.zip"), ...Object.keys(SUBWAY).map((f) => join(dir, f))]);
  copyFileSync(gtfs("bart"), join(source, "bart.zip"));
  out = join(tempDir("interchange-scale-out-"), "set");
  generate(["--copies", "2", "--out", out, "--source", source, "--feeds", "mta-subway,bart"]);
  single = join(tempDir("interchange-scale-single-"), "set");
  generate(["--copies", "2", "--out", single, "--source", source, "--feeds", "mta-subway,bart", "--single"]);
}, 120_000);

const feedOf = (dir: string) => new GtfsFeed(dir);

describe("copies", () => {
  test("every id prefixed by its copy, every reference resolving inside the copy", () => {
    for (const k of [0, 1]) {
      const f = feedOf(join(out, `c${k}-bart`));
      const stops = new Set(f.table("stops").map((s) => s.stop_id));
      const trips = new Set(f.table("trips").map((t) => t.trip_id));
      const routes = new Set(f.table("routes").map((r) => r.route_id));
      const services = new Set([...f.table("calendar"), ...f.table("calendar_dates")].map((c) => c.service_id));
      for (const id of [...stops, ...trips, ...routes, ...services]) expect(id!.startsWith(`c${k}_`)).toBe(true);
      for (const st of f.table("stop_times")) {
        expect(stops.has(st.stop_id)).toBe(true);
        expect(trips.has(st.trip_id)).toBe(true);
      }
      for (const t of f.table("trips")) {
        expect(routes.has(t.route_id)).toBe(true);
        expect(services.has(t.service_id)).toBe(true);
      }
      expect(f.table("stop_times").length).toBe(new GtfsFeed(gtfs("bart")).table("stop_times").length);
    }
  });

  test("copy k is moved k × 3° east; a bridge line joins copy k to copy k-1", () => {
    const src = new GtfsFeed(gtfs("bart")).table("stops");
    const c1 = feedOf(join(out, "c1-bart")).table("stops");
    for (let i = 0; i < src.length; i++) {
      if (!src[i]!.stop_lon) continue;
      expect(Number(c1[i]!.stop_lon)).toBeCloseTo(Number(src[i]!.stop_lon) + 3, 5);
      expect(Number(c1[i]!.stop_lat)).toBeCloseTo(Number(src[i]!.stop_lat), 5);
    }
    const joined = JSON.parse(readFileSync(join(out, "joined.json"), "utf8")).joined as { stopId: string; nextToStopId: string }[];
    expect(joined.map((j) => [j.stopId, j.nextToStopId])).toEqual([["c1_BRIDGE_W", "c0_101"], ["c1_BRIDGE_E", "c1_101"]]);
    const s0 = feedOf(join(out, "c0-mta-subway")).table("stops");
    const f1 = feedOf(join(out, "c1-mta-subway"));
    const s1 = f1.table("stops");
    for (const j of joined) {
      const a = s1.find((s) => s.stop_id === j.stopId)!;
      const b = [...s0, ...s1].find((s) => s.stop_id === j.nextToStopId)!;
      const d = haversineM(Number(a.stop_lat), Number(a.stop_lon), Number(b.stop_lat), Number(b.stop_lon));
      expect(d).toBeGreaterThan(50);
      expect(d).toBeLessThan(200);
    }
    // the bridge's trains: both ways, every day, at a plausible speed
    const trips = f1.table("trips").filter((t) => t.route_id === "c1_BRIDGE");
    expect(trips.length).toBeGreaterThan(60);
    expect(f1.servicesOn("2026-12-25").has("c1_BRIDGE_ALL")).toBe(true);
    const st = f1.table("stop_times").filter((x) => x.trip_id === trips[0]!.trip_id);
    const w = s1.find((s) => s.stop_id === "c1_BRIDGE_W")!, e = s1.find((s) => s.stop_id === "c1_BRIDGE_E")!;
    const km = haversineM(Number(w.stop_lat), Number(w.stop_lon), Number(e.stop_lat), Number(e.stop_lon)) / 1000;
    const sec = (t: string) => t.split(":").reduce((a, x) => a * 60 + Number(x), 0);
    const kph = km / ((sec(st[1]!.arrival_time!) - sec(st[0]!.departure_time!)) / 3600);
    expect(kph).toBeGreaterThan(100);
    expect(kph).toBeLessThan(200);
  });
});

describe("year-long calendars", () => {
  // (the bridge line's service runs every day: left out here)
  const running = (dir: string, date: string) => [...feedOf(dir).servicesOn(date)].filter((s) => !s.includes("BRIDGE")).sort();

  test("calendar.txt covers the copy's range (copy 1 across two years)", () => {
    for (const [k, start, end] of [[0, "20260101", "20261231"], [1, "20260701", "20270630"]] as const) {
      for (const c of feedOf(join(out, `c${k}-mta-subway`)).table("calendar")) expect([c.start_date, c.end_date]).toEqual([start, end]);
    }
  });

  test("as much service a day as the source: inside its range the same services, outside the same weekday of its weeks", () => {
    const c0 = join(out, "c0-mta-subway");
    expect(running(c0, "2026-06-02")).toEqual(["c0_Weekday"]); // a Tuesday inside the source's range
    expect(running(c0, "2026-06-08")).toEqual([]); // the source's own exception, kept
    expect(running(c0, "2026-06-06")).toEqual(["c0_Saturday"]);
    expect(running(c0, "2026-02-03")).toEqual(["c0_Weekday"]); // before the source's range: still a weekday's service
    expect(running(c0, "2026-02-07")).toEqual(["c0_Saturday"]);
    expect(running(c0, "2026-02-08")).toEqual([]); // Sundays: none in the source
  });

  test("holidays removed from weekday services, the added Saturday given to them", () => {
    const c0 = join(out, "c0-mta-subway");
    for (const h of ["2026-01-01", "2026-07-03", "2026-12-25"]) expect(running(c0, h)).not.toContain("c0_Weekday");
    expect(running(c0, "2026-12-26")).toEqual(["c0_Saturday", "c0_Weekday"]);
    expect(running(join(out, "c1-mta-subway"), "2027-03-02")).toEqual(["c1_Weekday"]);
    expect(running(join(out, "c1-mta-subway"), "2026-03-03")).toEqual([]);
  });
});

describe("--single and the pipeline", () => {
  test("one feed with every copy and feed, ids unique by copy and feed", () => {
    const f = new GtfsFeed(join(single, "single.zip"));
    const bart = new GtfsFeed(gtfs("bart")).table("stop_times").length;
    const bridge = f.table("stop_times").filter((x) => x.trip_id!.includes("BRIDGE")).length;
    expect(bridge).toBeGreaterThan(100);
    expect(f.table("stop_times").length).toBe(2 * (bart + 4) + bridge);
    const ids = f.table("stops").map((s) => s.stop_id!);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.some((id) => id.startsWith("c1f1_"))).toBe(true);
  });

  test("the real pipeline imports the copies and the single feed", async () => {
    const data = tempDir("interchange-scale-data-");
    for (const src of [join(out, "c0-mta-subway"), join(out, "c1-bart"), join(single, "single.zip")]) {
      const r = await importFeed({ dataDir: data, source: src });
      expect(r.status).toBe("imported");
    }
  }, 120_000);
});
