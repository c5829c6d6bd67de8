/**
 * FEATURE UNDER TEST: deploy/nginx.conf as written (only ports and paths changed), with Debian's
 * nginx started here in front of the real server: the edge's own 429 is the spec's JSON
 * {"message"}, the service's own 429 stays plain text, oversized bodies get JSON, JSON is gzipped.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { tempDir } from "../support/dataset.ts";
import { edgeConfig, freePort, requireBinary } from "../support/services.ts";
import { type Gateway, startGateway } from "../support/street-server.ts";



describe("the nginx edge", () => {
  let gw: Gateway;
  let nginx: ReturnType<typeof Bun.spawn>;
  let edge: string;
  beforeAll(async () => {
    const bin = requireBinary("/usr/sbin/nginx", "nginx");
    gw = await startGateway({ keys: [{ key: "edge-test-key-1", account: "edge", rate_limit_per_minute: 5 }] });
    const dir = tempDir("interchange-nginx-");
    chmodSync(dir, 0o777); // nginx's workers run as nobody
    const port = await freePort();
    const conf = join(dir, "nginx.conf");
    writeFileSync(conf, edgeConfig(dir, port, Number(new URL(gw.url).port)));
    mkdirSync(join(dir, "conf"), { recursive: true });
    nginx = Bun.spawn([bin, "-c", conf, "-p", dir, "-g", "daemon off;"], { stdout: "ignore", stderr: "pipe" });
    edge = `http://127.0.0.1:${port}`;
    for (let i = 0; i < 100; i++) {
      const ok = await fetch(`${edge}/health`).then((r) => r.ok).catch(() => false);
      if (ok) break;
      await Bun.sleep(50);
    }
  });
  afterAll(async () => {
    nginx?.kill("SIGQUIT");
    await nginx?.exited;
    await gw?.stop();
  });

  test("requests pass through to the service", async () => {
    const res = await fetch(`${edge}/health`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { status: string }).status).toBe("ok");
  });

  test("the service's own limit is plain text; the edge's own limit is JSON {message}", async () => {
    const headers = { apikey: "edge-test-key-1" };
    const statuses: { status: number; type: string | null; body: string }[] = [];
    for (let i = 0; i < 7; i++) {
      const r = await fetch(`${edge}/api/v2/rest/stops?limit=1`, { headers });
      statuses.push({ status: r.status, type: r.headers.get("content-type"), body: await r.text() });
    }
    const service429 = statuses.find((s) => s.status === 429)!;
    expect(service429.type).toContain("text/plain");
    expect(() => JSON.parse(service429.body)).toThrow();
    // a burst over the edge's 20 r/s (burst 40) from one address
    const burst = await Promise.all(Array.from({ length: 120 }, () => fetch(`${edge}/health`).then(async (r) => ({ status: r.status, type: r.headers.get("content-type"), body: await r.text() }))));
    const edge429 = burst.filter((r) => r.status === 429);
    expect(edge429.length).toBeGreaterThan(0);
    expect(edge429[0]!.type).toContain("application/json");
    expect(Object.keys(JSON.parse(edge429[0]!.body))).toEqual(["message"]);
  });

  test("a body over 1 MB is refused at the edge with JSON", async () => {
    await Bun.sleep(2500); // let the per-address bucket refill
    const res = await fetch(`${edge}/api/v2/routing/valhalla/route`, { method: "POST", body: "x".repeat(1_200_000) });
    expect(res.status).toBe(413);
    expect(Object.keys((await res.json()) as object)).toEqual(["message"]);
  });

  test("JSON is gzipped for clients that accept it", async () => {
    const res = await fetch(`${edge}/docs/json`, { headers: { "accept-encoding": "gzip" }, decompress: false } as RequestInit);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-encoding")).toBe("gzip");
    const doc = JSON.parse(gunzipSync(Buffer.from(await res.arrayBuffer())).toString()) as { openapi: string };
    expect(doc.openapi).toBeDefined();
  });
});
