/**
 * FEATURE UNDER TEST: the request log off the request path (issue 32, item 6): the batched stderr
 * writer (server/feature.ts LineWriter: whole lines, in order, none lost at exit, none interleaved
 * between processes sharing a pipe, written without blocking while a pipe's reader is behind),
 * the --log-level and --request-log settings (server/config.ts, applied by server/ops), and the
 * metrics' pre-resolved series (server/ops/metrics.ts: the same exposition as a label lookup).
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { serverConfigFrom } from "../../server/config.ts";
import type { Logger } from "../../server/feature.ts";
import { Ops } from "../../server/ops/index.ts";
import { gate } from "../../server/gate.ts";
import { Counter, Histogram, Registry } from "../../server/ops/metrics.ts";
import { tempDir } from "../support/dataset.ts";
import { parseExposition, sampleValue } from "./exposition.ts";

const FEATURE = resolve(import.meta.dir, "..", "..", "server", "feature.ts");

/** A Bun script (in a temp folder) importing the service's logger; its stderr is returned. */
async function runScript(body: string, env: Record<string, string> = {}): Promise<{ code: number; stderr: string; ms: number }> {
  const file = join(tempDir("interchange-log-"), "script.ts");
  writeFileSync(file, `import { consoleLogger, stderrWriter } from ${JSON.stringify(FEATURE)};\n${body}\n`);
  const t0 = performance.now();
  const proc = Bun.spawn([process.execPath, file], { stdout: "ignore", stderr: "pipe", env: { ...process.env, ...env } });
  const stderr = await new Response(proc.stderr).text();
  return { code: await proc.exited, stderr, ms: performance.now() - t0 };
}

const lines = (text: string) => text.split("\n").filter((l) => l !== "");

describe("the stderr log writer", () => {
  test("info lines written in batches arrive whole and in order, none lost when the process exits right after", async () => {
    const { code, stderr } = await runScript(`
      for (let i = 0; i < 20000; i++) consoleLogger.info("request", { i, path: "/api/v2/rest/stops/" + "x".repeat(i % 300) });
      consoleLogger.warn("done", { n: 20000 });
      for (let i = 0; i < 5; i++) consoleLogger.info("request", { after: i });
      process.exit(0);`);
    expect(code).toBe(0);
    const got = lines(stderr).map((l) => JSON.parse(l));
    expect(got.length).toBe(20006);
    expect(got.slice(0, 20000).every((l, i) => l.level === "info" && l.msg === "request" && l.i === i && l.path.length === 19 + (i % 300))).toBe(true);
    expect(got[20000]).toEqual({ level: "warn", msg: "done", n: 20000 });
    expect(got.slice(20001).map((l) => l.after)).toEqual([0, 1, 2, 3, 4]);
  });

  test("a request line is written within milliseconds without a flush call; other lines at once", async () => {
    const { stderr } = await runScript(`
      consoleLogger.info("request", { n: 1 });
      await Bun.sleep(200);
      consoleLogger.info("first");
      await Bun.sleep(200);
      consoleLogger.warn("second");
      // SIGKILL: no exit handler runs, so only what was already written arrives
      process.kill(process.pid, "SIGKILL");`);
    expect(lines(stderr).map((l) => JSON.parse(l).msg)).toEqual(["request", "first", "second"]);
  });

  test("two processes on one pipe: every line arrives whole (writes of whole lines up to PIPE_BUF)", async () => {
    const dir = tempDir("interchange-log-");
    const writer = join(dir, "writer.ts");
    writeFileSync(writer, `import { consoleLogger } from ${JSON.stringify(FEATURE)};
      for (let i = 0; i < 20000; i++) consoleLogger.info("request", { w: process.env.W, i, pad: "y".repeat(i % 500) });
      process.exit(0);`);
    const { code, stderr } = await runScript(`
      const procs = ["a", "b"].map((w) => Bun.spawn([process.execPath, ${JSON.stringify(writer)}], { stdout: "ignore", stderr: "inherit", env: { ...process.env, W: w } }));
      await Promise.all(procs.map((p) => p.exited));`);
    expect(code).toBe(0);
    const got = lines(stderr).map((l) => JSON.parse(l));
    for (const w of ["a", "b"]) expect(got.filter((l) => l.w === w).map((l) => l.i)).toEqual(Array.from({ length: 20000 }, (_, i) => i));
  });

  test("a pipe whose reader is behind does not block the writer; what waits is written once the reader reads", async () => {
    // the reader (this test) reads nothing for 1.5 s: 400 KB of lines exceed the pipe's 64 KB
    const file = join(tempDir("interchange-log-"), "script.ts");
    writeFileSync(file, `import { consoleLogger } from ${JSON.stringify(FEATURE)};
      const t0 = performance.now();
      for (let i = 0; i < 4000; i++) consoleLogger.info("request", { i, pad: "z".repeat(80) });
      await Bun.sleep(20); // a flush timer fires meanwhile
      const ms = performance.now() - t0;
      await Bun.sleep(100);
      consoleLogger.info("request", { took: ms });
      process.exit(0);`);
    const proc = Bun.spawn([process.execPath, file], { stdout: "ignore", stderr: "pipe" });
    await Bun.sleep(1500);
    const got = lines(await new Response(proc.stderr).text()).map((l) => JSON.parse(l));
    expect(await proc.exited).toBe(0);
    expect(got.filter((l) => l.i !== undefined).map((l) => l.i)).toEqual(Array.from({ length: 4000 }, (_, i) => i));
    expect(got.at(-1)!.took).toBeLessThan(1000); // a blocking write would have waited for the reader (1.5 s)
  });
});

