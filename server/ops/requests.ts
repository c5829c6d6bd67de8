/**
 * One observation per HTTP request: its route family, status and duration go to the request
 * metrics, and one structured JSON log line is written (method, path without the query string,
 * family, status, duration, account). The query string is never read here: it may hold the API key
 * (`?apikey=`), and the header never is either.
 */
import { type Logger, REQUEST_MSG } from "../feature.ts";

export type RouteFamily = "catalog" | "plan" | "street" | "graphql" | "analysis" | "geocode" | "other";
export const ROUTE_FAMILIES: readonly RouteFamily[] = ["catalog", "plan", "street", "graphql", "analysis", "geocode", "other"];

const FAMILY_PREFIXES: [string, RouteFamily][] = [
  ["/api/v2/rest/", "catalog"],
  ["/api/v2/routing/otp/", "plan"],
  ["/api/v2/routing/valhalla/", "street"],
  ["/otp/gtfs/v1/", "graphql"],
  ["/otp/routers/default/index/graphql/", "graphql"],
  ["/api/v2/analysis/", "analysis"],
  ["/api/v2/geocode/", "geocode"],
  ["/v1/", "geocode"],
];

/** The family of a request path (as sent, percent-encoded): catalog, plan, street, graphql, analysis, geocode, or other. */
export function routeFamily(path: string): RouteFamily {
  for (const [prefix, family, bare] of FAMILIES) if (path.startsWith(prefix) || path === bare) return family;
  return "other";
}

/** FAMILY_PREFIXES with each prefix's path without its last slash. */
const FAMILIES = FAMILY_PREFIXES.map(([prefix, family]) => [prefix, family, prefix.slice(0, -1)] as const);

/** Longest path a log line carries (Bun accepts URLs of several kB); longer ones are cut and marked. */
export const LOGGED_PATH_MAX = 512;

/** The path of a request URL as sent (percent-encoded), without the query string, cut to LOGGED_PATH_MAX. */
export function pathOf(url: string): string {
  const scheme = url.indexOf("://");
  const start = scheme < 0 ? 0 : url.indexOf("/", scheme + 3);
  if (start < 0) return "/";
  const q = url.indexOf("?", start);
  return loggedPath(q < 0 ? url.slice(start) : url.slice(start, q));
}

/** A request path as logged: cut to LOGGED_PATH_MAX. */
const loggedPath = (path: string): string => (path.length > LOGGED_PATH_MAX ? `${path.slice(0, LOGGED_PATH_MAX)}...(${path.length} chars)` : path);

/** Methods named as such in logs; anything else a client sends is logged as OTHER. */
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

export interface RequestRecord {
  method: string;
  path: string;
  family: RouteFamily;
  status: number;
  duration_ms: number;
  /** the API key's account (keys file), "anonymous" under --no-auth; absent when not known (no or a bad key, paths without keys) */
  account?: string;
}

/**
 * The account each request was authenticated as (server/app.ts tells Ops; the request log and the
 * street engine's fair sharing read it), kept on the request itself under a private symbol: a
 * WeakMap keyed by every request cost the catalog's fastest answers a measurable share of their
 * CPU (BENCHMARKS.md, request logging and metrics cost).
 */
export class RequestAccounts {
  private static readonly KEY = Symbol("interchange.account");
  set(request: Request, account: string): void {
    (request as unknown as Record<symbol, string>)[RequestAccounts.KEY] = account;
  }
  get(request: Request): string | undefined {
    return (request as unknown as Record<symbol, string | undefined>)[RequestAccounts.KEY];
  }
}

export interface RequestSink {
  record(r: RequestRecord): void;
}

/**
 * The observation of one request, once it is answered: `(request, status, t0)` with t0 the
 * performance.now() of its arrival (server/gate.ts AroundAnswers.done). The duration runs to the
 * answer's headers: a streamed body (geojsonl lists, an external engine's answer) goes on after it.
 */
export function requestRecorder(accounts: RequestAccounts, sink: RequestSink): (request: Request, status: number, t0: number, path?: string | null) => void {
  return (request, status, t0, sentPath) => {
    // the gate's path of the request (server/gate.ts requestPath) when it has one: the same text, the URL not read again
    const path = sentPath == null ? pathOf(request.url) : loggedPath(sentPath);
    const account = accounts.get(request);
    const method = request.method;
    const r: RequestRecord = { method: METHODS.has(method) ? method : "OTHER", path, family: routeFamily(path), status, duration_ms: Math.round((performance.now() - t0) * 100) / 100 };
    if (account !== undefined) r.account = account;
    sink.record(r);
  };
}

/** The log line of a request: `{"level":"info","msg":"request",method,path,family,status,duration_ms,account?}`. */
export function logRequest(log: Logger, r: RequestRecord): void {
  log.info(REQUEST_MSG, r as unknown as Record<string, unknown>);
}
