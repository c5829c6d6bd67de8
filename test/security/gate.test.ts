/**
 * FEATURE UNDER TEST: the API key is decided on the path the router uses, for every route the
 * server has (issue 31, items 1, 3 and 5). The real server with an API-key file (in this process,
 * so the test can list its routes; and behind deploy/nginx.conf with Debian's nginx), over BART and
 * the downtown San Francisco streets. For every route and every way of writing its path a hostile
 * client might try (Host headers of 0 to 5 characters, `//`, `/x/` and `/xx/` prefixes, dot
 * segments plain and percent-encoded, absolute-form request targets), a request without a key is
 * never answered 2xx or 3xx; a malformed Host is answered 400 before routing; nothing answers HTML,
 * a stack frame or a file path. Raw HTTP over a socket: fetch() would normalise what is tried here.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { parseFlags } from "../../config/flags.ts";
import { type RunningServer, startServer } from "../../server/main.ts";
import { SERVE_FLAGS, serverConfigFrom } from "../../server/config.ts";
import { opsDataset } from "../ops/support.ts";
import { tempDir } from "../support/dataset.ts";
import { edgeConfig, freePort, requireBinary } from "../support/services.ts";

const KEY = "gate-test-key-0001";
const quiet = { info() {}, warn() {}, error() {} };

interface RawAnswer {
  status: number;
  headers: string;
  body: string;
}

/** One request as raw HTTP/1.1 bytes (Connection: close); the status, head and body as received. */
function rawRequest(port: number, requestLine: string, headers: string[], body = ""): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    socket.on("data", (d: Buffer) => chunks.push(d));
    socket.on("error", reject);
    socket.on("close", () => {
      const text = Buffer.concat(chunks).toString("latin1");
      const split = text.indexOf("\r\n\r\n");
      const head = split < 0 ? text : text.slice(0, split);
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0);
      resolve({ status, headers: head, body: split < 0 ? "" : text.slice(split + 4) });
    });
    socket.on("connect", () => socket.write(`${requestLine}\r\n${[...headers, "Connection: close"].join("\r\n")}\r\n\r\n${body}`));
    setTimeout(() => socket.destroy(new Error(`no answer to ${requestLine}`)), 20_000);
  });
}

/** A concrete path of a route pattern: parameters and wildcards filled in. */
const concrete = (pattern: string) => pattern.replace(/:[A-Za-z_]+/g, "x").replace(/\*/g, "x");

/** What no answer may contain: an HTML page, a stack frame, a source or data path. */
function leaks(a: RawAnswer): string | null {
  if (/content-type: text\/html/i.test(a.headers) && !/<title>Interchange/.test(a.body)) return "an HTML error page";
  if (/\bat [^\n]+\.(ts|js):\d+/.test(a.body)) return "a stack frame";
  if (/\/(work|root|home|tmp)\/|node_modules|\.ts:\d/.test(a.body)) return "a file path";
  return null;
}

/** The ways of writing `path` that a client could hope the key check reads differently from the router. */
function variants(path: string): { target: string; host: string }[] {
  const out: { target: string; host: string }[] = [];
  for (const host of ["a", "ab", "abc", "abcd", "abcde", "127.0.0.1"]) {
    out.push({ target: path, host });
    out.push({ target: `/x${path}`, host });
    out.push({ target: `/xx${path}`, host });
  }
  const tail = path.slice(1);
  out.push({ target: `/${path}`, host: "abc" }); // //api/...
  out.push({ target: `/map/../${tail}`, host: "abcd" });
  out.push({ target: `/map/%2e%2e/${tail}`, host: "abcd" });
  out.push({ target: `/docs/./../${tail}`, host: "abcd" });
  out.push({ target: `/health/../${tail}`, host: "x" });
  out.push({ target: `http://abcd${path}`, host: "ab" }); // absolute-form
  out.push({ target: `http://a${path}`, host: "a" });
  return out;
}

const MALFORMED_HOSTS = ["", "x]", "127.0.0.1:99999", "a:b:c", "a b", "[::1", "a/b", "a?b", "a#b", "ex\u00e4mple.org", "a,b", "-".repeat(300)];

