/**
 * Height request (spec "Height"): 1 to 50 `shape` points or an `encoded_polyline`, never both.
 * Not a BaseRequest: it has no costing.
 */
import { z } from "zod";
import { bool, num, oneOf, str } from "./common.ts";
import { Location } from "./location.ts";

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
    const hasShape = req.shape !== undefined;
    const hasPolyline = req.encoded_polyline !== undefined;
    if (hasShape === hasPolyline) {
      ctx.addIssue({
        code: "custom",
        path: hasShape ? ["encoded_polyline"] : ["shape"],
        message: hasShape ? "cannot be given together with shape: send one of them" : "is required: send shape (1 to 50 points) or encoded_polyline",
        params: { engineCode: 114 },
      });
    }
  });
