/**
 * createApp: wires the features behind the service-wide rules (API key, per-account rate limit,
 * OpenAPI docs) and the one error path: whatever fails (the key check, an unknown path, a
 * handler's AppError) is answered by the renderer the feature registered for the path's prefix
 * (Feature.errors), server/errors.ts renderError elsewhere; CORS preflights (the headers of the
 * planner's and the catalog's answers are added around the app: server/cors.ts withCors, in
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
  // longest prefix first: a feature under another's prefix keeps its own bodies
  const registered = deps.features.flatMap((f): FeatureErrors[] => (f.errors ? [f.errors].flat() : [])).sort((a, b) => b.prefix.length - a.prefix.length);
  /** The error renderer for a request path. */
  const rendererFor = (pathname: string): ErrorRenderer => registered.find((e) => pathname.startsWith(e.prefix))?.render ?? renderError;
  const publicPath = publicPathTest([...APP_PUBLIC_PATHS, ...deps.features.flatMap((f) => f.publicPaths ?? [])]);
  const publicRequests = deps.features.flatMap((f) => (f.publicRequest ? [f.publicRequest] : []));
  const isPublic = (path: string, request: Request) => publicPath(path) || publicRequests.some((test) => test(request, path));
  const pathOf = (request: Request) => requestPath(request.url) ?? "/";
  /** The account of a request's key, or null when it has none or a bad one. */
  const accountOf = (request: Request) => {
    try {
      return deps.auth.authenticate(request, new URL(request.url));
    } catch {
      return null;
    }
  };
  /** Renders an error for `path`; a renderer that fails is answered with the bare 500. */
  const answer = (path: string, err: unknown): Response => {
    try {
      return rendererFor(path)(err);
    } catch (e) {
      deps.log.error("error renderer failed", { path: path.slice(0, 512), error: String((e as Error)?.stack ?? e) });
      return internalError();
    }
  };
  let app = new Elysia({ handler: { standardHostname: false } })
    .use(
      swagger({
        // the plugin's own page loads its script from a CDN: it is not served (onRequest below);
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
      }),
    )
    .use(docsRoutes())
    .onRequest(async ({ request }) => {
      const path = pathOf(request);
      if (path === PLUGIN_PAGE_PATH) return answer(path, new AppError("NOT_FOUND", `no such path: ${path}`));
      if (isPublic(path, request)) return;
      // CORS (server/cors.ts): the planner's and the catalog's answers, errors included, get the
      // origin header from withCors around the app (server/main.ts); a preflight under the API
      // prefix is answered here, without a key (it carries none), before any handler runs.
      if (request.method === "OPTIONS" && path.startsWith(API_PREFIX)) return new Response(null, { status: 204, headers: CORS_HEADERS });
      try {
        const account = deps.auth.authenticate(request, new URL(request.url));
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
    })
    .onError(({ code, error, request }) => {
      const path = pathOf(request);
      if (error instanceof AppError) return answer(path, error);
      if (code === "NOT_FOUND") return answer(path, new AppError("NOT_FOUND", `no such path: ${path.slice(0, 512)}`));
      if (code === "PARSE") return answer(path, new AppError("INVALID_PARAMETER", "request body is not valid JSON", { engineCode: 100 }));
      if (code === "VALIDATION") return answer(path, new AppError("INVALID_PARAMETER", String((error as Error).message)));
      // a path parameter that is not valid percent-encoded UTF-8 (/map/%zz): the client's mistake
      if (error instanceof URIError) return answer(path, new AppError("INVALID_PARAMETER", "the path is not valid percent-encoded UTF-8", { engineCode: 199 }));
      deps.log.error("unhandled error", { path: path.slice(0, 512), error: String((error as Error)?.stack ?? error) });
      return answer(path, error);
    })
    .get("/health", ({ request }) => health(request));
  /**
   * /health: `{status, uptime_s}` to anyone; the details (healthDetails) to a request with a valid
   * key, or to anyone when the server runs without keys. The metrics listener shows them too.
   */
  const health = (request: Request) => {
    if (deps.auth.enabled && accountOf(request) === null) return { status: "ok", uptime_s: Math.round((deps.now() - started) / 1000) };
    return healthDetails(deps, started);
  };
  for (const f of deps.features) app = app.use(f.routes) as unknown as typeof app;
  return app;
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
