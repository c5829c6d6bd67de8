/**
 * The request gate: what every request passes before the app routes it (server/main.ts wraps the
 * app's fetch handler with `gate`). It decides the one path that both the key check and the router
 * use (`requestPath`, Elysia's own rule with `standardHostname: false`), and refuses with 400 what
 * would make them disagree or what no client of this service sends: a missing or malformed Host
 * header (Bun then hands over a URL that is only a path), a request target that is not an absolute
 * path, an empty segment (`//`), a dot segment, a backslash. Whatever is thrown while a request is
 * answered, error handling included, becomes a JSON 500 without details (`internalError`); Bun's
 * development error page (stack frames, source lines, absolute paths) is never shown
 * (`serveOptions`).
 */
import { jsonError, renderError } from "./errors.ts";

/**
 * A Host header as RFC 9112 allows it: a registered name (letters, digits, `-`, `_`, `.`; no empty
 * label) or an IP literal in brackets, and an optional port. Anything else (`x]`, `a b`, `a:b:c`, an
 * empty value, two Host headers joined with a comma, bytes outside ASCII) is refused.
 */
const HOST = /^(?:[A-Za-z0-9_](?:[A-Za-z0-9_-]*[A-Za-z0-9_])?(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]*[A-Za-z0-9_])?)*\.?|\[[0-9A-Fa-f:.]{2,45}\])(?::[0-9]{1,5})?$/;

/** Longest Host accepted (a DNS name is at most 253 characters; a port and brackets add a few). */
const MAX_HOST = 262;

export function isValidHost(host: string | null): boolean {
  if (host === null || host.length === 0 || host.length > MAX_HOST || !HOST.test(host)) return false;
  // a port beyond 65535 makes the request's URL unparsable (found by test/fuzz)
  const port = /:(\d+)$/.exec(host);
  return port === null || Number(port[1]) <= 65535;
}

/**
 * The path of a request URL as the router reads it: from the first `/` after `http://` to the
 * query string, percent-encoded as sent (Bun has already resolved dot segments). Null when the URL
 * is not absolute (Bun gives a bare path when the Host header is unusable).
 */
export function requestPath(url: string): string | null {
  if (!url.startsWith("http://")) return null;
  const start = url.indexOf("/", 7);
  if (start < 0) return null;
  const q = url.indexOf("?", start + 1);
  return q < 0 ? url.slice(start) : url.slice(start, q);
}

/** A segment of dots only, plain or percent-encoded (`.`, `..`, `%2e`, `.%2E`). */
const DOT_SEGMENT = /(?:^|\/)(?:\.|%2e){1,2}(?:\/|$)/i;

/** Why a path is not one this service answers, or null when it is fine. */
export function pathProblem(path: string): string | null {
  if (path.charCodeAt(0) !== 47) return "the request target must be an absolute path starting with /";
  if (path.includes("//")) return "the path has an empty segment (//)";
  if (path.includes("\\")) return "the path has a backslash";
  if ((path.includes(".") || path.includes("%")) && DOT_SEGMENT.test(path)) return "the path has a dot segment (. or ..)";
  return null;
}

/** The answer to anything that failed unexpectedly: no message, stack, path or source line. */
export const internalError = (): Response => renderError(null);

const refuse = (message: string): Response => jsonError(400, { error: message });

/** Where the gate reports what it could not answer (server/feature.ts Logger fits). */
export interface ErrorLog {
  error(msg: string, fields?: Record<string, unknown>): void;
}

export type FetchHandler = (request: Request) => Response | Promise<Response>;

/** What the service does around the app's answers (server/main.ts): CORS headers, metrics and the request log. */
export interface AroundAnswers {
  /** the app's answer to a request on `path` (requestPath), before it is sent: returns what is sent (server/cors.ts adds a header to it) */
  answered?: (res: Response, path: string) => Response;
  /**
   * every request once, whatever answered it (the gate, the app, the 500 of a failure), with the
   * status sent, performance.now() at its arrival, and its path (requestPath) when the gate let it
   * through (null when it refused it before reading one)
   */
  done?: (request: Request, status: number, t0: number, path: string | null) => void;
}

const unchanged = (res: Response): Response => res;
const nothing = (): void => {};

/**
 * `handle` behind the gate: requests with a bad Host or request target are answered 400 here, the
 * others handed on; a throw (or a rejected promise) from `handle` or `around.answered` is logged
 * and answered 500. No promise of its own: an answer `handle` gives at once is returned at once, a
 * promise gets one `then` for the whole of `around` (each async layer around Bun's fetch handler
 * cost the catalog's stop by key a measurable share of its throughput, BENCHMARKS.md).
 */
export function gate(handle: FetchHandler, log: ErrorLog, around: AroundAnswers = {}): FetchHandler {
  const answered = around.answered ?? unchanged;
  const done = around.done ?? nothing;
  // the last Host found valid: most requests repeat it, and it is not checked again
  let validHost: string | undefined;
  const refusalOf = (request: Request): Response | string => {
    const host = request.headers.get("host");
    if (host !== validHost) {
      if (!isValidHost(host)) return refuse("malformed or missing Host header");
      validHost = host!;
    }
    const path = requestPath(request.url);
    if (path === null) return refuse("malformed request target: it must be an absolute path such as /api/v2/rest/stops");
    const problem = pathProblem(path);
    return problem ? refuse(`malformed request path: ${problem}`) : path;
  };
  return (request) => {
    const t0 = performance.now();
    const refusal = refusalOf(request);
    if (typeof refusal !== "string") {
      done(request, refusal.status, t0, null);
      return refusal;
    }
    const path = refusal;
    const fail = (e: unknown): Response => {
      log.error("unhandled error", { path: path.slice(0, 512), error: String((e as Error)?.stack ?? e) });
      const res = internalError();
      done(request, res.status, t0, path);
      return res;
    };
    const finish = (res: Response): Response => {
      let sent: Response;
      try {
        sent = answered(res, path);
      } catch (e) {
        return fail(e);
      }
      done(request, sent.status, t0, path);
      return sent;
    };
    let answer: Response | Promise<Response>;
    try {
      answer = handle(request);
    } catch (e) {
      return fail(e);
    }
    return answer instanceof Promise ? answer.then(finish, fail) : finish(answer);
  };
}

/**
 * The options every Bun.serve of the service takes: never Bun's development error page, and a JSON
 * 500 for whatever escapes the handler (an error thrown while a streamed body is produced).
 */
export function serveOptions(log: ErrorLog) {
  return {
    development: false,
    error(e: Error): Response {
      log.error("unhandled error", { error: String(e?.stack ?? e) });
      return internalError();
    },
  } as const;
}
