/**
 * OTP1 plan parameters: parsing and defaults (the README section "Transit planner" lists them). Every malformed value
 * throws PlanParamError naming the parameter, answered as BOGUS_PARAMETER with HTTP 400.
 */

export class PlanParamError extends Error {
  constructor(readonly parameter: string, message: string) {
    super(message);
  }
}

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

export function parsePlace(raw: string | undefined, parameter: string, defaultName: string): Place {
  if (raw === undefined || raw.trim() === "") throw new PlanParamError(parameter, `${parameter} is required (lat,lon or Name::lat,lon)`);
  let name = defaultName;
  let coords = raw.trim();
  const sep = coords.lastIndexOf("::");
  if (sep >= 0) {
    name = coords.slice(0, sep);
    coords = coords.slice(sep + 2);
  }
  const m = /^\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*$/.exec(coords);
  if (!m) throw new PlanParamError(parameter, `${parameter} must be lat,lon or Name::lat,lon, got ${JSON.stringify(raw)}`);
  const lat = Number(m[1]), lon = Number(m[2]);
  if (lat < -90 || lat > 90 || lon < -180 || lon > 180) throw new PlanParamError(parameter, `${parameter}: latitude must be in [-90, 90] and longitude in [-180, 180]`);
  return { name, lat, lon };
}

/** OTP1 lenient dates: YYYY-MM-DD (separators - / _ . :), YYYYMMDD, MM-DD-YYYY. Returns days since epoch. */
export function parseDate(raw: string): number {
  const s = raw.trim().replace(/[-/_:]/g, ".");
  let y: number, mo: number, d: number;
  let m: RegExpExecArray | null;
  if ((m = /^(\d{4})\.(\d{1,2})\.(\d{1,2})$/.exec(s))) [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  else if ((m = /^(\d{4})(\d{2})(\d{2})$/.exec(s))) [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  else if ((m = /^(\d{1,2})\.(\d{1,2})\.(\d{4})$/.exec(s))) [y, mo, d] = [Number(m[3]), Number(m[1]), Number(m[2])];
  else throw new PlanParamError("date", `date must be YYYY-MM-DD (or YYYYMMDD, MM-DD-YYYY), got ${JSON.stringify(raw)}`);
  const t = Date.UTC(y, mo - 1, d);
  const back = new Date(t);
  if (mo < 1 || mo > 12 || back.getUTCDate() !== d || back.getUTCMonth() !== mo - 1) throw new PlanParamError("date", `date ${JSON.stringify(raw)} is not a calendar date`);
  return Math.floor(t / 86400_000);
}

/** OTP1 times: HH:MM[:SS], h:mm am/pm, or integer seconds past midnight. */
export function parseTime(raw: string): number {
  const s = raw.trim().toLowerCase();
  let m: RegExpExecArray | null;
  if (/^\d+$/.test(s)) {
    const v = Number(s);
    if (v > 48 * 3600) throw new PlanParamError("time", "time in seconds must be at most 172800");
    return v;
  }
  if ((m = /^(\d{1,2}):(\d{2})(?::(\d{2}))?\s*(am|pm)?$/.exec(s))) {
    let h = Number(m[1]);
    const mi = Number(m[2]), sec = Number(m[3] ?? 0);
    if (m[4]) {
      if (h < 1 || h > 12) throw new PlanParamError("time", `time ${JSON.stringify(raw)}: hour must be 1..12 with am/pm`);
      h = (h % 12) + (m[4] === "pm" ? 12 : 0);
    }
    if (h > 47 || mi > 59 || sec > 59) throw new PlanParamError("time", `time ${JSON.stringify(raw)} is out of range`);
    return h * 3600 + mi * 60 + sec;
  }
  throw new PlanParamError("time", `time must be HH:MM[:SS], h:mmam/pm or seconds past midnight, got ${JSON.stringify(raw)}`);
}

function bool(q: Record<string, string | undefined>, name: string, dflt: boolean): boolean {
  const v = q[name];
  if (v === undefined || v === "") return dflt;
  const s = v.toLowerCase();
  if (s === "true" || s === "1" || s === "yes") return true;
  if (s === "false" || s === "0" || s === "no") return false;
  throw new PlanParamError(name, `${name} must be true or false, got ${JSON.stringify(v)}`);
}

function number(q: Record<string, string | undefined>, names: string[], dflt: number, min: number, max: number, integer = false): number {
  for (const name of names) {
    const v = q[name];
    if (v === undefined || v === "") continue;
    const n = Number(v);
    if (!Number.isFinite(n) || (integer && !Number.isInteger(n))) throw new PlanParamError(name, `${name} must be ${integer ? "an integer" : "a number"}, got ${JSON.stringify(v)}`);
    if (n < min || n > max) throw new PlanParamError(name, `${name} must be between ${min} and ${max}, got ${n}`);
    return n;
  }
  return dflt;
}

export function parsePlanParams(q: Record<string, string | undefined>): PlanParams {
  const from = parsePlace(q.fromPlace, "fromPlace", "Origin");
  const to = parsePlace(q.toPlace, "toPlace", "Destination");
  const date = q.date ? parseDate(q.date) : null;
  const timeSec = q.time ? parseTime(q.time) : null;
  let walkOnly = false;
  let transitModes: Set<string> | null = null;
  if (q.mode) {
    const modes = q.mode.split(",").map((m) => m.trim().toUpperCase()).filter(Boolean);
    for (const m of modes) if (!TRANSIT_MODES.includes(m) && !OTHER_MODES.includes(m)) throw new PlanParamError("mode", `mode ${m} is unknown; use a comma list of WALK, TRANSIT, ${TRANSIT_MODES.join(", ")}`);
    const explicit = modes.filter((m) => TRANSIT_MODES.includes(m));
    if (explicit.length) transitModes = new Set(explicit);
    else if (!modes.includes("TRANSIT")) walkOnly = true;
  }
  return {
    from,
    to,
    date,
    timeSec,
    arriveBy: bool(q, "arriveBy", false),
    walkOnly,
    transitModes,
    maxWalkDistance: number(q, ["maxWalkDistance", "maxWalkingDistance"], DEFAULTS.maxWalkDistance, 0, LIMITS.maxWalkDistance),
    walkSpeed: number(q, ["walkSpeed", "walkingSpeed"], DEFAULTS.walkSpeed, 0.1, 10),
    numItineraries: number(q, ["numItineraries", "maxItineraries"], DEFAULTS.numItineraries, 1, LIMITS.numItineraries, true),
    maxTransfers: number(q, ["maxTransfers"], DEFAULTS.maxTransfers, 0, LIMITS.maxTransfers, true),
    wheelchair: bool(q, "wheelchair", false),
    showIntermediateStops: bool(q, "showIntermediateStops", false),
    includeEarliestArrivals: bool(q, "includeEarliestArrivals", false),
    searchWindow: number(q, ["searchWindow"], DEFAULTS.searchWindow, 0, LIMITS.searchWindow, true),
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
