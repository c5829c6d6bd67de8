/**
 * FEATURE UNDER TEST: GTFS-Flex v2 feeds import with their flex service: zones (locations.geojson),
 * location groups, booking rules and the flex stop_times (a zone or group instead of a stop, a
 * pickup/drop-off window instead of times) into Parquet, compared with the source files read here
 * independently (fflate); the planner's timetable still compiles such a feed and leaves the flex
 * stop_times out, planning on its fixed-route trips.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { strFromU8, unzipSync } from "fflate";
import { importFeed } from "../../pipeline/import.ts";
import { refreshTimetable } from "../../pipeline/timetable/publish.ts";
import { readManifest } from "../../pipeline/schema/manifest.ts";
import { loadTimetableFile } from "../../server/planner/timetable/arrow-loader.ts";
import { PlanService } from "../../server/planner/plan-service.ts";
import { parsePlanParams } from "../../server/planner/plan-params.ts";
import { gtfs, tempDir } from "../support/dataset.ts";
import { hmsToSec, parseCsv } from "../support/raw-gtfs.ts";
import { sql } from "../support/duck.ts";
import { planResponse } from "../../server/planner/otp1/plan.ts";

const zip = unzipSync(new Uint8Array(readFileSync(gtfs("ctran-flex"))));
const csv = (name: string) => parseCsv(strFromU8(zip[name]!));
const orNull = (v: string | undefined) => (v === undefined || v === "" ? null : v);

async function imported(source: string) {
  const data = tempDir("interchange-flex-");
  const report = await importFeed({ dataDir: data, source });
  expect(report.error).toBeUndefined();
  const v = readManifest(data).versions.find((x) => x.sha1 === report.sha1)!;
  const pq = (t: string) => `read_parquet('${join(data, v.path, `${t}.parquet`)}')`;
  return { data, report, pq };
}

describe("GTFS-Flex import (ctran-flex)", () => {
  const feed = imported(gtfs("ctran-flex"));

  test("every trip and every flex stop_time is imported, nothing skipped", async () => {
    const { report, pq } = await feed;
    const trips = csv("trips.txt"), st = csv("stop_times.txt");
    expect(trips.length).toBe(1389);
    expect(report.tables["trips.txt"]).toEqual({ source_rows: 1389, imported_rows: 1389, skipped_rows: 0 });
    expect(report.tables["stop_times.txt"]).toEqual({ source_rows: st.length, imported_rows: st.length, skipped_rows: 0 });
    expect(Object.keys(report.warnings)).toEqual([]);
    const [{ n }] = await sql<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM ${pq("trips")}`);
    expect(n).toBe(1389);
    const ids = new Set((await sql<{ trip_id: string }>(`SELECT trip_id FROM ${pq("trips")}`)).map((r) => r.trip_id));
    expect(trips.every((t) => ids.has(t.trip_id!))).toBe(true);
  });

  test("flex stop_times equal the source: zone or group, windows, booking rules, no stop and no times", async () => {
    const { pq } = await feed;
    const rows = await sql<Record<string, string | number | null>>(`SELECT trip_id, stop_sequence, stop_ref, stop_id, arrival_time, departure_time, interpolated,
        location_id, location_group_id, start_pickup_drop_off_window, end_pickup_drop_off_window, pickup_booking_rule_id, drop_off_booking_rule_id, pickup_type, drop_off_type
      FROM ${pq("stop_times")}`);
    const byKey = new Map(rows.map((r) => [`${r.trip_id}|${r.stop_sequence}`, r]));
    const src = csv("stop_times.txt");
    expect(rows.length).toBe(src.length);
    const bad: string[] = [];
    for (const r of src) {
      const x = byKey.get(`${r.trip_id}|${Number(r.stop_sequence)}`);
      const want = {
        stop_ref: null, stop_id: null, arrival_time: null, departure_time: null, interpolated: 0,
        location_id: orNull(r.location_id), location_group_id: orNull(r.location_group_id),
        start_pickup_drop_off_window: hmsToSec(r.start_pickup_drop_off_window ?? ""), end_pickup_drop_off_window: hmsToSec(r.end_pickup_drop_off_window ?? ""),
        pickup_booking_rule_id: orNull(r.pickup_booking_rule_id), drop_off_booking_rule_id: orNull(r.drop_off_booking_rule_id),
        pickup_type: r.pickup_type ? Number(r.pickup_type) : null, drop_off_type: r.drop_off_type ? Number(r.drop_off_type) : null,
      };
      if (!x) bad.push(`missing ${r.trip_id}/${r.stop_sequence}`);
      else if (JSON.stringify(Object.fromEntries(Object.keys(want).map((k) => [k, x[k]]))) !== JSON.stringify(want)) bad.push(`${r.trip_id}/${r.stop_sequence}`);
    }
    expect(bad.slice(0, 5)).toEqual([]);
    // each flex trip has a stop pattern of its own (Transitland's rule), without stops, and no shape
    const [t] = await sql<{ patterns: number; shapes: number; first: number }>(`SELECT count(DISTINCT stop_pattern_id)::INTEGER AS patterns,
      count(shape_id)::INTEGER AS shapes, min(first_departure)::INTEGER AS first FROM ${pq("trips")}`);
    expect(t).toEqual({ patterns: 1389, shapes: 0, first: Math.min(...src.map((r) => hmsToSec(r.start_pickup_drop_off_window!)!)) });
  });

  test("zones, location groups and booking rules equal the source files", async () => {
    const { pq, report } = await feed;
    const features = JSON.parse(strFromU8(zip["locations.geojson"]!)).features as Array<{ id: string; geometry: unknown; properties: Record<string, unknown> }>;
    const locs = await sql<{ location_id: string; stop_name: string | null; geometry: string; properties: string }>(`SELECT location_id, stop_name, geometry, properties FROM ${pq("locations")}`);
    expect(locs.map((l) => l.location_id)).toEqual(features.map((f) => f.id));
    locs.forEach((l, i) => {
      expect(JSON.parse(l.geometry)).toEqual(features[i]!.geometry);
      expect(JSON.parse(l.properties)).toEqual(features[i]!.properties);
      expect(l.stop_name).toBe((features[i]!.properties.stop_name as string) ?? null);
    });
    expect(report.tables["locations.geojson"]).toEqual({ source_rows: features.length, imported_rows: features.length, skipped_rows: 0 });
    const groups = await sql<{ location_group_id: string; location_group_name: string }>(`SELECT location_group_id, location_group_name FROM ${pq("location_groups")}`);
    expect(groups).toEqual(csv("location_groups.txt").map((r) => ({ location_group_id: r.location_group_id!, location_group_name: r.location_group_name! })));
    const members = await sql<{ location_group_id: string; stop_id: string; ok: boolean }>(`SELECT g.location_group_id, g.stop_id, s.stop_id = g.stop_id AS ok
      FROM ${pq("location_group_stops")} g LEFT JOIN ${pq("stops")} s ON s.id = g.stop_ref`);
    expect(members).toEqual(csv("location_group_stops.txt").map((r) => ({ location_group_id: r.location_group_id!, stop_id: r.stop_id!, ok: true })));
    const rules = await sql<Record<string, string | number | null>>(`SELECT booking_rule_id, booking_type, prior_notice_start_day, prior_notice_start_time, message, phone_number, booking_url
      FROM ${pq("booking_rules")}`);
    expect(rules).toEqual(csv("booking_rules.txt").map((r) => ({
      booking_rule_id: r.booking_rule_id!, booking_type: Number(r.booking_type), prior_notice_start_day: Number(r.prior_notice_start_day),
      prior_notice_start_time: hmsToSec(r.prior_notice_start_time!), message: r.message!, phone_number: r.phone_number!, booking_url: r.booking_url!,
    })));
  });
});

describe("GTFS-Flex and the planner", () => {
  test("a feed mixing fixed-route and flex trips: the timetable leaves the flex stop_times out and plans on the fixed trip", async () => {
    const dir = tempDir("interchange-flex-src-");
    const files: Record<string, string[]> = {
      "agency.txt": ["agency_id,agency_name,agency_url,agency_timezone", "A,A,https://a.example,America/New_York"],
      "stops.txt": ["stop_id,stop_name,stop_lat,stop_lon", "S1,S1,40.7128,-74.0060", "S2,S2,40.7200,-74.0000", "S3,S3,40.7300,-73.9950"],
      "routes.txt": ["route_id,agency_id,route_short_name,route_type", "R,A,R,3", "FLEX,A,F,3"],
      "calendar.txt": ["service_id,monday,tuesday,wednesday,thursday,friday,saturday,sunday,start_date,end_date", "D,1,1,1,1,1,1,1,20261101,20270331"],
      "trips.txt": ["route_id,service_id,trip_id", "R,D,R-1", "FLEX,D,Z-1", "FLEX,D,G-1"],
      "stop_times.txt": [
        "trip_id,stop_sequence,stop_id,arrival_time,departure_time,location_id,location_group_id,start_pickup_drop_off_window,end_pickup_drop_off_window,pickup_booking_rule_id",
        "R-1,1,S1,09:00:00,09:00:00,,,,,", "R-1,2,S2,09:05:00,09:05:00,,,,,",
        "Z-1,1,,,,Z,,08:00:00,18:00:00,B", "Z-1,2,,,,Z,,08:00:00,18:00:00,",
        "G-1,1,,,,,G,07:00:00,19:00:00,", "G-1,2,S3,20:00:00,20:00:00,,,,,",
      ],
      "location_groups.txt": ["location_group_id,location_group_name", "G,Group"],
      "location_group_stops.txt": ["location_group_id,stop_id", "G,S1", "G,S2"],
      "booking_rules.txt": ["booking_rule_id,booking_type,phone_number", "B,0,555"],
    };
    for (const [name, lines] of Object.entries(files)) writeFileSync(join(dir, name), lines.join("\n") + "\n");
    const zone = { type: "Polygon", coordinates: [[[-74.01, 40.71], [-74.0, 40.71], [-74.0, 40.72], [-74.01, 40.72], [-74.01, 40.71]]] };
    writeFileSync(join(dir, "locations.geojson"), JSON.stringify({ type: "FeatureCollection", features: [{ id: "Z", type: "Feature", properties: { stop_name: "Zone" }, geometry: zone }] }));
    const { data, report, pq } = await imported(dir);
    expect(report.tables["stop_times.txt"]).toEqual({ source_rows: 6, imported_rows: 6, skipped_rows: 0 });
    expect(report.tables["trips.txt"]!.imported_rows).toBe(3);
    const st = await sql<{ trip_id: string; stop_id: string | null; arrival_time: number | null; location_id: string | null; location_group_id: string | null; w: number | null }>(
      `SELECT trip_id, stop_id, arrival_time, location_id, location_group_id, start_pickup_drop_off_window AS w FROM ${pq("stop_times")} ORDER BY trip_ref, stop_sequence`);
    expect(st.map((r) => [r.trip_id, r.stop_id, r.arrival_time, r.location_id ?? r.location_group_id, r.w])).toEqual([
      ["R-1", "S1", 32400, null, null], ["R-1", "S2", 32700, null, null],
      ["Z-1", null, null, "Z", 28800], ["Z-1", null, null, "Z", 28800],
      ["G-1", null, null, "G", 25200], ["G-1", "S3", 72000, null, null],
    ]);
    const [{ geometry }] = await sql<{ geometry: string }>(`SELECT geometry FROM ${pq("locations")}`);
    expect(JSON.parse(geometry)).toEqual(zone);
    // the timetable: compiled from the Parquet, without the flex stop_times (only the stop_times with a stop and a time)
    await refreshTimetable(data);
    const tt = loadTimetableFile(join(data, readManifest(data).timetable!.path));
    expect(tt.core.nTrips).toBe(1); // R-1 only: Z-1 has no stop_time with a stop, G-1 a single one (no ride between stops)
    const svc = new PlanService(tt);
    const r = planResponse(svc.plan(parsePlanParams({ fromPlace: "40.7128,-74.0060", toPlace: "40.7200,-74.0000", date: "2026-11-24", time: "08:50", walkSpeed: "0.3", numItineraries: "1" }),
      Date.parse("2026-11-22T08:00:00Z"))) as { plan?: { itineraries: Array<{ legs: Array<{ transitLeg: boolean; tripId?: string }> }> } };
    const trips = r.plan!.itineraries.flatMap((it) => it.legs.filter((l) => l.transitLeg).map((l) => l.tripId));
    expect(trips.length).toBe(1);
    expect(trips[0]).toEndWith("R-1");
  });

  test("ctran-flex (flex service only) still gets a timetable, with no trips of its own", async () => {
    const { data } = await imported(gtfs("ctran-flex"));
    await refreshTimetable(data);
    const tt = loadTimetableFile(join(data, readManifest(data).timetable!.path));
    expect([tt.core.nTrips, tt.core.stopTimes.length]).toEqual([0, 0]);
  });
});
