/**
 * Load benchmark (`npm run bench:load`): requests/s and latency p50/p99 under `wrk` through Debian's
 * nginx (deploy/nginx.conf with only its ports and paths changed, and the per-address limit_req
 * raised, as test/ops/zero-downtime.test.ts does: the one load generator stands for many clients)
 * in front of `interchange serve --api-keys` with 1 and 2 workers, the rate limiter in process or
 * in Redis (Debian's redis-server on a port of its own). Every request carries the API key of one
 * account whose rate_limit_per_minute is far above the load, so the limiter runs on every request
 * and never refuses.
 *
 * Scenarios (each one `wrk -t2 -c16 -d10s --latency` with a Lua script cycling through prepared
 * request paths, after an unmeasured warm-up): stop by key (real stop keys), a ~1 km² bbox stop
 * list (limit 20), an OTP1 plan between random served NYC stops at random weekday times, a
 * pedestrian street route between random points of the downtown San Francisco extract (the street
 * data is SF, the transit data NYC: one dataset folder holds both).
 *
 * Data: bench/.work/load: the nine MTA feeds of bench:plan's "nyc" data set (bench/.mta, built by
 * ../shared/tools/mta-gtfs) and ../shared/data/osm/sf-downtown.osm.pbf, imported on first use (or
 * copied from bench/.work/plan-nyc when that has a timetable, then the streets imported into it).
 * Flags: --seconds N (per cell, default 10), --warmup N (s, default 2), --connections N (default 16),
 * --workers 1,2, --write (replace the "Load benchmark" section of BENCHMARKS.md with the output).
 */
import { spawnSync } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { readManifest } from "../pipeline/schema/manifest.ts";
import { loadTimetableFile } from "../server/planner/timetable/arrow-loader.ts";
import { edgeConfig, freePort, requireBinary, startRedis, type RedisServer } from "../test/support/services.ts";
import { hostProbeMs, machineInfo } from "./lib/machine.ts";
import { flag, hasFlag, rng } from "./lib/args.ts";
import { mdTable } from "./lib/measure.ts";

const ROOT = resolve(import.meta.dir, "..");
const BIN = join(ROOT, "bin", "interchange.ts");
const WORK = join(ROOT, "bench", ".work");
const DATA = join(WORK, "load");
const MTA = join(ROOT, "bench", ".mta");
const OSM = resolve(ROOT, "..", "shared", "data", "osm", "sf-downtown.osm.pbf");
const FEEDS = ["mta-subway", "mta-bus-bk", "mta-bus-bx", "mta-bus-m", "mta-bus-qns", "mta-bus-si", "mta-bus-busco", "mta-lirr", "mta-mnr"];
const SECONDS = Number(flag("seconds", "10"));
const WARMUP = Number(flag("warmup", "2"));
const CONNS = Number(flag("connections", "16"));
const WORKERS = flag("workers", "1,2").split(",").map(Number);
const API_KEY = "load-bench-key-0001";
/** requests per minute: about a million per second, never reached, so the limiter never refuses */
const RATE_PER_MIN = 60_000_000;
const CLK_TCK = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim()) || 100;

// ---------------------------------------------------------------- processes started here (all stopped in finally)
const started: { name: string; proc: ReturnType<typeof Bun.spawn> }[] = [];
let redis: RedisServer | null = null;

async function stopProc(p: ReturnType<typeof Bun.spawn>, signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
  if (p.exitCode !== null || p.signalCode !== null) return;
  p.kill(signal);
  const done = await Promise.race([p.exited.then(() => true), Bun.sleep(15_000).then(() => false)]);
  if (!done) {
    p.kill("SIGKILL");
    await p.exited;
  }
}

async function stopAll(): Promise<void> {
  for (const s of started.splice(0).reverse()) await stopProc(s.proc, s.name === "nginx" ? "SIGQUIT" : "SIGTERM");
  await redis?.stop();
  redis = null;
}

