/**
 * The planning fields' arguments as the planner's typed query (server/planner/plan-params.ts):
 * `planConnection`'s (OTP 2.5+: origin/destination, dateTime, modes, preferences, locale) and the
 * deprecated `plan`'s (OTP1-like: fromPlace/toPlace, date, time, transportModes, ...). Both are
 * written as the planner's parameters and parsed by its own parser (parsePlanParams), so defaults,
 * clamps and refusals are the REST API's; what OTP2 has and the planner does not is refused with
 * BAD_USER_INPUT (rental, parking, flex, via points) or, where it changes nothing the planner can
 * do, ignored (docs/api-graphql.md, "Planning", lists them).
 *
 * OTP's input objects carry defaults (graphql-js fills them in), so a preference equal to OTP's
 * schema default cannot be told from an absent one: it is taken as absent, and the planner's own
 * default applies (e.g. transfer slack 0 s rather than OTP2's 2 min, walk reluctance only when a
 * cost is named).
 */
import type { PlanQuery } from "../../planner/public.ts";
import { parsePlanParams } from "../../planner/public.ts";
import type { TransitSnapshot } from "../../transit-data.ts";
import { parseGtfsId } from "../ids.ts";
import { badInput, parseDuration, parseOffsetDateTime } from "./wire.ts";

/** A place as the planner takes it, or the reason it is not one (a stop id naming nothing: LOCATION_NOT_FOUND). */
export type ResolvedPlace = { ok: true; label: string; lat: number; lon: number } | { ok: false; field: "FROM" | "TO"; message: string };

/** OTP2's transit modes as the planner's (OTP1 names, as modeOfRouteType gives routes): coaches and trolleybuses are buses, monorails rail. */
const TRANSIT_MODE: Record<string, string | null> = {
  AIRPLANE: "AIRPLANE", BUS: "BUS", CABLE_CAR: "CABLE_CAR", COACH: "BUS", FERRY: "FERRY", FUNICULAR: "FUNICULAR", GONDOLA: "GONDOLA",
  MONORAIL: "RAIL", RAIL: "RAIL", SUBWAY: "SUBWAY", TRAM: "TRAM", TROLLEYBUS: "BUS", CARPOOL: null, TAXI: null,
};
const ALL_TRANSIT = ["TRAM", "SUBWAY", "RAIL", "BUS", "FERRY", "CABLE_CAR", "GONDOLA", "FUNICULAR", "AIRPLANE"];

/** The planner's `mode` list of some transit modes (null: every mode, written TRANSIT). */
function transitList(modes: Set<string> | null): string {
  if (!modes || ALL_TRANSIT.every((m) => modes.has(m))) return "TRANSIT";
  return [...modes].join(",");
}

const coord = (x: number) => (Number.isInteger(x) ? String(x) : x.toFixed(7));

/** A coordinate pair, checked (OTP's CoordinateValue scalar is passed through untouched). */
function checkedCoordinate(lat: unknown, lon: unknown, field: string): { lat: number; lon: number } {
  const la = typeof lat === "string" ? Number(lat) : lat;
  const lo = typeof lon === "string" ? Number(lon) : lon;
  if (typeof la !== "number" || typeof lo !== "number" || !Number.isFinite(la) || !Number.isFinite(lo) || la < -90 || la > 90 || lo < -180 || lo > 180) {
    throw badInput(`${field}: latitude must be a number in [-90, 90] and longitude in [-180, 180]`, field);
  }
  return { lat: la, lon: lo };
}

/** A stop or station by GTFS id (`FEED:ID`): its position; LOCATION_NOT_FOUND when it names nothing. */
function stopPlace(snap: TransitSnapshot | null, id: string, label: string | null, field: "FROM" | "TO", arg: string): ResolvedPlace {
  const g = parseGtfsId(id);
  if (!g) throw badInput(`${arg}: "${id.slice(0, 200)}" is not a stop id (FEED:ID)`, arg);
  const s = snap?.stopById(g.feed, g.id) ?? null;
  if (!s || s.lat === null || s.lon === null) return { ok: false, field, message: `${arg}: no stop or station ${id.slice(0, 200)}` };
  return { ok: true, label: label ?? s.name ?? id, lat: s.lat, lon: s.lon };
}

