/**
 * Plans on the streets (`npm run bench:plan-streets`, also run by `npm run bench:plan`): the plan
 * request on Mannheim/Heidelberg (rnv's GTFS + rnv-mannheim-heidelberg.osm.pbf, ../shared/data),
 * with street access/egress, walk legs drawn on the streets with their steps, against the same
 * feed without streets (straight-line walks), side by side in one run: two real servers
 * (`interchange serve`, child processes), the queries alternating between them. Also the
 * import-time footpath build on the streets (from `interchange import`'s progress lines).
 * Flags: --queries N (default 200), --warmup N (default 40).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { readManifest } from "../pipeline/schema/manifest.ts";
import { loadTimetableFile } from "../server/planner/timetable/arrow-loader.ts";
import { hostProbeMs, machineInfo } from "./lib/machine.ts";
import { flag, hasFlag, pct, rng } from "./lib/args.ts";
import { mdTable } from "./lib/measure.ts";
import { startServer } from "./lib/server.ts";

const ROOT = resolve(import.meta.dir, "..");
const SHARED = resolve(ROOT, "..", "shared", "data");
const WORK = join(ROOT, "bench", ".work");
const N = Number(flag("queries", "200"));
const WARMUP = Number(flag("warmup", "40"));
const DATE = "2016-11-02"; // a Wednesday of rnv's feed


/** `interchange import` into a fresh dir; returns the seconds of the footpaths-on-streets step (null without streets). */
function importDataset(dir: string, streets: boolean): number | null {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const argv = [join(ROOT, "bin", "interchange.ts"), "import", "--data", dir, join(SHARED, "gtfs", "rnv.zip")];
  if (streets) argv.push("--osm", join(SHARED, "osm", "rnv-mannheim-heidelberg.osm.pbf"));
  const r = spawnSync(process.execPath, argv, { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`import failed:\n${r.stderr}`);
  // "timetable: assembled (t1 s)" then "timetable: footpaths on the streets of … (t2 s)": t2 - t1
  const at = (re: RegExp) => Number(re.exec(r.stderr)?.[1] ?? NaN);
  const t1 = at(/timetable: assembled \(([\d.]+) s\)/), t2 = at(/timetable: footpaths on the streets[^\n]*\(([\d.]+) s\)/);
  if (streets) console.error(/timetable: footpaths on the streets[^\n]*/.exec(r.stderr)?.[0] ?? "(no footpath line)");
  return streets ? t2 - t1 : null;
}

const info = machineInfo(ROOT);
const streetsDir = join(WORK, "rnv-streets"), plainDir = join(WORK, "rnv-plain");
let footpathSec: number | null = null;
if (!existsSync(join(streetsDir, "manifest.json")) || hasFlag("reimport")) footpathSec = importDataset(streetsDir, true);
if (!existsSync(join(plainDir, "manifest.json")) || hasFlag("reimport")) importDataset(plainDir, false);

// queries: places near random served stops (up to ~400 m off), random times 06:00-22:00
const tt = loadTimetableFile(join(streetsDir, readManifest(streetsDir).timetable!.path));
const served: number[] = [];
for (let s = 0; s < tt.core.nStops; s++) if (tt.core.stopRouteStart[s + 1]! > tt.core.stopRouteStart[s]!) served.push(s);
const rand = rng(19);
const place = () => {
  const s = served[Math.floor(rand() * served.length)]!;
  return `${(tt.meta.stopLat[s]! + (rand() - 0.5) * 0.007).toFixed(5)},${(tt.meta.stopLon[s]! + (rand() - 0.5) * 0.01).toFixed(5)}`;
};
const queries = Array.from({ length: WARMUP + N }, () => {
  const sec = 6 * 3600 + Math.floor(rand() * 16 * 3600);
  return { fromPlace: place(), toPlace: place(), date: DATE, time: `${Math.floor(sec / 3600)}:${String(Math.floor((sec % 3600) / 60)).padStart(2, "0")}` };
});

const withStreets = await startServer(streetsDir);
const plain = await startServer(plainDir);
const probeBefore = hostProbeMs();
const times = { streets: [] as number[], plain: [] as number[] };
let onStreets = 0, walkLegs = 0, steps = 0, itineraries = 0;
try {
  for (const [i, q] of queries.entries()) {
    // alternate which server goes first, so neither always meets a warmer cache
    const order = i % 2 ? ([["streets", withStreets], ["plain", plain]] as const) : ([["plain", plain], ["streets", withStreets]] as const);
    for (const [kind, s] of order) {
      const t0 = performance.now();
      const r = await fetch(`${s.url}/api/v2/routing/otp/plan?${new URLSearchParams(q)}`);
      const body = (await r.json()) as { plan?: { itineraries: { legs: { mode: string; onStreets?: boolean; steps: unknown[] }[] }[] } };
      const ms = performance.now() - t0;
      if (i < WARMUP) continue;
      times[kind].push(ms);
      if (kind === "streets") {
        for (const it of body.plan?.itineraries ?? []) {
          itineraries++;
          for (const l of it.legs) {
            if (l.mode !== "WALK") continue;
            walkLegs++;
            if (l.onStreets) onStreets++;
            steps += l.steps.length;
          }
        }
      }
    }
  }
} finally {
  withStreets.stop();
  plain.stop();
}
const probeAfter = hostProbeMs();

console.log(`### Plans on the streets: rnv (Mannheim/Heidelberg)\n`);
console.log(`Command: \`npm run bench:plan-streets\` (\`bun bench/plan-streets.bench.ts --queries ${N}\`). Machine: ${info.cpuModel}, ${info.cores} cores, ${info.ramGiB} GiB RAM, ${info.os}, Bun ${info.bun}, commit ${info.gitCommit}.`);
console.log(`Data: ../shared/data/gtfs/rnv.zip (${tt.core.nStops} stops, ${tt.core.nTrips} trips) + osm/rnv-mannheim-heidelberg.osm.pbf; ${DATE}. Queries: ${N} (after ${WARMUP} unmeasured) places up to ~400 m from random served stops, random times 06:00-22:00, default parameters (walk 1.33 m/s, 1609 m, 3 itineraries), each sent to both servers, alternating which goes first.`);
console.log(`Host speed probe: ${probeBefore.toFixed(2)} ms before, ${probeAfter.toFixed(2)} ms after (about 0.71 ms quiet).\n`);
console.log(
  mdTable(
    ["server", "plan p50 ms", "plan p95 ms"],
    [
      ["rnv + streets (access/egress matrices, walk legs drawn with steps)", pct(times.streets, 50).toFixed(1), pct(times.streets, 95).toFixed(1)],
      ["rnv, straight-line walks", pct(times.plain, 50).toFixed(1), pct(times.plain, 95).toFixed(1)],
    ],
  ),
);
console.log(`\nWith streets: ${itineraries} itineraries, ${walkLegs} walk legs, ${onStreets} of them on the streets, ${steps} steps in all.`);
if (footpathSec !== null) console.log(`Import: footpaths measured on the streets in ${footpathSec.toFixed(1)} s (the import's progress lines; goal under 30 s).`);