// ---------------------------------------------------------------- the dataset
function prepare(): void {
  const m = readManifest(DATA);
  const ready = m.timetable && m.active_streets && m.feeds.filter((f) => f.active).length >= FEEDS.length;
  if (ready) return;
  const planNyc = join(WORK, "plan-nyc");
  if (!m.timetable && existsSync(planNyc) && readManifest(planNyc).timetable) {
    console.error(`copying ${planNyc} to ${DATA}`);
    rmSync(DATA, { recursive: true, force: true });
    cpSync(planNyc, DATA, { recursive: true });
  }
  const have = readManifest(DATA);
  const args = ["import", "--data", DATA, "--quiet"];
  if (!have.active_streets) args.push("--osm", OSM);
  if (!(have.timetable && have.feeds.filter((f) => f.active).length >= FEEDS.length)) {
    const feeds = FEEDS.map((f) => {
      const zip = join(MTA, `${f}.zip`);
      if (!existsSync(zip)) throw new Error(`${zip} missing: run ../shared/tools/mta-gtfs ${MTA}`);
      return { id: `f-${f}`, path: zip }; // derived ids of the MTA feeds collide
    });
    mkdirSync(DATA, { recursive: true });
    const feedsFile = join(WORK, "load.feeds.json");
    writeFileSync(feedsFile, JSON.stringify(feeds));
    args.push("--feeds", feedsFile);
  }
  console.error(`interchange ${args.join(" ")}`);
  const r = spawnSync(process.execPath, [BIN, ...args], { stdio: ["ignore", "ignore", "inherit"] });
  if (r.status !== 0) throw new Error(`import into ${DATA} failed (exit ${r.status})`);
}

// ---------------------------------------------------------------- the requests
interface Req {
  method: "GET" | "POST";
  path: string;
  body?: string;
}
interface Scenario {
  name: string;
  reqs: Req[];
  /** prepared before the validation */
  prepared: number;
}

/** SF downtown, inside the extract (Civic Center .. Embarcadero and a little around) */
const SF = { latMin: 37.774, latMax: 37.795, lonMin: -122.423, lonMax: -122.396 };

function buildScenarios(): { scenarios: Scenario[]; day: string } {
  const m = readManifest(DATA);
  const tt = loadTimetableFile(join(DATA, m.timetable!.path));
  const { core, meta } = tt;
  const rand = rng(4242);
  const key = `apikey=${API_KEY}`;
  // the weekday (Tuesday..Thursday) inside the service windows of the most feeds
  const inWindow = (f: number, d: number) => d >= meta.feedStartDay[f]! && d <= meta.feedEndDay[f]!;
  let day = meta.feedStartDay[0]!, best = -1;
  for (let d = Math.min(...meta.feedStartDay); d <= Math.max(...meta.feedEndDay); d++) {
    const wd = (d + 4) % 7; // 1970-01-01 was a Thursday (4)
    if (wd < 2 || wd > 4) continue;
    let c = 0;
    for (let f = 0; f < meta.feeds.length; f++) if (inWindow(f, d)) c++;
    if (c > best) [day, best] = [d, c];
  }
  const iso = new Date(day * 86400_000).toISOString().slice(0, 10);
  const served: number[] = [];
  for (let s = 0; s < core.nStops; s++) if (core.stopRouteStart[s + 1]! > core.stopRouteStart[s]! && inWindow(meta.stopFeed[s]!, day)) served.push(s);
  const pick = () => served[Math.floor(rand() * served.length)]!;
  const all = Array.from({ length: core.nStops }, (_, i) => i);
  const anyStop = () => all[Math.floor(rand() * all.length)]!;

  const stops: Req[] = Array.from({ length: 2000 }, () => {
    const s = anyStop();
    const k = `${meta.feeds[meta.stopFeed[s]!]!.onestopId}:${meta.stopId[s]}`;
    return { method: "GET", path: `/api/v2/rest/stops/${encodeURIComponent(k)}?${key}` };
  });
  // ~1 km x 1 km around a stop (NYC: 0.012° of longitude ≈ 1.01 km, 0.009° of latitude ≈ 1.0 km)
  const bbox: Req[] = Array.from({ length: 1000 }, () => {
    const s = anyStop();
    const lat = meta.stopLat[s]!, lon = meta.stopLon[s]!;
    const b = [lon - 0.006, lat - 0.0045, lon + 0.006, lat + 0.0045].map((x) => x.toFixed(6)).join(",");
    return { method: "GET", path: `/api/v2/rest/stops?bbox=${b}&limit=20&${key}` };
  });
  const plans: Req[] = [];
  while (plans.length < 300) {
    const o = pick(), d = pick();
    if (o === d) continue;
    const t = 6 * 3600 + Math.floor(rand() * 16 * 60) * 60; // local time of day
    const hhmm = `${String(Math.floor(t / 3600)).padStart(2, "0")}:${String(Math.floor((t % 3600) / 60)).padStart(2, "0")}:00`;
    plans.push({ method: "GET", path: `/api/v2/routing/otp/plan?fromPlace=${meta.stopLat[o]!.toFixed(6)},${meta.stopLon[o]!.toFixed(6)}&toPlace=${meta.stopLat[d]!.toFixed(6)},${meta.stopLon[d]!.toFixed(6)}&date=${iso}&time=${hhmm}&${key}` });
  }
  const pt = () => ({ lat: +(SF.latMin + rand() * (SF.latMax - SF.latMin)).toFixed(6), lon: +(SF.lonMin + rand() * (SF.lonMax - SF.lonMin)).toFixed(6) });
  const streets: Req[] = Array.from({ length: 300 }, () => ({
    method: "POST",
    path: `/api/v2/routing/valhalla/route?${key}`,
    body: JSON.stringify({ locations: [pt(), pt()], costing: "pedestrian" }),
  }));
  const sc = (name: string, reqs: Req[]): Scenario => ({ name, reqs, prepared: reqs.length });
  return {
    scenarios: [
      sc("stop by key", stops),
      sc("bbox stop list (~1 km², limit 20)", bbox),
      sc("NYC plan (OTP1, random stops, weekday 06-22 h)", plans),
      sc("street route, pedestrian (SF downtown)", streets),
    ],
    day: iso,
  };
}

