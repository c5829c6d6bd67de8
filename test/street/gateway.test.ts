/**
 * FEATURE UNDER TEST: the street-routing gateway as a service (server/street/gateway.ts), without
 * HTTP: a typed StreetQuery in, a typed StreetAnswer out (status, headers, body), over the real
 * embedded engine on downtown San Francisco. Refusals and engine failures are thrown AppErrors
 * (HTTP statuses are the routes' business); the engine's own refusals are answers.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { CORS_HEADERS } from "../../server/cors.ts";
import { AppError } from "../../server/errors.ts";
import { EmbeddedEngine } from "../../server/street/embedded.ts";
import { ExternalValhallaEngine } from "../../server/street/engine.ts";
import { createGateway, type StreetGateway, type StreetQuery } from "../../server/street/gateway.ts";
import { streetDataset, tempDir } from "../support/dataset.ts";
import { startStandIn } from "../support/stand-in-engine.ts";
import { quietLog } from "../support/street-server.ts";

const A = { lat: 37.7793, lon: -122.4193 };
const B = { lat: 37.7895, lon: -122.3972 };
const JSON_CORS = { "access-control-allow-origin": "*", "content-type": "application/json" };

/** A query of `action`: a POST without parameters unless `parts` says otherwise. */
const query = (action: string, parts: Partial<StreetQuery> = {}): StreetQuery => ({
  method: "POST",
  action,
  params: new URLSearchParams(),
  body: "",
  signal: new AbortController().signal,
  ...parts,
});

/** The AppError a query is refused with. */
async function refusal(gateway: StreetGateway, q: StreetQuery): Promise<{ code: string; engineCode: unknown; message: string }> {
  const err = await gateway.handle(q).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  const e = err as AppError;
  return { code: e.code, engineCode: e.details.engineCode, message: e.message };
}

let engine: EmbeddedEngine;
let gateway: StreetGateway;

beforeAll(async () => {
  engine = new EmbeddedEngine({ dataDir: await streetDataset("sf", ["sf-downtown"]), allowHardExclusions: false, log: quietLog });
  await engine.reload();
  gateway = createGateway({ engine, allowHardExclusions: false, log: quietLog });
}, 300_000); // builds the street dataset, then starts an engine process

