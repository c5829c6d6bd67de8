/** Locate request: BaseRequest (costing optional) plus 1 to MAX_LOCATE_LOCATIONS locations (limits.ts) and `verbose`. */
import { z } from "zod";
import { bool } from "./common.ts";
import { baseFields, requestRules } from "./base.ts";
import { locations } from "./location.ts";
import { MAX_LOCATE_LOCATIONS } from "../limits.ts";

export const LocateRequest = z
  .looseObject({
    ...baseFields({ costingRequired: false }),
    locations: locations(1, MAX_LOCATE_LOCATIONS),
    verbose: bool().default(false),
  })
  .superRefine(requestRules);
