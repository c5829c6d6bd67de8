import { join } from "node:path";
import { readManifest } from "./pipeline/schema/manifest.ts";
import { loadTimetableFile } from "./server/planner/timetable/arrow-loader.ts";
import { PlanService } from "./server/planner/plan-service.ts";
import { searchJourneys } from "./server/planner/raptor/index.ts";
import { DEFAULT_RAPTOR_CONFIG } from "./server/planner/api.ts";
import { buildServiceDays, localToUnix } from "./server/planner/timetable/calendar.ts";
import { rng } from "./bench/lib/args.ts";
const DATA = process.argv[2]!;
const m = readManifest(DATA);
let t = performance.now();
const tt = loadTimetableFile(join(DATA, m.timetable!.path));
console.log("load", (performance.now() - t).toFixed(0), "ms; stops", tt.core.nStops, "routes", tt.core.nRoutes, "trips", tt.core.nTrips);
const svc = new PlanService(tt);
const { meta, core } = tt;
// copy 0 subway stops: feed whose onestop/name ... find feeds list
const feedIdx = meta.feeds.findIndex((f: any) => JSON.stringify(f).includes("subway") && (JSON.stringify(f).includes("c0-") || !JSON.stringify(f).includes("-c")));
console.log("feeds", meta.feeds.length, "copy0 subway feed", feedIdx, JSON.stringify(meta.feeds[feedIdx]).slice(0, 200));
const stops: number[] = [];
for (let s = 0; s < core.nStops; s++) if (meta.stopFeed[s] === feedIdx && core.stopRouteStart[s + 1]! > core.stopRouteStart[s]!) stops.push(s);
stops.sort((a, b) => (meta.stopId[a]! < meta.stopId[b]! ? -1 : 1));
console.log("copy0 subway served stops", stops.length, meta.stopId[stops[0]!]);
const rand = rng(7);
const day = Math.floor(Date.UTC(2026, 8, 15) / 86400000);
const tz = meta.timezones[0]!;
const qs = Array.from({ length: 60 }, () => ({ o: stops[Math.floor(rand() * stops.length)]!, d: stops[Math.floor(rand() * stops.length)]!, t: localToUnix(day, (7 + Math.floor(rand() * 12)) * 3600 + Math.floor(rand() * 60) * 60, tz) }));
const run = (q: any) => {
  const epoch = q.t - 2 * 86400;
  const access = svc.walkStops(meta.stopLat[q.o]!, meta.stopLon[q.o]!, 2000, 1.33, false);
  const egress = svc.walkStops(meta.stopLat[q.d]!, meta.stopLon[q.d]!, 2000, 1.33, false);
  const t0 = performance.now();
  const days = buildServiceDays(tt, epoch, q.t);
  const t1 = performance.now();
  const res = searchJourneys(svc.prepared, { epochSec: epoch, timeSec: q.t - epoch, arriveBy: false, windowSec: 3600, horizonSec: 86400, access, egress, maxTransfers: 5, walkSpeed: 1.33, days, wheelchair: false, keepEarliest: 3 }, svc.pool, DEFAULT_RAPTOR_CONFIG);
  return { days: t1 - t0, search: performance.now() - t1, stats: res.stats, n: res.journeys.length };
};
for (const q of qs.slice(0, 10)) run(q);
const out = qs.map(run);
const med = (xs: number[]) => xs.sort((a, b) => a - b)[xs.length >> 1]!;
console.log("days p50", med(out.map((o) => o.days)).toFixed(2), "search p50", med(out.map((o) => o.search)).toFixed(2));
const sum = (k: string) => out.reduce((s, o: any) => s + (o.stats[k] ?? 0), 0) / out.length;
console.log("stats avg", Object.keys(out[0]!.stats).map((k) => `${k}=${sum(k).toFixed(0)}`).join(" "));
import { parsePlanParams } from "./server/planner/plan-params.ts";
import { planResponse } from "./server/planner/otp1/plan.ts";
const r2 = rng(9);
const pq = Array.from({ length: 60 }, () => {
  const a = stops[Math.floor(r2() * stops.length)]!, b = stops[Math.floor(r2() * stops.length)]!;
  const h = 7 + Math.floor(r2() * 12);
  return { fromPlace: `${meta.stopLat[a]},${meta.stopLon[a]}`, toPlace: `${meta.stopLat[b]},${meta.stopLon[b]}`, date: "2026-09-15", time: `${String(h).padStart(2, "0")}:${String(Math.floor(r2() * 60)).padStart(2, "0")}`, maxWalkDistance: "2000" };
});
const full: number[] = [], ren: number[] = [];
for (const [i, q] of pq.entries()) {
  const t0 = performance.now();
  const res = svc.plan(parsePlanParams(q), Date.now());
  const t1 = performance.now();
  JSON.stringify(planResponse(res));
  if (i >= 10) { full.push(t1 - t0); ren.push(performance.now() - t1); }
}
console.log("full plan p50", med(full).toFixed(2), "render p50", med(ren).toFixed(2));
