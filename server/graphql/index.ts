/**
 * GraphQL feature: OTP2's GTFS GraphQL API at POST/GET /otp/gtfs/v1 (and OTP's older path
 * /otp/routers/default/index/graphql), served by graphql-yoga over graphql's reference
 * implementation with OTP's own schema (schema.ts, execute.ts). JSON in and out
 * (`application/json`, `application/graphql-response+json`, statuses per the GraphQL-over-HTTP
 * spec, which yoga implements); the request limits of limits.ts; the transit data through the
 * transit-data port (server/transit-data.ts) that server/main.ts hands over. API keys and rate
 * limits are server/app.ts's, as for every path; refusals are answered in the GraphQL error shape.
 * A browser's GET for HTML on either path is answered the GraphiQL page (graphiql.ts), public like
 * /docs; the queries it sends need a key.
 */
import { Elysia } from "elysia";
import { parse } from "graphql";
import { AppError, HTTP_STATUS } from "../errors.ts";
import type { Feature, FeatureContext } from "../feature.ts";
import { compiledExecutionPlugin } from "./compiled.ts";
import type { TransitData } from "../transit-data.ts";
import { executableSchema } from "./execute.ts";
import { GRAPHIQL_ASSETS_PATH, graphiqlPages, wantsGraphiql } from "./graphiql.ts";
import { DEFAULT_LIMITS, type GraphqlLimits, limitsRule } from "./limits.ts";
import type { Planning } from "../planning.ts";
import { type PlanCharge, planCostPlugin } from "./plan/cost.ts";
import { PLAN_FIELDS, type PlanContext } from "./resolvers/plan.ts";
import { createYoga, type YogaPlugin } from "./yoga.ts";

export const GRAPHQL_PATH = "/otp/gtfs/v1";
/** OTP's path before /otp/gtfs/v1 (OTP 2.0-2.4 clients, otp-react-redux's `index/graphql`) */
export const LEGACY_GRAPHQL_PATH = "/otp/routers/default/index/graphql";

/** A GraphQL error body: `{errors: [{message, extensions: {code}}]}`. */
function graphqlErrorResponse(status: number, code: string, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ errors: [{ message, extensions: { code } }] }), { status, headers: { ...headers, "content-type": "application/json; charset=utf-8" } });
}

/** How the service-wide refusals (key, rate limit, unknown path) look on the GraphQL paths. */
export function renderGraphqlError(err: unknown): Response {
  if (!(err instanceof AppError)) return graphqlErrorResponse(500, "INTERNAL_SERVER_ERROR", "internal server error");
  const status = HTTP_STATUS[err.code];
  const headers: Record<string, string> = {};
  if (err.details.retryAfterSec !== undefined) headers["retry-after"] = String(Math.max(1, Math.ceil(err.details.retryAfterSec)));
  return graphqlErrorResponse(status, err.code, err.message, headers);
}

/** The yoga plugin bounding the parser's tokens and adding the depth/alias/plan rule. */
function limitsPlugin(limits: GraphqlLimits): YogaPlugin {
  const rule = limitsRule(limits, PLAN_FIELDS);
  return {
    onParse({ setParseFn }) {
      setParseFn((source, options) => parse(source, { ...options, maxTokens: limits.maxTokens }));
    },
    onValidate({ addValidationRule }) {
      addValidationRule(rule);
    },
  };
}

/** How plans are made and what they cost (server/main.ts hands the planner's port and the rate limit over). */
export interface GraphqlPlanning {
  planning: Planning;
  /** each plan field after a request's first takes one more request of the account's rate */
  charge?: PlanCharge;
  /** the account of a request's API key (absent without keys): its plans' street calls are served in turn with other accounts' */
  accountOf?: (request: Request) => string | undefined;
}

