/**
 * Import benchmark (`npm run bench:import`, issue 2): stop_times per second and peak RSS of
 * `interchange import` end to end (unzip, parse, validate, derive, write Parquet, atomic manifest)
 * on real MTA feeds built by ../shared/tools/mta-gtfs, against node-gtfs (the `gtfs` npm package,
 * SQLite via better-sqlite3, run under Node) importing the same zips. Each importer runs as a child
 * process into a fresh data dir / SQLite file under bench/.work/; wall time and peak RSS are taken
 * from outside (bench/lib/measure.ts). Prints a table and writes docs/bench-import.md.
 *
 * Env:
 *   BENCH_FEEDS           comma-separated mta-gtfs feed names (default "subway,bus_bk")
 *   BENCH_RUNS            runs per feed of our importer (default 3, median reported)
 *   BENCH_NODE_GTFS_RUNS  runs per feed of node-gtfs (default 3; 0 skips node-gtfs)
 *   BENCH_NODE_GTFS_TIMEOUT  seconds before a node-gtfs run is killed and reported as "> N s" (default 600)
 *   BENCH_QUIET_WAIT      before each run, wait up to this many seconds for the machine to be idle (default 20)
 *   BENCH_STRICT=1        exit 1 when a goal (issue 2: on bus_bk) is not met (default: exit 1 only when a run fails)
 *   BENCH_MTA_DIR         where the MTA zips are / are built (default bench/.mta)
 *   BENCH_OUT             output Markdown file (default docs/bench-import.md)
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join, relative, resolve } from "node:path";
import { machineInfo } from "./lib/machine.ts";
import { fmtBytes, fmtInt, fmtSec, mdTable, measure, median, waitForQuiet, type Measured } from "./lib/measure.ts";

const ROOT = resolve(import.meta.dir, "..");
const MTA = resolve(ROOT, process.env.BENCH_MTA_DIR ?? "bench/.mta");
const WORK = join(ROOT, "bench", ".work", "import-bench");
const MTA_TOOL = join(ROOT, "..", "shared", "tools", "mta-gtfs");
const BUN = process.execPath;
const FEEDS = (process.env.BENCH_FEEDS ?? "subway,bus_bk").split(",").map((s) => s.trim()).filter(Boolean);
const RUNS = Math.max(1, Number(process.env.BENCH_RUNS ?? 3));
const NG_RUNS = Math.max(0, Number(process.env.BENCH_NODE_GTFS_RUNS ?? 3));
const NG_TIMEOUT_S = Number(process.env.BENCH_NODE_GTFS_TIMEOUT ?? 600);
const QUIET_WAIT_S = Number(process.env.BENCH_QUIET_WAIT ?? 20);
const OUT = resolve(ROOT, process.env.BENCH_OUT ?? "docs/bench-import.md");

const GOAL_RATE = 1_000_000; // stop_times/s end to end
const GOAL_RATIO = 10; // × node-gtfs
const GOAL_RSS = 4e9; // bytes, on bus_bk

const zipOf = (feed: string) => join(MTA, `mta-${feed.replace(/_/g, "-")}.zip`);

/** Builds (only) the missing MTA zips with ../shared/tools/mta-gtfs. */
function ensureFeeds(): void {
  const missing = FEEDS.filter((f) => !existsSync(zipOf(f)));
  if (missing.length === 0) return;
  console.error(`building missing MTA feeds (${missing.join(", ")}) with ../shared/tools/mta-gtfs (first run downloads ~185 MB)...`);
  const r = spawnSync("python3", [relative(ROOT, MTA_TOOL), relative(ROOT, MTA), ...missing], { cwd: ROOT, stdio: "inherit" });
  if (r.status !== 0) throw new Error(`mta-gtfs failed (exit ${r.status})`);
  for (const f of missing) if (!existsSync(zipOf(f))) throw new Error(`mta-gtfs did not build ${zipOf(f)}: unknown feed name "${f}"?`);
}

interface Run {
  m: Measured;
  stopTimes: number;
  /** importer's own elapsed time, when it reports one */
  innerMs?: number;
  error?: string;
}

