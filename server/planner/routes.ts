/**
 * HTTP edge of the planner: GET /api/v2/routing/otp/plan (OTP1 parameters, OTP-style body). The
 * query string becomes typed PlanParams through the zod schemas of plan-params.ts (which also give
 * /docs its parameters); errors are answered by plannerErrors, registered with the app for the
 * planner's paths.
 */
import { Elysia } from "elysia";
import { AppError, jsonError, renderError } from "../errors.ts";
import type { FeatureErrors } from "../feature.ts";
import { openApiParameters } from "../params.ts";
import { PLAN_PARAMS, type PlanParams, parsePlanParams } from "./plan-params.ts";
import { otpError, type PlanResponse } from "./plan-service.ts";

export const PLAN_PATH = "/api/v2/routing/otp/plan";

/**
 * The planner's errors, as OTP answers them: a bad parameter is BOGUS_PARAMETER naming it
 * (`missing`), HTTP 400; no timetable is GRAPH_UNAVAILABLE, HTTP 503 (the AppError's message is the
 * detail). Everything else (API key, rate limit, unknown path) follows the service-wide rules.
 */
export const plannerErrors: FeatureErrors = {
  prefix: "/api/v2/routing/otp/",
  render(err) {
    if (err instanceof AppError && err.code === "INVALID_PARAMETER") {
      const error = otpError("BOGUS_PARAMETER", undefined, err.details.parameter ? [err.details.parameter] : undefined);
      error.msg = err.message;
      return jsonError(400, { error });
    }
    if (err instanceof AppError && err.code === "UNAVAILABLE") return jsonError(503, { error: otpError("GRAPH_UNAVAILABLE", err.message || undefined) });
    return renderError(err);
  },
};

/** The query-string values as the plan parameters read them (a repeated parameter: Elysia's value). */
function flat(query: Record<string, unknown>): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(query)) out[k] = Array.isArray(v) ? String(v[0]) : v == null ? undefined : String(v);
  return out;
}

/**
 * `planner()` gives the plan function of the loaded timetable, or throws UNAVAILABLE (before the
 * parameters are looked at, as OTP answers GRAPH_UNAVAILABLE).
 */
export function plannerRoutes(planner: () => (params: PlanParams) => PlanResponse) {
  return new Elysia({ name: "planner" }).get(
    PLAN_PATH,
    ({ query }) => {
      const plan = planner();
      const body = plan(parsePlanParams(flat(query as Record<string, unknown>)));
      return new Response(JSON.stringify(body), { status: 200, headers: { "content-type": "application/json" } });
    },
    {
      detail: {
        summary: "Plan a transit trip (OTP1-compatible)",
        description:
          "OTP1 plan parameters; see the README section Transit planner. A plan that finds nothing is a 200 with `error` (PATH_NOT_FOUND, OUTSIDE_BOUNDS, NO_TRANSIT_TIMES); a bad parameter is a 400 BOGUS_PARAMETER, a missing timetable a 503 GRAPH_UNAVAILABLE.",
        tags: ["planner"],
        parameters: openApiParameters(PLAN_PARAMS),
      },
    },
  );
}
