/**
 * FEATURE UNDER TEST: every endpoint survives whatever it is sent (issue 23, item 7). The real
 * `interchange serve` in its own process, over BART and the downtown San Francisco streets (the
 * embedded engine), with API keys; fast-check drives requests built from the service's own OpenAPI
 * description (test/fuzz/requests.ts) mixed with hand-made hostile ones (hostile.ts), from several
 * concurrent property runs over kept-alive connections. Each answer must keep the contract of its
 * family (contract.ts): no 5xx but the documented 503, error bodies in their documented shape, an
 * answer within the time-out. At the end the process is still alive and answers /health, its
 * memory after the run is within MEMORY_GROWTH_BOUND of what it was after the warm-up, /metrics
 * counts every request, and the log has one JSON line per request with no API key in it.
 *
 * Besides the OpenAPI-built requests: requests from every field of the code's own schemas and
 * parameter tables, mutated (fields.ts), and hostile Host headers and request targets as raw HTTP
 * (raw.ts: no 2xx without a key on an API route, 400 for a malformed Host); what fuzzing found is
 * replayed first (regressions.ts). A server that dies fails the test that killed it and is started
 * again for the next one; `serve --workers 2` gets a share of the requests, and no worker may exit.
 *
 * FUZZ_RUNS (default 10,000) requests in all; FUZZ_SEED (default 23), FUZZ_CONCURRENCY (default 6).
 * `npm run bench:fuzz` (FUZZ_RUNS=200000) is the long run (docs/pending/fuzz.md).
 * FUZZ_ONLY=regressions replays only the fixed cases; FUZZ_CASE=issue-31-2 only one finding's.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { activeStreets, activeVersions, readManifest } from "../../pipeline/schema/manifest.ts";
import { sql } from "../support/duck.ts";
import { tempDir } from "../support/dataset.ts";
import { parseExposition, samples } from "../ops/exposition.ts";
import { type ChildServer, opsDataset, rssOf, serveChild, until } from "../ops/support.ts";
import { type Answer, violation } from "./contract.ts";
import { paramFieldRequest, staticPathRequest, streetFieldRequest } from "./fields.ts";
import { type Family, familyOf, HOSTILE_PATH_SEGMENTS, hostileRequests, rawRequests } from "./hostile.ts";
import { apiRoutes, hostIsValid, type RawAnswer, type RawCase, rawCase, rawCaseArbitrary, rawViolation, sendRaw } from "./raw.ts";
import { OWN_HOST, type RegressionCase, REGRESSIONS } from "./regressions.ts";
import { type FuzzRequest, type KeyPools, type Keys, operations, requestArbitrary, requestFamily } from "./requests.ts";
import type { SchemaContext, Schema } from "./schema-arbitrary.ts";

const RUNS = Number(process.env.FUZZ_RUNS ?? 10_000);
const SEED = Number(process.env.FUZZ_SEED ?? 23);
const CONCURRENCY = Number(process.env.FUZZ_CONCURRENCY ?? 6);
/** FUZZ_ONLY=catalog,street: only those route families' operations and hand-made cases (to corner a problem); FUZZ_ONLY=regressions: only the fixed cases */
const ONLY = process.env.FUZZ_ONLY ? new Set(process.env.FUZZ_ONLY.split(",")) : null;
const ONLY_REGRESSIONS = ONLY?.has("regressions") === true && ONLY.size === 1;
/** FUZZ_CASE=issue-31-2: replay only the regression cases of that finding */
const CASE = process.env.FUZZ_CASE ?? null;
const CASES = REGRESSIONS.filter((c) => CASE === null || c.finding === CASE);
/** raw requests (hostile Host headers and targets over a socket): a share of FUZZ_RUNS */
const RAW_RUNS = Math.ceil(RUNS * 0.06);
/** requests to the `serve --workers 2` variant: a share of FUZZ_RUNS */
const WORKER_RUNS = Math.ceil(RUNS * 0.08);
/** requests before the memory baseline: every code path, tile and cache has been touched once */
const WARMUP = Math.min(2_000, Math.floor(RUNS / 5));
/** one request's time-out: past it, the request hangs (the embedded engine's calls take ms here) */
const REQUEST_TIMEOUT_MS = 30_000;
/**
 * The idle RSS after the run may exceed the idle RSS after the warm-up by at most this. Measured
 * (README "Testing"): the JavaScript heap stays at 25-55 MB from quarter to quarter of a 100,000
 * request run, while the idle RSS moves up and down by up to ~70 MB (the allocator keeps the pages
 * of 1 MB bodies and 40,000-location matrices for a while; the engine's and DuckDB's caches fill to
 * the extract's size). So the bound is noise plus a margin: it catches a leak of ~16 kB per request
 * in the CI run (8,000 measured requests) and of ~1.5 kB per request in the 100,000 run; smaller
 * leaks show in the printed quarter-by-quarter RSS and heap, not in this assertion.
 */
