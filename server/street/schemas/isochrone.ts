/** Isochrone request (spec "Isochrone"): BaseRequest plus locations, contours and shaping options. */
import { z } from "zod";
import { bool, num, str } from "./common.ts";
import { baseFields, requestRules } from "./base.ts";
import { locations } from "./location.ts";

/** Contour: exactly one metric; time in minutes 1 to 100, distance in km 1 to 100; color hex without '#'. */
export const Contour = z
  .looseObject(
    {
      time: num(1, 100, "minutes").optional(),
      distance: num(1, 100, "km").optional(),
      color: str().regex(/^[0-9a-fA-F]{6}$/, { error: 'must be a hex color rrggbb without a leading "#"' }).optional(),
    },
    { error: "must be a contour object with time or distance" },
  )
  .refine((c) => (c.time === undefined) !== (c.distance === undefined), {
    error: "must have exactly one metric: time or distance",
  });

export const IsochroneRequest = z
  .looseObject({
    ...baseFields({ costingRequired: true }),
    locations: locations(1, 3),
    contours: z.array(Contour, { error: "must be an array of 1 to 5 contours" }).min(1, { error: "must hold 1 to 5 contours" }).max(5, { error: "must hold 1 to 5 contours" }),
    denoise: num(0, 1).default(1),
    generalize: num(0, 200, "m").optional(),
    polygons: bool().default(false),
    reverse: bool().default(false),
    show_locations: bool().default(false),
  })
  .superRefine(requestRules);
