/**
 * Expansion request (spec "Expansion"): BaseRequest plus locations, action and output options.
 * `contours` are the isochrone's (1 to 5, each 1 to 100 minutes or km, one metric; isochrone.ts
 * Contour), required when the action is isochrone (113, as the engine): the engine divides by a
 * contour's value, and a negative one (time -1000, distance -1e308) took its process down (SIGFPE).
 */
import { z } from "zod";
import { bool, oneOf } from "./common.ts";
import { baseFields, requestRules } from "./base.ts";
import { Contour } from "./isochrone.ts";
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
    contours: z.array(Contour, { error: "must be an array of 1 to 5 contours" }).min(1, { error: "must hold 1 to 5 contours" }).max(5, { error: "must hold 1 to 5 contours" }).optional(),
  })
  .superRefine((req, ctx) => {
    requestRules(req, ctx);
    if (req.action === "isochrone" && req.contours === undefined) {
      ctx.addIssue({ code: "custom", path: ["contours"], message: "is required for action isochrone: 1 to 5 contours of time (minutes) or distance (km)", params: { engineCode: 113 } });
    }
  });
