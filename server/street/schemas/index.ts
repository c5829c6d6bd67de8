/** The request schema of each street-routing action. */
import type { z } from "zod";
import { CentroidRequest } from "./centroid.ts";
import { ExpansionRequest } from "./expansion.ts";
import { HeightRequest } from "./height.ts";
import { IsochroneRequest } from "./isochrone.ts";
import { LocateRequest } from "./locate.ts";
import { OptimizedRouteRequest } from "./optimized-route.ts";
import { RouteRequest } from "./route.ts";
import { SourcesToTargetsRequest } from "./sources-to-targets.ts";
import { StatusRequest } from "./status.ts";
import { TraceAttributesRequest } from "./trace-attributes.ts";
import { TraceRouteRequest } from "./trace-route.ts";

export const ACTIONS = [
  "route",
  "isochrone",
  "expansion",
  "height",
  "locate",
  "centroid",
  "sources_to_targets",
  "optimized_route",
  "trace_route",
  "trace_attributes",
  "status",
] as const;
export type StreetAction = (typeof ACTIONS)[number];

export const REQUEST_SCHEMAS: Record<StreetAction, z.ZodType> = {
  route: RouteRequest,
  isochrone: IsochroneRequest,
  expansion: ExpansionRequest,
  height: HeightRequest,
  locate: LocateRequest,
  centroid: CentroidRequest,
  sources_to_targets: SourcesToTargetsRequest,
  optimized_route: OptimizedRouteRequest,
  trace_route: TraceRouteRequest,
  trace_attributes: TraceAttributesRequest,
  status: StatusRequest,
};

export const isAction = (s: string): s is StreetAction => (ACTIONS as readonly string[]).includes(s);
