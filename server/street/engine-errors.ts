/**
 * Valhalla's error codes, and turning a refusal of the embedded engine (`@valhallajs/valhallajs`
 * 3.6.1) back into the error body a Valhalla HTTP server sends.
 *
 * The Node binding loses the code: a failed call rejects with a plain `Error` whose message is
 * `"<Method> error: <what()>"`, where `what()` of a Valhalla exception is its table text, followed
 * by `": " + extra` when the thrower added detail (e.g. `Route error: Exceeded max locations: 20`).
 * The HTTP server puts exactly that `what()` into `error`, so the body is rebuilt by finding the
 * table text the message starts with and keeping the rest verbatim.
 *
 * The table is the one compiled into the engine we ship (Valhalla 3.6.1, src/exceptions.cc; every
 * text below also occurs in the native module). It differs from upstream master: codes 166, 173,
 * 174, 175, 233 and 234 are not in 3.6.1's table. 3.6.1 still throws 166 (an isochrone distance
 * contour over the limit); a code missing from the table has an empty text, so the engine's
 * message for it is just `": <detail>"`, kept here as 166 with an empty text.
 */

/** 166's text in Valhalla releases after 3.6.1 (3.6.1 has none). */
const MAX_DISTANCE_TEXT = "Exceeded max distance";

export interface EngineErrorBody {
  error_code: number;
  error: string;
  status_code: number;
  status: string;
}

/** code → the engine's text and the HTTP status a Valhalla server answers it with. */
export const ENGINE_ERRORS: ReadonlyMap<number, { text: string; http: number }> = new Map(
  (
    [
      // request plumbing (loki)
      [100, "Failed to parse json request", 400],
      [101, "Try a POST or GET request instead", 405],
      [102, "The service is shutting down", 503],
      [103, "Failed to parse pbf request", 400],
      [106, "Try any of", 404],
      [107, "Not Implemented", 501],
      // missing inputs
      [110, "Insufficiently specified required parameter 'locations'", 400],
      [111, "Insufficiently specified required parameter 'time'", 400],
      [112, "Insufficiently specified required parameter 'locations' or 'sources & targets'", 400],
      [113, "Insufficiently specified required parameter 'contours'", 400],
      [114, "Insufficiently specified required parameter 'shape' or 'encoded_polyline'", 400],
      [115, "Insufficiently specified required parameter 'action'", 400],
      [120, "Insufficient number of locations provided", 400],
      [121, "Insufficient number of sources provided", 400],
      [122, "Insufficient number of targets provided", 400],
      [123, "Insufficient shape provided", 400],
      [124, "No edge/node costing provided", 400],
      [125, "No costing method found", 400],
      [126, "No shape provided", 400],
      [127, "Recostings require a valid costing parameter", 400],
      [128, "Recostings require a unique 'name' field for each recosting", 400],
      // malformed inputs
      [130, "Failed to parse location", 400],
      [131, "Failed to parse source", 400],
      [132, "Failed to parse target", 400],
      [133, "Failed to parse avoid", 400],
      [134, "Failed to parse shape", 400],
      [135, "Failed to parse trace", 400],
      [136, "durations size not compatible with trace size", 400],
      [137, "Failed to parse polygon", 400],
      // unsupported combinations
      [140, "Action does not support multimodal costing", 400],
      [141, "Arrive by for multimodal not implemented yet", 501],
      [142, "Arrive by not implemented for isochrones", 501],
      [143, "ignore_closures in costing and exclude_closures in search_filter cannot both be specified", 400],
      [144, "Action does not support expansion", 400],
      // service limits and option values
      [150, "Exceeded max locations", 400],
      [151, "Exceeded max time", 400],
      [152, "Exceeded max contours", 400],
      [153, "Too many shape points", 400],
      [154, "Path distance exceeds the max distance limit", 400],
      [155, "Outside the valid walking distance at the beginning or end of a multimodal route", 400],
      [156, "Outside the valid walking distance between stops of a multimodal route", 400],
      [157, "Exceeded max avoid locations", 400],
      [158, "Input trace option is out of bounds", 400],
      [159, "use_timestamps set with no timestamps present", 400],
      [160, "Date and time required for origin for date_type of depart at", 400],
      [161, "Date and time required for destination for date_type of arrive by", 400],
      [162, "Date and time is invalid.  Format is YYYY-MM-DDTHH:MM", 400],
      [163, "Invalid date_type", 400],
      [164, "Invalid shape format", 400],
      [165, "Date and time required for destination for date_type of invariant", 400],
      // not in 3.6.1's table but thrown by it (isochrone distance contour over the limit): empty text
      [166, "", 400],
      [167, "Exceeded maximum circumference for exclude_polygons", 400],
      [168, "Invalid expansion property type", 400],
      // correlation
      [170, "Locations are in unconnected regions. Go check/edit the map at osm.org", 400],
      [171, "No suitable edges near location", 400],
      [172, "Exceeded breakage distance for all pairs", 400],
      [199, "Unknown", 500],
      // directions (odin)
      [200, "Failed to parse intermediate request format", 500],
      [201, "Failed to parse TripLeg", 500],
      [202, "Could not build directions for TripLeg", 500],
      [203, "The service is shutting down", 503],
      [210, "Trip path does not have any nodes", 400],
      [211, "Trip path has only one node", 400],
      [212, "Trip must have at least 2 locations", 400],
      [213, "Error - No shape or invalid node count", 400],
      [220, "Turn degree out of range for cardinal direction", 400],
      [230, "Invalid DirectionsLeg_Maneuver_Type in method FormTurnInstruction", 400],
      [231, "Invalid DirectionsLeg_Maneuver_Type in method FormRelativeTwoDirection", 400],
      [232, "Invalid DirectionsLeg_Maneuver_Type in method FormRelativeThreeDirection", 400],
      [299, "Unknown", 500],
      // elevation (skadi, answered for the height action)
      [312, "Insufficiently specified required parameter 'shape' or 'encoded_polyline'", 400],
      [313, "'resample_distance' must be >= ", 400],
      [314, "Too many shape points", 400],
      // path finding (thor, meili)
      [400, "Unknown action", 400],
      [401, "Failed to parse intermediate request format", 500],
      [402, "The service is shutting down", 503],
      [420, "Failed to parse correlated location", 400],
      [421, "Failed to parse location", 400],
      [422, "Failed to parse source", 400],
      [423, "Failed to parse target", 400],
      [424, "Failed to parse shape", 400],
      [430, "Exceeded max iterations in CostMatrix::SourceToTarget", 400],
      [440, "Cannot reach destination - too far from a transit stop", 400],
      [441, "Location is unreachable", 400],
      [442, "No path could be found for input", 400],
      [443, "Exact route match algorithm failed to find path", 400],
      [444, "Map Match algorithm failed to find path", 400],
      [445, "Shape match algorithm specification in api request is incorrect. Please see documentation for valid shape_match input.", 400],
      [446, "Remote tar file has changed, service is unavailable", 500],
      [499, "Unknown", 500],
      // serialization (tyr)
      [503, "Leg count mismatch", 400],
      [504, "This service does not support GeoTIFF serialization.", 400],
      [599, "Unknown serialization error", 400],
    ] as const
  ).map(([code, text, http]) => [code, { text, http }]),
);

