/**
 * Street routing benchmark (`npm run bench:street`): the embedded Valhalla engine on the
 * Mannheim/Heidelberg extract (../shared/data/osm/rnv-mannheim-heidelberg.osm.pbf).
 *
 * 1. build: `interchange import --data bench/.work/street-rnv-N --osm FILE` as a child process,
 *    measured from outside (bench/lib/measure.ts: wall, CPU, peak RSS), into a fresh folder each run
 *    (3 runs, median); the first run's dataset is kept as bench/.work/street-rnv for the rest.
 * 2. route: pedestrian, bicycle and auto between seeded random points of the dense core (pairs
 *    0.5-8 km apart), each query both to the Actor in this process (the JSON string, the config the
 *    server builds: embedded.ts engineConfig + openActor) and through our HTTP endpoint on the real
 *    server (`interchange serve --no-auth`, a child process), interleaved query by query; plus the
 *    HTTP floors (GET /health, a POST /route refused by validation) and where the gateway's time goes
 *    (the same queries through each layer in this process, and its pieces timed alone).
 * 3. isochrone: 15 min walking, polygons, from 10 points, direct and HTTP.
 * 4. load: N closed-loop fetch clients on POST /route (pedestrian) for S seconds, with
 *    --engine-concurrency 1 (the default on 2 cores) and 2; requests/s, latency, the server's CPU.
 * 5. the server's RSS after loading and after the load test; 6. the machine and the host probe.
 *
 * A full run prints the report, writes docs/bench-street.md and replaces the street section of
 * BENCHMARKS.md (between its markers); a run with --only prints only.
 * Flags: --queries N (routes measured per costing, default 300), --warmup N (default 50),
 * --seconds S (per load scenario, default 10), --clients 8,16, --runs N (tile builds, default 3),
 * --quiet-wait S (wait up to S s for an idle machine before each stage, default 60),
 * --only build|route|isochrone|load|isolation. (--bare-server: internal, runs the bare comparison server.)
 * `--only isolation` (printed only, not part of a full run): what running engine calls in a pool of
 * engine processes (--engine-isolation process, the default) costs against calls in this process
 * (none): two EmbeddedEngines over the dataset, one of each, the same route and matrix queries to
 * both through EmbeddedEngine.handle, interleaved query by query (the order alternating).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, readdirSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join, relative, resolve } from "node:path";
import { activeStreets, readManifest } from "../pipeline/schema/manifest.ts";
import { createApp } from "../server/app.ts";
import { noAuth } from "../server/auth/keys.ts";
import { createRateLimiter } from "../server/auth/limiter.ts";
import type { Logger } from "../server/feature.ts";
import { EmbeddedEngine, engineConfig, openActor, type ActorLike } from "../server/street/embedded.ts";
import { engineErrorFromMessage } from "../server/street/engine-errors.ts";
import { polygonsToRings } from "../server/street/exclude-polygons.ts";
import { STREET_PREFIX, createGateway } from "../server/street/gateway.ts";
import { stripHardExclusions } from "../server/street/hard-exclusions.ts";
import { answerText } from "../server/street/engine.ts";
import { relay } from "../server/street/relay.ts";
import { readStreetRequest } from "../server/street/request.ts";
import { streetErrors, streetQuery, streetResponse, streetRoutes } from "../server/street/routes.ts";
import { validateStreetRequest } from "../server/street/validate.ts";
import { hostProbeMs, machineInfo } from "./lib/machine.ts";
import { fmtBytes, fmtSec, machineBusy, mdTable, measure, median, waitForQuiet, type Measured } from "./lib/measure.ts";
import { rssKb, startServer } from "./lib/server.ts";
import { EARTH_RADIUS_M, haversineM } from "../shared/geo.ts";

const ROOT = resolve(import.meta.dir, "..");
const WORK = join(ROOT, "bench", ".work");
const DATA = join(WORK, "street-rnv");
const OSM = resolve(ROOT, "..", "shared", "data", "osm", "rnv-mannheim-heidelberg.osm.pbf");
const args = process.argv.slice(2);
const flag = (name: string, d: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1]! : d;
};
const N = Number(flag("queries", "300"));
const WARMUP = Number(flag("warmup", "50"));
const SECONDS = Number(flag("seconds", "10"));
const CLIENTS = flag("clients", "8,16").split(",").map(Number);
const RUNS = Number(flag("runs", "3"));
/** before each stage, wait up to this many seconds for the machine to be idle (under 15 % of all cores busy) */
const QUIET_S = Number(flag("quiet-wait", "60"));
const ONLY = flag("only", "");
if (ONLY && !["build", "route", "isochrone", "load", "isolation"].includes(ONLY)) throw new Error(`--only build|route|isochrone|load|isolation, got ${ONLY}`);
const want = (stage: string) => !ONLY || ONLY === stage;

/** The dense core the points are drawn from (Mannheim, Ludwigshafen's east bank, Heidelberg and between). */
const CORE = { minLon: 8.4, maxLon: 8.72, minLat: 49.38, maxLat: 49.52 };
const COSTINGS = ["pedestrian", "bicycle", "auto"] as const;
/** Valhalla's "cannot route this" codes: 171 no suitable edges near a location, 442 no path. */
const UNROUTABLE = new Set([171, 442]);
const SILENT: Logger = { info() {}, warn() {}, error() {} };

function rng(seed: number) {
  return () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
}
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! : NaN;
};
const ms = (x: number) => (Number.isFinite(x) ? (Math.abs(x) < 10 ? x.toFixed(2) : x.toFixed(1)) : "n/a");
const mb = (kb: number) => `${Math.round(kb / 1024)} MB`;

