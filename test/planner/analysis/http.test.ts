/**
 * FEATURE UNDER TEST: POST /api/v2/analysis/travel-times (server/planner/analysis/service.ts,
 * routes.ts) on the real server over BART and Caltrain (no street dataset: straight lines): the
 * same percentiles as the analysis core for the same origin, destinations and settings, as JSON and
 * as an Arrow IPC stream; a bad field or a date outside service is a 400 naming it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { tableFromIPC } from "apache-arrow";
import { importedDataset } from "../../support/dataset.ts";
import { startServer, type RunningServer } from "../../../server/main.ts";
import { serverConfigFrom } from "../../../server/config.ts";
import { readManifest } from "../../../pipeline/schema/manifest.ts";
import { loadTimetableFile } from "../../../server/planner/timetable/arrow-loader.ts";
import { PlanService } from "../../../server/planner/plan-service.ts";
import { isoToDay } from "../../../server/planner/timetable/calendar.ts";
import { TravelTimeAnalysis } from "../../../server/planner/analysis/travel-times.ts";
import { rng } from "../support/real-dataset.ts";

const quiet = { info() {}, warn() {}, error() {} };
let server: RunningServer;
let svc: PlanService;
const to: { id: string; lat: number; lon: number }[] = [];
const from = { lat: 37.792874, lon: -122.39702 }; // Embarcadero

beforeAll(async () => {
  const dir = await importedDataset("analysis-http-bart-caltrain", ["bart", "caltrain-2017"]);
  server = await startServer(serverConfigFrom({ data: dir, port: 0, host: "127.0.0.1", noAuth: true }), { log: quiet });
  svc = new PlanService(loadTimetableFile(join(dir, readManifest(dir).timetable!.path)));
  const r = rng(8);
  const { stopLat, stopLon } = svc.tt.meta;
  for (let i = 0; i < 60; i++) {
    const s = Math.floor(r() * stopLat.length);
    to.push({ id: `d${i}`, lat: stopLat[s]! + (r() - 0.5) * 0.01, lon: stopLon[s]! + (r() - 0.5) * 0.012 });
  }
});
afterAll(() => server?.stop());

const post = (body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${server.url}/api/v2/analysis/travel-times`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: typeof body === "string" ? body : JSON.stringify(body) });
const request = { from, to, date: "2019-03-12", window: "07:30-08:30", maxTransfers: 3, percentiles: [10, 50, 90] };

describe("POST /api/v2/analysis/travel-times", () => {
  test("the analysis core's percentiles for one origin, per destination in the request's order", async () => {
    const res = await post(request);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, any>;
    expect(body).toMatchObject({ date: "2019-03-12", window: "07:30-08:30", timeZone: "America/Los_Angeles", departures: 60, percentiles: [10, 50, 90], walks: "straight lines" });
    const core = new TravelTimeAnalysis(svc, to, { day: isoToDay("2019-03-12"), windowStartSec: 27000, windowEndSec: 30600, stepSec: 60, walkSpeed: 1.3, maxWalkSec: 1200, maxDurationMin: 120, maxTransfers: 3, transitModes: null, percentiles: [10, 50, 90] });
    const p = core.origin(from).percentiles;
    expect(body.destinations).toEqual(to.map((d, i) => ({ ...d, travelTimes: [0, 1, 2].map((k) => (p[i * 3 + k] === -1 ? null : p[i * 3 + k])) })));
    expect(body.destinations.filter((d: any) => d.travelTimes[1] !== null).length).toBeGreaterThan(10);
  });

  test("as an Arrow IPC stream when the client accepts it", async () => {
    const res = await post(request, { accept: "application/vnd.apache.arrow.stream" });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/vnd.apache.arrow.stream");
    const table = tableFromIPC(new Uint8Array(await res.arrayBuffer()));
    expect(table.schema.fields.map((f) => f.name)).toEqual(["destination_id", "p10", "p50", "p90"]);
    const json = (await (await post(request)).json()) as Record<string, any>;
    expect(table.toArray().map((r: any) => [r.destination_id, r.p10, r.p50, r.p90])).toEqual(json.destinations.map((d: any) => [d.id, ...d.travelTimes]));
    expect(table.schema.metadata.get("walks")).toBe("straight lines");
  });

  test("a bad field is a 400 naming it; so is a date outside every feed's service", async () => {
    const cases: [unknown, string][] = [
      ["not json", "body"],
      [[1, 2], "body"],
      [{ ...request, from: { lat: 200, lon: 0 } }, "from"],
      [{ ...request, to: [] }, "to"],
      [{ ...request, to: [{ id: "a", lat: 37.8, lon: -122.4 }, { id: "a", lat: 37.8, lon: -122.4 }] }, "to[1].id"],
      [{ ...request, date: "2019-3-12" }, "date"],
      [{ ...request, window: "8:00" }, "window"],
      [{ ...request, window: "06:00-11:00" }, "window"],
      [{ ...request, percentiles: [50, 10] }, "percentiles"],
      [{ ...request, modes: ["HOVERCRAFT"] }, "modes"],
      [{ ...request, maxTransfers: 1.5 }, "maxTransfers"],
      [{ ...request, date: "2031-05-06" }, "date"],
      [{ ...request, accessMode: "CAR" }, "accessMode"],
      [{ ...request, egressMode: "BICYCLE", maxBike: 0 }, "maxBike"],
      // cycling needs the street network, which this dataset has none of: refused, not guessed on straight lines
      [{ ...request, egressMode: "BICYCLE" }, "egressMode"],
      [{ ...request, accessMode: "BICYCLE" }, "accessMode"],
    ];
    for (const [body, parameter] of cases) {
      const res = await post(body);
      const json = (await res.json()) as Record<string, any>;
      expect({ body, status: res.status, parameter: json.parameter }).toEqual({ body, status: 400, parameter });
    }
    const outside = (await (await post({ ...request, date: "2031-05-06" })).json()) as Record<string, any>;
    expect(outside.error).toContain("date 2031-05-06 is outside the service of every feed");
  });
});
