/**
 * The GTFS GraphQL API's transit-data root fields this service answers: feeds, agencies,
 * agency, stop(s), station(s), stopsByBbox, stopsByRadius (a connection with cursors), route(s) and
 * node, over the request's dataset (server/transit-data.ts). An id that names nothing answers
 * null, as OTP does; an id that is not `FEED:ID` is a BAD_USER_INPUT error.
 */
import { GraphQLError } from "graphql";
import { haversineM } from "../../../shared/geo.ts";
import type { TransitSnapshot, TransitStop } from "../../transit-data.ts";
import { globalId, gtfsId, parseGlobalId, parseGtfsId } from "../ids.ts";
import { AgencyNode, batchOf, FeedNode, type GqlContext, RouteNode, snapOf, StopAtDistanceNode, StopNode, transitMode } from "../model.ts";
import { alertCause, alertEffect, alertNodes, alertSeverity, alertsView, PatternNode, serviceDateArg, TripNode } from "../timetable.ts";

/** trips(feeds) answers at most this many trips (a larger answer is refused: ask for fewer feeds) */
export const MAX_TRIPS = 20_000;

const badInput = (message: string) => new GraphQLError(message, { extensions: { code: "BAD_USER_INPUT" } });

function idArg(id: string, arg = "id") {
  const g = parseGtfsId(id);
  if (!g) throw badInput(`${arg}: "${id.slice(0, 200)}" is not a GTFS id (FEED:ID)`);
  return g;
}

const stopNode = (s: TransitStop | null) => (s ? new StopNode(s) : null);

/** The active stops of a location type (null: any), optionally by GTFS ids and a name part. */
function stopList(snap: TransitSnapshot, stations: boolean, ids: string[] | null | undefined, name: string | null | undefined) {
  const keep = (s: TransitStop | null): s is TransitStop => s !== null && (stations ? s.locationType === 1 : s.locationType !== 1) && (!name || (s.name ?? "").toLowerCase().includes(name.toLowerCase()));
  if (ids) return ids.map((id) => { const g = idArg(id, "ids"); const s = snap.stopById(g.feed, g.id); return keep(s) ? new StopNode(s) : null; });
  const out: StopNode[] = [];
  for (const ref of snap.stopRefs()) {
    const s = snap.stop(ref);
    if (keep(s)) out.push(new StopNode(s));
  }
  return out;
}

const feedFilter = (feeds: string[] | null | undefined) => (feeds && feeds.length ? new Set(feeds.map((f) => f.toLowerCase())) : null);

/** A stopsByRadius cursor: the offset of the next stop in the distance order. */
const cursorOf = (offset: number) => Buffer.from(`offset:${offset}`).toString("base64");
function offsetOf(cursor: string): number {
  const m = /^offset:(\d{1,9})$/.exec(Buffer.from(cursor, "base64").toString("utf8"));
  if (!m) throw badInput(`"${cursor.slice(0, 100)}" is not a cursor of this connection`);
  return Number(m[1]);
}

