/**
 * The street-routing gateway as a service: a typed StreetQuery in (method, action, query
 * parameters, body text, abort signal), a typed StreetAnswer out (status, headers, body whole or
 * streamed); no HTTP objects, so it can be tested and reused without a server (routes.ts turns
 * Requests into queries and answers into Responses). Order: CORS preflight, method (101), action
 * (106), JSON (100), validation (1xx), rewrites the engine needs (hard exclusions dropped with
 * warning 208, exclude_polygons FeatureCollection to rings), engine, relay. Refusals and failures
 * are thrown as AppError (anything else becomes ENGINE_UNAVAILABLE) and answered with Valhalla's
 * bodies by the street feature's error renderer (routes.ts streetErrors); the unknown action and
 * method are answered as Valhalla's own HTTP server answers them.
 */
import { CORS_ALLOW_ORIGIN } from "../cors.ts";
import { AppError } from "../errors.ts";
import type { Logger } from "../feature.ts";
import { HARD_EXCLUSION_WARNING } from "./codes.ts";
import type { EngineAnswer, EngineCall, StreetEngine } from "./engine.ts";
import { stripHardExclusions } from "./hard-exclusions.ts";
import { polygonsToRings } from "./exclude-polygons.ts";
import { CORS_HEADERS, relay, type StreetAnswer, type Warning } from "./relay.ts";
import { readStreetRequest, type StreetRequest } from "./request.ts";
import { ACTIONS, isAction, type StreetAction } from "./schemas/index.ts";
import { validateStreetRequest } from "./validate.ts";

export type { StreetAnswer } from "./relay.ts";

export const STREET_PREFIX = "/api/v2/routing/valhalla";

/** One street-routing request, as the gateway reads it. */
export interface StreetQuery {
  /** the HTTP method as sent (GET and POST are served, OPTIONS is the CORS preflight) */
  readonly method: string;
  /** what follows the prefix, without slashes: an action name, or anything else (answered 106) */
  readonly action: string;
  /** the query parameters as sent: `json`, `apikey` (never forwarded) and any others */
  readonly params: URLSearchParams;
  /** the body as text ("" when none); only a POST's is read, as Valhalla does */
  readonly body: string;
  /** aborted when the client goes away */
  readonly signal: AbortSignal;
  /** the account the request was authenticated as (absent without API keys) */
  readonly account?: string;
}

export interface GatewayDeps {
  engine: StreetEngine;
  allowHardExclusions: boolean;
  /** engine calls one account may have running or waiting at once (0: no limit) */
  accountConcurrency?: number;
  log: Logger;
}

export interface StreetGateway {
  /** The answer to a query; throws AppError for refusals (400) and engine failures (503). */
  handle(query: StreetQuery): Promise<StreetAnswer>;
}

/** The gateway's own Valhalla-style answers to an unknown action (404) or method (405). */
function engineStyleError(status: number, statusText: string, code: number, error: string, extra: Record<string, string> = {}): StreetAnswer {
  return {
    status,
    headers: { "content-type": "application/json", ...CORS_ALLOW_ORIGIN, ...extra },
    body: JSON.stringify({ error, error_code: code, status: statusText, status_code: status }),
  };
}

/**
 * The gateway: CORS preflight, method and action checks here; a known action is forwarded
 * (forward: validation, rewrites, engine call within the account's share, relay); failures that
 * are not AppErrors become ENGINE_UNAVAILABLE.
 */