interface Pt { lat: number; lon: number }
const R = EARTH_RADIUS_M;
const distM = (a: Pt, b: Pt) => haversineM(a.lat, a.lon, b.lat, b.lon);
const round6 = (x: number) => Math.round(x * 1e6) / 1e6;
function pointIn(rand: () => number): Pt {
  return { lat: round6(CORE.minLat + rand() * (CORE.maxLat - CORE.minLat)), lon: round6(CORE.minLon + rand() * (CORE.maxLon - CORE.minLon)) };
}
/** Origin uniform in the core; destination at a uniform 0.5-8 km and a uniform bearing, also in the core. */
function pairs(n: number, seed: number): [Pt, Pt][] {
  const rand = rng(seed);
  const out: [Pt, Pt][] = [];
  while (out.length < n) {
    const o = pointIn(rand);
    const d = 500 + rand() * 7500, brg = rand() * 2 * Math.PI;
    const t = { lat: round6(o.lat + ((d * Math.cos(brg)) / R) * (180 / Math.PI)), lon: round6(o.lon + ((d * Math.sin(brg)) / (R * Math.cos((o.lat * Math.PI) / 180))) * (180 / Math.PI)) };
    if (t.lat < CORE.minLat || t.lat > CORE.maxLat || t.lon < CORE.minLon || t.lon > CORE.maxLon) continue;
    out.push([o, t]);
  }
  return out;
}
const routeJson = (p: [Pt, Pt], costing: string) => JSON.stringify({ locations: [p[0], p[1]], costing });
const isoJson = (p: Pt) => JSON.stringify({ locations: [p], costing: "pedestrian", contours: [{ time: 15 }], polygons: true });

/** The engine's error code from an Actor rejection ("Route error: No suitable edges near location" → 171), via the gateway's table. */
const codeOf = (action: "route" | "isochrone", e: unknown) => engineErrorFromMessage(action, (e as Error).message ?? String(e)).error_code;

/** user + system CPU seconds of a process so far (/proc/<pid>/stat utime + stime). */
const CLK_TCK = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim()) || 100;
function procCpuSec(pid: number): number {
  const s = readFileSync(`/proc/${pid}/stat`, "utf8");
  const f = s.slice(s.lastIndexOf(")") + 2).split(" ");
  return (Number(f[11]) + Number(f[12])) / CLK_TCK;
}

function du(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) n += e.isDirectory() ? du(join(dir, e.name)) : statSync(join(dir, e.name)).size;
  return n;
}

// ---------------------------------------------------------------------------------------------
// 1. tile build

interface BuildRun { m: Measured; innerMs: number; sha1: string; tiles: Record<string, number>; bytes: number }

const importCmd = (dir: string) => [process.execPath, join(ROOT, "bin", "interchange.ts"), "import", "--data", dir, "--osm", OSM, "--quiet", "--json"];

async function build(): Promise<BuildRun[]> {
  mkdirSync(WORK, { recursive: true });
  const runs: BuildRun[] = [];
  for (let i = 1; i <= RUNS; i++) {
    const dir = join(WORK, `street-rnv-${i}`);
    rmSync(dir, { recursive: true, force: true });
    await waitForQuiet(Math.min(QUIET_S, 20) * 1000);
    const m = await measure(importCmd(dir), { cwd: ROOT, timeoutMs: 600_000 });
    if (m.exitCode !== 0) throw new Error(`import run ${i} failed (exit ${m.exitCode}):\n${m.stderr.slice(-2000)}`);
    const rep = JSON.parse(m.stdout).streets as { elapsed_ms: number; sha1: string; tiles: Record<string, number> };
    const entry = activeStreets(readManifest(dir))!;
    runs.push({ m, innerMs: rep.elapsed_ms, sha1: rep.sha1, tiles: rep.tiles, bytes: du(join(dir, entry.path)) });
    console.error(`build ${i}: ${fmtSec(m.wallMs)} wall, ${fmtSec(m.cpuMs)} CPU, peak RSS ${fmtBytes(m.peakRssBytes)}, others' load ${(m.othersLoad * 100).toFixed(0)} %`);
  }
  // keep the first run's dataset for the other stages (paths in its manifest are relative)
  rmSync(DATA, { recursive: true, force: true });
  renameSync(join(WORK, "street-rnv-1"), DATA);
  for (let i = 2; i <= RUNS; i++) rmSync(join(WORK, `street-rnv-${i}`), { recursive: true, force: true });
  return runs;
}

/** The dataset for the query stages: built (unmeasured) when a previous run did not leave it. */
function ensureDataset(): void {
  if (existsSync(join(DATA, "manifest.json")) && activeStreets(readManifest(DATA))) return;
  console.error(`building ${relative(ROOT, DATA)} from ${OSM}`);
  rmSync(DATA, { recursive: true, force: true });
  const r = spawnSync(importCmd(DATA)[0]!, importCmd(DATA).slice(1), { stdio: ["ignore", "ignore", "inherit"] });
  if (r.status !== 0) throw new Error(`import failed (exit ${r.status})`);
}

// ---------------------------------------------------------------------------------------------
// the Actor, as the server builds it (embedded.ts reload: engineConfig + openActor, then a status call)

async function directActor(): Promise<ActorLike> {
  const entry = activeStreets(readManifest(DATA))!;
  const actor = await openActor(engineConfig(DATA, entry, { allowHardExclusions: false }));
  await actor.status!("{}");
  return actor;
}

type Server = Awaited<ReturnType<typeof startServer>>;

/** The real server with --engine-concurrency n (null: its default), via the flag's environment variable. */
async function server(concurrency: number | null): Promise<Server & { maxConcurrent: number }> {
  if (concurrency === null) delete process.env.INTERCHANGE_ENGINE_CONCURRENCY;
  else process.env.INTERCHANGE_ENGINE_CONCURRENCY = String(concurrency);
  const s = await startServer(DATA);
  delete process.env.INTERCHANGE_ENGINE_CONCURRENCY;
  const h = (await (await fetch(`${s.url}/health`)).json()) as { features: { street: { max_concurrent: number; street_dataset: unknown } } };
  if (!h.features.street.street_dataset) throw new Error("the server has no street dataset");
  return { ...s, maxConcurrent: h.features.street.max_concurrent };
}

async function post(url: string, body: string): Promise<{ status: number; text: string }> {
  const r = await fetch(url, { method: "POST", body, headers: { "content-type": "application/json" } });
  return { status: r.status, text: await r.text() };
}

// ---------------------------------------------------------------------------------------------
// 2. routes, direct vs HTTP

