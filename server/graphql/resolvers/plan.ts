/**
 * The GTFS GraphQL API's planning root fields over the planner's plan model (through the planning
 * port, server/planning.ts): `planConnection` (OTP 2.5+, cursor pages over search windows:
 * plan/paging.ts) and the deprecated `plan` (as core-utils 16's planQuery.graphql sends it). The
 * arguments become the planner's typed query (plan/input.ts), the PlanResult is rendered by
 * plan/nodes.ts, its errors become OTP2's routingErrors (plan/routing-errors.ts) or GraphQL errors
 * (plan/wire.ts planFailure). Each plan field costs one plan (limits.ts, plan/cost.ts).
 */
import type { PlanQuery, PlanResult } from "../../planner/public.ts";
import { LIMITS } from "../../planner/public.ts";
import { NO_PLANNING, type Planning } from "../../planning.ts";
import type { GqlContext } from "../model.ts";
import { connectionQuery, connectionTime, legacyPlace, legacyQuery, labeledPlace, localDateTime, placeParam, plannerQuery, type LegacyPlanArgs, type PlanConnectionArgs, type RawParams, type ResolvedPlace } from "../plan/input.ts";
import { ItineraryNode, PlaceNode, planView } from "../plan/nodes.ts";
import { decodeCursor, MAX_PAGE, pageOf, searchOf, type Position } from "../plan/paging.ts";
import { routingError, routingErrorsOf, type RoutingError } from "../plan/routing-errors.ts";
import { badInput, isoDuration, localDaySec, offsetDateTime, parseDuration, planFailure } from "../plan/wire.ts";

/** What the planning fields read besides the dataset: the planning port and the clock, and the request's account (its street calls are served in turn with other accounts'). */
export interface PlanContext extends GqlContext {
  planning?: Planning;
  account?: string;
}

/** planConnection's window when none is asked for (OTP2 computes one; the REST API's default). */
export const DEFAULT_SEARCH_WINDOW_SEC = 3600;
/** The itineraries one window may hold (a window-only search keeps this many at most). */
const WINDOW_ITINERARIES = 500;

const hasRide = (it: PlanResult["itineraries"][number]) => it.legs.some((l) => l.kind === "transit");
const located = (p: ResolvedPlace) => (p.ok ? p : null);

async function planned(ctx: PlanContext, q: PlanQuery): Promise<PlanResult> {
  return (ctx.planning ?? NO_PLANNING).plan(q, ctx.account);
}

/**
 * The query that tells whether a ride leaves after the part of the window searched (`searchedSec`
 * of it, from its start; null: the whole window, searched again): the planner's OTP1 search for
 * one itinerary, from the end of that part (a single departure, widening after it).
 */
function laterQuery(q: PlanQuery, searchedSec: number | null): PlanQuery {
  const base: PlanQuery = { ...q, windowOnly: false, windowFill: undefined, numItineraries: 1 };
  if (searchedSec === null || q.timeSec === null) return base;
  return { ...base, searchWindow: 0, timeSec: q.timeSec + (q.arriveBy ? -searchedSec : searchedSec) };
}

/**
 * The routing errors of a plan that found nothing (or only walking, where rides were asked for).
 * `probe`: tell NO_TRANSIT_CONNECTION_IN_SEARCH_WINDOW from NO_TRANSIT_CONNECTION with one more
 * search (laterQuery: after `searchedSec` of the window).
 */
