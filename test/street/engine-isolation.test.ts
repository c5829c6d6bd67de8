/**
 * FEATURE UNDER TEST: no street request can take the server down, and engine work is bounded
 * (issue 31). The real server (`interchange serve --workers 1`, a child process) over BART and
 * the downtown San Francisco streets, with the embedded engine in its default isolation (a pool
 * of engine processes):
 * - the crashers of issue 31 (durations, expansion contours) are refused with their codes;
 * - an engine crash (centroid's, a real one; a SIGSEGV sent to the engine process) fails only its
 *   request, with a Valhalla-form body; the server's process stays, the pool is refilled, the
 *   crash metric counts it;
 * - each limit is refused with its code; the wait for an engine slot is bounded (503 with
 *   Retry-After); an account over its share is refused 429 while another is served;
 * - /status is answered while 50 expensive expansions of five accounts are in flight.
 * And the answer-size cap, with the EmbeddedEngine directly (a tiny cap).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { serverConfigFrom } from "../../server/config.ts";
import { EmbeddedEngine } from "../../server/street/embedded.ts";
import { streetPaths } from "../../server/street/paths.ts";
import { importStreets } from "../../pipeline/street/import-streets.ts";
import { osm, tempDir } from "../support/dataset.ts";
import { quietLog } from "../support/street-server.ts";
import { CIVIC_CENTER, type ChildServer, EMBARCADERO, opsDataset, processAlive, serveChild } from "../ops/support.ts";

const ACCOUNTS = ["a1", "a2", "a3", "a4", "a5", "quiet"];
/** more accounts, so that enough calls can queue for one slot within the per-account share */
const MORE_ACCOUNTS = Array.from({ length: 15 }, (_, i) => `b${i + 1}`);
const key = (account: string) => `engine-test-key-${account}`;
const STREET = "/api/v2/routing/valhalla";

/** A heavy call on the downtown extract: every edge within 100 minutes' walk. */
const EXPANSION = { action: "isochrone", locations: [CIVIC_CENTER], costing: "pedestrian", contours: [{ time: 100 }] };

function keysFile(): string {
  const f = join(tempDir("interchange-keys-"), "keys.json");
  writeFileSync(f, JSON.stringify([...ACCOUNTS, ...MORE_ACCOUNTS].map((a) => ({ key: key(a), account: a }))));
  return f;
}

function post(server: ChildServer, action: string, body: unknown, account = "quiet"): Promise<Response> {
  return fetch(`${server.url}${STREET}/${action}`, { method: "POST", body: JSON.stringify(body), headers: { apikey: key(account), "content-type": "application/json" } });
}

/** The pids of a process's children (its engine processes). */
function children(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

async function crashes(server: ChildServer): Promise<Record<string, number>> {
  const text = await (await fetch(`${server.metricsUrl}/metrics`)).text();
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/^interchange_engine_crashes_total\{action="([^"]+)"\} (\d+)/gm)) out[m[1]!] = Number(m[2]);
  return out;
}

async function health(server: ChildServer): Promise<{ worker: { pid: number }; features: { street: { engine_processes: number; engine_crashes: number; isolation: string } } }> {
  // the details (worker, engine processes) go to a request with a key
  return (await (await fetch(`${server.url}/health`, { headers: { apikey: key("quiet") } })).json()) as never;
}

let data: string;
let keys: string;
beforeAll(async () => {
  data = await opsDataset();
  keys = keysFile();
}, 600_000);

