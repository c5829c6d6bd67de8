/**
 * What every answer must look like, whatever was asked (README "Errors" of each API, and the
 * spec's error table): no 5xx but the documented 503 of an unreachable street engine (plain text);
 * 429 and 503 plain text; 401 `{error}`; a catalog error `{error, parameter?, allowed?}`; a plan
 * refusal OTP's `{requestParameters?, error: {id, msg, message, noPath?, missing?}}`; a street
 * refusal Valhalla's `{error, error_code, status, status_code}` (other street 4xx `{error}`);
 * elsewhere `{error}`. No error text carries a stack trace, and a JSON answer is JSON. No error
 * answer is HTML (Bun's development error page) or holds, anywhere in its body, a stack frame or a
 * file path (an absolute path under a home, root, work or tmp folder, `node_modules`, `.ts:<line>`); no API answer is HTML.
 * Returns the violation, or null.
 */
import type { Family } from "./hostile.ts";

export interface Answer {
  status: number;
  contentType: string;
  body: Uint8Array;
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const onlyKeys = (o: Json, allowed: string[]) => Object.keys(o).every((k) => allowed.includes(k));
/** an absolute path under one of the folders a deployment's files live in */
const ABSOLUTE = String.raw`\/(?:w` + String.raw`ork|r` + String.raw`oot|h` + String.raw`ome|tmp|srv|opt)\/`;
const LEAK = new RegExp(String.raw`\n\s+at |node_modules|` + ABSOLUTE + String.raw`|\.ts:\d+`);
/** The same in a whole body: also stack frames inside JSON strings (`\n    at`) and `at f (file:line:col)`. */
const BODY_LEAK = new RegExp(String.raw`\n\s+at |\\n\s+at |node_modules|` + ABSOLUTE + String.raw`|\.tsx?:\d+|\bat \S+ \([^)]*:\d+:\d+\)`);

/** Whether a body shows internals: a stack frame or a file path. */
export const leaks = (body: Uint8Array): boolean => BODY_LEAK.test(new TextDecoder().decode(body.subarray(0, 1 << 20)));
const looksHtml = (a: Answer) => a.contentType.includes("html") || /^\s*<(!doctype|html)/i.test(new TextDecoder().decode(a.body.subarray(0, 64)));

function errorObject(o: unknown, allowed = ["error", "parameter", "allowed"]): string | null {
  if (!isObject(o)) return "not a JSON object";
  if (typeof o.error !== "string" || !o.error) return "no error message";
  if (!onlyKeys(o, allowed)) return `unexpected keys ${Object.keys(o).join(",")}`;
  if (LEAK.test(o.error)) return "the message leaks internals";
  for (const k of ["parameter", "allowed"]) if (k in o && typeof o[k] !== "string") return `${k} is not a string`;
  return null;
}

/** A GraphQL error answer (the GTFS GraphQL API's paths answer their errors so): `{errors: [{message}, ...]}`. */
function graphqlErrors(o: unknown): boolean {
  return isObject(o) && Array.isArray(o.errors) && o.errors.length > 0 && o.errors.every((e) => isObject(e) && typeof e.message === "string" && !LEAK.test(e.message));
}

/** A Pelias error answer (the geocoder's paths, /v1/ and /api/v2/geocode/): `{geocoding: {errors: [message, ...]}, type, features: []}`. */
function peliasErrors(o: unknown): boolean {
  if (!isObject(o) || !isObject(o.geocoding) || o.type !== "FeatureCollection" || !Array.isArray(o.features) || o.features.length !== 0) return false;
  const errors = o.geocoding.errors;
  return Array.isArray(errors) && errors.length > 0 && errors.every((e) => typeof e === "string" && e !== "" && !LEAK.test(e));
}

function otpErrorBody(o: unknown): string | null {
  if (!isObject(o)) return "not a JSON object";
  if (!onlyKeys(o, ["requestParameters", "error", "plan", "debugOutput", "elevationMetadata"])) return `unexpected keys ${Object.keys(o).join(",")}`;
  if ("requestParameters" in o && o.requestParameters !== undefined && !isObject(o.requestParameters)) return "requestParameters is not an object";
  const e = o.error;
  if (!isObject(e)) return "no OTP error object";
  if (typeof e.id !== "number" || typeof e.msg !== "string" || typeof e.message !== "string") return "OTP error without id, msg, message";
  if ("missing" in e && !(Array.isArray(e.missing) && e.missing.every((m) => typeof m === "string"))) return "missing is not a list of names";
  if (LEAK.test(e.msg)) return "the message leaks internals";
  return null;
}

function valhallaErrorBody(o: unknown, status: number): string | null {
  if (!isObject(o)) return "not a JSON object";
  if (typeof o.error !== "string" || !Number.isInteger(o.error_code) || typeof o.status !== "string" || o.status_code !== status) return "not Valhalla's {error, error_code, status, status_code}";
  if (LEAK.test(o.error)) return "the message leaks internals";
  return null;
}

function parse(body: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(body));
  } catch {
    return undefined;
  }
}

export function violation(family: Family, method: string, a: Answer): string | null {
  const { status } = a;
  const plain = a.contentType.startsWith("text/plain");
  if (looksHtml(a) && (status >= 400 || family !== "other")) return `HTML answer (${status}, ${family})`;
  if (status >= 400 && leaks(a.body)) return `the ${status} body leaks internals (stack frame or file path)`;
  if (status >= 500) {
    if (status === 503 && family === "street" && plain) return null;
    return `status ${status} (${family})`;
  }
  if (method === "HEAD" || status === 204 || status === 304) return null;
  if (status === 429 || status === 503) return plain || (family === "other" && graphqlErrors(parse(a.body))) ? null : `${status} is not plain text`;
  const json = a.contentType.includes("json");
  if (status < 400) {
    if (json && !a.contentType.includes("x-ndjson") && a.body.length < 20_000_000 && parse(a.body) === undefined) return `${status} ${a.contentType} that is not JSON`;
    return null;
  }
  const body = parse(a.body);
  if (!json || body === undefined) return `${status} body is not JSON (${a.contentType})`;
  if (status === 401) return family === "other" && (graphqlErrors(body) || peliasErrors(body)) ? null : errorObject(body, ["error"]);
  switch (family) {
    case "catalog":
      return errorObject(body);
    case "other":
      // the GTFS GraphQL API answers its errors as GraphQL errors, the geocoder as Pelias does
      return graphqlErrors(body) || peliasErrors(body) ? null : errorObject(body);
    case "plan":
      return status === 400 ? otpErrorBody(body) : errorObject(body);
    case "street":
      return status === 400 || (isObject(body) && "error_code" in body) ? valhallaErrorBody(body, status) : errorObject(body);
  }
}
