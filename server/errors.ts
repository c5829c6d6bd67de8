/**
 * The one error type of the service, with stable codes, and the service-wide rules for answering
 * it over HTTP. Cores (pipeline, planner, catalog services, the street gateway) throw AppError
 * without thinking about HTTP. Each feature registers how its errors look (server/feature.ts
 * FeatureErrors: catalog `{error}` JSON, plan OTP-style bodies, street Valhalla bodies) for its
 * path prefix; server/app.ts picks the renderer by prefix, this module's renderError when none
 * matches. Feature renderers start from renderError and change only what their API differs in.
 */

export type ErrorCode =
  | "INVALID_PARAMETER" // a query/body parameter is malformed or out of range
  | "NOT_FOUND" // an entity key or path does not exist
  | "UNAUTHORIZED" // missing or invalid API key
  | "FORBIDDEN" // the key is fine, the thing asked for may not be given out (a feed whose licence forbids redistribution)
  | "RATE_LIMITED" // per-account limit tripped
  | "ENGINE_UNAVAILABLE" // routing engine unreachable / not configured / timed out
  | "ENGINE_ERROR" // routing engine refused the request (Valhalla-style error)
  | "DATA_ERROR" // a feed or dataset is broken (pipeline)
  | "UNAVAILABLE" // dataset not loaded yet
  | "INTERNAL"; // a bug: never shown with details

export interface ErrorDetails {
  /** the parameter or field the error is about, e.g. "bbox" or "costing_options.auto.top_speed" */
  parameter?: string;
  /** what would have been accepted */
  allowed?: string;
  /** Valhalla error code, for street-routing errors */
  engineCode?: number;
  /** seconds until retry makes sense (rate limits) */
  retryAfterSec?: number;
  /** GTFS file and line, for pipeline data errors */
  file?: string;
  line?: number;
  [key: string]: unknown;
}

export class AppError extends Error {
  override readonly name = "AppError";
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: ErrorDetails = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export const invalidParameter = (parameter: string, message: string, allowed?: string) =>
  new AppError("INVALID_PARAMETER", message, { parameter, allowed });

export const notFound = (message = "not found") => new AppError("NOT_FOUND", message);

/** The single code → HTTP status table. */
export const HTTP_STATUS: Record<ErrorCode, number> = {
  INVALID_PARAMETER: 400,
  NOT_FOUND: 404,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  RATE_LIMITED: 429,
  ENGINE_UNAVAILABLE: 503,
  ENGINE_ERROR: 400,
  DATA_ERROR: 400,
  UNAVAILABLE: 503,
  INTERNAL: 500,
};

const STATUS_TEXT: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  429: "Too Many Requests",
  500: "Internal Server Error",
  501: "Not Implemented",
  503: "Service Unavailable",
};
export const statusText = (status: number) => STATUS_TEXT[status] ?? "Error";

/** How a feature answers an error over HTTP (see server/feature.ts FeatureErrors). */
export type ErrorRenderer = (err: unknown) => Response;

/** A JSON error answer. */
export function jsonError(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { ...headers, "content-type": "application/json" } });
}

/**
 * The service-wide rules (the spec's error table): 429 and 503 plain text (with retry-after when
 * known), every other status JSON `{error, parameter?, allowed?}`; anything but an AppError is a
 * bare 500 (the caller logs it). `headers` go on AppError answers (street adds CORS).
 */
export function renderError(err: unknown, headers: Record<string, string> = {}): Response {
  if (!(err instanceof AppError)) return jsonError(500, { error: "internal server error" });
  const status = HTTP_STATUS[err.code];
  if (status === 429 || status === 503) {
    const h: Record<string, string> = { ...headers };
    if (err.details.retryAfterSec !== undefined) h["retry-after"] = String(Math.max(1, Math.ceil(err.details.retryAfterSec)));
    return new Response(err.message, { status, headers: { ...h, "content-type": "text/plain; charset=utf-8" } });
  }
  const body: Record<string, unknown> = { error: err.message };
  if (err.details.parameter) body.parameter = err.details.parameter;
  if (err.details.allowed) body.allowed = err.details.allowed;
  return jsonError(status, body, headers);
}
