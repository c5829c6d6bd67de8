/**
 * OTP1's routing criteria (PlanParams.criteria, plan-params.ts) as the search takes them
 * (SearchQuery): banned and whitelisted routes and agencies in the route mask, banned trips in a trip
 * mask (or, banned at some stop positions only, in tripStopBans), banned stops in the stop rules,
 * the slacks, maxHours, and the generalized cost (preferred and unpreferred routes and agencies as
 * per-route penalties) that switches the core to its cost search (raptor/mc.ts). They shape the
 * search itself: nothing found is filtered afterwards.
 *
 * Ids are read as the plan writes them and as OTP1 reads them: `feedId:id` (feedId = the feed's
 * Onestop ID, server/planner/ids.ts), a bare GTFS id (every feed), for routes also OTP1's RouteMatcher
 * forms `feedId__routeId`, `feedId_routeName` and `_routeName` (route name = route_short_name, else
 * route_long_name, underscores read as spaces; an agency_id may stand for the feed id, as in
 * OTP1 1.x where the two were one), for trips and stops also `agencyId:id`. An id the timetable does
 * not know matches nothing, as in OTP1 (a whitelist of unknown ids then allows nothing, as OTP1's
 * does); each one adds a note to PlanParams.warnings.
 */
import { STOP_NO_BOARD, STOP_NO_PASS, type CostModel, type SearchQuery, type StopIdx, type StopWalk } from "./api.ts";
import { invalidParameter } from "../errors.ts";
import { haversineM } from "../../shared/geo.ts";
import { parseScopedId } from "./ids.ts";
import { OTP1_COSTS, type PlanCriteria, type PlanParams } from "./plan-params.ts";
import { TRANSFER_TYPE, type Timetable } from "./timetable/types.ts";

/** What the criteria set in a SearchQuery (spread over the plan's query; empty for a request without criteria). */
export type SearchCriteria = Partial<Pick<SearchQuery, "access" | "routeAllowed" | "tripAllowed" | "stopRules" | "tripStopBans" | "boardSlackSec" | "alightSlackSec" | "transferSlackSec" | "maxDurationSec" | "arrivalLimitSec" | "costs" | "noDestinationPruning">>;

/**
 * The search fields of a plan's criteria. `modes` gives the route mask of the mode filter (undefined:
 * every route); `timeSec` is the requested time (relative to the query's epochSec). Unknown ids add
 * notes to p.warnings; an unknown startTransitStopId is a bad parameter (INVALID_PARAMETER).
 */
