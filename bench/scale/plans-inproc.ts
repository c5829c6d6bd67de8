/**
 * Plans inside one copy of New York at scale, in process and interleaved (`bun
 * bench/scale/plans-inproc.ts --size 6 --queries 200`): the planner timetables of
 * bench/.work/scale-1 and scale-N (made by `npm run bench:scale`) loaded in one process, each with
 * its PlanService; the same OTP1 plans between random subway stops of copy 0 (2026-09-15, 07:00-19:00,
 * maxWalkDistance 2000) asked of both, the order alternating query by query, each timed from the
 * parameters to the rendered JSON. The host's load falls on both alike, so the ratio of the
 * percentiles is what issue 33's "inside one copy at most 1.5x New York" compares. The answers are
 * compared too (their lengths without the ids, which carry the copy's prefix).
 */
import { join, resolve } from "node:path";
import { loadavg } from "node:os";
import { readManifest } from "../../pipeline/schema/manifest.ts";
import { loadTimetableFile } from "../../server/planner/timetable/arrow-loader.ts";
import { PlanService } from "../../server/planner/plan-service.ts";
import { parsePlanParams } from "../../server/planner/plan-params.ts";
import { planResponse } from "../../server/planner/otp1/plan.ts";
import { flag, pct, rng } from "../lib/args.ts";
import { hostProbeMs, machineInfo } from "../lib/machine.ts";

const ROOT = resolve(import.meta.dir, "..", "..");
const SIZE = Number(flag("size", "6"));
const N = Number(flag("queries", "200"));
const WARMUP = 30;

function load(size: number) {
  const dir = join(ROOT, "bench", ".work", `scale-${size}`, "data");
  const m = readManifest(dir);
  if (!m.timetable) throw new Error(`${dir} has no planner timetable: run npm run bench:scale -- --sizes 1,${size} first`);
  const tt = loadTimetableFile(join(dir, m.timetable.path));
  return { tt, svc: new PlanService(tt) };
}

const one = load(1), big = load(SIZE);
const { meta, core } = one.tt;
const subway = meta.feeds.findIndex((f) => f.onestopId.endsWith("~c0~mta~subway"));
const stops: number[] = [];
for (let s = 0; s < core.nStops; s++) if (meta.stopFeed[s] === subway && core.stopRouteStart[s + 1]! > core.stopRouteStart[s]!) stops.push(s);
const rand = rng(9);
const queries = Array.from({ length: N + WARMUP }, () => {
  const a = stops[Math.floor(rand() * stops.length)]!, b = stops[Math.floor(rand() * stops.length)]!;
  const h = 7 + Math.floor(rand() * 12);
  return { fromPlace: `${meta.stopLat[a]},${meta.stopLon[a]}`, toPlace: `${meta.stopLat[b]},${meta.stopLon[b]}`, date: "2026-09-15", time: `${String(h).padStart(2, "0")}:${String(Math.floor(rand() * 60)).padStart(2, "0")}`, maxWalkDistance: "2000" };
});
const load0 = loadavg()[0]!, probe0 = hostProbeMs(), cpu0 = process.cpuUsage();
const ms = { one: [] as number[], big: [] as number[] };
let same = 0;
const idless = (s: string) => s.replace(/"(id|gtfsId|tripId|routeId|agencyId|stopId|agencyName|agencyUrl)":"[^"]*"/g, "").length;
queries.forEach((q, i) => {
  const lens: Record<string, number> = {};
  for (const k of i % 2 ? (["one", "big"] as const) : (["big", "one"] as const)) {
    const t0 = performance.now();
    const body = JSON.stringify(planResponse((k === "one" ? one : big).svc.plan(parsePlanParams(q), Date.UTC(2026, 8, 14))));
    if (i >= WARMUP) ms[k].push(performance.now() - t0);
    lens[k] = idless(body);
  }
  if (i >= WARMUP && lens.one === lens.big) same++;
});
const cpu = process.cpuUsage(cpu0), mi = machineInfo(ROOT);
console.log(`Plans inside copy 0, in process, interleaved: ${N} queries after ${WARMUP} warm-up; 1x ${one.tt.core.nStops} stops vs ${SIZE}x ${big.tt.core.nStops} stops`);
console.log(`${mi.cpuModel}, ${mi.cores} cores, commit ${mi.gitCommit}, ${new Date().toISOString()}; load average ${load0.toFixed(2)} -> ${loadavg()[0]!.toFixed(2)}; host probe ${probe0.toFixed(2)} -> ${hostProbeMs().toFixed(2)} ms; CPU ${(cpu.user / 1e6).toFixed(1)} s user, ${(cpu.system / 1e6).toFixed(1)} s system`);
console.log(`| | 1x p50 / p95 ms | ${SIZE}x p50 / p95 ms | ratio p50 / p95 | same answers (without ids) |`);
console.log(`|---|---|---|---|---|`);
console.log(`| plan (search + OTP1 JSON) | ${pct(ms.one, 50).toFixed(2)} / ${pct(ms.one, 95).toFixed(2)} | ${pct(ms.big, 50).toFixed(2)} / ${pct(ms.big, 95).toFixed(2)} | ${(pct(ms.big, 50) / pct(ms.one, 50)).toFixed(2)} / ${(pct(ms.big, 95) / pct(ms.one, 95)).toFixed(2)} | ${same} / ${N} |`);
