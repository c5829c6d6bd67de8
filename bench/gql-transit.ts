/**
 * One-off measurement for issue 28's GraphQL speed goals on BART + Caltrain, over HTTP to a real
 * server in this process: a stop-by-id query (goal p50 ≤ 1 ms) and a 100-stop stopsByBbox with each
 * stop's routes (goal ≤ 5 ms). Run: bun bench/gql-transit.ts [iterations]. Prints p50/p90/p99 (ms)
 * and the CPU model.
 */
import { readFileSync } from "node:fs";
import { serverConfigFrom } from "../server/config.ts";
import { startServer } from "../server/main.ts";
import { importedDataset } from "../test/support/dataset.ts";

const N = Number(process.argv[2] ?? 2000);
const quiet = { info() {}, warn() {}, error: (m: string, f?: unknown) => console.error(m, f) };
const dataDir = await importedDataset("graphql-bart-caltrain", ["bart", "caltrain"], { timetable: false });
const server = await startServer(serverConfigFrom({ data: dataDir, port: 0, host: "127.0.0.1", noAuth: true }), { log: quiet });

async function post(query: string): Promise<any> {
  const r = await fetch(`${server.url}/otp/gtfs/v1`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query }) });
  return r.json();
}
async function measure(name: string, query: string, check: (d: any) => string) {
  const first = await post(query);
  if (first.errors) throw new Error(JSON.stringify(first.errors));
  for (let i = 0; i < 200; i++) await post(query);
  const ms: number[] = [];
  for (let i = 0; i < N; i++) {
    const t = performance.now();
    await post(query);
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  const q = (p: number) => ms[Math.min(ms.length - 1, Math.floor(p * ms.length))]!.toFixed(3);
  console.log(`${name} (${check(first.data)}): p50 ${q(0.5)} ms, p90 ${q(0.9)} ms, p99 ${q(0.99)} ms over ${N}`);
}

const feeds = (await post(`{ feeds { feedId } }`)).data.feeds.map((f: any) => f.feedId);
const bart = feeds.find((f: string) => /bayarearapidtransit|bart/i.test(f)) ?? feeds[0];
await measure("stop by id", `{ stop(id: "${bart}:EMBR") { gtfsId name lat lon code } }`, (d) => d.stop.gtfsId);
// a box around the Bay with at least 100 stops (BART + Caltrain platforms)
const box = `minLat: 37.2, minLon: -122.6, maxLat: 38.1, maxLon: -121.8`;
await measure("stopsByBbox with routes", `{ stopsByBbox(${box}) { gtfsId name routes { gtfsId shortName longName mode color agency { name } } } }`, (d) => `${d.stopsByBbox.length} stops, ${d.stopsByBbox.reduce((n: number, s: any) => n + s.routes.length, 0)} stop routes`);
console.log(`CPU: ${/model name\s*:\s*(.*)/.exec(readFileSync("/proc/cpuinfo", "utf8"))?.[1] ?? "unknown"}`);
server.stop();
process.exit(0);
