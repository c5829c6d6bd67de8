/** Expansion request (spec "Expansion"): BaseRequest plus locations, action and output options. */
import { z } from "zod";
import { bool, oneOf } from "./common.ts";
import { baseFields, requestRules } from "./base.ts";
import { locations } from "./location.ts";

export const EXPANSION_ACTIONS = ["route", "isochrone", "sources_to_targets"] as const;
export const EXPANSION_PROPERTIES = [
  "duration",
  "cost",
  "distance",
  "edge_status",
  "edge_id",
  "pred_edge_id",
  "expansion_type",
  "flow_sources",
  "travel_mode",
  "expansion_index",
] as const;

export const ExpansionRequest = z
  .looseObject({
    ...baseFields({ costingRequired: true }),
    locations: locations(1, 3),
    action: oneOf(EXPANSION_ACTIONS),
    dedupe: bool().default(false),
    expansion_properties: z.array(oneOf(EXPANSION_PROPERTIES), { error: `must be an array of ${EXPANSION_PROPERTIES.join(", ")}` }).optional(),
    skip_opposites: bool().default(false),
  })
  .superRefine(requestRules);