describe("the key is decided where routing is decided", () => {
  let server: RunningServer;
  let port: number;
  let apiRoutes: { method: string; path: string }[];
  let nginx: ReturnType<typeof Bun.spawn> | null = null;
  let edgePort = 0;

  beforeAll(async () => {
    const dir = await opsDataset();
    const keys = join(tempDir("interchange-gate-"), "keys.json");
    writeFileSync(keys, JSON.stringify([{ key: KEY, account: "gate" }]));
    const { values } = parseFlags(["--data", dir, "--api-keys", keys, "--port", "0", "--host", "127.0.0.1", "--workers", "1"], SERVE_FLAGS, {});
    server = await startServer(serverConfigFrom(values), { log: quiet });
    port = server.port;
    // every route but the public ones (/health, /docs, /map and its files)
    apiRoutes = server.routes.filter((r) => !/^\/(health|docs|map)?(\/|$)/.test(r.path) || r.path.startsWith("/api/"));
    const bin = requireBinary("/usr/sbin/nginx", "nginx");
    const ndir = tempDir("interchange-gate-nginx-");
    chmodSync(ndir, 0o777);
    edgePort = await freePort();
    const conf = join(ndir, "nginx.conf");
    // the edge's per-address limit raised: this test sends thousands of requests from one address
    writeFileSync(conf, edgeConfig(ndir, edgePort, port, [["rate=20r/s", "rate=100000r/s"], ["burst=40", "burst=100000"]]));
    mkdirSync(join(ndir, "conf"), { recursive: true });
    nginx = Bun.spawn([bin, "-c", conf, "-p", ndir, "-g", "daemon off;"], { stdout: "ignore", stderr: "ignore" });
    for (let i = 0; i < 100; i++) {
      if (await fetch(`http://127.0.0.1:${edgePort}/health`).then((r) => r.ok).catch(() => false)) break;
      await Bun.sleep(50);
    }
  }, 600_000);
  afterAll(async () => {
    nginx?.kill("SIGQUIT");
    await nginx?.exited;
    await server?.stop();
  });

  test("the route list covers every API family", () => {
    const families = ["/api/v2/rest/", "/api/v2/routing/otp/", "/api/v2/routing/valhalla/"];
    for (const f of families) expect(apiRoutes.some((r) => r.path.startsWith(f))).toBe(true);
    expect(apiRoutes.length).toBeGreaterThan(20);
  });

  for (const [name, portOf] of [
    ["directly", () => port],
    ["through nginx", () => edgePort],
  ] as const) {
    test(`${name}: no route answers 2xx or 3xx without a key, whatever the Host and the path's spelling`, async () => {
      const bad: string[] = [];
      let sent = 0;
      for (const route of apiRoutes) {
        const method = route.method === "ALL" ? "GET" : route.method;
        const path = concrete(route.path);
        const tries = variants(path);
        const answers = await Promise.all(tries.map((v) => rawRequest(portOf(), `${method} ${v.target} HTTP/1.1`, [`Host: ${v.host}`, ...(method === "POST" ? ["Content-Type: application/json", "Content-Length: 2"] : [])], method === "POST" ? "{}" : "").then((a) => ({ v, a }))));
        for (const { v, a } of answers) {
          sent++;
          if (a.status >= 200 && a.status < 400) bad.push(`${method} ${v.target} (Host: ${v.host}) -> ${a.status}`);
          if (a.status >= 500 && !(a.status === 503)) bad.push(`${method} ${v.target} (Host: ${v.host}) -> ${a.status}`);
          const leak = leaks(a);
          if (leak) bad.push(`${method} ${v.target} (Host: ${v.host}) -> ${leak}`);
        }
      }
      expect(sent).toBeGreaterThan(apiRoutes.length * 20);
      expect(bad).toEqual([]);
    });
  }

  test("directly: the plain path answers 401 for every Host length from 1 to 5 (the router and the key check agree)", async () => {
    for (const host of ["a", "ab", "abc", "abcd", "abcde"]) {
      const a = await rawRequest(port, "GET /api/v2/rest/stops?limit=1 HTTP/1.1", [`Host: ${host}`]);
      expect(a.status).toBe(401);
      const ok = await rawRequest(port, "GET /api/v2/rest/stops?limit=1 HTTP/1.1", [`Host: ${host}`, `apikey: ${KEY}`]);
      expect(ok.status).toBe(200);
    }
  });

  test("directly: a malformed or missing Host is answered 400 with JSON, before routing, on every path", async () => {
    for (const host of MALFORMED_HOSTS) {
      for (const path of ["/api/v2/rest/stops", "/health", "/map", "/docs", "/nowhere"]) {
        const a = await rawRequest(port, `GET ${path} HTTP/1.1`, [`Host: ${host}`, `apikey: ${KEY}`]);
        expect({ host, path, status: a.status }).toEqual({ host, path, status: 400 });
        expect(a.headers).toMatch(/content-type: application\/json/i);
        expect(JSON.parse(a.body).error).toContain("Host");
      }
    }
    const none = await rawRequest(port, "GET /api/v2/rest/stops HTTP/1.0", []);
    expect(none.status).toBe(400);
    const two = await rawRequest(port, "GET /api/v2/rest/stops HTTP/1.1", ["Host: abcd", "Host: efgh", `apikey: ${KEY}`]);
    expect(two.status).toBe(400);
  });

  test("directly: // and dot segments that survive are refused with 400; the public pages stay public", async () => {
    const a = await rawRequest(port, "GET //api/v2/rest/stops?limit=1 HTTP/1.1", ["Host: abc", `apikey: ${KEY}`]);
    expect(a.status).toBe(400);
    expect(JSON.parse(a.body).error).toContain("//");
    for (const path of ["/health", "/docs", "/docs/json", "/map", "/map/"]) {
      const r = await rawRequest(port, `GET ${path} HTTP/1.1`, ["Host: a"]);
      expect({ path, status: r.status }).toEqual({ path, status: 200 });
    }
    const root = await rawRequest(port, "GET / HTTP/1.1", ["Host: a"]);
    expect(root.status).toBe(302);
  });

  test("directly: /map paths that are not valid percent-encoding answer 400 (not 500), without a stack", async () => {
    for (const path of ["/map/%zz", "/map/%c0", "/map/vendor/%", "/map/vendor/%zz", "/map/%ff%fe"]) {
      const a = await rawRequest(port, `GET ${path} HTTP/1.1`, ["Host: abcd"]);
      expect({ path, status: a.status }).toEqual({ path, status: 400 });
      expect(leaks(a)).toBeNull();
    }
  });

  test("directly: the key in the header and in the query string combine sanely", async () => {
    const ask = (target: string, headers: string[]) => rawRequest(port, `GET ${target} HTTP/1.1`, ["Host: abcd", ...headers]);
    // an empty header does not spoil a good query key
    expect((await ask(`/api/v2/rest/stops?limit=1&apikey=${KEY}`, ["apikey: "])).status).toBe(200);
    expect((await ask("/api/v2/rest/stops?limit=1&apikey=", [`apikey: ${KEY}`])).status).toBe(200);
    expect((await ask(`/api/v2/rest/stops?limit=1&apikey=${KEY}`, [`apikey: ${KEY}`])).status).toBe(200);
    // two different keys are refused, whichever is valid
    const two = await ask("/api/v2/rest/stops?limit=1&apikey=someone-elses-key", [`apikey: ${KEY}`]);
    expect(two.status).toBe(401);
    expect(JSON.parse(two.body).error).toContain("different API keys");
    expect((await ask(`/api/v2/rest/stops?limit=1&apikey=${KEY}&apikey=other-key-9999`, [])).status).toBe(401);
    expect((await ask("/api/v2/rest/stops?limit=1", ["apikey: "])).status).toBe(401);
  });

  test("directly: next links and the Link header come from neither the client's Host nor its apikey", async () => {
    const a = await rawRequest(port, `GET /api/v2/rest/stops?limit=2&apikey=${KEY} HTTP/1.1`, ["Host: evil.example"]);
    expect(a.status).toBe(200);
    const next = JSON.parse(a.body).meta.next as string;
    expect(next).toBe("/api/v2/rest/stops?limit=2&after=2");
    const l = await rawRequest(port, "GET /api/v2/rest/stops.geojsonl?limit=2 HTTP/1.1", ["Host: evil.example", `apikey: ${KEY}`, "X-Forwarded-Host: evil.example", "X-Forwarded-Proto: https"]);
    expect(l.headers).toMatch(/\r\nlink: <\/api\/v2\/rest\/stops\.geojsonl\?limit=2&after=2>; rel="next"/i);
  });

  test("directly: /health says only that it is up without a key; the details (no absolute path) with one", async () => {
    const anon = await rawRequest(port, "GET /health HTTP/1.1", ["Host: abcd"]);
    expect(Object.keys(JSON.parse(anon.body)).sort()).toEqual(["status", "uptime_s"]);
    const keyed = await rawRequest(port, "GET /health HTTP/1.1", ["Host: abcd", `apikey: ${KEY}`]);
    const details = JSON.parse(keyed.body);
    expect(details.features.catalog.status).toBe("ok");
    expect(keyed.body).not.toMatch(/"\/(tmp|work|root|home)\//);
  });

  test("directly: /docs and /map are served from this server with a content security policy and no framing", async () => {
    for (const path of ["/docs", "/docs/assets/swagger-ui-bundle.js", "/docs/assets/init.js", "/map", "/map/app.js"]) {
      const a = await rawRequest(port, `GET ${path} HTTP/1.1`, ["Host: abcd"]);
      expect({ path, status: a.status }).toEqual({ path, status: 200 });
      expect(a.headers).toMatch(/content-security-policy: default-src 'self'/i);
      expect(a.headers).toMatch(/x-frame-options: DENY/i);
    }
    const page = await rawRequest(port, "GET /docs HTTP/1.1", ["Host: abcd"]);
    expect(page.body).not.toMatch(/https?:\/\//);
    expect((await rawRequest(port, "GET /docs/plugin-page HTTP/1.1", ["Host: abcd"])).status).toBe(404);
  });
});

describe("links behind a configured public URL or a trusted proxy", () => {
  const start = async (extra: string[]) => {
    const dir = await opsDataset();
    const { values } = parseFlags(["--data", dir, "--no-auth", "--port", "0", "--host", "127.0.0.1", "--workers", "1", ...extra], SERVE_FLAGS, {});
    return startServer(serverConfigFrom(values), { log: quiet });
  };

  test("--public-url: next links are absolute under it, whatever the request's Host or forwarded headers", async () => {
    const s = await start(["--public-url", "https://transit.example.org/"]);
    try {
      const a = await rawRequest(s.port, "GET /api/v2/rest/stops?limit=1 HTTP/1.1", ["Host: evil.example", "X-Forwarded-Host: evil2.example"]);
      expect(JSON.parse(a.body).meta.next).toBe("https://transit.example.org/api/v2/rest/stops?limit=1&after=1");
    } finally {
      await s.stop();
    }
  });

  test("--trusted-proxies: forwarded proto and host are honoured from the proxy's address only", async () => {
    const trusting = await start(["--trusted-proxies", "127.0.0.0/8"]);
    const distrusting = await start(["--trusted-proxies", "10.1.2.3"]);
    try {
      const fwd = ["Host: internal:8080", "X-Forwarded-Host: transit.example.org", "X-Forwarded-Proto: https"];
      const a = await rawRequest(trusting.port, "GET /api/v2/rest/stops?limit=1 HTTP/1.1", fwd);
      expect(JSON.parse(a.body).meta.next).toBe("https://transit.example.org/api/v2/rest/stops?limit=1&after=1");
      const b = await rawRequest(distrusting.port, "GET /api/v2/rest/stops?limit=1 HTTP/1.1", fwd);
      expect(JSON.parse(b.body).meta.next).toBe("/api/v2/rest/stops?limit=1&after=1");
      // a forwarded host that is not a host is not used
      const c = await rawRequest(trusting.port, "GET /api/v2/rest/stops?limit=1 HTTP/1.1", ["Host: abcd", "X-Forwarded-Host: evil example/x", "X-Forwarded-Proto: https"]);
      expect(JSON.parse(c.body).meta.next).toBe("/api/v2/rest/stops?limit=1&after=1");
    } finally {
      await trusting.stop();
      await distrusting.stop();
    }
  });
});