async function errorsOf(ctx: PlanContext, r: PlanResult, q: PlanQuery, transitFound: boolean, probe: boolean, searchedSec: number | null = null): Promise<RoutingError[]> {
  const planning = ctx.planning ?? NO_PLANNING;
  if (r.error) {
    let laterRide: boolean | null = null;
    if (probe && r.error.kind === "PATH_NOT_FOUND") laterRide = (await planning.plan(laterQuery(q, searchedSec), ctx.account)).itineraries.some(hasRide);
    return routingErrorsOf(r.error, () => ({ stopsFrom: planning.stopsWithin(q.from.lat, q.from.lon, q.maxWalkDistance), stopsTo: planning.stopsWithin(q.to.lat, q.to.lon, q.maxWalkDistance), laterRide }));
  }
  if (q.walkOnly || transitFound) return [];
  // only walking found where rides were asked for: the planner's PATH_NOT_FOUND behind the walk
  const errs = routingErrorsOf({ kind: "PATH_NOT_FOUND" }, () => ({ stopsFrom: planning.stopsWithin(q.from.lat, q.from.lon, q.maxWalkDistance), stopsTo: planning.stopsWithin(q.to.lat, q.to.lon, q.maxWalkDistance), laterRide: null }));
  if (!probe || errs.some((e) => e.code === "NO_STOPS_IN_RANGE")) return errs;
  const later = (await planning.plan(laterQuery(q, searchedSec), ctx.account)).itineraries.some(hasRide);
  return [routingError(later ? "NO_TRANSIT_CONNECTION_IN_SEARCH_WINDOW" : "NO_TRANSIT_CONNECTION")];
}

const placeErrors = (...ps: ResolvedPlace[]) => ps.flatMap((p) => (p.ok ? [] : [routingError("LOCATION_NOT_FOUND", p.field, p.message)]));

async function planConnection(a: PlanConnectionArgs, ctx: PlanContext) {
  const nowSec = Math.floor(ctx.now / 1000);
  const cq = connectionQuery(a);
  if (a.after != null && a.before != null) throw badInput("after and before: page one way at a time", "after");
  for (const f of ["first", "last"] as const) if (a[f] != null && a[f]! < 0) throw badInput(`${f}: must be 0 or more`, f);
  // OTP's default page (first) is 50 itineraries; `last` wins when given; more are cut to MAX_PAGE
  const n = Math.min(a.last ?? a.first ?? MAX_PAGE, MAX_PAGE);
  const backward = a.before != null;
  let pos: Position;
  if (a.after != null) pos = decodeCursor(a.after, "after");
  else if (a.before != null) pos = decodeCursor(a.before, "before");
  else {
    const t = connectionTime(a, nowSec);
    const w = a.searchWindow != null ? parseDuration(a.searchWindow, "searchWindow") : DEFAULT_SEARCH_WINDOW_SEC;
    if (w < 0 || w > LIMITS.searchWindow) throw badInput(`searchWindow: between PT0S and ${isoDuration(LIMITS.searchWindow)}`, "searchWindow");
    pos = { d: t.arriveBy ? "arr" : "dep", t: t.sec, k: 0, w };
  }
  const from = labeledPlace(ctx.snap, a.origin, "FROM"), to = labeledPlace(ctx.snap, a.destination, "TO");
  const empty = (errors: RoutingError[], tz = "UTC") => ({
    edges: [],
    pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null, searchWindowUsed: isoDuration(pos.w) },
    routingErrors: errors,
    searchDateTime: offsetDateTime(pos.t, tz),
  });
  const f = located(from), t = located(to);
  if (!f || !t) return empty(placeErrors(from, to));
  const planning = ctx.planning ?? NO_PLANNING;
  const tz = planning.timeZoneAt(f.lat, f.lon) ?? "UTC";
  const s = searchOf(pos, backward);
  const local = localDateTime(s.timeSec, tz, localDaySec);
  const raw: RawParams = { ...cq.raw, fromPlace: placeParam(f), toPlace: placeParam(t), date: local.date, time: local.time, arriveBy: String(s.arriveBy), searchWindow: String(s.windowSec) };
  // a page forward needs its first n rides after the cursor's k: the planner searches the window's
  // first part and more of it only while it finds no more (searchedSec, OTP2's searchWindowUsed)
  const fill = backward ? undefined : n + pos.k;
  const q: PlanQuery = { ...plannerQuery(raw), windowOnly: true, windowFill: fill, numItineraries: WINDOW_ITINERARIES, showIntermediateStops: true };
  const r = await planned(ctx, q);
  const searched = r.searchedSec ?? pos.w;
  const rides = r.itineraries.filter(hasRide);
  const firstPage = a.after == null && a.before == null;
  const direct = firstPage && cq.direct ? r.itineraries.filter((it) => !hasRide(it)) : [];
  const page = pageOf(cq.directOnly ? [] : rides, pos, backward, Math.max(0, n - direct.length), searched);
  const v = planView(r.timetable, ctx.snap, q);
  const network = r.streetNetwork === true;
  const edges = [
    ...direct.slice(0, n).map((it, i) => ({ cursor: page.startCursor, node: new ItineraryNode(v, it, `d${i}`, network) })),
    ...page.items.map((x, i) => ({ cursor: x.cursor, node: new ItineraryNode(v, x.it, `r${i}`, network) })),
  ];
  const routingErrors = cq.directOnly ? (r.error ? await errorsOf(ctx, r, q, false, false) : []) : await errorsOf(ctx, r, q, page.matched > 0, true, backward ? null : searched);
  return {
    edges,
    pageInfo: { hasNextPage: !r.error || r.error.kind === "PATH_NOT_FOUND", hasPreviousPage: !r.error || r.error.kind === "PATH_NOT_FOUND", startCursor: page.startCursor, endCursor: page.endCursor, searchWindowUsed: isoDuration(searched) },
    routingErrors,
    searchDateTime: offsetDateTime(pos.t, tz),
  };
}

