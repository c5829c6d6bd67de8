/**
 * The gateway's contract suite against real engines: the embedded engine over the downtown San
 * Francisco street dataset (always), and an external Valhalla when VALHALLA_URL is set. Refusals
 * never depend on the engine; valid requests get the engine's own answer (2xx or its Valhalla error
 * JSON), never our 503. VALHALLA_TEST_LOCATIONS may give two "lat,lon;lat,lon" points inside the
 * external engine's tiles (default: central Berlin).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { streetDataset } from "../support/dataset.ts";
import { type Gateway, type GatewayOptions, startGateway } from "../support/street-server.ts";
import { ALL_CASES } from "./cases.ts";

type Point = { lat: number; lon: number };

function contractSuite(name: string, options: () => Promise<GatewayOptions>, [a, b]: [Point, Point], skip = false) {
  describe.skipIf(skip)(name, () => {
    let gw: Gateway;
    beforeAll(async () => {
      gw = await startGateway({ valhallaTimeoutMs: 30_000, ...(await options()) });
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
            expect({ name: c.name, gatewayFailure: res.status >= 500 }).toEqual({ name: c.name, gatewayFailure: false });
            await res.body?.cancel();
          }
        }
      }, 120_000);
    }
  });
}

const SF: [Point, Point] = [{ lat: 37.7793, lon: -122.4193 }, { lat: 37.7895, lon: -122.3972 }];
contractSuite("against the embedded engine (downtown San Francisco)", async () => ({ dataDir: await streetDataset("sf", ["sf-downtown"]) }), SF);

const LIVE = process.env.VALHALLA_URL;
const livePoints = (process.env.VALHALLA_TEST_LOCATIONS ?? "52.5200,13.4050;52.5163,13.3777").split(";").map((p) => {
  const [lat, lon] = p.split(",").map(Number);
  return { lat: lat!, lon: lon! };
}) as [Point, Point];
contractSuite("against the external engine at VALHALLA_URL", async () => ({ valhallaUrl: LIVE }), livePoints, !LIVE);
