/**
 * OTP1 plan parameters, each described once as a zod schema (server/params.ts): parsing, defaults,
 * the error message naming the parameter, and the description /docs shows (the README section
 * "Transit planner" lists them). A malformed value is INVALID_PARAMETER, answered by the planner's
 * renderer as OTP's BOGUS_PARAMETER with HTTP 400. Empty values count as absent.
 */
import { z } from "zod";
import { type ParamSchema, type ParamValues, parseParams, reject } from "../params.ts";

export interface Place {
  name: string;
  lat: number;
  lon: number;
}

export interface PlanParams {
  from: Place;
  to: Place;
  /** local date (days since epoch) and seconds into it, in the dataset timezone; null = now */
  date: number | null;
  timeSec: number | null;
  arriveBy: boolean;
  walkOnly: boolean;
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
}

export const DEFAULTS = {
  maxWalkDistance: 1609,
  walkSpeed: 1.33,
  numItineraries: 3,
  maxTransfers: 5,
  searchWindow: 3600,
} as const;
export const LIMITS = { maxWalkDistance: 10_000, numItineraries: 20, maxTransfers: 10, searchWindow: 6 * 3600 } as const;

export const TRANSIT_MODES = ["TRAM", "SUBWAY", "RAIL", "BUS", "FERRY", "CABLE_CAR", "GONDOLA", "FUNICULAR", "AIRPLANE", "TROLLEYBUS", "MONORAIL", "COACH"];
const OTHER_MODES = ["WALK", "TRANSIT", "BICYCLE", "CAR", "BICYCLE_RENT", "BICYCLE_PARK", "CAR_PARK", "CAR_RENT", "FLEX"];

type Ctx = z.RefinementCtx;

/** A parameter: `parse` the present raw text; `absent` when missing. JSON Schema and description for the docs. */
function param<T, A>(json: Record<string, unknown>, description: string, absent: A, parse: (raw: string, ctx: Ctx) => T): ParamSchema<T | A> {
  return z
    .string()
    .optional()
    .transform((raw, ctx) => (raw === undefined ? absent : parse(raw, ctx)))
    .meta({ description, ...json });
}

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

/** Comma list of OTP modes: transit modes limit the routes, WALK alone (no TRANSIT) plans a walk. */
const mode = param(
  { type: "string" },
  `comma list of WALK, TRANSIT, ${TRANSIT_MODES.join(", ")}; default all transit. Named transit modes limit the routes; WALK without a transit mode plans a walk only`,
  null,
  (raw, ctx): { walkOnly: boolean; transitModes: Set<string> | null } => {
    const modes = raw
      .split(",")
      .map((m) => m.trim().toUpperCase())
      .filter(Boolean);
    for (const m of modes) if (!TRANSIT_MODES.includes(m) && !OTHER_MODES.includes(m)) return reject(ctx, `mode ${m} is unknown; use a comma list of WALK, TRANSIT, ${TRANSIT_MODES.join(", ")}`);
    const explicit = modes.filter((m) => TRANSIT_MODES.includes(m));
    if (explicit.length) return { walkOnly: false, transitModes: new Set(explicit) };
    return { walkOnly: !modes.includes("TRANSIT"), transitModes: null };
  },
);

const bool = (name: string, description: string) =>
  param({ type: "string", enum: ["true", "false", "1", "0", "yes", "no"], default: "false" }, description, false, (raw, ctx) => {
    const s = raw.toLowerCase();
    if (s === "true" || s === "1" || s === "yes") return true;
    if (s === "false" || s === "0" || s === "no") return false;
    return reject(ctx, `${name} must be true or false, got ${JSON.stringify(raw)}`);
  });

function number(name: string, dflt: number, min: number, max: number, description: string, integer = false) {
  return param({ type: integer ? "integer" : "number", minimum: min, maximum: max, default: dflt }, description, dflt, (raw, ctx) => {
    const n = Number(raw);
    if (!Number.isFinite(n) || (integer && !Number.isInteger(n))) return reject(ctx, `${name} must be ${integer ? "an integer" : "a number"}, got ${JSON.stringify(raw)}`);
    if (n < min || n > max) return reject(ctx, `${name} must be between ${min} and ${max}, got ${n}`);
    return n;
  });
}

