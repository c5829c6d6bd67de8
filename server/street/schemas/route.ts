/** Route request: BaseRequest plus at least 2 locations (the engine's own limits apply beyond). */
import { z } from "zod";
import { baseFields, requestRules } from "./base.ts";
import { locations } from "./location.ts";

export const RouteRequest = z
  .looseObject({
    ...baseFields({ costingRequired: true }),
    locations: locations(2),
  })
  .superRefine(requestRules);
