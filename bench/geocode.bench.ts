/**
 * Geocoder benchmark (`npm run bench:geocode`): the index build (time, size) and the speed of
 * /v1/autocomplete, /v1/search and /v1/reverse under `wrk -t2 -c16` against `interchange serve`
 * (one process, --no-auth) over New York's stops and stations (the nine MTA feeds of bench:plan,
 * bench/.mta, built by ../shared/tools/mta-gtfs) plus the OSM places of two extracts of
 * ../shared/data/osm (EXTRACTS, one street dataset: addresses, streets, venues, places).
 *
 * Queries: prefixes (3 characters to the whole name) of real stop names and OSM names drawn with a
 * fixed seed, each with a focus point half the time (autocomplete); whole names (search); random
 * points within 2 km of random stops and OSM places (reverse). Each scenario runs after an
 * unmeasured warm-up; in-process p50 of the engine alone is measured too (no HTTP).
 *
 * Data: bench/.work/geocode (imported on first use; `--fresh` imports again). Flags: --seconds N
 * (default 10), --warmup N (default 2), --connections N (default 16), --workers N (serve --workers, default 1).
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { importFeed } from "../pipeline/import.ts";
import { importStreets } from "../pipeline/street/import-streets.ts";
import { osmPlaces } from "../pipeline/geocode/osm.ts";
import { buildGeocodeIndex } from "../pipeline/geocode/build.ts";
import { loadBoundaries } from "../pipeline/places/boundaries.ts";
import { activeStreets, activeVersions, readManifest } from "../pipeline/schema/manifest.ts";
import { decodeGeocodeIndex, GEOCODE_FILE } from "../pipeline/schema/geocode.ts";
import { GeocodeIndex, mergeHits, searchText } from "../server/geocoder/engine.ts";
import { tokens } from "../shared/geocode-text.ts";
import { flag, hasFlag, pct, rng } from "./lib/args.ts";
import { machineInfo } from "./lib/machine.ts";
import { mdTable } from "./lib/measure.ts";
import { spawn } from "node:child_process";

const ROOT = resolve(import.meta.dir, "..");
const DATA = join(ROOT, "bench", ".work", "geocode");
const MTA = join(ROOT, "bench", ".mta");
const OSM_DIR = resolve(ROOT, "..", "shared", "data", "osm");
/** The extracts (one street dataset): the largest one (Mannheim/Heidelberg: its streets) and the one with the most addresses (downtown San Francisco). Valhalla's tile build aborts on overlapping extracts (the two Portland ones). */
const EXTRACTS = ["rnv-mannheim-heidelberg.osm.pbf", "sf-downtown.osm.pbf"].map((f) => join(OSM_DIR, f));
const FEEDS = ["mta-subway", "mta-bus-bk", "mta-bus-bx", "mta-bus-m", "mta-bus-qns", "mta-bus-si", "mta-bus-busco", "mta-lirr", "mta-mnr"];
const SECONDS = Number(flag("seconds", "10"));
const WARMUP = Number(flag("warmup", "2"));
const CONNS = Number(flag("connections", "16"));
const WORKERS = Number(flag("workers", "1"));

/** `interchange serve --no-auth --workers N` on a free port, its log drained. */
async function startServer(dataDir: string): Promise<{ url: string; pid: number; stop: () => void }> {
  const child = spawn(process.execPath, [join(ROOT, "bin", "interchange.ts"), "serve", "--data", dataDir, "--port", "0", "--host", "127.0.0.1", "--no-auth", "--workers", String(WORKERS)], { stdio: ["ignore", "ignore", "pipe"] });
  let log = "";
  const url = await new Promise<string>((res, rej) => {
    child.stderr!.on("data", (b: Buffer) => {
      if (log.length < 1e6) log += b.toString();
      const m = /"msg":"listening","url":"([^"]+)"/.exec(log);
      if (m) res(m[1]!);
    });
    child.on("exit", (code) => rej(new Error(`server exited (${code}):\n${log}`)));
  });
  return { url, pid: child.pid!, stop: () => child.kill("SIGTERM") };
}

