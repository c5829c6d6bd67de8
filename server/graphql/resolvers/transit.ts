/**
 * The GTFS GraphQL API's transit-data root fields this service answers: feeds, agencies,
 * agency, stop(s), station(s), stopsByBbox, stopsByRadius (a connection with cursors), route(s) and
 * node, over the request's dataset (server/transit-data.ts). An id that names nothing answers
 * null, as OTP does; an id that is not `FEED:ID` is a BAD_USER_INPUT error.
 */
import { GraphQLError } from "graphql";
import { haversineM } from "../../../shared/geo.ts";
import type { TransitSnapshot, TransitStop } from "../../transit-data.ts";
import { parseGlobalId, parseGtfsId } from "../ids.ts";
import { AgencyNode, FeedNode, type GqlContext, RouteNode, snapOf, StopAtDistanceNode, StopNode, transitMode } from "../model.ts";

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
    const start = a.after ? offsetOf(a.after) + 1 : 0;
    const end = a.first == null ? found.length : Math.min(found.length, start + a.first);
    const edges = found.slice(start, end).map((f, i) => ({ cursor: cursorOf(start + i), node: new StopAtDistanceNode(f.s, Math.round(f.d)) }));
    return {
      edges,
      pageInfo: {
        hasNextPage: end < found.length,
        hasPreviousPage: start > 0,
        startCursor: edges.length ? edges[0]!.cursor : null,
        endCursor: edges.length ? edges[edges.length - 1]!.cursor : null,
      },
    };
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
      default:
        return null;
    }
  },
};
