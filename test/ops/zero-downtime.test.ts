/**
 * FEATURE UNDER TEST: zero-downtime updates under load. `wrk` drives catalog, plan and street
 * requests (a Lua script spreads them over the three families, one after the other per connection,
 * each connection pausing between requests: a steady rate) through Debian's nginx with
 * deploy/nginx.conf (as edge.test.ts uses it: only ports and paths changed, and here the
 * per-address rate raised, since the one load generator stands for many clients) to
 * `interchange serve` over BART + downtown San Francisco streets. During the run, the import job
 * activates a new feed version (`import` of BART 2023 under the same feed id), a new street dataset
 * (`import --osm` of the downtown extract merged with Monaco) and a new realtime snapshot
 * (`import-rt`): wrk counts no socket error and no answer outside 2xx/3xx, and the server serves
 * each new item before the run ends. Figures (BENCHMARKS.md "Zero-downtime updates") are printed.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readManifest } from "../../pipeline/schema/manifest.ts";
import { osm, gtfs, tempDir } from "../support/dataset.ts";
import { edgeConfig, freePort, requireBinary } from "../support/services.ts";
import { alertEntity, encodeFeed, pbFile } from "../realtime/support.ts";
import { BIN, CIVIC_CENTER, EMBARCADERO, type ChildServer, opsDataset, serveChild, until } from "./support.ts";

// long enough that the three switches (each an import, the streets one with its tile build) end under load on a 2-core host: 23-26 s there
/** wrk runs until the three switches are done (then 2 s more), at most this long */
const LOAD_S = 140;


/** The wrk script: catalog, plan, street in turn; `pauseMs` between a connection's requests; a JSON summary line. */
function wrkScript(pauseMs: number): string {
  const catalog = "/api/v2/rest/stops?limit=20";
  const plan = `/api/v2/routing/otp/plan?fromPlace=${CIVIC_CENTER.lat},${CIVIC_CENTER.lon}&toPlace=${EMBARCADERO.lat},${EMBARCADERO.lon}&date=2019-06-05&time=08:30:00&mode=TRANSIT,WALK`;
  const street = JSON.stringify({ locations: [CIVIC_CENTER, EMBARCADERO], costing: "pedestrian" });
  return `
local n = 0
request = function()
  n = n + 1
  local k = n % 3
  if k == 0 then return wrk.format("GET", "${catalog}")
  elseif k == 1 then return wrk.format("GET", "${plan}")
  else return wrk.format("POST", "/api/v2/routing/valhalla/route", { ["Content-Type"] = "application/json" }, '${street}') end
end
delay = function() return ${pauseMs} end
-- answers by status outside 2xx/3xx, per thread, summed in done (names what wrk counts as "status")
local threads = {}
setup = function(thread) table.insert(threads, thread) end
bad = {}
response = function(status, headers, body)
  if status >= 400 then bad[status] = (bad[status] or 0) + 1 end
end
done = function(s, latency, requests)
  local sums = {}
  for _, t in ipairs(threads) do
    for code, k in pairs(t:get("bad")) do sums[code] = (sums[code] or 0) + k end
  end
  local parts = {}
  for code, k in pairs(sums) do table.insert(parts, string.format('"%d":%d', code, k)) end
  io.write('STATUSES {' .. table.concat(parts, ",") .. '}\\n')
  io.write(string.format('RESULT {"requests":%d,"duration_us":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,"p50_us":%d,"p90_us":%d,"p99_us":%d,"max_us":%d}\\n',
    s.requests, s.duration, s.errors.connect, s.errors.read, s.errors.write, s.errors.status, s.errors.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max))
end
`;
}