function goalLine(rs: RouteStats[]): string {
  const over = rs.map((r) => ({ c: r.costing, o: pct(r.http, 50) - pct(r.direct, 50), p: pct(r.diff, 50) }));
  const met = over.filter((x) => x.o <= 1).map((x) => x.c), not = over.filter((x) => x.o > 1).map((x) => x.c);
  return `**Goal (our overhead ≤ 1 ms at p50): ${not.length === 0 ? "met for every costing" : met.length === 0 ? "not met for any costing" : `met for ${met.join(", ")}; not for ${not.join(", ")}`}** (HTTP p50 − direct p50: ${over.map((x) => `${x.c} ${ms(x.o)}`).join(", ")} ms; paired medians ${over.map((x) => `${x.c} ${ms(x.p)}`).join(", ")} ms).`;
}

interface RouteStats {
  costing: string;
  tried: number;
  unroutable: Record<number, number>;
  otherErrors: string[];
  direct: number[];
  http: number[];
  /** per query HTTP − direct */
  diff: number[];
  identical: number;
  bytes: number[];
  lengthKm: number[];
  crowKm: number[];
}

async function routes(actor: ActorLike, srv: Server): Promise<RouteStats[]> {
  const url = `${srv.url}${STREET_PREFIX}/route`;
  const out: RouteStats[] = [];
  for (const costing of COSTINGS) {
    // warm-up (another seed): both paths
    for (const p of pairs(WARMUP, 4242)) {
      const q = routeJson(p, costing);
      await actor.route!(q).catch(() => "");
      await post(url, q);
    }
    const st: RouteStats = { costing, tried: 0, unroutable: {}, otherErrors: [], direct: [], http: [], diff: [], identical: 0, bytes: [], lengthKm: [], crowKm: [] };
    const ps = pairs(N * 4, 12345);
    for (const p of ps) {
      if (st.direct.length >= N) break;
      const q = routeJson(p, costing);
      st.tried++;
      let dText: string | null = null, dCode = 0, dMs = 0, hMs = 0;
      let h = { status: 0, text: "" };
      const doDirect = async () => {
        const t = performance.now();
        try {
          dText = await actor.route!(q);
        } catch (e) {
          dCode = codeOf("route", e);
        }
        dMs = performance.now() - t;
      };
      const doHttp = async () => {
        const t = performance.now();
        h = await post(url, q);
        hMs = performance.now() - t;
      };
      // alternate the order, so neither path always runs second (warm caches)
      if (st.tried % 2) await doDirect().then(doHttp);
      else await doHttp().then(doDirect);
      if (dText === null) {
        let hCode = 0;
        try {
          hCode = (JSON.parse(h.text) as { error_code: number }).error_code;
        } catch {}
        if (UNROUTABLE.has(dCode) && hCode === dCode) st.unroutable[dCode] = (st.unroutable[dCode] ?? 0) + 1;
        else st.otherErrors.push(`direct ${dCode}, HTTP ${h.status} ${h.text.slice(0, 120)}`);
        continue;
      }
      if (h.status !== 200) {
        st.otherErrors.push(`direct ok, HTTP ${h.status} ${h.text.slice(0, 120)}`);
        continue;
      }
      const text = dText as string;
      st.direct.push(dMs);
      st.http.push(hMs);
      st.diff.push(hMs - dMs);
      if (h.text === text) st.identical++;
      st.bytes.push(text.length);
      st.crowKm.push(distM(p[0], p[1]) / 1000);
      st.lengthKm.push((JSON.parse(text) as { trip: { summary: { length: number } } }).trip.summary.length);
    }
    console.error(`${costing}: ${st.direct.length} routed of ${st.tried}; direct p50 ${ms(pct(st.direct, 50))} ms, HTTP p50 ${ms(pct(st.http, 50))} ms, paired diff p50 ${ms(pct(st.diff, 50))} ms; identical ${st.identical}; other errors ${st.otherErrors.length}`);
    out.push(st);
  }
  return out;
}

/** HTTP floors: GET /health, and a POST /route that validation refuses (auth, routing, gateway, zod, error body; no engine). */
async function floors(srv: Server): Promise<{ health: number[]; refused: number[]; refusedStatus: number }> {
  const health: number[] = [], refused: number[] = [];
  const bad = JSON.stringify({ locations: [{ lat: 49.45, lon: 8.55 }], costing: "pedestrian" }); // one location: 120
  let refusedStatus = 0;
  for (let k = 0; k < 2; k++) {
    for (let i = 0; i < 1000; i++) {
      let t = performance.now();
      await (await fetch(`${srv.url}/health`)).arrayBuffer();
      if (k) health.push(performance.now() - t);
      t = performance.now();
      const r = await post(`${srv.url}${STREET_PREFIX}/route`, bad);
      refusedStatus = r.status;
      if (k) refused.push(performance.now() - t);
    }
  }
  return { health, refused, refusedStatus };
}

// ---------------------------------------------------------------------------------------------
// where the gateway's time goes: each layer in this process on the same queries, and its pieces alone

interface Layers { names: string[]; times: number[][]; n: number; bodyBytes: number }
interface Piece { name: string; hot: number; cold: number }

/**
 * The minimal HTTP wrapper of the engine, for scale: Bun.serve in its own process whose POST /route
 * hands the body to the same Actor and answers its string (no Elysia, auth, validation or relay).
 * This file runs as that server when given --bare-server.
 */
async function bareServerMain(): Promise<void> {
  const actor = await directActor();
  const s = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      return new Response(await actor.route!(await req.text()), { headers: { "content-type": "application/json" } });
    },
  });
  console.log(`http://127.0.0.1:${s.port}`);
}