describe("one engine slot, a long wait (crashes, limits, a cheap request beside 50 expensive ones)", () => {
  let server: ChildServer;
  beforeAll(async () => {
    server = await serveChild(["--data", data, "--api-keys", keys, "--metrics-port", "0", "--engine-concurrency", "1", "--engine-wait-ms", "120000", "--engine-account-concurrency", "10"]);
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  });

  test("the crashers of issue 31 are refused with their codes; the server's process is the same", async () => {
    const pid = (await health(server)).worker.pid;
    const status = await fetch(`${server.url}${STREET}/status?json=${encodeURIComponent('{"durations":[]}')}`, { headers: { apikey: key("quiet") } });
    expect(status.status).toBe(400);
    expect(await status.json()).toMatchObject({ error_code: 136, status_code: 400 });
    const route = { locations: [CIVIC_CENTER, EMBARCADERO], costing: "pedestrian" };
    for (const [action, body] of [
      ["route", { ...route, durations: [] }],
      ["locate", { locations: [CIVIC_CENTER], durations: [] }],
      ["isochrone", { ...EXPANSION, contours: [{ time: 5 }], durations: [] }],
    ] as const) {
      const res = await post(server, action, body);
      expect({ action, status: res.status, code: ((await res.json()) as { error_code: number }).error_code }).toEqual({ action, status: 400, code: 136 });
    }
    for (const contour of [{ time: -1000 }, { time: -1e9 }, { time: -1e308 }, { distance: -1e308 }, { time: 120 }]) {
      const res = await post(server, "expansion", { ...EXPANSION, contours: [contour] });
      expect(res.status).toBe(400);
      expect([113, 151]).toContain(((await res.json()) as { error_code: number }).error_code);
    }
    expect((await post(server, "route", route)).status).toBe(200);
    expect((await health(server)).worker.pid).toBe(pid);
    expect(server.exited()).toBeNull();
  }, 60_000);

  test("each limit is refused before the engine with its code", async () => {
    const locate = await post(server, "locate", { locations: Array.from({ length: 101 }, () => CIVIC_CENTER), costing: "pedestrian" });
    expect(await locate.json()).toMatchObject({ error_code: 150, status_code: 400 });
    expect((await post(server, "locate", { locations: Array.from({ length: 100 }, () => CIVIC_CENTER), costing: "pedestrian" })).status).toBe(200);
    // 0.0045 m between samples over ~2.3 km: 500,000 heights (issue 31's 35 MB answer)
    const height = await post(server, "height", { shape: [CIVIC_CENTER, EMBARCADERO], resample_distance: 0.0045 });
    const h = (await height.json()) as { error_code: number; error: string };
    expect(h.error_code).toBe(314);
    expect(h.error).toContain("100000");
    const matrix = await post(server, "sources_to_targets", { sources: Array.from({ length: 51 }, () => CIVIC_CENTER), targets: Array.from({ length: 50 }, () => EMBARCADERO), costing: "pedestrian" });
    const m = (await matrix.json()) as { error_code: number; error: string };
    expect(m.error_code).toBe(150);
    expect(m.error).toContain("2550");
  }, 60_000);

  test("a centroid that crashes its engine process is answered 442; the process is replaced and the crash counted", async () => {
    const pid = (await health(server)).worker.pid;
    const before = (await crashes(server)).centroid ?? 0;
    // the paths of these two never meet on the extract: Valhalla 3.6.1 dereferences a null tile
    const res = await post(server, "centroid", { locations: [CIVIC_CENTER, { lat: 37.9639, lon: -122.483 }], costing: "auto" });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error_code: 442, status_code: 400 });
    expect((await crashes(server)).centroid).toBe(before + 1);
    expect((await post(server, "route", { locations: [CIVIC_CENTER, EMBARCADERO], costing: "pedestrian" })).status).toBe(200);
    const h = await health(server);
    expect(h.worker.pid).toBe(pid);
    expect(h.features.street.isolation).toBe("process");
    expect(h.features.street.engine_processes).toBeGreaterThanOrEqual(1);
  }, 60_000);

  test("an engine process killed by SIGSEGV mid-call fails only that call (500, Valhalla body 499); the others are answered", async () => {
    const pid = (await health(server)).worker.pid;
    const before = Object.values(await crashes(server)).reduce((a, b) => a + b, 0);
    const answers: { status: number; body: string }[] = [];
    const calls = Array.from({ length: 8 }, (_, i) =>
      post(server, "expansion", EXPANSION, ACCOUNTS[i % 5]).then(async (r) => {
        answers.push({ status: r.status, body: await r.text() });
      }),
    );
    // once one is answered the single engine slot is running the next one: kill the engine processes
    while (answers.length === 0) await Bun.sleep(5);
    for (const child of children(pid)) process.kill(child, "SIGSEGV");
    await Promise.all(calls);
    const failed = answers.filter((a) => a.status !== 200);
    expect(failed.length).toBe(1);
    expect(failed[0]!.status).toBe(500);
    expect(JSON.parse(failed[0]!.body)).toMatchObject({ error_code: 499, status_code: 500, status: "Internal Server Error" });
    expect(Object.values(await crashes(server)).reduce((a, b) => a + b, 0)).toBe(before + 1);
    expect((await crashes(server)).expansion).toBeGreaterThanOrEqual(1);
    expect((await health(server)).worker.pid).toBe(pid);
    expect((await post(server, "route", { locations: [CIVIC_CENTER, EMBARCADERO], costing: "pedestrian" })).status).toBe(200);
  }, 120_000);

  test("/status from another account is answered while 50 expensive expansions of five accounts are in flight", async () => {
    // the short lane's engine process starts on first use: started here, so what is measured is the queue
    expect((await fetch(`${server.url}${STREET}/status`, { headers: { apikey: key("quiet") } })).status).toBe(200);
    let done = 0;
    const expensive = Array.from({ length: 50 }, (_, i) =>
      post(server, "expansion", EXPANSION, ACCOUNTS[i % 5]).then(async (r) => {
        await r.arrayBuffer();
        done++;
        return r.status;
      }),
    );
    // once the first is answered the rest are queued for the one engine slot
    while (done === 0) await Bun.sleep(1);
    const doneWhenSent = done;
    const status = await fetch(`${server.url}${STREET}/status`, { headers: { apikey: key("quiet") } });
    const doneWhenAnswered = done;
    expect(status.status).toBe(200);
    const statuses = await Promise.all(expensive);
    expect(statuses.every((s) => s === 200)).toBe(true);
    // ordering, not timing: /status did not wait behind the queue. While it was answered
    // at most a few expansions finished (a FIFO wait would have let all the rest finish).
    expect(doneWhenSent).toBeLessThan(40);
    expect(doneWhenAnswered - doneWhenSent).toBeLessThan((50 - doneWhenSent) / 2);
  }, 300_000);

  test("engine slots are shared fairly across accounts: one account's queue of expansions does not hold another's route behind all of it", async () => {
    let done = 0;
    // ten: the account's share on this server (--engine-account-concurrency 10)
    const mine = Array.from({ length: 10 }, () =>
      post(server, "expansion", EXPANSION, "a1").then(async (r) => {
        await r.arrayBuffer();
        done++;
        return r.status;
      }),
    );
    // once the first is answered the rest of a1's are queued for the one engine slot
    while (done === 0) await Bun.sleep(1);
    const doneWhenSent = done;
    const route = await post(server, "route", { locations: [CIVIC_CENTER, EMBARCADERO], costing: "pedestrian" }, "a2");
    const doneWhenAnswered = done;
    expect(route.status).toBe(200);
    expect((await Promise.all(mine)).every((s) => s === 200)).toBe(true);
    // ordering, not timing: a2's route went in turn with a1's calls (the one running and the one
    // first in line finish meanwhile, one more while the answers travel), not after the whole queue
    // (first come, first served: every one of a1's calls still waiting, at least 6 here)
    expect(doneWhenSent).toBeLessThan(5);
    expect(doneWhenAnswered - doneWhenSent).toBeLessThanOrEqual(3);
  }, 300_000);
});