async function cli(args: string[]): Promise<number> {
  const p = Bun.spawn([process.execPath, BIN, ...args], { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  if (code !== 0) throw new Error(`interchange ${args.join(" ")} exited ${code}: ${out}${err}`);
  return code;
}


describe("updates under wrk load through the nginx edge", () => {
  let data: string;
  let server: ChildServer;
  let nginx: ReturnType<typeof Bun.spawn>;
  let edge: string;
  let dir: string;

  beforeAll(async () => {
    const bin = requireBinary("/usr/sbin/nginx", "nginx");
    requireBinary("/usr/bin/wrk", "wrk");
    data = await opsDataset();
    // a street call may wait up to 9 s for an engine slot (under wrk's 10 s time-out) instead of the
    // default 2 s: on a 2-core host the tile build of the street switch, and in CI the other test
    // process's headless browser, can hold the one gateway slot's calls for seconds, and the 503
    // that load shedding then answers (tested in test/street) is not what this test measures
    server = await serveChild(["--data", data, "--no-auth", "--engine-wait-ms", "9000"]);
    dir = tempDir("interchange-nginx-load-");
    chmodSync(dir, 0o777); // nginx's workers run as nobody
    const port = await freePort();
    writeFileSync(join(dir, "nginx.conf"), edgeConfig(dir, port, Number(new URL(server.url).port), [["rate=20r/s", "rate=10000r/s"]]) /* the per-address rate raised: one load generator */);
    mkdirSync(join(dir, "conf"), { recursive: true });
    nginx = Bun.spawn([bin, "-c", join(dir, "nginx.conf"), "-p", dir, "-g", "daemon off;"], { stdout: "ignore", stderr: "pipe" });
    edge = `http://127.0.0.1:${port}`;
    await until("nginx answers", async () => fetch(`${edge}/health`).then((r) => r.ok).catch(() => false), 10_000);
  });
  afterAll(async () => {
    nginx?.kill("SIGQUIT");
    await nginx?.exited;
    await server?.stop();
  });

  test(`a new feed version, street dataset and realtime snapshot under load (wrk until they are done): 0 failed requests`, async () => {
    const health = async () => (await (await fetch(`${server.url}/health`)).json()) as any;
    const feed = readManifest(data).feeds[0]!.onestop_id;
    const h0 = await health();
    const street0 = h0.features.street.street_dataset?.sha1;
    expect(street0).toBeTruthy();
    expect(h0.features.planner.loaded).toBe(true);
    // the three families answer 200 before the run (wrk counts anything else as an error)
    const script = join(dir, "mix.lua");
    writeFileSync(script, wrkScript(100));
    const alerts = pbFile(encodeFeed(Math.floor(Date.now() / 1000) + 5, [alertEntity("load", [{ agencyId: "BART" }])]), "alerts.pb");

    const cmd = ["/usr/bin/wrk", "-t2", "-c8", `-d${LOAD_S}s`, "--timeout", "10s", "--latency", "-s", script, edge];
    const wrk = Bun.spawn(cmd, { stdout: "pipe", stderr: "pipe" });
    const output = new Response(wrk.stdout).text();
    const t0 = Date.now();
    await Bun.sleep(3000);
    const at: Record<string, number> = {};
    // 1. a new feed version (the nightly job's import; the timetable is compiled with it)
    await cli(["import", "--quiet", "--data", data, "--feed-id", feed, gtfs("bart-2023")]);
    const gen = readManifest(data).generation;
    await until("catalog on the new generation", async () => (await health()).features.catalog.generation >= gen);
    at.feed = Date.now() - t0;
    // 2. a new street dataset
    await cli(["import", "--quiet", "--data", data, "--osm", osm("sf-downtown"), osm("monaco")]);
    await until("the new street dataset", async () => {
      const s = (await health()).features.street.street_dataset?.sha1;
      return !!s && s !== street0;
    });
    at.streets = Date.now() - t0;
    // 3. a new realtime snapshot
    await cli(["import-rt", "--data", data, "--feed-id", feed, alerts]);
    await until("the realtime snapshot served", async () => (await health()).features.realtime.feeds?.[feed]?.alerts?.serving === true);
    at.realtime = Date.now() - t0;
    expect(at.realtime).toBeLessThan((LOAD_S - 2) * 1000); // every switch happened under load
    // the load goes on 2 s past the last switch, then wrk is stopped (SIGINT: it reports as at its end);
    // the load lasts as long as the switches take on this machine, rather than a fixed time they must fit in
    await Bun.sleep(2000);
    wrk.kill("SIGINT");

    const code = await wrk.exited;
    const text = await output;
    const stderr = await new Response(wrk.stderr).text();
    expect(code).toBe(0);
    const line = text.split("\n").find((l) => l.startsWith("RESULT "));
    if (!line) throw new Error(`no wrk summary: ${text}${stderr}`);
    const r = JSON.parse(line.slice(7)) as Record<string, number>;
    const statuses = JSON.parse(text.split("\n").find((l) => l.startsWith("STATUSES "))?.slice(9) ?? "{}") as Record<string, number>;
    // the server's own log lines of the answers outside 2xx/3xx (path, status, what it said): why, when there are any
    const refused = server.lines.filter((l) => /"status":[45]\d\d/.test(l) || /"level":"(warn|error)"/.test(l)).slice(0, 20);
    const rate = r.requests! / (r.duration_us! / 1e6);
    console.log(
      `zero-downtime: ${cmd.join(" ")}\n  ${r.requests} requests in ${(r.duration_us! / 1e6).toFixed(1)} s = ${rate.toFixed(1)} req/s; latency p50 ${(r.p50_us! / 1000).toFixed(1)} ms, p90 ${(r.p90_us! / 1000).toFixed(1)} ms, p99 ${(r.p99_us! / 1000).toFixed(1)} ms, max ${(r.max_us! / 1000).toFixed(1)} ms; errors: connect ${r.connect} read ${r.read} write ${r.write} timeout ${r.timeout} non-2xx/3xx ${r.status} ${JSON.stringify(statuses)}\n  switches (ms after the load started): feed version ${at.feed}, street dataset ${at.streets}, realtime ${at.realtime}`,
    );
    expect(r.requests).toBeGreaterThan((r.duration_us! / 1e6) * 10); // load there was (about 60/s on a quiet host)
    if (r.status! > 0) console.log(`answers outside 2xx/3xx by status: ${JSON.stringify(statuses)}; the server's warnings and refusals:\n  ${refused.join("\n  ")}`);
    expect({ connect: r.connect, read: r.read, write: r.write, timeout: r.timeout, status: r.status, statuses }).toEqual({ connect: 0, read: 0, write: 0, timeout: 0, status: 0, statuses: {} });
    expect(server.exited()).toBeNull();
    const h1 = await health();
    expect(h1.features.planner.loaded).toBe(true);
    expect(h1.features.street.street_dataset.sha1).not.toBe(street0);
  }, 240_000);
});
