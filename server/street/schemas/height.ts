/**
 * Height request (spec "Height"): 1 to 50 `shape` points or an `encoded_polyline`, never both.
 * Not a BaseRequest: it has no costing.
 */
import polyline from "@mapbox/polyline";
import { z } from "zod";
import { haversineM } from "../../../shared/geo.ts";
import { bool, num, oneOf, oneShapeOrPolyline, str } from "./common.ts";
import { Location } from "./location.ts";
import { MAX_HEIGHT_POINTS } from "../limits.ts";

/**
 * The heights one request may ask for are bounded (limits.ts MAX_HEIGHT_POINTS), counted before the
 * engine resamples: it resamples before it checks its own limit, so a tiny resample_distance over a
 * long shape would make it allocate without bound, and an encoded_polyline may hold any number of
 * points.
 */
export { MAX_HEIGHT_POINTS };

/** The shape's points as [lat, lon], from `shape` or the polyline; null when it cannot be read. */
function points(req: { shape?: { lat: number; lon: number }[]; encoded_polyline?: string; shape_format?: string }): [number, number][] | null {
  if (req.shape) return req.shape.map((p) => [p.lat, p.lon]);
  try {
    return req.encoded_polyline ? polyline.decode(req.encoded_polyline, req.shape_format === "polyline5" ? 5 : 6) : null;
  } catch {
    return null;
  }
}
export const HeightRequest = z
  .looseObject({
    shape: z.array(Location, { error: "must be an array of 1 to 50 locations" }).min(1, { error: "must hold 1 to 50 points" }).max(50, { error: "must hold 1 to 50 points" }).optional(),
    encoded_polyline: str().min(1, { error: "must not be empty" }).optional(),
    shape_format: oneOf(["polyline6", "polyline5"]).default("polyline6"),
    height_precision: z.union([z.literal(0), z.literal(1), z.literal(2)], { error: "must be 0, 1 or 2" }).default(0),
    range: bool().default(false),
    resample_distance: num(0, 100, "m").optional(),
    id: str().optional(),
  })
  .superRefine((req, ctx) => {
    if (!oneShapeOrPolyline(req, ctx, "1 to 50 points")) return;
    const d = req.resample_distance;
    const pts = points(req);
    if (!pts) return;
    if (!d) {
      if (pts.length > MAX_HEIGHT_POINTS) {
        ctx.addIssue({ code: "custom", path: ["encoded_polyline"], message: `holds ${pts.length} points; at most ${MAX_HEIGHT_POINTS} heights per request`, params: { engineCode: 314 } });
      }
      return;
    }
    let length = 0;
    for (let i = 1; i < pts.length; i++) length += haversineM(pts[i - 1]![0], pts[i - 1]![1], pts[i]![0], pts[i]![1]);
    const n = Math.ceil(length / d) + pts.length;
    if (n > MAX_HEIGHT_POINTS) {
      ctx.addIssue({
        code: "custom",
        path: ["resample_distance"],
        message: `would give ${n} points over the shape's ${Math.round(length)} m; at most ${MAX_HEIGHT_POINTS} heights per request: use a larger resample_distance or a shorter shape`,
        params: { engineCode: 314 },
      });
    }
  });
