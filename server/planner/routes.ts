/** HTTP edge of the planner: GET /api/v2/routing/otp/plan (OTP1 parameters, OTP-style body). */
import { Elysia } from "elysia";
import type { PlanResult } from "./plan-service.ts";

export function plannerRoutes(plan: (query: Record<string, string | undefined>) => PlanResult) {
  return new Elysia({ name: "planner" }).get(
    "/api/v2/routing/otp/plan",
    ({ query }) => {
      const flat: Record<string, string | undefined> = {};
      for (const [k, v] of Object.entries(query as Record<string, unknown>)) flat[k] = Array.isArray(v) ? String(v[0]) : v == null ? undefined : String(v);
      const r = plan(flat);
      return new Response(JSON.stringify(r.body), { status: r.status, headers: { "content-type": "application/json" } });
    },
    {
      detail: {
        summary: "Plan a transit trip (OTP1-compatible)",
        description: "Parameters: fromPlace, toPlace, date, time, arriveBy, mode, maxWalkDistance, walkSpeed, numItineraries, maxTransfers, wheelchair, showIntermediateStops, includeEarliestArrivals, searchWindow. See the README section Transit planner.",
        tags: ["planner"],
      },
    },
  );
}
