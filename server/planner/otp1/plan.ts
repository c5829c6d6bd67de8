/**
 * OTP1's plan answer: a PlanResult (model.ts) rendered as the body of OTP1's Response
 * (api/resource/Response.java): `requestParameters`, then `plan` (date, from, to, itineraries;
 * Interchange's `streetNetwork`) or `error`, Transitland's `earliestArrivals` after the plan, then
 * `elevationMetadata`; and the `x-interchange-warning` header of the values clamped and the notes.
 */
import type { PlanResult } from "../model.ts";
import type { Place, PlanParams } from "../plan-params.ts";
import { otpError, type OtpError } from "./errors.ts";
import { renderItinerary, type Otp1Itinerary } from "./itinerary.ts";

/** OTP's answer: the plan, or (no plan) the error saying why nothing was found. */
export interface PlanResponse {
  plan?: { date: number; from: Place; to: Place; itineraries: Otp1Itinerary[]; streetNetwork?: boolean };
  earliestArrivals?: Record<string, unknown>[];
  error?: OtpError;
}

/** The OTP1 plan (and error) of a result, without the request's echo. */
export function planResponse(r: PlanResult): PlanResponse {
  const body: PlanResponse = {};
  // OTP1 sends no plan beside an error
  if (r.itineraries.length) {
    const network = r.streetNetwork === true;
    body.plan = {
      date: r.timeSec * 1000,
      from: { name: r.from.name, lat: r.from.lat, lon: r.from.lon },
      to: { name: r.to.name, lat: r.to.lat, lon: r.to.lon },
      itineraries: r.itineraries.map((it) => renderItinerary(r.timetable, it, r.query, network)),
    };
    if (r.streetNetwork !== undefined) body.plan.streetNetwork = r.streetNetwork;
  }
  if (r.earliestArrivals) {
    const m = r.timetable.meta;
    body.earliestArrivals = r.earliestArrivals.map(({ stop: s, arrivalSec }) => {
      const e: Record<string, unknown> = { earliestArrival: arrivalSec, lat: m.stopLat[s], lon: m.stopLon[s], stopId: m.stopId[s], stopName: m.stopName[s] };
      if (m.stopCode[s]) e.stop_code = m.stopCode[s];
      return e;
    });
  }
  if (r.error) body.error = otpError(r.error);
  return body;
}

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

/** The HTTP answer of a plan: OTP1's body (`echo`: the request's parameters) and headers. */
export function planHttpResponse(r: PlanResult, echo: Record<string, string>): Response {
  const body = planResponse(r);
  // OTP1's key order: requestParameters, plan, error (then elevationMetadata); earliestArrivals
  // (Transitland's) after the plan
  const out: Record<string, unknown> = { requestParameters: echo };
  if (body.plan) out.plan = body.plan;
  if (body.earliestArrivals) out.earliestArrivals = body.earliestArrivals;
  if (body.error) out.error = body.error;
  out.elevationMetadata = elevationMetadata(echo);
  const headers: Record<string, string> = { "content-type": "application/json" };
  const warnings = planWarnings(r.query);
  if (warnings.length) {
    // a header is Latin-1 text: anything else (ids with other characters) as \uXXXX
    headers["x-interchange-warning"] = warnings.join("; ").replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
    headers["access-control-expose-headers"] = "x-interchange-warning";
  }
  return new Response(JSON.stringify(out), { status: 200, headers });
}