describe("one engine slot, a short wait, two calls per account", () => {
  let server: ChildServer;
  beforeAll(async () => {
    server = await serveChild(["--data", data, "--api-keys", keys, "--engine-concurrency", "1", "--engine-wait-ms", "100", "--engine-account-concurrency", "2"]);
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  });

  test("an account over its share is refused 429 with Retry-After while another account is served", async () => {
    const mine = await Promise.all(Array.from({ length: 6 }, () => post(server, "expansion", EXPANSION, "a1")));
    const refused = mine.filter((r) => r.status === 429);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    for (const r of refused) {
      expect(r.headers.get("retry-after")).toBe("1");
      expect(r.headers.get("content-type")).toContain("text/plain");
    }
    // another account is not refused for a1's calls
    const other = await post(server, "route", { locations: [CIVIC_CENTER, EMBARCADERO], costing: "pedestrian" }, "a2");
    expect(other.status).toBe(200);
  }, 120_000);

  test("the wait for an engine slot is bounded: 503 text/plain with Retry-After", async () => {
    // two calls for each of 20 accounts (their share): 40 calls for the one slot, so that some wait past 100 ms
    // however fast the engine answers (10 calls were all served within 100 ms on a fast, warm host)
    const senders = [...ACCOUNTS.slice(0, 5), ...MORE_ACCOUNTS];
    const all = await Promise.all(Array.from({ length: 2 * senders.length }, (_, i) => post(server, "expansion", EXPANSION, senders[i % senders.length])));
    const busy = all.filter((r) => r.status === 503);
    expect(busy.length).toBeGreaterThanOrEqual(1);
    for (const r of busy) {
      expect(r.headers.get("retry-after")).toBe("1");
      expect(r.headers.get("content-type")).toContain("text/plain");
      expect(await r.text()).toContain("no engine slot came free within 100 ms");
    }
    expect(all.every((r) => r.status === 200 || r.status === 503)).toBe(true);
  }, 120_000);
});

