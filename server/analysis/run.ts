/**
 * One `interchange analyze` run: the dataset's timetable loaded, the points read, this shard's
 * origins run one by one through the analysis core (server/planner/analysis/), the rows written to
 * Parquet as they come (parquet-parts.ts), a progress line on stderr, and a JSON run report (inputs
 * with their SHA-1, the dataset's active versions, settings, counts, timings).
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import { activeStreets, activeVersions, readManifest } from "../../pipeline/schema/manifest.ts";
import { loadTimetableFile } from "../planner/timetable/arrow-loader.ts";
import { PlanService } from "../planner/plan-service.ts";
import { TravelTimeAnalysis, type AnalysisSettings, type OriginTimings, type OriginWork } from "../planner/analysis/travel-times.ts";
import type { StreetWalks } from "../planner/analysis/street-walks.ts";
import { accessibility } from "../planner/analysis/percentiles.ts";
import type { StopWalk } from "../planner/api.ts";
import type { AnalyzeConfig } from "./config.ts";
import type { DuckDBConnection } from "@duckdb/node-api";
import { loadIds, openDuck, ParquetParts } from "./parquet-parts.ts";
import { type PointSet, readPoints } from "./points.ts";
import { openStreetWalks } from "./street-walks.ts";

export interface AnalyzeReport {
  command: string;
  started_at: string;
  finished_at: string;
  inputs: {
    origins: { file: string; sha1: string; points: number; in_shard: number };
    destinations: { file: string; sha1: string; points: number; opportunity_columns: string[] };
  };
  dataset: { timetable: string; versions: { feed: string; sha1: string }[]; streets_sha1: string | null };
  /** how access, egress and direct walks were measured; off_streets: points that kept straight lines */
  walks: "streets" | "straight lines";
  off_streets: { origins: number; destinations: number } | null;
  settings: Record<string, unknown>;
  shard: { k: number; n: number };
  outputs: { folder: string; files: string[]; rows: number };
  timings: {
    load_ms: number;
    setup_ms: number;
    origins_ms: number;
    origins_per_s: number;
    /** per origin, average milliseconds */
    per_origin_ms: { access: number; raptor: number; egress: number; percentiles: number; write: number };
    cpu_user_ms: number;
    cpu_system_ms: number;
    max_rss_mb: number;
  };
  /** per origin, average counts of the work done (RAPTOR and egress; independent of the host's load) */
  work_per_origin: OriginWork;
  host: { cpu: string; cores: number };
}

const sha1 = (file: string) => new Bun.CryptoHasher("sha1").update(readFileSync(file)).digest("hex");
const fmtSec = (s: number) => (s >= 3600 ? `${Math.floor(s / 3600)} h ${Math.round((s % 3600) / 60)} min` : s >= 60 ? `${Math.floor(s / 60)} min ${Math.round(s % 60)} s` : `${Math.round(s)} s`);

/** How a run reports: stderr, whether it is a terminal, and `counts` for a worker process (workers.ts reads "analyze-progress DONE TOTAL" lines). */
export interface AnalyzeIo {
  stderr: (s: string) => void;
  tty: boolean;
  counts?: boolean;
}

/** The progress line: origins done, rate, time left. On a terminal rewritten in place; otherwise a line every 10 s. */
export function progress(total: number, quiet: boolean, write: (s: string) => void, tty: boolean, counts = false) {
  const t0 = performance.now();
  let last = 0;
  return (done: number, final = false) => {
    const now = performance.now();
    if (counts) {
      if (final || now - last >= 500) {
        last = now;
        write(`analyze-progress ${done} ${total}\n`);
      }
      return;
    }
    if (quiet) return;
    if (!final && now - last < (tty ? 500 : 10_000)) return;
    last = now;
    const rate = done / Math.max(1e-3, (now - t0) / 1000);
    const left = rate > 0 ? (total - done) / rate : 0;
    const line = `analyze: ${done}/${total} origins (${total ? ((100 * done) / total).toFixed(1) : "100.0"}%), ${rate.toFixed(1)} origins/s, ${final ? `done in ${fmtSec((now - t0) / 1000)}` : `${fmtSec(left)} left`}`;
    write(tty ? `\r${line}${final ? "\n" : ""}` : `${line}\n`);
  };
}

