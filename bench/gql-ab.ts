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
import { join, resolve } from "node:path";
import { readManifest } from "../pipeline/schema/manifest.ts";
import { loadTimetableFile } from "../server/planner/timetable/arrow-loader.ts";
import { flag, hasFlag, pct } from "./lib/args.ts";
import { machineInfo } from "./lib/machine.ts";
import { BENCH_SELECTION, doc, fullSelection, type Query, queries, requests, SEARCH_SELECTION } from "./lib/plan-queries.ts";
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

type Kind = "oldRest" | "oldGql" | "newRest" | "newGql";
const KINDS: Kind[] = ["oldRest", "oldGql", "newRest", "newGql"];

const m = readManifest(DATA);
const tt = loadTimetableFile(join(DATA, m.timetable!.path));
const { qs, day, tz } = queries(tt, N, 12345);
const warm = queries(tt, WARMUP, 777).qs;
console.error("starting the servers");
const [oldSrv, newSrv] = await Promise.all([startServer(DATA_OLD, OLD), startServer(DATA, NEW)]);
const { restPath, gqlBody } = requests(tt, day, tz);
const restUrl = (base: string, q: Query) => base + restPath(q);
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
  const searchQuery = doc(SEARCH_SELECTION);
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
