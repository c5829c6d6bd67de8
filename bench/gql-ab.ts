/**
 * Interleaved A/B of two source trees' GraphQL planConnection over HTTP (`bun bench/gql-ab.ts
 * --old DIR [--new DIR]`): each tree's real server (`interchange serve`, its own process) on its
 * own copy of one imported dataset, both asked the same queries, the order of the four requests
 * (old REST plan, old planConnection, new REST plan, new planConnection) rotating query by query,
 * so that the host's load swings fall on all alike. The queries are plan.bench.ts's (same seeds,
 * same request bodies). `--check` first compares the two trees' planConnection answers byte for
 * byte (plan.bench.ts's selection and one with every field of the plan's own types) and stops at
 * the first difference.
 * Flags: --data DIR (the new tree's dataset; default bench/.work/plan-nyc), --data-old DIR (the old
 * tree's copy; default --data), --queries N (default 200), --warmup N (default 100), --rounds N
 * (default 2), --check, --cpu-rounds N (default 2: after the timed rounds, each kind's queries run as
 * one block per server, and the server's CPU time (user + system, /proc) per request is read: on a
 * loaded shared host the CPU a request costs moves much less than its wall-clock time).
 */
import { loadavg } from "node:os";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { readManifest } from "../pipeline/schema/manifest.ts";
import { loadTimetableFile } from "../server/planner/timetable/arrow-loader.ts";
import { localToUnix } from "../server/planner/timetable/calendar.ts";
import type { Timetable } from "../server/planner/timetable/types.ts";
import { flag, hasFlag, pct, rng } from "./lib/args.ts";
import { machineInfo } from "./lib/machine.ts";
import { cpuSec, startServer } from "./lib/server.ts";

const ROOT = resolve(import.meta.dir, "..");
const OLD = resolve(flag("old", ""));
const NEW = resolve(flag("new", ROOT));
const DATA = resolve(flag("data", join(ROOT, "bench", ".work", "plan-nyc")));
const DATA_OLD = resolve(flag("data-old", DATA));
const N = Number(flag("queries", "200"));
const WARMUP = Number(flag("warmup", "100"));
const ROUNDS = Number(flag("rounds", "2"));
const CPU_ROUNDS = Number(flag("cpu-rounds", "2"));
if (!flag("old", "")) throw new Error("--old DIR (the source tree to compare against) is required");

interface Query { o: number; d: number; t: number }

/** plan.bench.ts's queries: random served stop pairs at 06:00-22:00 on the weekday inside the most feeds' windows. */
function queries(tt: Timetable, n: number, seed: number): { qs: Query[]; day: number; tz: string } {
  const rand = rng(seed);
  const { core, meta } = tt;
  const tz = meta.timezones[0]!;
  const nFeeds = meta.feeds.length;
  const inWindow = (f: number, d: number) => d >= meta.feedStartDay[f]! && d <= meta.feedEndDay[f]!;
  let day = meta.feedStartDay[0]!, bestCount = -1;
  for (let d = Math.min(...meta.feedStartDay); d <= Math.max(...meta.feedEndDay); d++) {
    if ((d + 3) % 7 < 1 || (d + 3) % 7 > 3) continue;
    let c = 0;
    for (let f = 0; f < nFeeds; f++) if (inWindow(f, d)) c++;
    if (c > bestCount) [day, bestCount] = [d + 7 <= Math.max(...meta.feedEndDay) && [...Array(nFeeds).keys()].filter((f) => inWindow(f, d + 7)).length === c ? d + 7 : d, c];
  }
  const served: number[] = [];
  for (let s = 0; s < core.nStops; s++) if (core.stopRouteStart[s + 1]! > core.stopRouteStart[s]! && inWindow(meta.stopFeed[s]!, day)) served.push(s);
  const qs: Query[] = [];
  while (qs.length < n) {
    const o = served[Math.floor(rand() * served.length)]!, d = served[Math.floor(rand() * served.length)]!;
    if (o !== d) qs.push({ o, d, t: localToUnix(day, 6 * 3600 + Math.floor(rand() * 16 * 3600), tz) });
  }
  return { qs, day, tz };
}

/** plan.bench.ts's planConnection (what a client like OTP-UI asks for the REST request's itineraries). */
const BENCH_SELECTION = `edges { node { start end duration walkDistance numberOfTransfers legs {
  mode start { scheduledTime estimated { time delay } } end { scheduledTime estimated { time delay } } duration distance realTime transitLeg headsign
  from { name lat lon stop { gtfsId } } to { name lat lon stop { gtfsId } }
  route { gtfsId shortName longName color textColor agency { gtfsId name } } trip { gtfsId } legGeometry { points length } } } }
pageInfo { endCursor hasNextPage searchWindowUsed } routingErrors { code }`;