export function searchCriteria(tt: Timetable, p: PlanParams, modes: () => Uint8Array | undefined, timeSec: number): SearchCriteria {
  const c = p.criteria;
  if (!hasCriteria(c)) return {};
  const ix = indexOf(tt);
  const out: SearchCriteria = {};
  const warn = (param: string, id: string, what: string) => note(p, `${param}: no ${what} ${JSON.stringify(id)} in the loaded timetable (ignored, as OTP1 ignores it)`);

  // routes: bans and whitelists in the route mask
  if (c.bannedRoutes.length || c.bannedAgencies.length || c.whiteListedRoutes.length || c.whiteListedAgencies.length) {
    const bannedG = routeSet(ix, c.bannedRoutes, (id) => warn("bannedRoutes", id, "route"));
    const bannedA = agencySet(ix, c.bannedAgencies, (id) => warn("bannedAgencies", id, "agency"));
    const whiteG = routeSet(ix, c.whiteListedRoutes, (id) => warn("whiteListedRoutes", id, "route"));
    const whiteA = agencySet(ix, c.whiteListedAgencies, (id) => warn("whiteListedAgencies", id, "agency"));
    // OTP1 RoutingRequest.routeIsBanned: a whitelist given (known ids or not) allows only what it names
    const whitelist = c.whiteListedRoutes.length > 0 || c.whiteListedAgencies.length > 0;
    const base = modes();
    const allowed = base ? base.slice() : new Uint8Array(tt.core.nRoutes).fill(1);
    for (let r = 0; r < allowed.length; r++) {
      const g = tt.meta.routeGtfsRoute[r]!;
      const a = ix.routeAgency[g]!;
      if (bannedG.has(g) || bannedA.has(a) || (whitelist && !whiteG.has(g) && !whiteA.has(a))) allowed[r] = 0;
    }
    out.routeAllowed = allowed;
  }
  // trips: banned outright, or at some stop positions
  if (c.bannedTrips.length) {
    const allowed = new Uint8Array(tt.core.nTrips).fill(1);
    const partial = new Map<number, Set<number>>();
    for (const text of c.bannedTrips) {
      const found = tripsOf(tt, ix, text);
      if (!found) {
        warn("bannedTrips", text, "trip");
        continue;
      }
      for (const t of found.trips) {
        if (found.positions === null) allowed[t] = 0;
        else {
          const set = partial.get(t) ?? new Set<number>();
          for (const pos of found.positions) set.add(pos);
          partial.set(t, set);
        }
      }
    }
    out.tripAllowed = allowed;
    if (partial.size) out.tripStopBans = partial;
  }
  // stops: no boarding or alighting; hard: no riding through either
  if (c.bannedStops.length || c.bannedStopsHard.length) {
    const rules = new Uint8Array(tt.core.nStops);
    for (const s of stopSet(tt, ix, c.bannedStops, (id) => warn("bannedStops", id, "stop"))) rules[s]! |= STOP_NO_BOARD;
    for (const s of stopSet(tt, ix, c.bannedStopsHard, (id) => warn("bannedStopsHard", id, "stop"))) rules[s]! |= STOP_NO_BOARD | STOP_NO_PASS;
    out.stopRules = rules;
  }
  if (c.startTransitStopId !== null) {
    const stops = stopSet(tt, ix, [c.startTransitStopId], () => {});
    if (!stops.size) throw invalidParameter("startTransitStopId", `startTransitStopId: no stop ${JSON.stringify(c.startTransitStopId)} in the loaded timetable`);
    // the only access stop, walked to from fromPlace (however far)
    const { stopLat, stopLon } = tt.meta;
    out.access = [...stops].map((s): StopWalk => ({ stop: s as StopIdx, walkSec: Math.ceil(haversineM(p.from.lat, p.from.lon, stopLat[s]!, stopLon[s]!) / p.walkSpeed) }));
  }
  if (c.boardSlack) out.boardSlackSec = c.boardSlack;
  if (c.alightSlack) out.alightSlackSec = c.alightSlack;
  if (c.minTransferTime) out.transferSlackSec = c.minTransferTime;
  if (c.maxHours !== null) {
    // OTP1 keeps paths lasting less than maxHours (GraphPathFinder), from the requested time with useRequestedDateTimeInMaxHours
    const max = Math.ceil(c.maxHours * 3600);
    if (c.useRequestedDateTimeInMaxHours) out.arrivalLimitSec = p.arriveBy ? timeSec - max + 1 : timeSec + max - 1;
    else out.maxDurationSec = max;
  }
  if (c.disableRemainingWeightHeuristic) out.noDestinationPruning = true;
  // generalized cost: named by the request, or needed by rules only the cost search keeps
  const strict = c.bannedStopsHard.length > 0 || (out.tripStopBans?.size ?? 0) > 0;
  if (c.costs || strict) out.costs = { ...costModel(tt, ix, c, p), startSec: timeSec };
  return out;
}

/** The request has some criterion (the default request has none: its query stays as it was). */
export function hasCriteria(c: PlanCriteria): boolean {
  return (
    c.bannedRoutes.length + c.whiteListedRoutes.length + c.preferredRoutes.length + c.unpreferredRoutes.length > 0 ||
    c.bannedAgencies.length + c.whiteListedAgencies.length + c.preferredAgencies.length + c.unpreferredAgencies.length > 0 ||
    c.bannedTrips.length + c.bannedStops.length + c.bannedStopsHard.length > 0 ||
    c.startTransitStopId !== null ||
    c.boardSlack + c.alightSlack + c.minTransferTime > 0 ||
    c.maxHours !== null ||
    c.disableRemainingWeightHeuristic ||
    c.costs !== null
  );
}

