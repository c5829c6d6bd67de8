/** Locate request: BaseRequest (costing optional) plus locations and `verbose`. */
import { z } from "zod";
import { bool } from "./common.ts";
import { baseFields, requestRules } from "./base.ts";
import { locations } from "./location.ts";

export const LocateRequest = z
  .looseObject({
    ...baseFields({ costingRequired: false }),
    locations: locations(1),
    verbose: bool().default(false),
  })
  .superRefine(requestRules);