/** Keeps the requests the server answers with 2xx (a street point off the network, say, answers 400). */
async function validate(base: string, sc: Scenario): Promise<void> {
  const ok: Req[] = [];
  let i = 0;
  const statuses: Record<number, number> = {};
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (i < sc.reqs.length) {
        const r = sc.reqs[i++]!;
        const res = await fetch(base + r.path, { method: r.method, body: r.body, headers: r.body ? { "content-type": "application/json" } : {} });
        await res.arrayBuffer();
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        if (res.ok) ok.push(r);
      }
    }),
  );
  if (ok.length < 20) throw new Error(`${sc.name}: only ${ok.length} of ${sc.reqs.length} prepared requests answer 2xx (${JSON.stringify(statuses)})`);
  sc.reqs = ok;
  console.error(`${sc.name}: ${ok.length}/${sc.prepared} prepared requests answer 2xx ${JSON.stringify(statuses)}`);
}

// ---------------------------------------------------------------- wrk
const luaStr = (s: string) => JSON.stringify(s); // no control characters: a valid Lua string literal

function wrkScript(reqs: Req[]): string {
  const list = reqs.map((r) => (r.body ? `{${luaStr(r.method)},${luaStr(r.path)},${luaStr(r.body)}}` : `{${luaStr(r.method)},${luaStr(r.path)}}`)).join(",\n");
  return `
local counter = 0
setup = function(thread)
  thread:set("offset", counter * 7919)
  counter = counter + 1
end
local reqs = {}
local i = 0
init = function(args)
  local list = {
${list}
  }
  for k, r in ipairs(list) do
    if r[3] then reqs[k] = wrk.format(r[1], r[2], { ["Content-Type"] = "application/json" }, r[3])
    else reqs[k] = wrk.format(r[1], r[2]) end
  end
  i = (offset or 0) % #reqs
end
request = function()
  i = i % #reqs + 1
  return reqs[i]
end
done = function(s, latency, requests)
  io.write(string.format('RESULT {"requests":%d,"duration_us":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,"p50_us":%d,"p99_us":%d,"max_us":%d}\\n',
    s.requests, s.duration, s.errors.connect, s.errors.read, s.errors.write, s.errors.status, s.errors.timeout,
    latency:percentile(50), latency:percentile(99), latency.max))
end
`;
}

