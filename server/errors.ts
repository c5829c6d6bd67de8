/**
 * The one error type of the service, with stable codes, and the one table that maps codes to HTTP
 * statuses. Cores (pipeline, planner, catalog services) throw AppError without thinking about HTTP;
 * the HTTP edge (server/app.ts) renders it for the API family the request belongs to.
 */

export type ErrorCode =
  | "INVALID_PARAMETER" // a query/body parameter is malformed or out of range
  | "NOT_FOUND" // an entity key or path does not exist
  | "UNAUTHORIZED" // missing or invalid API key
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
  404: "Not Found",
  405: "Method Not Allowed",
  429: "Too Many Requests",
  500: "Internal Server Error",
  501: "Not Implemented",
  503: "Service Unavailable",
};
export const statusText = (status: number) => STATUS_TEXT[status] ?? "Error";

/**
 * Render an error as an HTTP Response, following the spec's error table:
 * 401/404/400 JSON `{error}` (catalog), 400 JSON `{error,error_code,status,status_code}` (street
 * routing), 429 and 503 plain text. Unknown errors are logged by the caller and become a bare 500.
 */
export function renderError(err: unknown, family: "catalog" | "street" | "plan" | "other" = "other"): Response {
  const headers: Record<string, string> = {};
  // Valhalla answers every request with this header; the gateway does the same, errors included.
  if (family === "street") headers["access-control-allow-origin"] = "*";
  if (!(err instanceof AppError)) {
    return new Response(JSON.stringify({ error: "internal server error" }), {
      status: 500,
      headers: { "content-type": "application/json" },
    });
  }
  const status = HTTP_STATUS[err.code];
  if (status === 429 || status === 503) {
    if (err.details.retryAfterSec !== undefined) headers["retry-after"] = String(Math.max(1, Math.ceil(err.details.retryAfterSec)));
    return new Response(err.message, { status, headers: { ...headers, "content-type": "text/plain; charset=utf-8" } });
  }
  let body: Record<string, unknown>;
  if (family === "street" && status === 400) {
    body = { error: err.message, error_code: err.details.engineCode ?? 199, status: statusText(status), status_code: status };
  } else {
    body = { error: err.message };
    if (err.details.parameter) body.parameter = err.details.parameter;
    if (err.details.allowed) body.allowed = err.details.allowed;
  }
  return new Response(JSON.stringify(body), { status, headers: { ...headers, "content-type": "application/json" } });
}
