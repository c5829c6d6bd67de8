/**
 * Analysis benchmark (`npm run bench:analyze`): `interchange analyze travel-times` in-process (the
 * command's own runAnalysis: points read by DuckDB, one range-RAPTOR pass per origin over a
 * two-hour weekday window at one-minute steps, five percentiles, Parquet written as it goes) on
 * one core, on BART + Caltrain (2019), rnv (Mannheim, 2016; also with walks measured on its streets by
 * the embedded engine: rnv-streets) and, when its feeds are built, NYC (all
 * MTA feeds: `../shared/tools/mta-gtfs bench/.mta`). Origins and destinations are random points
 * near served stops (seeded). Reports origins per second (= per core: one thread), the time per
 * origin by stage (access, RAPTOR, egress, percentiles, writing), CPU user/system, peak RSS, the
 * CPU model and the host probe, and the work per origin in counts (RAPTOR rounds, routes, route
 * stops, footpaths; egress stops and pairs read), which compare across runs on a loaded host. Walks
 * are straight lines but on rnv-streets.
 * Flags: --only bc,rnv,rnv-streets,nyc; --origins N (default 200); --destinations N (default 2000; NYC 10000).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { readManifest } from "../pipeline/schema/manifest.ts";
import { loadTimetableFile } from "../server/planner/timetable/arrow-loader.ts";
import type { Timetable } from "../server/planner/timetable/types.ts";
import { dayToIso } from "../server/planner/timetable/calendar.ts";
import { analyzeConfigFrom } from "../server/analysis/config.ts";
import { runAnalysis } from "../server/analysis/run.ts";
import { hostProbeMs, machineInfo } from "./lib/machine.ts";
import { flag, rng } from "./lib/args.ts";
import { mdTable } from "./lib/measure.ts";

const ROOT = resolve(import.meta.dir, "..");
const WORK = join(ROOT, "bench", ".work");
const SHARED = join(ROOT, "..", "shared", "data", "gtfs");
const MTA = join(ROOT, "bench", ".mta");
const ONLY = flag("only", "bc,rnv,rnv-streets,nyc").split(",");
const N_ORIGINS = Number(flag("origins", "200"));
const N_DEST = flag("destinations", "");

const DATASETS: { name: string; label: string; feeds: { id: string; path: string }[]; osm?: string; destinations: number }[] = [
  { name: "bc", label: "BART + Caltrain (2019)", feeds: [{ id: "f-bart", path: join(SHARED, "bart.zip") }, { id: "f-caltrain", path: join(SHARED, "caltrain-2017.zip") }], destinations: 2000 },
  { name: "rnv", label: "rnv Mannheim/Heidelberg (2016)", feeds: [{ id: "f-rnv", path: join(SHARED, "rnv.zip") }], destinations: 2000 },
  { name: "rnv-streets", label: "rnv, walks on its streets", feeds: [{ id: "f-rnv", path: join(SHARED, "rnv.zip") }], osm: join(SHARED, "..", "osm", "rnv-mannheim-heidelberg.osm.pbf"), destinations: 2000 },
  {
    name: "nyc", label: "NYC: MTA subway + 6 bus feeds + LIRR + Metro-North", destinations: 10000,
    feeds: ["mta-subway", "mta-bus-bk", "mta-bus-bx", "mta-bus-m", "mta-bus-qns", "mta-bus-si", "mta-bus-busco", "mta-lirr", "mta-mnr"].map((f) => ({ id: `f-${f}`, path: join(MTA, `${f}.zip`) })),
  },
];

/** The dataset, imported on first use by `interchange import` as a child process (its timetable compiled). */
function prepare(ds: (typeof DATASETS)[number]): string | null {
  const dir = join(WORK, `analyze-${ds.name}`);
  if (ds.feeds.some((f) => !existsSync(f.path))) {
    console.error(`${ds.name}: feeds missing (${ds.feeds.filter((f) => !existsSync(f.path)).map((f) => f.path).join(", ")}), skipped`);
    return null;
  }
  const m = readManifest(dir);
  if (m.feeds.filter((f) => f.active).length < ds.feeds.length || !m.timetable) {
    mkdirSync(dir, { recursive: true });
    const feedsFile = join(WORK, `analyze-${ds.name}.feeds.json`);
    writeFileSync(feedsFile, JSON.stringify(ds.feeds));
    console.error(`importing ${ds.label}`);
    const r = spawnSync(process.execPath, [join(ROOT, "bin", "interchange.ts"), "import", "--data", dir, "--feeds", feedsFile, "--quiet"], { stdio: ["ignore", "ignore", "inherit"] });
    if (r.status !== 0) throw new Error(`importing ${ds.name} failed (exit ${r.status})`);
  }
  if (ds.osm && !readManifest(dir).active_streets) {
    console.error(`importing the streets of ${ds.label}`);
    const r = spawnSync(process.execPath, [join(ROOT, "bin", "interchange.ts"), "import", "--data", dir, "--osm", ds.osm, "--quiet"], { stdio: ["ignore", "ignore", "inherit"] });
    if (r.status !== 0) throw new Error(`importing the streets of ${ds.name} failed (exit ${r.status})`);
  }
  return dir;
}

