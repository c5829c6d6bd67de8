/**
 * The map page on a large dataset (`npm run bench:map -- --data DIR`, default bench/.work/plan-nyc:
 * all MTA feeds): the real server (`interchange serve`, its own process) and the page in headless
 * Chromium (Debian's chromium, SwiftShader: software WebGL, so frame times are pessimistic). Reports
 * the time until the page is ready (the dataset summary and the alerts read) and its first view drawn, the bytes it
 * read by kind (API answers, tiles, glyphs, page and MapLibre files) and its API requests, then, for views from the whole
 * dataset to a street corner, the time until each is drawn and the tiles it asked for. Prints a
 * markdown table; screenshots go to bench/.work/map-bench/.
 */
import { mkdirSync } from "node:fs";
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import { launchBrowser, mapIdle, openPage } from "../test/map/browser.ts";
import { flag } from "./lib/args.ts";
import { machineInfo } from "./lib/machine.ts";
import { mdTable } from "./lib/measure.ts";
import { rssKb, startServer } from "./lib/server.ts";

const ROOT = resolve(import.meta.dir, "..");
const DATA = resolve(flag("data", join(ROOT, "bench", ".work", "plan-nyc")));
const OUT = join(ROOT, "bench", ".work", "map-bench");
/** Views after the first (the dataset's extent): [name, lon, lat, zoom]. */
const VIEWS: [string, number, number, number][] = [
  ["city (z10)", -73.95, 40.72, 10],
  ["borough (z12)", -73.985, 40.75, 12],
  ["neighbourhood (z14)", -73.9855, 40.758, 14],
  ["street corner (z16)", -73.9855, 40.758, 16],
];

type Kind = "api" | "tiles" | "glyphs" | "page";
const kindOf = (u: string): Kind => (u.includes("/api/") || new URL(u).pathname === "/health" ? "api" : u.includes("/tiles/") ? "tiles" : u.includes("/map/fonts/") ? "glyphs" : "page");

const server = await startServer(DATA);
const browser = await launchBrowser();
try {
  const { page, log } = await openPage(browser, server.url);
  const bytes: Record<Kind, number> = { api: 0, tiles: 0, glyphs: 0, page: 0 };
  const counts: Record<Kind, number> = { api: 0, tiles: 0, glyphs: 0, page: 0 };
  page.on("response", async (r) => {
    try {
      const b = await r.body();
      const k = kindOf(r.url());
      bytes[k] += b.byteLength;
      counts[k]++;
    } catch {
      // a redirect or an aborted request has no body
    }
  });
  // when the API requests start and end (epoch ms), for the span of the load's API reading
  const apiSpans: [number, number][] = [];
  page.on("requestfinished", (r) => {
    if (kindOf(r.url()) !== "api") return;
    const t = r.timing();
    apiSpans.push([t.startTime, t.startTime + t.responseEnd]);
  });
  const t0 = performance.now();
  await page.goto(`${server.url}/map`);
  await page.waitForFunction(() => (globalThis as any).__interchange?.state?.ready === true, null, { timeout: 300_000 });
  const ready = performance.now() - t0;
  await mapIdle(page);
  const drawn = performance.now() - t0;
  const apiSpan = apiSpans.length ? (Math.max(...apiSpans.map((x) => x[1])) - Math.min(...apiSpans.map((x) => x[0]))) / 1000 : 0;
  // the API requests of the load (path and the parameters' names)
  const apiAtLoad = log.requests.filter((u) => kindOf(u) === "api").map((u) => new URL(u)).map((u) => `${u.pathname}${u.search ? "?" + [...u.searchParams.keys()].join("&") : ""}`);
  mkdirSync(OUT, { recursive: true });
  await page.screenshot({ path: join(OUT, "0-extent.png") });
  const first = { ...bytes };
  const rows: string[][] = [["dataset's extent (load)", `${(drawn / 1000).toFixed(2)} s (ready ${(ready / 1000).toFixed(2)} s)`, String(counts.tiles), `${(bytes.tiles / 1024).toFixed(0)} kB`]];
  for (const [name, lon, lat, zoom] of VIEWS) {
    const tiles0 = counts.tiles, tb0 = bytes.tiles;
    const a = performance.now();
    await page.evaluate(([x, y, z]) => (globalThis as any).__interchange.map.jumpTo({ center: [x, y], zoom: z }), [lon, lat, zoom] as const);
    await mapIdle(page);
    rows.push([name, `${((performance.now() - a) / 1000).toFixed(2)} s`, String(counts.tiles - tiles0), `${((bytes.tiles - tb0) / 1024).toFixed(0)} kB`]);
    await page.screenshot({ path: join(OUT, `${name.replace(/[^a-z0-9]+/gi, "-")}.png`) });
  }
  const mi = machineInfo(ROOT);
  console.log(`### The map page on ${DATA.replace(ROOT + "/", "")}

Command: \`bun bench/map.bench.ts --data ${DATA.replace(ROOT + "/", "")}\`. Machine: ${mi.cpuModel}, ${mi.cores} cores, Bun ${mi.bun}, commit ${mi.gitCommit}, ${new Date().toISOString().slice(0, 16)}Z, load average ${loadavg().map((x) => x.toFixed(2)).join(" ")} at the end. Headless Chromium with SwiftShader (software WebGL), viewport 1400 × 900.

On load: ${apiAtLoad.length} API requests (${apiAtLoad.map((x) => `\`${x}\``).join(", ")}; ${apiSpan.toFixed(2)} s from the first to the last answer); read ${(first.api / 1e6).toFixed(1)} MB of API answers (${counts.api} requests by the end), ${(first.tiles / 1024).toFixed(0)} kB of tiles, ${(first.glyphs / 1024).toFixed(0)} kB of glyphs, ${(first.page / 1e6).toFixed(1)} MB of page and MapLibre files. Console errors: ${log.errors.length}; requests to other hosts: ${log.external.length}. Server RSS at the end: ${(rssKb(server.pid) / 1024).toFixed(0)} MB.

${mdTable(["view", "until drawn", "tiles asked", "tile bytes"], rows)}`);
} finally {
  await browser.close();
  server.stop();
}
