/**
 * FEATURE UNDER TEST: `interchange serve --workers N` (server/workers.ts): N processes answer on
 * one port (SO_REUSEPORT), /health names the one that answered; a worker killed with SIGKILL is
 * replaced within seconds while requests keep being answered; SIGTERM to the supervisor stops
 * every process; each worker serves its metrics on metrics-port + index; with Redis, two workers
 * hold an account to its rate_limit_per_minute in total; behind nginx (deploy/nginx.conf, its
 * upstream on the workers' own ports, --worker-port) both workers serve requests.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { serverConfigFrom } from "../../server/config.ts";
import { importedDataset, tempDir } from "../support/dataset.ts";
import { edgeConfig, freePort, freePortRun, type RedisServer, requireBinary, startRedis } from "../support/services.ts";
import { type ChildServer, processAlive, serveChild, until } from "./support.ts";

interface Health {
  status: string;
  worker: { index: number; pid: number };
}


/** GET, retried once on a connection error (a connection the kernel had queued on a killed worker is reset). */
async function get(url: string, init?: RequestInit): Promise<Response> {
  try {
    return await fetch(url, { ...init, keepalive: false, headers: { ...init?.headers, connection: "close" } });
  } catch {
    return fetch(url, { ...init, keepalive: false, headers: { ...init?.headers, connection: "close" } });
  }
}

/**
 * The pids seen answering /health until `n` distinct ones have (new connections each time); with
 * API keys, /health shows the worker only to a request with a key.
 */
async function workerPids(url: string, n: number, ms = 15_000, key?: string): Promise<Map<number, number>> {
  const seen = new Map<number, number>(); // pid -> index
  const until = Date.now() + ms;
  while (seen.size < n && Date.now() < until) {
    const h = (await (await get(`${url}/health`, key ? { headers: { apikey: key } } : undefined)).json()) as Health;
    expect(h.status).toBe("ok");
    seen.set(h.worker.pid, h.worker.index);
  }
  return seen;
}

describe("serve --workers 2", () => {
  let data: string;
  let server: ChildServer;
  let metricsPort: number;
  const pidsOfLog = () =>
    server.lines.flatMap((l) => {
      try {
        const o = JSON.parse(l) as { msg?: string; pid?: number; worker?: number };
        return o.msg === "listening" && typeof o.pid === "number" ? [{ pid: o.pid, worker: o.worker }] : [];
      } catch {
        return [];
      }
    });

  beforeAll(async () => {
    data = await importedDataset("workers-bart", ["bart"]);
    metricsPort = await freePortRun(2); // worker i on metricsPort + i
    server = await serveChild(["--data", data, "--no-auth", "--workers", "2", "--metrics-port", String(metricsPort)]);
  });
  afterAll(async () => {
    await server?.stop();
  });

  test("two processes answer on one port, each names itself in /health and in its log lines", async () => {
    const seen = await workerPids(server.url, 2);
    expect(seen.size).toBe(2);
    expect([...seen.values()].sort()).toEqual([0, 1]);
    for (const pid of seen.keys()) expect(pid).not.toBe(server.pid); // the supervisor serves nothing
    const logged = pidsOfLog();
    expect(logged.map((l) => l.worker).sort()).toEqual([0, 1]);
    // request lines carry the worker too (written in batches a few milliseconds after the answers)
    for (let waited = 0; !server.lines.some((l) => l.includes('"msg":"request"')) && waited < 5000; waited += 20) await Bun.sleep(20);
    const request = server.lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((o) => o.msg === "request");
    expect(request).toMatchObject({ path: "/health" });
    expect(typeof request!.worker).toBe("number");
    expect(typeof request!.pid).toBe("number");
  });

  test("each worker serves its own metrics on metrics-port + index", async () => {
    for (const i of [0, 1]) {
      const text = await (await fetch(`http://127.0.0.1:${metricsPort + i}/metrics`)).text();
      expect(text).toContain("interchange_http_requests_total");
      expect(text).toContain("process_resident_memory_bytes");
    }
  });

  test("a worker killed with SIGKILL is replaced; requests keep being answered meanwhile", async () => {
    const before = await workerPids(server.url, 2);
    const [victim, index] = [...before.entries()][0]!;
    process.kill(victim, "SIGKILL");
    const t0 = Date.now();
    let replacement: number | null = null;
    let answered = 0;
    while (Date.now() - t0 < 10_000 && replacement === null) {
      const r = await get(`${server.url}/api/v2/rest/stops?limit=1`);
      expect(r.status).toBe(200);
      await r.arrayBuffer();
      answered++;
      const h = (await (await get(`${server.url}/health`)).json()) as Health;
      if (h.worker.index === index && h.worker.pid !== victim) replacement = h.worker.pid;
    }
    expect(replacement).not.toBeNull();
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(answered).toBeGreaterThan(0);
    expect(processAlive(victim)).toBe(false);
    expect(server.lines.some((l) => l.includes('"msg":"worker exited; restarting it"'))).toBe(true);
    expect((await workerPids(server.url, 2)).size).toBe(2);
  });

  test("SIGTERM to the supervisor stops every worker, and it exits 0", async () => {
    const pids = [...(await workerPids(server.url, 2)).keys()];
    await server.stop();
    expect(server.exited()).toBe(0);
    const until = Date.now() + 5000;
    while (pids.some(processAlive) && Date.now() < until) await Bun.sleep(50);
    expect(pids.filter(processAlive)).toEqual([]);
    expect(processAlive(server.pid)).toBe(false);
  });
});

