/**
 * The street-routing gateway: one function from an HTTP Request to the engine's relayed Response,
 * free of Elysia so it can be tested and reused. Order: CORS preflight, method (101), action (106),
 * JSON (100), validation (1xx), rewrites the engine needs (hard exclusions dropped with warning 208,
 * exclude_polygons FeatureCollection to rings), engine, relay. Refusals and failures are thrown as
 * AppError (anything else becomes ENGINE_UNAVAILABLE) and answered with Valhalla's bodies by the
 * street feature's error renderer (routes.ts streetErrors).
 */
import { CORS_ALLOW_ORIGIN } from "../cors.ts";
import { AppError } from "../errors.ts";
import type { Logger } from "../feature.ts";
import { HARD_EXCLUSION_WARNING } from "./codes.ts";
import type { StreetEngine } from "./engine.ts";
import { stripHardExclusions } from "./hard-exclusions.ts";
import { polygonsToRings } from "./exclude-polygons.ts";
import { CORS_HEADERS, relay, type Warning } from "./relay.ts";
import { readStreetRequest } from "./request.ts";
import { ACTIONS, isAction } from "./schemas/index.ts";
import { validateStreetRequest } from "./validate.ts";

export const STREET_PREFIX = "/api/v2/routing/valhalla";

export interface GatewayDeps {
  engine: StreetEngine;
  allowHardExclusions: boolean;
  log: Logger;
}

/** The gateway's own Valhalla-style answers to an unknown action (404) or method (405). */
function engineStyleError(status: number, statusText: string, code: number, error: string, extra: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ error, error_code: code, status: statusText, status_code: status }), {
    status,
    headers: { "content-type": "application/json", ...CORS_ALLOW_ORIGIN, ...extra },
  });
}

export function createGateway(deps: GatewayDeps) {
  const tryAny = `Try any of: ${ACTIONS.map((a) => `'/${a}'`).join(" ")}`;

  async function forward(request: Request, url: URL, action: (typeof ACTIONS)[number]): Promise<Response> {
    const bodyText = request.method === "POST" ? await request.text() : "";
    if (action === "status") {
      const hasJson = url.searchParams.has("json") || bodyText.trim() !== "";
      const req = hasJson ? readStreetRequest(url, bodyText) : null;
      const query = new URLSearchParams([...url.searchParams].filter(([k]) => k !== "apikey" && k !== "json")).toString();
      const merged = () => JSON.stringify(req?.view ?? {});
      const res = await deps.engine.handle({ action, body: req ? req.jsonText : null, query, merged, signal: request.signal });
      return relay(res, { expectJson: true, warnings: [] });
    }
    const req = readStreetRequest(url, bodyText);
    validateStreetRequest(action, req.view);
    const warnings: Warning[] = [];
    // rewrites change the JSON itself; the query's parameters are re-merged after them
    let changed = false;
    if (!deps.allowHardExclusions) {
      const removed = stripHardExclusions(req.json);
      if (removed.length) {
        warnings.push({ ...HARD_EXCLUSION_WARNING });
        changed = true;
        deps.log.info("hard exclusions dropped", { action, removed });
      }
    }
    const rings = polygonsToRings(req.json.exclude_polygons);
    if (rings) {
      req.json.exclude_polygons = rings.rings;
      warnings.push(...rings.warnings);
      changed = true;
    }
    if (action === "height" && req.view.resample_distance === 0) {
      // 0 m between samples means no resampling; the engine would loop on it
      delete req.json.resample_distance;
      delete req.extra.resample_distance;
      changed = true;
    }
    const body = changed ? JSON.stringify(req.json) : req.jsonText;
    const merged = () => (req.forwardQuery ? JSON.stringify({ ...req.extra, ...req.json }) : body);
    const format = typeof req.view.format === "string" ? req.view.format : undefined;
    const expectJson = format === undefined || format === "json" || format === "osrm";
    const res = await deps.engine.handle({ action, body, query: req.forwardQuery, merged, format, signal: request.signal });
    return relay(res, { expectJson, warnings });
  }

  return {
    async handle(request: Request): Promise<Response> {
      const url = new URL(request.url);
      const action = url.pathname.slice(STREET_PREFIX.length).replace(/^\/+/, "").replace(/\/+$/, "");
      if (request.method === "OPTIONS") return new Response(null, { status: 204, headers: CORS_HEADERS });
      if (request.method !== "GET" && request.method !== "POST") {
        return engineStyleError(405, "Method Not Allowed", 101, ENGINE_101, { allow: "GET, POST, OPTIONS" });
      }
      if (!isAction(action)) return engineStyleError(404, "Not Found", 106, tryAny);
      try {
        return await forward(request, url, action);
      } catch (err) {
        if (err instanceof AppError) {
          if (err.code === "ENGINE_UNAVAILABLE") deps.log.warn("routing engine unavailable", { action, error: err.message, cause: err.details.cause });
          throw err;
        }
        // A stream that broke while we peeked at it: the engine went away mid-answer.
        deps.log.error("street routing failed", { action, error: String((err as Error)?.stack ?? err) });
        throw new AppError("ENGINE_UNAVAILABLE", "routing engine stopped answering");
      }
    },
  };
}

const ENGINE_101 = "Try a POST or GET request instead";