const stopIndexLines: string[] = [];

async function dataset(): Promise<{ osmBuildMs: number | null }> {
  if (hasFlag("fresh")) rmSync(DATA, { recursive: true, force: true });
  mkdirSync(DATA, { recursive: true });
  const have = new Set(readManifest(DATA).feeds.map((f) => f.onestop_id.slice(2)));
  for (const f of FEEDS) {
    if (have.has(f)) continue;
    const zip = join(MTA, `${f}.zip`);
    if (!existsSync(zip)) throw new Error(`${zip} missing: build the MTA feeds with ../shared/tools/mta-gtfs bench/.mta`);
    const t = performance.now();
    const r = await importFeed({ dataDir: DATA, source: zip, feedId: `f-${f}`, progress: (m) => { if (m.includes("geocoder index")) stopIndexLines.push(m); } });
    if (r.status === "rejected") throw new Error(`${zip}: ${r.error?.message}`);
    console.error(`imported ${f} in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  }
  if (!activeStreets(readManifest(DATA))) {
    const r = await importStreets({ dataDir: DATA, osm: EXTRACTS, progress: (m) => console.error(m) });
    if (r.status === "rejected") throw new Error(`streets: ${r.error?.message}`);
  }
  return { osmBuildMs: null };
}

/** The OSM index build alone (what the street import does for the geocoder), timed here. */
async function osmBuild(): Promise<{ ms: number; readMs: number; docs: number; bytes: number; extracts: number; mb: number }> {
  const extracts = EXTRACTS;
  const b = await loadBoundaries();
  const t0 = performance.now();
  const docs = osmPlaces(extracts, b);
  const t1 = performance.now();
  const { report } = buildGeocodeIndex(docs);
  return { ms: performance.now() - t0, readMs: t1 - t0, docs: report.docs, bytes: report.bytes, extracts: extracts.length, mb: extracts.reduce((a, f) => a + statSync(f).size, 0) / 1e6 };
}

function indexes(): { idx: GeocodeIndex; part: string; bytes: number; loadMs: number }[] {
  const m = readManifest(DATA);
  const parts = [...activeVersions(m).map((v) => ({ part: v.feed_onestop_id, path: join(DATA, v.path, GEOCODE_FILE) }))];
  const st = activeStreets(m);
  if (st) parts.push({ part: "osm (the extracts)", path: join(DATA, st.path, GEOCODE_FILE) });
  return parts.map((p) => {
    const t = performance.now();
    const bytes = readFileSync(p.path);
    const idx = new GeocodeIndex(decodeGeocodeIndex(bytes), p.part);
    idx.warm();
    return { idx, part: p.part, bytes: bytes.length, loadMs: performance.now() - t };
  });
}

interface Req { path: string }

function queries(all: { idx: GeocodeIndex }[]): { auto: Req[]; search: Req[]; reverse: Req[] } {
  const r = rng(34);
  const pick = () => {
    const { idx } = all[Math.floor(r() * all.length)]!;
    const doc = Math.floor(r() * idx.docs);
    return { name: idx.props(doc).name, lat: idx.lat(doc), lon: idx.lon(doc) };
  };
  const auto: Req[] = [], search: Req[] = [], reverse: Req[] = [];
  for (let i = 0; i < 2000; i++) {
    const p = pick();
    const len = Math.max(3, Math.round(p.name.length * (0.3 + 0.7 * r())));
    const qs = new URLSearchParams({ text: p.name.slice(0, len) });
    if (r() < 0.5) {
      qs.set("focus.point.lat", (p.lat + (r() - 0.5) * 0.05).toFixed(5));
      qs.set("focus.point.lon", (p.lon + (r() - 0.5) * 0.05).toFixed(5));
    }
    auto.push({ path: `/v1/autocomplete?${qs}` });
    search.push({ path: `/v1/search?${new URLSearchParams({ text: pick().name })}` });
    const q = pick();
    reverse.push({ path: `/v1/reverse?${new URLSearchParams({ "point.lat": (q.lat + (r() - 0.5) * 0.036).toFixed(6), "point.lon": (q.lon + (r() - 0.5) * 0.036).toFixed(6) })}` });
  }
  return { auto, search, reverse };
}

function wrkScript(reqs: Req[]): string {
  return `
local counter = 0
setup = function(thread) thread:set("offset", counter * 7919); counter = counter + 1 end
local reqs = {}
local i = 0
init = function(args)
  local list = { ${reqs.map((q) => JSON.stringify(q.path)).join(",\n")} }
  for k, p in ipairs(list) do reqs[k] = wrk.format("GET", p) end
  i = (offset or 0) % #reqs
end
request = function() i = i % #reqs + 1; return reqs[i] end
done = function(s, latency, requests)
  io.write(string.format('RESULT {"requests":%d,"duration_us":%d,"status":%d,"errors":%d,"p50_us":%d,"p99_us":%d,"max_us":%d}\\n',
    s.requests, s.duration, s.errors.status, s.errors.connect + s.errors.read + s.errors.write + s.errors.timeout, latency:percentile(50), latency:percentile(99), latency.max))
end
`;
}

async function wrk(script: string, url: string, seconds: number, conns = CONNS) {
  const p = Bun.spawn(["/usr/bin/wrk", conns > 1 ? "-t2" : "-t1", `-c${conns}`, `-d${seconds}s`, "--timeout", "10s", "--latency", "-s", script, url], { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  const line = out.split("\n").find((l) => l.startsWith("RESULT "));
  if (code !== 0 || !line) throw new Error(`wrk exited ${code}: ${out}${err}`);
  return JSON.parse(line.slice(7)) as { requests: number; duration_us: number; status: number; errors: number; p50_us: number; p99_us: number; max_us: number };
}

function cpuTicks(pid: number): number[] {
  const pids = [pid, ...readdirSync("/proc").filter((d) => /^\d+$/.test(d)).map(Number).filter((p) => {
    try { return readFileSync(`/proc/${p}/stat`, "utf8").split(") ")[1]!.split(" ")[1] === String(pid); } catch { return false; }
  })];
  let u = 0, s = 0;
  for (const p of pids) {
    try {
      const f = readFileSync(`/proc/${p}/stat`, "utf8").split(") ")[1]!.split(" ");
      u += Number(f[11]); s += Number(f[12]);
    } catch { /* gone */ }
  }
  return [u, s];
}

async function main() {
  const t0 = performance.now();
  await dataset();
  console.error(`dataset ready in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  const osm = await osmBuild();
  const loaded = indexes();
  const places = loaded.reduce((a, l) => a + l.idx.docs, 0);
  const q = queries(loaded);
  const all = loaded.map((l) => l.idx);
  // the engine alone, in process
  const engine = (reqs: Req[], run: (u: URLSearchParams) => void) => {
    const ms: number[] = [];
    for (const r of reqs.slice(0, 1000)) {
      const u = new URL(`http://x${r.path}`).searchParams;
      const t = performance.now();
      run(u);
      ms.push(performance.now() - t);
    }
    return ms;
  };
  const textRun = (u: URLSearchParams) => {
    const focus = u.get("focus.point.lat") ? { lat: Number(u.get("focus.point.lat")), lon: Number(u.get("focus.point.lon")) } : undefined;
    searchText(all, { words: tokens(u.get("text")!), prefixLast: true, size: 10, layers: null, sources: null, ...(focus ? { focus } : {}) });
  };
  const revRun = (u: URLSearchParams) => {
    mergeHits(all.map((i) => i.reverse(Number(u.get("point.lat")), Number(u.get("point.lon")), 5000, 10, {}, null, null)), 10, true);
  };
  const inproc = { autocomplete: engine(q.auto, textRun), search: engine(q.search, textRun), reverse: engine(q.reverse, revRun) };

  const load0 = readFileSync("/proc/loadavg", "utf8").split(" ")[0];
  const server = await startServer(DATA);
  const rows: string[][] = [];
  try {
    for (const [name, reqs] of [["autocomplete", q.auto], ["search", q.search], ["reverse", q.reverse]] as const) {
      const script = join(DATA, `${name}.lua`);
      writeFileSync(script, wrkScript(reqs));
      await wrk(script, server.url, WARMUP);
      const before = cpuTicks(server.pid);
      const w = await wrk(script, server.url, SECONDS);
      const after = cpuTicks(server.pid);
      const one = await wrk(script, server.url, Math.max(2, SECONDS / 2), 1);
      const ip = inproc[name];
      rows.push([
        name, Math.round(w.requests / (w.duration_us / 1e6)).toLocaleString("en-US"), (w.p50_us / 1000).toFixed(2), (w.p99_us / 1000).toFixed(2), (w.max_us / 1000).toFixed(1),
        String(w.status + w.errors), `${((after[0]! - before[0]!) / 100).toFixed(1)} / ${((after[1]! - before[1]!) / 100).toFixed(1)}`,
        `${(one.p50_us / 1000).toFixed(2)} / ${(one.p99_us / 1000).toFixed(2)}`,
        `${pct(ip, 50).toFixed(3)} / ${pct(ip, 99).toFixed(3)}`,
      ]);
    }
  } finally {
    server.stop();
  }
  const mi = machineInfo(ROOT);
  const sizes = loaded.map((l) => [l.part, l.idx.docs.toLocaleString("en-US"), (l.bytes / 1e6).toFixed(2), l.loadMs.toFixed(0)]);
  const out = `### Geocoder

Command: \`npm run bench:geocode\` (\`bun bench/geocode.bench.ts --seconds ${SECONDS} --workers ${WORKERS}\`), ${new Date().toISOString().slice(0, 10)}, commit ${mi.gitCommit}.
Machine: ${mi.cpuModel}, ${mi.cores} cores, ${mi.ramGiB} GiB RAM, Bun ${mi.bun}; wrk and the server share the cores; load average before the run ${load0}, after ${readFileSync("/proc/loadavg", "utf8").split(" ")[0]}.
Data: the nine MTA feeds (stops and stations) and the OSM places of ${osm.extracts} extracts (${osm.mb.toFixed(1)} MB of PBF): ${places.toLocaleString("en-US")} places in ${loaded.length} index files.

Index build: OSM places of all extracts read in ${(osm.readMs / 1000).toFixed(2)} s, indexed in ${((osm.ms - osm.readMs) / 1000).toFixed(2)} s (${osm.docs.toLocaleString("en-US")} places, ${(osm.bytes / 1e6).toFixed(2)} MB); stops at feed import: ${stopIndexLines.length ? stopIndexLines.map((l) => l.replace(/^\[[^\]]*\] /, "")).join("; ") : "(imported earlier: see the sizes below)"}.

${mdTable(["index file", "places", "MB", "load ms"], sizes)}

\`wrk -t2 -c${CONNS} -d${SECONDS}s --latency\`, \`interchange serve --workers ${WORKERS} --no-auth\`, after a ${WARMUP} s warm-up; 2,000 prepared requests per scenario (autocomplete: prefixes of 30-100 % of real names, half with a focus point; search: whole names; reverse: points within 2 km of real places). "1 client" = the same requests from one connection (\`wrk -t1 -c1\`, ${Math.max(2, SECONDS / 2)} s): the latency of a request alone; "engine" = the search over all index files in process (searchText, mergeHits), no HTTP (ms).

${mdTable(["scenario", "req/s", "p50 ms", "p99 ms", "max ms", "errors", "CPU user / sys s", "1 client p50 / p99 ms", "engine p50 / p99 ms"], rows)}
`;
  console.log(out);
}

await main();
