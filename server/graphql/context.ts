/**
 * What every GTFS GraphQL resolver shares: the request's context (its dataset, its clock, its
 * per-request caches) and the constructors of the catalog's node types. model.ts (Stop, Route,
 * Agency, ...) and timetable.ts (Trip, Pattern, Stoptime, Alert, ...) refer to each other's nodes;
 * they do so through this file (model.ts registers its constructors in `catalogNodes`), so neither
 * imports the other's module and the import graph has no cycle.
 */
import { GraphQLError } from "graphql";
import type { TransitAgency, TransitAlert, TransitRoute, TransitSnapshot, TransitStop } from "../transit-data.ts";

export interface GqlContext {
  /** the dataset of this request (null while none is loaded: every data field answers UNAVAILABLE) */
  snap: TransitSnapshot | null;
  /** the request's clock reading (ms): "now" for realtime, default start times and today's date */
  now: number;
  /** per-request caches: the alerts indexed by entity (timetable.ts alertsView), the routes of stops batched (routesOf) */
  alerts?: AlertsView;
  batch?: StopRoutesBatch;
}

export interface AlertsView {
  all: TransitAlert[];
  trip(feed: string, id: string): TransitAlert[];
  route(feed: string, id: string): TransitAlert[];
  agency(feed: string, id: string): TransitAlert[];
  routeType(feed: string, type: number): TransitAlert[];
  /** a stop's alerts: stop-only selectors, plus those naming it with `route` or `trip` when given */
  stop(feed: string, id: string, route: string | null, trip: string | null): TransitAlert[];
}

/**
 * The routes of stops, loaded per request in batches (the DataLoader pattern without promises): the
 * root fields that answer lists of stops announce their refs (`want`), and the first stop asking for
 * its routes loads them for every announced stop in one port call; later stops read the cache.
 */
export class StopRoutesBatch {
  private readonly pending = new Set<number>();
  private readonly cache = new Map<number, Int32Array>();
  /** port calls made (for tests and measurements) */
  calls = 0;
  want(refs: Iterable<number>) {
    for (const r of refs) if (!this.cache.has(r)) this.pending.add(r);
  }
  routesOf(snap: TransitSnapshot, ref: number): Int32Array {
    const hit = this.cache.get(ref);
    if (hit) return hit;
    this.pending.add(ref);
    const refs = [...this.pending];
    this.pending.clear();
    this.calls++;
    const lists = snap.routesOfStops(refs);
    refs.forEach((r, i) => this.cache.set(r, lists[i]!));
    return this.cache.get(ref)!;
  }
}

export const batchOf = (ctx: GqlContext) => (ctx.batch ??= new StopRoutesBatch());

/** The request's dataset, or the GraphQL error saying there is none yet. */
export function snapOf(ctx: GqlContext): TransitSnapshot {
  if (!ctx.snap) throw new GraphQLError("the transit dataset is not loaded yet", { extensions: { code: "UNAVAILABLE" } });
  return ctx.snap;
}

/** The catalog's node constructors, registered by model.ts when it loads (timetable.ts makes its Stop, Route and Agency nodes with them). */
export const catalogNodes = {
  stop: (_s: TransitStop): object => unregistered(),
  route: (_r: TransitRoute): object => unregistered(),
  agency: (_a: TransitAgency): object => unregistered(),
};

function unregistered(): never {
  throw new Error("server/graphql/model.ts has not registered the catalog's node types");
}
