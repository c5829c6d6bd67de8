/**
 * Vector tile benchmark: the real server (no auth) on an imported data dir, every tile of the
 * stops' bounding box at zooms 10..15 (capped at 400 a zoom) asked once cold (cut and cached) and
 * then REPEAT times warm, one client over HTTP. Prints p50/p95 of cold and warm, tile sizes, the
 * tile set's build time and the CPU the process used.
 * Usage: bun bench/tiles.bench.ts --data DIR [--repeat N]
 */
import { parseArgs } from "node:util";
import { startServer } from "../server/main.ts";
import { serverConfigFrom } from "../server/config.ts";
import { worldXY } from "../server/map/mvt.ts";

const { values } = parseArgs({ options: { data: { type: "string" }, repeat: { type: "string", default: "5" } } });
if (!values.data) throw new Error("--data DIR is required");
const quiet = { info() {}, warn() {}, error: (m: string, f?: unknown) => console.error(m, f) };
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const server = await startServer(serverConfigFrom({ data: values.data, port: 0, host: "127.0.0.1", noAuth: true }), { log: quiet });
const tj = (await (await fetch(`${server.url}/tiles/stops,stations/tilejson.json`)).json()) as { bounds: number[] };
console.log(`server up + tile set built: ${Math.round(performance.now() - t0)} ms; bounds ${tj.bounds.map((b) => b.toFixed(3)).join(",")}`);
const pct = (a: number[], p: number) => [...a].sort((x, y) => x - y)[Math.min(a.length - 1, Math.floor(a.length * p))]!;
const [w, s, e, n] = tj.bounds as [number, number, number, number];
for (let z = 10; z <= 15; z++) {
  const [x0, y0] = worldXY(w, n).map((v) => Math.floor(v * 2 ** z));
  const [x1, y1] = worldXY(e, s).map((v) => Math.floor(v * 2 ** z));
  const paths: string[] = [];
  for (let x = x0!; x <= x1! && paths.length < 400; x++) for (let y = y0!; y <= y1! && paths.length < 400; y++) paths.push(`/tiles/stops,stations/${z}/${x}/${y}.pbf`);
  const cold: number[] = [], warm: number[] = [], sizes: number[] = [];
  for (const p of paths) {
    const t = performance.now();
    const b = await (await fetch(server.url + p)).arrayBuffer();
    cold.push(performance.now() - t);
    sizes.push(b.byteLength);
  }
  for (let r = 0; r < Number(values.repeat); r++) {
    for (const p of paths) {
      const t = performance.now();
      await (await fetch(server.url + p)).arrayBuffer();
      warm.push(performance.now() - t);
    }
  }
  const f = (v: number) => v.toFixed(2);
  console.log(`z${z}: ${paths.length} tiles; cold p50 ${f(pct(cold, 0.5))} ms p95 ${f(pct(cold, 0.95))} ms; warm p50 ${f(pct(warm, 0.5))} ms p95 ${f(pct(warm, 0.95))} ms; size max ${Math.max(...sizes)} B`);
}
const cpu = process.cpuUsage(cpu0);
console.log(`cpu user ${(cpu.user / 1e6).toFixed(1)} s sys ${(cpu.system / 1e6).toFixed(1)} s`);
await server.stop();