interface WrkResult {
  requests: number;
  duration_us: number;
  connect: number;
  read: number;
  write: number;
  status: number;
  timeout: number;
  p50_us: number;
  p99_us: number;
  max_us: number;
}

async function runWrk(script: string, url: string, seconds: number): Promise<WrkResult> {
  const p = Bun.spawn(["/usr/bin/wrk", "-t2", `-c${CONNS}`, `-d${seconds}s`, "--timeout", "10s", "--latency", "-s", script, url], { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  const line = out.split("\n").find((l) => l.startsWith("RESULT "));
  if (code !== 0 || !line) throw new Error(`wrk exited ${code}: ${out}${err}`);
  return JSON.parse(line.slice(7)) as WrkResult;
}

// ---------------------------------------------------------------- CPU time from /proc
function statOf(pid: number): { ppid: number; ticks: [number, number] } | null {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = s.slice(s.lastIndexOf(")") + 2).split(" "); // f[0] = state (field 3)
    return { ppid: Number(f[1]), ticks: [Number(f[11]), Number(f[12])] }; // utime, stime (fields 14, 15)
  } catch {
    return null;
  }
}

/** user and system CPU ticks of pid and all its descendants, per pid */
function treeTicks(root: number): Map<number, [number, number]> {
  const children = new Map<number, number[]>();
  const stats = new Map<number, [number, number]>();
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    const st = statOf(Number(d));
    if (!st) continue;
    stats.set(Number(d), st.ticks);
    children.set(st.ppid, [...(children.get(st.ppid) ?? []), Number(d)]);
  }
  const out = new Map<number, [number, number]>();
  const walk = (p: number) => {
    const t = stats.get(p);
    if (t) out.set(p, t);
    for (const c of children.get(p) ?? []) walk(c);
  };
  walk(root);
  return out;
}

/** CPU seconds (user, sys) used by the tree between two snapshots */
function cpuDelta(a: Map<number, [number, number]>, b: Map<number, [number, number]>): [number, number] {
  let u = 0, s = 0;
  for (const [pid, [bu, bs]] of b) {
    const [au, as] = a.get(pid) ?? [0, 0];
    u += bu - au;
    s += bs - as;
  }
  return [u / CLK_TCK, s / CLK_TCK];
}

// ---------------------------------------------------------------- services
async function until(what: string, ok: () => Promise<boolean>, ms: number): Promise<void> {
  const t0 = Date.now();
  while (Date.now() - t0 < ms) {
    if (await ok().catch(() => false)) return;
    await Bun.sleep(100);
  }
  throw new Error(`${what}: not within ${ms} ms`);
}

/** `count` free ports in a row (first, first + 1, ...). */
async function freePorts(count: number): Promise<number> {
  for (;;) {
    const first = await freePort();
    if (first + count - 1 > 65535) continue;
    const ok = await Promise.all(Array.from({ length: count - 1 }, (_, i) => Bun.connect({ hostname: "127.0.0.1", port: first + 1 + i, socket: { data() {} } }).then((s) => (s.end(), false), () => true)));
    if (ok.every(Boolean)) return first;
  }
}

interface Serve {
  url: string;
  proc: ReturnType<typeof Bun.spawn>;
  /** worker i's own port (--worker-port): nginx's upstream */
  workerPorts: number[];
  /** worker i's metrics listener (--metrics-port + i) */
  metricsPorts: number[];
}

