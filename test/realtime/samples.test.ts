/**
 * FEATURE UNDER TEST: the shared samples issue 20 names that no other test reads (item 6): vehicle
 * positions (Caltrain against caltrain.zip, USF Bull Runner against usf-bullrunner.zip) kept as
 * Parquet row for row with the decoded protobuf, and the empty feeds (Caltrain alerts, HART trip
 * updates): refused until their kind is named, then served as empty snapshots.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import GtfsRealtimeBindings from "gtfs-realtime-bindings";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { runImportRt } from "../../pipeline/realtime/cli.ts";
import { Clock, datasetCopy, duckRows, feedIdOf, rtFile, rtServer, statusOf, type RtServer } from "./support.ts";

const { transit_realtime: rt } = GtfsRealtimeBindings;
type Json = any;

let data: string;
const ids: Record<string, string> = {};
const origLog = console.log;
async function importRt(feed: string, ...args: string[]): Promise<number> {
  console.log = () => {};
  try {
    return await runImportRt(["--data", data, "--feed-id", feed, "--retention-days", "0", ...args]);
  } finally {
    console.log = origLog;
  }
}
const decode = (name: string): Json => rt.FeedMessage.toObject(rt.FeedMessage.decode(readFileSync(rtFile(name))), { longs: Number, enums: String });

beforeAll(async () => {
  data = await datasetCopy("samples", ["caltrain", "usf-bullrunner", "hart"]);
  for (const f of ["caltrain", "usf-bullrunner", "hart"]) ids[f] = feedIdOf(data, f);
});

describe("vehicle positions as Parquet", () => {
  for (const [feed, file, n] of [["caltrain", "caltrain-vehicle-positions.pb", 14], ["usf-bullrunner", "usf-bullrunner-vehicle-positions.pb", 10]] as const) {
    test(`${file}: one row per VehiclePosition, equal to the decoded protobuf`, async () => {
      expect(await importRt(ids[feed]!, rtFile(file))).toBe(0);
      const msg = decode(file);
      const want = msg.entity
        .filter((e: Json) => e.vehicle)
        .map((e: Json) => ({
          entity_id: e.id,
          trip_id: e.vehicle.trip?.tripId ?? null,
          route_id: e.vehicle.trip?.routeId ?? null,
          vehicle_id: e.vehicle.vehicle?.id ?? null,
          latitude: Math.fround(e.vehicle.position.latitude),
          longitude: Math.fround(e.vehicle.position.longitude),
          timestamp: e.vehicle.timestamp ?? null,
        }))
        .sort((a: Json, b: Json) => (a.entity_id < b.entity_id ? -1 : 1));
      expect(want).toHaveLength(n);
      const rows = await duckRows(
        `SELECT entity_id, trip_id, route_id, vehicle_id, latitude, longitude, "timestamp", header_timestamp, feed_id FROM read_parquet('${join(data, "realtime", "vehicle_positions")}/feed_id=${ids[feed]}/*/*.parquet', hive_partitioning = true) ORDER BY entity_id`,
      );
      expect(rows.map((r) => ({ ...r, latitude: Math.fround(Number(r.latitude)), longitude: Math.fround(Number(r.longitude)), timestamp: r.timestamp === null ? null : Number(r.timestamp), header_timestamp: undefined, feed_id: undefined }))).toEqual(
        want.map((w: Json) => ({ ...w, header_timestamp: undefined, feed_id: undefined })),
      );
      for (const r of rows) {
        expect(Number(r.header_timestamp)).toBe(msg.header.timestamp);
        expect(r.feed_id).toBe(ids[feed]);
      }
      expect(statusOf(data, ids[feed]!).kinds.vehicle_positions!.current!.entities).toBe(n);
    });
  }
});

describe("empty feeds", () => {
  let s: RtServer;
  // caltrain-alerts-empty.pb: 2023-11-08T01:05:46Z; hart-trip-updates-empty.pb: 2021-03-07T08:49:55Z
  const clock = new Clock(0);
  afterAll(() => s?.stop());

  test("a feed with no entity is refused until its kind is named, then kept as an empty snapshot", async () => {
    expect(await importRt(ids.caltrain!, rtFile("caltrain-alerts-empty.pb"))).not.toBe(0);
    expect(statusOf(data, ids.caltrain!)?.kinds.alerts?.current ?? null).toBeNull();
    expect(await importRt(ids.caltrain!, "--kind", "alerts", rtFile("caltrain-alerts-empty.pb"))).toBe(0);
    expect(statusOf(data, ids.caltrain!).kinds.alerts!.current!.entities).toBe(0);
    expect(await importRt(ids.hart!, "--kind", "trip_updates", rtFile("hart-trip-updates-empty.pb"))).toBe(0);
    expect(statusOf(data, ids.hart!).kinds.trip_updates!.current!.entities).toBe(0);
    const rows = await duckRows(`SELECT count(*)::INTEGER AS n FROM read_parquet('${join(data, "realtime", "alerts")}/feed_id=${ids.caltrain}/*/*.parquet')`);
    expect(rows[0]!.n).toBe(0);
  });

  test("served: the empty trip updates with no trip, then (the clock moved on to 2023) the empty alerts snapshot giving every Caltrain trip empty alert lists", async () => {
    clock.ms = 1615106995 * 1000 + 30_000; // HART's snapshot time
    s = await rtServer(data, clock, 600);
    const h1 = await s.json("/health");
    expect(h1.features.realtime.feeds[ids.hart!].trip_updates).toMatchObject({ serving: true, trips: 0 });
    // Caltrain's snapshot is from 2023: not served yet, said so
    expect(h1.features.realtime.feeds[ids.caltrain!].alerts).toMatchObject({ serving: false, not_served: "stamped in the future" });
    clock.ms = 1699405546 * 1000 + 30_000;
    await s.json("/health"); // the clock reaching a waiting snapshot loads it (a refresh in the background)
    await s.refreshRealtime();
    const h2 = await s.json("/health");
    expect(h2.features.realtime.feeds[ids.caltrain!].alerts).toMatchObject({ serving: true, alerts: 0 });
    const trips = (await s.json(`/api/v2/rest/routes/${encodeURIComponent(`${ids.caltrain}:L1`)}/trips?include_alerts=true&limit=5`)).trips;
    expect(trips.length).toBeGreaterThan(0);
    for (const t of trips) {
      expect(t.alerts).toEqual([]);
      expect(t.route.alerts).toEqual([]);
    }
    // and HART's, two years old now, is dropped
    expect(h2.features.realtime.feeds[ids.hart!].trip_updates.serving).toBe(false);
  });
});