export async function runAnalysis(c: AnalyzeConfig, io: AnalyzeIo = { stderr: (s) => process.stderr.write(s), tty: Boolean(process.stderr.isTTY) }): Promise<AnalyzeReport> {
  const started = new Date();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const m = readManifest(c.dataDir);
  if (!m.timetable?.path || !existsSync(join(c.dataDir, m.timetable.path))) throw new Error(`${c.dataDir}: no planner timetable (import feeds first: interchange import --data ${c.dataDir} FEED.zip)`);
  const svc = new PlanService(loadTimetableFile(join(c.dataDir, m.timetable.path)));
  const { instance, conn } = await openDuck();
  let street: Awaited<ReturnType<typeof openStreetWalks>> = null;
  try {
    const origins = await readPoints(conn, c.origins);
    const dests = c.destinations === c.origins ? origins : await readPoints(conn, c.destinations);
    if (c.kind === "accessibility" && dests.opportunities.length === 0) throw new Error(`${c.destinations}: accessibility needs at least one numeric opportunity column besides id, lat and lon`);
    const loadMs = performance.now() - t0;
    const t1 = performance.now();
    // walks on the streets when the dataset has a street dataset (the egress walks of every destination now)
    const cycling = { mode: "BICYCLE" as const, speedMps: c.bikeSpeed, maxSec: c.maxBikeMin * 60 };
    const bike = c.accessMode === "BICYCLE" ? cycling : undefined;
    const egressBike = c.egressMode === "BICYCLE" ? cycling : undefined;
    street = await openStreetWalks(c.dataDir, c.walkSpeed, c.maxWalkMin * 60, bike, egressBike);
    // a bicycle on straight lines would be a guess: refused (as the plan refuses it)
    if ((bike || egressBike) && !street) throw new Error(`${bike ? "--access-mode" : "--egress-mode"} BICYCLE needs a street dataset in ${c.dataDir} (import one with interchange import --osm FILE.osm.pbf)`);
    const walks = street?.walks ?? null;
    const egress = walks ? await egressWalks(svc, walks, dests, c, io, egressBike !== undefined) : undefined;
    const analysis = new TravelTimeAnalysis(svc, dests.points, settingsOf(c), egress);
    const setupMs = performance.now() - t1;

    const mine: number[] = [];
    for (let i = c.shard.k - 1; i < origins.points.length; i += c.shard.n) mine.push(i);
    const out = await OriginRows.open(conn, c, origins, dests);
    const sums: OriginTimings = { accessMs: 0, raptorMs: 0, egressMs: 0, percentilesMs: 0 };
    const work: OriginWork = { rounds: 0, routesScanned: 0, stopsVisited: 0, footpaths: 0, stopImprovements: 0, stopReads: 0, pairReads: 0, destinationImprovements: 0 };
    const show = progress(mine.length, c.quiet, io.stderr, io.tty, io.counts);
    const tOrigins = performance.now();
    let done = 0;
    for (const oi of mine) {
      const o = origins.points[oi]!;
      const ts = performance.now();
      const streets = walks ? await walks.originWalks(svc, analysis, o, dests.points) : {};
      if (walks && !streets.access) walks.offStreets.origins++;
      sums.accessMs += performance.now() - ts;
      const res = analysis.origin(o, streets);
      sums.accessMs += res.timings.accessMs;
      sums.raptorMs += res.timings.raptorMs;
      sums.egressMs += res.timings.egressMs;
      sums.percentilesMs += res.timings.percentilesMs;
      for (const k of Object.keys(work) as (keyof OriginWork)[]) work[k] += res.work[k];
      await out.append(oi, res.percentiles);
      show(++done);
    }
    await out.writer.flush();
    const originsMs = performance.now() - tOrigins;
    show(done, true);
    const report = runReport({ c, m, analysis, walks, origins, dests, mine: mine.length, out, started, cpu0, sums, work, done, ms: { loadMs, setupMs, originsMs } });
    mkdirSync(join(c.outDir, "reports"), { recursive: true });
    writeFileSync(join(c.outDir, "reports", `${out.table}-${out.part}.json`), `${JSON.stringify(report, null, 2)}\n`);
    return report;
  } finally {
    await street?.close();
    conn.closeSync();
    instance.closeSync();
  }
}

/** The analysis core's settings from the command's. */
function settingsOf(c: AnalyzeConfig): AnalysisSettings {
  return {
    day: c.day, windowStartSec: c.windowStartSec, windowEndSec: c.windowEndSec, stepSec: c.stepMin * 60, walkSpeed: c.walkSpeed,
    maxWalkSec: c.maxWalkMin * 60, maxDurationMin: c.maxDurationMin, maxTransfers: c.maxTransfers, transitModes: c.modes ? new Set(c.modes) : null, percentiles: [...c.percentiles],
  };
}