async function startServe(dir: string, keys: string, workers: number, redisUrl: string | null): Promise<Serve> {
  const port = await freePort();
  const workerPort = await freePorts(workers);
  const metricsPort = await freePorts(workers);
  const log = join(dir, `serve-w${workers}-${redisUrl ? "redis" : "local"}.log`);
  const args = [process.execPath, BIN, "serve", "--data", DATA, "--host", "127.0.0.1", "--port", String(port), "--api-keys", keys, "--workers", String(workers), "--worker-port", String(workerPort), "--metrics-port", String(metricsPort), ...(redisUrl ? ["--redis-url", redisUrl] : [])];
  // the JSON log (one line per request) goes to a file, as in production, not through this process
  const proc = Bun.spawn(args, { stdout: "ignore", stderr: Bun.file(log), env: { ...process.env } });
  started.push({ name: "serve", proc });
  const url = `http://127.0.0.1:${port}`;
  const pids = new Set<number>();
  // every worker answers (each has loaded its catalog and the NYC timetable)
  await until(
    `interchange serve --workers ${workers} (log ${log})`,
    async () => {
      if (proc.exitCode !== null) throw new Error(`interchange serve exited ${proc.exitCode}: ${readFileSync(log, "utf8").slice(-2000)}`);
      const r = await fetch(`${url}/health`, { keepalive: false, headers: { connection: "close" } });
      const h = (await r.json()) as { worker?: { pid: number }; features?: { planner?: { loaded?: boolean } } };
      if (!r.ok || !h.features?.planner?.loaded) return false;
      pids.add(h.worker?.pid ?? proc.pid);
      return pids.size >= workers;
    },
    120_000,
  );
  const range = (first: number) => Array.from({ length: workers }, (_, i) => first + i);
  return { url, proc, workerPorts: range(workerPort), metricsPorts: range(metricsPort) };
}

/** Requests each worker has answered so far (its interchange_http_requests_total, all families and statuses). */
async function workerRequests(metricsPorts: number[]): Promise<number[]> {
  return Promise.all(
    metricsPorts.map(async (p) => {
      const text = await (await fetch(`http://127.0.0.1:${p}/metrics`)).text();
      return text.split("\n").filter((l) => l.startsWith("interchange_http_requests_total{")).reduce((n, l) => n + Number(l.slice(l.lastIndexOf(" ") + 1)), 0);
    }),
  );
}


async function startNginx(dir: string, upstream: number[]): Promise<{ url: string; proc: ReturnType<typeof Bun.spawn> }> {
  const bin = requireBinary("/usr/sbin/nginx", "nginx");
  const port = await freePort();
  const conf = join(dir, "nginx.conf");
  writeFileSync(conf, edgeConfig(dir, port, upstream, [
    ["rate=20r/s", "rate=100000r/s"],
    // nginx counts a burst per millisecond of its cached clock: 16 connections answered in one event
    // loop pass exceed burst=40 even at 100000 r/s (the first run refused 0.2 % of stop-by-key requests)
    ["burst=40 ", "burst=100000 "],
  ]));
  mkdirSync(join(dir, "conf"), { recursive: true });
  const proc = Bun.spawn([bin, "-c", conf, "-p", dir, "-g", "daemon off;"], { stdout: "ignore", stderr: "ignore" });
  started.push({ name: "nginx", proc });
  const url = `http://127.0.0.1:${port}`;
  await until("nginx answers", async () => (await fetch(`${url}/health`)).ok, 10_000);
  return { url, proc };
}

// ---------------------------------------------------------------- the run
interface Cell {
  workers: number;
  redis: boolean;
  scenario: string;
  r: WrkResult;
  serverCpu: [number, number];
  nginxCpu: [number, number];
  redisCpu: [number, number];
  /** requests each worker answered during the measured run */
  perWorker: number[];
}

const ms = (us: number) => (us / 1000 < 10 ? (us / 1000).toFixed(2) : (us / 1000).toFixed(1));
const cpu = ([u, s]: [number, number]) => `${u.toFixed(1)} / ${s.toFixed(1)}`;

