/**
 * Trace attributes request (Valhalla /trace_attributes): the trace of ./trace.ts plus `filters`,
 * the attribute keys to include or exclude. The keys are not checked against a list (the engine
 * grows it and ignores names it does not know); a bad `filters.action` the engine would ignore is
 * refused (199).
 */
import { z } from "zod";
import { oneOf, str } from "./common.ts";
import { traceFields, traceRules } from "./trace.ts";

export const TraceFilters = z.looseObject(
  {
    attributes: z.array(str(), { error: "must be an array of attribute keys such as edge.names" }).optional(),
    action: oneOf(["include", "exclude"]).optional(),
  },
  { error: "must be an object with attributes and action" },
);

export const TraceAttributesRequest = z
  .looseObject({
    ...traceFields(),
    filters: TraceFilters.optional(),
  })
  .superRefine(traceRules);