/**
 * Every destination's walks (or rides: `bike`) from its nearby stops, measured on the streets
 * (null: off the streets, straight-line walks kept).
 */
async function egressWalks(svc: PlanService, walks: StreetWalks, dests: PointSet, c: AnalyzeConfig, io: AnalyzeIo, cycling: boolean): Promise<(StopWalk[] | null)[]> {
  if (!c.quiet) io.stderr(`analyze: measuring the ${cycling ? "rides" : "walks"} from stops to ${dests.points.length} destinations on the streets\n`);
  const egress: (StopWalk[] | null)[] = [];
  for (const d of dests.points) {
    const measured = await walks.destinationWalks(svc, d);
    if (!measured) walks.offStreets.destinations++;
    egress.push(measured);
  }
  return egress;
}

/** The Parquet rows of one shard: travel_times (a row per reached pair) or accessibility (a row per cutoff and percentile), written in parts as they come. */
class OriginRows {
  private constructor(
    readonly writer: ParquetParts,
    readonly table: string,
    readonly part: string,
    readonly folder: string,
    private readonly c: AnalyzeConfig,
    private readonly dests: PointSet,
  ) {
    const nDest = dests.points.length;
    this.oCol = new Int32Array(nDest);
    this.dCol = new Int32Array(nDest);
    this.pCols = c.percentiles.map(() => new Int16Array(nDest));
  }
  // per-origin scratch for the rows of travel_times
  private readonly oCol: Int32Array;
  private readonly dCol: Int32Array;
  private readonly pCols: Int16Array[];

