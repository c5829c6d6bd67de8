/**
 * HTTP edge of the planner: GET /api/v2/routing/otp/plan (OTP1 parameters, OTP1's response body)
 * and GET /api/v2/routing/otp/reachability (reachability.ts).
 * The query string becomes typed PlanParams through the zod schemas of plan-params.ts (which also
 * give /docs its parameters); the body is OTP1's Response: `requestParameters`, then `plan` or
 * `error`, then `elevationMetadata`. Errors are answered by plannerErrors, registered with the app
 * for the planner's paths (CORS headers: server/app.ts).
 */
import { Elysia } from "elysia";
import { AppError, jsonError, renderError } from "../errors.ts";
import type { FeatureErrors } from "../feature.ts";
import { openApiParameters } from "../params.ts";
import { PLAN_PARAMS, type PlanParams, parsePlanParams } from "./plan-params.ts";
import { otpError, type PlanResponse } from "./plan-service.ts";
import { parseReachabilityParams, REACHABILITY_PARAMS, REACHABILITY_PATH, type ReachabilityAnswer, type ReachabilityParams } from "./reachability.ts";

export const PLAN_PATH = "/api/v2/routing/otp/plan";

/**
 * OTP1's `requestParameters`: every query parameter of the request, its first value, as a string
 * (api/resource/Response.java), in the order sent; never the API key.
 */
export function requestParameters(url: URL): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of url.searchParams) if (k !== "apikey" && !(k in out)) out[k] = v;
  return out;
}

/**
 * OTP1's `elevationMetadata`, sent with every planned answer: `ellipsoidToGeoidDifference` is the
 * graph's (computed from its geoid model at the graph's centre; 0.0 when it has none, as here: the
 * itineraries carry no elevation), `geoidElevation` the request's flag (default false).
 */
function elevationMetadata(params: Record<string, string>) {
  return { ellipsoidToGeoidDifference: 0.0, geoidElevation: (params.geoidElevation ?? "").toLowerCase() === "true" };
}

/**
 * What the planner did with the request besides the plan: the values it used instead of the ones
 * requested (`PlanParams.clamped`, parameter -> value used, e.g. a maxWalkDistance above OTP1's
 * limit) and its notes (`PlanParams.warnings`: parameters accepted without effect, ids the timetable
 * does not know; criteria.ts adds to them while planning). requestParameters keeps echoing the
 * request as sent (OTP1); these go in the `x-interchange-warning` header, `; `-separated (as the
 * street gateway warns), readable from browsers (access-control-expose-headers).
 */
function planWarnings(params: PlanParams): string[] {
  return [...Object.entries(params.clamped ?? {}).map(([name, used]) => `${name} clamped to ${used}`), ...(params.warnings ?? [])];
}

/** An AppError's answer with the request's parameters: kept on the error for plannerErrors. */
const withParameters = (err: unknown, params: Record<string, string>) => {
  if (err instanceof AppError) err.details.requestParameters = params;
  return err;
};

/**
 * The planner's errors, as OTP answers them: a bad parameter is BOGUS_PARAMETER naming it
 * (`missing`, and in `msg` after OTP1's text), HTTP 400 (OTP1 answers an unparsable value with a
 * 500 or a silent default: not copied); no timetable is GRAPH_UNAVAILABLE, HTTP 503 (the AppError's
 * message is the detail). Both with the request's requestParameters, as OTP1 sends them beside
 * every error. Everything else (API key, rate limit, unknown path) follows the service-wide rules.
 */
export const plannerErrors: FeatureErrors = {
  prefix: "/api/v2/routing/otp/",
  render(err) {
    const requestParameters = err instanceof AppError ? (err.details.requestParameters as Record<string, string> | undefined) : undefined;
    if (err instanceof AppError && err.code === "INVALID_PARAMETER") {
      const error = otpError("BOGUS_PARAMETER", err.message, err.details.parameter ? [err.details.parameter] : undefined);
      return jsonError(400, { requestParameters, error });
    }
    if (err instanceof AppError && err.code === "UNAVAILABLE") return jsonError(503, { requestParameters, error: otpError("GRAPH_UNAVAILABLE", err.message || undefined) });
    return renderError(err);
  },
};