const REASONS: Record<number, string> = {
  200: "OK",
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  408: "Request Timeout",
  413: "Payload Too Large",
  415: "Unsupported Media Type",
  429: "Too Many Requests",
  500: "Internal Server Error",
  501: "Not Implemented",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
};

/** The HTTP reason phrase Valhalla puts in `status` ("Bad Request", ...). */
export function httpReason(status: number): string {
  return REASONS[status] ?? (status >= 500 ? "Internal Server Error" : "Bad Request");
}

/** The Actor's method names, as they prefix its rejections ("Matrix" serves sources_to_targets). */
export const ACTOR_ERROR_PREFIXES = [
  "Route", "Locate", "Matrix", "OptimizedRoute", "Isochrone", "TraceRoute", "TraceAttributes",
  "Height", "TransitAvailable", "Expansion", "Centroid", "Status",
] as const;

const PREFIX = new RegExp(`^(?:${ACTOR_ERROR_PREFIXES.join("|")}) error: `);

/**
 * Texts to codes, longest first. The generic "Unknown" (199/299/499: the HTTP workers' wrapper for
 * a foreign exception, never thrown by the engine itself) and 166's empty text are left out.
 */
const BY_TEXT: readonly [string, number[]][] = (() => {
  const m = new Map<string, number[]>();
  for (const [code, { text }] of ENGINE_ERRORS) {
    if (text === "" || text === "Unknown") continue;
    m.set(text, [...(m.get(text) ?? []), code]);
  }
  return [...m].sort((a, b) => b[0].length - a[0].length);
})();

/**
 * Which of the codes sharing a text the engine throws for `action`, grounded in 3.6.1's sources:
 * - 114/312, 153/314: the height action's own checks (loki/height_action.cc) are 312/314; trace
 *   actions check shape in loki/trace_route_action.cc (114/153).
 * - 130/421, 131/422, 132/423, 134/424: request parsing (worker.cc) throws the 13x codes for every
 *   action; 3.6.1 never throws 421-423, and 424 only where meili measurements can't be built from
 *   already-parsed shape (unreachable from a request).
 * - 102/203/402: loki answers a shutting-down service first.
 * - 200/401: told apart by their detail ("... in Odin::Worker" vs "... in Thor::Worker").
 */
function pick(codes: number[], action: string, detail: string): number {
  if (codes.length === 1) return codes[0]!;
  const has = (c: number) => codes.includes(c);
  if (has(312) || has(314)) return action === "height" ? (has(312) ? 312 : 314) : has(114) ? 114 : 153;
  if (has(200) && has(401)) return detail.includes("Odin") ? 200 : 401;
  return Math.min(...codes);
}

function body(code: number, error: string, http?: number): EngineErrorBody {
  const status_code = http ?? ENGINE_ERRORS.get(code)?.http ?? 400;
  return { error_code: code, error, status_code, status: httpReason(status_code) };
}

/**
 * Map an Actor rejection back to Valhalla's error body. `action` is the HTTP action name ("route",
 * "sources_to_targets", "height", ...). `error` is the engine's message without the
 * `"<Method> error: "` prefix, i.e. the table text plus any `": <detail>"` exactly as the engine
 * wrote it. A message matching no table text (a foreign exception such as rapidjson's "IsObject()"
 * or "Bad encoded polyline") gets code 199 with status 400 and the engine's text as is: Valhalla's
 * own server would wrap it as a 500 "Unknown: ...", but it is the request that is at fault.
 */
export function engineErrorFromMessage(action: string, message: string): EngineErrorBody {
  const rest = message.replace(PREFIX, "");
  for (const [text, codes] of BY_TEXT) {
    if (rest === text || rest.startsWith(`${text}: `)) {
      const detail = rest.slice(text.length);
      return body(pick(codes, action, detail), rest);
    }
  }
  // a code absent from 3.6.1's table: its text is empty, leaving ": <detail>" (or nothing); the
  // only one it throws is 166, which gets the text later Valhalla releases give it
  if ((rest === "" || rest.startsWith(": ")) && (action === "isochrone" || action === "expansion")) {
    return body(166, `${MAX_DISTANCE_TEXT}${rest}`);
  }
  return body(199, rest, 400);
}
