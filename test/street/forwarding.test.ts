/**
 * Forwarding contract: what reaches the engine (same action, JSON byte for byte, no apikey), what
 * comes back (engine success and Valhalla errors passed through), and what the client gets when
 * the engine fails (503 text/plain): garbage, crash, silence, dropped connection, stopped engine.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { NO_STREETS_MESSAGE } from "../../server/street/embedded.ts";
import { type StandIn, VALHALLA_ERROR_BODY, startDroppingServer, startStandIn, successBody } from "../support/stand-in-engine.ts";
import { type Gateway, startGateway } from "../support/street-server.ts";

const ROUTE = '{ "costing":"auto",\n  "locations":[{"lat":52.52,"lon":13.405},{"lat":52.53,"lon":13.41}], "x-unknown": [1,2,3] }';

let engine: StandIn;
let gw: Gateway;

beforeAll(async () => {
  engine = startStandIn();
  gw = await startGateway({ valhallaUrl: engine.url, valhallaTimeoutMs: 300 });
});
afterAll(async () => {
  await gw.stop();
  await engine.stop();
});
afterEach(() => {
  engine.mode = "success";
});

describe("forwarding to the engine", () => {
  test("POST body is forwarded as the JSON that was validated (re-serialized) to the same action", async () => {
    const res = await gw.post("route", ROUTE, { apikey: "ignored-with-no-auth" });
    expect(res.status).toBe(200);
    const got = engine.received.at(-1)!;
    expect({ method: got.method, path: got.path, query: got.query, contentType: got.contentType, body: got.body }).toEqual({
      method: "POST",
      path: "/route",
      query: "",
      contentType: "application/json",
      // the parsed, validated object written again: a key sent twice reaches the engine once (its last value)
      body: JSON.stringify(JSON.parse(ROUTE)),
    });
    expect(got.headers.apikey).toBeUndefined();
  });

  test("GET ?json= is forwarded as the same JSON body; apikey stays behind, other parameters follow", async () => {
    const res = await fetch(`${gw.street}/isochrone?json=${encodeURIComponent('{"costing":"pedestrian","locations":[{"lat":1,"lon":2}],"contours":[{"time":5}]}')}&apikey=k&id=abc`);
    expect(res.status).toBe(200);
    const got = engine.received.at(-1)!;
    expect({ method: got.method, path: got.path, query: got.query, body: got.body }).toEqual({
      method: "POST",
      path: "/isochrone",
      query: "id=abc",
      body: '{"costing":"pedestrian","locations":[{"lat":1,"lon":2}],"contours":[{"time":5}]}',
    });
  });

  test("every action reaches the engine path of the same name", async () => {
    const bodies: Record<string, unknown> = {
      route: { costing: "auto", locations: [{ lat: 1, lon: 2 }, { lat: 1, lon: 3 }] },
      isochrone: { costing: "auto", locations: [{ lat: 1, lon: 2 }], contours: [{ time: 5 }] },
      expansion: { costing: "auto", locations: [{ lat: 1, lon: 2 }], action: "isochrone", contours: [{ time: 5 }] },
      height: { shape: [{ lat: 1, lon: 2 }] },
      locate: { locations: [{ lat: 1, lon: 2 }], verbose: true },
      centroid: { costing: "auto", locations: [{ lat: 1, lon: 2 }, { lat: 1, lon: 3 }] },
    };
    for (const [action, body] of Object.entries(bodies)) {
      const res = await gw.post(action, body);
      expect({ action, status: res.status, body: await res.text() }).toEqual({ action, status: 200, body: successBody(action) });
      expect(engine.received.at(-1)!.path).toBe(`/${action}`);
    }
  });

  test("status is forwarded as a bodiless GET", async () => {
    const res = await gw.get("status");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(JSON.parse(successBody("status")));
    const got = engine.received.at(-1)!;
    expect({ method: got.method, path: got.path, body: got.body }).toEqual({ method: "GET", path: "/status", body: "" });
  });

  test("the engine's success is passed through with its status, type and body, and CORS", async () => {
    const res = await gw.post("locate", { locations: [{ lat: 1, lon: 2 }] });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json;charset=utf-8");
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(await res.text()).toBe(successBody("locate"));
  });

  test("the engine's own 400 error is passed through unchanged", async () => {
    engine.mode = "valhalla-error";
    const res = await gw.post("route", ROUTE);
    expect(res.status).toBe(400);
    expect(await res.text()).toBe(VALHALLA_ERROR_BODY);
  });

  test("a large answer is streamed through intact", async () => {
    engine.mode = "big";
    engine.bigBytes = 24 << 20;
    const res = await gw.post("expansion", { costing: "auto", locations: [{ lat: 1, lon: 2 }], action: "isochrone", contours: [{ time: 5 }] });
    expect(res.status).toBe(200);
    const body = await res.text();
    expect(body.length).toBeGreaterThan(24 << 20);
    expect((JSON.parse(body) as { features: unknown[] }).features.length).toBeGreaterThan(24_000);
  });
});

describe("engine failures answer 503 text/plain", () => {
  const expect503 = async (res: Response, text?: RegExp) => {
    expect(res.status).toBe(503);
    expect(res.headers.get("content-type")).toStartWith("text/plain");
    const body = await res.text();
    expect(() => JSON.parse(body)).toThrow();
    if (text) expect(body).toMatch(text);
  };

  test("garbage instead of JSON", async () => {
    engine.mode = "garbage";
    await expect503(await gw.post("route", ROUTE), /invalid answer/);
  });

  test("an engine crash (HTTP 500)", async () => {
    engine.mode = "server-error";
    await expect503(await gw.post("route", ROUTE), /HTTP 500/);
  });

  test("no answer within the time-out", async () => {
    engine.mode = "hang";
    await expect503(await gw.post("route", ROUTE), /did not answer within 300 ms/);
  });

  test("headers, then silence past the time-out", async () => {
    engine.mode = "stall";
    await expect503(await gw.post("route", ROUTE), /did not answer within 300 ms|stopped answering/);
  });

  test("connection closed without an answer", async () => {
    const dropping = startDroppingServer();
    const g = await startGateway({ valhallaUrl: dropping.url });
    try {
      await expect503(await g.post("route", ROUTE), /unreachable/);
    } finally {
      await g.stop();
      dropping.stop();
    }
  });

  test("engine stopped mid-test, and the embedded engine without a street dataset", async () => {
    const e = startStandIn();
    const g = await startGateway({ valhallaUrl: e.url });
    try {
      expect((await g.post("route", ROUTE)).status).toBe(200);
      await e.stop();
      await expect503(await g.post("route", ROUTE), /unreachable/);
      await expect503(await g.get("status"), /unreachable/);
    } finally {
      await g.stop();
    }
    const none = await startGateway({ valhallaUrl: null });
    try {
      await expect503(await none.post("route", ROUTE), new RegExp(NO_STREETS_MESSAGE.replace(/[()`.]/g, "\\$&")));
      // validation still comes first
      expect((await none.post("route", "{")).status).toBe(400);
    } finally {
      await none.stop();
    }
  });
});

describe("hard exclusions", () => {
  const body = {
    costing: "auto",
    locations: [{ lat: 1, lon: 2 }, { lat: 1, lon: 3 }],
    costing_options: { auto: { exclude_tolls: true, exclude_bridges: false, use_tolls: 0.2 }, bicycle: { exclude_ferries: true } },
  };

  test("are removed from the forwarded request and answered with warning 208 when not allowed", async () => {
    const res = await gw.post("route", body);
    expect(res.status).toBe(200);
    expect(JSON.parse(engine.received.at(-1)!.body)).toEqual({
      costing: "auto",
      locations: body.locations,
      costing_options: { auto: { exclude_bridges: false, use_tolls: 0.2 }, bicycle: {} },
    });
    const warning = { code: 208, text: "Hard exclusions are not allowed on this server, ignoring hard excludes" };
    expect(res.headers.get("x-interchange-warning")).toBe(`208 ${warning.text}`);
    const answer = (await res.json()) as { warnings: unknown[]; trip: { warnings: unknown[] } };
    expect(answer.warnings).toEqual([warning]);
    expect(answer.trip.warnings).toEqual([warning]);
  });

  test("an array answer (locate) keeps its body and carries the warning header", async () => {
    const res = await gw.post("locate", { locations: [{ lat: 1, lon: 2 }], costing: "auto", costing_options: { auto: { exclude_highways: true } } });
    expect(await res.text()).toBe(successBody("locate"));
    expect(res.headers.get("x-interchange-warning")).toStartWith("208 ");
  });

  test("are forwarded untouched when the server allows them", async () => {
    const e = startStandIn();
    const g = await startGateway({ valhallaUrl: e.url, allowHardExclusions: true });
    try {
      const text = JSON.stringify(body);
      const res = await g.post("route", text);
      expect(e.received.at(-1)!.body).toBe(text);
      expect(res.headers.get("x-interchange-warning")).toBeNull();
      expect(await res.text()).toBe(successBody("route"));
    } finally {
      await g.stop();
      await e.stop();
    }
  });

  test("a non-boolean hard exclusion is refused", async () => {
    const res = await gw.post("route", { ...body, costing_options: { auto: { exclude_tunnels: "yes" } } });
    expect(await res.json()).toMatchObject({ error_code: 199, status_code: 400 });
  });
});

describe("HTTP surface", () => {
  test("CORS preflight is answered 204 without an API key", async () => {
    const res = await fetch(`${gw.street}/route`, { method: "OPTIONS", headers: { origin: "https://example.org", "access-control-request-method": "POST" } });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("access-control-allow-methods")).toContain("POST");
    expect(res.headers.get("access-control-allow-headers")).toContain("apikey");
    expect(res.headers.get("access-control-allow-headers")).toContain("content-type");
  });

  test("other methods get 405 with code 101", async () => {
    const res = await fetch(`${gw.street}/route`, { method: "PUT", body: "{}" });
    expect(res.status).toBe(405);
    expect(await res.json()).toEqual({ error: "Try a POST or GET request instead", error_code: 101, status: "Method Not Allowed", status_code: 405 });
  });

  test("an unknown action gets 404 with code 106", async () => {
    const res = await gw.get("nope", {});
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error_code: 106, status: "Not Found", status_code: 404 });
  });

  test("refusals carry CORS too", async () => {
    const res = await gw.post("route", "{");
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
  });
});