/** Every field of the plan's own types (test/graphql/plan.test.ts's selection); other types: a few fields each. */
function fullSelection(): string {
  type Json = any;
  const OWN = new Set(["PlanConnection", "PlanEdge", "PlanPageInfo", "RoutingError", "Itinerary", "Leg", "Place", "LegTime", "RealTimeEstimate", "step", "elevationProfileComponent", "Geometry", "FareProductUse", "Money", "Currency", "StopCall", "CallSchedule", "CallRealTime", "EstimatedTime", "Alert", "TranslatedString", "fare", "fareComponent"]);
  const SOME: Record<string, string> = { Stop: "gtfsId name lat lon code platformCode", Route: "gtfsId shortName longName color textColor mode type agency { gtfsId name timezone }", Agency: "gtfsId name url timezone", Trip: "gtfsId tripHeadsign directionId serviceId route { gtfsId } pattern { code }", Stoptime: "scheduledArrival scheduledDeparture serviceDay stopPosition stop { gtfsId }" };
  const types = new Map<string, Json>((JSON.parse(readFileSync(join(ROOT, "node_modules", "core-utils-16", "lib", "otpSchema.json"), "utf8")).data.__schema.types as Json[]).map((t) => [t.name, t]));
  const named = (t: Json): Json => (t.ofType ? named(t.ofType) : t);
  const sel = (type: string): string =>
    (types.get(type)!.fields as Json[])
      .filter((f) => !f.args.some((a: Json) => a.type.kind === "NON_NULL"))
      .map((f) => {
        const t = types.get(named(f.type).name)!;
        if (t.kind === "SCALAR" || t.kind === "ENUM") return f.name;
        if (OWN.has(t.name)) return `${f.name} { ${sel(t.name)} }`;
        return SOME[t.name] ? `${f.name} { __typename ${SOME[t.name]} }` : `${f.name} { __typename }`;
      })
      .join(" ");
  return sel("PlanConnection");
}

const doc = (selection: string) => `query AB($origin: PlanLabeledLocationInput!, $destination: PlanLabeledLocationInput!, $dateTime: PlanDateTimeInput!, $first: Int) {
  planConnection(origin: $origin, destination: $destination, dateTime: $dateTime, first: $first) { ${selection} } }`;

type Kind = "oldRest" | "oldGql" | "newRest" | "newGql";
const KINDS: Kind[] = ["oldRest", "oldGql", "newRest", "newGql"];

const m = readManifest(DATA);
const tt = loadTimetableFile(join(DATA, m.timetable!.path));
const { qs, day, tz } = queries(tt, N, 12345);
const warm = queries(tt, WARMUP, 777).qs;
const iso = new Date(day * 86400_000).toISOString().slice(0, 10);
const { stopLat, stopLon } = tt.meta;
console.error("starting the servers");
const [oldSrv, newSrv] = await Promise.all([startServer(DATA_OLD, OLD), startServer(DATA, NEW)]);
const restUrl = (base: string, q: Query) => `${base}/api/v2/routing/otp/plan?fromPlace=${stopLat[q.o]},${stopLon[q.o]}&toPlace=${stopLat[q.d]},${stopLon[q.d]}&date=${iso}&time=${q.t - localToUnix(day, 0, tz)}`;
const gqlBody = (q: Query, query: string) =>
  JSON.stringify({
    query,
    variables: {
      origin: { location: { coordinate: { latitude: stopLat[q.o], longitude: stopLon[q.o] } } },
      destination: { location: { coordinate: { latitude: stopLat[q.d], longitude: stopLon[q.d] } } },
      dateTime: { earliestDeparture: new Date(q.t * 1000).toISOString().replace(".000Z", "Z") },
      first: 3,
    },
  });
const post = (base: string, body: string) => fetch(`${base}/otp/gtfs/v1`, { method: "POST", headers: { "content-type": "application/json", accept: "application/graphql-response+json" }, body });

