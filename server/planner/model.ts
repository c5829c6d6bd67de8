/**
 * The plan model: what the planner answers, in its own typed terms, for every API to render (the
 * OTP1 REST API in otp1/, OTP2's GTFS GraphQL API next). `PlanService.plan(query) -> PlanResult`:
 * itineraries whose legs are transit legs (trip, stops, times, realtime, alerts) or street legs
 * (mode, geometry, steps, elevation, distance and duration as the street engine measured them),
 * fares, and typed errors. Stops, routes and trips are indexes into the result's timetable; times
 * are Unix seconds. Nothing here is a wire format: no OTP field names, no rounding, no milliseconds.
 */
import type { RouteIdx, StopIdx, TripIdx } from "./api.ts";
import type { OtpFare } from "./fares.ts";
import type { PlanParams, Place as QueryPlace } from "./plan-params.ts";
import type { LocalizedAlert } from "./realtime.ts";
import type { Timetable } from "./timetable/types.ts";
import type { WalkStep } from "../street-paths.ts";

/** The planner's query: the typed parameters (plan-params.ts parses OTP1's into it). */
export type PlanQuery = PlanParams;

/** Why a plan has no itineraries (OTP1 and OTP2 name them alike: PATH_NOT_FOUND is OTP2's NO_TRANSIT_CONNECTION, ...). */
export type PlanErrorKind = "PATH_NOT_FOUND" | "OUTSIDE_BOUNDS" | "NO_TRANSIT_TIMES" | "TOO_CLOSE" | "BOGUS_PARAMETER" | "GRAPH_UNAVAILABLE";

export interface PlanError {
  kind: PlanErrorKind;
  /** what the planner knows beyond the kind (e.g. no bicycle route on the streets), for the message */
  detail?: string;
  /** the places (`from`, `to`) or parameters the error is about */
  missing?: string[];
}

/** A place of a leg: the query's origin or destination, or a stop (at a position of the ride's trip). */
export interface LegPlace {
  name: string;
  lat: number;
  lon: number;
  /** the stop, when the place is one */
  stop?: StopIdx;
  /** on a ride: the stop's position in its RAPTOR route and its GTFS stop_sequence */
  stopIndex?: number;
  stopSequence?: number;
}

/** A street leg: walking (cycling, driving) between two places, as the street engine measured and drew it. */
export interface StreetLeg {
  kind: "street";
  mode: "WALK" | "BICYCLE" | "CAR";
  from: LegPlace;
  to: LegPlace;
  startSec: number;
  durationSec: number;
  /** metres: along the streets where drawn on them, else the straight line */
  distanceM: number;
  /** [lat, lon] points along the streets; null: the straight line from `from` to `to` */
  geometry: [number, number][] | null;
  steps: WalkStep[];
  elevationGainedM: number | null;
  elevationLostM: number | null;
  /** drawn by the street engine (true), a straight line where the streets do not reach (false); undefined: no street network was asked */
  onStreets?: boolean;
}

/** An intermediate stop of a ride: its route position and its (realtime) times. */
export interface StopCall {
  place: LegPlace;
  arrivalSec: number;
  departureSec: number;
}

/** A ride on one trip from a boarding to an alighting stop. */
export interface TransitLeg {
  kind: "transit";
  trip: TripIdx;
  /** the RAPTOR route (stop pattern) and the GTFS route (index into meta.gtfsRoutes) */
  route: RouteIdx;
  gtfsRoute: number;
  from: LegPlace;
  to: LegPlace;
  boardPos: number;
  alightPos: number;
  /** departure at the boarding stop and arrival at the alighting one (realtime where updated) */
  startSec: number;
  endSec: number;
  /** seconds against the schedule at the boarding and the alighting stop; null: no trip update */
  realtime: { departureDelaySec: number; arrivalDelaySec: number } | null;
  /** Unix second of the service day's "noon minus 12h" in the agency's timezone */
  serviceDayStartSec: number;
  /** the agency's timezone */
  timeZone: string;
  /** the vehicle of the previous ride continues as this trip (a stay-seated transfer) */
  interlineWithPreviousLeg: boolean;
  /** the stops passed between boarding and alighting, when the query asks for them (showIntermediateStops) */
  intermediateStops: StopCall[] | null;
  /** [lat, lon] points of the ride along its shape, and their length in metres */
  geometry: [number, number][];
  distanceM: number;
  /** the alerts on the leg's trip, route, agency and stops, in the query's language */
  alerts: LocalizedAlert[];
}

export type Leg = TransitLeg | StreetLeg;

export interface Itinerary {
  legs: Leg[];
  /** the clock of the legs before the first ride (the first ride's agency, or of the stop nearest the origin) */
  timeZone: string;
  /** the fare of the rides (GTFS Fares v1 / v2, fares.ts); undefined when no ride has one */
  fare?: OtpFare;
}

export interface EarliestArrival {
  stop: StopIdx;
  arrivalSec: number;
}

/** A plan: its itineraries (best first), or the error saying why there are none. */
export interface PlanResult {
  query: PlanQuery;
  /** the timetable the plan was made on (stop, route and trip indexes refer to it) */
  timetable: Timetable;
  /** the requested time (Unix seconds) and places */
  timeSec: number;
  from: QueryPlace;
  to: QueryPlace;
  itineraries: Itinerary[];
  /** Transitland's addition: the earliest arrival at every stop reached, when asked for */
  earliestArrivals?: EarliestArrival[];
  error?: PlanError;
  /** whether a street network answered the street legs (undefined: none is loaded) */
  streetNetwork?: boolean;
  /** a window-only search (PlanQuery.windowOnly): the seconds of the window searched, from its start */
  searchedSec?: number;
}

/** A plan that could not be made: no itineraries, the error. */
export const failedPlan = (query: PlanQuery, timetable: Timetable, error: PlanError): PlanResult => ({
  query,
  timetable,
  timeSec: 0,
  from: query.from,
  to: query.to,
  itineraries: [],
  error,
});