describe("street gateway service", () => {
  test("a route is answered with the engine's own answer, whole, with CORS and its content type", async () => {
    const body = JSON.stringify({ locations: [A, B], costing: "pedestrian" });
    const answer = await gateway.handle(query("route", { body }));
    const own = await engine.handle({ action: "route", body, query: "", merged: () => body, signal: new AbortController().signal });
    expect(typeof own.body).toBe("string");
    expect(answer).toEqual({ status: 200, headers: JSON_CORS, body: own.body });
  });

  test("GET takes the JSON from the json parameter (its body is not read); other parameters are top-level fields, apikey is not", async () => {
    const json = JSON.stringify({ locations: [A, B], costing: "auto" });
    const get = await gateway.handle(query("route", { method: "GET", params: new URLSearchParams({ json, units: "miles", apikey: "k" }), body: "{" }));
    const post = await gateway.handle(query("route", { body: JSON.stringify({ locations: [A, B], costing: "auto", units: "miles" }) }));
    expect(get).toEqual(post);
    expect(JSON.parse(get.body as string).trip.units).toBe("miles");
  });

  test("hard exclusions are dropped and the answer carries warning 208, in a header and in the JSON", async () => {
    const body = JSON.stringify({ locations: [A, B], costing: "auto", costing_options: { auto: { exclude_tolls: true } } });
    const answer = await gateway.handle(query("route", { body }));
    const warning = { code: 208, text: "Hard exclusions are not allowed on this server, ignoring hard excludes" };
    expect({ status: answer.status, headers: answer.headers }).toEqual({ status: 200, headers: { ...JSON_CORS, "x-interchange-warning": `208 ${warning.text}` } });
    const json = JSON.parse(answer.body as string) as { warnings: unknown[]; trip: { warnings: unknown[] } };
    expect([json.warnings, json.trip.warnings]).toEqual([[warning], [warning]]);
  });

  test("a gpx route keeps its content type", async () => {
    const answer = await gateway.handle(query("route", { body: JSON.stringify({ locations: [A, B], costing: "auto", format: "gpx" }) }));
    expect(answer.headers["content-type"]).toBe("application/gpx+xml");
    expect(answer.body as string).toStartWith("<?xml");
  });

  test("status needs no request", async () => {
    const answer = await gateway.handle(query("status", { method: "GET" }));
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body as string)).toHaveProperty("version");
  });

  test("bad requests are thrown as AppError with Valhalla's code, before the engine", async () => {
    expect(await refusal(gateway, query("route", { body: "{" }))).toMatchObject({ code: "INVALID_PARAMETER", engineCode: 100 });
    expect(await refusal(gateway, query("route", { body: JSON.stringify({ locations: [A], costing: "auto" }) }))).toMatchObject({ code: "INVALID_PARAMETER", engineCode: 120 });
    expect(await refusal(gateway, query("route", { body: JSON.stringify({ locations: [A, B], costing: "auto", format: "pbf" }) }))).toMatchObject({ code: "INVALID_PARAMETER", engineCode: 199 });
  });

  test("the engine's own refusal is an answer: its status and its Valhalla body", async () => {
    // a point in the Pacific, 150 km from any street
    const body = JSON.stringify({ locations: [A, { lat: 36.5, lon: -123.5 }], costing: "auto" });
    const answer = await gateway.handle(query("route", { body }));
    const own = await engine.handle({ action: "route", body, query: "", merged: () => body, signal: new AbortController().signal });
    expect(answer).toEqual({ status: 400, headers: JSON_CORS, body: own.body });
    expect(JSON.parse(answer.body as string)).toMatchObject({ error_code: 171, status_code: 400 });
  });

  test("preflight, other methods and unknown actions are answered as Valhalla's server answers them", async () => {
    expect(await gateway.handle(query("route", { method: "OPTIONS" }))).toEqual({ status: 204, headers: CORS_HEADERS, body: null });
    expect(await gateway.handle(query("route", { method: "PUT", body: "{}" }))).toEqual({
      status: 405,
      headers: { ...JSON_CORS, allow: "GET, POST, OPTIONS" },
      body: JSON.stringify({ error: "Try a POST or GET request instead", error_code: 101, status: "Method Not Allowed", status_code: 405 }),
    });
    const unknown = await gateway.handle(query("nope"));
    expect({ status: unknown.status, headers: unknown.headers }).toEqual({ status: 404, headers: JSON_CORS });
    expect(JSON.parse(unknown.body as string)).toMatchObject({ error_code: 106, status: "Not Found", status_code: 404 });
  });

  test("without a street dataset, a valid request fails with ENGINE_UNAVAILABLE; validation still comes first", async () => {
    const none = new EmbeddedEngine({ dataDir: tempDir(), allowHardExclusions: false, log: quietLog });
    await none.reload();
    const g = createGateway({ engine: none, allowHardExclusions: false, log: quietLog });
    expect(await refusal(g, query("route", { body: JSON.stringify({ locations: [A, B], costing: "auto" }) }))).toMatchObject({ code: "ENGINE_UNAVAILABLE" });
    expect(await refusal(g, query("route", { body: "{" }))).toMatchObject({ code: "INVALID_PARAMETER", engineCode: 100 });
  });

  test("an external engine's answer stays a byte stream (never held whole)", async () => {
    const standIn = startStandIn();
    try {
      standIn.mode = "big";
      standIn.bigBytes = 4 << 20;
      const g = createGateway({ engine: new ExternalValhallaEngine(standIn.url, 2000), allowHardExclusions: false, log: quietLog });
      const answer = await g.handle(query("expansion", { body: JSON.stringify({ costing: "auto", locations: [A], action: "isochrone", contours: [{ time: 5 }] }) }));
      expect(answer.status).toBe(200);
      expect(answer.body).toBeInstanceOf(ReadableStream);
      let bytes = 0;
      for await (const chunk of answer.body as ReadableStream<Uint8Array>) bytes += chunk.byteLength;
      expect(bytes).toBeGreaterThan(4 << 20);
    } finally {
      await standIn.stop();
    }
  });
});