interface LabeledLocation {
  label?: string | null;
  location?: { coordinate?: { latitude: unknown; longitude: unknown } | null; stopLocation?: { stopLocationId: string } | null } | null;
}

/** planConnection's origin or destination: a coordinate or a stop location (exactly one). */
export function labeledPlace(snap: TransitSnapshot | null, loc: LabeledLocation, field: "FROM" | "TO"): ResolvedPlace {
  const arg = field === "FROM" ? "origin" : "destination";
  const c = loc.location?.coordinate, st = loc.location?.stopLocation;
  if ((c ? 1 : 0) + (st ? 1 : 0) !== 1) throw badInput(`${arg}.location: give exactly one of coordinate and stopLocation`, arg);
  if (st) return stopPlace(snap, st.stopLocationId, loc.label ?? null, field, `${arg}.location.stopLocation.stopLocationId`);
  const p = checkedCoordinate(c!.latitude, c!.longitude, `${arg}.location.coordinate`);
  return { ok: true, label: loc.label ?? (field === "FROM" ? "Origin" : "Destination"), ...p };
}

/** `plan`'s fromPlace/toPlace ("lat,lon", "Name::lat,lon" or a stop id, "Name::FEED:ID") or from/to coordinates. */
export function legacyPlace(snap: TransitSnapshot | null, text: string | null | undefined, coords: { lat: number; lon: number; address?: string | null } | null | undefined, field: "FROM" | "TO"): ResolvedPlace {
  const arg = field === "FROM" ? "fromPlace" : "toPlace";
  const fallback = field === "FROM" ? "Origin" : "Destination";
  if (text != null && text.trim() !== "") {
    const sep = text.lastIndexOf("::");
    const label = sep >= 0 ? text.slice(0, sep) : null;
    const rest = (sep >= 0 ? text.slice(sep + 2) : text).trim();
    const m = /^(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)$/.exec(rest);
    if (m) return { ok: true, label: label ?? fallback, ...checkedCoordinate(Number(m[1]), Number(m[2]), arg) };
    return stopPlace(snap, rest, label, field, arg);
  }
  if (coords) return { ok: true, label: coords.address ?? fallback, ...checkedCoordinate(coords.lat, coords.lon, field === "FROM" ? "from" : "to") };
  throw badInput(`${arg} (or ${field === "FROM" ? "from" : "to"}) is required`, arg);
}

/** The planner's parameters, as the REST API would get them, parsed by the planner's own parser. */
export type RawParams = Record<string, string | undefined>;
const set = (raw: RawParams, k: string, v: unknown) => {
  if (v !== null && v !== undefined) raw[k] = String(v);
};
/** A place as the planner's `Name::lat,lon` parameter. */
export const placeParam = (p: { label: string; lat: number; lon: number }) => `${p.label.replace(/::/g, ":")}::${coord(p.lat)},${coord(p.lon)}`;

/** Local date and seconds into it (the planner's date/time) of an instant, in the clock of the origin. */
export function localDateTime(unixSec: number, tz: string, parts: (u: number, tz: string) => { day: number; sec: number }): { date: string; time: string } {
  const { day, sec } = parts(unixSec, tz);
  return { date: new Date(day * 86400_000).toISOString().slice(0, 10), time: String(sec) };
}

// ---------------------------------------------------------------- planConnection