export const transitRoots = {
  feeds(_: unknown, ctx: GqlContext) {
    return snapOf(ctx).feeds().map((f) => new FeedNode(f));
  },
  agencies(_: unknown, ctx: GqlContext) {
    const snap = snapOf(ctx);
    return [...snap.agencyRefs()].map((r) => new AgencyNode(snap.agency(r)!));
  },
  agency({ id }: { id: string }, ctx: GqlContext) {
    const g = idArg(id);
    const a = snapOf(ctx).agencyById(g.feed, g.id);
    return a ? new AgencyNode(a) : null;
  },
  stop({ id }: { id: string }, ctx: GqlContext) {
    const g = idArg(id);
    const s = snapOf(ctx).stopById(g.feed, g.id);
    return s && s.locationType !== 1 ? new StopNode(s) : null;
  },
  station({ id }: { id: string }, ctx: GqlContext) {
    const g = idArg(id);
    const s = snapOf(ctx).stopById(g.feed, g.id);
    return s && s.locationType === 1 ? new StopNode(s) : null;
  },
  stops({ ids, name }: { ids?: string[] | null; name?: string | null }, ctx: GqlContext) {
    return stopList(snapOf(ctx), false, ids, name);
  },
  stations({ ids, name }: { ids?: string[] | null; name?: string | null }, ctx: GqlContext) {
    return stopList(snapOf(ctx), true, ids, name);
  },
  stopsByBbox(a: { minLat: number; minLon: number; maxLat: number; maxLon: number; feeds?: string[] | null }, ctx: GqlContext) {
    const snap = snapOf(ctx);
    const feeds = feedFilter(a.feeds);
    const out: StopNode[] = [];
    for (const ref of snap.stopsInBox({ minLat: a.minLat, minLon: a.minLon, maxLat: a.maxLat, maxLon: a.maxLon })) {
      const s = snap.stop(ref);
      // OTP's stopsByBbox: stops (location_type 0 or none), not stations or entrances
      if (s && s.locationType === 0 && (!feeds || feeds.has(s.feed.toLowerCase()))) out.push(new StopNode(s));
    }
    // their routes, if asked, load in one batch
    batchOf(ctx).want(out.map((n) => n.s.ref));
    return out;
  },
  stopsByRadius(a: { lat: number; lon: number; radius: number; feeds?: string[] | null; first?: number | null; after?: string | null; last?: number | null; before?: string | null }, ctx: GqlContext) {
    if (a.radius < 0) throw badInput("radius: must be 0 or more meters");
    if (a.radius > 100_000) throw badInput("radius: at most 100000 meters");
    if (a.first != null && a.first < 0) throw badInput("first: must be 0 or more");
    if (a.last != null || a.before != null) throw badInput("last/before: this connection pages forward only (first/after)");
    const snap = snapOf(ctx);
    const feeds = feedFilter(a.feeds);
    const found: { s: TransitStop; d: number }[] = [];
    for (const ref of snap.stopsNear(a.lat, a.lon, a.radius)) {
      const s = snap.stop(ref);
      if (s && s.locationType === 0 && s.lat !== null && s.lon !== null && (!feeds || feeds.has(s.feed.toLowerCase()))) found.push({ s, d: haversineM(a.lat, a.lon, s.lat, s.lon) });
    }
    found.sort((x, y) => x.d - y.d || x.s.ref - y.s.ref);
    const answer = page(found, a.first, a.after, (f) => new StopAtDistanceNode(f.s, Math.round(f.d)));
    // the page's stops load their routes in one batch
    batchOf(ctx).want(found.slice(answer.start, answer.end).map((f) => f.s.ref));
    return { edges: answer.edges, pageInfo: answer.pageInfo };
  },
  route({ id }: { id: string }, ctx: GqlContext) {
    const g = idArg(id);
    const r = snapOf(ctx).routeById(g.feed, g.id);
    return r ? new RouteNode(r) : null;
  },
  routes(a: { feeds?: string[] | null; name?: string | null; transportModes?: string[] | null; serviceDates?: unknown }, ctx: GqlContext) {
    if (a.serviceDates != null) throw new GraphQLError("routes(serviceDates) is not implemented yet", { extensions: { code: "NOT_IMPLEMENTED" } });
    const snap = snapOf(ctx);
    const feeds = feedFilter(a.feeds);
    const modes = a.transportModes && a.transportModes.length ? new Set(a.transportModes) : null;
    const name = a.name?.toLowerCase() ?? null;
    const out: RouteNode[] = [];
    for (const ref of snap.routeRefs()) {
      const r = snap.route(ref);
      if (!r) continue;
      if (feeds && !feeds.has(r.feed.toLowerCase())) continue;
      if (modes && !modes.has(transitMode(r.type) ?? "")) continue;
      if (name && !(r.shortName ?? "").toLowerCase().includes(name) && !(r.longName ?? "").toLowerCase().includes(name)) continue;
      out.push(new RouteNode(r));
    }
    return out;
  },
  node({ id }: { id: string }, ctx: GqlContext) {
    const g = parseGlobalId(id);
    if (!g) throw badInput(`id: "${id.slice(0, 200)}" is not a global id of this API`);
    const snap = snapOf(ctx);
    switch (g.type) {
      case "Stop":
        return stopNode(snap.stopById(g.gtfs.feed, g.gtfs.id));
      case "Route": {
        const r = snap.routeById(g.gtfs.feed, g.gtfs.id);
        return r ? new RouteNode(r) : null;
      }
      case "Agency": {
        const a = snap.agencyById(g.gtfs.feed, g.gtfs.id);
        return a ? new AgencyNode(a) : null;
      }
      case "Trip": {
        const t = snap.tripById(g.gtfs.feed, g.gtfs.id);
        return t ? new TripNode(t) : null;
      }
      case "Pattern": {
        const p = snap.patternByCode(`${g.gtfs.feed}:${g.gtfs.id}`);
        return p ? new PatternNode(p) : null;
      }
      default:
        return null;
    }
  },
  trip({ id }: { id: string }, ctx: GqlContext) {
    const g = idArg(id);
    const t = snapOf(ctx).tripById(g.feed, g.id);
    return t ? new TripNode(t) : null;
  },
  /** every trip of the feeds (all feeds without `feeds`), refused above MAX_TRIPS */
  trips({ feeds }: { feeds?: string[] | null }, ctx: GqlContext) {
    const snap = snapOf(ctx);
    const want = feedFilter(feeds);
    const out: TripNode[] = [];
    for (const ref of snap.tripRefs()) {
      const t = snap.trip(ref);
      if (!t || (want && !want.has(t.feed.toLowerCase()))) continue;
      if (out.length >= MAX_TRIPS) throw new GraphQLError(`trips: more than ${MAX_TRIPS} trips; ask for fewer feeds`, { extensions: { code: "TOO_MANY_RESULTS" } });
      out.push(new TripNode(t));
    }
    return out;
  },
  /** a pattern by its code (FEED:ROUTE:DIR:NN) */
  pattern({ id }: { id: string }, ctx: GqlContext) {
    const p = snapOf(ctx).patternByCode(id);
    return p ? new PatternNode(p) : null;
  },
  patterns(_: unknown, ctx: GqlContext) {
    const snap = snapOf(ctx);
    return [...snap.routeRefs()].flatMap((r) => snap.patternsOfRoute(r).map((p) => new PatternNode(p)));
  },
  /**
   * The route's trip (in `direction`, any with -1) that runs on `date` (YYYY-MM-DD) and leaves its
   * first stop at `time` (seconds from the service day's start), as OTP's fuzzyTrip; null without one.
   */
  fuzzyTrip(a: { route: string; direction?: number | null; date: string; time: number }, ctx: GqlContext) {
    const g = idArg(a.route, "route");
    const date = serviceDateArg(a.date, "date");
    const snap = snapOf(ctx);
    const r = snap.routeById(g.feed, g.id);
    if (!r) return null;
    const dir = a.direction ?? -1;
    for (const ref of snap.tripsOfRoute(r.ref)) {
      const t = snap.trip(ref);
      if (!t || (dir !== -1 && t.directionId !== dir) || !snap.runsOn(ref, date)) continue;
      const first = snap.stopTimesOf(ref)[0];
      if (first && (first.departure ?? first.arrival) === a.time) return new TripNode(t);
    }
    return null;
  },
  /** the realtime alerts served now, filtered (each filter: any of its values) */
  alerts(a: { feeds?: string[] | null; severityLevel?: string[] | null; effect?: string[] | null; cause?: string[] | null; route?: string[] | null; stop?: string[] | null }, ctx: GqlContext) {
    const feeds = feedFilter(a.feeds);
    const set = (v: string[] | null | undefined) => (v && v.length ? new Set(v) : null);
    const [sev, eff, cause] = [set(a.severityLevel), set(a.effect), set(a.cause)];
    const routes = a.route?.length ? a.route.map((id) => idArg(id, "route")) : null;
    const stops = a.stop?.length ? a.stop.map((id) => idArg(id, "stop")) : null;
    const names = (list: { feed: string; id: string }[], feed: string, id: string | null) => id !== null && list.some((x) => x.feed.toLowerCase() === feed.toLowerCase() && x.id === id);
    return alertNodes(
      alertsView(ctx).all.filter(
        (x) =>
          (!feeds || feeds.has(x.feed.toLowerCase())) &&
          (!sev || sev.has(alertSeverity(x))) &&
          (!eff || eff.has(alertEffect(x))) &&
          (!cause || cause.has(alertCause(x))) &&
          (!routes || x.entities.some((e) => names(routes, x.feed, e.route))) &&
          (!stops || x.entities.some((e) => names(stops, x.feed, e.stop))),
      ),
    );
  },
  /** the active feed versions' service: the first service day's start to the last one's end (POSIX seconds) */
  serviceTimeRange(_: unknown, ctx: GqlContext) {
    return snapOf(ctx).serviceTimeRange() ?? { start: null, end: null };
  },
  /** the trips the served trip updates cancel, a connection paged forward by offset cursors */
  canceledTrips(a: { first?: number | null; after?: string | null; last?: number | null; before?: string | null }, ctx: GqlContext) {
    if (a.last != null || a.before != null) throw badInput("last/before: this connection pages forward only (first/after)");
    if (a.first != null && a.first < 0) throw badInput("first: must be 0 or more");
    const snap = snapOf(ctx);
    const all = snap.canceledTrips(ctx.now);
    return page(all, a.first, a.after, (c) => ({ serviceDate: c.serviceDate, trip: new TripNode(snap.trip(c.trip)!) }));
  },
  /**
   * Places around a point, nearest first: stops (location_type 0) within maxDistance meters, at most
   * maxResults; place types other than STOP (rental, parking, departure rows, stations) have none here.
   */
  nearest(a: { lat: number; lon: number; maxDistance?: number | null; maxResults?: number | null; filterByPlaceTypes?: string[] | null; filterByModes?: string[] | null; first?: number | null; after?: string | null; last?: number | null; before?: string | null }, ctx: GqlContext) {
    const max = a.maxDistance ?? 2000;
    if (max < 0 || max > 100_000) throw badInput("maxDistance: from 0 to 100000 meters");
    if (a.last != null || a.before != null) throw badInput("last/before: this connection pages forward only (first/after)");
    if (a.first != null && a.first < 0) throw badInput("first: must be 0 or more");
    const snap = snapOf(ctx);
    const types = a.filterByPlaceTypes?.length ? new Set(a.filterByPlaceTypes) : null;
    const found: { s: TransitStop; d: number }[] = [];
    if (!types || types.has("STOP")) {
      for (const ref of snap.stopsNear(a.lat, a.lon, max)) {
        const s = snap.stop(ref);
        if (s && s.locationType === 0 && s.lat !== null && s.lon !== null) found.push({ s, d: haversineM(a.lat, a.lon, s.lat, s.lon) });
      }
    }
    found.sort((x, y) => x.d - y.d || x.s.ref - y.s.ref);
    let places = found;
    if (a.filterByModes?.length) {
      const modes = new Set(a.filterByModes);
      places = found.filter((f) => new StopNode(f.s).routes(null, ctx).some((r) => modes.has(r.mode ?? "")));
    }
    places = places.slice(0, Math.max(0, a.maxResults ?? 20));
    const conn = page(places, a.first, a.after, (f) => {
      const d = Math.round(f.d);
      return { id: globalId("placeAtDistance", `${d};${gtfsId(f.s.feed, f.s.id)}`), distance: d, place: new StopNode(f.s) };
    });
    batchOf(ctx).want(places.map((f) => f.s.ref));
    return conn;
  },
};

/** One page of a list as a forward connection with offset cursors. */
function page<T, N>(all: T[], first: number | null | undefined, after: string | null | undefined, node: (x: T) => N) {
  const start = after ? offsetOf(after) + 1 : 0;
  const end = first == null ? all.length : Math.min(all.length, start + first);
  const edges = all.slice(start, end).map((x, i) => ({ cursor: cursorOf(start + i), node: node(x) }));
  return {
    start,
    end,
    edges,
    pageInfo: {
      hasNextPage: end < all.length,
      hasPreviousPage: start > 0,
      startCursor: edges.length ? edges[0]!.cursor : null,
      endCursor: edges.length ? edges[edges.length - 1]!.cursor : null,
    },
  };
}