describe("the answer-size cap", () => {
  test("an answer longer than the cap is refused with a Valhalla-form 400, in both isolations", async () => {
    for (const isolation of ["process", "none"] as const) {
      const engine = new EmbeddedEngine({ dataDir: data, allowHardExclusions: false, log: quietLog, isolation, maxAnswerBytes: 2000 });
      await engine.reload();
      try {
        const body = JSON.stringify(EXPANSION);
        const call = { action: "expansion" as const, body, query: "", merged: () => body, signal: new AbortController().signal };
        const err = await engine.handle(call).then(
          () => null,
          (e: unknown) => e as { code: string; message: string; details: { engineCode: number } },
        );
        expect({ isolation, code: err?.code, engineCode: err?.details.engineCode }).toEqual({ isolation, code: "INVALID_PARAMETER", engineCode: 199 });
        expect(err!.message).toContain("above this server's limit of 0.002 MB");
        const small = JSON.stringify({});
        expect((await engine.handle({ action: "status", body: small, query: "", merged: () => small, signal: new AbortController().signal })).status).toBe(200);
      } finally {
        await engine.close();
      }
    }
  }, 120_000);
});

describe("the deadline of an engine call (--engine-timeout-ms)", () => {
  const matrix = JSON.stringify({ sources: Array.from({ length: 50 }, () => CIVIC_CENTER), targets: Array.from({ length: 50 }, () => EMBARCADERO), costing: "pedestrian" });
  const callOf = (action: "route" | "sources_to_targets", body: string) => ({ action, body, query: "", merged: () => body, signal: new AbortController().signal });
  const refusal = (p: Promise<unknown>) =>
    p.then(
      () => null,
      (e: { code: string; message: string }) => ({ code: e.code, message: e.message }),
    );

  test("--engine-timeout-ms: 20 s by default, from 100 to 28,000 ms (under the server's 30 s idle time-out)", () => {
    expect(serverConfigFrom({ noAuth: true }).engineTimeoutMs).toBe(20_000);
    expect(serverConfigFrom({ noAuth: true, engineTimeoutMs: 500 }).engineTimeoutMs).toBe(500);
    for (const bad of [99, 28_001, Number.NaN]) expect(() => serverConfigFrom({ noAuth: true, engineTimeoutMs: bad })).toThrow("--engine-timeout-ms");
  });

  test("process: a hung engine process is ended at the deadline, its call answered 503, the process replaced", async () => {
    const timedOut: string[] = [];
    const engine = new EmbeddedEngine({ dataDir: data, allowHardExclusions: false, log: quietLog, maxConcurrent: 1, callTimeoutMs: 2000, onTimeout: (a) => timedOut.push(a) });
    await engine.reload();
    const stopped = engine.enginePids();
    try {
      // every engine process stops answering (as a native call that never returns would)
      for (const pid of stopped) process.kill(pid, "SIGSTOP");
      const err = await refusal(engine.handle(callOf("route", JSON.stringify({ locations: [CIVIC_CENTER, EMBARCADERO], costing: "pedestrian" }))));
      expect(err).toEqual({ code: "ENGINE_UNAVAILABLE", message: "the routing engine did not answer within 2000 ms (--engine-timeout-ms); the call was stopped" });
      expect(timedOut).toEqual(["route"]);
      // the gateway's hung process was ended (SIGKILL ends a stopped process), a new one answers
      const ok = await engine.handle(callOf("route", JSON.stringify({ locations: [CIVIC_CENTER, EMBARCADERO], costing: "pedestrian" })));
      expect(ok.status).toBe(200);
      const ended = stopped.filter((pid) => !processAlive(pid));
      expect(ended.length).toBe(1);
    } finally {
      for (const pid of stopped) if (processAlive(pid)) process.kill(pid, "SIGCONT");
      await engine.close();
    }
  }, 120_000);

  test("none: a call past the deadline is answered 503 and keeps its engine slot until it ends", async () => {
    const timedOut: string[] = [];
    const engine = new EmbeddedEngine({ dataDir: data, allowHardExclusions: false, log: quietLog, isolation: "none", maxConcurrent: 1, slotWaitMs: 0, callTimeoutMs: 50, onTimeout: (a) => timedOut.push(a) });
    await engine.reload();
    try {
      // 2,500 walking cells: far longer than 50 ms (about 0.5 s here)
      const err = await refusal(engine.handle(callOf("sources_to_targets", matrix)));
      expect(err?.code).toBe("ENGINE_UNAVAILABLE");
      expect(err?.message).toContain("did not answer within 50 ms");
      expect(timedOut).toEqual(["sources_to_targets"]);
      // the matrix still runs in this process: the one slot is still taken
      const busy = await refusal(engine.handle(callOf("route", JSON.stringify({ locations: [CIVIC_CENTER, EMBARCADERO], costing: "pedestrian" }))));
      expect(busy?.message).toContain("no engine slot came free");
    } finally {
      await engine.close();
    }
  }, 120_000);
});