/** OTP1's weight: its preferred / unpreferred route penalties per RAPTOR route (RoutingRequest.preferencesPenaltyForRoute). */
function costModel(tt: Timetable, ix: IdIndex, c: PlanCriteria, p: PlanParams): CostModel {
  const k = c.costs ?? OTP1_COSTS;
  const model: CostModel = { walkReluctance: k.walkReluctance, waitReluctance: k.waitReluctance, waitAtBeginningFactor: k.waitAtBeginningFactor, boardCost: k.walkBoardCost, transferPenalty: k.transferPenalty };
  // OTP1 (TransferTable.determineTransferPenalty): only when some transfer is recommended or timed
  if (k.nonpreferredTransferPenalty > 0 && recommendsTransfers(tt)) model.nonpreferredTransferPenalty = k.nonpreferredTransferPenalty;
  const preferring = c.preferredRoutes.length > 0 || c.preferredAgencies.length > 0;
  if (!preferring && !c.unpreferredRoutes.length && !c.unpreferredAgencies.length) return model;
  const warn = (param: string, what: string) => (id: string) => note(p, `${param}: no ${what} ${JSON.stringify(id)} in the loaded timetable (ignored, as OTP1 ignores it)`);
  const prefG = routeSet(ix, c.preferredRoutes, warn("preferredRoutes", "route"));
  const prefA = agencySet(ix, c.preferredAgencies, warn("preferredAgencies", "agency"));
  const unprefG = routeSet(ix, c.unpreferredRoutes, warn("unpreferredRoutes", "route"));
  const unprefA = agencySet(ix, c.unpreferredAgencies, warn("unpreferredAgencies", "agency"));
  const pen = new Float64Array(tt.core.nRoutes);
  let any = false;
  for (let r = 0; r < pen.length; r++) {
    const g = tt.meta.routeGtfsRoute[r]!;
    const a = ix.routeAgency[g]!;
    let x = 0;
    if (preferring && !prefG.has(g) && !prefA.has(a)) x += k.otherThanPreferredRoutesPenalty;
    if (unprefG.has(g) || unprefA.has(a)) x += k.useUnpreferredRoutesPenalty;
    pen[r] = x;
    if (x) any = true;
  }
  if (any) model.routePenalty = pen;
  return model;
}

/**
 * The timetable has a transfers.txt row recommending (transfer_type 0) or timing (1) a transfer: one
 * naming routes or trips (a transfer rule; stop-to-stop rows keep no type in the timetable).
 */
function recommendsTransfers(tt: Timetable): boolean {
  const type = tt.core.transferRules?.type;
  if (!type) return false;
  for (let x = 0; x < type.length; x++) if (type[x] === TRANSFER_TYPE.recommended || type[x] === TRANSFER_TYPE.timed) return true;
  return false;
}

// ---- ids

/** Lookups of a timetable's ids, built on first use (trips and stops only when a request names one). */
interface IdIndex {
  feeds: string[];
  /** GTFS route -> agency index (-1 none), feed index */
  routeAgency: Int32Array;
  routeFeed: Int32Array;
  /** `${feed}|${route_id}` / route_id -> GTFS routes; `${feed}|${name}` / name -> GTFS routes (OTP1's route name) */
  routeById: Map<string, number[]>;
  routeByName: Map<string, number[]>;
  /** `${feed}|${agency_id}` / agency_id -> agencies */
  agencyById: Map<string, number[]>;
  stopById?: Map<string, number[]>;
  /** trip_id -> trips (every feed) */
  tripById?: Map<string, number[]>;
  /** trip -> feed */
  tripFeed?: Int32Array;
}

const indexes = new WeakMap<Timetable, IdIndex>();

function push<K>(m: Map<K, number[]>, k: K, v: number): void {
  const l = m.get(k);
  if (l) l.push(v);
  else m.set(k, [v]);
}

/** OTP1's route name (GtfsLibrary.getRouteName, underscores as spaces as RouteMatcher compares them). */
const routeName = (short: string, long: string) => (short || long).replace(/_/g, " ");