async function main(): Promise<string> {
  requireBinary("/usr/bin/wrk", "wrk");
  requireBinary("/usr/sbin/nginx", "nginx");
  prepare();
  const { scenarios, day } = buildScenarios();
  Bun.gc(true);
  const dir = join(WORK, "load-run");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  chmodSync(dir, 0o777); // nginx's workers run as nobody
  const keys = join(dir, "keys.json");
  writeFileSync(keys, JSON.stringify([{ key: API_KEY, account: "load-bench", rate_limit_per_minute: RATE_PER_MIN }]));
  const scripts = new Map<string, string>();
  redis = await startRedis();
  const probeBefore = hostProbeMs();
  const cells: Cell[] = [];
  let validated = false;
  for (const workers of WORKERS) {
    for (const useRedis of [false, true]) {
      const serve = await startServe(dir, keys, workers, useRedis ? redis.url : null);
      if (!validated) {
        for (const sc of scenarios) {
          await validate(serve.url, sc);
          const f = join(dir, `${sc.name.split(" ")[0]!.toLowerCase()}-${scenarios.indexOf(sc)}.lua`);
          writeFileSync(f, wrkScript(sc.reqs));
          scripts.set(sc.name, f);
        }
        validated = true;
      }
      const nginxDir = join(dir, `nginx-w${workers}-${useRedis ? "redis" : "local"}`);
      mkdirSync(nginxDir, { recursive: true });
      chmodSync(nginxDir, 0o777);
      const edge = await startNginx(nginxDir, serve.workerPorts);
      for (const sc of scenarios) {
        const script = scripts.get(sc.name)!;
        if (WARMUP > 0) await runWrk(script, edge.url, WARMUP);
        const w0 = await workerRequests(serve.metricsPorts);
        const s0 = treeTicks(serve.proc.pid), n0 = treeTicks(edge.proc.pid), r0 = treeTicks(redis.pid());
        const r = await runWrk(script, edge.url, SECONDS);
        const s1 = treeTicks(serve.proc.pid), n1 = treeTicks(edge.proc.pid), r1 = treeTicks(redis.pid());
        const w1 = await workerRequests(serve.metricsPorts);
        const perWorker = w1.map((n, i) => n - w0[i]!);
        const cell: Cell = { workers, redis: useRedis, scenario: sc.name, r, serverCpu: cpuDelta(s0, s1), nginxCpu: cpuDelta(n0, n1), redisCpu: cpuDelta(r0, r1), perWorker };
        cells.push(cell);
        console.error(`workers ${workers}, limiter ${useRedis ? "Redis" : "in process"}, ${sc.name}: ${(r.requests / (r.duration_us / 1e6)).toFixed(0)} req/s, p50 ${ms(r.p50_us)} ms, p99 ${ms(r.p99_us)} ms, errors ${r.status + r.connect + r.read + r.write + r.timeout}, requests per worker ${perWorker.join(" / ")}`);
      }
      await stopProc(edge.proc, "SIGQUIT");
      await stopProc(serve.proc);
      started.splice(0);
    }
  }
  const probeAfter = hostProbeMs();
  const mi = machineInfo(ROOT);
  const m = readManifest(DATA);
  const rows = cells.map((c) => [
    String(c.workers),
    c.redis ? "Redis" : "in process",
    c.scenario,
    Math.round(c.r.requests / (c.r.duration_us / 1e6)).toLocaleString("en-US"),
    ms(c.r.p50_us),
    ms(c.r.p99_us),
    ms(c.r.max_us),
    String(c.r.status),
    String(c.r.connect + c.r.read + c.r.write + c.r.timeout),
    cpu(c.serverCpu),
    cpu(c.nginxCpu),
    c.redis ? cpu(c.redisCpu) : "—",
    c.perWorker.map((n) => n.toLocaleString("en-US")).join(" / "),
  ]);
  return `## Load benchmark (\`npm run bench:load\`)

Command: \`npm run bench:load\` (\`bun bench/load.bench.ts\`): per cell \`wrk -t2 -c${CONNS} -d${SECONDS}s --timeout 10s --latency -s SCRIPT\` after an unmeasured ${WARMUP} s run of the same script; the Lua script cycles through prepared request paths (each thread from its own offset), all carrying \`apikey=\` of one account.
Machine: ${mi.cpuModel}, ${mi.cores} cores, ${mi.ramGiB} GiB RAM, ${mi.os}, Bun ${mi.bun}, commit ${mi.gitCommit}. wrk, nginx, redis-server and the server all run on these 2 cores (the load generator takes its share of them).
Host speed probe (bench/lib/machine.ts hostProbeMs): ${probeBefore.toFixed(2)} ms before the measurements, ${probeAfter.toFixed(2)} ms after (about 0.71 ms when this kind of shared host is quiet; higher = the host was slower).

Path of a request: wrk → Debian's nginx with deploy/nginx.conf (only ports and paths changed, and its per-address \`limit_req\` raised from 20 r/s, burst 40 to 100000 r/s, burst 100000, as test/ops/zero-downtime.test.ts does: the one load generator stands for many clients; gzip, keepalive to the upstream, access log as written) → \`interchange serve --api-keys FILE --workers N --worker-port P --metrics-port M [--redis-url URL]\` (its JSON log to a file; nginx's upstream is the workers' own ports P + i, least_conn, so it picks a worker per request). The keys file has one account with \`rate_limit_per_minute\` ${RATE_PER_MIN.toLocaleString("en-US")}: the limiter takes a token on every request (in process, or one \`EVALSHA\` on Debian's redis-server on its own port) and never refuses.
Data (bench/.work/load, one folder): the nine MTA feeds of \`bench:plan\`'s NYC data set (${m.feeds.map((f) => f.onestop_id).join(", ")}) and the downtown San Francisco OSM extract (\`../shared/data/osm/sf-downtown.osm.pbf\`) as its street dataset: the street routes are in San Francisco while the transit data is New York City (the plans' walks in NYC are straight lines, no street data covers them).
Requests: stop by key = \`GET /api/v2/rest/stops/{feed}:{stop_id}\` over ${scenarios[0]!.reqs.length} random stops; bbox = \`GET /api/v2/rest/stops?bbox=…&limit=20\`, ~1.0 × 1.0 km around ${scenarios[1]!.reqs.length} random stops; plan = \`GET /api/v2/routing/otp/plan\` between ${scenarios[2]!.reqs.length} random pairs of served stops (coordinates) at random times 06:00–22:00 on ${day} (a weekday inside the feeds' windows), default modes (transit and walk); street = \`POST /api/v2/routing/valhalla/route\` pedestrian between ${scenarios[3]!.reqs.length} pairs of random points in lat ${SF.latMin}–${SF.latMax}, lon ${SF.lonMin}–${SF.lonMax}. Only requests answered 2xx in a check before the runs are kept (${scenarios.map((s) => `${s.name.split(" (")[0]}: ${s.reqs.length}/${s.prepared}`).join(", ")}).
Columns: req/s = wrk's requests / its duration; p50 / p99 / max = wrk's latency (ms); HTTP errors = wrk's status errors (answers ≥ 400); socket errors = connect + read + write + timeout; CPU = user / system seconds over the ${SECONDS} s measured run from /proc/<pid>/stat (the serve process and its workers; nginx's master and workers; redis-server); requests per worker = the growth of each worker's \`interchange_http_requests_total\` (its metrics port M + i) over the measured run, worker 0 first.

${mdTable(["workers", "limiter", "scenario", "req/s", "p50 ms", "p99 ms", "max ms", "HTTP errors", "socket errors", "server CPU user / sys s", "nginx CPU user / sys s", "redis CPU user / sys s", "requests per worker"], rows)}
`;
}

let output = "";
try {
  output = await main();
} finally {
  await stopAll();
}
console.log(output);
if (hasFlag("write")) {
  const file = join(ROOT, "BENCHMARKS.md");
  const text = readFileSync(file, "utf8");
  const start = text.indexOf("## Load benchmark (`npm run bench:load`)");
  if (start >= 0) {
    const next = text.indexOf("\n## ", start + 10);
    writeFileSync(file, text.slice(0, start) + output.trimEnd() + "\n" + (next >= 0 ? text.slice(next) : ""));
  } else writeFileSync(file, text.trimEnd() + "\n\n" + output.trimEnd() + "\n");
  console.error("written to BENCHMARKS.md");
}
process.exit(0);
