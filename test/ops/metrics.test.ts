/**
 * FEATURE UNDER TEST: /metrics and the request log (issue 23, item 6). The real server over BART
 * and downtown San Francisco streets, with API keys and a pinned clock; a known list of requests
 * (catalog, plan, street, geocode, other; 200s, 400s, 401, 404, 429); then /metrics, read by a strict
 * parser of the text format (test/ops/exposition.ts), must count exactly those requests, their
 * engine calls and rate-limit refusals, and name the dataset versions, the timetable load time and
 * a realtime snapshot's age; the log has one JSON line per request, without keys or query strings.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { serverConfigFrom } from "../../server/config.ts";
import type { Logger } from "../../server/feature.ts";
import { type RunningServer, startServer } from "../../server/main.ts";
import { activeStreets, activeVersions, readManifest } from "../../pipeline/schema/manifest.ts";
import { type RealtimeFeedStatus, statusPath } from "../../pipeline/schema/realtime.ts";
import { tempDir } from "../support/dataset.ts";
import { type Family, parseExposition, sampleValue, samples } from "./exposition.ts";
import { CIVIC_CENTER, EMBARCADERO, opsDataset, serveChild } from "./support.ts";

const KEY = "ops-key-unlimited-1";
const TINY_KEY = "ops-key-limited-2";
/** the pinned clock: the rate limiter never refills, the realtime age is exact */
const NOW_S = 1_780_000_000;

interface Made {
  family: string;
  status: number;
  account?: string;
}

