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
  "access-control-allow-methods": "GET, POST, OPTIONS",
  "access-control-allow-headers": "apikey, content-type",
  "access-control-max-age": "86400",
} as const;

/** Path prefixes whose answers server/app.ts gives the CORS headers (the OTP plan API, the REST catalog). */
export const CORS_PREFIXES = ["/api/v2/routing/otp/", "/api/v2/rest/"] as const;

export const corsApplies = (pathname: string): boolean => CORS_PREFIXES.some((p) => pathname.startsWith(p));
