/**
 * Validation before forwarding: runs the action's zod schema and turns the first problem into an
 * AppError carrying Valhalla's error code (rendered as a street-family 400 by server/errors.ts).
 * Which code a problem gets depends on where it sits (locations → 110/120/150/130, contours →
 * 113/151/152/166, sources/targets → 112/121/122/131/132, ...); custom rules put their code on the
 * issue (params.engineCode).
 */
import polyline from "@mapbox/polyline";
import type { z } from "zod";
import { AppError } from "../errors.ts";
import { ENGINE_TEXT } from "./codes.ts";
import { REQUEST_SCHEMAS, type StreetAction } from "./schemas/index.ts";

type Issue = z.core.$ZodIssue;

const isMissing = (i: Issue) => (i.code === "invalid_type" || i.code === "invalid_value") && i.input === undefined;

/**
 * Engine texts of the codes the newer actions use, for as long as codes.ts ENGINE_TEXT lacks them
 * (Valhalla src/exceptions.cc). ENGINE_TEXT wins when it has the code.
 */
const MORE_ENGINE_TEXT: Record<number, string> = {
  112: "Insufficiently specified required parameter 'locations' or 'sources & targets'",
  121: "Insufficient number of sources provided",
  122: "Insufficient number of targets provided",
  131: "Failed to parse source",
  132: "Failed to parse target",
  136: "durations size not compatible with trace size",
  158: "Input trace option is out of bounds",
  159: "use_timestamps set with no timestamps present",
  445: "Shape match algorithm specification in api request is incorrect. Please see documentation for valid shape_match input.",
};

const engineText = (code: number): string => ENGINE_TEXT[code] ?? MORE_ENGINE_TEXT[code] ?? ENGINE_TEXT[199]!;

/**
 * Valhalla code for one zod issue. `action` matters only where the engine words the same problem
 * differently per action: a missing `locations` is 112 for optimized_route (it runs a matrix).
 */
export function engineCodeOf(i: Issue, action?: StreetAction): number {
  const custom = (i as { params?: { engineCode?: number } }).params?.engineCode;
  if (custom) return custom;
  const [head, ...rest] = i.path;
  const top = rest.length === 0;
  switch (head) {
    case "locations":
      if (!top) return 130;
      return i.code === "too_small" ? 120 : i.code === "too_big" ? 150 : action === "optimized_route" ? 112 : 110;
    case "sources":
      if (!top) return 131;
      return i.code === "too_small" ? 121 : i.code === "too_big" ? 150 : 112;
    case "targets":
      if (!top) return 132;
      return i.code === "too_small" ? 122 : i.code === "too_big" ? 150 : 112;
    case "contours":
      if (top) return i.code === "too_big" ? 152 : 113;
      if (i.code === "too_big" && rest[1] === "time") return 151;
      if (i.code === "too_big" && rest[1] === "distance") return 166;
      return 113;
    case "costing":
      return isMissing(i) ? 124 : 125;
    case "date_time":
      return rest[0] === "value" ? 162 : 163;
    case "exclude_locations":
      return 133;
    case "exclude_polygons":
      return 137;
    case "linear_cost_factors":
      return 173;
    case "shape":
      if (!top) return 134;
      return i.code === "too_small" ? 123 : i.code === "too_big" ? 153 : 114;
    case "encoded_polyline":
      return 114;
    case "shape_format":
      return 164;
    case "resample_distance":
      return 313;
    case "action":
      return isMissing(i) ? 115 : 144;
    case "expansion_properties":
      return 168;
    case "shape_match":
      return 445;
    case "trace_options":
      return 158;
    case "durations":
      return 136;
    default:
      return 199;
  }
}

/** "costing_options.auto.top_speed", "locations[2].lat" */
export function fieldName(path: readonly PropertyKey[]): string {
  let s = "";
  for (const p of path) s += typeof p === "number" ? `[${p}]` : s ? `.${String(p)}` : String(p);
  return s || "request";
}

