/** Centroid request: BaseRequest plus at least 2 locations that converge on one point. */
import { z } from "zod";
import { baseFields, requestRules } from "./base.ts";
import { locations } from "./location.ts";

export const CentroidRequest = z
  .looseObject({
    ...baseFields({ costingRequired: true }),
    locations: locations(2),
  })
  .superRefine(requestRules);
