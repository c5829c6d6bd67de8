// Purpose: travel times from one origin to a set of destinations over a window, for HTTP (POST /api/v2/analysis/travel-times).
/**
 * The analysis for one origin, as the HTTP endpoint serves it (routes.ts): a JSON body checked
 * here (a bad field is INVALID_PARAMETER naming it: 400), the same core as `interchange analyze`
 * (travel-times.ts), walks on the streets through the street paths port when a street network is
 * there (street-walks.ts), straight lines otherwise. Returns data; routes.ts renders it as JSON or
 * Arrow.
 */
import type { StopWalk } from "../api.ts";
import type { PlanService } from "../plan-service.ts";
import { TRANSIT_MODES } from "../plan-params.ts";
import { dayToIso, isoToDay } from "../timetable/calendar.ts";
import { invalidParameter } from "../../errors.ts";
import type { StreetPaths } from "../../street-paths.ts";
import { type AccessMode, StreetWalks } from "./street-walks.ts";
import { parseWindow, TravelTimeAnalysis, windowSteps, type AnalysisPoint, type AnalysisSettings } from "./travel-times.ts";

export const TRAVEL_TIMES_PATH = "/api/v2/analysis/travel-times";

/** Most destinations in one request, and the longest window (minutes). */
export const TRAVEL_TIMES_LIMITS = { destinations: 500, windowMin: 240 };

export interface TravelTimesRequest {
  from: { lat: number; lon: number };
  to: AnalysisPoint[];
  settings: AnalysisSettings;
  /** the origin's end (to the first stop, and all the way) and the destinations' (from the last stop): absent = walking */
  access?: AccessMode;
  egress?: AccessMode;
}

