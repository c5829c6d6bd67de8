/**
 * FEATURE UNDER TEST: the fuzzer's answer contract (contract.ts) accepts the documented bodies of
 * each family and refuses the rest, so a passing fuzz run means something.
 */
import { describe, expect, test } from "bun:test";
import { type Answer, violation } from "./contract.ts";
import type { Family } from "./hostile.ts";

const json = (status: number, body: unknown): Answer => ({ status, contentType: "application/json", body: new TextEncoder().encode(JSON.stringify(body)) });
const text = (status: number, body: string): Answer => ({ status, contentType: "text/plain; charset=utf-8", body: new TextEncoder().encode(body) });

describe("the fuzzer's answer contract", () => {
  test.each<[string, Family, Answer]>([
    ["a catalog 400", "catalog", json(400, { error: "limit must be an integer", parameter: "limit", allowed: "1..1000" })],
    ["a catalog 404", "catalog", json(404, { error: "stop not found: x" })],
    ["a 401 anywhere", "street", json(401, { error: "missing API key" })],
    ["the service's 429", "plan", text(429, "rate limit exceeded")],
    ["an OTP refusal", "plan", json(400, { requestParameters: { fromPlace: "x" }, error: { id: 400, msg: "bad", message: "BOGUS_PARAMETER", noPath: true, missing: ["fromPlace"] } })],
    ["a Valhalla refusal", "street", json(400, { error: "Failed to parse json request", error_code: 100, status: "Bad Request", status_code: 400 })],
    ["the engine unreachable", "street", text(503, "routing engine unreachable")],
    ["an unknown path", "other", json(404, { error: "no such path: /x" })],
    ["a 200 JSON answer", "catalog", json(200, { stops: [] })],
  ])("accepts %s", (_, family, answer) => {
    expect(violation(family, "GET", answer)).toBeNull();
  });

  test.each<[string, Family, Answer]>([
    ["a 500", "catalog", json(500, { error: "internal server error" })],
    ["a 503 from the catalog", "catalog", text(503, "not loaded")],
    ["a JSON 503 from the street", "street", json(503, { error: "x" })],
    ["a JSON 429", "catalog", json(429, { error: "slow down" })],
    ["a catalog error with extra keys", "catalog", json(400, { error: "x", stack: "..." })],
    ["a stack trace in a message", "catalog", json(400, { error: "boom\n    at f (/srv/app/server/x.ts:1:2)" })],
    ["a plan refusal without OTP's error object", "plan", json(400, { error: "bad" })],
    ["a street refusal without error_code", "street", json(400, { error: "bad" })],
    ["a street refusal whose status_code differs", "street", json(400, { error: "bad", error_code: 100, status: "Bad Request", status_code: 500 })],
    ["a 401 with more than error", "catalog", json(401, { error: "x", parameter: "apikey" })],
    ["a 404 that is not JSON", "other", text(404, "Not Found")],
    ["Bun's HTML error page", "other", { status: 500, contentType: "text/html; charset=utf-8", body: new TextEncoder().encode("<!DOCTYPE html><html>...</html>") }],
    ["an HTML 404", "other", { status: 404, contentType: "text/html", body: new TextEncoder().encode("<html></html>") }],
    ["an HTML catalog answer", "catalog", { status: 200, contentType: "text/html", body: new TextEncoder().encode("<html></html>") }],
    ["a file path in a 400 body", "street", json(400, { error: "bad", error_code: 100, status: "Bad Request", status_code: 400, detail: "/srv/app/server/x.js" })],
    ["a stack frame inside a JSON string", "plan", json(400, { error: { id: 1, msg: "x", message: "y" }, requestParameters: { trace: "Error\n    at plan (server/planner/api.ts:10:3)" } })],
    ["a 200 JSON answer that is not JSON", "catalog", { status: 200, contentType: "application/json", body: new TextEncoder().encode("{") }],
  ])("refuses %s", (_, family, answer) => {
    expect(violation(family, "GET", answer)).not.toBeNull();
  });
});
