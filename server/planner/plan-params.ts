/**
 * OTP1 plan parameters, each described once as a zod schema (server/params.ts): parsing, defaults,
 * the error message naming the parameter, and the description /docs shows (the README section
 * "Transit planner" lists them). A malformed value is INVALID_PARAMETER, answered by the planner's
 * renderer as OTP's BOGUS_PARAMETER with HTTP 400. Empty values count as absent.
 *
 * Every parameter of OTP1's RoutingResource (dev-1.x) is here: honoured (the routing criteria go to
 * criteria.ts, which makes them search masks and costs), clamped where OTP1 clamps (`clamped`),
 * accepted where OTP1 itself lets them change nothing for a walk and transit plan (a note in
 * `warnings` when the request sets one), or refused with a 400 naming it where honouring it needs
 * what this planner does not have (bicycle and car legs, depart-onboard, intermediate places).
 */
import { z } from "zod";
import { invalidParameter } from "../errors.ts";
import { type ParamSchema, type ParamValues, param, parseParams, reject } from "../params.ts";

export interface Place {
  name: string;
  lat: number;
  lon: number;
}

/** OTP1's OptimizeType. Only QUICK and TRANSFERS concern walk and transit plans; the others shape bicycle routes. */
export type Optimize = "QUICK" | "TRANSFERS" | "SAFE" | "FLAT" | "GREENWAYS" | "TRIANGLE";

/**
 * The generalized cost of a request that names a cost parameter (OTP1's weight; criteria.ts and
 * raptor/mc.ts): every unnamed one at OTP1's default.
 */
export interface PlanCosts {
  walkReluctance: number;
  waitReluctance: number;
  waitAtBeginningFactor: number;
  /** seconds per boarding */
  walkBoardCost: number;
  /** seconds per boarding after the first (optimize=TRANSFERS adds OTP1's 1800) */
  transferPenalty: number;
  /** seconds per boarding after the first over a transfer transfers.txt neither recommends nor times, when it recommends or times some */
  nonpreferredTransferPenalty: number;
  /** seconds per boarding of a route that is not preferred, when routes or agencies are preferred */
  otherThanPreferredRoutesPenalty: number;
  /** seconds per boarding of an unpreferred route */
  useUnpreferredRoutesPenalty: number;
}

/**
 * OTP1's routing criteria as the request gives them (ids as text: criteria.ts resolves them against
 * the loaded timetable's feeds: `feedId:id`, OTP1's `feedId_routeName` / `feedId__routeId`
 * route forms, or a bare GTFS id).
 */
export interface PlanCriteria {
  bannedRoutes: string[];
  whiteListedRoutes: string[];
  preferredRoutes: string[];
  unpreferredRoutes: string[];
  bannedAgencies: string[];
  whiteListedAgencies: string[];
  preferredAgencies: string[];
  unpreferredAgencies: string[];
  /** `trip` or `trip:stopIndex:stopIndex...` (OTP1's BannedStopSet: boarding and alighting banned at those positions of the trip) */
  bannedTrips: string[];
  bannedStops: string[];
  bannedStopsHard: string[];
  startTransitStopId: string | null;
  /** seconds (OTP1 boardSlack, alightSlack, minTransferTime) */
  boardSlack: number;
  alightSlack: number;
  minTransferTime: number;
  /** hours a journey may last (less than), null = unlimited; counted from the requested time with useRequestedDateTimeInMaxHours */
  maxHours: number | null;
  useRequestedDateTimeInMaxHours: boolean;
  disableRemainingWeightHeuristic: boolean;
  /** null when the request names no cost parameter: then plans rank by arrival, else by generalized cost */
  costs: PlanCosts | null;
}

export interface PlanParams {
  from: Place;
  to: Place;
  /** local date (days since epoch) and seconds into it, in the dataset timezone; null = now */
  date: number | null;
  timeSec: number | null;
  arriveBy: boolean;
  /** no transit: the street mode all the way (mode=WALK, BICYCLE or CAR without TRANSIT) */
  walkOnly: boolean;
  /**
   * How the plan moves on the streets to, from and instead of transit: WALK, or BICYCLE (mode
   * BICYCLE, with or without transit, at bikeSpeed), or CAR (mode CAR alone). Transfers are walked.
   */
  streetMode: "WALK" | "BICYCLE" | "CAR";
  /** bicycle speed, m/s (OTP1 bikeSpeed, default 5) */
  bikeSpeed: number;
  /** bicycle route weights from optimize SAFE / FLAT / GREENWAYS / TRIANGLE (null: quickest) */
  bikeTriangle: { safety: number; slope: number; time: number } | null;
  /** OTP transit modes allowed (BUS, RAIL, ...); null = all */
  transitModes: Set<string> | null;
  maxWalkDistance: number;
  walkSpeed: number;
  numItineraries: number;
  maxTransfers: number;
  wheelchair: boolean;
  showIntermediateStops: boolean;
  includeEarliestArrivals: boolean;
  /** seconds of departures (arrivals for arriveBy) searched after (before) the requested time */
  searchWindow: number;
  /**
   * Search the searchWindow only (OTP2's paged searches): no widening after it when fewer than
   * numItineraries are found, and walking all the way bounds nothing (every ride of the window
   * stays). Default false: OTP1's widening.
   */
  windowOnly?: boolean;
  /**
   * With windowOnly: enough rides for a page. The search first covers the window's first
   * WINDOW_FILL_FIRST_SEC and searches a longer part of it (from the start again) only while it
   * finds no more than this many rides; PlanResult.searchedSec says how much was searched (OTP2's
   * searchWindowUsed). Unset: the whole window.
   */
  windowFill?: number;
  optimize: Optimize;
  /** OTP1 locale (answers stay in English; alerts in its language where they have it) */
  locale: string | null;
  /** plan on the schedules only, without the served GTFS-Realtime trip updates */
  ignoreRealtimeUpdates: boolean;
  /** legs show every alert on their trip, route, agency and stops, not only those active during the leg */
  disableAlertFiltering: boolean;
  criteria: PlanCriteria;
  /**
   * Parameters OTP1 clamps, given out of its range: parameter -> the value used instead (e.g.
   * maxWalkDistance above 15000 -> 15000, walkBoardCost below 0 -> 0, walkReluctance <= 0 -> its default 2).
   */
  clamped: Record<string, number>;
  /**
   * Notes for the client, one sentence each naming its parameter: a parameter accepted without effect
   * on a walk and transit plan (bicycle settings, OTP1 options of its own search), and (added by the
   * plan, criteria.ts) ids the loaded timetable does not know, which are ignored as OTP1 ignores them.
   */
  warnings: string[];
}