export interface TravelTimesAnswer {
  date: string;
  window: string;
  timeZone: string;
  departures: number;
  percentiles: number[];
  walks: "streets" | "straight lines";
  /** how the origin's end (to the first stop, and all the way) and the destinations' (from the last stop) are travelled */
  accessMode: "WALK" | "BICYCLE";
  egressMode: "WALK" | "BICYCLE";
  /** with walks on the streets: the points whose walks kept straight lines (off the streets, or the engine did not answer in time) */
  offStreets?: { origin: boolean; destinations: number };
  /** per destination, in the request's order: minutes per percentile, null = unreachable */
  destinations: { id: string; lat: number; lon: number; travelTimes: (number | null)[] }[];
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function point(v: unknown, name: string): { lat: number; lon: number } {
  if (!isObj(v) || typeof v.lat !== "number" || typeof v.lon !== "number" || !(Math.abs(v.lat) <= 90) || !(Math.abs(v.lon) <= 180)) throw invalidParameter(name, `${name} must be {"lat": number, "lon": number} with a valid latitude and longitude`);
  return { lat: v.lat, lon: v.lon };
}

function num(body: Record<string, unknown>, name: string, dflt: number, min: number, max: number, integer: boolean): number {
  const v = body[name] ?? dflt;
  if (typeof v !== "number" || !Number.isFinite(v) || v < min || v > max || (integer && !Number.isInteger(v))) throw invalidParameter(name, `${name} must be ${integer ? "an integer" : "a number"} from ${min} to ${max}`);
  return v;
}

/** The request body (already parsed JSON) checked and typed. Throws INVALID_PARAMETER naming the first bad field. */
export function parseTravelTimesRequest(body: unknown): TravelTimesRequest {
  if (!isObj(body)) throw invalidParameter("body", "the body must be a JSON object");
  const from = point(body.from, "from");
  if (!Array.isArray(body.to) || body.to.length === 0 || body.to.length > TRAVEL_TIMES_LIMITS.destinations) throw invalidParameter("to", `to must be a list of 1 to ${TRAVEL_TIMES_LIMITS.destinations} destinations {"id", "lat", "lon"}`);
  const seen = new Set<string>();
  const to = body.to.map((d, i) => {
    const p = point(d, `to[${i}]`);
    const raw = (d as Record<string, unknown>).id;
    const id = raw === undefined ? String(i) : typeof raw === "string" || typeof raw === "number" ? String(raw) : null;
    if (id === null || seen.has(id)) throw invalidParameter(`to[${i}].id`, "a destination's id must be a string or a number, unique in the list");
    seen.add(id);
    return { id, ...p };
  });
  if (typeof body.date !== "string" || !/^\d{4}-\d{2}-\d{2}$/.test(body.date) || Number.isNaN(Date.parse(`${body.date}T00:00:00Z`))) throw invalidParameter("date", "date must be YYYY-MM-DD");
  const window = parseWindow(typeof body.window === "string" ? body.window : "07:00-09:00");
  if (typeof window === "string") throw invalidParameter("window", window);
  if (window.endSec - window.startSec > TRAVEL_TIMES_LIMITS.windowMin * 60) throw invalidParameter("window", `the window must be at most ${TRAVEL_TIMES_LIMITS.windowMin} minutes`);
  let modes: Set<string> | null = null;
  if (body.modes !== undefined) {
    if (!Array.isArray(body.modes) || body.modes.some((m) => typeof m !== "string" || (m !== "TRANSIT" && !TRANSIT_MODES.includes(m)))) throw invalidParameter("modes", `modes must be a list of TRANSIT or ${TRANSIT_MODES.join(", ")}`);
    modes = body.modes.includes("TRANSIT") ? null : new Set(body.modes as string[]);
  }
  const percentiles = body.percentiles ?? [5, 25, 50, 75, 95];
  if (!Array.isArray(percentiles) || percentiles.length === 0 || percentiles.length > 20 || percentiles.some((p, i) => typeof p !== "number" || !Number.isInteger(p) || p < 1 || p > 100 || (i > 0 && p <= (percentiles[i - 1] as number)))) throw invalidParameter("percentiles", "percentiles must be a list of ascending whole numbers from 1 to 100");
  const maxDurationMin = num(body, "maxDuration", 120, 1, 240, true);
  const settings: AnalysisSettings = {
    day: isoToDay(body.date), windowStartSec: window.startSec, windowEndSec: window.endSec, stepSec: num(body, "step", 1, 1, 60, true) * 60,
    walkSpeed: num(body, "walkSpeed", 1.3, 0.1, 10, false), maxWalkSec: num(body, "maxWalk", 20, 0, 120, false) * 60, maxDurationMin,
    maxTransfers: num(body, "maxTransfers", 4, 0, 8, true), transitModes: modes, percentiles: percentiles as number[],
  };
  windowSteps(settings);
  const cycling: AccessMode = { mode: "BICYCLE", speedMps: num(body, "bikeSpeed", 4.2, 1, 15, false), maxSec: num(body, "maxBike", 20, 1, 120, false) * 60 };
  const access = modeOf(body, "accessMode") === "BICYCLE" ? cycling : undefined;
  const egress = modeOf(body, "egressMode") === "BICYCLE" ? cycling : undefined;
  return { from, to, settings, ...(access ? { access } : {}), ...(egress ? { egress } : {}) };
}

function modeOf(body: Record<string, unknown>, name: string): "WALK" | "BICYCLE" {
  const v = body[name] ?? "WALK";
  if (v !== "WALK" && v !== "BICYCLE") throw invalidParameter(name, `${name} must be WALK or BICYCLE`);
  return v;
}

/** The engine calls one travel-times request has in flight at once. */
const ENGINE_CALLS_AT_ONCE = 2;

/** `fn` over `items`, at most `limit` at once, the results in the items' order. */
async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** Travel times from r.from to each of r.to on the loaded timetable; walks (and rides) on the streets when `streets` has a network. */
export async function travelTimes(service: PlanService, streets: StreetPaths, r: TravelTimesRequest): Promise<TravelTimesAnswer> {
  const s = r.settings;
  const onStreets = streets.available();
  // a bicycle on straight lines would be a guess: refused, as the plan and `interchange analyze` refuse it
  if ((r.access || r.egress) && !onStreets) throw invalidParameter(r.access ? "accessMode" : "egressMode", "BICYCLE needs the street network, and none is loaded");
  const walks = onStreets ? new StreetWalks(streets, s.walkSpeed, s.maxWalkSec, r.access, r.egress) : null;
  let egress: (StopWalk[] | null)[] | undefined;
  if (walks) {
    // a few engine calls at a time (the planner's engine lane has as many slots as cores): all of them
    // at once would queue past the lane's wait and fall back to straight lines, however quiet the host
    egress = await mapLimit(r.to, ENGINE_CALLS_AT_ONCE, (d) => walks.destinationWalks(service, d));
  }
  let analysis: TravelTimeAnalysis;
  try {
    analysis = new TravelTimeAnalysis(service, r.to, s, egress);
  } catch (e) {
    throw invalidParameter("date", (e as Error).message);
  }
  const { access, direct } = walks ? await walks.originWalks(service, analysis, r.from, r.to) : { access: undefined, direct: undefined };
  const res = analysis.origin(r.from, { access, direct });
  const nPct = s.percentiles.length;
  const hhmm = (sec: number) => `${String(Math.floor(sec / 3600)).padStart(2, "0")}:${String(Math.floor(sec / 60) % 60).padStart(2, "0")}`;
  return {
    date: dayToIso(s.day),
    window: `${hhmm(s.windowStartSec)}-${hhmm(s.windowEndSec)}`,
    timeZone: analysis.tz,
    departures: analysis.nSteps,
    percentiles: s.percentiles,
    walks: walks ? "streets" : "straight lines",
    accessMode: r.access ? "BICYCLE" : "WALK",
    egressMode: r.egress ? "BICYCLE" : "WALK",
    ...(walks ? { offStreets: { origin: access === undefined, destinations: egress!.filter((e) => e === null).length } } : {}),
    destinations: r.to.map((d, i) => ({ id: d.id, lat: d.lat, lon: d.lon, travelTimes: Array.from(res.percentiles.subarray(i * nPct, (i + 1) * nPct), (m) => (m === -1 ? null : m)) })),
  };
}