/** A route inside the Monaco extract (not in the downtown San Francisco tiles). */
const monaco = { locations: [{ lat: 43.7347, lon: 7.422 }, { lat: 43.7398, lon: 7.4268 }], costing: "pedestrian" };

/** An embedded engine with one gateway slot over a fresh copy of the ops dataset, and a call helper. */
async function swapEngine(opts: { slotWaitMs?: number; callTimeoutMs?: number }) {
  const dir = await opsDataset();
  const engine = new EmbeddedEngine({ dataDir: dir, allowHardExclusions: false, log: quietLog, maxConcurrent: 1, ...opts });
  await engine.reload();
  const signal = new AbortController().signal;
  const call = (action: "expansion" | "route", b: unknown) => {
    const body = JSON.stringify(b);
    return engine.handle({ action, body, query: "", merged: () => body, signal });
  };
  return { dir, engine, call };
}

describe("a swap to a new street dataset", () => {
  test("the call in flight finishes on the old processes; new calls go to new ones; the old ones end", async () => {
    const { dir, engine, call } = await swapEngine({});
    try {
      expect((await call("route", monaco)).status).toBe(400); // not in these tiles (171)
      const inFlight = call("expansion", EXPANSION);
      const old = engine.enginePids();
      await importStreets({ dataDir: dir, osm: [osm("monaco")] });
      await engine.reload();
      expect(engine.enginePids().some((p) => old.includes(p))).toBe(false);
      // the new pools' processes were all started and ready before the swap (1 gateway, the short lane's)
      expect(engine.enginePids().length).toBe(1 + Math.max(2, navigator.hardwareConcurrency || 2));
      const answer = await inFlight;
      expect(answer.status).toBe(200);
      expect((await call("route", monaco)).status).toBe(200);
      for (let i = 0; i < 100 && old.some(processAlive); i++) await Bun.sleep(50);
      expect(old.filter(processAlive)).toEqual([]);
    } finally {
      await engine.close();
    }
  }, 300_000);

  test("a call that waited for its slot across the swap runs on the new dataset (the old pools refuse new calls)", async () => {
    // long waits and deadlines: the held call and the waiting one outlast the import
    const { dir, engine, call } = await swapEngine({ slotWaitMs: 240_000, callTimeoutMs: 240_000 });
    // the gateway pool is the first pool: its one process holds the slot, stopped, until after the swap
    const gatewayPid = engine.enginePids()[0]!;
    try {
      process.kill(gatewayPid, "SIGSTOP");
      const held = call("expansion", EXPANSION); // takes the slot; its process does not answer yet
      const waiting = call("route", monaco); // waits for the one slot, before the swap
      await importStreets({ dataDir: dir, osm: [osm("monaco")] });
      await engine.reload();
      process.kill(gatewayPid, "SIGCONT");
      expect((await held).status).toBe(200); // finished on the old process
      const answer = await waiting;
      expect(`${answer.status} ${answer.body}`).toStartWith("200 "); // Monaco's route: the new dataset answered it
      expect(JSON.parse(String(answer.body)).trip.status).toBe(0);
    } finally {
      if (processAlive(gatewayPid)) process.kill(gatewayPid, "SIGCONT");
      await engine.close();
    }
  }, 300_000);
});

