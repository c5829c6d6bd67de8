/**
 * Optimized route request (Valhalla /optimized_route): like route, BaseRequest plus at least 2
 * locations (first and last stay in place, the ones between are reordered). The engine computes a
 * matrix over the locations, so the matrix limit (150) applies there. A missing `locations` is
 * 112 for this action (loki init_matrix), not 110 (see engineCodeOf).
 */
import { z } from "zod";
import { baseFields, requestRules } from "./base.ts";
import { locations } from "./location.ts";

export const OptimizedRouteRequest = z
  .looseObject({
    ...baseFields({ costingRequired: true }),
    locations: locations(2),
  })
  .superRefine(requestRules);
