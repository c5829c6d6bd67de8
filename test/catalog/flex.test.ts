/**
 * FEATURE UNDER TEST: GTFS-Flex trips in the catalog (the real pipeline and server, ctran-flex): every
 * trip of the feed is listed, and a flex trip's stop_times carry no stop and no times but the zone
 * (with its GeoJSON geometry) or the location group (with its stops), the pickup/drop-off window
 * and the booking rules' ids, as in the source files (read here independently with fflate).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { strFromU8, unzipSync } from "fflate";
import { allPages, catalogServer, type TestServer } from "./harness.ts";
import { gtfs } from "../support/dataset.ts";
import { parseCsv } from "../support/raw-gtfs.ts";

let s: TestServer;
beforeAll(async () => {
  s = await catalogServer();
});
afterAll(() => s?.stop());

const zip = unzipSync(new Uint8Array(readFileSync(gtfs("ctran-flex"))));
const csv = (name: string) => parseCsv(strFromU8(zip[name]!));
const routePath = (routeId: string) => `/api/v2/rest/routes/${encodeURIComponent(`${s.feedId("ctran-flex")}:${routeId}`)}/trips`;
const pad = (t: string) => (t ? t.padStart(8, "0") : null);

describe("GTFS-Flex trips", () => {
  test("every trip of the feed is listed under its route", async () => {
    const trips = csv("trips.txt");
    let listed = 0;
    for (const r of csv("routes.txt")) {
      const { rows } = await allPages(s, `${routePath(r.route_id!)}?limit=1000`, "trips");
      expect(rows.map((t: any) => t.trip_id).sort()).toEqual(trips.filter((t) => t.route_id === r.route_id).map((t) => t.trip_id).sort());
      listed += rows.length;
    }
    expect(listed).toBe(1389);
  });

  test("a flex trip's stop_times: the zone or group, the window and the booking rules instead of a stop and times", async () => {
    const st = csv("stop_times.txt");
    const trips = new Map(csv("trips.txt").map((t) => [t.trip_id!, t]));
    const features = new Map((JSON.parse(strFromU8(zip["locations.geojson"]!)).features as any[]).map((f) => [f.id, f]));
    const groupStops = csv("location_group_stops.txt");
    const groupName = new Map(csv("location_groups.txt").map((g) => [g.location_group_id!, g.location_group_name!]));
    // one trip served in a zone, one in a location group
    for (const row of [st.find((r) => r.location_id)!, st.find((r) => r.location_group_id)!]) {
      const tripId = row.trip_id!;
      const list = await s.json(`${routePath(trips.get(tripId)!.route_id!)}?trip_id=${encodeURIComponent(tripId)}`);
      expect(list.trips.length).toBe(1);
      const one = await s.json(`/api/v2/rest/routes/${list.trips[0].route.id}/trips/${list.trips[0].id}`);
      const got = one.trips[0].stop_times;
      const want = st.filter((r) => r.trip_id === tripId).sort((a, b) => Number(a.stop_sequence) - Number(b.stop_sequence));
      expect(got.length).toBe(want.length);
      got.forEach((x: any, i: number) => {
        const r = want[i]!;
        expect({ seq: x.stop_sequence, arr: x.arrival_time, dep: x.departure_time, stop: x.stop, pickup: x.pickup_type, dropOff: x.drop_off_type })
          .toEqual({ seq: Number(r.stop_sequence), arr: null, dep: null, stop: null, pickup: Number(r.pickup_type), dropOff: Number(r.drop_off_type) });
        expect(x.start_pickup_drop_off_window).toBe(pad(r.start_pickup_drop_off_window!));
        expect(x.end_pickup_drop_off_window).toBe(pad(r.end_pickup_drop_off_window!));
        expect(x.pickup_booking_rule_id).toBe(r.pickup_booking_rule_id || null);
        expect(x.drop_off_booking_rule_id).toBe(r.drop_off_booking_rule_id || null);
        if (r.location_id) {
          const f = features.get(r.location_id)!;
          expect(x.location).toEqual({ type: "location", id: r.location_id, name: f.properties.stop_name ?? null, geometry: f.geometry });
        } else {
          expect(x.location.type).toBe("location_group");
          expect(x.location.id).toBe(r.location_group_id);
          expect(x.location.name).toBe(groupName.get(r.location_group_id!)!);
          expect(x.location.stops.map((p: any) => p.stop_id)).toEqual(groupStops.filter((g) => g.location_group_id === r.location_group_id).map((g) => g.stop_id));
          for (const p of x.location.stops) expect(p.geometry.type).toBe("Point");
        }
      });
    }
  });

  test("a fixed-route trip's stop_times have no flex fields", async () => {
    const list = await s.json(`/api/v2/rest/routes/${encodeURIComponent(`${s.feedId("caltrain")}:L1`)}/trips?limit=1`);
    const one = await s.json(`/api/v2/rest/routes/${list.trips[0].route.id}/trips/${list.trips[0].id}`);
    for (const x of one.trips[0].stop_times) {
      expect(x.stop).not.toBeNull();
      expect("location" in x || "start_pickup_drop_off_window" in x).toBe(false);
    }
  });
  test("licence filters keep flex trips as they keep any trip of the feed (the feed's licence is unknown: exclude_no keeps it, yes drops it)", async () => {
    const route = csv("routes.txt")[0]!.route_id!;
    const all = await allPages(s, `${routePath(route)}?limit=1000`, "trips");
    expect(all.rows.length).toBeGreaterThan(0);
    const kept = await allPages(s, `${routePath(route)}?limit=1000&license_commercial_use_allowed=exclude_no&license_redistribution_allowed=exclude_no`, "trips");
    expect(kept.rows.map((t: any) => t.id)).toEqual(all.rows.map((t: any) => t.id));
    const dropped = await allPages(s, `${routePath(route)}?limit=1000&license_commercial_use_allowed=yes`, "trips");
    expect(dropped.rows).toEqual([]);
  });
});