async function startBare(): Promise<{ url: string; stop: () => void }> {
  const child = Bun.spawn([process.execPath, import.meta.path, "--bare-server"], { stdout: "pipe", stderr: "inherit" });
  const reader = child.stdout.getReader();
  let out = "";
  while (!out.includes("\n")) {
    const { done, value } = await reader.read();
    if (done) throw new Error("bare server exited");
    out += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return { url: out.trim(), stop: () => child.kill() };
}

async function layers(actor: ActorLike, srv: Server, costing: string, n: number): Promise<{ layers: Layers; pieces: Piece[]; pieceQueries: number }> {
  const engine = new EmbeddedEngine({ dataDir: DATA, allowHardExclusions: false, maxConcurrent: 1, log: SILENT });
  await engine.reload();
  const gateway = createGateway({ engine, allowHardExclusions: false, log: SILENT });
  const app = createApp({ auth: noAuth(), rateLimiter: createRateLimiter(), features: [{ name: "street", routes: streetRoutes(gateway), errors: streetErrors }], log: SILENT, now: Date.now });
  const bare = await startBare();
  const local = `http://127.0.0.1${STREET_PREFIX}/route`;
  const req = (q: string) => new Request(local, { method: "POST", body: q, headers: { "content-type": "application/json" } });
  const signal = new AbortController().signal;
  const steps: [string, (q: string) => Promise<string>][] = [
    ["Actor.route (direct)", (q) => actor.route!(q)],
    ["EmbeddedEngine.handle + text() (slot, answer)", async (q) => answerText(await engine.handle({ action: "route", body: q, query: "", merged: () => q, signal }))],
    ["gateway.handle + text() (Request, parse, zod, relay)", async (q) => streetResponse(await gateway.handle(await streetQuery(req(q)))).text()],
    ["Elysia app.handle + text() (routing, auth hook)", async (q) => (await app.handle(req(q))).text()],
    ["HTTP to our server (its own process)", async (q) => (await post(`${srv.url}${STREET_PREFIX}/route`, q)).text],
    ["HTTP to a bare Bun.serve + Actor (its own process)", async (q) => (await post(`${bare.url}/route`, q)).text],
  ];
  const qs: string[] = [];
  for (const p of pairs(n * 3, 999)) {
    if (qs.length >= n + 30) break;
    const q = routeJson(p, costing);
    try {
      await actor.route!(q);
      qs.push(q);
    } catch {}
  }
  const times = steps.map(() => [] as number[]);
  const bodyLens: number[] = [];
  for (const [i, q] of qs.entries()) {
    // rotate the order of the layers from query to query
    for (let k = 0; k < steps.length; k++) {
      const j = (k + i) % steps.length;
      const t = performance.now();
      const text = await steps[j]![1](q);
      const dt = performance.now() - t;
      if (i >= 30) times[j]!.push(dt); // the first 30: warm-up
      if (j === 0) bodyLens.push(text.length);
    }
  }
  bare.stop();

  // The pieces alone, on real queries and their real answers, two ways: "hot" = the median of 2000
  // calls in a tight loop (500 unmeasured first) on one query; "after a search" = one call right
  // after an Actor.route of its own query, as in the server (the search evicts caches and
  // predictors), median over 100 queries. No engine in a piece unless it says so.
  const url = new URL(local);
  const answers = new Map<string, string>();
  const pq = qs.slice(30, 130);
  for (const q of pq) answers.set(q, await actor.route!(q));
  const instant = (q: string) => ({ kind: "instant", handle: async () => ({ status: 200, contentType: "application/json", body: answers.get(q)! }), health: () => ({}) });
  let current = pq[0]!;
  const stubGateway = createGateway({ engine: { ...instant(""), handle: async () => instant(current).handle() }, allowHardExclusions: false, log: SILENT });
  const stubApp = createApp({ auth: noAuth(), rateLimiter: createRateLimiter(), features: [{ name: "street", routes: streetRoutes(stubGateway), errors: streetErrors }], log: SILENT, now: Date.now });
  const defs: [string, (q: string) => unknown][] = [
    ["new Request + request.text() (body in)", (q) => req(q).text()],
    ["readStreetRequest (new URL, JSON.parse of the body, query merge)", (q) => readStreetRequest(new URL(local).searchParams, q)],
    ["validateStreetRequest (zod RouteRequest)", (q) => validateStreetRequest("route", readStreetRequest(url.searchParams, q).view)],
    ["  (readStreetRequest alone, to subtract)", (q) => readStreetRequest(url.searchParams, q).view],
    ["stripHardExclusions + polygonsToRings", (q) => [stripHardExclusions(JSON.parse(q) as Record<string, unknown>), polygonsToRings(undefined)]],
    ["engine's answer + relay() + text()", async (q) => streetResponse(await relay({ status: 200, contentType: "application/json", body: answers.get(q)! }, { expectJson: true, warnings: [] })).text()],
    ["  (for scale: new Response(answer).text(), no relay)", (q) => new Response(answers.get(q)!).text()],
    ["gateway.handle + text() with an instant engine", async (q) => streetResponse(await stubGateway.handle(await streetQuery(req(q)))).text()],
    ["Elysia app.handle + text() with an instant engine", async (q) => (await stubApp.handle(req(q))).text()],
    ["Actor.status('{}') (a native call without a search)", () => actor.status!("{}")],
  ];
  const pieces: Piece[] = [];
  for (const [name, f] of defs) {
    const hot: number[] = [];
    current = pq[0]!;
    for (let i = 0; i < 2500; i++) {
      const t = performance.now();
      await f(pq[0]!);
      if (i >= 500) hot.push(performance.now() - t);
    }
    const cold: number[] = [];
    for (const q of pq) {
      current = q;
      await actor.route!(q);
      const t = performance.now();
      await f(q);
      cold.push(performance.now() - t);
    }
    pieces.push({ name, hot: median(hot), cold: median(cold) });
  }
  return { layers: { names: steps.map((s) => s[0]), times, n: times[0]!.length, bodyBytes: median(bodyLens) }, pieces, pieceQueries: pq.length };
}

// ---------------------------------------------------------------------------------------------
// 3. isochrones

interface IsoStats { points: number; rounds: number; direct: number[]; http: number[]; diff: number[]; unroutable: number; vertices: number[]; identical: number }

async function isochrones(actor: ActorLike, srv: Server): Promise<IsoStats> {
  const url = `${srv.url}${STREET_PREFIX}/isochrone`;
  // 10 points the engine can start from (seeded)
  const rand = rng(2024);
  const pts: Pt[] = [];
  let unroutable = 0;
  while (pts.length < 10) {
    const p = pointIn(rand);
    try {
      await actor.isochrone!(isoJson(p));
      pts.push(p);
    } catch (e) {
      if (!UNROUTABLE.has(codeOf("isochrone", e))) throw e;
      unroutable++;
    }
  }
  const st: IsoStats = { points: pts.length, rounds: 10, direct: [], http: [], diff: [], unroutable, vertices: [], identical: 0 };
  for (let round = 0; round <= st.rounds; round++) {
    for (const [i, p] of pts.entries()) {
      const q = isoJson(p);
      let dText = "", dMs = 0, hMs = 0, hText = "";
      const d = async () => {
        const t = performance.now();
        dText = await actor.isochrone!(q);
        dMs = performance.now() - t;
      };
      const h = async () => {
        const t = performance.now();
        const r = await post(url, q);
        hMs = performance.now() - t;
        if (r.status !== 200) throw new Error(`isochrone HTTP ${r.status}: ${r.text.slice(0, 200)}`);
        hText = r.text;
      };
      if ((i + round) % 2) await d().then(h);
      else await h().then(d);
      if (round === 0) continue; // warm-up round
      st.direct.push(dMs);
      st.http.push(hMs);
      st.diff.push(hMs - dMs);
      if (dText === hText) st.identical++;
      if (round === 1) st.vertices.push((JSON.parse(dText) as { features: { geometry: { coordinates: number[][][] } }[] }).features[0]!.geometry.coordinates[0]!.length);
    }
  }
  console.error(`isochrone: direct p50 ${ms(pct(st.direct, 50))} ms, HTTP p50 ${ms(pct(st.http, 50))} ms`);
  return st;
}

// ---------------------------------------------------------------------------------------------
// 4. load

interface LoadResult {
  concurrency: number;
  clients: number;
  seconds: number;
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  serverCores: number;
  clientCores: number;
  machineBusy: number;
}

/** Closed loop: `clients` fetch workers in this process, each posting the next query as soon as its answer is read. */
async function loadRun(srv: Server, qs: string[], clients: number, seconds: number, concurrency: number): Promise<LoadResult> {
  const url = `${srv.url}${STREET_PREFIX}/route`;
  const lat: number[] = [];
  let errors = 0, i = 0;
  const busy = machineBusy(seconds * 1000);
  const cpu0 = procCpuSec(srv.pid), me0 = process.cpuUsage();
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  const worker = async () => {
    while (performance.now() < end) {
      const q = qs[i++ % qs.length]!;
      const t = performance.now();
      const r = await post(url, q);
      lat.push(performance.now() - t);
      if (r.status !== 200) errors++;
    }
  };
  await Promise.all(Array.from({ length: clients }, worker));
  const dt = (performance.now() - t0) / 1000;
  const cpu1 = procCpuSec(srv.pid), me1 = process.cpuUsage(me0);
  return {
    concurrency,
    clients,
    seconds: dt,
    requests: lat.length,
    rps: lat.length / dt,
    p50: pct(lat, 50),
    p99: pct(lat, 99),
    errors,
    serverCores: (cpu1 - cpu0) / dt,
    clientCores: (me1.user + me1.system) / 1e6 / dt,
    machineBusy: await busy,
  };
}

interface LoadStage { results: LoadResult[]; rss: { concurrency: number; loaded: number; afterLoad: number; peak: number }[]; queries: number }

async function load(actor: ActorLike): Promise<LoadStage> {
  // pedestrian queries the engine can route (mixed pairs, another seed)
  const qs: string[] = [];
  for (const p of pairs(600, 777)) {
    if (qs.length >= 300) break;
    const q = routeJson(p, "pedestrian");
    try {
      await actor.route!(q);
      qs.push(q);
    } catch {}
  }
  const results: LoadResult[] = [];
  const rss: LoadStage["rss"] = [];
  for (const c of [null, 2] as const) {
    const srv = await server(c);
    try {
      const loaded = rssKb(srv.pid);
      await loadRun(srv, qs, 4, 2, srv.maxConcurrent); // warm-up
      for (const clients of CLIENTS) {
        const r = await loadRun(srv, qs, clients, SECONDS, srv.maxConcurrent);
        console.error(`engine-concurrency ${r.concurrency}, ${clients} clients: ${r.rps.toFixed(0)} req/s, p50 ${ms(r.p50)} ms, p99 ${ms(r.p99)} ms, server ${r.serverCores.toFixed(2)} cores, client ${r.clientCores.toFixed(2)} cores, errors ${r.errors}`);
        results.push(r);
      }
      rss.push({ concurrency: srv.maxConcurrent, loaded, afterLoad: rssKb(srv.pid), peak: rssKb(srv.pid, "VmHWM") });
    } finally {
      srv.stop();
    }
    await Bun.sleep(500);
  }
  return { results, rss, queries: qs.length };
}

// ---------------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------------
// isolation: engine calls in a pool of engine processes vs in this process, interleaved

async function isolationStage(): Promise<void> {
  const started = new Date();
  const load0 = loadavg()[0]!;
  const quiet = await waitForQuiet(QUIET_S * 1000);
  const engines = {
    none: new EmbeddedEngine({ dataDir: DATA, allowHardExclusions: false, maxConcurrent: 1, isolation: "none", log: SILENT }),
    process: new EmbeddedEngine({ dataDir: DATA, allowHardExclusions: false, maxConcurrent: 1, isolation: "process", log: SILENT }),
  };
  await engines.none.reload();
  await engines.process.reload();
  const signal = new AbortController().signal;
  const call = (e: EmbeddedEngine, action: "route" | "sources_to_targets", body: string) => e.handle({ action, body, query: "", merged: () => body, signal });
  const routeQs = pairs(N + WARMUP, 7).map((p) => routeJson(p, "pedestrian"));
  const matrixQs = pairs(N + WARMUP, 11).map((p, i, all) => {
    const pts = [p[0], p[1], all[(i + 1) % all.length]![0], all[(i + 2) % all.length]![1]];
    return JSON.stringify({ sources: pts.slice(0, 2), targets: pts.slice(2), costing: "pedestrian" });
  });
  const times = { route: { none: [] as number[], process: [] as number[], diff: [] as number[] }, sources_to_targets: { none: [] as number[], process: [] as number[], diff: [] as number[] } };
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (const [action, qs] of [["route", routeQs], ["sources_to_targets", matrixQs]] as const) {
    for (let i = 0; i < qs.length; i++) {
      const order = i % 2 === 0 ? (["none", "process"] as const) : (["process", "none"] as const);
      const took: Record<string, number> = {};
      for (const mode of order) {
        const a = performance.now();
        const ans = await call(engines[mode], action, qs[i]!);
        took[mode] = performance.now() - a;
        if (typeof ans.body !== "string") throw new Error("expected a whole answer");
      }
      if (i < WARMUP) continue;
      times[action].none.push(took.none!);
      times[action].process.push(took.process!);
      times[action].diff.push(took.process! - took.none!);
    }
  }
  const wall = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const pids = engines.process.enginePids();
  const childCpu = pids.reduce((n, pid) => n + procCpuSec(pid), 0);
  const rss = pids.map((pid) => rssKb(pid));
  const mi = machineInfo(ROOT);
  const rows = (["route", "sources_to_targets"] as const).map((a) => {
    const t = times[a];
    return [a === "route" ? "route (pedestrian)" : "matrix 2x2 (pedestrian)", String(t.none.length), `${ms(pct(t.none, 50))} / ${ms(pct(t.none, 90))}`, `${ms(pct(t.process, 50))} / ${ms(pct(t.process, 90))}`, ms(pct(t.process, 50) - pct(t.none, 50)), ms(pct(t.diff, 50)), (pct(t.process, 50) / pct(t.none, 50)).toFixed(2)];
  });
  console.log(`### Engine isolation: calls in a pool of engine processes vs in the server's process

- **Command:** \`npm run bench:street -- --only isolation${args.filter((a) => a !== "--only" && a !== "isolation").map((a) => ` ${a}`).join("")}\` (${N} queries of each kind after ${WARMUP} warm-up)
- **Date:** ${started.toISOString()}; **machine:** ${mi.cpuModel}, ${mi.cores} cores, ${mi.ramGiB} GiB RAM, Bun ${mi.bun}, commit ${mi.gitCommit}; load average (1 min) ${load0.toFixed(2)} at the start, ${loadavg()[0]!.toFixed(2)} at the end; all cores' busy share when it started ${(quiet * 100).toFixed(0)} %.
- **How:** two EmbeddedEngines over \`${relative(ROOT, DATA)}\` (--engine-concurrency 1 each), \`none\` (the Actor in this process) and \`process\` (the default: a pool of engine processes over Bun IPC); each query to both through \`EmbeddedEngine.handle\`, one after the other, the order alternating query by query; ms from the call to the whole answer.
- **CPU:** this process ${(cpu.user / 1e6).toFixed(1)} s user, ${(cpu.system / 1e6).toFixed(1)} s system over ${wall.toFixed(1)} s (both modes' JavaScript, and the in-process engine's work); the engine processes ${childCpu.toFixed(1)} s user + system.
- **Memory:** engine processes' RSS after the run: ${rss.map((k) => mb(k)).join(", ")} (this process: ${mb(rssKb(process.pid))}, with the in-process Actor).

${mdTable(["call", "queries", "none p50 / p90 ms", "process p50 / p90 ms", "p50 difference ms", "p50 of paired differences ms", "ratio of p50s"], rows)}
`);
  await engines.none.close();
  await engines.process.close();
}

async function main() {
  if (ONLY === "isolation") {
    ensureDataset();
    await isolationStage();
    return;
  }
  const started = new Date();
  const probeBefore = hostProbeMs();
  const load0 = loadavg()[0]!;
  if (!existsSync(OSM)) throw new Error(`${OSM} missing`);
  const builds = want("build") ? await build() : null;
  ensureDataset();
  const entry = activeStreets(readManifest(DATA))!;

  let routeRes: RouteStats[] | null = null, floorRes: Awaited<ReturnType<typeof floors>> | null = null, layerRes: Awaited<ReturnType<typeof layers>> | null = null;
  let isoRes: IsoStats | null = null, loadRes: LoadStage | null = null;
  let mainRss: { loaded: number; after: number; peak: number; concurrency: number } | null = null;
  const quiet: [string, number][] = [];
  const actor = want("route") || want("isochrone") || want("load") ? await directActor() : null;
  if (want("route") || want("isochrone")) {
    const srv = await server(null);
    try {
      const loaded = rssKb(srv.pid);
      quiet.push(["route/isochrone", await waitForQuiet(QUIET_S * 1000)]);
      if (want("route")) {
        floorRes = await floors(srv);
        routeRes = await routes(actor!, srv);
        layerRes = await layers(actor!, srv, "pedestrian", Math.min(N, 200));
      }
      if (want("isochrone")) isoRes = await isochrones(actor!, srv);
      mainRss = { loaded, after: rssKb(srv.pid), peak: rssKb(srv.pid, "VmHWM"), concurrency: srv.maxConcurrent };
    } finally {
      srv.stop();
    }
    await Bun.sleep(500);
  }
  if (want("load")) {
    quiet.push(["load", await waitForQuiet(QUIET_S * 1000)]);
    loadRes = await load(actor!);
  }
  const probeAfter = hostProbeMs();
  const mi = machineInfo(ROOT);
  const took = (Date.now() - started.getTime()) / 1000;

  // ---- report
  const parts: string[] = [];
  const cmd = `npm run bench:street${args.length ? ` -- ${args.join(" ")}` : ""}`;
  parts.push(`Generated by \`bench/street.bench.ts\`; rerun to refresh.

- **Command:** \`${cmd}\` (= \`bun bench/street.bench.ts\`; ${N} routes per costing after ${WARMUP} warm-up, load ${SECONDS} s per scenario with ${CLIENTS.join(" and ")} clients, ${RUNS} tile builds)
- **Date:** ${started.toISOString()} (took ${took.toFixed(0)} s)
- **Data:** \`${relative(ROOT, OSM)}\` (${fmtBytes(statSync(OSM).size)}, OSM extract of Mannheim/Heidelberg, node bbox 8.15748,49.32649 .. 8.82215,49.63948), built with Valhalla ${entry.engine_version} (npm \`@valhallajs/valhallajs\`) into ${Object.entries(entry.tiles).map(([l, n]) => `${n} level-${l}`).join(", ")} tiles (${fmtBytes(du(join(DATA, entry.path)))} on disk, admin.sqlite included).
  Queries: seeded random points in the dense core (lon ${CORE.minLon}-${CORE.maxLon}, lat ${CORE.minLat}-${CORE.maxLat}); a route's origin is uniform there and its destination 0.5-8 km away (uniform distance and bearing, also in the core); pairs the engine cannot route (error 171 no edges near a location, 442 no path) are skipped and counted.
- **Machine:** ${mi.cpuModel}, ${mi.cores} cores, ${mi.ramGiB} GiB RAM, ${mi.os}, Bun ${mi.bun}, commit ${mi.gitCommit}; load average (1 min) ${load0.toFixed(2)} at the start, ${loadavg()[0]!.toFixed(2)} at the end; each stage first waits up to ${QUIET_S} s for the machine to be idle (< 15 % of all cores busy over 1 s)${quiet.length ? `: all cores' busy share when it started: ${quiet.map(([k, v]) => `${k} ${(v * 100).toFixed(0)} %`).join(", ")}` : ""}.
- **Host speed probe** (bench/lib/machine.ts hostProbeMs): ${probeBefore.toFixed(2)} ms before, ${probeAfter.toFixed(2)} ms after (about 0.71 ms when this kind of shared host is quiet; higher = the host was slower).
- **Server:** \`interchange serve --data ${relative(ROOT, DATA)} --no-auth --port 0 --host 127.0.0.1\` as a child process (bench/lib/server.ts), the client in this process (fetch over loopback, keep-alive). "Direct" = the Actor in this process built from the same configuration as the server's (embedded.ts \`engineConfig\` + \`openActor\`), called with the request's JSON string.`);

  if (builds) {
    const rows = builds.map((b, i) => [String(i + 1), fmtSec(b.m.wallMs), fmtSec(b.innerMs), fmtSec(b.m.cpuMs), fmtBytes(b.m.peakRssBytes), `${(b.m.othersLoad * 100).toFixed(0)} %`]);
    rows.push(["median", fmtSec(median(builds.map((b) => b.m.wallMs))), fmtSec(median(builds.map((b) => b.innerMs))), fmtSec(median(builds.map((b) => b.m.cpuMs))), fmtBytes(Math.max(...builds.map((b) => b.m.peakRssBytes))) + " (max)", ""]);
    const same = new Set(builds.map((b) => b.sha1)).size === 1;
    parts.push(`### Tile build

\`bun bin/interchange.ts import --data bench/.work/street-rnv-N --osm ${relative(ROOT, OSM)} --quiet --json\`, a child process into a fresh folder each run (each run first waits up to 20 s for the machine to be idle), measured from outside (bench/lib/measure.ts): wall = process start to exit; in-process = the import's own report.elapsed_ms (hashing, valhalla_build_tiles, admin, fsync, manifest switch); CPU = user + system time of the child and its waited-for descendants (valhalla_build_tiles runs as one); peak RSS = the largest of the process tree's ru_maxrss and polled VmHWM; others' CPU = share of all cores used by other processes meanwhile.

${mdTable(["run", "wall", "in-process", "CPU (user+sys)", "peak RSS", "others' CPU"], rows)}

Dataset ${builds[0]!.sha1.slice(0, 12)} ${same ? "(the same key every run)" : "(keys differ between runs!)"}: ${Object.entries(builds[0]!.tiles).map(([l, n]) => `level ${l}: ${n}`).join(", ")} tiles, ${fmtBytes(builds[0]!.bytes)}.`);
  }

  if (routeRes && floorRes && layerRes) {
    const rows = routeRes.map((r) => {
      const over = pct(r.http, 50) - pct(r.direct, 50);
      return [
        r.costing,
        `${r.direct.length} / ${r.tried} (${Object.entries(r.unroutable).map(([c, n]) => `${c}: ${n}`).join(", ") || "none"}${r.otherErrors.length ? `; other errors ${r.otherErrors.length}` : ""})`,
        `${ms(median(r.crowKm))} / ${ms(median(r.lengthKm))} km, ${(median(r.bytes) / 1000).toFixed(1)} kB`,
        `${ms(pct(r.direct, 50))} / ${ms(pct(r.direct, 95))}`,
        `${ms(pct(r.http, 50))} / ${ms(pct(r.http, 95))}`,
        ms(over),
        ms(pct(r.diff, 50)),
        over <= 1 ? "**met**" : "not met",
        `${r.identical}/${r.direct.length}`,
      ];
    });
    const L = layerRes.layers;
    const p50s = L.times.map((t) => pct(t, 50));
    const pairedMed = (a: number[], b: number[]) => pct(a.map((t, k) => t - b[k]!), 50);
    const layerRows = L.names.map((name, i) => {
      const last = i === L.names.length - 1; // the bare server: compared with the direct call only
      return [
        name,
        ms(p50s[i]!),
        i === 0 ? "" : ms(p50s[i]! - p50s[0]!),
        i === 0 ? "" : ms(pairedMed(L.times[i]!, L.times[0]!)),
        i === 0 || last ? "" : ms(pairedMed(L.times[i]!, L.times[i - 1]!)),
      ];
    });
    const fmtUs = (x: number) => `${(x * 1000).toFixed(x < 0.1 ? 1 : 0)} µs`;
    parts.push(`### Routes: direct vs HTTP

Each query both ways, interleaved (the order alternates query by query), after ${WARMUP} warm-up queries of another seed per costing. Latency in ms, p50 / p95; "our overhead" = HTTP p50 − direct p50 (the issue's definition); "paired" = the median of each query's HTTP − direct. Goal: overhead ≤ 1 ms at p50. Identical = HTTP body byte for byte the direct answer. Server: --engine-concurrency default (${mainRss?.concurrency}), one request at a time.

${mdTable(["costing", "routed / tried (skipped by code)", "median crow-fly / route length, answer", "direct p50 / p95", "HTTP p50 / p95", "our overhead (p50 − p50)", "paired p50", "≤ 1 ms?", "identical"], rows)}

${goalLine(routeRes)}

HTTP floors on the same server, 1000 requests each after 1000 unmeasured: GET /health p50 ${ms(pct(floorRes.health, 50))} ms (p95 ${ms(pct(floorRes.health, 95))}); POST /route refused by validation (one location, HTTP ${floorRes.refusedStatus}: auth hook, routing, body, JSON, zod, error body; no engine) p50 ${ms(pct(floorRes.refused, 50))} ms (p95 ${ms(pct(floorRes.refused, 95))}).
${routeRes.some((r) => r.otherErrors.length) ? `\nOther errors (first of each costing): ${routeRes.filter((r) => r.otherErrors.length).map((r) => `${r.costing}: ${r.otherErrors[0]}`).join("; ")}\n` : ""}
#### Where the overhead goes (pedestrian, in this process)

The same ${L.n} pedestrian queries (after 30 unmeasured) through each layer, the order of the layers rotating from query to query: the Actor; the server's EmbeddedEngine (its own Actor, same config) with the answer it builds; the gateway (createGateway over that engine: Request to query, body, JSON.parse, zod, rewrites, relay, answer to Response), each answer read to text; the Elysia app (createApp with the street routes, no-auth authenticator and rate limiter, as \`serve\` builds it); HTTP to our server process; and, for scale, HTTP to the least a Bun HTTP wrapper of the engine can be (Bun.serve in its own process handing the body to the same Actor and answering its string: no Elysia, auth, validation or relay). Answers: median ${(L.bodyBytes / 1000).toFixed(1)} kB. "paired" = median over queries of the difference on the same query; "added by this layer" = vs the row above.

${mdTable(["layer", "p50 ms", "− direct (p50 − p50)", "− direct (paired)", "added by this layer (paired)"], layerRows)}

The gateway's pieces alone, on real pedestrian queries and their answers, in this process: "hot" = median of 2000 calls in a tight loop on one query (after 500 unmeasured); "after a search" = one call right after an Actor.route of its own query, as a request meets them in the server (the search evicts caches and branch predictors), median over ${layerRes.pieceQueries} queries.

${mdTable(["piece", "hot", "after a search"], layerRes.pieces.map((p) => [p.name, fmtUs(p.hot), fmtUs(p.cold)]))}`);
  }

  if (isoRes) {
    parts.push(`### Isochrone: 15 min walking

\`{"locations":[P],"costing":"pedestrian","contours":[{"time":15}],"polygons":true}\` from ${isoRes.points} seeded points of the core (${isoRes.unroutable} drawn points skipped: no edges near), one warm-up round, then ${isoRes.rounds} rounds (${isoRes.direct.length} samples each way), direct and HTTP interleaved. Polygon: median ${median(isoRes.vertices)} vertices. Identical answers ${isoRes.identical}/${isoRes.direct.length}.

${mdTable(["", "p50 ms", "p95 ms"], [
  ["direct (Actor.isochrone)", ms(pct(isoRes.direct, 50)), ms(pct(isoRes.direct, 95))],
  ["HTTP POST /isochrone", ms(pct(isoRes.http, 50)), ms(pct(isoRes.http, 95))],
  ["HTTP − direct (p50 − p50; paired median)", `${ms(pct(isoRes.http, 50) - pct(isoRes.direct, 50))}; ${ms(pct(isoRes.diff, 50))}`, ""],
])}`);
  }

  if (loadRes) {
    const rows = loadRes.results.map((r) => [
      String(r.concurrency),
      String(r.clients),
      r.rps.toFixed(0),
      `${ms(r.p50)} / ${ms(r.p99)}`,
      String(r.requests),
      String(r.errors),
      r.serverCores.toFixed(2),
      ms((r.serverCores * 1000) / r.rps),
      r.clientCores.toFixed(2),
      `${(r.machineBusy * 100).toFixed(0)} %`,
    ]);
    parts.push(`### Throughput: POST /route, pedestrian, 2 cores busy

${loadRes.queries} routable pedestrian pairs (another seed), posted round-robin by N closed-loop fetch clients in this process (each sends its next request as soon as its answer is read), ${SECONDS} s per row after a 2 s warm-up with 4 clients; a fresh server per --engine-concurrency setting (1 is the default on 2 cores). Server / client CPU = user + system CPU time of the server process (/proc/<pid>/stat) and of this process (load generator) per second of wall time, in cores; machine busy = all cores' busy share over the run (/proc/stat), others included.

${mdTable(["--engine-concurrency", "clients", "requests/s", "p50 / p99 ms", "requests", "errors", "server CPU (cores)", "server CPU ms / request", "client CPU (cores)", "machine busy"], rows)}`);
  }

  if (mainRss || loadRes) {
    const rows: string[][] = [];
    if (mainRss) rows.push([`latency server (--engine-concurrency ${mainRss.concurrency})`, mb(mainRss.loaded), `${mb(mainRss.after)} after the route/isochrone queries`, mb(mainRss.peak)]);
    for (const r of loadRes?.rss ?? []) rows.push([`load server (--engine-concurrency ${r.concurrency})`, mb(r.loaded), `${mb(r.afterLoad)} after the load test`, mb(r.peak)]);
    parts.push(`### Server memory

RSS of the server process (bench/lib/server.ts rssKb: /proc/<pid>/status VmRSS; peak = VmHWM). "After loading" = as soon as it listens (the street dataset is opened: the Actor exists and answered one status call; tiles are read on demand). The data folder holds only the street dataset (no GTFS feeds).

${mdTable(["server", "after loading", "after the queries", "peak"], rows)}`);
  }

  const body = parts.join("\n\n") + "\n";
  console.log(`## Street routing benchmark (\`npm run bench:street\`)\n\n${body}`);
  if (!ONLY) {
    writeFileSync(join(ROOT, "docs", "bench-street.md"), `# Street routing benchmark (\`npm run bench:street\`)\n\n${body.replace(/^(#{3,4}) /gm, (_m, h: string) => `${h.slice(1)} `)}`);
    const file = join(ROOT, "BENCHMARKS.md");
    const HEAD = "## Street routing benchmark (`npm run bench:street`)";
    const START = "<!-- bench:street generated: start -->", END = "<!-- bench:street generated: end -->";
    const gen = `${START}\n\n${body}\n${END}`;
    let md = readFileSync(file, "utf8");
    const s = md.indexOf(START), e = md.indexOf(END);
    if (s >= 0 && e > s) md = md.slice(0, s) + gen + md.slice(e + END.length);
    else md = `${md.replace(/\s*$/, "")}\n\n${HEAD}\n\n${gen}\n`;
    writeFileSync(file, md);
    console.error("wrote docs/bench-street.md and the street section of BENCHMARKS.md");
  } else console.error("--only: printed only (docs/bench-street.md and BENCHMARKS.md are written by a full run)");
}

if (args.includes("--bare-server")) await bareServerMain();
else {
  await main();
  process.exit(0);
}
