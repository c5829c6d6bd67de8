/**
 * Country scale (`npm run bench:scale`, issue 33): the generated copies of New York
 * (bench/scale/generate.ts) at growing sizes, each measured from outside the processes:
 * - import: `interchange import` of every feed of the size in one run (a child process): wall, user
 *   and system CPU, peak RSS (the largest single feed's import is the bound that matters);
 * - server: `interchange serve` started on the dataset: seconds until /health reports the catalog
 *   and the planner loaded, and its RSS then;
 * - queries: OTP1 plan requests between random stops inside copy 0 and across the joined copies
 *   (copy 0 to the last copy), and stop-by-key, p50 / p95 over HTTP.
 *
 *   bun bench/scale.bench.ts [--sizes 1,3,6] [--plans 100] [--source bench/.mta]
 *
 * Datasets are generated into bench/.work/scale-<n>/feeds and imported into bench/.work/scale-<n>/data
 * (kept: a later run reuses them; delete the folder to start again).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { loadavg } from "node:os";
import { flag, pct, rng } from "./lib/args.ts";
import { machineInfo, hostProbeMs } from "./lib/machine.ts";
import { mdTable, measure } from "./lib/measure.ts";
import { rssKb } from "./lib/server.ts";

const ROOT = resolve(import.meta.dir, "..");
const BIN = join(ROOT, "bin", "interchange.ts");
const SIZES = flag("sizes", "1,3,6").split(",").map(Number);
const PLANS = Number(flag("plans", "100"));
const SOURCE = resolve(flag("source", join(ROOT, "bench", ".mta")));

interface Row {
  size: number;
  stopTimes: number;
  importS: number;
  importUserS: number;
  importSysS: number;
  importPeakMb: number;
  startS: number;
  serverRssMb: number;
  planInside: number[];
  planAcross: number[];
  planAcrossFound: number;
  stopByKey: number[];
}

async function generate(n: number, dir: string): Promise<void> {
  if (existsSync(join(dir, "joined.json"))) return;
  const r = await measure([process.execPath, join(ROOT, "bench", "scale", "generate.ts"), "--copies", String(n), "--out", dir, "--source", SOURCE]);
  if (r.exitCode !== 0) throw new Error(`generate ${n}: ${r.stderr.slice(-2000)}`);
}

async function serve(data: string): Promise<{ url: string; pid: number; startS: number; stop: () => void }> {
  const t0 = performance.now();
  const child = Bun.spawn([process.execPath, BIN, "serve", "--data", data, "--port", "0", "--host", "127.0.0.1", "--no-auth", "--workers", "1"], { stdout: "ignore", stderr: "pipe" });
  let log = "";
  const reader = child.stderr.getReader();
  let url: string | null = null;
  while (!url) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`server exited:\n${log.slice(-2000)}`);
    log += new TextDecoder().decode(value);
    url = /"msg":"listening","url":"([^"]+)"/.exec(log)?.[1] ?? null;
  }
  void (async () => { while (!(await reader.read()).done); })();
  // ready: the catalog and the planner answer
  for (;;) {
    const h = (await (await fetch(`${url}/health`)).json()) as any;
    const ok = h.features?.catalog?.status === "ok" && (h.features?.planner?.status === "ok" || h.features?.planner?.timetable);
    if (ok) break;
    await Bun.sleep(200);
  }
  return { url, pid: child.pid, startS: (performance.now() - t0) / 1000, stop: () => child.kill("SIGTERM") };
}

async function timed(url: string): Promise<[number, any]> {
  const t = performance.now();
  const r = await fetch(url);
  const body = await r.json();
  return [performance.now() - t, body];
}

async function run(n: number): Promise<Row> {
  const dir = join(ROOT, "bench", ".work", `scale-${n}`);
  const feedsDir = join(dir, "feeds");
  const data = join(dir, "data");
  await generate(n, feedsDir);
  const feeds = readdirSync(feedsDir).filter((f) => f.startsWith("c")).sort().map((f) => join(feedsDir, f));
  let imp = { wallMs: 0, userMs: 0, sysMs: 0, peakRssBytes: 0 };
  if (!existsSync(join(data, "manifest.json"))) {
    const r = await measure([process.execPath, BIN, "import", "--quiet", "--data", data, ...feeds]);
    if (r.exitCode !== 0) throw new Error(`import ${n}: ${r.stderr.slice(-2000)}`);
    imp = r;
  }
  const manifest = JSON.parse(readFileSync(join(data, "manifest.json"), "utf8"));
  const stopTimes = manifest.versions.reduce((s: number, v: any) => s + (v.counts?.stop_times ?? 0), 0);
  const joined = JSON.parse(readFileSync(join(feedsDir, "joined.json"), "utf8")).joined as { copy: number; stopId: string; lat: number; lon: number }[];
  const server = await serve(data);
  const rss = rssKb(server.pid) / 1024;
  try {
    // stops of copy 0 and of the last copy (subway platforms, from the catalog)
    const subway = (copy: number) => manifest.feeds.find((f: any) => f.source?.endsWith(`c${copy}-mta-subway`))?.onestop_id as string;
    const stopsOf = async (feed: string) => ((await (await fetch(`${server.url}/api/v2/rest/stops?feed_onestop_id=${feed}&limit=1000`)).json()) as any).stops as any[];
    const s0 = (await stopsOf(subway(0))).filter((s) => s.geometry);
    const sLast = n > 1 ? (await stopsOf(subway(n - 1))).filter((s) => s.geometry) : s0;
    const rand = rng(7);
    const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)]!;
    const plan = (a: any, b: any, hour: number) =>
      `${server.url}/api/v2/routing/otp/plan?fromPlace=${a.geometry.coordinates[1]},${a.geometry.coordinates[0]}&toPlace=${b.geometry.coordinates[1]},${b.geometry.coordinates[0]}&date=2026-09-15&time=${String(hour).padStart(2, "0")}:${String(Math.floor(rand() * 60)).padStart(2, "0")}&maxWalkDistance=2000`;
    for (let i = 0; i < 20; i++) await timed(plan(pick(s0), pick(s0), 8)); // warm-up
    const inside: number[] = [], across: number[] = [], byKey: number[] = [];
    let found = 0;
    for (let i = 0; i < PLANS; i++) inside.push((await timed(plan(pick(s0), pick(s0), 7 + Math.floor(rand() * 12))))[0]);
    if (n > 1) {
      // across: from copy 0 into the next copy over the joined station (a stop of copy 0 to a stop of copy 1)
      const s1 = (await stopsOf(subway(1))).filter((s) => s.geometry);
      for (let i = 0; i < Math.min(PLANS, 50); i++) {
        const [ms, body] = await timed(plan(pick(s0), pick(s1), 7 + Math.floor(rand() * 12)));
        across.push(ms);
        if ((body.plan?.itineraries ?? []).some((it: any) => it.legs.some((l: any) => l.transitLeg))) found++;
      }
    }
    void sLast;
    for (let i = 0; i < 200; i++) byKey.push((await timed(`${server.url}/api/v2/rest/stops/${pick(s0).id}`))[0]);
    void joined;
    return {
      size: n, stopTimes, importS: imp.wallMs / 1000, importUserS: imp.userMs / 1000, importSysS: imp.sysMs / 1000, importPeakMb: imp.peakRssBytes / 2 ** 20,
      startS: server.startS, serverRssMb: rss, planInside: inside, planAcross: across, planAcrossFound: found, stopByKey: byKey,
    };
  } finally {
    server.stop();
  }
}

const m = machineInfo(ROOT);
console.log(`# bench:scale\n\n${m.cpuModel}, ${m.cores} cores, commit ${m.gitCommit}, ${new Date().toISOString()}, load average ${loadavg()[0]!.toFixed(2)}, host probe ${hostProbeMs().toFixed(2)} ms\n`);
const rows: Row[] = [];
for (const n of SIZES) {
  rows.push(await run(n));
  const f = (x: number) => x.toFixed(1);
  console.log(
    mdTable(
      ["copies of NYC", "stop_times", "import s (user / sys)", "import peak RSS MB", "server start s", "server RSS MB", "plan inside p50 / p95 ms", "plan across p50 / p95 ms (found)", "stop by key p50 ms"],
      rows.map((r) => [
        String(r.size), r.stopTimes.toLocaleString("en"), r.importS ? `${f(r.importS)} (${f(r.importUserS)} / ${f(r.importSysS)})` : "(imported before)", r.importS ? f(r.importPeakMb) : "-",
        f(r.startS), f(r.serverRssMb), `${f(pct(r.planInside, 50))} / ${f(pct(r.planInside, 95))}`,
        r.planAcross.length ? `${f(pct(r.planAcross, 50))} / ${f(pct(r.planAcross, 95))} (${r.planAcrossFound}/${r.planAcross.length})` : "-", pct(r.stopByKey, 50).toFixed(2),
      ]),
    ),
  );
}
