/**
 * The contract suite against a real engine, when VALHALLA_URL is set (skipped otherwise):
 * refusals never depend on the engine; valid requests get the engine's own answer (2xx or its
 * Valhalla error JSON), never our 503. VALHALLA_TEST_LOCATIONS may give two "lat,lon;lat,lon"
 * points inside the engine's tiles (default: central Berlin).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Gateway, startGateway } from "../support/street-server.ts";
import { ALL_CASES } from "./cases.ts";

const LIVE = process.env.VALHALLA_URL;

describe.skipIf(!LIVE)("against the real engine at VALHALLA_URL", () => {
  let gw: Gateway;
  const [a, b] = (process.env.VALHALLA_TEST_LOCATIONS ?? "52.5200,13.4050;52.5163,13.3777").split(";").map((p) => {
    const [lat, lon] = p.split(",").map(Number);
    return { lat: lat!, lon: lon! };
  });

  beforeAll(async () => {
    gw = await startGateway({ valhallaUrl: LIVE, valhallaTimeoutMs: 30_000 });
  });
  afterAll(async () => {
    await gw?.stop();
  });

  test("status answers with the engine's version", async () => {
    const res = await gw.get("status");
    expect(res.status).toBe(200);
    expect(await res.json()).toHaveProperty("version");
  });

  test("a route by GET json= and by POST gets the same engine answer", async () => {
    const req = { costing: "auto", locations: [a, b], directions_type: "none" };
    const [viaGet, viaPost] = await Promise.all([gw.get("route", req), gw.post("route", req)]);
    expect(viaGet.status).toBe(viaPost.status);
    expect([200, 400]).toContain(viaPost.status);
    expect(viaPost.headers.get("content-type")).toContain("json");
  });

  for (const [action, cases] of Object.entries(ALL_CASES)) {
    test(`${action}: every refusal is made by the gateway, every accepted case answered by the engine`, async () => {
      for (const c of cases) {
        const res = await gw.post(c.action, c.body);
        if (c.code !== null) {
          expect({ name: c.name, code: ((await res.json()) as { error_code: number }).error_code }).toEqual({ name: c.name, code: c.code });
        } else {
          expect({ name: c.name, gatewayFailure: res.status === 503 }).toEqual({ name: c.name, gatewayFailure: false });
          await res.body?.cancel();
        }
      }
    }, 120_000);
  }
});
