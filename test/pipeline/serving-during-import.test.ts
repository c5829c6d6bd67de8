/**
 * FEATURE UNDER TEST: a running server keeps serving the previous active version while an import
 * runs and after it is killed with kill -9 half-way; a later successful import is picked up.
 */
import { describe, expect, test } from "bun:test";
import { importFeed } from "../../pipeline/import.ts";
import { refreshTimetable } from "../../pipeline/timetable/publish.ts";
import { readManifest } from "../../pipeline/schema/manifest.ts";
import { startServer } from "../../server/main.ts";
import { serverConfigFrom } from "../../server/config.ts";
import { gtfs, importKilledAt, tempDir } from "../support/dataset.ts";

const quiet = { info() {}, warn() {}, error() {} };

describe("serving while importing", () => {
  test("kill -9 mid-import: the server keeps answering from the previous active version", async () => {
    const data = tempDir();
    const first = await importFeed({ dataDir: data, source: gtfs("caltrain"), feedId: "f-live" });
    await refreshTimetable(data);
    const server = await startServer(serverConfigFrom({ data, port: 0, host: "127.0.0.1", noAuth: true }), { log: quiet });
    try {
      const stopsOf = async () => {
        const body = (await (await fetch(`${server.url}/api/v2/rest/stops?feed_onestop_id=f-live&limit=1000`)).json()) as { stops: Array<{ feed_version: { sha1: string } }> };
        return { n: body.stops.length, sha1s: [...new Set(body.stops.map((s) => s.feed_version.sha1))] };
      };
      const before = await stopsOf();
      expect(before).toEqual({ n: 109, sha1s: [first.sha1!] });
      await importKilledAt(["--data", data, "--feed-id", "f-live", gtfs("rnv")], "stop_times read", async () => {
        expect(await stopsOf()).toEqual(before); // answers during the import
      });
      expect(await stopsOf()).toEqual(before);
      expect(readManifest(data).feeds[0]!.active).toBe(first.sha1!);
      const plan = await fetch(`${server.url}/api/v2/routing/otp/plan?fromPlace=37.7765,-122.3942&toPlace=37.4434,-122.1649&date=2023-11-07&time=08:00`);
      expect(plan.status).toBe(200);
    } finally {
      await server.stop();
    }
  });
});
