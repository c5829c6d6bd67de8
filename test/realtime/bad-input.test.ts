/**
 * FEATURE UNDER TEST: bad realtime input never breaks anything. Each case (corrupt and truncated
 * protobuf, an HTML error page, a feed of the wrong kind, ids the static feed lacks, a feed for a
 * feed id the dataset does not have, header timestamps in the past, going backwards, or in the
 * future) is counted in the feed's status and /health; the last good snapshot keeps serving until
 * it is older than the maximum age, then it is dropped, not served stale.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { alertEntity, Clock, datasetCopy, encodeFeed, feedIdOf, ingester, rtFile, rtServer, type RtServer, statusOf } from "./support.ts";
import type { Ingester } from "../../pipeline/realtime/ingest.ts";

const T0 = 1_700_000_000;
const MAX_AGE_S = 300;

let data: string;
let feed: string;
let s: RtServer;
let ing: Ingester & { close(): void };
const clock = new Clock(T0 * 1000);

const good = (ts: number, text: string) => encodeFeed(ts, [alertEntity(text, [{ agencyId: "BART" }])]);
const agencyAlerts = async () => {
  const r = await s.get(`/api/v2/rest/routes/${encodeURIComponent(`${feed}:1`)}/trips?limit=1&include_alerts=true`);
  expect(r.status).toBe(200);
  return ((await r.json()) as any).trips[0].route.agency.alerts.map((a: any) => a.header_text[0].text);
};
/** Ingest at the test clock's time, as the poller does, then let the server follow. */
const feedIn = async (bytes: Uint8Array, kind: "alerts" | "trip_updates" = "alerts", id = feed) => {
  const [r] = await ing.ingest(id, kind, bytes, "test", new Date(clock.ms));
  await s.refreshRealtime();
  return r!;
};

beforeAll(async () => {
  data = await datasetCopy("bad-input", ["bart"]);
  feed = feedIdOf(data, "bart");
  ing = await ingester(data, "poller", MAX_AGE_S);
  s = await rtServer(data, clock, MAX_AGE_S);
  expect((await feedIn(good(T0 - 5, "first"))).outcome).toBe("accepted");
});
afterAll(async () => {
  await s?.stop();
  ing?.close();
});

describe("bad bytes", () => {
  test("a corrupt protobuf, a truncated one and an HTML error page are decode errors; the good snapshot stays", async () => {
    const bytes = good(T0, "second");
    const html = new TextEncoder().encode("<html><body><h1>502 Bad Gateway</h1></body></html>");
    const corrupt = bytes.slice();
    corrupt[1] = 0xff;
    corrupt[2] = 0xff;
    for (const b of [corrupt, bytes.subarray(0, bytes.length - 3), html, new Uint8Array(0)]) {
      const r = await feedIn(b);
      expect(r.outcome).toBe("decode_error");
      expect(r.message).toContain("not a GTFS-Realtime FeedMessage");
    }
    expect(await agencyAlerts()).toEqual(["alert first"]);
    const st = statusOf(data, feed).kinds.alerts!;
    expect(st.counts).toEqual({ accepted: 1, decode_error: 4 });
    expect(st.last!.outcome).toBe("decode_error");
  });

  test("a truncated real feed (caltrain-trip-updates.pb) is refused as a whole, never half-read", async () => {
    const real = new Uint8Array(readFileSync(rtFile("caltrain-trip-updates.pb")));
    const r = await feedIn(real.subarray(0, 3000), "trip_updates");
    expect(r.outcome).toBe("decode_error");
    expect(statusOf(data, feed).kinds.trip_updates!.current).toBeNull();
  });

  test("trip updates at the alerts URL are the wrong kind", async () => {
    const r = await feedIn(new Uint8Array(readFileSync(rtFile("bart-trip-updates-20190807.pb"))));
    expect(r.outcome).toBe("wrong_kind");
    expect(r.message).toBe("expected alerts entities, the feed has trip_updates");
    expect(await agencyAlerts()).toEqual(["alert first"]);
  });
});