interface Side {
  runs: Run[];
  ok: Run[];
  medianMs: number;
  medianCpuMs: number;
  peakRss: number; // max over runs
  stopTimes: number;
  timedOut: boolean;
  error?: string;
}

function summarize(runs: Run[]): Side {
  const ok = runs.filter((r) => !r.error);
  return {
    runs,
    ok,
    medianMs: median(ok.map((r) => r.m.wallMs)),
    medianCpuMs: median(ok.map((r) => r.m.cpuMs)),
    peakRss: Math.max(0, ...ok.map((r) => r.m.peakRssBytes)),
    stopTimes: ok[0]?.stopTimes ?? NaN,
    timedOut: runs.some((r) => r.m.timedOut),
    error: runs.find((r) => r.error)?.error,
  };
}

const tail = (s: string, n = 1500) => (s.length > n ? "…" + s.slice(-n) : s);

async function runOurs(feed: string, i: number): Promise<Run> {
  const dir = join(WORK, `ours-${feed}-${i}`);
  rmSync(dir, { recursive: true, force: true });
  await waitForQuiet(QUIET_WAIT_S * 1000);
  const m = await measure([BUN, join(ROOT, "bin", "interchange.ts"), "import", "--data", dir, "--quiet", "--json", zipOf(feed)], { cwd: ROOT });
  rmSync(dir, { recursive: true, force: true });
  let stopTimes = NaN;
  let innerMs: number | undefined;
  let error: string | undefined;
  try {
    const report = JSON.parse(m.stdout)[0];
    stopTimes = report.tables?.["stop_times.txt"]?.imported_rows ?? NaN;
    innerMs = report.elapsed_ms;
    if (report.status === "rejected") error = `rejected: ${report.error?.message}`;
  } catch {
    error = `no JSON report on stdout`;
  }
  if (m.exitCode !== 0 && !error) error = `exit ${m.exitCode}`;
  if (error) error += `\n${tail(m.stderr)}`;
  return { m, stopTimes, innerMs, error };
}

async function runNodeGtfs(feed: string, i: number): Promise<Run> {
  const db = join(WORK, `node-gtfs-${feed}-${i}.sqlite`);
  const clean = () => {
    for (const f of [db, `${db}-wal`, `${db}-shm`, `${db}-journal`]) rmSync(f, { force: true });
  };
  clean();
  await waitForQuiet(QUIET_WAIT_S * 1000);
  const m = await measure(["node", join(ROOT, "bench", "node-gtfs-import.mjs"), zipOf(feed), db], {
    cwd: ROOT,
    timeoutMs: NG_TIMEOUT_S * 1000,
  });
  clean();
  if (m.timedOut) return { m, stopTimes: NaN, error: `timed out after ${NG_TIMEOUT_S} s` };
  try {
    const out = JSON.parse(m.stdout.trim().split("\n").pop()!);
    if (!out.ok) return { m, stopTimes: NaN, error: tail(String(out.error)) };
    return { m, stopTimes: out.stop_times, innerMs: out.elapsed_ms };
  } catch {
    return { m, stopTimes: NaN, error: `exit ${m.exitCode ?? m.signal}: ${tail(m.stderr || m.stdout)}` };
  }
}

/** Why node-gtfs cannot run here, or undefined when it loads (gtfs + better-sqlite3 native module). */
function nodeGtfsProblem(): string | undefined {
  const r = spawnSync("node", ["--input-type=module", "-e", "await import('gtfs'); const D = (await import('better-sqlite3')).default; new D(':memory:').close();"], {
    cwd: ROOT,
    encoding: "utf8",
  });
  if (r.error) return `node not runnable: ${r.error.message}`;
  if (r.status !== 0) return `node-gtfs does not load under Node (${r.stderr.trim().split("\n").slice(0, 6).join(" / ")}); install it with \`npm install\` (it needs better-sqlite3's native module built: install scripts allowed, g++/python3 for node-gyp)`;
  return undefined;
}

const rate = (n: number, ms: number) => (Number.isFinite(n) && ms > 0 ? n / (ms / 1000) : NaN);