/** The GraphQL handler: yoga behind the body-size check, both paths answered as GRAPHQL_PATH. */
export function graphqlHandler(transit: TransitData, limits: GraphqlLimits = DEFAULT_LIMITS, now: () => number = Date.now, plans?: GraphqlPlanning) {
  // the account of each request handed to yoga (the request it sees is a copy of the client's)
  const accounts = new WeakMap<Request, string>();
  const yoga = createYoga<PlanContext & { request: Request }>({
    schema: executableSchema(),
    graphqlEndpoint: GRAPHQL_PATH,
    graphiql: false,
    landingPage: false,
    logging: false,
    // anything but a GraphQLError is answered "Unexpected error." without details
    maskedErrors: true,
    // the compiled execution last: it runs what the plugins before it let run
    plugins: [limitsPlugin(limits), ...(plans?.charge ? [planCostPlugin(plans.charge, PLAN_FIELDS)] : []), compiledExecutionPlugin()],
    context: async ({ request }) => ({ snap: await transit.snapshot(), now: now(), request, ...(plans ? { planning: plans.planning } : {}), ...(accounts.has(request) ? { account: accounts.get(request) } : {}) }),
  });
  return async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    if (url.search.length > limits.maxBytes) return graphqlErrorResponse(413, "REQUEST_TOO_LARGE", `the query string is over ${limits.maxBytes} bytes`);
    let body: ArrayBuffer | undefined;
    if (request.method === "POST") {
      const declared = Number(request.headers.get("content-length") ?? "0");
      if (declared > limits.maxBytes) return graphqlErrorResponse(413, "REQUEST_TOO_LARGE", `the request body is over ${limits.maxBytes} bytes`);
      body = await request.arrayBuffer();
      if (body.byteLength > limits.maxBytes) return graphqlErrorResponse(413, "REQUEST_TOO_LARGE", `the request body is over ${limits.maxBytes} bytes`);
    }
    url.pathname = GRAPHQL_PATH;
    const forwarded = new Request(url.href, { method: request.method, headers: request.headers, body });
    const account = plans?.accountOf?.(request);
    if (account !== undefined) accounts.set(forwarded, account);
    const res = await yoga.fetch(forwarded);
    // yoga answers some refusals with no body (415 for a POST that is not JSON, 405): a GraphQL error
    // body instead, as every other refusal of this API (found by test/fuzz)
    if (res.status >= 400 && !(res.headers.get("content-type") ?? "").includes("json")) {
      const message = res.status === 415 ? "send the request as JSON: content-type application/json (or application/graphql-response+json)" : res.status === 405 ? "use GET or POST" : "the request was refused";
      return graphqlErrorResponse(res.status, res.status === 415 ? "UNSUPPORTED_MEDIA_TYPE" : res.status === 405 ? "METHOD_NOT_ALLOWED" : "BAD_REQUEST", message, res.status === 405 ? { allow: "GET, POST" } : {});
    }
    return res;
  };
}

export async function createGraphqlFeature(ctx: FeatureContext, transit: TransitData, plans?: GraphqlPlanning): Promise<Feature> {
  const handle = graphqlHandler(transit, DEFAULT_LIMITS, ctx.now, plans);
  const graphiql = graphiqlPages();
  // a browser's GET for HTML is answered GraphiQL (graphiql.ts); JSON clients get the API
  const get = ({ request }: { request: Request }) => (wantsGraphiql(request) ? graphiql.page() : handle(request));
  const hidden = { detail: { hide: true } };
  const routes = new Elysia()
    .get(GRAPHQL_PATH, get)
    .post(GRAPHQL_PATH, ({ request }) => handle(request), { parse: "none" })
    .get(LEGACY_GRAPHQL_PATH, get)
    .post(LEGACY_GRAPHQL_PATH, ({ request }) => handle(request), { parse: "none" })
    .get(`${GRAPHIQL_ASSETS_PATH}:file`, ({ params }) => graphiql.asset(params.file), hidden);
  return {
    name: "graphql",
    routes,
    errors: { prefix: "/otp/", render: renderGraphqlError },
    // GraphiQL's page and files need no key (its queries do)
    publicPaths: [GRAPHIQL_ASSETS_PATH],
    publicRequest: (request, path) => (path === GRAPHQL_PATH || path === LEGACY_GRAPHQL_PATH) && wantsGraphiql(request),
  };
}