describe("the planner's street calls (the planner lane)", () => {
  test("are served in turn across accounts: one account's queue of matrices does not hold another's walk behind all of it", async () => {
    const engine = new EmbeddedEngine({ dataDir: data, allowHardExclusions: false, log: quietLog });
    await engine.reload();
    try {
      const paths = streetPaths(engine, () => true);
      const busy = paths.forAccount("a1");
      // one origin to 200 points downtown, every one on the streets (a point off them would make the
      // matrix be asked again, behind the other calls), on foot: each about 20 ms of engine work
      // when warm (a2's short walk: 3 ms)
      const around = Array.from({ length: 200 }, (_, i) => ({ lat: 37.779 + 0.0005 * (i % 20), lon: -122.418 + 0.002 * Math.floor(i / 20) }));
      const walk = { mode: "WALK" as const, speedMps: 1.33 };
      const short = { lat: CIVIC_CENTER.lat + 0.0015, lon: CIVIC_CENTER.lon };
      // warm: both lane processes' tile caches (a cold call takes several times longer)
      await Promise.all([busy.reach(EMBARCADERO, around, walk, "from"), busy.reach(EMBARCADERO, around, walk, "from"), paths.path(CIVIC_CENTER, short, walk)]);
      let done = 0;
      // twelve on the lane's two slots: ten wait
      const mine = Array.from({ length: 12 }, () => busy.reach(EMBARCADERO, around, walk, "from").then((r) => (done++, r)));
      const other = await paths.forAccount("a2").path(CIVIC_CENTER, short, walk);
      const doneWhenAnswered = done;
      expect(other?.meters).toBeGreaterThan(150);
      await Promise.all(mine);
      // ordering, not timing: a2's walk started in turn with a1's calls (after the two running and
      // the one first in line: 2 done, a few more while it ran), not after a1's queue (first come,
      // first served: it starts only once 10 of a1's 12 are done, and 11 were when it was answered)
      expect(doneWhenAnswered).toBeLessThanOrEqual(7);
    } finally {
      await engine.close();
    }
  }, 120_000);
});