async function main(): Promise<number> {
  ensureFeeds();
  mkdirSync(WORK, { recursive: true });
  const machine = machineInfo(ROOT);
  const started = new Date();
  const loadBefore = loadavg()[0]!;
  if (loadBefore > machine.cores / 2) console.error(`warning: load average ${loadBefore.toFixed(2)} on ${machine.cores} cores: other processes are competing, figures will be low`);
  const ngProblem = NG_RUNS > 0 ? nodeGtfsProblem() : "skipped (BENCH_NODE_GTFS_RUNS=0)";
  if (ngProblem) console.error(`node-gtfs: ${ngProblem}`);

  const results: { feed: string; zipBytes: number; ours: Side; ng?: Side }[] = [];
  for (const feed of FEEDS) {
    const zipBytes = statSync(zipOf(feed)).size;
    const ours: Run[] = [];
    for (let i = 1; i <= RUNS; i++) {
      const r = await runOurs(feed, i);
      console.error(`interchange ${feed} #${i}: ${fmtSec(r.m.wallMs)}, peak RSS ${fmtBytes(r.m.peakRssBytes)}${r.error ? ` FAILED: ${r.error}` : ""}`);
      ours.push(r);
    }
    let ng: Side | undefined;
    if (!ngProblem) {
      const runs: Run[] = [];
      for (let i = 1; i <= NG_RUNS; i++) {
        const r = await runNodeGtfs(feed, i);
        console.error(`node-gtfs ${feed} #${i}: ${r.m.timedOut ? `> ${NG_TIMEOUT_S} s` : fmtSec(r.m.wallMs)}, peak RSS ${fmtBytes(r.m.peakRssBytes)}${r.error ? ` FAILED: ${r.error}` : ""}`);
        runs.push(r);
        if (r.error) break; // a timeout or failure won't get better on a second try
      }
      ng = summarize(runs);
    }
    results.push({ feed, zipBytes, ours: summarize(ours), ng });
  }

  // ---- table + goals
  const rows: string[][] = [];
  const goals: string[] = [];
  let failed = false;
  let goalsMet = true;
  // issue 2 sets its goals on bus_bk ("Goal: >= 1,000,000 stop_times/s end to end, >= 10x node-gtfs,
  // peak RSS < 4 GB on bus_bk"); the other feeds' figures are listed against them for reference
  const goalFeed = (feed: string) => /bus_bk/.test(feed);
  let checkFeed = "";
  const check = (ok: boolean, text: string) => {
    if (!goalFeed(checkFeed)) {
      goals.push(`- for reference (not an issue goal): ${text}`);
      return;
    }
    goals.push(`- ${ok ? "✅ met" : "❌ not met"}: ${text}`);
    if (!ok) goalsMet = false;
  };
  for (const { feed, zipBytes, ours, ng } of results) {
    checkFeed = feed;
    if (ours.error) failed = true;
    const n = ours.stopTimes;
    const ourRate = rate(n, ours.medianMs);
    let ngTime = "n/a", ngRate = "n/a", ngRss = "n/a", ratio = "n/a";
    let ratioNum = NaN;
    if (ng) {
      if (ng.timedOut) {
        ngTime = `> ${NG_TIMEOUT_S} s`;
        ngRate = `< ${fmtInt(rate(n, NG_TIMEOUT_S * 1000))}`;
        ratioNum = (NG_TIMEOUT_S * 1000) / ours.medianMs;
        ratio = `> ${ratioNum.toFixed(1)}×`;
      } else if (ng.ok.length) {
        ngTime = fmtSec(ng.medianMs) + (ng.ok.length < NG_RUNS ? ` (${ng.ok.length} run)` : "");
        ngRate = fmtInt(rate(ng.stopTimes, ng.medianMs));
        ngRss = fmtBytes(ng.peakRss);
        ratioNum = ng.medianMs / ours.medianMs; // same rows, so the time ratio is the throughput ratio
        ratio = `${ratioNum.toFixed(1)}×`;
        if (ng.stopTimes !== n) ratio += ` (node-gtfs stored ${fmtInt(ng.stopTimes)} stop_times)`;
      } else {
        ngTime = "failed";
      }
    }
    rows.push([
      `${feed}`,
      fmtBytes(zipBytes),
      fmtInt(n),
      ours.error && !ours.ok.length ? "failed" : fmtSec(ours.medianMs),
      fmtInt(ourRate),
      fmtBytes(ours.peakRss),
      ngTime,
      ngRate,
      ngRss,
      ratio,
    ]);
    check(ourRate >= GOAL_RATE, `≥ ${fmtInt(GOAL_RATE)} stop_times/s end to end on ${feed}: ${fmtInt(ourRate)}/s (${(ourRate / GOAL_RATE * 100).toFixed(0)}% of goal)`);
    if (ng) check(ratioNum >= GOAL_RATIO, `≥ ${GOAL_RATIO}× node-gtfs on ${feed}: ${Number.isFinite(ratioNum) ? ratioNum.toFixed(1) + "×" : "n/a (node-gtfs failed)"}`);
    else check(false, `≥ ${GOAL_RATIO}× node-gtfs on ${feed}: not measured (${ngProblem})`);
    if (/bus_bk/.test(feed)) check(ours.peakRss > 0 && ours.peakRss < GOAL_RSS, `peak RSS < 4 GB on ${feed}: ${fmtBytes(ours.peakRss)}`);
  }
  const cpuNotes = results
    .filter((r) => r.ng?.ok.length)
    .map(({ feed, ours, ng }) => `- ${feed}: CPU time (user+sys, all threads) interchange ${fmtSec(ours.medianCpuMs)} vs node-gtfs ${fmtSec(ng!.medianCpuMs)} (${(ng!.medianCpuMs / ours.medianCpuMs).toFixed(1)}× less CPU)`);
  const innerNotes = results
    .filter((r) => r.ours.ok.some((x) => x.innerMs !== undefined))
    .map(({ feed, ours }) => {
      const inner = median(ours.ok.map((x) => x.innerMs ?? NaN));
      return `- ${feed}: ${fmtSec(inner)} = ${fmtInt(rate(ours.stopTimes, inner))} stop_times/s (the other ${fmtSec(ours.medianMs - inner)} of the end-to-end time: Bun start-up and module loading, and the timetable hook after the import, which finds the timetable the import built while writing its Parquet files)`;
    });
  const allRuns = results.flatMap((r) => [...r.ours.runs, ...(r.ng?.runs ?? [])]);
  const maxOthers = Math.max(...allRuns.map((r) => r.m.othersLoad).filter(Number.isFinite));
  const contention = Number.isFinite(maxOthers) && maxOthers > 0.1
    ? `**Contention:** other processes used up to ${(maxOthers * 100).toFixed(0)}% of the machine's CPUs during some runs ("others' CPU" below); those wall times are inflated. Rerun on an idle machine for clean figures.`
    : Number.isFinite(maxOthers)
      ? `**Contention:** none to speak of (other processes used at most ${(maxOthers * 100).toFixed(0)}% of the CPUs during any run).`
      : "";
  if (!FEEDS.some(goalFeed)) goals.push("- (issue 2's goals are on bus_bk, which is not in BENCH_FEEDS)");
  const header = ["feed", "zip", "stop_times", "interchange (median)", "stop_times/s", "peak RSS", "node-gtfs (median)", "stop_times/s", "peak RSS", "speed-up"];
  const table = mdTable(header, rows);

  // per-run detail
  const detail: string[][] = [];
  for (const { feed, ours, ng } of results) {
    for (const [who, side] of [["interchange", ours], ["node-gtfs", ng]] as const) {
      if (!side) continue;
      side.runs.forEach((r, i) =>
        detail.push([
          feed,
          who,
          `#${i + 1}`,
          r.m.timedOut ? `> ${NG_TIMEOUT_S} s` : fmtSec(r.m.wallMs),
          r.innerMs !== undefined ? fmtSec(r.innerMs) : "n/a",
          `${fmtSec(r.m.userMs)} / ${fmtSec(r.m.sysMs)}`,
          fmtBytes(r.m.peakRssBytes),
          Number.isFinite(r.m.othersLoad) ? `${(r.m.othersLoad * 100).toFixed(0)}%` : "n/a",
          r.error ? `FAILED: ${r.error.split("\n")[0]}` : "ok",
        ]),
      );
    }
  }
  const detailTable = mdTable(["feed", "importer", "run", "wall", "in-process", "CPU user / sys", "peak RSS", "others' CPU", "status"], detail);

  const envOverrides = Object.entries(process.env)
    .filter(([k]) => k.startsWith("BENCH_"))
    .map(([k, v]) => `${k}=${v} `)
    .join("");
  const md = `# Import benchmark (\`npm run bench:import\`)

Generated by \`bench/import.bench.ts\`; rerun to refresh. Issue 2.

- **Date:** ${started.toISOString()} (took ${fmtSec(Date.now() - started.getTime())})
- **Machine:** ${machine.cpuModel}, ${machine.cores} cores, ${machine.ramGiB} GiB RAM; ${machine.os}
- **Runtimes:** Bun ${machine.bun} (interchange), Node ${machine.node} (node-gtfs ${ngVersion()}); commit ${machine.gitCommit}
- **Load average (1 min) at start:** ${loadBefore.toFixed(2)} on ${machine.cores} cores (see "others' CPU" per run below for contention during the runs)
- **Command:** \`${envOverrides}npm run bench:import\`
- **Data:** MTA static GTFS zips built by \`../shared/tools/mta-gtfs\` into \`${relative(ROOT, MTA)}/\` (${FEEDS.join(", ")}).
- **Method:** each importer runs as a child process, end to end, into a fresh data dir / SQLite file under \`bench/.work/\`;
  wall time measured from outside (process start to exit, runtime start-up included); peak RSS = kernel
  \`ru_maxrss\` of the child (cross-checked by polling \`/proc/<pid>/status\` VmHWM). interchange: ${RUNS} run(s) per feed,
  \`bun bin/interchange.ts import --data DIR --quiet --json ZIP\` (unzip, parse, validate, derive, Parquet, manifest;
  the planner timetable included: the import builds it while writing its Parquet files, the hook after it points the manifest at it). node-gtfs: ${NG_RUNS} run(s) per feed, \`node bench/node-gtfs-import.mjs ZIP DB\`
  (\`importGtfs({ agencies: [{ path }], sqlitePath, verbose: false })\`), timeout ${NG_TIMEOUT_S} s. Times are medians,
  peak RSS the max over runs; stop_times = rows imported (interchange report; node-gtfs's count in SQLite is checked equal).
  Speed-up = node-gtfs median time / interchange median time.
${ngProblem ? `\n**node-gtfs not measured:** ${ngProblem}\n` : ""}
## Results

${table}

interchange's own import time (report.elapsed_ms: unzip → manifest, as in issue 2's pipeline), median:
${innerNotes.join("\n")}

## Goals

${goals.join("\n")}

## Runs

${contention}

${detailTable}

${cpuNotes.join("\n")}

"in-process" is the time the importer itself reports (interchange: report.elapsed_ms, i.e. without Bun start-up
and without the timetable hook that runs after the import, but with the timetable the import builds; node-gtfs: around \`importGtfs\`, without Node
start-up and module loading). "others' CPU" is the share of all cores that other processes
used while the run went on (from /proc/stat, minus the importer's own CPU time); each run first waits up to
${QUIET_WAIT_S} s for the machine to go idle.
`;
  mkdirSync(resolve(OUT, ".."), { recursive: true });
  writeFileSync(OUT, md);
  console.log(`\n${table}\n\ninterchange's own import time (report.elapsed_ms), median:\n${innerNotes.join("\n")}\n\n${goals.join("\n")}\n\n${contention}\n\n${detailTable}\n\n${cpuNotes.join("\n")}\n\nwrote ${relative(ROOT, OUT)}`);
  rmSync(WORK, { recursive: true, force: true });
  if (failed) return 1;
  if (process.env.BENCH_STRICT === "1" && !goalsMet) return 1;
  return 0;
}

function ngVersion(): string {
  try {
    return JSON.parse(readFileSync(join(ROOT, "node_modules", "gtfs", "package.json"), "utf8")).version;
  } catch {
    return "not installed";
  }
}

process.exit(await main());
