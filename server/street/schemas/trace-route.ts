/** Trace route request (Valhalla /trace_route, map matching into a route): see ./trace.ts. */
import { z } from "zod";
import { traceFields, traceRules } from "./trace.ts";

export const TraceRouteRequest = z.looseObject(traceFields()).superRefine(traceRules);
