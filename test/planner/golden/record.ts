/**
 * Records the golden plan answers (`npx bun test/planner/golden/record.ts [dataset ...]`): for each
 * dataset of datasets.ts, a seeded set of OTP1 plan requests (random places near served stops at
 * random times, with arriveBy, numItineraries, intermediate stops, walk limits and speeds,
 * wheelchair, optimize, modes, windows, realtime options, and every OTP error: OUTSIDE_BOUNDS,
 * TOO_CLOSE, NO_TRANSIT_TIMES, PATH_NOT_FOUND, BOGUS_PARAMETER 400s, GRAPH_UNAVAILABLE), sent to the
 * real server, stored as `<dataset>.json.gz` beside this file (query, status, headers, exact body).
 * Re-record only on purpose: the golden test asserts the answers stay byte-identical.
 */
import { writeFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { removeTempDirs } from "../../support/dataset.ts";
import type { Timetable } from "../../../server/planner/timetable/types.ts";
import { ask, DATASETS, goldenPath, sha1Of, type GoldenAnswer, type GoldenFile } from "./datasets.ts";

function rng(seed: number) {
  return () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
}

interface Area {
  /** a local date of the feeds' service */
  date: string;
  /** the feeds whose stops the places are near (onestop id contains one of these), all when empty */
  feeds: string[];
}

interface Plan {
  n: number;
  areas: Area[];
  modes: string[];
  realtime?: boolean;
}

const PLANS: Record<string, Plan> = {
  "bart-caltrain": { n: 220, areas: [{ date: "2023-06-07", feeds: ["bayarearapidtransit"] }, { date: "2023-10-11", feeds: ["caltrain"] }], modes: ["WALK", "TRANSIT,WALK", "BUS,WALK", "RAIL,WALK", "SUBWAY,WALK"] },
  "rnv-streets": { n: 170, areas: [{ date: "2016-11-16", feeds: [] }, { date: "2016-11-19", feeds: [] }], modes: ["WALK", "TRANSIT,WALK", "BICYCLE,TRANSIT", "BICYCLE", "CAR", "TRAM,WALK", "BUS,WALK"] },
  "nyc-subway": { n: 130, areas: [{ date: "2026-06-10", feeds: [] }], modes: ["WALK", "TRANSIT,WALK", "SUBWAY,WALK"] },
  "bart-realtime": { n: 90, areas: [{ date: "2019-08-07", feeds: [] }], modes: ["WALK", "TRANSIT,WALK"], realtime: true },
};

const fmtTime = (sec: number) => {
  const h = Math.floor(sec / 3600), m = Math.floor((sec % 3600) / 60);
  return h === 0 ? `12:${String(m).padStart(2, "0")}am` : h < 12 ? `${h}:${String(m).padStart(2, "0")}am` : h === 12 ? `12:${String(m).padStart(2, "0")}pm` : `${h - 12}:${String(m).padStart(2, "0")}pm`;
};

/** The seeded requests of a dataset over its timetable. */
function queries(name: string, tt: Timetable): string[] {
  const plan = PLANS[name]!;
  const rand = rng(name.length * 7919 + 32);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
  const m = tt.meta;
  const servedOf = (feeds: string[]) => {
    const out: number[] = [];
    for (let s = 0; s < tt.core.nStops; s++) {
      if (tt.core.stopRouteStart[s + 1]! === tt.core.stopRouteStart[s]!) continue;
      const id = m.feeds[m.stopFeed[s]!]?.onestopId ?? "";
      if (feeds.length === 0 || feeds.some((f) => id.includes(f))) out.push(s);
    }
    if (out.length === 0) throw new Error(`${name}: no served stops of ${feeds.join(",")}`);
    return out;
  };
  const served = plan.areas.map((a) => servedOf(a.feeds));
  const near = (s: number, spread: number) => `${(m.stopLat[s]! + (rand() - 0.5) * spread).toFixed(5)},${(m.stopLon[s]! + (rand() - 0.5) * spread * 1.4).toFixed(5)}`;
  const out: string[] = [];
  for (let i = 0; i < plan.n; i++) {
    const a = Math.floor(rand() * plan.areas.length);
    const area = plan.areas[a]!, stops = served[a]!;
    const from = pick(stops);
    // one in ten: two places near each other (walking may beat the rides)
    const close = rand() < 0.1;
    const to = close ? from : pick(stops);
    const q: Record<string, string> = { fromPlace: near(from, 0.007), toPlace: close ? near(to, 0.012) : near(to, 0.007), date: area.date };
    const late = rand() < 0.12;
    const sec = late ? Math.floor(rand() * 4 * 3600) + 22 * 3600 : 5 * 3600 + Math.floor(rand() * 17 * 3600);
    q.time = fmtTime(sec % 86400);
    if (rand() < 0.3) q.arriveBy = "true";
    if (rand() < 0.5) q.numItineraries = String(1 + Math.floor(rand() * 5));
    if (rand() < 0.3) q.showIntermediateStops = "true";
    if (rand() < 0.2) q.maxWalkDistance = pick(["400", "800", "3000"]);
    if (rand() < 0.1) q.walkSpeed = pick(["0.9", "2"]);
    if (rand() < 0.08) q.wheelchair = "true";
    if (rand() < 0.08) q.optimize = "TRANSFERS";
    if (rand() < 0.2) q.mode = pick(plan.modes);
    if (rand() < 0.1) q.searchWindow = pick(["1800", "7200"]);
    if (rand() < 0.05) q.maxTransfers = pick(["0", "1"]);
    if (plan.realtime) {
      if (rand() < 0.2) q.ignoreRealtimeUpdates = "true";
      if (rand() < 0.2) q.disableAlertFiltering = "true";
      if (rand() < 0.1) q.locale = "es";
    }
    out.push(new URLSearchParams(q).toString());
  }
  // fixed cases: every OTP error, parameter forms, clamps and notes
  const area = plan.areas[0]!, stops = served[0]!;
  const s0 = stops[0]!, s1 = stops[Math.floor(stops.length / 2)]!, s2 = stops[stops.length - 1]!;
  const A = `${m.stopLat[s0]!.toFixed(5)},${m.stopLon[s0]!.toFixed(5)}`;
  const B = `${m.stopLat[s1]!.toFixed(5)},${m.stopLon[s1]!.toFixed(5)}`;
  const C = `${m.stopLat[s2]!.toFixed(5)},${m.stopLon[s2]!.toFixed(5)}`;
  const base = { fromPlace: A, toPlace: B, date: area.date, time: "9:30am" };
  const fixed: Record<string, string>[] = [
    base,
    { ...base, fromPlace: `Home::${A}`, toPlace: `Work::${B}` },
    { ...base, arriveBy: "true" },
    { ...base, toPlace: C, numItineraries: "5", showIntermediateStops: "true" },
    { fromPlace: A, toPlace: B }, // no date, no time: the server's clock
    { fromPlace: A, toPlace: B, date: area.date }, // no time
    { ...base, toPlace: "0,0" }, // OUTSIDE_BOUNDS
    { ...base, fromPlace: "0,0", toPlace: "1,1" },
    { ...base, toPlace: A }, // TOO_CLOSE
    { ...base, date: "2001-01-01" }, // NO_TRANSIT_TIMES
    { ...base, date: "2040-06-06", arriveBy: "true" },
    { ...base, toPlace: C, mode: "WALK" }, // walking beyond its cap: PATH_NOT_FOUND (or a walk when near)
    { ...base, toPlace: C, maxWalkDistance: "1", time: "3:00am", maxHours: "0.5" },
    { ...base, time: "noonish" }, // BOGUS_PARAMETER
    { ...base, fromPlace: "abc" },
    { ...base, numItineraries: "x" },
    { toPlace: B, date: area.date },
    { ...base, date: "2023-13-45" },
    { ...base, walkSpeed: "-1" },
    { ...base, mode: "FOO" },
    { ...base, arriveBy: "maybe" },
    { ...base, maxWalkDistance: "20000", numItineraries: "50" }, // clamped: the warning header
    { ...base, bannedRoutes: "nosuchfeed:nosuchroute" }, // an unknown id: a note
    { ...base, apikey: "secret", locale: "de" },
    { ...base, includeEarliestArrivals: "true", numItineraries: "1" },
    { ...base, mode: "CAR" }, // without streets a 400; with streets a drive
    { ...base, mode: "BICYCLE,TRANSIT" },
    { ...base, optimize: "TRANSFERS", walkReluctance: "4" },
    { ...base, searchWindow: "0", numItineraries: "6" },
    { ...base, time: "11:30pm", numItineraries: "4" },
  ];
  for (const q of fixed) out.push(new URLSearchParams(q).toString());
  return out;
}

/** Requests to a server without a timetable: GRAPH_UNAVAILABLE before the parameters are read. */
const UNAVAILABLE = [
  "fromPlace=37.8,-122.4&toPlace=37.7,-122.4&date=2023-06-07&time=9:30am",
  "fromPlace=abc&toPlace=37.7,-122.4",
  "time=noonish",
  "",
];

const only = process.argv.slice(2);
for (const d of DATASETS) {
  if (only.length && !only.includes(d.name)) continue;
  const t0 = performance.now();
  const { server, tt } = await d.start();
  try {
    const qs = tt ? queries(d.name, tt) : UNAVAILABLE;
    const answers: GoldenAnswer[] = [];
    for (const q of qs) answers.push(await ask(server, q));
    const file: GoldenFile = { dataset: d.name, inputSha1: d.extraInput ? sha1Of(d.extraInput) : null, answers };
    const gz = gzipSync(JSON.stringify(file), { level: 9 });
    writeFileSync(goldenPath(d.name), gz);
    const byStatus = new Map<string, number>();
    for (const a of answers) {
      const err = /"error":\{"id":\d+,"msg":"[^"]*","message":"(\w+)"/.exec(a.body)?.[1] ?? (a.body.includes('"plan"') ? "plan" : "?");
      const k = `${a.status} ${err}`;
      byStatus.set(k, (byStatus.get(k) ?? 0) + 1);
    }
    console.log(`${d.name}: ${answers.length} answers, ${(gz.length / 1024).toFixed(0)} KiB gz, ${((performance.now() - t0) / 1000).toFixed(1)} s; ${[...byStatus].map(([k, v]) => `${k}: ${v}`).join(", ")}`);
  } finally {
    await server.stop();
  }
}
removeTempDirs();
