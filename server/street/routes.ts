/**
 * HTTP routes of the street-routing gateway (Valhalla paths under /api/v2/routing/valhalla): the one
 * place the feature touches HTTP objects. Each Request becomes the gateway's StreetQuery and its
 * StreetAnswer a Response; thrown errors get the feature's Valhalla bodies (streetErrors). The
 * OpenAPI details come from the request schemas (openapi.ts).
 */
import { Elysia } from "elysia";
import { CORS_ALLOW_ORIGIN } from "../cors.ts";
import { AppError, HTTP_STATUS, jsonError, renderError, statusText } from "../errors.ts";
import type { FeatureErrors } from "../feature.ts";
import { STREET_PREFIX, type StreetAnswer, type StreetGateway, type StreetQuery } from "./gateway.ts";
import { streetDocs } from "./openapi.ts";
import { ACTIONS } from "./schemas/index.ts";

/** Valhalla answers every request with this header; the gateway does the same, errors included. */
const CORS = CORS_ALLOW_ORIGIN;

/**
 * The street feature's errors: a refusal (400) is Valhalla's body `{error, error_code, status,
 * status_code}` (code 199 when the problem has none of its own); 401/404 `{error}`, 429/503 plain
 * text as everywhere; all with Valhalla's CORS header (a non-AppError is the bare 500).
 */
export const streetErrors: FeatureErrors = {
  prefix: `${STREET_PREFIX}/`,
  render(err) {
    if (!(err instanceof AppError)) return renderError(err);
    const status = HTTP_STATUS[err.code];
    if (status !== 400) return renderError(err, CORS);
    return jsonError(status, { error: err.message, error_code: err.details.engineCode ?? 199, status: statusText(status), status_code: status }, CORS);
  },
};

/** The gateway's query from a request: the action is the path after the prefix; only a POST's body is read. */
export async function streetQuery(request: Request, accountOf?: (request: Request) => string | undefined): Promise<StreetQuery> {
  const url = new URL(request.url);
  const action = url.pathname.slice(STREET_PREFIX.length).replace(/^\/+/, "").replace(/\/+$/, "");
  let body = "";
  if (request.method === "POST") {
    try {
      body = await request.text();
    } catch (e) {
      throw new AppError("INVALID_PARAMETER", "Failed to parse json request: the body could not be read", { engineCode: 100, parameter: "body" }, { cause: e });
    }
  }
  const account = accountOf?.(request);
  return { method: request.method, action, params: url.searchParams, body, signal: request.signal, ...(account !== undefined ? { account } : {}) };
}

/** The gateway's answer as a Response (a streamed body stays a stream). */
export const streetResponse = (answer: StreetAnswer): Response => new Response(answer.body, { status: answer.status, headers: answer.headers });

export function streetRoutes(gateway: StreetGateway, accountOf?: (request: Request) => string | undefined) {
  const handle = async ({ request }: { request: Request }) => streetResponse(await gateway.handle(await streetQuery(request, accountOf)));
  let app = new Elysia({ name: "street" });
  for (const action of ACTIONS) {
    const docs = streetDocs(action);
    app = app
      .get(`${STREET_PREFIX}/${action}`, handle, { parse: "none", detail: docs.get })
      .post(`${STREET_PREFIX}/${action}`, handle, { parse: "none", detail: docs.post }) as unknown as typeof app;
  }
  // Everything else under the prefix: CORS preflight, unknown actions (106), other methods (101).
  return app
    .all(STREET_PREFIX, handle, { parse: "none", detail: { hide: true } })
    .all(`${STREET_PREFIX}/*`, handle, { parse: "none", detail: { hide: true } });
}