const MEMORY_GROWTH_BOUND = 128 * 1024 * 1024;

/**
 * The RSS of an idle server: the least of samples over 1.5 s (the collector and the allocator give
 * memory back on their own time; a moment's peak after a 1 MB body is not growth).
 */
async function settledRss(server: ChildServer, inFlight: () => string): Promise<number> {
  let least = Infinity;
  for (let i = 0; i < 6; i++) {
    await Bun.sleep(250);
    alive(server, inFlight);
    least = Math.min(least, rssOf(server.pid));
  }
  return least;
}

/** Throws, with the end of its log and the requests it was answering, when the server process has ended. */
function alive(server: ChildServer, inFlight: () => string): void {
  const code = server.exited();
  if (code !== null) throw new Error(`the server process ended (exit code ${code}); its last log lines:\n${server.lines.slice(-12).join("\n")}\nrequests in flight when it ended:\n${inFlight()}`);
}

const KEYS: Keys = { valid: "fuzz-key-unlimited-0001", limited: "fuzz-key-limited-0002" };

interface Outcome {
  family: Family;
  status: number | "error";
  ms: number;
  /** a refusal's code: Valhalla's error_code (street), OTP's error id (plan) */
  code?: number;
}

/** The error code of a street or plan refusal, for the run's summary. */
function refusalCode(family: Family, status: number, body: Uint8Array): number | undefined {
  if (status !== 400 || (family !== "street" && family !== "plan")) return undefined;
  try {
    const o = JSON.parse(new TextDecoder().decode(body)) as { error_code?: number; error?: { id?: number } };
    return family === "street" ? o.error_code : o.error?.id;
  } catch {
    return undefined;
  }
}

/** Violations counted by kind (the text before the first colon, with the request's label): what a run found, at a glance. */
function kinds(violations: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of violations) {
    const label = /\n\s+for (?:raw \S+ )?\[?([^\]:]*)/.exec(v)?.[1]?.slice(0, 60) ?? "";
    const k = `${v.split(":")[0]!.slice(0, 80)} | ${label}`;
    out[k] = (out[k] ?? 0) + 1;
  }
  return Object.fromEntries(Object.entries(out).sort((a, b) => b[1] - a[1]));
}