export const DEFAULTS = {
  maxWalkDistance: 1609,
  walkSpeed: 1.33,
  numItineraries: 3,
  maxTransfers: 5,
  searchWindow: 3600,
} as const;
/** Above these, numItineraries, maxTransfers and maxWalkDistance are clamped (maxWalkDistance: OTP1's GraphPathFinder CLAMP_MAX_WALK). */
export const LIMITS = { maxWalkDistance: 15_000, numItineraries: 20, maxTransfers: 10, searchWindow: 6 * 3600 } as const;

/** OTP1's RoutingRequest defaults of the generalized cost. */
export const OTP1_COSTS: PlanCosts = {
  walkReluctance: 2,
  waitReluctance: 1,
  waitAtBeginningFactor: 0.4,
  walkBoardCost: 600,
  transferPenalty: 0,
  nonpreferredTransferPenalty: 180,
  otherThanPreferredRoutesPenalty: 300,
  useUnpreferredRoutesPenalty: 300,
};
/** optimize=TRANSFERS: OTP1 adds this to transferPenalty (RoutingResource.buildRequest). */
export const TRANSFERS_PENALTY = 1800;

/** OTP1's transit modes (TraverseMode), as modeOfRouteType gives them */
export const TRANSIT_MODES = ["TRAM", "SUBWAY", "RAIL", "BUS", "FERRY", "CABLE_CAR", "GONDOLA", "FUNICULAR", "AIRPLANE"];
const OTHER_MODES = ["WALK", "TRANSIT", "BICYCLE", "CAR"];
/** OTP1 modes (QualifiedModeSet) of legs this planner cannot make yet, and why. */
const REFUSED_MODES: Record<string, string> = {
  BICYCLE_RENT: "bicycle rental legs are not available yet",
  BICYCLE_PARK: "bike and ride (parking the bicycle at a station) is not available yet; BICYCLE,TRANSIT takes the bicycle along",
  CAR_PARK: "park and ride (car legs) is not available yet",
  CAR_RENT: "car rental legs are not available yet",
  CAR_HAIL: "ride hailing legs are not available yet",
  MICROMOBILITY: "micromobility legs are not available yet",
  MICROMOBILITY_RENT: "micromobility rental legs are not available yet",
  FLEX: "GTFS-Flex services are not available yet",
};

/** `lat,lon` or `Name::lat,lon`; required. */
function place(name: string, defaultName: string, description: string): ParamSchema<Place> {
  const required = `${name} is required (lat,lon or Name::lat,lon)`;
  return z
    .string()
    .optional()
    .transform((raw, ctx): Place => {
      if (raw === undefined || raw.trim() === "") return reject(ctx, required);
      let label = defaultName;
      let coords = raw.trim();
      const sep = coords.lastIndexOf("::");
      if (sep >= 0) {
        label = coords.slice(0, sep);
        coords = coords.slice(sep + 2);
      }
      const m = /^\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*$/.exec(coords);
      if (!m) return reject(ctx, `${name} must be lat,lon or Name::lat,lon, got ${JSON.stringify(raw)}`);
      const lat = Number(m[1]);
      const lon = Number(m[2]);
      if (lat < -90 || lat > 90 || lon < -180 || lon > 180) return reject(ctx, `${name}: latitude must be in [-90, 90] and longitude in [-180, 180]`);
      return { name: label, lat, lon };
    })
    .meta({ description, type: "string", example: `${defaultName}::40.7128,-74.0060` });
}

