/**
 * HTTP edge of the planner: GET /api/v2/routing/otp/plan (OTP1 parameters, OTP1's response body),
 * GET /api/v2/routing/otp/reachability (reachability.ts) and POST /api/v2/analysis/travel-times
 * (analysis/service.ts; JSON, or an Arrow IPC stream when the client accepts it).
 * The query string becomes typed PlanParams through the zod schemas of plan-params.ts (which also
 * give /docs its parameters); the plan's PlanResult (model.ts) is rendered by the OTP1 renderer
 * (otp1/): `requestParameters`, then `plan` or `error`, then `elevationMetadata`. Errors are
 * answered by plannerErrors, registered with the app for the planner's paths (CORS headers:
 * server/app.ts), with OTP1's error bodies (otp1/errors.ts).
 */
import { Elysia } from "elysia";
import { Int16, Table, Utf8, tableToIPC, vectorFromArray, type Vector } from "apache-arrow";
import { AppError, jsonError, renderError } from "../errors.ts";
import type { FeatureErrors } from "../feature.ts";
import { openApiParameters } from "../params.ts";
import { PLAN_PARAMS, type PlanParams, parsePlanParams } from "./plan-params.ts";
import type { PlanResult } from "./model.ts";
import { otpError } from "./otp1/errors.ts";
import { planHttpResponse, requestParameters } from "./otp1/plan.ts";
import { parseReachabilityParams, REACHABILITY_PARAMS, REACHABILITY_PATH, type ReachabilityAnswer, type ReachabilityParams } from "./reachability.ts";
import { parseTravelTimesRequest, TRAVEL_TIMES_LIMITS, TRAVEL_TIMES_PATH, type TravelTimesAnswer, type TravelTimesRequest } from "./analysis/service.ts";

const ARROW_STREAM = "application/vnd.apache.arrow.stream";
/** The longest request body read, bytes (500 destinations take about 40 KB). */
const MAX_ANALYSIS_BODY = 256 * 1024;

/** An analysis answer as an Arrow IPC stream: destination_id, then one Int16 column per percentile (p5, ...; null = unreachable). */
function travelTimesArrow(a: TravelTimesAnswer): Response {
  const cols: Record<string, Vector> = { destination_id: vectorFromArray(a.destinations.map((d) => d.id), new Utf8()) };
  a.percentiles.forEach((p, k) => {
    cols[`p${p}`] = vectorFromArray(a.destinations.map((d) => d.travelTimes[k] ?? null), new Int16());
  });
  const table = new Table(cols);
  table.schema.metadata.set("date", a.date).set("window", a.window).set("time_zone", a.timeZone).set("walks", a.walks).set("departures", String(a.departures));
  if (a.offStreets) table.schema.metadata.set("off_streets", JSON.stringify(a.offStreets));
  return new Response(tableToIPC(table, "stream"), { status: 200, headers: { "content-type": ARROW_STREAM } });
}

export const PLAN_PATH = "/api/v2/routing/otp/plan";

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
      const error = otpError({ kind: "BOGUS_PARAMETER", detail: err.message, ...(err.details.parameter ? { missing: [err.details.parameter as string] } : {}) });
      return jsonError(400, { requestParameters, error });
    }
    if (err instanceof AppError && err.code === "UNAVAILABLE") return jsonError(503, { requestParameters, error: otpError({ kind: "GRAPH_UNAVAILABLE", ...(err.message ? { detail: err.message } : {}) }) });
    return renderError(err);
  },
};

/** The account of a request's API key (undefined without keys): its street calls are served in turn with other accounts'. */
type AccountOf = (request: Request) => string | undefined;

/**
 * `planner()` gives the plan function of the loaded timetable, or throws UNAVAILABLE (before the
 * parameters are looked at, as OTP answers GRAPH_UNAVAILABLE). Each function takes the request's
 * account (`accountOf`) for its street calls.
 */