describe("serve --workers 2 --redis-url", () => {
  let redis: RedisServer | null = null;
  let server: ChildServer | null = null;
  const hasRedis = existsSync("/usr/bin/redis-server");

  beforeAll(async () => {
    if (!hasRedis) return;
    redis = await startRedis();
    const data = await importedDataset("workers-bart", ["bart"]);
    const keys = join(tempDir(), "keys.json");
    writeFileSync(keys, JSON.stringify([{ key: "workers-key-0001", account: "acme", rate_limit_per_minute: 30 }]));
    server = await serveChild(["--data", data, "--api-keys", keys, "--workers", "2", "--redis-url", redis.url]);
  });
  afterAll(async () => {
    await server?.stop();
    await redis?.stop();
  });

  test.skipIf(!hasRedis)("two workers hold an account to its rate_limit_per_minute in total", async () => {
    const pids = new Set<number>();
    await workerPids(server!.url, 2, 15_000, "workers-key-0001");
    let ok = 0;
    let refused = 0;
    for (let i = 0; i < 60; i++) {
      const r = await get(`${server!.url}/api/v2/rest/stops?limit=1`, { headers: { apikey: "workers-key-0001" } });
      if (r.status === 200) ok++;
      else if (r.status === 429) refused++;
      await r.arrayBuffer();
      pids.add(((await (await get(`${server!.url}/health`, { headers: { apikey: "workers-key-0001" } })).json()) as Health).worker.pid);
    }
    expect(pids.size).toBe(2); // both workers took requests
    // 30 a minute in total (a token more may have refilled while the 60 requests ran)
    expect(ok).toBeGreaterThanOrEqual(30);
    expect(ok).toBeLessThanOrEqual(31);
    expect(refused).toBe(60 - ok);
  });
});

describe("serve --workers 2 --worker-port behind nginx (deploy/nginx.conf)", () => {
  let server: ChildServer;
  let nginx: ReturnType<typeof Bun.spawn>;
  let edge: string;
  let workerPort: number;
  let metricsPort: number;

  beforeAll(async () => {
    const bin = requireBinary("/usr/sbin/nginx", "nginx");
    const data = await importedDataset("workers-bart", ["bart"]);
    // worker i listens on workerPort + i and metricsPort + i: two runs of two free ports, apart
    workerPort = await freePortRun(2);
    do metricsPort = await freePortRun(2);
    while (Math.abs(workerPort - metricsPort) < 2);
    server = await serveChild(["--data", data, "--no-auth", "--workers", "2", "--worker-port", String(workerPort), "--metrics-port", String(metricsPort)]);
    // both workers listen (serveChild returns at the first worker's "listening" line; the supervisor logs "workers listening" once all do)
    await until("both workers listening", async () => {
      if (server.exited() !== null) throw new Error(`the supervisor exited: ${server.lines.join("\n")}`);
      return server.lines.some((l) => l.includes('"msg":"workers listening"'));
    }, 150_000);
    const dir = tempDir("interchange-nginx-workers-");
    chmodSync(dir, 0o777); // nginx's workers run as nobody
    const port = await freePort();
    writeFileSync(join(dir, "nginx.conf"), edgeConfig(dir, port, [workerPort, workerPort + 1], [["rate=20r/s", "rate=10000r/s"], ["burst=40 ", "burst=10000 "]]));
    mkdirSync(join(dir, "conf"), { recursive: true });
    nginx = Bun.spawn([bin, "-c", join(dir, "nginx.conf"), "-p", dir, "-g", "daemon off;"], { stdout: "ignore", stderr: "pipe" });
    edge = `http://127.0.0.1:${port}`;
    await until("nginx answers", async () => fetch(`${edge}/health`).then((r) => r.ok).catch(() => false), 10_000);
  }, 240_000);
  afterAll(async () => {
    nginx?.kill("SIGQUIT");
    await nginx?.exited;
    await server?.stop();
  });

  const catalogRequests = async (i: number) => {
    const text = await (await fetch(`http://127.0.0.1:${metricsPort + i}/metrics`)).text();
    return text.split("\n").filter((l) => l.startsWith('interchange_http_requests_total{family="catalog"')).reduce((n, l) => n + Number(l.split(" ").pop()), 0);
  };

  test("--worker-port: worker i's own port is --worker-port + i, apart from --port and the metrics ports", () => {
    expect(serverConfigFrom({ noAuth: true }).workerPort).toBeNull();
    expect(serverConfigFrom({ noAuth: true, workers: 2, port: 8080, workerPort: 8081 }).workerPort).toBe(8081);
    expect(() => serverConfigFrom({ noAuth: true, workers: 2, port: 8082, workerPort: 8081 })).toThrow("--worker-port");
    expect(() => serverConfigFrom({ noAuth: true, workers: 2, port: 8080, workerPort: 8081, metricsPort: 8082 })).toThrow("--worker-port");
    expect(() => serverConfigFrom({ noAuth: true, workers: 2, workerPort: 65535 })).toThrow("--worker-port");
  });

  test("worker i answers on --worker-port + i as on the shared port", async () => {
    for (const i of [0, 1]) expect(((await (await get(`http://127.0.0.1:${workerPort + i}/health`)).json()) as Health).worker.index).toBe(i);
  });

  test("one client's kept-alive requests through nginx are served by both workers", async () => {
    // one connection to nginx, one request at a time: nginx would reuse one upstream connection,
    // so on the shared port a single worker would answer them all
    for (let k = 0; k < 200; k++) expect((await fetch(`${edge}/api/v2/rest/stops?limit=1`)).status).toBe(200);
    const counts = [await catalogRequests(0), await catalogRequests(1)];
    expect(counts[0]! + counts[1]!).toBe(200);
    for (const n of counts) expect(n).toBeGreaterThanOrEqual(50);
  });
});