const maxWalk = (name: string, description: string) => number(name, DEFAULTS.maxWalkDistance, 0, LIMITS.maxWalkDistance, description);
const walkSpeed = (name: string, description: string) => number(name, DEFAULTS.walkSpeed, 0.1, 10, description);
const itineraries = (name: string, description: string) => number(name, DEFAULTS.numItineraries, 1, LIMITS.numItineraries, description, true);

/** The plan endpoint's parameters, in validation order (aliases follow their parameter). */
export const PLAN_PARAMS = {
  fromPlace: place("fromPlace", "Origin", "origin: lat,lon or Name::lat,lon"),
  toPlace: place("toPlace", "Destination", "destination: lat,lon or Name::lat,lon"),
  date,
  time,
  mode,
  arriveBy: bool("arriveBy", "true: time is the latest arrival instead of the earliest departure"),
  maxWalkDistance: maxWalk("maxWalkDistance", "meters walked to, from and between stops"),
  maxWalkingDistance: maxWalk("maxWalkingDistance", "alias of maxWalkDistance"),
  walkSpeed: walkSpeed("walkSpeed", "walking speed, m/s"),
  walkingSpeed: walkSpeed("walkingSpeed", "alias of walkSpeed"),
  numItineraries: itineraries("numItineraries", "itineraries wanted"),
  maxItineraries: itineraries("maxItineraries", "alias of numItineraries"),
  maxTransfers: number("maxTransfers", DEFAULTS.maxTransfers, 0, LIMITS.maxTransfers, "transfers at most", true),
  wheelchair: bool("wheelchair", "only wheelchair-accessible trips and stops"),
  showIntermediateStops: bool("showIntermediateStops", "list the stops passed on each ride"),
  includeEarliestArrivals: bool("includeEarliestArrivals", "add the earliest arrival at every reachable stop (earliestArrivals)"),
  searchWindow: number("searchWindow", DEFAULTS.searchWindow, 0, LIMITS.searchWindow, "seconds of departures searched after the time (arrivals before it with arriveBy)", true),
};
const PLAN_RULES = { aliases: { maxWalkDistance: ["maxWalkingDistance"], walkSpeed: ["walkingSpeed"], numItineraries: ["maxItineraries"] } };

/** The typed plan query of raw query-string values (absent or empty = not given). Throws INVALID_PARAMETER. */
export function parsePlanParams(q: Record<string, string | undefined>): PlanParams {
  const v: ParamValues<typeof PLAN_PARAMS> = parseParams(PLAN_PARAMS, (name) => (q[name] === "" ? undefined : q[name]), PLAN_RULES);
  return {
    from: v.fromPlace,
    to: v.toPlace,
    date: v.date,
    timeSec: v.time,
    arriveBy: v.arriveBy,
    walkOnly: v.mode?.walkOnly ?? false,
    transitModes: v.mode?.transitModes ?? null,
    maxWalkDistance: v.maxWalkDistance,
    walkSpeed: v.walkSpeed,
    numItineraries: v.numItineraries,
    maxTransfers: v.maxTransfers,
    wheelchair: v.wheelchair,
    showIntermediateStops: v.showIntermediateStops,
    includeEarliestArrivals: v.includeEarliestArrivals,
    searchWindow: v.searchWindow,
  };
}

/** OTP mode name of a GTFS route_type (basic and extended types). */
export function modeOfRouteType(t: number): string {
  switch (t) {
    case 0: return "TRAM";
    case 1: return "SUBWAY";
    case 2: return "RAIL";
    case 3: return "BUS";
    case 4: return "FERRY";
    case 5: return "CABLE_CAR";
    case 6: return "GONDOLA";
    case 7: return "FUNICULAR";
    case 11: return "TROLLEYBUS";
    case 12: return "MONORAIL";
  }
  if (t >= 100 && t < 200) return "RAIL";
  if (t >= 200 && t < 300) return "COACH";
  if (t >= 400 && t < 500) return "SUBWAY";
  if (t >= 700 && t < 800) return "BUS";
  if (t === 800) return "TROLLEYBUS";
  if (t >= 900 && t < 1000) return "TRAM";
  if (t >= 1000 && t < 1100) return "FERRY";
  if (t >= 1100 && t < 1200) return "AIRPLANE";
  if (t >= 1300 && t < 1400) return "GONDOLA";
  if (t >= 1400 && t < 1500) return "FUNICULAR";
  return "BUS";
}