export interface PlanConnectionArgs {
  origin: LabeledLocation;
  destination: LabeledLocation;
  dateTime?: { earliestDeparture?: unknown; latestArrival?: unknown } | null;
  searchWindow?: unknown;
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
  modes?: PlanModes | null;
  preferences?: Preferences | null;
  locale?: string | null;
  via?: unknown[] | null;
  itineraryFilter?: unknown;
}

interface PlanModes {
  direct?: string[] | null;
  directOnly?: boolean | null;
  transitOnly?: boolean | null;
  transit?: { access?: string[] | null; egress?: string[] | null; transfer?: string[] | null; transit?: { mode: string; cost?: unknown }[] | null } | null;
}

interface Preferences {
  accessibility?: { wheelchair?: { enabled?: boolean | null } | null } | null;
  street?: { walk?: { speed?: number | null; reluctance?: number | null; boardCost?: number | null } | null; bicycle?: { speed?: number | null } | null; car?: unknown; scooter?: unknown } | null;
  transit?: {
    board?: { slack?: unknown; waitReluctance?: number | null } | null;
    alight?: { slack?: unknown } | null;
    transfer?: { slack?: unknown; cost?: number | null; maximumTransfers?: number | null; maximumAdditionalTransfers?: number | null } | null;
    timetable?: { excludeRealTimeUpdates?: boolean | null } | null;
    filters?: { include?: { routes?: string[] | null; agencies?: string[] | null }[] | null; exclude?: { routes?: string[] | null; agencies?: string[] | null }[] | null }[] | null;
  } | null;
}

/** What a planConnection asks besides time and paging: the planner's parameters and which itineraries it wants. */
export interface ConnectionQuery {
  raw: RawParams;
  /** itineraries without a ride (walking, cycling all the way) are wanted */
  direct: boolean;
  /** only itineraries without a ride */
  directOnly: boolean;
}

const STREET_MODES = new Set(["WALK", "BICYCLE", "CAR"]);

