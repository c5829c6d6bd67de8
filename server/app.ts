/**
 * createApp: wires the features behind the service-wide rules (API key, per-account rate limit,
 * OpenAPI docs) and the one error path: whatever fails (the key check, an unknown path, a
 * handler's AppError) is answered by the renderer the feature registered for the path's prefix
 * (Feature.errors), server/errors.ts renderError elsewhere; CORS preflights (the headers of the
 * planner's and the catalog's answers are added around the app: server/cors.ts withCorsHeader, in
 * server/main.ts). No listen() here; server/main.ts does that, behind the
 * request gate (server/gate.ts), which has already refused a bad Host or request target.
 *
 * The key check is decided on the path the router uses (server/gate.ts requestPath; the router is
 * told not to assume a long host name, `standardHostname: false`) and denies by default: every
 * path needs a key but /health, the API reference (/docs) and the paths (the web map) and requests
 * (the GraphiQL page) features declare public. So a route added later is protected without anyone
 * remembering to.
 */
import { basename } from "node:path";
import { Elysia } from "elysia";
import { swagger } from "@elysiajs/swagger";
import { CORS_HEADERS } from "./cors.ts";
import { DOCS_PATH, DOCS_SPEC_PATH, PLUGIN_PAGE_PATH, docsRoutes } from "./docs.ts";
import { AppError, type ErrorRenderer, renderError } from "./errors.ts";
import { internalError, requestPath } from "./gate.ts";
import type { Authenticator } from "./auth/keys.ts";
import type { RateLimiter } from "./auth/rate-limit.ts";
import type { Feature, FeatureErrors, Logger } from "./feature.ts";

export interface AppDeps {
  auth: Authenticator;
  rateLimiter: RateLimiter;
  features: Feature[];
  log: Logger;
  now: () => number;
  /** told the account of each request that passed the key check (server/ops: the request log) */
  onAuthenticated?: (request: Request, account: string) => void;
  /** which server process answers (`serve --workers N`: index 0..N-1; a single process is worker 0) */
  worker?: { index: number; pid: number };
  /** the data folder, shown in /health details relative to it, never as an absolute path */
  dataDir?: string;
}

/** The paths every client may ask without a key, whatever features add. */
const APP_PUBLIC_PATHS = ["/health", DOCS_PATH, `${DOCS_PATH}/`, DOCS_SPEC_PATH, `${DOCS_PATH}/assets/`] as const;

/** A test of "no key needed here": exact paths, and prefixes for entries that end in "/". */
export function publicPathTest(entries: readonly string[]): (path: string) => boolean {
  const exact = new Set(entries);
  const prefixes = entries.filter((e) => e.endsWith("/") && e.length > 1);
  return (path) => exact.has(path) || prefixes.some((p) => path.startsWith(p));
}

/** Where the API families live: a preflight there is answered here (CORS), without a key. */
const API_PREFIX = "/api/";

export function createApp(deps: AppDeps) {
  const started = deps.now();
  const answer = errorAnswers(deps);
  let app = new Elysia({ handler: { standardHostname: false } })
    .use(apiReference(deps))
    .use(docsRoutes())
    .onRequest(keyCheck(deps, answer))
    .onError(({ code, error, request }) => answerError(deps, answer, pathOf(request), code, error))
    .get("/health", ({ request }) => health(deps, started, request));
  for (const f of deps.features) app = app.use(f.routes) as unknown as typeof app;
  return app;
}

/** The path the router routes on (server/gate.ts requestPath). */
const pathOf = (request: Request) => requestPath(request.url) ?? "/";

/** Renders an error for a request path: the renderer its feature registered (Feature.errors, longest prefix first), renderError elsewhere; a renderer that fails is answered with the bare 500. */
type ErrorAnswer = (path: string, err: unknown) => Response;

function errorAnswers(deps: AppDeps): ErrorAnswer {
  // longest prefix first: a feature under another's prefix keeps its own bodies
  const registered = deps.features.flatMap((f): FeatureErrors[] => (f.errors ? [f.errors].flat() : [])).sort((a, b) => b.prefix.length - a.prefix.length);
  const rendererFor = (pathname: string): ErrorRenderer => registered.find((e) => pathname.startsWith(e.prefix))?.render ?? renderError;
  return (path, err) => {
    try {
      return rendererFor(path)(err);
    } catch (e) {
      deps.log.error("error renderer failed", { path: path.slice(0, 512), error: String((e as Error)?.stack ?? e) });
      return internalError();
    }
  };
}

/** The OpenAPI description at DOCS_SPEC_PATH (the swagger plugin; its own CDN page is not served). */
function apiReference(deps: AppDeps) {
  return swagger({
    // the plugin's own page loads its script from a CDN: it is not served (keyCheck answers it 404);
    // server/docs.ts serves the reference page from node_modules
    path: PLUGIN_PAGE_PATH,
    specPath: DOCS_SPEC_PATH,
    exclude: [PLUGIN_PAGE_PATH],
    documentation: {
      info: {
        title: "Interchange",
        version: "0.1.0",
        description: "GTFS catalog, OTP-compatible transit planner and Valhalla-compatible street routing. Send the API key in the `apikey` header.",
      },
      components: { securitySchemes: { apikey: { type: "apiKey", in: "header", name: "apikey" } } },
      security: [{ apikey: [] }],
      // swagger drops paths with a dot; features add those (the catalog's `.{format}` forms) here
      paths: Object.assign({}, ...deps.features.map((f) => f.docPaths ?? {})) as Record<string, never>,
    },
  });
}