/** Sends a regression case; its answer (fetch or raw) checked against the rules. */
async function replay(url: string, c: RegressionCase): Promise<{ problem: string | null; raw: boolean }> {
  const port = Number(new URL(url).port);
  const own = new URL(url).host;
  if (c.raw) {
    const host = c.raw.host === OWN_HOST ? own : c.raw.host;
    const rc: RawCase = {
      ...rawCase(c.raw.target, { label: "", value: null, valid: true }, 0, c.raw.keyed, c.raw.method, own, KEYS.valid, () => ""),
      label: c.label,
    };
    const head = new TextEncoder().encode(`${c.raw.method} ${c.raw.target} HTTP/1.1\r\n`);
    const hostLine = host === null ? new Uint8Array() : new Uint8Array([...new TextEncoder().encode("Host: "), ...(typeof host === "string" ? new TextEncoder().encode(host) : host), 13, 10]);
    const tail = new TextEncoder().encode(`${c.raw.keyed ? `apikey: ${KEYS.valid}\r\n` : ""}Connection: close\r\n\r\n`);
    const bytes = new Uint8Array([...head, ...hostLine, ...tail]);
    const valid = typeof host === "string" && hostIsValid(host);
    const a = await sendRaw(port, bytes, REQUEST_TIMEOUT_MS);
    const api = c.raw.target.includes("/api/");
    const problem = rawViolation({ ...rc, bytes, badHost: !valid, api, route: c.raw.target.replace(/^\/+x*\/?(?=api)/, "/") }, a);
    return { problem: problem && `${problem}: ${new TextDecoder().decode(a.body.slice(0, 200))}`, raw: true };
  }
  const f = c.fetch!;
  try {
    const res = await fetch(url + f.target, { method: f.method, headers: { ...(f.keyed ? { apikey: KEYS.valid } : {}), ...(f.body ? { "content-type": "application/json" } : {}) }, body: f.body, redirect: "manual", signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    const answer: Answer = { status: res.status, contentType: res.headers.get("content-type") ?? "", body: new Uint8Array(await res.arrayBuffer()) };
    const problem = violation(familyOf(f.target), f.method, answer);
    return { problem: problem && `${problem}: ${new TextDecoder().decode(answer.body.slice(0, 200))}`, raw: false };
  } catch (e) {
    return { problem: `no answer: ${(e as Error).message}`, raw: false };
  }
}

describe("fuzzing every endpoint", () => {
  let server: ChildServer;
  let serveArgs: string[];
  /** raw requests this server process was sent (Bun answers some itself: /metrics may not count them) */
  let rawSent = 0;
  let fieldArbs: fc.WeightedArbitrary<FuzzRequest>[];
  let rawArb: fc.Arbitrary<RawCase>;
  /** Starts the server again when a test before killed it (that test has failed for it). */
  const ensureServer = async () => {
    if (server.exited() === null) return;
    server = await serveChild(serveArgs);
    sentElsewhere = 0;
    rawSent = 0;
  };
  let arb: fc.Arbitrary<FuzzRequest>;
  let hostile: FuzzRequest[];
  let bbox: [number, number, number, number];
  const outcomes: Outcome[] = [];
  const violations: string[] = [];
  const slowest: { ms: number; label: string }[] = [];
  /** requests sent and not yet answered: when the server dies, these were in its hands */
  const inFlight = new Set<FuzzRequest>();
  const crashSuspects = () => [...inFlight].map((r) => `  ${describeRequest(r).slice(0, 600)}`).join("\n");
  /** requests the other tests of this file sent (the metrics count them too) */
  let sentElsewhere = 0;

  const describeRequest = (r: FuzzRequest) => {
    const body = r.body === undefined ? "" : ` body(${r.body.length} ${typeof r.body === "string" ? "chars" : "bytes"}): ${(typeof r.body === "string" ? r.body : new TextDecoder().decode(r.body)).slice(0, 160)}`;
    return `[${r.label}] ${r.method} ${r.path.slice(0, 200)}${r.query ? `?${r.query.slice(0, 300)}` : ""} headers ${JSON.stringify(r.headers)}${body}`;
  };

  /** Sends one request, reads the whole answer, checks it; the violation (also recorded) or null. */
  const exchange = async (r: FuzzRequest): Promise<string | null> => {
    const family = requestFamily(r);
    const t0 = performance.now();
    inFlight.add(r);
    let problem: string | null;
    let status: number | "error" = "error";
    let code: number | undefined;
    try {
      const res = await fetch(`${server.url}${r.path}${r.query ? `?${r.query}` : ""}`, {
        method: r.method,
        headers: r.headers,
        body: r.body,
        redirect: "manual",
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      status = res.status;
      const answer: Answer = { status: res.status, contentType: res.headers.get("content-type") ?? "", body: new Uint8Array(await res.arrayBuffer()) };
      problem = violation(family, r.method, answer);
      code = refusalCode(family, res.status, answer.body);
      if (problem) problem += `: ${new TextDecoder().decode(answer.body.slice(0, 300))}`;
    } catch (e) {
      problem = `no answer: ${(e as Error).name} ${(e as Error).message}`;
    }
    const ms = performance.now() - t0;
    if (status !== "error") inFlight.delete(r);
    outcomes.push({ family, status, ms, ...(code !== undefined ? { code } : {}) });
    if (slowest.length < 5 || ms > slowest[slowest.length - 1]!.ms) {
      slowest.push({ ms, label: describeRequest(r).slice(0, 200) });
      slowest.sort((a, b) => b.ms - a.ms);
      slowest.length = Math.min(slowest.length, 5);
    }
    if (problem) violations.push(`${problem}\n    for ${describeRequest(r)}`);
    return problem;
  };

  /**
   * `n` requests from CONCURRENCY property runs at once. A violation is recorded (with the whole
   * request) and the run goes on, so one run reports every kind of failure it meets; a run ends
   * when the server process has ended.
   */
  const fuzz = async (n: number, seed: number) => {
    const per = Math.ceil(n / CONCURRENCY);
    const runs = await Promise.allSettled(
      Array.from({ length: CONCURRENCY }, (_, w) =>
        fc.assert(
          fc.asyncProperty(arb, async (r) => {
            await exchange(r);
            alive(server, crashSuspects);
          }),
          { numRuns: per, seed: seed + w, verbose: 0, endOnFailure: true },
        ),
      ),
    );
    return runs.flatMap((r, w) => (r.status === "rejected" ? [`property run ${w} (seed ${seed + w}): ${String((r.reason as Error).message).split("\n").slice(0, 4).join(" | ").slice(0, 600)}`] : []));
  };

  /** A raw request on its own connection: the status (null when the server closed without one). */
  const raw = (bytes: Uint8Array): Promise<number | null> =>
    new Promise((resolve) => {
      let text = "";
      const done = () => resolve(/^HTTP\/1\.[01] (\d{3})/.test(text) ? Number(/^HTTP\/1\.[01] (\d{3})/.exec(text)![1]) : null);
      const timer = setTimeout(done, REQUEST_TIMEOUT_MS);
      void Bun.connect({
        hostname: "127.0.0.1",
        port: Number(new URL(server.url).port),
        socket: {
          open: (s) => void s.write(bytes),
          data: (_s, d) => void (text += new TextDecoder().decode(d)),
          close: () => (clearTimeout(timer), done()),
          error: () => (clearTimeout(timer), done()),
        },
      }).catch(() => (clearTimeout(timer), done()));
    });

  beforeAll(async () => {
    const dir = await opsDataset();
    const keysFile = join(tempDir(), "keys.json");
    writeFileSync(keysFile, JSON.stringify([{ key: KEYS.valid, account: "fuzzer" }, { key: KEYS.limited, account: "limited", rate_limit_per_minute: 30 }]));
    serveArgs = ["--data", dir, "--api-keys", keysFile, "--metrics-port", "0"];
    server = await serveChild(serveArgs);
    if (ONLY_REGRESSIONS) return;
    const m = readManifest(dir);
    bbox = activeStreets(m)!.bbox!;
    const version = activeVersions(m)[0]!;
    const folder = join(dir, version.path);
    const feed = version.feed_onestop_id;
    const col = async (q: string) => (await sql<{ v: unknown }>(q)).map((r) => String(r.v));
    const pools: KeyPools = {
      routeKeys: [...(await col(`SELECT id AS v FROM '${folder}/routes.parquet'`)), ...(await col(`SELECT onestop_id AS v FROM '${folder}/routes.parquet'`)), ...(await col(`SELECT '${feed}:' || route_id AS v FROM '${folder}/routes.parquet'`))],
      stopKeys: [...(await col(`SELECT id AS v FROM '${folder}/stops.parquet' LIMIT 20`)), ...(await col(`SELECT onestop_id AS v FROM '${folder}/stops.parquet' LIMIT 20`)), ...(await col(`SELECT '${feed}:' || stop_id AS v FROM '${folder}/stops.parquet' LIMIT 20`))],
      tripIds: await col(`SELECT id AS v FROM '${folder}/trips.parquet' USING SAMPLE 40 ROWS`),
      feedOnestopIds: [feed],
      versionSha1s: [version.sha1, "0".repeat(40)],
      routeOnestopIds: await col(`SELECT onestop_id AS v FROM '${folder}/routes.parquet'`),
      stopIds: await col(`SELECT stop_id AS v FROM '${folder}/stops.parquet'`),
      tripGtfsIds: await col(`SELECT trip_id AS v FROM '${folder}/trips.parquet' USING SAMPLE 40 ROWS`),
    };
    const doc = (await (await fetch(`${server.url}/docs/json`)).json()) as { paths: Record<string, never> };
    const ctx: SchemaContext = {
      bbox,
      resolve(ref) {
        let node: unknown = doc;
        for (const part of ref.replace(/^#\//, "").split("/")) node = (node as Record<string, unknown>)[part.replace(/~1/g, "/").replace(/~0/g, "~")];
        if (!node) throw new Error(`unresolved $ref ${ref}`);
        return node as Schema;
      },
    };
    const ops = operations(doc).filter((op) => !ONLY || ONLY.has(familyOf(op.template)));
    expect(ops.length).toBeGreaterThan(ONLY ? 0 : 30);
    hostile = hostileRequests(KEYS, pools, bbox).filter((r) => !ONLY || ONLY.has(requestFamily(r)));
    const families = (f: Family) => !ONLY || ONLY.has(f);
    fieldArbs = [
      ...(families("street") ? [{ arbitrary: streetFieldRequest(KEYS), weight: 4 }] : []),
      ...(families("catalog") || families("plan") ? [{ arbitrary: paramFieldRequest(KEYS, pools).filter((r) => families(requestFamily(r))), weight: 2 }] : []),
      ...(families("other") ? [{ arbitrary: staticPathRequest(HOSTILE_PATH_SEGMENTS), weight: 1 }] : []),
    ];
    arb = requestArbitrary(ops, pools, ctx, KEYS, hostile, fieldArbs);
    const routes = apiRoutes(Object.keys(doc.paths), (n) => (n === "route_key" ? pools.routeKeys[0]! : n === "stop_key" ? pools.stopKeys[0]! : n === "id" ? pools.tripIds[0]! : n === "format" ? "json" : n === "action" ? "route" : "x"));
    const planQuery = "fromPlace=37.7793,-122.4193&toPlace=37.8044,-122.2712&date=2019-06-04&time=08:00";
    rawArb = rawCaseArbitrary(
      routes.filter((r) => !ONLY || ONLY.has(familyOf(r))),
      new URL(server.url).host,
      KEYS.valid,
      (r) => (r.endsWith("/plan") ? planQuery : r.includes("/rest/") && !r.includes("/trips/") ? "limit=1" : ""),
    );
  });
  afterAll(async () => {
    await server?.stop();
  });

  test(`what fuzzing found stays fixed: ${CASES.length} regression cases (regressions.ts), each answered by the rules and survived`, async () => {
    const problems: string[] = [];
    for (const c of CASES) {
      await ensureServer();
      const { problem, raw: isRaw } = await replay(server.url, c);
      if (isRaw) rawSent++;
      else sentElsewhere++;
      await Bun.sleep(c.finding === "issue-31-2" ? 200 : 0);
      if (server.exited() !== null) problems.push(`[${c.finding}] ${c.label}: the server process ended (exit code ${server.exited()})`);
      else if (problem) problems.push(`[${c.finding}] ${c.label}: ${problem.slice(0, 300)}`);
    }
    await ensureServer();
    expect(problems).toEqual([]);
  }, 900_000); // on code that crashes, each crasher costs a server start

  test.skipIf(ONLY_REGRESSIONS)("what fuzzing found stays fixed: a path key that is not valid percent-encoded UTF-8 is a 400, not a 500", async () => {
    await ensureServer();
    const answers: [string, number, unknown][] = [];
    for (const path of ["/api/v2/rest/stops/%FF", "/api/v2/rest/stops/%ED%A0%80.json", "/api/v2/rest/routes/%FF/trips", "/api/v2/rest/routes/1/trips/%C3%28", "/api/v2/rest/stops.%FF"]) {
      const res = await fetch(server.url + path, { headers: { apikey: KEYS.valid } });
      sentElsewhere++;
      answers.push([path, res.status, ((await res.json()) as { parameter?: string }).parameter]);
    }
    expect(answers).toEqual([
      ["/api/v2/rest/stops/%FF", 400, "stop_key"],
      ["/api/v2/rest/stops/%ED%A0%80.json", 400, "stop_key"],
      ["/api/v2/rest/routes/%FF/trips", 400, "route_key"],
      ["/api/v2/rest/routes/1/trips/%C3%28", 400, "id"],
      ["/api/v2/rest/stops.%FF", 400, "format"],
    ]);
  });

  test.skipIf(ONLY_REGRESSIONS)("what fuzzing found stays fixed: a centroid whose paths never meet is Valhalla's 442, and the server lives on", async () => {
    await ensureServer();
    const centroid = (locations: { lat: number; lon: number }[]) =>
      fetch(`${server.url}/api/v2/routing/valhalla/centroid`, { method: "POST", headers: { apikey: KEYS.valid }, body: JSON.stringify({ costing: "auto", locations }) }).then(async (r) => {
        sentElsewhere++;
        return [r.status, ((await r.json()) as { error_code?: number }).error_code ?? null];
      });
    const civic = { lat: 37.7793, lon: -122.4193 };
    // Valhalla 3.6.1 took the whole server down with this one (a null tile in thor/centroid.cc)
    expect(await centroid([civic, { lat: 37.9639, lon: -122.483 }])).toEqual([400, 442]);
    expect(await centroid([civic, { lat: 37.7895, lon: -122.3972 }])).toEqual([200, null]);
    expect(server.exited()).toBeNull();
  });

  /** `n` raw requests (hostile Host headers and targets) from CONCURRENCY property runs at once. */
  const rawFuzz = async (n: number, seed: number, tally: Record<string, number>) => {
    const per = Math.ceil(n / CONCURRENCY);
    const port = Number(new URL(server.url).port);
    const runs = await Promise.allSettled(
      Array.from({ length: CONCURRENCY }, (_, w) =>
        fc.assert(
          fc.asyncProperty(rawArb, async (c) => {
            const a: RawAnswer = await sendRaw(port, c.bytes, REQUEST_TIMEOUT_MS);
            rawSent++;
            const key = `${c.badHost ? "bad Host" : "Host ok"}, ${c.keyed ? "key" : "no key"}: ${a.answered ? a.status : "closed"}`;
            tally[key] = (tally[key] ?? 0) + 1;
            const problem = rawViolation(c, a);
            if (problem) violations.push(`${problem}: ${new TextDecoder().decode(a.body.slice(0, 200))}\n    for ${c.label}: ${JSON.stringify(new TextDecoder("latin1").decode(c.bytes.slice(0, 300)))}`);
            alive(server, () => c.label);
          }),
          { numRuns: per, seed: seed + w, verbose: 0, endOnFailure: true },
        ),
      ),
    );
    return runs.flatMap((r, w) => (r.status === "rejected" ? [`raw property run ${w} (seed ${seed + w}): ${String((r.reason as Error).message).split("\n").slice(0, 4).join(" | ").slice(0, 600)}`] : []));
  };

  test.skipIf(ONLY_REGRESSIONS)(
    `${(RUNS - WORKER_RUNS).toLocaleString("en")} requests (${RAW_RUNS.toLocaleString("en")} raw): no 5xx, documented error bodies, no bypass, no crash, no hang, flat memory`,
    async () => {
      await ensureServer();
      try {
        await mainRun();
      } catch (e) {
        // the server died (or the run broke): what was found before that is part of the report
        throw new Error(`${(e as Error).message}\nviolations found before that (${violations.length}), by kind: ${JSON.stringify(kinds(violations), null, 1)}\n${violations.slice(0, 20).join("\n")}`);
      }
    },
    Math.max(300_000, RUNS * 30),
  );

  /** The main run: the hand-made cases, raw and fetched requests, memory and metrics checks. */
  async function mainRun() {
    const t0 = performance.now();
    // every hand-made case once, then the raw ones (what fetch cannot send)
    for (const r of hostile) await exchange(r);
    const rawAnswers: { label: string; status: number | null }[] = [];
    for (const r of rawRequests(new URL(server.url).host, KEYS.valid)) rawAnswers.push({ label: r.label, status: await raw(r.bytes) });
    for (const a of rawAnswers) if (a.status === null || a.status >= 500) violations.push(`raw request "${a.label}": ${a.status ?? "no answer"}`);
    const rawTally: Record<string, number> = {};
    const failedRuns = await rawFuzz(RAW_RUNS, SEED, rawTally);
    alive(server, crashSuspects);
    failedRuns.push(...(await fuzz(Math.max(0, WARMUP - hostile.length), SEED)));
    const rssWarm = await settledRss(server, crashSuspects);
    // the server's RSS every 2 s of the measured run: a leak climbs steadily, the allocator's noise does not
    const series: number[] = [];
    const sampler = setInterval(() => server.exited() === null && series.push(Math.round(rssOf(server.pid) / 2 ** 20)), 2_000);
    // in four parts, the idle RSS after each: growth that goes on part after part is a leak
    const measured = RUNS - WORKER_RUNS - RAW_RUNS - Math.max(WARMUP, hostile.length);
    const checkpoints: number[] = [];
    const heap: number[] = [];
    for (let part = 0; part < 4; part++) {
      failedRuns.push(...(await fuzz(Math.ceil(measured / 4), SEED + 1000 * (part + 1))));
      checkpoints.push(await settledRss(server, crashSuspects));
      const scraped = parseExposition(await (await fetch(`${server.metricsUrl}/metrics`)).text());
      heap.push(Math.round((samples(scraped, "process_heap_bytes")[0]?.value ?? 0) / 2 ** 20));
    }
    clearInterval(sampler);
    const rssEnd = checkpoints[3]!;
    const seconds = (performance.now() - t0) / 1000;

    // the server is alive and answers
    expect(server.exited()).toBeNull();
    const health = await fetch(`${server.url}/health`);
    expect(health.status).toBe(200);

    // /metrics counted every answered request, and the log has one line each, without keys
    const metrics = parseExposition(await (await fetch(`${server.metricsUrl}/metrics`)).text());
    const counted = samples(metrics, "interchange_http_requests_total").reduce((a, s) => a + s.value, 0);
    const answered = outcomes.filter((o) => o.status !== "error").length + sentElsewhere + 1; // + /health
    const byStatus: Record<string, number> = {};
    for (const o of outcomes) byStatus[`${o.family} ${o.status}`] = (byStatus[`${o.family} ${o.status}`] ?? 0) + 1;
    const codes: Record<string, number> = {};
    for (const o of outcomes) if (o.code !== undefined) codes[`${o.family} ${o.code}`] = (codes[`${o.family} ${o.code}`] ?? 0) + 1;
    const ms = outcomes.map((o) => o.ms).sort((a, b) => a - b);
    const pct = (p: number) => ms[Math.min(ms.length - 1, Math.floor(p * ms.length))]!.toFixed(1);
    console.log(
      JSON.stringify(
        {
          requests: outcomes.length + rawAnswers.length + RAW_RUNS,
          metrics_counted: counted,
          answered_by_fetch: answered,
          seconds: Math.round(seconds),
          per_second: Math.round((outcomes.length + rawAnswers.length + RAW_RUNS) / seconds),
          latency_ms: { p50: pct(0.5), p99: pct(0.99), max: pct(1) },
          rss_mb: { after_warmup: Math.round(rssWarm / 2 ** 20), after_each_quarter: checkpoints.map((b) => Math.round(b / 2 ** 20)), js_heap_after_each_quarter: heap, every_2_s: series.join(" ") },
          by_family_status: Object.fromEntries(Object.entries(byStatus).sort()),
          refusal_codes: Object.fromEntries(Object.entries(codes).sort((a, b) => b[1] - a[1])),
          raw: rawAnswers.map((a) => `${a.label}: ${a.status}`),
          raw_generated: Object.fromEntries(Object.entries(rawTally).sort()),
          violations_by_kind: kinds(violations),
          slowest: slowest.map((s) => `${s.ms.toFixed(0)} ms ${s.label}`),
        },
        null,
        1,
      ),
    );
    expect(violations.slice(0, 20)).toEqual([]);
    expect(failedRuns).toEqual([]);
    expect(counted).toBeGreaterThanOrEqual(answered);
    expect(counted).toBeLessThanOrEqual(answered + rawAnswers.length + rawSent);
    await Bun.sleep(100);
    const requestLines = server.lines.filter((l) => l.includes('"msg":"request"'));
    expect(requestLines.length).toBe(counted);
    const notJson = server.lines.filter((l) => {
      try {
        return typeof JSON.parse(l) !== "object";
      } catch {
        return true;
      }
    });
    expect(notJson.slice(0, 5)).toEqual([]);
    const all = server.lines.join("\n");
    expect(all.includes(KEYS.valid) || all.includes(KEYS.limited)).toBe(false);

    expect(outcomes.length + rawAnswers.length + RAW_RUNS).toBeGreaterThanOrEqual(RUNS - WORKER_RUNS);
    expect(rssEnd - rssWarm).toBeLessThan(MEMORY_GROWTH_BOUND);
  }
});

describe.skipIf(ONLY_REGRESSIONS)("fuzzing `serve --workers 2`", () => {
  let server: ChildServer;
  let arb: fc.Arbitrary<FuzzRequest>;
  /** the workers' pids from their "listening" log lines (a restarted worker logs a new one) */
  const workerPids = () =>
    server.lines.flatMap((l) => {
      try {
        const o = JSON.parse(l) as { msg?: string; pid?: number };
        return o.msg === "listening" && typeof o.pid === "number" ? [o.pid] : [];
      } catch {
        return [];
      }
    });
  const exits = () => server.lines.filter((l) => l.includes('"msg":"worker exited'));

  beforeAll(async () => {
    const dir = await opsDataset();
    const keysFile = join(tempDir(), "keys.json");
    writeFileSync(keysFile, JSON.stringify([{ key: KEYS.valid, account: "fuzzer" }]));
    server = await serveChild(["--data", dir, "--api-keys", keysFile, "--workers", "2"]);
    const pools: KeyPools = { routeKeys: ["1"], stopKeys: ["1"], tripIds: ["1"], feedOnestopIds: [], versionSha1s: [], routeOnestopIds: [], stopIds: [], tripGtfsIds: [] };
    const street = !ONLY || ONLY.has("street");
    arb = fc.oneof(...(street ? [{ arbitrary: streetFieldRequest(KEYS), weight: 3 }] : []), { arbitrary: paramFieldRequest(KEYS, pools), weight: 1 });
  });
  afterAll(async () => {
    await server?.stop();
  });

  test(`the regression cases and ${WORKER_RUNS.toLocaleString("en")} field-mutated requests: no worker exits, no 5xx, no HTML`, async () => {
    await until("both workers listening", async () => workerPids().length >= 2);
    const started = workerPids();
    const problems: string[] = [];
    for (const c of CASES) {
      const { problem } = await replay(server.url, c);
      if (problem) problems.push(`[${c.finding}] ${c.label}: ${problem.slice(0, 300)}`);
    }
    const per = Math.ceil(WORKER_RUNS / CONCURRENCY);
    const runs = await Promise.allSettled(
      Array.from({ length: CONCURRENCY }, (_, w) =>
        fc.assert(
          fc.asyncProperty(arb, async (r) => {
            let problem: string | null;
            try {
              const res = await fetch(`${server.url}${r.path}${r.query ? `?${r.query}` : ""}`, { method: r.method, headers: r.headers, body: r.body, redirect: "manual", signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
              const answer: Answer = { status: res.status, contentType: res.headers.get("content-type") ?? "", body: new Uint8Array(await res.arrayBuffer()) };
              problem = violation(requestFamily(r), r.method, answer);
            } catch (e) {
              problem = `no answer: ${(e as Error).message}`;
            }
            if (problem) problems.push(`${problem} for [${r.label}] ${r.method} ${r.path} ${r.query.slice(0, 200)} ${typeof r.body === "string" ? r.body.slice(0, 200) : ""}`);
            if (server.exited() !== null) throw new Error("the supervisor ended");
          }),
          { numRuns: per, seed: SEED + 7000 + w, verbose: 0, endOnFailure: true },
        ),
      ),
    );
    const failedRuns = runs.flatMap((r, w) => (r.status === "rejected" ? [`property run ${w} (seed ${SEED + 7000 + w}): ${String((r.reason as Error).message).split("\n").slice(0, 3).join(" | ").slice(0, 400)}`] : []));
    await Bun.sleep(300);
    expect(server.exited()).toBeNull();
    expect({ exits: exits().slice(0, 5), pids: workerPids() }).toEqual({ exits: [], pids: started });
    expect(problems.slice(0, 20)).toEqual([]);
    expect(failedRuns).toEqual([]);
  }, Math.max(300_000, WORKER_RUNS * 60));
});