function indexOf(tt: Timetable): IdIndex {
  let ix = indexes.get(tt);
  if (ix) return ix;
  const { meta, core } = tt;
  const nG = meta.gtfsRoutes.length;
  const routeAgency = new Int32Array(nG).fill(-1);
  const routeFeed = new Int32Array(nG).fill(-1);
  for (let r = 0; r < core.nRoutes; r++) {
    const g = meta.routeGtfsRoute[r]!;
    if (routeFeed[g] === -1) routeFeed[g] = meta.stopFeed[core.routeStops[core.routeStopStart[r]!]!]!;
  }
  const routeById = new Map<string, number[]>(), routeByName = new Map<string, number[]>(), agencyById = new Map<string, number[]>();
  meta.agencies.forEach((a, i) => {
    push(agencyById, `${a.feed}|${a.agencyId}`, i);
    push(agencyById, a.agencyId, i);
  });
  meta.gtfsRoutes.forEach((g, i) => {
    const a = g.agency >= 0 && g.agency < meta.agencies.length ? g.agency : -1;
    routeAgency[i] = a;
    if (routeFeed[i] === -1 && a >= 0) routeFeed[i] = meta.agencies[a]!.feed;
    push(routeById, `${routeFeed[i]}|${g.routeId}`, i);
    push(routeById, g.routeId, i);
    const name = routeName(g.shortName, g.longName);
    push(routeByName, `${routeFeed[i]}|${name}`, i);
    push(routeByName, name, i);
  });
  ix = { feeds: meta.feeds.map((f) => f.onestopId), routeAgency, routeFeed, routeById, routeByName, agencyById };
  indexes.set(tt, ix);
  return ix;
}

/** An id's scope: a feed (Onestop ID), or an agency_id standing for its feed as in OTP1 1.x; null when the text has no known one. */
function scope(ix: IdIndex, text: string, sep: string): { feed: number; agency: number[] | null; id: string } | null {
  if (sep === ":") {
    const s = parseScopedId(text, ix.feeds);
    if (s.feed !== null) return { feed: ix.feeds.indexOf(s.feed), agency: null, id: s.id };
  }
  const at = text.indexOf(sep);
  if (at <= 0) return null;
  const agencies = ix.agencyById.get(text.slice(0, at));
  return agencies ? { feed: -1, agency: agencies, id: text.slice(at + sep.length) } : null;
}

/** GTFS routes a list names; `unknown` is called with each entry that names none. */
function routeSet(ix: IdIndex, specs: string[], unknown: (id: string) => void): Set<number> {
  const out = new Set<number>();
  for (const text of specs) {
    const found = routesOf(ix, text);
    if (found.length) for (const g of found) out.add(g);
    else unknown(text);
  }
  return out;
}

function routesOf(ix: IdIndex, text: string): number[] {
  // feedId:routeId (agencyId:routeId)
  const sc = scope(ix, text, ":");
  if (sc && sc.feed >= 0) return ix.routeById.get(`${sc.feed}|${sc.id}`) ?? [];
  if (sc?.agency && !ix.routeById.has(text)) {
    const found = (ix.routeById.get(sc.id) ?? []).filter((g) => sc.agency!.includes(ix.routeAgency[g]!));
    if (found.length) return found;
  }
  // OTP1's RouteMatcher: [feedId]_[routeName][_routeId], `\_` escaping an underscore
  const parts = text.split(/(?<!\\)_/);
  if (parts.length >= 2) {
    const head = parts[0]!.replace(/\\_/g, "_");
    const name = parts[1]!.replace(/\\_/g, " ");
    const id = parts.length > 2 ? parts.slice(2).join("_").replace(/\\_/g, "_") : "";
    const feed = head === "" ? null : ix.feeds.indexOf(head);
    const agencies = head === "" ? null : ix.agencyById.get(head);
    if (head === "" || feed! >= 0 || agencies) {
      const inScope = (g: number) => head === "" || ix.routeFeed[g] === feed || (agencies?.includes(ix.routeAgency[g]!) ?? false);
      let cands: number[] = [];
      if (id) {
        cands = (ix.routeById.get(id) ?? []).filter(inScope);
        // all three parts (OTP1 refuses them): the id decides, the name must agree
        if (name) {
          const named = new Set(ix.routeByName.get(name) ?? []);
          cands = cands.filter((g) => named.has(g));
        }
      } else if (name) cands = (ix.routeByName.get(name) ?? []).filter(inScope);
      if (cands.length) return cands;
    }
  }
  // a bare route_id, in every feed
  return ix.routeById.get(text) ?? [];
}

function agencySet(ix: IdIndex, specs: string[], unknown: (id: string) => void): Set<number> {
  const out = new Set<number>();
  for (const text of specs) {
    const sc = scope(ix, text, ":");
    const found = sc && sc.feed >= 0 ? (ix.agencyById.get(`${sc.feed}|${sc.id}`) ?? []) : (ix.agencyById.get(text) ?? []);
    if (found.length) for (const a of found) out.add(a);
    else unknown(text);
  }
  return out;
}

