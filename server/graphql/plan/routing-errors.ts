/**
 * OTP2's routingErrors of a plan: the planner's typed PlanError (server/planner/model.ts) and what
 * the page found, as OTP2's RoutingErrorCode with its inputField:
 *
 * | planner | OTP2 |
 * |---|---|
 * | OUTSIDE_BOUNDS (missing from/to) | OUTSIDE_BOUNDS, inputField FROM / TO |
 * | NO_TRANSIT_TIMES | OUTSIDE_SERVICE_PERIOD, DATE_TIME |
 * | TOO_CLOSE | WALKING_BETTER_THAN_TRANSIT |
 * | PATH_NOT_FOUND, no stop within the walk distance of a place | NO_STOPS_IN_RANGE, FROM / TO |
 * | PATH_NOT_FOUND (a window-only search: a ride exists later) | NO_TRANSIT_CONNECTION_IN_SEARCH_WINDOW |
 * | PATH_NOT_FOUND | NO_TRANSIT_CONNECTION |
 * | a stop id naming nothing (resolved before planning) | LOCATION_NOT_FOUND, FROM / TO |
 *
 * BOGUS_PARAMETER and GRAPH_UNAVAILABLE are GraphQL errors, not routing errors (wire.ts planFailure).
 */
import type { PlanError } from "../../planner/public.ts";

export type InputField = "FROM" | "TO" | "DATE_TIME";
export interface RoutingError {
  code: "NO_TRANSIT_CONNECTION" | "NO_TRANSIT_CONNECTION_IN_SEARCH_WINDOW" | "OUTSIDE_SERVICE_PERIOD" | "OUTSIDE_BOUNDS" | "LOCATION_NOT_FOUND" | "NO_STOPS_IN_RANGE" | "WALKING_BETTER_THAN_TRANSIT";
  description: string;
  inputField: InputField | null;
}

const TEXT: Record<RoutingError["code"], string> = {
  NO_TRANSIT_CONNECTION: "No transit connection was found between the origin and destination.",
  NO_TRANSIT_CONNECTION_IN_SEARCH_WINDOW: "No transit connection was found in the search window; a later (earlier) search window has one.",
  OUTSIDE_SERVICE_PERIOD: "The date is outside the service period of the timetable.",
  OUTSIDE_BOUNDS: "The place is outside the area the timetable covers.",
  LOCATION_NOT_FOUND: "The location was not found.",
  NO_STOPS_IN_RANGE: "No stop is within walking distance of the place.",
  WALKING_BETTER_THAN_TRANSIT: "The origin and destination are so close that walking is better than transit.",
};

export const routingError = (code: RoutingError["code"], inputField: InputField | null = null, detail?: string): RoutingError => ({ code, description: detail ? `${TEXT[code]} (${detail})` : TEXT[code], inputField });

/** What tells apart the kinds of PATH_NOT_FOUND. */
export interface NotFoundFacts {
  /** stops within the walk distance of the origin and of the destination (null: unknown) */
  stopsFrom: number | null;
  stopsTo: number | null;
  /** a ride exists outside the searched window (null: not asked: the search was not window-only) */
  laterRide: boolean | null;
}

/** The routing errors of a planner error. */
export function routingErrorsOf(e: PlanError, facts: () => NotFoundFacts): RoutingError[] {
  switch (e.kind) {
    case "OUTSIDE_BOUNDS":
      return (e.missing ?? ["from"]).map((m) => routingError("OUTSIDE_BOUNDS", m === "to" ? "TO" : "FROM"));
    case "NO_TRANSIT_TIMES":
      return [routingError("OUTSIDE_SERVICE_PERIOD", "DATE_TIME")];
    case "TOO_CLOSE":
      return [routingError("WALKING_BETTER_THAN_TRANSIT")];
    case "PATH_NOT_FOUND": {
      const f = facts();
      const none = [...(f.stopsFrom === 0 ? [routingError("NO_STOPS_IN_RANGE", "FROM")] : []), ...(f.stopsTo === 0 ? [routingError("NO_STOPS_IN_RANGE", "TO")] : [])];
      if (none.length) return none;
      return [routingError(f.laterRide ? "NO_TRANSIT_CONNECTION_IN_SEARCH_WINDOW" : "NO_TRANSIT_CONNECTION", null, e.detail)];
    }
    default:
      return [];
  }
}