describe("--log-level and --request-log", () => {
  test("flags and their defaults", () => {
    expect(serverConfigFrom({ noAuth: true })).toMatchObject({ logLevel: "info", requestLog: 1 });
    expect(serverConfigFrom({ noAuth: true, requestLog: "off", logLevel: "warn" })).toMatchObject({ logLevel: "warn", requestLog: 0 });
    expect(serverConfigFrom({ noAuth: true, requestLog: "0.1" }).requestLog).toBe(0.1);
    expect(serverConfigFrom({ noAuth: true, requestLog: "on" }).requestLog).toBe(1);
    for (const bad of ["2", "-0.5", "", "some"]) expect(() => serverConfigFrom({ noAuth: true, requestLog: bad })).toThrow("--request-log");
    expect(() => serverConfigFrom({ noAuth: true, logLevel: "debug" })).toThrow("--log-level");
  });

  /** Ops over a handler answering `statuses` in turn; the lines its logger got. */
  async function logged(opts: { logLevel?: "info" | "warn" | "error"; requestLog?: number }, statuses: number[]) {
    const got: { level: string; msg: string; status?: unknown }[] = [];
    const log: Logger = {
      info: (msg, f) => got.push({ level: "info", msg, status: f?.status }),
      warn: (msg, f) => got.push({ level: "warn", msg, status: f?.status }),
      error: (msg, f) => got.push({ level: "error", msg, status: f?.status }),
    };
    const ops = new Ops({ dataDir: tempDir(), log, now: Date.now, ...opts });
    let i = 0;
    // the request gate reports every request to Ops, as the server wires it (server/main.ts)
    const fetch = gate(() => new Response("x", { status: statuses[i++]! }), log, { done: ops.requestDone });
    for (const _ of statuses) await fetch(new Request("http://localhost/api/v2/rest/stops", { headers: { host: "localhost" } }));
    const tapped = ops.tapLog(log);
    tapped.info("an info line");
    tapped.warn("a warning");
    tapped.error("an error");
    const families = parseExposition(ops.render());
    return { got, requests: sampleValue(families, "interchange_http_requests_total", { family: "catalog", status: "200" }) };
  }

  test("default: every request logged; every line of every level", async () => {
    const { got, requests } = await logged({}, [200, 200, 200, 500]);
    expect(got.map((l) => `${l.level} ${l.msg} ${l.status ?? ""}`.trim())).toEqual(["info request 200", "info request 200", "info request 200", "info request 500", "info an info line", "warn a warning", "error an error"]);
    expect(requests).toBe(3);
  });

  test("a share: every n-th request, and every 5xx; metrics still count every request", async () => {
    const statuses = [200, 200, 200, 200, 500, 200, 200, 200, 200];
    const { got, requests } = await logged({ requestLog: 0.25 }, statuses);
    expect(got.filter((l) => l.msg === "request").map((l) => l.status)).toEqual([200, 500, 200]);
    expect(requests).toBe(8);
  });

  test("off: no request lines, other lines as before", async () => {
    const { got, requests } = await logged({ requestLog: 0 }, [200, 500]);
    expect(got.map((l) => l.msg)).toEqual(["an info line", "a warning", "an error"]);
    expect(requests).toBe(1);
  });

  test("level warn: no info lines (the request log included); level error: errors only", async () => {
    expect((await logged({ logLevel: "warn" }, [200, 500])).got.map((l) => l.msg)).toEqual(["a warning", "an error"]);
    expect((await logged({ logLevel: "error" }, [200])).got.map((l) => l.msg)).toEqual(["an error"]);
  });
});

describe("metric series resolved once", () => {
  test("child series and label lookups give the same exposition; buckets by bound (le is inclusive)", () => {
    const values = [0, 0.0005, 0.00051, 0.001, 0.3, 30, 31, 0.0001];
    const render = (viaChild: boolean) => {
      const r = new Registry();
      const c = r.register(new Counter("c_total", "c", ["family", "status"]));
      const h = r.register(new Histogram("h_seconds", "h", ["family", "status"]));
      const labels = { family: "catalog", status: "200" };
      const cc = c.child(labels);
      const hc = h.child(labels);
      for (const v of values) {
        if (viaChild) {
          cc.inc();
          hc.observe(v);
        } else {
          c.inc(labels);
          h.observe(labels, v);
        }
      }
      return r.render();
    };
    expect(render(true)).toBe(render(false));
    const f = parseExposition(render(true));
    const at = (le: string) => sampleValue(f, "h_seconds_bucket", { family: "catalog", status: "200", le });
    expect([at("0.0005"), at("0.001"), at("0.5"), at("30"), at("+Inf")]).toEqual([3, 5, 6, 7, 8]);
    expect(sampleValue(f, "c_total", { family: "catalog", status: "200" })).toBe(8);
    expect(() => new Histogram("x_seconds", "x", [], [1, 0.5])).toThrow("ascend");
  });
});
