/**
 * The port between the planner feature and the APIs that render its plans besides its own OTP1
 * REST API (the GTFS GraphQL API, server/graphql/plan/): plan a typed query (server/planner/model.ts
 * PlanQuery) on the loaded timetable and get the plan model's PlanResult, with the two facts a
 * client's input needs before planning (the clock of a place, the stops within reach). Implemented
 * by the planner feature (server/planner/index.ts) and handed over by server/main.ts, so the
 * planner imports no API that renders it.
 */
import { AppError } from "./errors.ts";
import type { PlanQuery, PlanResult } from "./planner/model.ts";

export interface Planning {
  /**
   * The plan of `query` at the current time, streets and realtime included (as the OTP1 API plans).
   * Throws AppError UNAVAILABLE while no timetable is loaded, INVALID_PARAMETER for a query the
   * planner refuses (e.g. a bicycle without a street network). `account`: the API key's account of
   * the request (its street calls are served in turn with other accounts'; undefined without keys).
   */
  plan(query: PlanQuery, account?: string): Promise<PlanResult>;
  /** The time zone local dates and times of a plan from this point are read in (null: no timetable). */
  timeZoneAt(lat: number, lon: number): string | null;
  /** How many stops lie within `meters` of a point as the crow flies (null: no timetable). */
  stopsWithin(lat: number, lon: number, meters: number): number | null;
}

/** No planner: every plan is UNAVAILABLE (a server started without the planner feature). */
export const NO_PLANNING: Planning = {
  plan: () => Promise.reject(new AppError("UNAVAILABLE", "the planner is not loaded")),
  timeZoneAt: () => null,
  stopsWithin: () => null,
};