/** planConnection's modes and preferences as planner parameters (no places, time or window yet). */
export function connectionQuery(a: PlanConnectionArgs): ConnectionQuery {
  if (a.via && a.via.length) throw badInput("via: planning through via locations is not available yet", "via");
  const raw: RawParams = {};
  const m = a.modes ?? {};
  const direct = m.direct ?? ["WALK"];
  const access = m.transit?.access ?? ["WALK"];
  const egress = m.transit?.egress ?? ["WALK"];
  const transfer = m.transit?.transfer ?? ["WALK"];
  for (const [name, list] of [["modes.direct", direct], ["modes.transit.access", access], ["modes.transit.egress", egress]] as const) {
    for (const x of list) if (!STREET_MODES.has(x)) throw badInput(`${name}: ${x} is not available yet (rental, parking, pick-up and flex legs); use WALK, BICYCLE or CAR`, name);
  }
  for (const x of transfer) if (x !== "WALK") throw badInput(`modes.transit.transfer: transfers are walked (${x} is not available)`, "modes.transit.transfer");
  if (m.directOnly && m.transitOnly) throw badInput("modes: directOnly and transitOnly exclude each other", "modes");
  let transit: Set<string> | null = null;
  if (m.transit?.transit) {
    transit = new Set(m.transit.transit.flatMap((t) => (TRANSIT_MODE[t.mode] ? [TRANSIT_MODE[t.mode]!] : [])));
    if (transit.size === 0 && !m.directOnly) throw badInput("modes.transit.transit: none of these modes runs in a GTFS timetable here (CARPOOL, TAXI)", "modes.transit.transit");
  }
  if (m.directOnly) {
    if (direct.length === 0) throw badInput("modes: directOnly needs a direct mode", "modes.direct");
    // one street mode all the way: the first asked (WALK, BICYCLE, CAR)
    raw.mode = direct[0]!;
  } else {
    if (access.includes("CAR") || egress.includes("CAR")) throw badInput("modes.transit: CAR access or egress (park and ride, drop-off) is not available yet", "modes.transit");
    const bike = access.includes("BICYCLE") || egress.includes("BICYCLE");
    raw.mode = `${bike ? "BICYCLE" : "WALK"},${transitList(transit)}`;
  }
  const street = raw.mode.split(",")[0]!;
  const p = a.preferences ?? {};
  const walk = p.street?.walk ?? {};
  // values equal to OTP's schema defaults are taken as absent (see the module comment)
  if (walk.speed != null && walk.speed !== 1.33) set(raw, "walkSpeed", walk.speed);
  if (walk.reluctance != null && walk.reluctance !== 15) set(raw, "walkReluctance", walk.reluctance);
  if (walk.boardCost != null && walk.boardCost !== 600) set(raw, "walkBoardCost", walk.boardCost);
  const bike = p.street?.bicycle ?? {};
  if (bike.speed != null && bike.speed !== 5 && street === "BICYCLE") set(raw, "bikeSpeed", bike.speed);
  const t = p.transit ?? {};
  const slack = (v: unknown, field: string, dflt: number) => {
    if (v == null) return null;
    const s = parseDuration(v, field);
    if (s < 0 || s > 86_400) throw badInput(`${field}: must be between PT0S and P1D`, field);
    return s === dflt ? null : s;
  };
  const board = slack(t.board?.slack, "preferences.transit.board.slack", 0);
  const alight = slack(t.alight?.slack, "preferences.transit.alight.slack", 0);
  const transferSlack = slack(t.transfer?.slack, "preferences.transit.transfer.slack", 120);
  set(raw, "boardSlack", board);
  set(raw, "alightSlack", alight);
  // the planner (as OTP1) wants the transfer slack to cover boarding and alighting slack
  if (transferSlack !== null || board !== null || alight !== null) set(raw, "minTransferTime", Math.max(transferSlack ?? 0, (board ?? 0) + (alight ?? 0)));
  if (t.board?.waitReluctance != null && t.board.waitReluctance !== 1) set(raw, "waitReluctance", t.board.waitReluctance);
  if (t.transfer?.cost != null && t.transfer.cost !== 0) set(raw, "transferPenalty", t.transfer.cost);
  if (t.transfer?.maximumTransfers != null && t.transfer.maximumTransfers !== 11) set(raw, "maxTransfers", t.transfer.maximumTransfers);
  if (t.timetable?.excludeRealTimeUpdates) raw.ignoreRealtimeUpdates = "true";
  const lists = { bannedRoutes: [] as string[], bannedAgencies: [] as string[], whiteListedRoutes: [] as string[], whiteListedAgencies: [] as string[] };
  for (const f of t.filters ?? []) {
    for (const sel of f.exclude ?? []) lists.bannedRoutes.push(...(sel.routes ?? [])), lists.bannedAgencies.push(...(sel.agencies ?? []));
    for (const sel of f.include ?? []) lists.whiteListedRoutes.push(...(sel.routes ?? [])), lists.whiteListedAgencies.push(...(sel.agencies ?? []));
  }
  for (const [k, v] of Object.entries(lists)) if (v.length) raw[k] = v.join(",");
  if (p.accessibility?.wheelchair?.enabled) raw.wheelchair = "true";
  set(raw, "locale", a.locale);
  const wantsDirect = !m.transitOnly && direct.includes(street);
  return { raw, direct: wantsDirect || m.directOnly === true, directOnly: m.directOnly === true };
}

/** planConnection's dateTime: the instant and whether it is the latest arrival (none: now, departing). */
export function connectionTime(a: PlanConnectionArgs, nowSec: number): { sec: number; arriveBy: boolean } {
  const d = a.dateTime ?? {};
  if (d.earliestDeparture != null && d.latestArrival != null) throw badInput("dateTime: give earliestDeparture or latestArrival, not both", "dateTime");
  if (d.latestArrival != null) return { sec: parseOffsetDateTime(d.latestArrival, "dateTime.latestArrival"), arriveBy: true };
  if (d.earliestDeparture != null) return { sec: parseOffsetDateTime(d.earliestDeparture, "dateTime.earliestDeparture"), arriveBy: false };
  return { sec: nowSec, arriveBy: false };
}