describe("metrics and the request log", () => {
  let server: RunningServer;
  let dataDir: string;
  const logged: Record<string, unknown>[] = [];
  const made: Made[] = [];
  let families: Map<string, Family>;

  const call = async (path: string, expected: Made, init: RequestInit = {}) => {
    const res = await fetch(server.url + path, init);
    await res.arrayBuffer();
    expect(`${path} ${res.status}`).toBe(`${path} ${expected.status}`);
    made.push(expected);
  };

  beforeAll(async () => {
    dataDir = await opsDataset();
    const feedId = activeVersions(readManifest(dataDir))[0]!.feed_onestop_id;
    // a realtime feed whose current trip updates were stamped 42 s before "now"
    const status: RealtimeFeedStatus = {
      format: 1,
      feed_id: feedId,
      updated_at: new Date(NOW_S * 1000).toISOString(),
      kinds: {
        trip_updates: {
          source: "test",
          current: { path: "realtime/trip_updates/none.parquet", header_timestamp: NOW_S - 42, fetched_at: new Date((NOW_S - 40) * 1000).toISOString(), sha1: "0".repeat(40), entities: 0, rows: 0, unknown: { count: 0, by_field: {}, examples: [] }, checked_against: null },
          last: null,
          counts: {},
        },
      },
    };
    mkdirSync(dirname(statusPath(dataDir, feedId)), { recursive: true });
    writeFileSync(statusPath(dataDir, feedId), JSON.stringify(status));
    const keys = join(tempDir(), "keys.json");
    writeFileSync(keys, JSON.stringify([{ key: KEY, account: "acme" }, { key: TINY_KEY, account: "tiny", rate_limit_per_minute: 2 }]));
    const log: Logger = {
      info: (msg, f) => logged.push(JSON.parse(JSON.stringify({ level: "info", msg, ...f }))),
      warn: (msg, f) => logged.push({ level: "warn", msg, ...f }),
      error: (msg, f) => logged.push({ level: "error", msg, ...f }),
    };
    server = await startServer(serverConfigFrom({ data: dataDir, port: 0, host: "127.0.0.1", apiKeys: keys, metricsPort: 0 }), { log, now: () => NOW_S * 1000 });

    const key = { headers: { apikey: KEY } };
    const json = (body: unknown) => ({ method: "POST", body: typeof body === "string" ? body : JSON.stringify(body), headers: { apikey: KEY, "content-type": "application/json" } });
    await call("/health", { family: "other", status: 200 });
    await call("/api/v2/rest/stops?limit=2", { family: "catalog", status: 200, account: "acme" }, key);
    await call(`/api/v2/rest/stops.geojson?limit=1&apikey=${KEY}`, { family: "catalog", status: 200, account: "acme" });
    await call("/api/v2/rest/stops/no-such-stop", { family: "catalog", status: 404, account: "acme" }, key);
    await call("/api/v2/rest/stops", { family: "catalog", status: 401 });
    await call("/api/v2/rest/stops", { family: "catalog", status: 401 }, { headers: { apikey: "not-a-key-at-all" } });
    await call("/api/v2/routing/otp/plan?fromPlace=nowhere", { family: "plan", status: 400, account: "acme" }, key);
    const walk = new URLSearchParams({ fromPlace: `${CIVIC_CENTER.lat},${CIVIC_CENTER.lon}`, toPlace: `${EMBARCADERO.lat},${EMBARCADERO.lon}`, mode: "WALK", date: "2019-06-04", time: "08:00" });
    await call(`/api/v2/routing/otp/plan?${walk}`, { family: "plan", status: 200, account: "acme" }, key);
    await call("/api/v2/routing/valhalla/route", { family: "street", status: 200, account: "acme" }, json({ locations: [CIVIC_CENTER, EMBARCADERO], costing: "pedestrian" }));
    await call("/api/v2/routing/valhalla/route", { family: "street", status: 400, account: "acme" }, json("{"));
    // the geocoder (Pelias's paths and the API family's)
    await call("/v1/autocomplete?text=Embarc", { family: "geocode", status: 200, account: "acme" }, key);
    await call("/api/v2/geocode/reverse?point.lat=37.79&point.lon=-122.39", { family: "geocode", status: 200, account: "acme" }, key);
    await call("/v1/search?text=", { family: "geocode", status: 400, account: "acme" }, key);
    await call("/v1/autocomplete?text=Embarc", { family: "geocode", status: 401 });
    for (const status of [200, 200, 429]) await call("/api/v2/rest/stops?limit=1", { family: "catalog", status, account: "tiny" }, { headers: { apikey: TINY_KEY } });
    // deny by default: a path no route answers needs a key like any other (server/app.ts)
    await call("/nope", { family: "other", status: 401 });
    await call("/metrics", { family: "other", status: 401 });

    const res = await fetch(`${server.metricsUrl}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    families = parseExposition(await res.text());
  });
  afterAll(async () => {
    await server?.stop();
  });

  test("the exposition is strictly valid and declares every metric of the README", () => {
    const names = [...families.keys()];
    expect(names).toEqual([
      "interchange_http_requests_total",
      "interchange_http_request_duration_seconds",
      "interchange_rate_limit_refusals_total",
      "interchange_engine_call_duration_seconds",
      "interchange_engine_crashes_total",
      "interchange_engine_timeouts_total",
      "interchange_timetable_load_seconds",
      "interchange_dataset_active_info",
      "interchange_realtime_snapshot_age_seconds",
      "process_resident_memory_bytes",
      "process_heap_bytes",
      "process_cpu_seconds_total",
      "process_start_time_seconds",
    ]);
    for (const f of families.values()) expect(f.help?.length).toBeGreaterThan(10);
    expect(families.get("interchange_http_request_duration_seconds")!.type).toBe("histogram");
    expect(families.get("interchange_http_requests_total")!.type).toBe("counter");
  });

  test("request counts per route family and status are the requests made", () => {
    const expected = new Map<string, number>();
    for (const m of made) expected.set(`${m.family} ${m.status}`, (expected.get(`${m.family} ${m.status}`) ?? 0) + 1);
    const counted = new Map(samples(families, "interchange_http_requests_total").map((s) => [`${s.labels.family} ${s.labels.status}`, s.value]));
    expect(counted).toEqual(expected);
    for (const [k, n] of expected) {
      const [family, status] = k.split(" ") as [string, string];
      expect(sampleValue(families, "interchange_http_request_duration_seconds_count", { family, status })).toBe(n);
    }
  });

  test("latency histograms add up the logged durations", () => {
    const lines = logged.filter((l) => l.msg === "request");
    for (const family of ["catalog", "plan", "street", "geocode", "other"]) {
      const logSum = lines.filter((l) => l.family === family).reduce((a, l) => a + (l.duration_ms as number), 0) / 1000;
      const sum = samples(families, "interchange_http_request_duration_seconds_sum").filter((s) => s.labels.family === family).reduce((a, s) => a + s.value, 0);
      expect(Math.abs(sum - logSum)).toBeLessThan(1e-6);
    }
  });

  test("rate-limit refusals are counted per account", () => {
    expect(samples(families, "interchange_rate_limit_refusals_total").map((s) => [s.labels.account, s.value])).toEqual([["tiny", 1]]);
  });

  test("engine calls are timed per action, lane and status: the street endpoint's and the planner's walk", () => {
    expect(sampleValue(families, "interchange_engine_call_duration_seconds_count", { action: "route", lane: "gateway", status: "200" })).toBe(1);
    const planner = samples(families, "interchange_engine_call_duration_seconds_count").filter((s) => s.labels.lane === "planner");
    expect(planner.reduce((a, s) => a + s.value, 0)).toBeGreaterThanOrEqual(1);
    // the refused body never reached the engine
    expect(samples(families, "interchange_engine_call_duration_seconds_count").filter((s) => s.labels.lane === "gateway").length).toBe(1);
  });

  test("the active dataset versions, the timetable load time and the realtime snapshot age", () => {
    const m = readManifest(dataDir);
    const info = samples(families, "interchange_dataset_active_info").map((s): Record<string, unknown> => ({ ...s.labels, value: s.value }));
    expect(info).toEqual([
      ...activeVersions(m).map((v) => ({ component: "feed_version", feed_onestop_id: v.feed_onestop_id, version: v.sha1, value: 1 })),
      { component: "timetable", feed_onestop_id: "", version: m.timetable!.path, value: 1 },
      { component: "street_dataset", feed_onestop_id: "", version: activeStreets(m)!.sha1, value: 1 },
    ]);
    const load = sampleValue(families, "interchange_timetable_load_seconds")!;
    expect(load).toBeGreaterThan(0);
    expect(load).toBeLessThan(60);
    const age = samples(families, "interchange_realtime_snapshot_age_seconds");
    expect(age.map((s): Record<string, unknown> => ({ ...s.labels, value: s.value }))).toEqual([{ feed_onestop_id: activeVersions(m)[0]!.feed_onestop_id, kind: "trip_updates", value: 42 }]);
    expect(sampleValue(families, "process_resident_memory_bytes")).toBeGreaterThan(10_000_000);
  });

  test("one JSON log line per request: method, path without the query, family, status, duration, account; never a key", () => {
    const lines = logged.filter((l) => l.msg === "request");
    expect(lines.length).toBe(made.length);
    lines.forEach((l, i) => {
      const { duration_ms, ...rest } = l;
      expect(typeof duration_ms).toBe("number");
      expect(duration_ms as number).toBeGreaterThanOrEqual(0);
      expect(Object.keys(rest).sort()).toEqual(["family", "level", "method", "msg", "path", "status", ...(made[i]!.account ? ["account"] : [])].sort());
      expect({ family: l.family, status: l.status, account: l.account }).toEqual({ family: made[i]!.family, status: made[i]!.status, account: made[i]!.account });
      expect(String(l.path)).not.toContain("?");
    });
    expect(lines.map((l) => `${l.method} ${l.path}`).slice(0, 3)).toEqual(["GET /health", "GET /api/v2/rest/stops", "GET /api/v2/rest/stops.geojson"]);
    const all = JSON.stringify(logged);
    for (const secret of [KEY, TINY_KEY, "not-a-key-at-all", "apikey="]) expect(all).not.toContain(secret);
  });

  test("the metrics listener answers /metrics and /health's details only; the API port has no /metrics", async () => {
    const health = await fetch(`${server.metricsUrl}/health`);
    expect(health.status).toBe(200);
    expect(((await health.json()) as { features: Record<string, unknown> }).features.catalog).toBeDefined();
    expect((await fetch(`${server.metricsUrl}/other`)).status).toBe(404);
    expect((await fetch(`${server.metricsUrl}/metrics`, { method: "POST" })).status).toBe(405);
    expect(made.at(-1)).toEqual({ family: "other", status: 401 });
  });
});

describe("the exposition reader of these tests", () => {
  const ok = '# HELP h_seconds a histogram\n# TYPE h_seconds histogram\nh_seconds_bucket{a="x",le="0.5"} 1\nh_seconds_bucket{a="x",le="+Inf"} 2\nh_seconds_sum{a="x"} 1.5\nh_seconds_count{a="x"} 2\n';
  test("reads a valid exposition", () => {
    expect(sampleValue(parseExposition(ok), "h_seconds_count", { a: "x" })).toBe(2);
    expect(sampleValue(parseExposition('# TYPE g gauge\ng{v="a\\"b\\\\c\\nd"} NaN\n'), "g", { v: 'a"b\\c\nd' })).toBeNaN();
  });
  test.each([
    ["buckets that are not cumulative", ok.replace('le="+Inf"} 2', 'le="+Inf"} 0').replace("_count{a=\"x\"} 2", "_count{a=\"x\"} 0")],
    ["a +Inf bucket apart from _count", ok.replace("_count{a=\"x\"} 2", "_count{a=\"x\"} 3")],
    ["no +Inf bucket", ok.replace('h_seconds_bucket{a="x",le="+Inf"} 2\n', "")],
    ["a sample before its TYPE", 'g 1\n# TYPE g gauge\n'],
    ["a repeated sample", "# TYPE g gauge\ng 1\ng 2\n"],
    ["an unquoted label", "# TYPE g gauge\ng{a=x} 1\n"],
    ["a bad escape", '# TYPE g gauge\ng{a="\\t"} 1\n'],
    ["a bad value", "# TYPE g gauge\ng 1,5\n"],
    ["a blank line", "# TYPE g gauge\n\ng 1\n"],
    ["a family split in two", "# TYPE g gauge\ng{a=\"1\"} 1\n# TYPE h gauge\nh 1\ng{a=\"2\"} 1\n"],
    ["no final line feed", "# TYPE g gauge\ng 1"],
    ["a negative counter", "# TYPE c_total counter\nc_total -1\n"],
  ])("refuses %s", (_, text) => {
    expect(() => parseExposition(text)).toThrow();
  });
});

describe("interchange serve with INTERCHANGE_METRICS_PORT", () => {
  test("serves /metrics on its own port and logs each request as a JSON line on stderr", async () => {
    const dir = await opsDataset();
    const child = await serveChild(["--data", dir, "--no-auth"], { INTERCHANGE_METRICS_PORT: "0" });
    try {
      expect(child.metricsUrl).not.toBeNull();
      expect((await fetch(`${child.url}/api/v2/rest/stops?limit=1&apikey=query-key-123`)).status).toBe(200);
      const families = parseExposition(await (await fetch(`${child.metricsUrl}/metrics`)).text());
      expect(sampleValue(families, "interchange_http_requests_total", { family: "catalog", status: "200" })).toBe(1);
      // request lines are written in batches a few milliseconds later (server/feature.ts LineWriter)
      const requestLines = () => child.lines.filter((l) => l.includes('"msg":"request"'));
      for (let waited = 0; requestLines().length === 0 && waited < 5000; waited += 20) await Bun.sleep(20);
      const requests = requestLines().map((l) => JSON.parse(l));
      expect(requests.length).toBe(1);
      expect(requests[0]).toMatchObject({ level: "info", msg: "request", method: "GET", path: "/api/v2/rest/stops", family: "catalog", status: 200, account: "anonymous" });
      expect(child.lines.join("\n")).not.toContain("query-key-123");
    } finally {
      await child.stop();
    }
  });

  test("without --metrics-port there is no metrics listener", () => {
    expect(serverConfigFrom({ noAuth: true }).metricsPort).toBeNull();
    expect(() => serverConfigFrom({ noAuth: true, port: 9000, metricsPort: 9000 })).toThrow("--metrics-port must differ");
    expect(() => serverConfigFrom({ noAuth: true, metricsPort: 70000 })).toThrow("--metrics-port");
  });
});