/**
 * The key check and rate limit, before any handler, on the path the router uses; deny by default:
 * only the public paths and requests pass without a key. Answers (an error Response) or lets through (undefined).
 */
function keyCheck(deps: AppDeps, answer: ErrorAnswer) {
  const publicPath = publicPathTest([...APP_PUBLIC_PATHS, ...deps.features.flatMap((f) => f.publicPaths ?? [])]);
  const publicRequests = deps.features.flatMap((f) => (f.publicRequest ? [f.publicRequest] : []));
  const isPublic = (path: string, request: Request) => publicPath(path) || publicRequests.some((test) => test(request, path));
  return async ({ request }: { request: Request }): Promise<Response | undefined> => {
    const path = pathOf(request);
    if (path === PLUGIN_PAGE_PATH) return answer(path, new AppError("NOT_FOUND", `no such path: ${path}`));
    if (isPublic(path, request)) return;
    // CORS (server/cors.ts): the planner's and the catalog's answers, errors included, get the
    // origin header from withCorsHeader around the app (server/main.ts); a preflight under the API
    // prefix is answered here, without a key (it carries none), before any handler runs.
    if (request.method === "OPTIONS" && path.startsWith(API_PREFIX)) return new Response(null, { status: 204, headers: CORS_HEADERS });
    try {
      const account = deps.auth.authenticate(request);
      deps.onAuthenticated?.(request, account.account);
      const decision = await deps.rateLimiter.take(account, deps.now());
      if (!decision.allowed) {
        throw new AppError("RATE_LIMITED", `rate limit exceeded for this API key (${account.rateLimitPerMinute} requests per minute); retry after ${Math.ceil(decision.retryAfterSec)} s`, {
          retryAfterSec: decision.retryAfterSec,
        });
      }
    } catch (err) {
      return answer(path, err);
    }
  };
}

/** Whatever a handler or the router failed with, as an AppError's answer; an unexpected one is logged (its stack never leaves the server). */
function answerError(deps: AppDeps, answer: ErrorAnswer, path: string, code: unknown, error: unknown): Response {
  if (error instanceof AppError) return answer(path, error);
  if (code === "NOT_FOUND") return answer(path, new AppError("NOT_FOUND", `no such path: ${path.slice(0, 512)}`));
  if (code === "PARSE") return answer(path, new AppError("INVALID_PARAMETER", "request body is not valid JSON", { engineCode: 100 }));
  if (code === "VALIDATION") return answer(path, new AppError("INVALID_PARAMETER", String((error as Error).message)));
  // a path parameter that is not valid percent-encoded UTF-8 (/map/%zz): the client's mistake
  if (error instanceof URIError) return answer(path, new AppError("INVALID_PARAMETER", "the path is not valid percent-encoded UTF-8", { engineCode: 199 }));
  deps.log.error("unhandled error", { path: path.slice(0, 512), error: String((error as Error)?.stack ?? error) });
  return answer(path, error);
}

/**
 * /health: `{status, uptime_s}` to anyone; the details (healthDetails) to a request with a valid
 * key, or to anyone when the server runs without keys. The metrics listener shows them too.
 */
function health(deps: AppDeps, started: number, request: Request) {
  if (deps.auth.enabled && accountOf(deps, request) === null) return { status: "ok", uptime_s: Math.round((deps.now() - started) / 1000) };
  return healthDetails(deps, started);
}

/** The account of a request's key, or null when it has none or a bad one. */
function accountOf(deps: AppDeps, request: Request) {
  try {
    return deps.auth.authenticate(request);
  } catch {
    return null;
  }
}

/**
 * What /health tells a client with a key (and the metrics listener anyone who reaches it): the
 * features' and datasets' state, the rate limiter, the worker. No absolute path: the data folder's
 * path is cut from every text (a feature's last error may name a file in it).
 */
export function healthDetails(deps: AppDeps, started: number): Record<string, unknown> {
  const details = {
    status: "ok",
    uptime_s: Math.round((deps.now() - started) / 1000),
    auth: deps.auth.enabled,
    rate_limit: deps.rateLimiter.health?.() ?? { limiter: "in-process" },
    features: Object.fromEntries(deps.features.map((f) => [f.name, f.health?.() ?? {}])),
    worker: deps.worker ?? { index: 0, pid: process.pid },
  };
  return deps.dataDir ? withoutPath(details, deps.dataDir) : details;
}

/**
 * `value` with no absolute path in it: a string that is an absolute path (a source file a dataset
 * was built from) becomes its file name; inside longer texts (a feature's last error), the data
 * folder's path becomes "<data>".
 */
function withoutPath<T>(value: T, dir: string): T {
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") {
      if (/^\/[^\s]*\/[^\s]*$/.test(v)) return basename(v);
      return v.includes(dir) ? v.split(dir).join("<data>") : v;
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(value) as T;
}