describe("unknown entities", () => {
  test("a trip updates feed of unknown trips (BART 2015 ids against the 2019 feed) is kept and its unknown ids counted", async () => {
    const bytes = new Uint8Array(readFileSync(rtFile("bart-trip-updates-20150714.pb")));
    const archive = await ingester(data, "import-rt");
    try {
      const [r] = await archive.ingest(feed, null, bytes, rtFile("bart-trip-updates-20150714.pb"), new Date(clock.ms));
      expect(r!.outcome).toBe("accepted");
      expect(r!.snapshot!.unknown.by_field).toEqual({ trip_id: 35 }); // every trip unknown, every stop known
      expect(r!.snapshot!.entities).toBe(35);
      expect(r!.snapshot!.rows).toBe(40);
    } finally {
      archive.close();
    }
  });

  test("alerts for unknown trips, routes and stops are reported, not attached, and do not disturb the rest", async () => {
    const r = await feedIn(
      encodeFeed(T0 + 1, [
        alertEntity("ok", [{ agencyId: "BART" }]),
        alertEntity("ghost", [{ trip: { tripId: "GHOST" } }, { routeId: "GHOST" }, { agencyId: "BART", stopId: "GHOST" }, { agencyId: "GHOST" }]),
      ]),
    );
    expect(r.outcome).toBe("accepted");
    expect(r.snapshot!.unknown.by_field).toEqual({ trip_id: 1, route_id: 1, stop_id: 1, agency_id: 1 });
    expect(r.snapshot!.unattached_alerts).toBe(1);
    expect(await agencyAlerts()).toEqual(["alert ok"]);
  });

  test("a feed id with no static feed in the dataset: written, nothing checked against, nothing attached", async () => {
    const r = await feedIn(good(T0 + 1, "elsewhere"), "alerts", "f-9q9-nosuchfeed");
    expect(r.outcome).toBe("accepted");
    expect(r.snapshot!.checked_against).toBeNull();
    expect(r.snapshot!.unknown.by_field).toEqual({ agency_id: 1 });
    expect(await agencyAlerts()).toEqual(["alert ok"]);
  });
});

describe("header timestamps", () => {
  test("older than the maximum age: refused as stale on arrival", async () => {
    const r = await feedIn(good(T0 - MAX_AGE_S - 10, "stale"));
    expect(r.outcome).toBe("timestamp_past");
    expect(r.message).toContain(`(maximum age ${MAX_AGE_S} s)`);
    expect(await agencyAlerts()).toEqual(["alert ok"]);
  });

  test("older than the current snapshot: refused, the feed went backwards", async () => {
    const r = await feedIn(good(T0 - 1, "backwards"));
    expect(r.outcome).toBe("timestamp_backwards");
    expect(await agencyAlerts()).toEqual(["alert ok"]);
  });

  test("in the future beyond the tolerance: refused; within it: accepted", async () => {
    expect((await feedIn(good(T0 + 3600, "future"))).outcome).toBe("timestamp_future");
    expect(await agencyAlerts()).toEqual(["alert ok"]);
    expect((await feedIn(good(T0 + 60, "slightly ahead"))).outcome).toBe("accepted");
    expect(await agencyAlerts()).toEqual(["alert slightly ahead"]);
  });

  test("the same bytes again are unchanged, not a new snapshot", async () => {
    expect((await feedIn(good(T0 + 60, "slightly ahead"))).outcome).toBe("unchanged");
  });

  test("every outcome is counted in the status file and in /health", async () => {
    const counts = statusOf(data, feed).kinds.alerts!.counts;
    expect(counts).toEqual({ accepted: 3, decode_error: 4, wrong_kind: 1, timestamp_past: 1, timestamp_backwards: 1, timestamp_future: 1, unchanged: 1 });
    const h = (await s.json("/health")) as any;
    expect(h.features.realtime.feeds[feed].alerts.counts).toEqual(counts);
    expect(h.features.realtime.feeds[feed].trip_updates.counts).toEqual({ decode_error: 1, accepted: 1 });
  });
});

describe("maximum age", () => {
  test("the last good snapshot serves until it is older than the maximum age, then it is dropped, not served stale", async () => {
    clock.setS(T0 + 60 + MAX_AGE_S);
    expect(await agencyAlerts()).toEqual(["alert slightly ahead"]);
    clock.setS(T0 + 60 + MAX_AGE_S + 1);
    expect(await agencyAlerts()).toEqual([]);
    const h = (await s.json("/health")) as any;
    expect(h.status).toBe("ok");
    expect(h.features.realtime.feeds[feed].alerts).toMatchObject({ serving: false, not_served: expect.stringContaining("older than the maximum age") });
    // a fresh snapshot is served again
    expect((await feedIn(good(T0 + 60 + MAX_AGE_S, "fresh"))).outcome).toBe("accepted");
    expect(await agencyAlerts()).toEqual(["alert fresh"]);
  });

  test("a dataset with a broken status file and a missing snapshot file still serves (no alerts for that feed)", async () => {
    const { writeFileSync, rmSync } = await import("node:fs");
    const { join } = await import("node:path");
    writeFileSync(join(data, "realtime", "feeds", "f-9q9-broken.json"), "{ not json");
    const other = statusOf(data, "f-9q9-nosuchfeed").kinds.alerts!.current!;
    rmSync(join(data, other.path));
    await s.refreshRealtime();
    expect(await agencyAlerts()).toEqual(["alert fresh"]);
    expect(((await s.json("/health")) as any).status).toBe("ok");
  });
});
