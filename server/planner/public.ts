/**
 * The planner's published surface: what the APIs that render its plans besides its own OTP1 REST
 * API (the GTFS GraphQL API, server/graphql/plan/) may use of it: the plan model's types, the
 * query's parser and limits, the timetable's reading helpers and the local-time rules of its
 * calendar. Other features import the planner only through this file (test/architecture.test.ts);
 * the plans themselves come through the Planning port (server/planning.ts).
 */
export type { Itinerary, LegPlace, PlanError, PlanQuery, PlanResult, StopCall, StreetLeg, TransitLeg } from "./model.ts";
export { LIMITS, parsePlanParams } from "./plan-params.ts";
export type { LocalizedAlert } from "./realtime.ts";
export { arrAt, depAt, type Timetable } from "./timetable/types.ts";
export { dataOf, type RenderData } from "./itinerary.ts";
export { dayToIso, localParts, serviceDayOf, tzOffsetMs, tzOffsetSec } from "./timetable/calendar.ts";
