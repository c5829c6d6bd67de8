/**
 * CORS, one set of headers for the whole service: every answer under the public API prefixes carries
 * `Access-Control-Allow-Origin: *` (errors included), and a preflight (`OPTIONS`) is answered 204
 * with CORS_HEADERS without an API key. The street gateway sends them itself (server/street/gateway.ts,
 * relay.ts); server/app.ts adds them for the planner and the catalog (CORS_PREFIXES).
 */

/** On every answer. */
export const CORS_ALLOW_ORIGIN = { "access-control-allow-origin": "*" } as const;

/** The preflight answer's headers (OPTIONS, 204). */
export const CORS_HEADERS = {
  ...CORS_ALLOW_ORIGIN,
  "access-control-allow-methods": "GET, HEAD, POST, OPTIONS",
  // (the downloads' conditional and range requests: if-none-match, if-range, range)
  "access-control-allow-headers": "apikey, content-type, if-none-match, if-range, range",
  "access-control-max-age": "86400",
} as const;

/** Path prefixes whose answers server/app.ts gives the CORS headers (the OTP plan API, the REST catalog, the analysis endpoint). */
export const CORS_PREFIXES = ["/api/v2/routing/otp/", "/api/v2/rest/", "/api/v2/analysis/"] as const;

export const corsApplies = (pathname: string): boolean => CORS_PREFIXES.some((p) => pathname.startsWith(p));

/**
 * `res`, the answer to a request on `path`, with CORS_ALLOW_ORIGIN when the path is under
 * CORS_PREFIXES (errors included); server/main.ts hands it to the request gate (server/gate.ts
 * AroundAnswers.answered). The header is set on the finished answer, not through Elysia's
 * `set.headers`: Elysia rebuilds every answer of a request whose `set.headers` were touched, which
 * cost the catalog's stop by key a large share of its throughput.
 */
export function withCorsHeader(res: Response, path: string): Response {
  if (!corsApplies(path) || res.headers.has("access-control-allow-origin")) return res;
  try {
    res.headers.set("access-control-allow-origin", CORS_ALLOW_ORIGIN["access-control-allow-origin"]);
    return res;
  } catch {
    // an answer with immutable headers (one fetched from elsewhere): copied
    const copy = new Response(res.body, res);
    copy.headers.set("access-control-allow-origin", CORS_ALLOW_ORIGIN["access-control-allow-origin"]);
    return copy;
  }
}
