/**
 * Interleaved A/B of two source trees' RAPTOR on one timetable, in one process (`bun
 * bench/raptor-ab.ts --old DIR --new DIR`): each tree's PlanService and searchJourneys are imported
 * from its own folder (for example a `git worktree` of the commit before a change, and this one),
 * both search the same queries, one after the other, the order alternating query by query, so that
 * the host's load swings fall on both alike. Measures one departure (RAPTOR alone) and the plan
 * request's search (walking access and egress within 1609 m, a one-hour window, the 3 earliest
 * arrivals), checks that both trees find the same earliest arrivals, and prints p50s and the median
 * of the per-query ratios (new / old) per round.
 * Flags: --data DIR (an imported dataset with a planner timetable; default bench/.work/plan-nyc),
 * --queries N (default 300), --warmup N (default 100), --rounds N (default 3).
 */
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import { readManifest } from "../pipeline/schema/manifest.ts";
import { loadTimetableFile } from "../server/planner/timetable/arrow-loader.ts";
import type { Timetable } from "../server/planner/timetable/types.ts";
import { flag, pct, rng } from "./lib/args.ts";
import { hostProbeMs, machineInfo } from "./lib/machine.ts";

const ROOT = resolve(import.meta.dir, "..");
const OLD = resolve(flag("old", ""));
const NEW = resolve(flag("new", ROOT));
const DATA = resolve(flag("data", join(ROOT, "bench", ".work", "plan-nyc")));
const N = Number(flag("queries", "300"));
const WARMUP = Number(flag("warmup", "100"));
const ROUNDS = Number(flag("rounds", "3"));
if (!flag("old", "")) throw new Error("--old DIR (the source tree to compare against) is required");

interface Query { o: number; d: number; t: number }
type Search = (q: Query, plan: boolean) => number;

/** A tree's search over `tt`: its own PlanService, searchJourneys, calendar and default config. */
async function side(root: string, tt: Timetable): Promise<Search> {
  const { PlanService } = await import(join(root, "server/planner/plan-service.ts"));
  const { searchJourneys } = await import(join(root, "server/planner/raptor/index.ts"));
  const { DEFAULT_RAPTOR_CONFIG } = await import(join(root, "server/planner/api.ts"));
  const { buildServiceDays } = await import(join(root, "server/planner/timetable/calendar.ts"));
  const svc = new PlanService(tt);
  const { stopLat, stopLon } = tt.meta;
  return (q, plan) => {
    const epoch = q.t - 2 * 86400;
    const access = plan ? svc.walkStops(stopLat[q.o]!, stopLon[q.o]!, 1609, 1.33, false) : [{ stop: q.o, walkSec: 0 }];
    const egress = plan ? svc.walkStops(stopLat[q.d]!, stopLon[q.d]!, 1609, 1.33, false) : [{ stop: q.d, walkSec: 0 }];
    const res = searchJourneys(
      svc.prepared,
      { epochSec: epoch, timeSec: q.t - epoch, arriveBy: false, windowSec: plan ? 3600 : 0, horizonSec: 86400, access, egress, maxTransfers: 5, walkSpeed: 1.33, days: buildServiceDays(tt, epoch, q.t), wheelchair: false, keepEarliest: plan ? 3 : undefined },
      svc.pool,
      DEFAULT_RAPTOR_CONFIG,
    );
    return res.journeys.length ? Math.min(...res.journeys.map((j: { arriveSec: number }) => epoch + j.arriveSec)) : Infinity;
  };
}

/** Random stop pairs at random times (06:00-22:00) of a weekday inside every feed's service window. */
function queries(tt: Timetable, n: number, seed: number): Query[] {
  const rand = rng(seed);
  const { core, meta } = tt;
  const start = Math.max(...meta.feedStartDay), end = Math.min(...meta.feedEndDay);
  let day = start;
  while (day <= end && ((day + 3) % 7 < 1 || (day + 3) % 7 > 3)) day++;
  const tz = meta.timezones[0]!;
  const served: number[] = [];
  for (let s = 0; s < core.nStops; s++) if (core.stopRouteStart[s + 1]! > core.stopRouteStart[s]!) served.push(s);
  const noon = Date.UTC(1970, 0, 1 + day, 12) / 1000;
  // the zone's offset at noon of that day (the queries' times are local 06:00-22:00)
  const local = new Date(new Date(noon * 1000).toLocaleString("en-US", { timeZone: tz }) + " UTC").getTime() / 1000;
  const midnight = noon - 12 * 3600 - (local - noon);
  const qs: Query[] = [];
  while (qs.length < n) {
    const o = served[Math.floor(rand() * served.length)]!, d = served[Math.floor(rand() * served.length)]!;
    if (o !== d) qs.push({ o, d, t: midnight + 6 * 3600 + Math.floor(rand() * 16 * 3600) });
  }
  return qs;
}

const m = readManifest(DATA);
const tt = loadTimetableFile(join(DATA, m.timetable!.path));
const sides = { old: await side(OLD, tt), new: await side(NEW, tt) };
const probe0 = hostProbeMs();
const load0 = loadavg()[0]!;
const cpu0 = process.cpuUsage();
const rows: string[][] = [];
for (let round = 1; round <= ROUNDS; round++) {
  for (const plan of [false, true]) {
    const warm = queries(tt, WARMUP, 777 + round);
    for (const q of warm) for (const s of Object.values(sides)) s(q, plan);
    const qs = queries(tt, N, 12345 + round);
    const t = { old: [] as number[], new: [] as number[] };
    const ratios: number[] = [];
    let differ = 0;
    qs.forEach((q, i) => {
      const order = i % 2 === 0 ? (["old", "new"] as const) : (["new", "old"] as const);
      const took: Record<string, number> = {}, arr: Record<string, number> = {};
      for (const k of order) {
        const a = performance.now();
        arr[k] = sides[k](q, plan);
        took[k] = performance.now() - a;
      }
      if (arr.old !== arr.new) differ++;
      t.old.push(took.old!);
      t.new.push(took.new!);
      ratios.push(took.new! / took.old!);
    });
    const geo = Math.exp(ratios.reduce((s, r) => s + Math.log(r), 0) / ratios.length);
    rows.push([String(round), plan ? "plan search (1 h, 3 earliest)" : "one departure", pct(t.old, 50).toFixed(3), pct(t.new, 50).toFixed(3), (pct(t.new, 50) / pct(t.old, 50)).toFixed(3), pct(ratios, 50).toFixed(3), geo.toFixed(3), String(differ)]);
  }
}
const cpu = process.cpuUsage(cpu0);
const mi = machineInfo(ROOT);
console.log(`RAPTOR A/B, ${N} queries per kind and round after ${WARMUP} warm-up, ${tt.core.nStops} stops (${DATA.split("/").slice(-2).join("/")})`);
console.log(`old ${OLD}, new ${NEW}; ${mi.cpuModel}, ${mi.cores} cores, commit ${mi.gitCommit} ${new Date().toISOString()}; load average ${load0.toFixed(2)} -> ${loadavg()[0]!.toFixed(2)}; host probe ${probe0.toFixed(2)} -> ${hostProbeMs().toFixed(2)} ms; CPU ${(cpu.user / 1e6).toFixed(1)} s user, ${(cpu.system / 1e6).toFixed(1)} s system`);
console.log("| round | search | old p50 ms | new p50 ms | new / old p50 | median of per-query ratios | geometric mean of ratios | earliest arrivals that differ |");
console.log("|---|---|---|---|---|---|---|---|");
for (const r of rows) console.log(`| ${r.join(" | ")} |`);
