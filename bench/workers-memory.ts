/**
 * Memory of `interchange serve --workers N` (BENCHMARKS.md, "Several processes"): runs the server
 * over a dataset folder with 1 and then 2 workers, makes a few catalog and plan requests on each
 * worker, and reads every worker's RSS and PSS (/proc/<pid>/smaps_rollup: shared pages split
 * between the processes mapping them) and the supervisor's. Linux only.
 * Usage: bun bench/workers-memory.ts DATA_DIR [--workers 1,2]
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";

const BIN = resolve(import.meta.dir, "..", "bin", "interchange.ts");
const dataDir = process.argv[2];
if (!dataDir) throw new Error("usage: bun bench/workers-memory.ts DATA_DIR [--workers 1,2]");
const wi = process.argv.indexOf("--workers");
const counts = (wi > 0 ? process.argv[wi + 1]! : "1,2").split(",").map(Number);

/** kB fields of /proc/<pid>/smaps_rollup */
function rollup(pid: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of readFileSync(`/proc/${pid}/smaps_rollup`, "utf8").split("\n")) {
    const m = /^(\w+):\s+(\d+) kB/.exec(line);
    if (m) out[m[1]!] = Number(m[2]);
  }
  return out;
}
const mb = (kb: number) => (kb / 1024).toFixed(1);
/** a new connection per request, so the kernel spreads them over the workers */
const get = (url: string) => fetch(url, { keepalive: false, headers: { connection: "close" } });

for (const n of counts) {
  const port = 20000 + Math.floor(Math.random() * 20000);
  const proc = Bun.spawn([process.execPath, BIN, "serve", "--data", dataDir, "--no-auth", "--host", "127.0.0.1", "--port", String(port), "--workers", String(n)], { stdout: "ignore", stderr: "pipe" });
  const url = `http://127.0.0.1:${port}`;
  const pids = new Set<number>();
  const until = Date.now() + 60_000;
  while (pids.size < n && Date.now() < until) {
    try {
      const h = (await (await get(`${url}/health`)).json()) as { worker: { pid: number } };
      pids.add(h.worker.pid);
    } catch {
      await Bun.sleep(100);
    }
  }
  // a few requests, so each worker has answered catalog and plan requests
  const stops = ((await (await get(`${url}/api/v2/rest/stops?limit=50`)).json()) as { stops: { geometry: { coordinates: [number, number] } }[] }).stops;
  for (let i = 0; i < 40 * n; i++) {
    const a = stops[i % stops.length]!.geometry.coordinates;
    const b = stops[(i * 7 + 3) % stops.length]!.geometry.coordinates;
    await (await get(`${url}/api/v2/routing/otp/plan?fromPlace=${a[1]},${a[0]}&toPlace=${b[1]},${b[0]}&date=2019-06-05&time=08:30`)).arrayBuffer();
    await (await get(`${url}/api/v2/rest/stops?limit=20&offset=${i}`)).arrayBuffer();
  }
  Bun.gc(true);
  await Bun.sleep(2000);
  const rows = [...pids].map((pid) => ({ pid, ...rollup(pid) }) as Record<string, number>);
  const sum = (k: string) => rows.reduce((s, r) => s + (r[k] ?? 0), 0);
  const supervisor = n > 1 ? rollup(proc.pid) : null;
  console.log(JSON.stringify({
    workers: n,
    rss_mb: rows.map((r) => mb(r.Rss!)),
    pss_mb: rows.map((r) => mb(r.Pss!)),
    sum_rss_mb: mb(sum("Rss")),
    sum_pss_mb: mb(sum("Pss")),
    sum_shared_clean_mb: mb(sum("Shared_Clean")),
    sum_pss_file_mb: mb(sum("Pss_File")),
    sum_pss_anon_mb: mb(sum("Pss_Anon")),
    supervisor: supervisor ? { rss_mb: mb(supervisor.Rss!), pss_mb: mb(supervisor.Pss!) } : null,
  }));
  proc.kill("SIGTERM");
  await proc.exited;
}