// ---------------------------------------------------------------- plan (deprecated)

export interface LegacyPlanArgs {
  fromPlace?: string | null;
  toPlace?: string | null;
  from?: { lat: number; lon: number; address?: string | null } | null;
  to?: { lat: number; lon: number; address?: string | null } | null;
  date?: string | null;
  time?: string | null;
  arriveBy?: boolean | null;
  transportModes?: { mode: string; qualifier?: string | null }[] | null;
  numItineraries?: number | null;
  pageCursor?: string | null;
  via?: unknown[] | null;
  banned?: { routes?: string | null; agencies?: string | null; trips?: string | null } | null;
  unpreferred?: { routes?: string | null; agencies?: string | null; unpreferredCost?: string | null } | null;
  [k: string]: unknown;
}

/** `plan` arguments passed to the planner under the same name (OTP2 took them from OTP1's API). */
const SAME_NAME = ["arriveBy", "numItineraries", "walkReluctance", "walkSpeed", "wheelchair", "searchWindow", "boardSlack", "alightSlack", "minTransferTime", "transferPenalty", "walkBoardCost", "waitReluctance", "maxTransfers", "nonpreferredTransferPenalty", "ignoreRealtimeUpdates", "locale", "optimize", "startTransitStopId"];

/** The deprecated `plan`'s arguments (places resolved) as planner parameters. */
export function legacyQuery(a: LegacyPlanArgs, from: { label: string; lat: number; lon: number }, to: { label: string; lat: number; lon: number }): RawParams {
  if (a.pageCursor) throw badInput("pageCursor: paging is planConnection's (first/after); plan answers one search", "pageCursor");
  if (a.via && a.via.length) throw badInput("via: planning through via locations is not available yet", "via");
  const raw: RawParams = { fromPlace: placeParam(from), toPlace: placeParam(to) };
  set(raw, "date", a.date);
  set(raw, "time", a.time);
  for (const k of SAME_NAME) set(raw, k, a[k]);
  if (a.bikeSpeed != null) set(raw, "bikeSpeed", a.bikeSpeed);
  if (a.transportModes && a.transportModes.length) {
    const out: string[] = [];
    for (const t of a.transportModes) {
      if (t.qualifier) throw badInput(`transportModes: ${t.mode}_${t.qualifier} is not available yet (rental, parking, hailing, pick-up legs)`, "transportModes");
      if (t.mode === "WALK" || t.mode === "TRANSIT" || t.mode === "BICYCLE" || t.mode === "CAR") out.push(t.mode);
      else if (t.mode in TRANSIT_MODE) {
        const x = TRANSIT_MODE[t.mode];
        if (x) out.push(x);
      } else throw badInput(`transportModes: ${t.mode} is not available yet`, "transportModes");
    }
    if (out.length === 0) throw badInput("transportModes: none of these modes runs here (CARPOOL, TAXI)", "transportModes");
    raw.mode = [...new Set(out)].join(",");
  }
  if (a.banned?.routes) raw.bannedRoutes = a.banned.routes;
  if (a.banned?.agencies) raw.bannedAgencies = a.banned.agencies;
  if (a.banned?.trips) raw.bannedTrips = a.banned.trips;
  if (a.unpreferred?.routes) raw.unpreferredRoutes = a.unpreferred.routes;
  if (a.unpreferred?.agencies) raw.unpreferredAgencies = a.unpreferred.agencies;
  return raw;
}

/** The planner's query of raw parameters (INVALID_PARAMETER errors become BAD_USER_INPUT in wire.ts planFailure). */
export function plannerQuery(raw: RawParams): PlanQuery {
  return parsePlanParams(raw);
}