export function plannerRoutes(
  planner: () => (params: PlanParams, account?: string) => Promise<PlanResult>,
  reachability?: () => (params: ReachabilityParams, account?: string) => Promise<ReachabilityAnswer>,
  analysis?: () => (req: TravelTimesRequest, account?: string) => Promise<TravelTimesAnswer>,
  accountOf: AccountOf = () => undefined,
) {
  const app = new Elysia({ name: "planner" });
  if (analysis) travelTimesRoute(app, analysis, accountOf);
  if (reachability) reachabilityRoute(app, reachability, accountOf);
  return planRoute(app, planner, accountOf);
}

type PlannerApp = Elysia<"", { decorator: {}; store: {}; derive: {}; resolve: {} }>;

/** POST travel times from one origin to a set of destinations over a departure window (analysis/service.ts). */
function travelTimesRoute(app: PlannerApp, analysis: () => (req: TravelTimesRequest, account?: string) => Promise<TravelTimesAnswer>, accountOf: AccountOf) {
  app.post(
    TRAVEL_TIMES_PATH,
    async ({ request }) => {
      const run = analysis();
      const text = await request.text().catch(() => null);
      if (text === null || text.length > MAX_ANALYSIS_BODY) throw new AppError("INVALID_PARAMETER", text === null ? "the body could not be read" : `the body is larger than ${MAX_ANALYSIS_BODY} bytes`, { parameter: "body" });
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        throw new AppError("INVALID_PARAMETER", "the body is not JSON", { parameter: "body" });
      }
      const answer = await run(parseTravelTimesRequest(body), accountOf(request));
      if ((request.headers.get("accept") ?? "").includes(ARROW_STREAM)) return travelTimesArrow(answer);
      return new Response(JSON.stringify(answer), { status: 200, headers: { "content-type": "application/json" } });
    },
    {
      parse: "none",
      detail: {
        summary: "Travel times from one origin to a set of destinations over a departure window (percentiles)",
        description: `JSON body: {"from": {"lat", "lon"}, "to": [{"id", "lat", "lon"}, ...] (at most ${TRAVEL_TIMES_LIMITS.destinations}), "date": "YYYY-MM-DD", "window": "07:00-09:00" (at most ${TRAVEL_TIMES_LIMITS.windowMin} minutes), and optionally "step" (minutes, 1), "walkSpeed" (m/s, 1.3), "maxWalk" (minutes, 20), "maxDuration" (minutes, 120), "maxTransfers" (4), "modes" (["TRANSIT"]), "percentiles" ([5, 25, 50, 75, 95]), "accessMode" and "egressMode" ("WALK" or "BICYCLE", cycling on the streets), "bikeSpeed" (m/s, 4.2), "maxBike" (minutes, 20)}. One range-RAPTOR search over every minute of the window, the same as interchange analyze (docs/analysis.md): per destination, the travel time in minutes at each percentile (R5's nearest rank), null when unreachable. Walks on the streets when a street network is loaded, straight lines otherwise ("walks"; "offStreets" counts the points that kept straight lines). With Accept: ${ARROW_STREAM}, an Arrow IPC stream (destination_id, p5, ...). A bad field, or a date outside the timetable's service, is a 400 naming it.`,
        tags: ["planner"],
      },
    },
  );
}

/** GET transit reachability (reachability.ts): the earliest arrival at every stop within maxTravelTime. */
function reachabilityRoute(app: PlannerApp, reachability: () => (params: ReachabilityParams, account?: string) => Promise<ReachabilityAnswer>, accountOf: AccountOf) {
  app.get(
    REACHABILITY_PATH,
    async ({ request }) => {
      const echo = requestParameters(new URL(request.url));
      try {
        const reach = reachability();
        const body = await reach(parseReachabilityParams(echo), accountOf(request));
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

/** GET the OTP1 plan. */
function planRoute(app: PlannerApp, planner: () => (params: PlanParams, account?: string) => Promise<PlanResult>, accountOf: AccountOf) {
  return app.get(
    PLAN_PATH,
    async ({ request }) => {
      // the parameters are read as OTP1 reads them and echoes them: the first value of each
      const echo = requestParameters(new URL(request.url));
      let result: PlanResult;
      try {
        const plan = planner();
        result = await plan(parsePlanParams(echo), accountOf(request));
      } catch (err) {
        throw withParameters(err, echo);
      }
      return planHttpResponse(result, echo);
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
