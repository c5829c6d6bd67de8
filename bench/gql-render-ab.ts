/**
 * In-process A/B of what two source trees spend around the plan search (`bun
 * bench/gql-render-ab.ts --old DIR [--new DIR]`): both trees' real servers run in this process
 * (server/main.ts startServer, each on its own copy of one dataset), each tree's StreetPlanner.plan
 * memoized (every query is searched once per server, before the timed rounds), so the requests
 * timed are the REST plan's rendering, GraphQL's execution of planConnection and HTTP, without the
 * search's 10-50 ms and its noise. Kinds, interleaved query by query (order rotating): REST plan,
 * planConnection (plan.bench.ts's selection), the same planConnection asking only for its page info;
 * "render" = planConnection - page info only, per query. Before timing, both trees' answers are
 * compared byte for byte (plan.bench.ts's selection, every field of the plan's types, page info).
 * Flags: --data DIR (the new tree's dataset; default bench/.work/plan-nyc), --data-old DIR (default
 * --data), --queries N (default 200), --rounds N (default 5).
 */
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import { readManifest } from "../pipeline/schema/manifest.ts";
import { loadTimetableFile } from "../server/planner/timetable/arrow-loader.ts";
import { flag } from "./lib/args.ts";
import { BENCH_SELECTION, doc, fullSelection, queries, requests, SEARCH_SELECTION } from "./lib/plan-queries.ts";

const ROOT = resolve(import.meta.dir, "..");
const OLD = resolve(flag("old", ""));
const NEW = resolve(flag("new", ROOT));
const DATA = resolve(flag("data", join(ROOT, "bench", ".work", "plan-nyc")));
const DATA_OLD = resolve(flag("data-old", DATA));
const N = Number(flag("queries", "200"));
const ROUNDS = Number(flag("rounds", "5"));
if (!flag("old", "")) throw new Error("--old DIR (the source tree to compare against) is required");

/** A tree's server in this process, its searches memoized. */
async function start(root: string, data: string): Promise<{ url: string; stop(): Promise<void> }> {
  const { serverConfigFrom } = await import(join(root, "server/config.ts"));
  const { startServer } = await import(join(root, "server/main.ts"));
  const { StreetPlanner } = await import(join(root, "server/planner/street-legs.ts"));
  const search = StreetPlanner.prototype.plan;
  const memo = new Map<string, unknown>();
  StreetPlanner.prototype.plan = function (p: unknown, now: number) {
    const k = JSON.stringify(p);
    let v = memo.get(k);
    if (!v) memo.set(k, (v = search.call(this, p, now)));
    return v;
  };
  return startServer(serverConfigFrom({ data, port: "0", host: "127.0.0.1", noAuth: true, logLevel: "error", requestLog: "off" }));
}

const m = readManifest(DATA);
const tt = loadTimetableFile(join(DATA, m.timetable!.path));
const { qs, day, tz } = queries(tt, N, 12345);
const { restPath, gqlBody } = requests(tt, day, tz);
const A = await start(OLD, DATA_OLD);
const B = await start(NEW, DATA);
const bodies = { gql: qs.map((q) => gqlBody(q, doc(BENCH_SELECTION))), search: qs.map((q) => gqlBody(q, doc(SEARCH_SELECTION))), full: qs.map((q) => gqlBody(q, doc(fullSelection()))) };
const post = (url: string, b: string) => fetch(`${url}/otp/gtfs/v1`, { method: "POST", headers: { "content-type": "application/json" }, body: b });
const kinds: Record<string, (i: number) => Promise<Response>> = {
  "old gql": (i) => post(A.url, bodies.gql[i]!),
  "new gql": (i) => post(B.url, bodies.gql[i]!),
  "old search": (i) => post(A.url, bodies.search[i]!),
  "new search": (i) => post(B.url, bodies.search[i]!),
  "old rest": (i) => fetch(A.url + restPath(qs[i]!)),
  "new rest": (i) => fetch(B.url + restPath(qs[i]!)),
};
const names = Object.keys(kinds);
try {
  let same = 0;
  for (let i = 0; i < N; i++) {
    for (const list of [bodies.gql, bodies.full, bodies.search]) {
      const [a, b] = await Promise.all([post(A.url, list[i]!).then((r) => r.text()), post(B.url, list[i]!).then((r) => r.text())]);
      if (a !== b) throw new Error(`the answers differ (query ${i}):\nold ${a.slice(0, 400)}\nnew ${b.slice(0, 400)}`);
      same++;
    }
    await (await kinds["old rest"]!(i)).arrayBuffer();
    await (await kinds["new rest"]!(i)).arrayBuffer();
  }
  console.log(`identical: ${same} planConnection answers (${N} queries × 3 selections); ${new Date().toISOString()}`);
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
  for (let r = 1; r <= ROUNDS; r++) {
    const ms: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
    const load = loadavg()[0]!;
    for (let i = 0; i < N; i++) {
      for (let j = 0; j < names.length; j++) {
        const k = names[(i + j) % names.length]!;
        const s = performance.now();
        await (await kinds[k]!(i)).arrayBuffer();
        ms[k]!.push(performance.now() - s);
      }
    }
    const render = (side: string) => med(ms[`${side} gql`]!.map((x, i) => x - ms[`${side} search`]![i]!));
    const ratio = (a: string, b: string) => med(ms[a]!.map((x, i) => x / ms[b]![i]!));
    console.log(
      `round ${r} (load ${load.toFixed(2)}): p50 ms ${names.map((n) => `${n} ${med(ms[n]!).toFixed(3)}`).join(", ")}; render (gql - page info, per query) old ${render("old").toFixed(3)} new ${render("new").toFixed(3)}; ` +
        `per-query medians new/old: gql ${ratio("new gql", "old gql").toFixed(3)}, page info ${ratio("new search", "old search").toFixed(3)}, rest ${ratio("new rest", "old rest").toFixed(3)}`,
    );
  }
} finally {
  await A.stop();
  await B.stop();
}
process.exit(0);
