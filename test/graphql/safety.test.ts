/**
 * The GTFS GraphQL API's limits and access rules end to end: hostile documents (depth 50, 10k
 * aliases, 1 MB, 1000 plan fields) refused with a GraphQL error and a 4xx, quickly; API keys on
 * the GraphQL paths as on REST, refusals in the GraphQL error shape; each request counted by the
 * account's rate limit like a REST request.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { catalogServer, type TestServer } from "../catalog/harness.ts";

let s: TestServer;
const KEY = "gql-test-key";
const LIMITED = "gql-limited-key";
beforeAll(async () => {
  s = await catalogServer("graphql-bart-caltrain", ["bart", "caltrain"], { apiKeys: [{ key: KEY, account: "gql" }, { key: LIMITED, account: "limited", rate_limit_per_minute: 3 } as { key: string; account: string }] });
}, 180_000);
afterAll(() => s?.stop());

async function post(body: string, headers: Record<string, string> = {}): Promise<{ status: number; body: any; ms: number }> {
  const t0 = performance.now();
  const r = await fetch(`${s.url}/otp/gtfs/v1?apikey=${KEY}`, { method: "POST", headers: { "content-type": "application/json", accept: "application/graphql-response+json", ...headers }, body });
  const text = await r.text();
  return { status: r.status, body: JSON.parse(text), ms: performance.now() - t0 };
}
const query = (q: string) => post(JSON.stringify({ query: q }));

describe("hostile documents", () => {
  test("depth 50: QUERY_TOO_DEEP, 400", async () => {
    let sel = "gtfsId";
    for (let i = 0; i < 49; i++) sel = `parentStation { ${sel} }`;
    const r = await query(`{ stop(id: "a:b") { ${sel} } }`);
    expect(r.status).toBe(400);
    expect(r.body.errors.map((e: any) => e.extensions?.code)).toContain("QUERY_TOO_DEEP");
  });

  test("depth through fragments is counted too", async () => {
    const frags = Array.from({ length: 30 }, (_, i) => `fragment F${i} on Stop { parentStation { ...F${i + 1} } }`).join("\n");
    const r = await query(`{ stop(id: "a:b") { ...F0 } } ${frags} fragment F30 on Stop { gtfsId }`);
    expect(r.status).toBe(400);
    expect(r.body.errors.map((e: any) => e.extensions?.code)).toContain("QUERY_TOO_DEEP");
  });

  test("100 aliases: TOO_MANY_ALIASES; 10k aliases: refused by the token limit", async () => {
    const few = await query(`{ ${Array.from({ length: 100 }, (_, i) => `a${i}: feeds { feedId }`).join(" ")} }`);
    expect(few.status).toBe(400);
    expect(few.body.errors.map((e: any) => e.extensions?.code)).toContain("TOO_MANY_ALIASES");
    const many = await post(JSON.stringify({ query: `{ ${Array.from({ length: 10_000 }, (_, i) => `a${i}: __typename`).join(" ")} }` }));
    expect([400, 413]).toContain(many.status);
    expect(many.body.errors.length).toBe(1);
    expect(many.ms).toBeLessThan(5_000);
  });

  test("a POST that is not JSON: 415 with a GraphQL error body, not an empty one", async () => {
    const r = await post("{ feeds { feedId } }", { "content-type": "text/plain" });
    expect(r.status).toBe(415);
    expect(r.body.errors[0].extensions.code).toBe("UNSUPPORTED_MEDIA_TYPE");
  });

  test("a 1 MB document: 413 REQUEST_TOO_LARGE", async () => {
    const r = await post(JSON.stringify({ query: `{ feeds { feedId } } # ${"x".repeat(1_000_000)}` }));
    expect(r.status).toBe(413);
    expect(r.body.errors[0].extensions.code).toBe("REQUEST_TOO_LARGE");
  });

  test("over 5000 tokens: refused at parse, before validation", async () => {
    const r = await query(`{ ${Array.from({ length: 5200 }, () => "__typename").join(" ")} }`);
    expect(r.status).toBe(400);
    expect(r.body.errors[0].message).toContain("token");
  });

  test("plan fields: 4 plans TOO_MANY_PLANS, 1000 through a fragment refused; a bounded count passes validation", async () => {
    const plan = `plan(from: {lat: 1, lon: 1}, to: {lat: 2, lon: 2}) { itineraries { duration } }`;
    const four = await query(`{ ${[1, 2, 3, 4].map((i) => `p${i}: ${plan}`).join(" ")} }`);
    expect(four.status).toBe(400);
    expect(four.body.errors.map((e: any) => e.extensions?.code)).toContain("TOO_MANY_PLANS");
    // one fragment of plans spread many times: the spreads count
    const spread = await query(`{ ...P ...P ...P ...P } fragment P on QueryType { ${plan} }`);
    expect(spread.body.errors.map((e: any) => e.extensions?.code)).toContain("TOO_MANY_PLANS");
    const thousand = await post(JSON.stringify({ query: `{ ${Array.from({ length: 1000 }, (_, i) => `p${i}: planConnection(origin: {location: {coordinate: {latitude: 1, longitude: 1}}}, destination: {location: {coordinate: {latitude: 2, longitude: 2}}}) { edges { cursor } }`).join(" ")} }` }));
    expect([400, 413]).toContain(thousand.status);
    const one = await query(`{ ${plan} }`);
    expect(one.status).toBe(200);
    // runs (this dataset has no timetable: UNAVAILABLE; test/graphql/plan.test.ts plans)
    expect(one.body.errors[0].extensions.code).toBe("UNAVAILABLE");
  });
});

describe("API keys and rate limits", () => {
  test("no key: 401 in the GraphQL error shape, on both paths and methods", async () => {
    for (const [method, path] of [["POST", "/otp/gtfs/v1"], ["GET", "/otp/gtfs/v1?query=%7Bfeeds%7BfeedId%7D%7D"], ["POST", "/otp/routers/default/index/graphql"]]) {
      const r = await fetch(s.url + path, { method, headers: { "content-type": "application/json" }, body: method === "POST" ? JSON.stringify({ query: "{ feeds { feedId } }" }) : undefined });
      expect(r.status).toBe(401);
      const body: any = await r.json();
      expect(body.errors[0].extensions.code).toBe("UNAUTHORIZED");
      expect(body.data).toBeUndefined();
    }
  });

  test("with the key in the header or the query string: answered", async () => {
    const r = await fetch(`${s.url}/otp/gtfs/v1`, { method: "POST", headers: { "content-type": "application/json", apikey: KEY }, body: JSON.stringify({ query: "{ feeds { feedId } }" }) });
    const body: any = await r.json();
    expect(r.status).toBe(200);
    expect(body.data.feeds.length).toBe(2);
  });

  test("GraphQL and REST requests draw on the same account rate: the fourth of 3/min is 429 in the GraphQL shape", async () => {
    const gqlReq = () => fetch(`${s.url}/otp/gtfs/v1`, { method: "POST", headers: { "content-type": "application/json", apikey: LIMITED }, body: JSON.stringify({ query: "{ feeds { feedId } }" }) });
    expect((await gqlReq()).status).toBe(200);
    expect((await s.get("/api/v2/rest/routes?limit=1", { apikey: LIMITED })).status).toBe(200);
    expect((await gqlReq()).status).toBe(200);
    const refused = await gqlReq();
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).not.toBeNull();
    const body: any = await refused.json();
    expect(body.errors[0].extensions.code).toBe("RATE_LIMITED");
  });
});
