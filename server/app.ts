/**
 * createApp: wires the features behind the service-wide rules (API key, per-account rate limit,
 * OpenAPI docs) and the one error path: whatever fails (the key check, an unknown path, a
 * handler's AppError) is answered by the renderer the feature registered for the path's prefix
 * (Feature.errors), server/errors.ts renderError elsewhere; CORS headers on the planner's and the
 * catalog's answers (server/cors.ts). No listen() here; server/main.ts does that.
 */
import { Elysia } from "elysia";
import { swagger } from "@elysiajs/swagger";
import { CORS_ALLOW_ORIGIN, CORS_HEADERS, corsApplies } from "./cors.ts";
import { AppError, type ErrorRenderer, renderError } from "./errors.ts";
import type { Authenticator } from "./auth/keys.ts";
import type { RateLimiter } from "./auth/rate-limit.ts";
import type { Feature, Logger } from "./feature.ts";

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
}

export function createApp(deps: AppDeps) {
  const started = deps.now();
  // longest prefix first: a feature under another's prefix keeps its own bodies
  const registered = deps.features.flatMap((f) => (f.errors ? [f.errors] : [])).sort((a, b) => b.prefix.length - a.prefix.length);
  /** The error renderer for a request path. */
  const rendererFor = (pathname: string): ErrorRenderer => registered.find((e) => pathname.startsWith(e.prefix))?.render ?? renderError;
  let app = new Elysia()
    .use(
      swagger({
        path: "/docs",
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
    .onRequest(async ({ request, set }) => {
      const url = new URL(request.url);
      if (!url.pathname.startsWith("/api/")) return;
      // CORS (server/cors.ts): the planner's and the catalog's answers, errors included, carry the
      // origin header (Elysia adds set.headers to every answer of this request); their preflight is
      // answered here. A preflight carries no key; the street gateway answers its own.
      const cors = corsApplies(url.pathname);
      if (cors) Object.assign(set.headers, CORS_ALLOW_ORIGIN);
      if (request.method === "OPTIONS") return cors ? new Response(null, { status: 204, headers: CORS_HEADERS }) : undefined;
      try {
        const account = deps.auth.authenticate(request, url);
        deps.onAuthenticated?.(request, account.account);
        const decision = await deps.rateLimiter.take(account, deps.now());
        if (!decision.allowed) {
          throw new AppError("RATE_LIMITED", `rate limit exceeded for this API key (${account.rateLimitPerMinute} requests per minute); retry after ${Math.ceil(decision.retryAfterSec)} s`, {
            retryAfterSec: decision.retryAfterSec,
          });
        }
      } catch (err) {
        return rendererFor(url.pathname)(err);
      }
    })
    .onError(({ code, error, request }) => {
      const url = new URL(request.url);
      const render = rendererFor(url.pathname);
      if (error instanceof AppError) return render(error);
      if (code === "NOT_FOUND") return render(new AppError("NOT_FOUND", `no such path: ${url.pathname}`));
      if (code === "PARSE") return render(new AppError("INVALID_PARAMETER", "request body is not valid JSON", { engineCode: 100 }));
      if (code === "VALIDATION") return render(new AppError("INVALID_PARAMETER", String((error as Error).message)));
      deps.log.error("unhandled error", { path: url.pathname, error: String((error as Error)?.stack ?? error) });
      return render(error);
    })
    .get("/health", () => ({
      status: "ok",
      uptime_s: Math.round((deps.now() - started) / 1000),
      auth: deps.auth.enabled,
      rate_limit: deps.rateLimiter.health?.() ?? { limiter: "in-process" },
      features: Object.fromEntries(deps.features.map((f) => [f.name, f.health?.() ?? {}])),
      worker: deps.worker ?? { index: 0, pid: process.pid },
    }));
  for (const f of deps.features) app = app.use(f.routes) as unknown as typeof app;
  return app;
}
