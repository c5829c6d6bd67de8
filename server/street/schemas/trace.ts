/**
 * What trace_route and trace_attributes (Valhalla map matching) share: BaseRequest (costing
 * required) plus the trace, as `shape` (at least 2 points) or `encoded_polyline`, never both, and
 * the matching options. Codes follow the engine (src/worker.cc from_json, src/loki/trace_route_action.cc):
 *  - no shape and no encoded_polyline → 114 (loki init_trace; 126 "No shape provided" is never
 *    thrown by the engine), both → 114 as for height;
 *  - fewer than 2 points → 123; a bad shape point or an undecodable polyline → 134 (the engine
 *    parses `shape` with 134; 135 belongs to the legacy `trace` key); the point count is left to
 *    the engine's max_trace_shape (153);
 *  - shape_match not edge_walk / map_snap / walk_or_snap → 445;
 *  - a negative trace option → 158 (the engine refuses negative gps_accuracy, search_radius and
 *    turn_penalty_factor with 158 and applies its own upper limits; we refuse every negative one);
 *  - durations not one per pair of trace points → 136;
 *  - use_timestamps with no time on any point and no durations → 159.
 * The input polyline is always precision 6: shape_format only chooses the output encoding.
 */
import { z } from "zod";
import { bool, int, num, oneOf, oneShapeOrPolyline, str } from "./common.ts";
import { baseFields, requestRules } from "./base.ts";
import { closureConflicts } from "./closures.ts";
import { Location } from "./location.ts";
import { OUTPUT_SHAPE_FORMATS } from "./sources-to-targets.ts";

export const SHAPE_MATCHES = ["edge_walk", "map_snap", "walk_or_snap"] as const;

/** A trace point: a location with an optional time (seconds, epoch or relative). */
export const TracePoint = Location.extend({
  time: num(0, undefined, "s").optional(),
});

/**
 * Strict precision-6 polyline decoding: characters 63 to 126 only, every varint terminated, an even
 * number of values, coordinates in range. null when the text is not such a polyline.
 */
export function decodePolyline6(s: string): Array<[number, number]> | null {
  const values: number[] = [];
  let result = 0;
  let shift = 0;
  let open = false;
  for (let k = 0; k < s.length; k++) {
    const b = s.charCodeAt(k) - 63;
    if (b < 0 || b > 63) return null;
    result |= (b & 0x1f) << shift;
    shift += 5;
    open = (b & 0x20) !== 0;
    if (!open) {
      values.push(result & 1 ? ~(result >> 1) : result >> 1);
      result = 0;
      shift = 0;
    } else if (shift > 30) return null;
  }
  if (open || values.length % 2 !== 0) return null;
  const points: Array<[number, number]> = [];
  let lat = 0;
  let lon = 0;
  for (let k = 0; k < values.length; k += 2) {
    lat += values[k]!;
    lon += values[k + 1]!;
    if (Math.abs(lat) > 90e6 || Math.abs(lon) > 180e6) return null;
    points.push([lat / 1e6, lon / 1e6]);
  }
  return points;
}

const POLYLINE_MESSAGE = "must be an encoded polyline of precision 6 (shape_format only sets the output encoding)";

export const TraceEncodedPolyline = str()
  .min(1, { error: "must not be empty" })
  .superRefine((s, ctx) => {
    if (s.length === 0) return;
    const points = decodePolyline6(s);
    if (points === null) ctx.addIssue({ code: "custom", message: POLYLINE_MESSAGE, params: { engineCode: 134 } });
    else if (points.length < 2) ctx.addIssue({ code: "custom", message: `must decode to at least 2 points, got ${points.length}`, params: { engineCode: 123 } });
  });

const nonNegative = (unit = "") => num(0, undefined, unit);

export const TraceOptions = z.looseObject(
  {
    search_radius: nonNegative("m").optional(),
    gps_accuracy: nonNegative("m").optional(),
    breakage_distance: nonNegative("m").optional(),
    interpolation_distance: nonNegative("m").optional(),
    turn_penalty_factor: nonNegative().optional(),
  },
  { error: "must be an object of trace options" },
);

export function traceFields() {
  return {
    ...baseFields({ costingRequired: true }),
    shape: z.array(TracePoint, { error: "must be an array of at least 2 trace points" }).min(2, { error: "must hold at least 2 points" }).optional(),
    encoded_polyline: TraceEncodedPolyline.optional(),
    shape_format: oneOf(OUTPUT_SHAPE_FORMATS).default("polyline6"),
    shape_match: oneOf(SHAPE_MATCHES).default("walk_or_snap"),
    trace_options: TraceOptions.optional(),
    begin_time: int(0, 4294967295, "s").optional(),
    durations: z.array(nonNegative("s"), { error: "must be an array of seconds, one per pair of trace points" }).optional(),
    use_timestamps: bool().default(false),
  };
}

interface TraceInput {
  costing?: string;
  costing_options?: Record<string, unknown>;
  date_time?: { type: number; value?: string };
  locations?: Array<{ search_filter?: { exclude_closures?: boolean } }>;
  shape?: Array<{ time?: number }>;
  encoded_polyline?: string;
  durations?: number[];
  use_timestamps?: boolean;
}

/** The cross-field rules of a trace request (run once every field is valid). */
export function traceRules(req: TraceInput, ctx: z.RefinementCtx): void {
  requestRules(req, ctx);
  closureConflicts(req as TraceInput & Record<string, unknown>, ctx, ["shape"]);
  if (!oneShapeOrPolyline(req, ctx, "at least 2 points")) return;
  const points = req.shape !== undefined ? req.shape!.length : (decodePolyline6(req.encoded_polyline!)?.length ?? 0);
  if (req.durations !== undefined && req.durations.length !== points - 1) {
    ctx.addIssue({
      code: "custom",
      path: ["durations"],
      message: `must hold one duration per pair of trace points (${points - 1} for ${points} points), got ${req.durations.length}`,
      params: { engineCode: 136 },
    });
  }
  if (req.use_timestamps === true && req.durations === undefined && !req.shape?.some((p) => p.time !== undefined)) {
    ctx.addIssue({
      code: "custom",
      path: ["use_timestamps"],
      message: "needs times: set time on the shape points or send durations",
      params: { engineCode: 159 },
    });
  }
}