function shown(input: unknown): string | null {
  if (input === undefined) return null;
  if (Array.isArray(input)) return `${input.length} item${input.length === 1 ? "" : "s"}`;
  if (input !== null && typeof input === "object") return null;
  const s = JSON.stringify(input);
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

export function messageOf(i: Issue, code: number): string {
  const field = fieldName(i.path);
  let what = i.message;
  if (isMissing(i)) what = `is required; it ${what}`;
  const got = isMissing(i) || what.includes(", got ") ? null : shown(i.input);
  return `${engineText(code)}: ${field} ${what}${got ? `, got ${got}` : ""}`;
}

/** Messages for issues whose schema gave none (nested objects, literals). */
const fallbackMessages = (i: z.core.$ZodRawIssue): string | undefined => {
  switch (i.code) {
    case "invalid_type":
      return `must be ${i.expected === "object" ? "an object" : i.expected === "array" ? "an array" : `a ${i.expected}`}`;
    case "invalid_value":
      return `must be ${i.values.map((v) => JSON.stringify(v)).join(" or ")}`;
    case "invalid_union":
      return "does not match any allowed form";
    default:
      return undefined;
  }
};

export function issueToError(issues: readonly Issue[], action?: StreetAction): AppError {
  // Report the most basic problem first: missing parameters (11x) before limits (15x) before values.
  const ranked = issues.map((i) => ({ i, code: engineCodeOf(i, action) })).sort((a, b) => a.code - b.code);
  const { i, code } = ranked[0]!;
  return new AppError("INVALID_PARAMETER", messageOf(i, code), { engineCode: code, parameter: fieldName(i.path) });
}

const TRACE_ACTIONS: readonly StreetAction[] = ["trace_route", "trace_attributes"];

/** The number of points of a height request's shape, or null when it cannot be read (the schema refuses it). */
function heightPoints(body: Record<string, unknown>): number | null {
  if (Array.isArray(body.shape)) return body.shape.length;
  if (typeof body.encoded_polyline !== "string") return null;
  try {
    return polyline.decode(body.encoded_polyline, body.shape_format === "polyline5" ? 5 : 6).length;
  } catch {
    return null;
  }
}

/**
 * `durations`, for every action: the engine reads it from any request (src/worker.cc from_json)
 * and sets the shape points' times from it, one duration per pair of shape points. Without a
 * shape (status, route, locate, isochrone, ... : any `durations`, even []) it wrote through a null
 * point and took its process down (SIGSEGV); with one of the wrong length it refuses with 136.
 * So: an array of non-negative numbers (finite: JSON 1e999 reads as Infinity), one per pair of
 * shape points, on the actions with a shape (trace_route, trace_attributes: their schema checks
 * the length; height: here), refused with 136 everywhere else.
 */
export function checkDurations(action: StreetAction, body: Record<string, unknown>): void {
  if (!Object.hasOwn(body, "durations")) return;
  const d = body.durations;
  const refuse = (what: string) => {
    throw new AppError("INVALID_PARAMETER", `${engineText(136)}: durations ${what}`, { engineCode: 136, parameter: "durations" });
  };
  if (!Array.isArray(d) || !d.every((x) => typeof x === "number" && Number.isFinite(x) && x >= 0)) refuse("must be an array of non-negative numbers of seconds, one per pair of shape points");
  if (TRACE_ACTIONS.includes(action)) return;
  if (action !== "height") refuse(`is read only with a shape (trace_route, trace_attributes, height); ${action} has none: leave it out`);
  const n = heightPoints(body);
  if (n !== null && (d as number[]).length !== n - 1) refuse(`must hold one duration per pair of shape points (${Math.max(0, n - 1)} for ${n} points), got ${(d as number[]).length}`);
}

/** Throws the AppError of the first problem; returns nothing when the request is valid. */
export function validateStreetRequest(action: StreetAction, body: Record<string, unknown>): void {
  checkDurations(action, body);
  const r = REQUEST_SCHEMAS[action].safeParse(body, { reportInput: true, error: fallbackMessages });
  if (!r.success) throw issueToError(r.error.issues, action);
}
