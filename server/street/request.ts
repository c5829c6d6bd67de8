/**
 * Reading a street-routing request the way Valhalla does: the JSON comes from `?json=` when present,
 * otherwise from the body (empty means `{}`); other query parameters are top-level fields that the
 * JSON does not already set. `apikey` is ours and never reaches the engine.
 */
import { AppError } from "../errors.ts";

export interface StreetRequest {
  /** the request JSON text exactly as received (forwarded byte for byte when nothing is removed) */
  readonly jsonText: string;
  /** the parsed JSON object */
  readonly json: Record<string, unknown>;
  /** JSON plus the extra query parameters: what validation looks at */
  readonly view: Record<string, unknown>;
  /** the extra query parameters the JSON does not set, as top-level fields */
  readonly extra: Record<string, unknown>; // (rewritten by the gateway like json)
  /** query parameters forwarded to the engine as they came ("" when none) */
  readonly forwardQuery: string;
}

const OWN_PARAMS = new Set(["json", "apikey"]);

/** "true" → true, "12" → 12, anything else stays a string (query values are text). */
function queryValue(v: string): unknown {
  try {
    const parsed: unknown = JSON.parse(v);
    return parsed === null || typeof parsed !== "object" ? parsed : v;
  } catch {
    return v;
  }
}

export function readStreetRequest(params: URLSearchParams, bodyText: string): StreetRequest {
  const fromQuery = params.get("json");
  const raw = fromQuery ?? bodyText;
  const text = raw.trim() === "" ? "{}" : raw;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new AppError("INVALID_PARAMETER", `Failed to parse json request: ${(e as Error).message}`, { engineCode: 100, parameter: fromQuery !== null ? "json" : "body" });
  }
  if (json === null || typeof json !== "object" || Array.isArray(json)) {
    throw new AppError("INVALID_PARAMETER", "Failed to parse json request: the request must be a JSON object", { engineCode: 100, parameter: fromQuery !== null ? "json" : "body" });
  }
  const view: Record<string, unknown> = { ...(json as Record<string, unknown>) };
  const extra: Record<string, unknown> = {};
  const forward = new URLSearchParams();
  for (const [k, v] of params) {
    if (OWN_PARAMS.has(k)) continue;
    forward.append(k, v);
    if (!(k in view)) view[k] = extra[k] = queryValue(v);
  }
  // the engine is sent the JSON as parsed and validated here, never the client's text: a key written
  // twice is the last value for JSON.parse and the first for the engine's parser (a validated
  // contour of 5 minutes hid a negative one that crashed the engine; found by test/fuzz)
  const jsonText = JSON.stringify(json);
  return { jsonText, json: json as Record<string, unknown>, view, extra, forwardQuery: forward.toString() };
}
