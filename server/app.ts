/**
 * createApp: wires the features behind the service-wide rules (API key, per-account rate limit,
 * error rendering, OpenAPI docs). No listen() here; server/main.ts does that.
 */
import { Elysia } from "elysia";
import { swagger } from "@elysiajs/swagger";
import { AppError, renderError } from "./errors.ts";
import type { Authenticator } from "./auth/keys.ts";
import type { RateLimiter } from "./auth/rate-limit.ts";
import type { Feature, Logger } from "./feature.ts";
import { catalogFormatPaths } from "./catalog/routes.ts";

export interface AppDeps {
  auth: Authenticator;
  rateLimiter: RateLimiter;
  features: Feature[];
  log: Logger;
  now: () => number;
}

/** Which error body family a path belongs to (see server/errors.ts renderError). */
export function familyOf(pathname: string): "catalog" | "street" | "plan" | "other" {
  if (pathname.startsWith("/api/v2/rest/")) return "catalog";
  if (pathname.startsWith("/api/v2/routing/valhalla/")) return "street";
  if (pathname.startsWith("/api/v2/routing/")) return "plan";
  return "other";
}

export function createApp(deps: AppDeps) {
  const started = deps.now();
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
          // swagger drops paths with a dot; the catalog's `.{format}` forms are added here
          paths: catalogFormatPaths() as Record<string, never>,
        },
      }),
    )
    .onRequest(async ({ request }) => {
      const url = new URL(request.url);
      if (!url.pathname.startsWith("/api/")) return;
      if (request.method === "OPTIONS") return; // CORS preflight carries no key
      try {
        const account = deps.auth.authenticate(request, url);
        const decision = await deps.rateLimiter.take(account, deps.now());
        if (!decision.allowed) {
          throw new AppError("RATE_LIMITED", `rate limit exceeded for this API key (${account.rateLimitPerMinute} requests per minute); retry after ${Math.ceil(decision.retryAfterSec)} s`, {
            retryAfterSec: decision.retryAfterSec,
          });
        }
      } catch (err) {
        return renderError(err, familyOf(url.pathname));
      }
    })
    .onError(({ code, error, request }) => {
      const url = new URL(request.url);
      if (error instanceof AppError) return renderError(error, familyOf(url.pathname));
      if (code === "NOT_FOUND") return renderError(new AppError("NOT_FOUND", `no such path: ${url.pathname}`), familyOf(url.pathname));
      if (code === "PARSE") return renderError(new AppError("INVALID_PARAMETER", "request body is not valid JSON", { engineCode: 100 }), familyOf(url.pathname));
      if (code === "VALIDATION") return renderError(new AppError("INVALID_PARAMETER", String((error as Error).message)), familyOf(url.pathname));
      deps.log.error("unhandled error", { path: url.pathname, error: String((error as Error)?.stack ?? error) });
      return renderError(error, familyOf(url.pathname));
    })
    .get("/health", () => ({
      status: "ok",
      uptime_s: Math.round((deps.now() - started) / 1000),
      auth: deps.auth.enabled,
      features: Object.fromEntries(deps.features.map((f) => [f.name, f.health?.() ?? {}])),
    }));
  for (const f of deps.features) app = app.use(f.routes) as unknown as typeof app;
  return app;
}
