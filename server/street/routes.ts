/** HTTP routes of the street-routing gateway (Valhalla paths under /api/v2/routing/valhalla) and its error bodies. */
import { Elysia } from "elysia";
import { CORS_ALLOW_ORIGIN } from "../cors.ts";
import { AppError, HTTP_STATUS, jsonError, renderError, statusText } from "../errors.ts";
import type { FeatureErrors } from "../feature.ts";
import { STREET_PREFIX, type createGateway } from "./gateway.ts";
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

const SUMMARY: Record<(typeof ACTIONS)[number], string> = {
  route: "Route between locations (Valhalla /route)",
  isochrone: "Reachable areas (Valhalla /isochrone)",
  expansion: "Explored graph edges (Valhalla /expansion); answers can be very large",
  height: "Elevation along a shape (Valhalla /height)",
  locate: "Edges and nodes near locations (Valhalla /locate)",
  centroid: "Routes converging on one point (Valhalla /centroid)",
  sources_to_targets: "Time-distance matrix between sources and targets (Valhalla /sources_to_targets)",
  optimized_route: "Route visiting the locations in the best order (Valhalla /optimized_route)",
  trace_route: "Map-match a trace into a route (Valhalla /trace_route)",
  trace_attributes: "Edge attributes along a map-matched trace (Valhalla /trace_attributes)",
  status: "Routing engine status (Valhalla /status)",
};

export function streetRoutes(gateway: ReturnType<typeof createGateway>) {
  const handle = ({ request }: { request: Request }) => gateway.handle(request);
  let app = new Elysia({ name: "street" });
  for (const action of ACTIONS) {
    const detail = {
      tags: ["street routing"],
      summary: SUMMARY[action],
      description: "Request JSON in the `json` query parameter (GET) or as the body (POST), as Valhalla accepts it.",
    };
    app = app
      .get(`${STREET_PREFIX}/${action}`, handle, { parse: "none", detail })
      .post(`${STREET_PREFIX}/${action}`, handle, { parse: "none", detail }) as unknown as typeof app;
  }
  // Everything else under the prefix: CORS preflight, unknown actions (106), other methods (101).
  return app
    .all(STREET_PREFIX, handle, { parse: "none", detail: { hide: true } })
    .all(`${STREET_PREFIX}/*`, handle, { parse: "none", detail: { hide: true } });
}