async function plan(a: LegacyPlanArgs, ctx: PlanContext) {
  const t0 = performance.now();
  const from = legacyPlace(ctx.snap, a.fromPlace, a.from, "FROM"), to = legacyPlace(ctx.snap, a.toPlace, a.to, "TO");
  const f = located(from), t = located(to);
  const debug = () => ({ totalTime: Math.round(performance.now() - t0), pathCalculationTime: Math.round(performance.now() - t0), precalculationTime: 0, renderingTime: 0, timedOut: false });
  const base = { messageEnums: [], messageStrings: [], nextDateTime: null, prevDateTime: null, nextPageCursor: null, previousPageCursor: null };
  if (!f || !t) {
    const place = (p: ResolvedPlace, name: string) => ({ name, lat: 0, lon: 0, vertexType: "NORMAL", stop: null, arrival: null, departure: null, arrivalTime: 0, departureTime: 0, stopPosition: null, bikeRentalStation: null, bikePark: null, carPark: null, rentalVehicle: null, vehicleParking: null, vehicleRentalStation: null, ...(p.ok ? { name: p.label, lat: p.lat, lon: p.lon } : {}) });
    return { ...base, date: null, from: place(from, "Origin"), to: place(to, "Destination"), itineraries: [], routingErrors: placeErrors(from, to), searchWindowUsed: null, debugOutput: debug() };
  }
  const q: PlanQuery = { ...plannerQuery(legacyQuery(a, f, t)), showIntermediateStops: true };
  const r = await planned(ctx, q);
  const v = planView(r.timetable, ctx.snap, q);
  const network = r.streetNetwork === true;
  const its = r.itineraries.map((it, i) => new ItineraryNode(v, it, String(i), network));
  const tz = r.itineraries[0]?.timeZone ?? (ctx.planning ?? NO_PLANNING).timeZoneAt(f.lat, f.lon) ?? "UTC";
  const at = r.timeSec || null;
  return {
    ...base,
    date: at === null ? null : at * 1000,
    from: new PlaceNode(v, { name: f.label, lat: f.lat, lon: f.lon }, tz, null, at === null ? null : { sec: at, delay: null }),
    to: new PlaceNode(v, { name: t.label, lat: t.lat, lon: t.lon }, tz, null, null),
    itineraries: its,
    routingErrors: await errorsOf(ctx, r, q, r.itineraries.some(hasRide), false),
    searchWindowUsed: q.searchWindow,
    debugOutput: debug(),
  };
}

/** A resolver whose failures are mapped to GraphQL errors (wire.ts planFailure). */
const mapped =
  <A>(f: (a: A, ctx: PlanContext) => Promise<unknown>) =>
  async (a: A, ctx: PlanContext) => {
    try {
      return await f(a, ctx);
    } catch (err) {
      throw planFailure(err);
    }
  };

export const planRoots = {
  planConnection: mapped(planConnection),
  plan: mapped(plan),
};

/** The root fields that each cost one plan (server/graphql/limits.ts counts them). */
export const PLAN_FIELDS = ["plan", "planConnection"] as const;