function stopIndex(tt: Timetable, ix: IdIndex): Map<string, number[]> {
  if (!ix.stopById) {
    const m = new Map<string, number[]>();
    const { stopId, stopFeed } = tt.meta;
    for (let s = 0; s < stopId.length; s++) {
      push(m, `${stopFeed[s]}|${stopId[s]}`, s);
      push(m, stopId[s]!, s);
    }
    ix.stopById = m;
  }
  return ix.stopById;
}

/** Stops of a list: feedId:stopId, agencyId:stopId (OTP1's StopMatcher) or a bare stop_id. */
function stopSet(tt: Timetable, ix: IdIndex, specs: string[], unknown: (id: string) => void): Set<number> {
  const byId = stopIndex(tt, ix);
  const out = new Set<number>();
  for (const text of specs) {
    let found = byId.get(text) ?? [];
    const sc = scope(ix, text, ":");
    if (sc && sc.feed >= 0) found = byId.get(`${sc.feed}|${sc.id}`) ?? [];
    else if (!found.length && sc?.agency) {
      const feeds = new Set(sc.agency.map((a) => tt.meta.agencies[a]!.feed));
      found = (byId.get(sc.id) ?? []).filter((s) => feeds.has(tt.meta.stopFeed[s]!));
    }
    if (found.length) for (const s of found) out.add(s);
    else unknown(text);
  }
  return out;
}

function tripIndex(tt: Timetable, ix: IdIndex): { byId: Map<string, number[]>; feed: Int32Array } {
  if (!ix.tripById) {
    const { core, meta } = tt;
    const feed = new Int32Array(core.nTrips);
    for (let r = 0; r < core.nRoutes; r++) {
      const f = meta.stopFeed[core.routeStops[core.routeStopStart[r]!]!]!;
      for (let t = core.routeTripStart[r]!; t < core.routeTripStart[r + 1]!; t++) feed[t] = f;
    }
    // trip_id -> trips (of any feed: the feed is checked on lookup; NYC has 300 k trips, one key each)
    const m = new Map<string, number[]>();
    for (let t = 0; t < core.nTrips; t++) push(m, meta.tripId[t]!, t);
    ix.tripById = m;
    ix.tripFeed = feed;
  }
  return { byId: ix.tripById, feed: ix.tripFeed! };
}

/**
 * The trips an entry of bannedTrips names, and the stop positions it bans them at (null: the whole
 * trip). OTP1's form is `agencyId:tripId[:stopIndex...]`; here also feedId:tripId[:...] and a bare
 * trip_id[:...]. Trip ids may hold colons: the longest known id wins, trailing integers are positions.
 */
function tripsOf(tt: Timetable, ix: IdIndex, text: string): { trips: number[]; positions: number[] | null } | null {
  const { byId, feed } = tripIndex(tt, ix);
  const sc = scope(ix, text, ":");
  const lookup = (id: string): number[] => {
    const all = byId.get(id) ?? [];
    return sc && sc.feed >= 0 ? all.filter((t) => feed[t] === sc.feed) : all;
  };
  const body = sc && sc.feed >= 0 ? sc.id : text;
  const segs = body.split(":");
  for (let cut = segs.length; cut >= 1; cut--) {
    const tail = segs.slice(cut);
    if (!tail.every((x) => /^\d+$/.test(x))) break;
    const positions = tail.length ? tail.map(Number) : null;
    const id = segs.slice(0, cut).join(":");
    let trips = lookup(id);
    // agencyId:tripId (OTP1 1.x): the trip of that agency's feed
    if (!trips.length && sc?.agency && cut >= 2) {
      const feeds = new Set(sc.agency.map((a) => tt.meta.agencies[a]!.feed));
      trips = (byId.get(segs.slice(1, cut).join(":")) ?? []).filter((t) => feeds.has(feed[t]!));
    }
    if (trips.length) return { trips, positions };
  }
  return null;
}

/** Adds a note to the plan's warnings once (planning the same parameters again adds nothing). */
function note(p: PlanParams, text: string): void {
  if (!p.warnings.includes(text)) p.warnings.push(text);
}