  static async open(conn: DuckDBConnection, c: AnalyzeConfig, origins: PointSet, dests: PointSet): Promise<OriginRows> {
    const table = c.kind === "travel-times" ? "travel_times" : "accessibility";
    const part = `shard=${c.shard.k}-of-${c.shard.n}`;
    const folder = join(c.outDir, table, part);
    rmSync(folder, { recursive: true, force: true });
    await loadIds(conn, "origin_ids", origins.points.map((p) => p.id));
    await loadIds(conn, "destination_ids", dests.points.map((p) => p.id));
    const pcts = c.percentiles;
    const writer = c.kind === "travel-times"
      ? await ParquetParts.open(conn, "tt_buffer", [{ name: "o", type: "INTEGER" }, { name: "d", type: "INTEGER" }, ...pcts.map((p) => ({ name: `p${p}`, type: "SMALLINT" as const }))], folder,
          (b) => `SELECT oi.id AS origin_id, di.id AS destination_id, ${pcts.map((p) => `b.p${p}`).join(", ")} FROM ${b} b JOIN origin_ids oi ON oi.idx = b.o JOIN destination_ids di ON di.idx = b.d ORDER BY b.o, b.d`)
      : await ParquetParts.open(conn, "acc_buffer", [{ name: "o", type: "INTEGER" }, { name: "cutoff", type: "INTEGER" }, { name: "percentile", type: "INTEGER" }, ...dests.opportunities.map((_, j) => ({ name: `v${j}`, type: "DOUBLE" as const }))], folder,
          (b) => `SELECT oi.id AS origin_id, b.cutoff, b.percentile${dests.opportunities.map((o, j) => `, b.v${j} AS "${o.name.replaceAll('"', '""')}"`).join("")} FROM ${b} b JOIN origin_ids oi ON oi.idx = b.o ORDER BY b.o, b.cutoff, b.percentile`, 1 << 16);
    return new OriginRows(writer, table, part, folder, c, dests);
  }

  /** The rows of origin `oi` from its percentiles (destination-major, -1 = unreachable). */
  async append(oi: number, p: Int16Array): Promise<void> {
    const c = this.c, pcts = c.percentiles, nPct = pcts.length, nDest = this.dests.points.length;
    if (c.kind === "travel-times") {
      // a pair unreachable at every percentile is left out (p_max is the last percentile: null there first)
      let n = 0;
      for (let d = 0; d < nDest; d++) {
        if (p[d * nPct] === -1) continue;
        this.oCol[n] = oi;
        this.dCol[n] = d;
        for (let k = 0; k < nPct; k++) this.pCols[k]![n] = p[d * nPct + k]!;
        n++;
      }
      if (n) await this.writer.append([this.oCol, this.dCol, ...this.pCols], n);
      return;
    }
    const opp = this.dests.opportunities;
    const acc = accessibility(p, nDest, nPct, [...c.cutoffs], opp.map((o) => o.values));
    const rows = c.cutoffs.length * nPct, nCols = opp.length;
    const o = new Int32Array(rows).fill(oi), cut = new Int32Array(rows), per = new Int32Array(rows);
    const vals = opp.map(() => new Float64Array(rows));
    for (let ci = 0; ci < c.cutoffs.length; ci++) for (let k = 0; k < nPct; k++) {
      const r = ci * nPct + k;
      cut[r] = c.cutoffs[ci]!;
      per[r] = pcts[k]!;
      for (let j = 0; j < nCols; j++) vals[j]![r] = acc[r * nCols + j]!;
    }
    await this.writer.append([o, cut, per, ...vals], rows);
  }
}

/** The run report: inputs with their SHA-1, the dataset's versions, settings, outputs, timings, host. */
function runReport(r: {
  c: AnalyzeConfig; m: ReturnType<typeof readManifest>; analysis: TravelTimeAnalysis; walks: StreetWalks | null; origins: PointSet; dests: PointSet; mine: number; out: OriginRows;
  started: Date; cpu0: NodeJS.CpuUsage; sums: OriginTimings; work: OriginWork; done: number; ms: { loadMs: number; setupMs: number; originsMs: number };
}): AnalyzeReport {
  const { c, m, analysis, walks, out, sums, done } = r;
  const cpu = process.cpuUsage(r.cpu0);
  const avg = (x: number) => (done ? Math.round((1000 * x) / done) / 1000 : 0);
  return {
    command: `analyze ${c.kind}`,
    started_at: r.started.toISOString(),
    finished_at: new Date().toISOString(),
    inputs: {
      origins: { file: c.origins, sha1: sha1(c.origins), points: r.origins.points.length, in_shard: r.mine },
      destinations: { file: c.destinations, sha1: sha1(c.destinations), points: r.dests.points.length, opportunity_columns: r.dests.opportunities.map((o) => o.name) },
    },
    dataset: { timetable: m.timetable!.path, versions: activeVersions(m).map((v) => ({ feed: v.feed_onestop_id, sha1: v.sha1 })), streets_sha1: activeStreets(m)?.sha1 ?? null },
    walks: walks ? "streets" : "straight lines",
    off_streets: walks ? { ...walks.offStreets } : null,
    settings: {
      date: c.date, time_zone: analysis.tz, window: [c.windowStartSec, c.windowEndSec].map((s) => `${String(Math.floor(s / 3600)).padStart(2, "0")}:${String(Math.floor(s / 60) % 60).padStart(2, "0")}`).join("-"),
      departures: analysis.nSteps, step_min: c.stepMin, walk_speed_mps: c.walkSpeed, max_walk_min: c.maxWalkMin, access_mode: c.accessMode, egress_mode: c.egressMode, ...(c.accessMode === "BICYCLE" || c.egressMode === "BICYCLE" ? { bike_speed_mps: c.bikeSpeed, max_bike_min: c.maxBikeMin } : {}), max_duration_min: c.maxDurationMin, max_transfers: c.maxTransfers,
      modes: c.modes ? [...c.modes] : ["TRANSIT"], percentiles: [...c.percentiles], cutoffs_min: [...c.cutoffs], egress_stops: analysis.egressStops.length,
    },
    shard: { ...c.shard },
    outputs: { folder: out.folder, files: out.writer.files, rows: out.writer.rows },
    timings: {
      load_ms: Math.round(r.ms.loadMs), setup_ms: Math.round(r.ms.setupMs), origins_ms: Math.round(r.ms.originsMs), origins_per_s: done ? Math.round((1000 * done * 100) / r.ms.originsMs) / 100 : 0,
      per_origin_ms: { access: avg(sums.accessMs), raptor: avg(sums.raptorMs), egress: avg(sums.egressMs), percentiles: avg(sums.percentilesMs), write: avg(out.writer.writeMs) },
      cpu_user_ms: Math.round(cpu.user / 1000), cpu_system_ms: Math.round(cpu.system / 1000), max_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
    },
    work_per_origin: Object.fromEntries(Object.entries(r.work).map(([k, v]) => [k, done ? Math.round(v / done) : 0])) as unknown as OriginWork,
    host: { cpu: cpus()[0]?.model ?? "unknown", cores: cpus().length },
  };
}