/** OTP1 lenient dates: YYYY-MM-DD (separators - / _ . :), YYYYMMDD, MM-DD-YYYY. Days since epoch. */
const date = param({ type: "string" }, "service date: YYYY-MM-DD (also YYYYMMDD, MM-DD-YYYY); default today, in the timezone of the agency nearest fromPlace", null, (raw, ctx) => {
  const s = raw.trim().replace(/[-/_:]/g, ".");
  let y: number, mo: number, d: number;
  let m: RegExpExecArray | null;
  if ((m = /^(\d{4})\.(\d{1,2})\.(\d{1,2})$/.exec(s))) [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  else if ((m = /^(\d{4})(\d{2})(\d{2})$/.exec(s))) [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  else if ((m = /^(\d{1,2})\.(\d{1,2})\.(\d{4})$/.exec(s))) [y, mo, d] = [Number(m[3]), Number(m[1]), Number(m[2])];
  else return reject(ctx, `date must be YYYY-MM-DD (or YYYYMMDD, MM-DD-YYYY), got ${JSON.stringify(raw)}`);
  const t = Date.UTC(y, mo - 1, d);
  const back = new Date(t);
  if (mo < 1 || mo > 12 || back.getUTCDate() !== d || back.getUTCMonth() !== mo - 1) return reject(ctx, `date ${JSON.stringify(raw)} is not a calendar date`);
  return Math.floor(t / 86400_000);
});

/** OTP1 times: HH:MM[:SS], h:mm am/pm, or integer seconds past midnight. */
const time = param({ type: "string" }, "local time: HH:MM[:SS], h:mmam/pm or seconds past midnight (up to 48:00); default now", null, (raw, ctx) => {
  const s = raw.trim().toLowerCase();
  let m: RegExpExecArray | null;
  if (/^\d+$/.test(s)) {
    const v = Number(s);
    if (v > 48 * 3600) return reject(ctx, "time in seconds must be at most 172800");
    return v;
  }
  if ((m = /^(\d{1,2}):(\d{2})(?::(\d{2}))?\s*(am|pm)?$/.exec(s))) {
    let h = Number(m[1]);
    const mi = Number(m[2]);
    const sec = Number(m[3] ?? 0);
    if (m[4]) {
      if (h < 1 || h > 12) return reject(ctx, `time ${JSON.stringify(raw)}: hour must be 1..12 with am/pm`);
      h = (h % 12) + (m[4] === "pm" ? 12 : 0);
    }
    if (h > 47 || mi > 59 || sec > 59) return reject(ctx, `time ${JSON.stringify(raw)} is out of range`);
    return h * 3600 + mi * 60 + sec;
  }
  return reject(ctx, `time must be HH:MM[:SS], h:mmam/pm or seconds past midnight, got ${JSON.stringify(raw)}`);
});

/**
 * Comma list of OTP modes: transit modes limit the routes, WALK alone (no TRANSIT) plans a walk.
 * Modes of legs this planner cannot make (bicycle, car, rental, flex) are refused, never replaced
 * by walking.
 */
const mode = param(
  { type: "string" },
  `comma list of WALK, BICYCLE, CAR, TRANSIT, ${TRANSIT_MODES.join(", ")}; default TRANSIT,WALK. Named transit modes limit the routes; WALK (BICYCLE, CAR) without a transit mode plans a walk (ride, drive) only; BICYCLE with transit rides to and from the stations (needs a street network); CAR only alone. ${Object.keys(REFUSED_MODES).join(", ")} are refused (400): those legs are not available yet`,
  null,
  (raw, ctx): { walkOnly: boolean; transitModes: Set<string> | null; streetMode: "WALK" | "BICYCLE" | "CAR" } => {
    const modes = raw
      .split(",")
      .map((m) => m.trim().toUpperCase())
      .filter(Boolean);
    for (const m of modes) {
      if (REFUSED_MODES[m]) return reject(ctx, `mode ${m}: ${REFUSED_MODES[m]}; use WALK, TRANSIT or transit modes (${TRANSIT_MODES.join(", ")})`);
      if (!TRANSIT_MODES.includes(m) && !OTHER_MODES.includes(m)) return reject(ctx, `mode ${m} is unknown; use a comma list of WALK, TRANSIT, ${TRANSIT_MODES.join(", ")}`);
    }
    const explicit = modes.filter((m) => TRANSIT_MODES.includes(m));
    const transit = explicit.length > 0 || modes.includes("TRANSIT");
    const streetMode = modes.includes("CAR") ? "CAR" : modes.includes("BICYCLE") ? "BICYCLE" : "WALK";
    if (streetMode === "CAR" && (transit || modes.includes("BICYCLE"))) return reject(ctx, "mode CAR plans a drive only: with transit it is park and ride (CAR_PARK), not available yet");
    return { walkOnly: !transit, transitModes: explicit.length ? new Set(explicit) : null, streetMode };
  },
);

const bool = (name: string, description: string) =>
  param({ type: "string", enum: ["true", "false", "1", "0", "yes", "no"], default: "false" }, description, false, (raw, ctx) => {
    const s = raw.toLowerCase();
    if (s === "true" || s === "1" || s === "yes") return true;
    if (s === "false" || s === "0" || s === "no") return false;
    return reject(ctx, `${name} must be true or false, got ${JSON.stringify(raw)}`);
  });

/**
 * A number in [min, max] (bounds OTP1 has no clamp for: outside is a 400); `absent` when missing.
 * The docs show `json` besides the type and bounds.
 */
function number<A>(name: string, absent: A, min: number, max: number, description: string, integer = false, json: Record<string, unknown> = {}) {
  const bounds = { ...(Number.isFinite(min) ? { minimum: min } : {}), ...(Number.isFinite(max) ? { maximum: max } : {}) };
  return param({ type: integer ? "integer" : "number", ...bounds, ...json }, description, absent, (raw, ctx) => {
    const n = Number(raw.trim());
    if (raw.trim() === "" || !Number.isFinite(n) || (integer && !Number.isInteger(n))) return reject(ctx, `${name} must be ${integer ? "an integer" : "a number"}, got ${JSON.stringify(raw)}`);
    if (n < min || n > max) return reject(ctx, `${name} must be between ${min} and ${max}, got ${n}`);
    return n;
  });
}
/** A number parsePlanParams clamps as OTP1 does (any finite value parses; the clamp is reported). */
const clampable = (name: string, integer: boolean, description: string, json: Record<string, unknown> = {}) => number(name, null, -Infinity, Infinity, description, integer, json);

/** A comma list of ids (criteria.ts reads them against the timetable); [] when absent. */
const ids = (description: string) =>
  param({ type: "string" }, description, [] as string[], (raw) =>
    raw
      .split(",")
      .map((v) => v.trim())
      .filter((v) => v !== ""),
  );

/** A parameter refused whatever its value: what it needs is not available. */
const refused = (name: string, why: string, description: string) => param({ type: "string" }, `${description}. Refused (400): ${why}`, null, (_raw, ctx): never => reject(ctx, `${name}: ${why}`));

const OPTIMIZE: Optimize[] = ["QUICK", "TRANSFERS", "SAFE", "FLAT", "GREENWAYS", "TRIANGLE"];
const optimize = param(
  { type: "string", enum: OPTIMIZE, default: "QUICK" },
  "QUICK (default), TRANSFERS (transferPenalty + 1800, as OTP1), or the bicycle presets SAFE, FLAT, GREENWAYS, TRIANGLE (with mode BICYCLE they weigh the bicycle route: SAFE and GREENWAYS fewer roads with cars, FLAT fewer hills, TRIANGLE the three triangle factors, which must sum to 1; no effect on walk and transit plans, as in OTP1)",
  null,
  (raw, ctx): Optimize => {
    const v = raw.trim().toUpperCase() as Optimize;
    if (!OPTIMIZE.includes(v)) return reject(ctx, `optimize must be one of ${OPTIMIZE.join(", ")}, got ${JSON.stringify(raw)}`);
    return v;
  },
);

const maxWalk = (name: string, description: string) => clampable(name, false, description, { default: DEFAULTS.maxWalkDistance });
const walkSpeed = (name: string, description: string) => number(name, DEFAULTS.walkSpeed, 0.1, 10, description, false, { default: DEFAULTS.walkSpeed });
const itineraries = (name: string, description: string) => clampable(name, true, description, { default: DEFAULTS.numItineraries });
const seconds = (name: string, description: string) => number(name, null, 0, 86_400, description, true);
const routesDoc = "comma list of routes: feedId:routeId, OTP1's feedId__routeId or feedId_routeName (route_short_name, else route_long_name; `_routeName` any feed), or a bare route_id (any feed)";
const agenciesDoc = "comma list of agencies: feedId:agencyId or a bare agency_id (any feed)";
const BIKE = "used only with mode BICYCLE";

/** The plan endpoint's parameters, in validation order (aliases follow their parameter). */
export const PLAN_PARAMS = {
  fromPlace: place("fromPlace", "Origin", "origin: lat,lon or Name::lat,lon"),
  toPlace: place("toPlace", "Destination", "destination: lat,lon or Name::lat,lon"),
  intermediatePlaces: refused("intermediatePlaces", "planning through intermediate places is not available yet", "places to pass through, in order"),
  date,
  time,
  mode,
  arriveBy: bool("arriveBy", "true: time is the latest arrival instead of the earliest departure"),
  maxWalkDistance: maxWalk("maxWalkDistance", `meters walked to, from and between stops; above ${LIMITS.maxWalkDistance}: ${LIMITS.maxWalkDistance}, below 0: the default (OTP1's clamps, reported)`),
  maxWalkingDistance: maxWalk("maxWalkingDistance", "alias of maxWalkDistance"),
  walkSpeed: walkSpeed("walkSpeed", "walking speed, m/s"),
  walkingSpeed: walkSpeed("walkingSpeed", "alias of walkSpeed"),
  numItineraries: itineraries("numItineraries", `itineraries wanted, at least 1; above ${LIMITS.numItineraries}: ${LIMITS.numItineraries} (clamped, reported)`),
  maxItineraries: itineraries("maxItineraries", "alias of numItineraries"),
  maxTransfers: clampable("maxTransfers", true, `transfers at most, at least 0; above ${LIMITS.maxTransfers}: ${LIMITS.maxTransfers} (clamped, reported)`, { default: DEFAULTS.maxTransfers }),
  wheelchair: bool("wheelchair", "only wheelchair-accessible trips and stops"),
  showIntermediateStops: bool("showIntermediateStops", "list the stops passed on each ride"),
  includeEarliestArrivals: bool("includeEarliestArrivals", "add the earliest arrival at every reachable stop (earliestArrivals)"),
  searchWindow: number("searchWindow", DEFAULTS.searchWindow, 0, LIMITS.searchWindow, "seconds of departures searched after the time (arrivals before it with arriveBy)", true, { default: DEFAULTS.searchWindow }),
  optimize,
  triangleSafetyFactor: number("triangleSafetyFactor", null, 0, 1, "bicycle triangle: weight of safety (mode BICYCLE, optimize=TRIANGLE): fewer roads with cars"),
  triangleSlopeFactor: number("triangleSlopeFactor", null, 0, 1, "bicycle triangle: weight of flatness (mode BICYCLE, optimize=TRIANGLE): fewer hills"),
  triangleTimeFactor: number("triangleTimeFactor", null, 0, 1, "bicycle triangle: weight of time (mode BICYCLE, optimize=TRIANGLE)"),
  walkReluctance: clampable("walkReluctance", false, "cost of a second walking, in seconds riding (OTP1 default 2; <= 0: the default, as OTP1). Names a cost: itineraries are chosen by generalized cost", { default: OTP1_COSTS.walkReluctance }),
  waitReluctance: clampable("waitReluctance", false, "cost of a second waiting between rides (OTP1 default 1; <= 0: the default). Names a cost", { default: OTP1_COSTS.waitReluctance }),
  waitAtBeginningFactor: clampable("waitAtBeginningFactor", false, "cost of a second waiting before the first ride, from the requested time (OTP1 default 0.4; <= 0: the default). Names a cost", { default: OTP1_COSTS.waitAtBeginningFactor }),
  walkBoardCost: clampable("walkBoardCost", true, "seconds of cost per boarding (OTP1 default 600; below 0: 0). Names a cost", { default: OTP1_COSTS.walkBoardCost }),
  transferPenalty: number("transferPenalty", null, 0, 86_400, "seconds of cost per boarding after the first (default 0; optimize=TRANSFERS adds 1800). Names a cost", true),
  nonpreferredTransferPenalty: number("nonpreferredTransferPenalty", null, 0, 86_400, "seconds of cost per boarding after the first over a transfer that transfers.txt neither recommends (transfer_type 0) nor times (1), as OTP1 (default 180); applies only when the timetable has such rows, and knows them only from rows naming routes or trips (a stop-to-stop row's type is not in the timetable: such transfers count as not recommended). Names a cost", true),
  preferredRoutes: ids(`${routesDoc}: every other route costs otherThanPreferredRoutesPenalty per boarding. Names a cost`),
  preferredAgencies: ids(`${agenciesDoc}: routes of other agencies cost otherThanPreferredRoutesPenalty per boarding. Names a cost`),
  otherThanPreferredRoutesPenalty: clampable("otherThanPreferredRoutesPenalty", true, "seconds of cost per boarding of a route neither preferred nor of a preferred agency (OTP1 default 300; below 0: 0). Names a cost", { default: OTP1_COSTS.otherThanPreferredRoutesPenalty }),
  unpreferredRoutes: ids(`${routesDoc}: each boarding costs useUnpreferredRoutesPenalty. Names a cost`),
  unpreferredAgencies: ids(`${agenciesDoc}: each boarding of their routes costs useUnpreferredRoutesPenalty. Names a cost`),
  useUnpreferredRoutesPenalty: clampable("useUnpreferredRoutesPenalty", true, "seconds of cost per boarding of an unpreferred route (OTP1 default 300; below 0: 0). Names a cost", { default: OTP1_COSTS.useUnpreferredRoutesPenalty }),
  bannedRoutes: ids(`${routesDoc}: never ridden`),
  whiteListedRoutes: ids(`${routesDoc}: only these (and those of whiteListedAgencies) are ridden`),
  bannedAgencies: ids(`${agenciesDoc}: their routes are never ridden`),
  whiteListedAgencies: ids(`${agenciesDoc}: only their routes (and whiteListedRoutes) are ridden`),
  bannedTrips: ids("comma list of trips never ridden: feedId:tripId or a bare trip_id; `trip:i:j...` bans boarding and alighting at stop positions i, j... of the trip only (OTP1's BannedStopSet)"),
  bannedStops: ids("comma list of stops (feedId:stopId or bare stop_id) where nobody boards or alights; rides pass through them"),
  bannedStopsHard: ids("comma list of stops (feedId:stopId or bare stop_id) no ride may board, alight at or pass through"),
  minTransferTime: seconds("minTransferTime", "seconds between alighting and boarding again, besides the walk (OTP1's transferSlack; default 0); at least boardSlack + alightSlack"),
  boardSlack: seconds("boardSlack", "seconds between reaching the first stop and boarding (default 0)"),
  alightSlack: seconds("alightSlack", "seconds between alighting the last ride and walking on (default 0)"),
  maxHours: number("maxHours", null, 1 / 3600, 1000, "itineraries last less than this many hours (default unlimited)"),
  useRequestedDateTimeInMaxHours: bool("useRequestedDateTimeInMaxHours", "maxHours counts from the requested time instead of the itinerary's start (end for arriveBy)"),
  startTransitStopId: param({ type: "string" }, "the first stop of every itinerary (feedId:stopId or a bare stop_id): itineraries start there, fromPlace names the plan's origin", null, (raw) => raw.trim()),
  startTransitTripId: refused("startTransitTripId", "depart-onboard routing (starting on a trip) is not available yet", "a trip the itinerary starts on board of"),
  maxPreTransitTime: clampable("maxPreTransitTime", true, "seconds of driving before transit (park and ride): no effect, car legs are not available yet"),
  bikeSpeed: number("bikeSpeed", null, 0.1, 50, `bicycle speed, m/s: ${BIKE}`),
  bikeBoardCost: clampable("bikeBoardCost", true, `cost of boarding with a bicycle: ${BIKE}`),
  bikeSwitchTime: number("bikeSwitchTime", null, 0, 86_400, `seconds to get on and off a bicycle: ${BIKE}`, true),
  bikeSwitchCost: number("bikeSwitchCost", null, 0, 86_400, `cost of getting on and off a bicycle: ${BIKE}`, true),
  walkOnStreetReluctance: number("walkOnStreetReluctance", null, 0, 1000, "extra reluctance to walk on streets with cars: no effect (the street engine's pedestrian costing weighs the streets)"),
  carParkCarLegWeight: number("carParkCarLegWeight", null, 0, 1000, "weight of the car leg of park and ride: no effect, car legs are not available yet"),
  locale: param({ type: "string" }, "OTP1 locale: accepted, answers are in English", null, (raw) => raw.trim()),
  ignoreRealtimeUpdates: bool("ignoreRealtimeUpdates", "plan on the schedules only, without the GTFS-Realtime trip updates served (delays, cancellations, skipped stops)"),
  disableRemainingWeightHeuristic: bool("disableRemainingWeightHeuristic", "true: the search does without its destination lower bounds (same itineraries, more work)"),
  reverseOptimizeOnTheFly: bool("reverseOptimizeOnTheFly", "accepted: itineraries already leave as late as they can (range search)"),
  batch: bool("batch", "accepted: OTP1's full path tree, the same itineraries"),
  clampInitialWait: number("clampInitialWait", null, -1, Number.MAX_SAFE_INTEGER, "accepted: no effect in OTP1's plan API (an Analyst setting)", true),
  disableAlertFiltering: bool("disableAlertFiltering", "legs show every alert on their trip, route, agency and stops, not only those active during the leg"),
  geoidElevation: bool("geoidElevation", "echoed in elevationMetadata; plans carry no elevation"),
};
const PLAN_RULES = { aliases: { maxWalkDistance: ["maxWalkingDistance"], walkSpeed: ["walkingSpeed"], numItineraries: ["maxItineraries"] } };

/** Parameters that name a generalized cost: any of them (or optimize=TRANSFERS) ranks itineraries by it. */
export const COST_PARAMETERS = [
  "walkReluctance",
  "waitReluctance",
  "waitAtBeginningFactor",
  "walkBoardCost",
  "transferPenalty",
  "nonpreferredTransferPenalty",
  "preferredRoutes",
  "preferredAgencies",
  "otherThanPreferredRoutesPenalty",
  "unpreferredRoutes",
  "unpreferredAgencies",
  "useUnpreferredRoutesPenalty",
] as const;

/** The parsed values of PLAN_PARAMS. */
type PlanValues = ParamValues<typeof PLAN_PARAMS>;
/** Whether the request gave a parameter (absent or empty = not given). */
type Given = (name: string) => boolean;

/**
 * The typed plan query of raw query-string values (absent or empty = not given). Throws
 * INVALID_PARAMETER. Steps: parse, check the counts, clamp (OTP1's clamps, reported), check the
 * slacks and the triangle, note what has no effect, then the query.
 */
export function parsePlanParams(q: Record<string, string | undefined>): PlanParams {
  const raw = (name: string) => (q[name] === "" ? undefined : q[name]);
  const v: PlanValues = parseParams(PLAN_PARAMS, raw, PLAN_RULES);
  const given: Given = (name) => raw(name) !== undefined;
  const clamped: Record<string, number> = {};
  /** OTP1's clamps: below `lo` (or at it, `open`) the value `low`, above `hi` the value hi; reported */
  const clamp = (name: string, x: number | null, dflt: number, lo: number, low: number, hi: number, open = false): number => {
    if (x === null) return dflt;
    const y = x < lo || (open && x === lo) ? low : x > hi ? hi : x;
    if (y !== x) clamped[name] = y;
    return y;
  };
  const atLeast = (name: string, x: number | null, min: number) => {
    if (x !== null && x < min) throw badValue(name, `${name} must be at least ${min}, got ${x}`);
  };
  atLeast(given("numItineraries") ? "numItineraries" : "maxItineraries", v.numItineraries, 1);
  atLeast("maxTransfers", v.maxTransfers, 0);
  const maxWalkDistance = clamp("maxWalkDistance", v.maxWalkDistance, DEFAULTS.maxWalkDistance, 0, DEFAULTS.maxWalkDistance, LIMITS.maxWalkDistance);
  const numItineraries = clamp("numItineraries", v.numItineraries, DEFAULTS.numItineraries, 1, 1, LIMITS.numItineraries);
  const maxTransfers = clamp("maxTransfers", v.maxTransfers, DEFAULTS.maxTransfers, 0, 0, LIMITS.maxTransfers);
  const costs = planCosts(v, clamp);
  clamp("bikeBoardCost", v.bikeBoardCost, 0, 0, 0, Infinity);
  clamp("maxPreTransitTime", v.maxPreTransitTime, 1800, 0, 1800, Infinity, true);
  const named = COST_PARAMETERS.some(given) || v.optimize === "TRANSFERS";
  const slacks = transferSlacks(v, given);
  const tri = triangle(v);
  const warnings = noEffectWarnings(v, given);

  return {
    from: v.fromPlace,
    to: v.toPlace,
    date: v.date,
    timeSec: v.time,
    arriveBy: v.arriveBy,
    walkOnly: v.mode?.walkOnly ?? false,
    streetMode: v.mode?.streetMode ?? "WALK",
    bikeSpeed: v.bikeSpeed ?? 5,
    // OTP1's bicycle optimizations as weights: safety (fewer roads), slope (fewer hills), time
    bikeTriangle:
      v.optimize === "TRIANGLE" ? { safety: tri[0]!, slope: tri[1]!, time: tri[2]! }
      : v.optimize === "SAFE" || v.optimize === "GREENWAYS" ? { safety: 1, slope: 0, time: 0 }
      : v.optimize === "FLAT" ? { safety: 0, slope: 1, time: 0 }
      : null,
    transitModes: v.mode?.transitModes ?? null,
    maxWalkDistance,
    walkSpeed: v.walkSpeed,
    numItineraries,
    maxTransfers,
    wheelchair: v.wheelchair,
    showIntermediateStops: v.showIntermediateStops,
    includeEarliestArrivals: v.includeEarliestArrivals,
    searchWindow: v.searchWindow,
    optimize: v.optimize ?? "QUICK",
    locale: v.locale,
    ignoreRealtimeUpdates: v.ignoreRealtimeUpdates,
    disableAlertFiltering: v.disableAlertFiltering,
    criteria: planCriteria(v, slacks, named ? costs : null),
    clamped,
    warnings,
  };
}

/** The generalized-cost weights: OTP1's defaults, the request's values clamped as OTP1 clamps them. */
function planCosts(v: PlanValues, clamp: (name: string, x: number | null, dflt: number, lo: number, low: number, hi: number, open?: boolean) => number): PlanCosts {
  const C = OTP1_COSTS;
  return {
    walkReluctance: clamp("walkReluctance", v.walkReluctance, C.walkReluctance, 0, C.walkReluctance, Infinity, true),
    waitReluctance: clamp("waitReluctance", v.waitReluctance, C.waitReluctance, 0, C.waitReluctance, Infinity, true),
    waitAtBeginningFactor: clamp("waitAtBeginningFactor", v.waitAtBeginningFactor, C.waitAtBeginningFactor, 0, C.waitAtBeginningFactor, Infinity, true),
    walkBoardCost: clamp("walkBoardCost", v.walkBoardCost, C.walkBoardCost, 0, 0, Infinity),
    transferPenalty: (v.transferPenalty ?? C.transferPenalty) + (v.optimize === "TRANSFERS" ? TRANSFERS_PENALTY : 0),
    nonpreferredTransferPenalty: v.nonpreferredTransferPenalty ?? C.nonpreferredTransferPenalty,
    otherThanPreferredRoutesPenalty: clamp("otherThanPreferredRoutesPenalty", v.otherThanPreferredRoutesPenalty, C.otherThanPreferredRoutesPenalty, 0, 0, Infinity),
    useUnpreferredRoutesPenalty: clamp("useUnpreferredRoutesPenalty", v.useUnpreferredRoutesPenalty, C.useUnpreferredRoutesPenalty, 0, 0, Infinity),
  };
}

/** The slacks in seconds; OTP1: transfer slack at least board slack plus alight slack (RoutingResource.buildRequest). */
function transferSlacks(v: PlanValues, given: Given): { boardSlack: number; alightSlack: number; minTransferTime: number } {
  const boardSlack = v.boardSlack ?? 0, alightSlack = v.alightSlack ?? 0, minTransferTime = v.minTransferTime ?? 0;
  if (boardSlack + alightSlack > minTransferTime) {
    throw badValue(given("minTransferTime") ? "minTransferTime" : given("boardSlack") ? "boardSlack" : "alightSlack", `minTransferTime (${minTransferTime} s) must be at least boardSlack + alightSlack (${boardSlack + alightSlack} s), as in OTP1`);
  }
  return { boardSlack, alightSlack, minTransferTime };
}

/** The triangle factors (safety, slope, time); OTP1 checks them only with optimize=TRIANGLE: all given, summing to 1. */
function triangle(v: PlanValues): (number | null)[] {
  const tri = [v.triangleSafetyFactor, v.triangleSlopeFactor, v.triangleTimeFactor];
  if (v.optimize === "TRIANGLE") {
    const missing = ["triangleSafetyFactor", "triangleSlopeFactor", "triangleTimeFactor"].find((_, i) => tri[i] === null);
    if (missing) throw badValue(missing, `optimize=TRIANGLE needs triangleSafetyFactor, triangleSlopeFactor and triangleTimeFactor; ${missing} is missing`);
    if (Math.abs(tri[0]! + tri[1]! + tri[2]! - 1) > 1e-9) throw badValue("triangleTimeFactor", `the triangle factors must sum to 1, got ${tri[0]! + tri[1]! + tri[2]!}`);
  }
  return tri;
}

/** The parameters given that are accepted without effect on a walk and transit plan: a warning each. */
function noEffectWarnings(v: PlanValues, given: Given): string[] {
  const warnings: string[] = [];
  const note = (name: string, why: string) => {
    if (given(name)) warnings.push(`${name}: ${why}`);
  };
  const biking = v.mode?.streetMode === "BICYCLE";
  if (v.optimize !== null && v.optimize !== "QUICK" && v.optimize !== "TRANSFERS" && !biking) warnings.push(`optimize=${v.optimize}: shapes bicycle routes only, no effect on walk and transit plans (as in OTP1)`);
  for (const f of ["triangleSafetyFactor", "triangleSlopeFactor", "triangleTimeFactor"]) if (!(biking && v.optimize === "TRIANGLE")) note(f, "used only with mode BICYCLE and optimize=TRIANGLE");
  if (v.mode?.streetMode !== "BICYCLE") note("bikeSpeed", "no effect without mode BICYCLE");
  for (const f of ["bikeBoardCost", "bikeSwitchTime", "bikeSwitchCost"]) note(f, "no effect: the bicycle is taken along on transit, at no cost or time");
  note("walkOnStreetReluctance", "no effect: the street engine's pedestrian costing weighs the streets");
  note("carParkCarLegWeight", "no effect: car legs are not available yet");
  note("maxPreTransitTime", "no effect: car legs are not available yet");
  if (v.locale && !/^en\b|^en[_-]/i.test(v.locale)) warnings.push(`locale: answers are in English only (${v.locale} not available)`);
  return warnings;
}

/** OTP1's routing criteria of the request (costs: null when it names no cost parameter). */
function planCriteria(v: PlanValues, slacks: { boardSlack: number; alightSlack: number; minTransferTime: number }, costs: PlanCosts | null): PlanCriteria {
  return {
    bannedRoutes: v.bannedRoutes,
    whiteListedRoutes: v.whiteListedRoutes,
    preferredRoutes: v.preferredRoutes,
    unpreferredRoutes: v.unpreferredRoutes,
    bannedAgencies: v.bannedAgencies,
    whiteListedAgencies: v.whiteListedAgencies,
    preferredAgencies: v.preferredAgencies,
    unpreferredAgencies: v.unpreferredAgencies,
    bannedTrips: v.bannedTrips,
    bannedStops: v.bannedStops,
    bannedStopsHard: v.bannedStopsHard,
    startTransitStopId: v.startTransitStopId || null,
    boardSlack: slacks.boardSlack,
    alightSlack: slacks.alightSlack,
    minTransferTime: slacks.minTransferTime,
    maxHours: v.maxHours,
    useRequestedDateTimeInMaxHours: v.useRequestedDateTimeInMaxHours,
    disableRemainingWeightHeuristic: v.disableRemainingWeightHeuristic,
    costs,
  };
}

/** A value refused after parsing (between parameters): INVALID_PARAMETER naming it. */
function badValue(name: string, message: string) {
  return invalidParameter(name, message);
}

/**
 * OTP mode name of a GTFS route_type, exactly as OpenTripPlanner 1 maps it
 * (`GtfsLibrary.getTraverseMode`, dev-1.x): the extended (TPEG / HVT) ranges first, then the basic
 * types 0-7. OTP1 has no TROLLEYBUS, MONORAIL or COACH mode: coach (200-299) and trolleybus (800)
 * services are BUS, 401-402 SUBWAY, the rest of 300-499 RAIL, self drive (1600-1699) CAR. Types
 * OTP1 refuses (taxi 1500-1599, basic 11 trolleybus and 12 monorail, unknown numbers: its graph build
 * rejects such a route) get the nearest OTP1 mode instead: 11 BUS, 12 RAIL, anything else BUS.
 */
export function modeOfRouteType(t: number): string {
  if (t >= 100 && t < 200) return "RAIL"; // railway service
  if (t >= 200 && t < 300) return "BUS"; // coach service
  if (t >= 300 && t < 500) return t >= 401 && t <= 402 ? "SUBWAY" : "RAIL"; // suburban and urban railway
  if (t >= 500 && t < 700) return "SUBWAY"; // metro and underground
  if (t >= 700 && t < 900) return "BUS"; // bus and trolleybus
  if (t >= 900 && t < 1000) return "TRAM";
  if (t >= 1000 && t < 1100) return "FERRY"; // water transport
  if (t >= 1100 && t < 1200) return "AIRPLANE";
  if (t >= 1200 && t < 1300) return "FERRY";
  if (t >= 1300 && t < 1400) return "GONDOLA"; // telecabin
  if (t >= 1400 && t < 1500) return "FUNICULAR";
  if (t >= 1600 && t < 1700) return "CAR"; // self drive
  switch (t) {
    case 0: return "TRAM";
    case 1: return "SUBWAY";
    case 2: return "RAIL";
    case 3: return "BUS";
    case 4: return "FERRY";
    case 5: return "CABLE_CAR";
    case 6: return "GONDOLA";
    case 7: return "FUNICULAR";
    case 12: return "RAIL"; // monorail: OTP1 refuses it
  }
  return "BUS"; // taxi (1500-1599), trolleybus (11) and unknown types: OTP1 refuses them
}