export function createGateway(deps: GatewayDeps): StreetGateway {
  const tryAny = `Try any of: ${ACTIONS.map((a) => `'/${a}'`).join(" ")}`;
  const engineCall = accountShare(deps.engine, deps.accountConcurrency ?? 0);
  return {
    async handle(query) {
      const { action } = query;
      if (query.method === "OPTIONS") return { status: 204, headers: CORS_HEADERS, body: null };
      if (query.method !== "GET" && query.method !== "POST") {
        return engineStyleError(405, "Method Not Allowed", 101, ENGINE_101, { allow: "GET, POST, OPTIONS" });
      }
      if (!isAction(action)) return engineStyleError(404, "Not Found", 106, tryAny);
      try {
        return await forward(deps, engineCall, query, action);
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

/** Calls the engine for a query (within its account's share: accountShare). */
type EngineCaller = (query: StreetQuery, call: EngineCall) => Promise<EngineAnswer>;

/**
 * The engine's answer, within the account's share: an account may hold at most `limit` engine
 * calls at once (0: no limit). Beyond it, 429 with Retry-After (not 503): the service is not
 * unavailable, this account is over its own share while others are served; a client retries after
 * one answer.
 */
function accountShare(engine: StreetEngine, limit: number): EngineCaller {
  /** engine calls of each account, running or waiting for a slot */
  const inFlight = new Map<string, number>();
  return async (query, call) => {
    const account = query.account;
    if (account === undefined) return engine.handle(call);
    // the account goes with the call: the engine's slots are shared fairly across accounts
    if (limit <= 0) return engine.handle({ ...call, account });
    const n = inFlight.get(account) ?? 0;
    if (n >= limit) {
      throw new AppError("RATE_LIMITED", `this API key already has ${n} street routing requests in progress (at most ${limit} at once): retry once one is answered`, { retryAfterSec: 1 });
    }
    inFlight.set(account, n + 1);
    try {
      return await engine.handle({ ...call, account });
    } finally {
      const left = (inFlight.get(account) ?? 1) - 1;
      if (left > 0) inFlight.set(account, left);
      else inFlight.delete(account);
    }
  };
}

/** A known action forwarded: its request read and validated, rewritten as the engine needs, answered by the engine and relayed. */
async function forward(deps: GatewayDeps, engineCall: EngineCaller, query: StreetQuery, action: StreetAction): Promise<StreetAnswer> {
  const bodyText = query.method === "POST" ? query.body : "";
  if (action === "status") return forwardStatus(engineCall, query, bodyText);
  const req = readStreetRequest(query.params, bodyText);
  validateStreetRequest(action, req.view);
  const { body, warnings } = rewriteForEngine(req, action, deps);
  const merged = () => (req.forwardQuery ? JSON.stringify({ ...req.extra, ...req.json }) : body);
  const format = typeof req.view.format === "string" ? req.view.format : undefined;
  const expectJson = format === undefined || format === "json" || format === "osrm";
  const answer = await engineCall(query, { action, body, query: req.forwardQuery, merged, format, signal: query.signal });
  return relay(answer, { expectJson, warnings });
}

/** A status request: its JSON optional (validated when given), the query's other parameters passed on. */
async function forwardStatus(engineCall: EngineCaller, query: StreetQuery, bodyText: string): Promise<StreetAnswer> {
  const action = "status";
  const params = query.params;
  const hasJson = params.has("json") || bodyText.trim() !== "";
  const req = hasJson ? readStreetRequest(params, bodyText) : null;
  // the engine parses a status request's JSON like any other's (a `durations` crashed it)
  if (req) validateStreetRequest(action, req.view);
  const engineQuery = new URLSearchParams([...params].filter(([k]) => k !== "apikey" && k !== "json")).toString();
  const merged = () => JSON.stringify(req?.view ?? {});
  // a status request's `format` too (pbf is refused by the embedded engine; found by test/fuzz)
  const statusFormat = typeof req?.view.format === "string" ? req.view.format : undefined;
  const answer = await engineCall(query, { action, body: req ? req.jsonText : null, query: engineQuery, merged, signal: query.signal, ...(statusFormat ? { format: statusFormat } : {}) });
  return relay(answer, { expectJson: statusFormat === undefined || statusFormat === "json", warnings: [] });
}

/**
 * The rewrites the engine needs (hard exclusions dropped unless allowed, exclude_polygons to rings,
 * a height resample_distance of 0 dropped): the body to send (the request's own text when nothing
 * changed; the query's parameters are re-merged after them) and the warnings to add.
 */
function rewriteForEngine(req: StreetRequest, action: StreetAction, deps: GatewayDeps): { body: string; warnings: Warning[] } {
  const warnings: Warning[] = [];
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
  return { body: changed ? JSON.stringify(req.json) : req.jsonText, warnings };
}

const ENGINE_101 = "Try a POST or GET request instead";