/**
 * `planner()` gives the plan function of the loaded timetable, or throws UNAVAILABLE (before the
 * parameters are looked at, as OTP answers GRAPH_UNAVAILABLE).
 */
export function plannerRoutes(planner: () => (params: PlanParams) => Promise<PlanResponse>, reachability?: () => (params: ReachabilityParams) => Promise<ReachabilityAnswer>) {
  const app = new Elysia({ name: "planner" });
  if (reachability) {
    // transit reachability (reachability.ts): the earliest arrival at every stop within maxTravelTime
    app.get(
      REACHABILITY_PATH,
      async ({ request }) => {
        const echo = requestParameters(new URL(request.url));
        try {
          const reach = reachability();
          const body = await reach(parseReachabilityParams(echo));
          return new Response(JSON.stringify({ requestParameters: echo, ...body }), { status: 200, headers: { "content-type": "application/json" } });
        } catch (err) {
          throw withParameters(err, echo);
        }
      },
      {
        detail: {
          summary: "Transit reachability: earliest arrival at every stop from a place",
          description:
            "From fromPlace at date/time (local, in the time zone of the agency nearest fromPlace), the stops reachable within maxTravelTime minutes (access on foot, or by bicycle with mode BICYCLE,TRANSIT, on the streets where a street network covers the place; rides; transfers), each with its earliest `arrival` (ms since epoch) and `travelTime` (seconds), by travel time. `error` (OUTSIDE_BOUNDS, NO_TRANSIT_TIMES) says why nothing can be reached. A bad parameter is a 400 BOGUS_PARAMETER naming it, a missing timetable a 503 GRAPH_UNAVAILABLE.",
          tags: ["planner"],
          parameters: openApiParameters(REACHABILITY_PARAMS),
        },
      },
    );
  }
  return app.get(
    PLAN_PATH,
    async ({ request }) => {
      // the parameters are read as OTP1 reads them and echoes them: the first value of each
      const echo = requestParameters(new URL(request.url));
      let params: PlanParams, body: PlanResponse;
      try {
        const plan = planner();
        params = parsePlanParams(echo);
        body = await plan(params);
      } catch (err) {
        throw withParameters(err, echo);
      }
      // OTP1's key order: requestParameters, plan, error (then elevationMetadata); earliestArrivals
      // (Transitland's) after the plan
      const out: Record<string, unknown> = { requestParameters: echo };
      if (body.plan) out.plan = body.plan;
      if (body.earliestArrivals) out.earliestArrivals = body.earliestArrivals;
      if (body.error) out.error = body.error;
      out.elevationMetadata = elevationMetadata(echo);
      const headers: Record<string, string> = { "content-type": "application/json" };
      const warnings = planWarnings(params);
      if (warnings.length) {
        // a header is Latin-1 text: anything else (ids with other characters) as \uXXXX
        headers["x-interchange-warning"] = warnings.join("; ").replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
        headers["access-control-expose-headers"] = "x-interchange-warning";
      }
      return new Response(JSON.stringify(out), { status: 200, headers });
    },
    {
      detail: {
        summary: "Plan a transit trip (OTP1-compatible)",
        description:
          "OTP1 plan parameters; see the README section Transit planner. The body is OTP1's: `requestParameters`, then `plan` or `error`, then `elevationMetadata`. A plan that finds nothing is a 200 with `error` and no `plan` (PATH_NOT_FOUND, OUTSIDE_BOUNDS, NO_TRANSIT_TIMES, TOO_CLOSE); a bad parameter is a 400 BOGUS_PARAMETER, a missing timetable a 503 GRAPH_UNAVAILABLE.",
        tags: ["planner"],
        parameters: openApiParameters(PLAN_PARAMS),
      },
    },
  );
}
