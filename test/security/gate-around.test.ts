/**
 * The request gate as a function (server/gate.ts gate): what it does around the app's answers
 * without a promise of its own (an answer given at once is returned at once), the CORS header
 * (server/cors.ts withCorsHeader) and one observation per request whatever answered it, and the
 * Host it remembers as valid never letting a bad one through. The gate behind a real server is
 * test/security/gate.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { withCorsHeader } from "../../server/cors.ts";
import { type FetchHandler, gate } from "../../server/gate.ts";

interface Seen {
  status: number;
  path: string;
}

/** A gate over `handle` with the service's CORS header; the requests it observed and the errors it logged. */
function gated(handle: FetchHandler) {
  const seen: Seen[] = [];
  const errors: string[] = [];
  const fetch = gate(handle, { error: (msg) => errors.push(msg) }, { answered: withCorsHeader, done: (r, status, t0) => {
    expect(t0).toBeLessThanOrEqual(performance.now());
    seen.push({ status, path: new URL(r.url).pathname });
  } });
  return { fetch, seen, errors };
}

const get = (path: string, host = "example.org") => new Request(`http://${host}${path}`, { headers: { host } });

describe("the gate around the app", () => {
  test("an answer given at once is returned at once (no promise), with the CORS header under the API prefixes", () => {
    const { fetch, seen } = gated(() => new Response("{}", { headers: { "content-type": "application/json" } }));
    const a = fetch(get("/api/v2/rest/stops/x"));
    expect(a).toBeInstanceOf(Response);
    expect((a as Response).headers.get("access-control-allow-origin")).toBe("*");
    const b = fetch(get("/map/")) as Response;
    expect(b.headers.has("access-control-allow-origin")).toBe(false);
    expect(seen).toEqual([
      { status: 200, path: "/api/v2/rest/stops/x" },
      { status: 200, path: "/map/" },
    ]);
  });

  test("a promised answer is one promise of the same answer, observed once it is there", async () => {
    const res = new Response("late", { status: 404 });
    const { fetch, seen } = gated(() => Bun.sleep(5).then(() => res));
    const p = fetch(get("/api/v2/routing/otp/plan"));
    expect(p).toBeInstanceOf(Promise);
    expect(seen).toEqual([]);
    const a = await p;
    expect(a).toBe(res);
    expect(a.headers.get("access-control-allow-origin")).toBe("*");
    expect(seen).toEqual([{ status: 404, path: "/api/v2/routing/otp/plan" }]);
  });

  test("a throw or a rejection is a bare JSON 500, logged and observed; refusals are observed too", async () => {
    const { fetch, seen, errors } = gated((r) => {
      if (r.url.endsWith("/throw")) throw new Error("boom at /secret/path.ts:1");
      return Promise.reject(new Error("rejected"));
    });
    const thrown = fetch(get("/api/v2/rest/throw")) as Response;
    const rejected = await fetch(get("/api/v2/rest/reject"));
    for (const a of [thrown, rejected]) {
      expect(a.status).toBe(500);
      const body = await a.text();
      expect(body).not.toContain("boom");
      expect(body).not.toContain("rejected");
    }
    expect(errors).toEqual(["unhandled error", "unhandled error"]);
    const refused = fetch(get("/api//v2/rest/stops")) as Response;
    expect(refused.status).toBe(400);
    expect(seen.map((s) => s.status)).toEqual([500, 500, 400]);
  });

  test("the Host remembered as valid lets no other through: a bad Host after a good one is still refused", () => {
    let answered = 0;
    const { fetch } = gated(() => {
      answered++;
      return new Response("ok");
    });
    const ask = (host: string | null) => {
      const headers = new Headers();
      if (host !== null) headers.set("host", host);
      return (fetch(new Request("http://example.org/health", { headers })) as Response).status;
    };
    expect(ask("")).toBe(400); // before any Host was found valid
    expect(ask("example.org")).toBe(200);
    expect(ask("example.org")).toBe(200);
    for (const bad of ["a b", "x]", "a:b:c", "", "example.org:99999", "example.org, other.org"]) expect({ bad, status: ask(bad) }).toEqual({ bad, status: 400 });
    expect(ask(null)).toBe(400);
    expect(ask("example.org")).toBe(200);
    expect(ask("other.example:8080")).toBe(200);
    expect(answered).toBe(4);
  });
});