/** A Tuesday..Thursday inside the service windows of the most feeds. */
function weekday(tt: Timetable): number {
  const { meta } = tt;
  const inWindow = (f: number, d: number) => d >= meta.feedStartDay[f]! && d <= meta.feedEndDay[f]!;
  let best = meta.feedStartDay[0]!, bestCount = -1;
  for (let d = Math.min(...meta.feedStartDay); d <= Math.max(...meta.feedEndDay); d++) {
    if ((d + 3) % 7 < 1 || (d + 3) % 7 > 3) continue;
    const c = meta.feeds.filter((_, f) => inWindow(f, d)).length;
    if (c > bestCount) [best, bestCount] = [d, c];
  }
  return best;
}

/** n random points within ~500 m of served stops, as a CSV with an opportunity column. */
function points(tt: Timetable, n: number, seed: number, file: string): void {
  const r = rng(seed);
  const { core, meta } = tt;
  const served: number[] = [];
  for (let s = 0; s < core.nStops; s++) if (core.stopRouteStart[s + 1]! > core.stopRouteStart[s]!) served.push(s);
  const rows = ["id,lat,lon,jobs"];
  for (let i = 0; i < n; i++) {
    const s = served[Math.floor(r() * served.length)]!;
    rows.push(`p${i},${(meta.stopLat[s]! + (r() - 0.5) * 0.009).toFixed(6)},${(meta.stopLon[s]! + (r() - 0.5) * 0.012).toFixed(6)},${Math.floor(r() * 1000)}`);
  }
  writeFileSync(file, `${rows.join("\n")}\n`);
}

const machine = machineInfo(ROOT);
const probeBefore = hostProbeMs();
const rows: string[][] = [];
const works: string[][] = [];
for (const ds of DATASETS) {
  if (!ONLY.includes(ds.name)) continue;
  const dir = prepare(ds);
  if (!dir) continue;
  const tt = loadTimetableFile(join(dir, readManifest(dir).timetable!.path));
  const day = weekday(tt);
  const nDest = Number(N_DEST || ds.destinations);
  const tmp = join(WORK, `analyze-${ds.name}-run`);
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  points(tt, N_ORIGINS, 1, join(tmp, "origins.csv"));
  points(tt, nDest, 2, join(tmp, "destinations.csv"));
  const config = analyzeConfigFrom("travel-times", {
    data: dir, origins: join(tmp, "origins.csv"), destinations: join(tmp, "destinations.csv"), date: dayToIso(day), window: "07:00-09:00", step: 1,
    walkSpeed: 1.3, maxWalk: 20, maxDuration: 120, maxTransfers: 4, modes: "TRANSIT", percentiles: "5,25,50,75,95", cutoffs: "15,30,45,60", out: join(tmp, "out"), shard: "1/1", quiet: true,
  });
  console.error(`${ds.label}: ${N_ORIGINS} origins x ${nDest} destinations, ${dayToIso(day)} 07:00-09:00`);
  const rep = await runAnalysis(config);
  const t = rep.timings, p = t.per_origin_ms;
  const total = t.origins_ms / Math.max(1, rep.inputs.origins.in_shard);
  rows.push([
    `${ds.label} (walks: ${rep.walks})`, `${tt.core.nStops}`, `${N_ORIGINS} x ${nDest}`, `${rep.settings.egress_stops}`, t.origins_per_s.toFixed(1), total.toFixed(1),
    p.access.toFixed(1), (t.setup_ms / 1000).toFixed(1), p.raptor.toFixed(1), p.egress.toFixed(1), p.percentiles.toFixed(1), p.write.toFixed(1),
    `${(t.cpu_user_ms / 1000).toFixed(1)} / ${(t.cpu_system_ms / 1000).toFixed(1)}`, `${t.max_rss_mb} MB`, `${rep.outputs.rows}`,
  ]);
  const w = rep.work_per_origin;
  works.push([ds.label, ...[w.rounds, w.routesScanned, w.stopsVisited, w.footpaths, w.stopImprovements, w.stopReads, w.pairReads, w.destinationImprovements].map((v) => v.toLocaleString("en-US"))]);
  rmSync(tmp, { recursive: true, force: true });
}
const probeAfter = hostProbeMs();
console.log(`Machine: ${machine.cores} x ${machine.cpuModel}, ${machine.ramGiB} GiB RAM, Bun ${machine.bun}, commit ${machine.gitCommit}; host probe (bench/lib/machine.ts, ~0.71 ms when quiet) ${probeBefore.toFixed(2)} ms before, ${probeAfter.toFixed(2)} ms after. One thread (one core). Window 07:00-09:00, 120 departures, 5 percentiles, walks at 1.3 m/s up to 20 min, at most 4 transfers, 120 min maximum.\n`);
console.log(mdTable(["timetable", "stops", "origins x destinations", "egress stops", "origins/s (one core)", "ms / origin", "access + direct", "setup s", "RAPTOR", "egress", "percentiles", "writing", "CPU user / sys s", "peak RSS", "rows written"], rows));
console.log("\nWork per origin (counts, the same on a quiet or a loaded host: RAPTOR rounds, routes scanned, route stops visited, footpaths relaxed; egress: egress-stop arrivals lowered, of those read (not skipped by their bound), (stop, destination) pairs read, destination arrivals lowered):\n");
console.log(mdTable(["timetable", "rounds", "routes scanned", "route stops visited", "footpaths", "egress-stop improvements", "egress stops read", "pairs read", "destination improvements"], works));
