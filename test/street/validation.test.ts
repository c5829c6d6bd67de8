/**
 * Validation contract: every case of ./cases.ts is sent to the real server in front of a stand-in
 * engine. Accepted cases reach the engine byte for byte; refused ones get the spec's 400 body with
 * the expected Valhalla code and a message naming the field (and the range), and never reach it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type StandIn, startStandIn } from "../support/stand-in-engine.ts";
import { type Gateway, startGateway } from "../support/street-server.ts";
import { ALL_CASES } from "./cases.ts";

let engine: StandIn;
let gw: Gateway;

beforeAll(async () => {
  engine = startStandIn();
  gw = await startGateway({ valhallaUrl: engine.url });
});
afterAll(async () => {
  await gw.stop();
  await engine.stop();
});

for (const [action, cases] of Object.entries(ALL_CASES)) {
  describe(`${action} request`, () => {
    for (const c of cases) {
      test(c.name, async () => {
        const before = engine.received.length;
        const text = JSON.stringify(c.body);
        const res = await gw.post(c.action, text);
        if (c.code === null) {
          const body = await res.text();
          expect({ status: res.status, body: res.status === 200 ? "" : body }).toEqual({ status: 200, body: "" });
          expect(engine.received.length).toBe(before + 1);
          expect(engine.received.at(-1)!.body).toBe(c.forwarded === undefined ? text : JSON.stringify(c.forwarded));
          return;
        }
        expect(res.status).toBe(400);
        expect(res.headers.get("content-type")).toContain("application/json");
        const body = (await res.json()) as { error: string; error_code: number; status: string; status_code: number };
        expect({ error_code: body.error_code, status: body.status, status_code: body.status_code }).toEqual({ error_code: c.code, status: "Bad Request", status_code: 400 });
        for (const m of c.mentions ?? []) expect(body.error).toContain(m);
        expect(engine.received.length).toBe(before);
      });
    }
  });
}

describe("request JSON", () => {
  test("unparsable JSON body is refused with code 100", async () => {
    const res = await gw.post("route", '{"costing": "auto", ');
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error_code: number }).error_code).toBe(100);
  });

  test("unparsable json= parameter is refused with code 100", async () => {
    const res = await gw.get("route", "{nope");
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error_code: 100, status: "Bad Request", status_code: 400 });
  });

  test("a JSON array is refused with code 100", async () => {
    const res = await gw.post("isochrone", "[]");
    expect(await res.json()).toMatchObject({ error_code: 100, status_code: 400 });
  });

  test("an empty body is read as {} and refused for its missing locations", async () => {
    const res = await fetch(`${gw.street}/route`, { method: "POST" });
    expect(await res.json()).toMatchObject({ error_code: 110, status_code: 400 });
  });

  test("query parameters count as top-level fields the JSON does not set", async () => {
    const res = await fetch(`${gw.street}/route?json=${encodeURIComponent(JSON.stringify({ locations: [{ lat: 1, lon: 2 }, { lat: 1, lon: 3 }] }))}&costing=multimodal`);
    expect(await res.json()).toMatchObject({ error_code: 125 });
  });
});

describe("status request", () => {
  test("durations on /status?json= is refused with 136 and never reaches the engine (it crashed the engine)", async () => {
    const before = engine.received.length;
    const res = await fetch(`${gw.url}/api/v2/routing/valhalla/status?json=${encodeURIComponent('{"durations":[]}')}`);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error_code: 136, status_code: 400 });
    expect(engine.received.length).toBe(before);
  });
  test("verbose not a boolean is refused; a plain status and verbose true are forwarded", async () => {
    const bad = await gw.post("status", JSON.stringify({ verbose: "yes" }));
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error_code: 199 });
    const before = engine.received.length;
    expect((await fetch(`${gw.url}/api/v2/routing/valhalla/status`)).status).toBe(200);
    expect((await gw.post("status", JSON.stringify({ verbose: true }))).status).toBe(200);
    expect(engine.received.length).toBe(before + 2);
  });
});