try {
  if (hasFlag("check")) {
    let same = 0, its = 0;
    for (const [name, selection] of [["bench", BENCH_SELECTION], ["full", fullSelection()]] as const) {
      const query = doc(selection);
      for (const q of qs) {
        const body = gqlBody(q, query);
        const [a, b] = await Promise.all([post(oldSrv.url, body).then((r) => r.text()), post(newSrv.url, body).then((r) => r.text())]);
        if (a !== b) {
          let i = 0;
          while (a[i] === b[i]) i++;
          console.log(`DIFFERENT (${name} selection, query ${JSON.stringify(q)}) at char ${i}:\nold ${a.slice(Math.max(0, i - 200), i + 200)}\nnew ${b.slice(Math.max(0, i - 200), i + 200)}`);
          process.exit(1);
        }
        if (a.includes('"errors"')) console.log(`errors in the answer (${name}, ${JSON.stringify(q)}): ${a.slice(0, 300)}`);
        its += (a.match(/"node":/g) ?? []).length;
        same++;
      }
    }
    console.log(`identical: ${same} answers (${N} queries × 2 selections), ${its} itineraries`);
  }
  const query = doc(BENCH_SELECTION);
  const run = async (k: Kind, q: Query) => {
    const base = k.startsWith("old") ? oldSrv.url : newSrv.url;
    const s = performance.now();
    const r = k.endsWith("Rest") ? await fetch(restUrl(base, q)) : await post(base, gqlBody(q, query));
    await r.arrayBuffer();
    return performance.now() - s;
  };
  for (const q of warm) for (const k of KINDS) await run(k, q);
  const info = machineInfo(ROOT);
  console.log(`machine: ${info.cpuModel}, ${info.cores} cores, Bun ${info.bun}, new tree at ${info.gitCommit}`);
  console.log(`old ${OLD}, new ${NEW}; ${N} queries, ${WARMUP} warm-up, ${ROUNDS} rounds; ${new Date().toISOString()}`);
  for (let round = 1; round <= ROUNDS; round++) {
    const ms: Record<Kind, number[]> = { oldRest: [], oldGql: [], newRest: [], newGql: [] };
    const load0 = loadavg()[0]!;
    const cpu0 = [cpuSec(oldSrv.pid), cpuSec(newSrv.pid)];
    for (const [i, q] of qs.entries()) for (let j = 0; j < KINDS.length; j++) {
      const k = KINDS[(i + j) % KINDS.length]!;
      ms[k].push(await run(k, q));
    }
    const cpu1 = [cpuSec(oldSrv.pid), cpuSec(newSrv.pid)];
    const p = (k: Kind) => pct(ms[k], 50);
    const perQuery = pct(ms.newGql.map((x, i) => x / ms.oldGql[i]!), 50);
    const cpu = (i: number) => `user ${(cpu1[i]!.user - cpu0[i]!.user).toFixed(1)} s sys ${(cpu1[i]!.sys - cpu0[i]!.sys).toFixed(1)} s`;
    console.log(
      `round ${round} (load ${load0.toFixed(2)} -> ${loadavg()[0]!.toFixed(2)}): p50/p90 ms old REST ${p("oldRest").toFixed(2)}/${pct(ms.oldRest, 90).toFixed(1)} GQL ${p("oldGql").toFixed(2)}/${pct(ms.oldGql, 90).toFixed(1)} (GQL/REST ${(p("oldGql") / p("oldRest")).toFixed(3)}); ` +
        `new REST ${p("newRest").toFixed(2)}/${pct(ms.newRest, 90).toFixed(1)} GQL ${p("newGql").toFixed(2)}/${pct(ms.newGql, 90).toFixed(1)} (GQL/REST ${(p("newGql") / p("newRest")).toFixed(3)}); ` +
        `new/old GQL p50 ${(p("newGql") / p("oldGql")).toFixed(3)}, per-query median ${perQuery.toFixed(3)}; server CPU old ${cpu(0)}, new ${cpu(1)}`,
    );
  }
  // the server CPU per request of each kind: blocks of all queries, the blocks' order rotating per round
  const searchQuery = doc("pageInfo { endCursor } routingErrors { code }");
  const cpuKinds = ["rest", "gql", "search"] as const;
  const cpuMs: Record<string, number[]> = {};
  for (let round = 0; round < CPU_ROUNDS; round++) {
    for (let j = 0; j < 6; j++) {
      const idx = (j + round) % 6;
      const side = idx % 2 === 0 ? "old" : "new", kind = cpuKinds[Math.floor(idx / 2)]!;
      const srv = side === "old" ? oldSrv : newSrv;
      const c0 = cpuSec(srv.pid);
      for (const q of qs) await (await (kind === "rest" ? fetch(restUrl(srv.url, q)) : post(srv.url, gqlBody(q, kind === "gql" ? query : searchQuery)))).arrayBuffer();
      const c1 = cpuSec(srv.pid);
      (cpuMs[`${side} ${kind}`] ??= []).push(((c1.user + c1.sys - c0.user - c0.sys) * 1000) / qs.length);
    }
  }
  if (CPU_ROUNDS > 0) {
    const avg = (k: string) => cpuMs[k]!.reduce((a, b) => a + b, 0) / cpuMs[k]!.length;
    const line = (side: string) => `${side}: REST ${avg(`${side} rest`).toFixed(2)} planConnection ${avg(`${side} gql`).toFixed(2)} page info only ${avg(`${side} search`).toFixed(2)} (planConnection / REST ${(avg(`${side} gql`) / avg(`${side} rest`)).toFixed(3)})`;
    console.log(`server CPU ms per request (user + sys, mean of ${CPU_ROUNDS} blocks of ${qs.length}; load ${loadavg()[0]!.toFixed(2)}): ${line("old")}; ${line("new")}; per-round ${JSON.stringify(Object.fromEntries(Object.entries(cpuMs).map(([k, v]) => [k, v.map((x) => Number(x.toFixed(2)))])))}`);
  }
} finally {
  oldSrv.stop();
  newSrv.stop();
}
