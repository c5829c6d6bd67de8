/**
 * The planner timetable's fare tables (FARE_TIMETABLE_TABLES in pipeline/schema/timetable.ts):
 * readFareSource reads a version's fare tables from the catalog (compile.ts calls it per feed),
 * fareTables lays them out in the timetable's index spaces (assemble.ts calls it). What the planner
 * does with them: server/planner/fares.ts.
 *
 * Fares v1 are laid out the way OpenTripPlanner 1 holds them (DefaultFareServiceFactory): one rule
 * set per fare_id, with its rules' routes, (origin, destination) pairs and contains zones as three
 * separate sets. Fares v2 products get the price of the default rider category (the regular fare).
 */
import type { DuckDBConnection } from "@duckdb/node-api";
import { jsRows } from "../duck.ts";
import type { FareTimetableTables } from "../schema/timetable.ts";
import type { SourceData, SourceFares, SourceStop, VersionTables } from "./source.ts";

export const NO_FARES: SourceFares = {
  attributes: [], ruleSets: new Map(), stopZones: new Map(), products: [], defaultCategories: [], legRules: [], transferRules: [], stopAreas: [], routeNetworks: new Map(),
};

const str = (v: unknown) => (v == null ? "" : String(v));
const opt = (v: unknown) => (v == null || v === "" ? null : String(v));
const int = (v: unknown, d: number) => (v == null ? d : Number(v));
/** null first, then by code unit */
const cmp = (a: string | null, b: string | null) => (a === b ? 0 : a === null ? -1 : b === null ? 1 : a < b ? -1 : 1);

/**
 * A version's fare tables. A version imported before the fare tables existed has no such Parquet
 * files: it reads as a feed without fares.
 */
export async function readFareSource(conn: DuckDBConnection, pq: VersionTables): Promise<SourceFares> {
  const read = async (sql: string) => {
    try {
      return await jsRows(conn, sql);
    } catch (e) {
      if (/no files found|does not exist|not found/i.test(String((e as Error).message))) return null;
      throw e;
    }
  };
  const attributes = await read(`SELECT fare_id, price, currency_type, transfers, transfer_duration FROM ${pq("fare_attributes")}`);
  if (attributes === null) return NO_FARES;
  // the rules of a fare as sets (OTP1's FareRuleSet), aggregated here: Yamanashi has 109 k rules for 220 fares
  // (distinct rows first, then lists of plain values: ~3 times faster than DISTINCT aggregates or lists of pairs)
  const grouped = async (cols: string, where: string) =>
    (await read(`SELECT fare_id, ${cols.split(", ").map((c) => `list(${c}) AS ${c}`).join(", ")} FROM (SELECT DISTINCT fare_id, ${cols} FROM ${pq("fare_rules")} WHERE ${where}) GROUP BY fare_id`)) ?? [];
  const ruleRoutes = await grouped("route_ref", "route_ref IS NOT NULL");
  const ruleOds = await grouped("origin_id, destination_id", "origin_id IS NOT NULL OR destination_id IS NOT NULL");
  const ruleContains = await grouped("contains_id", "contains_id IS NOT NULL");
  const ruleSets: SourceFares["ruleSets"] = new Map();
  const setOf = (id: unknown) => ruleSets.get(str(id)) ?? ruleSets.set(str(id), { routes: [], ods: [], contains: [] }).get(str(id))!;
  for (const r of ruleRoutes) setOf(r.fare_id).routes = (r.route_ref as unknown[]).map(Number);
  for (const r of ruleOds) {
    const o = r.origin_id as unknown[], d = r.destination_id as unknown[];
    // sorted: zones get their indexes in this order, and the timetable's bytes must not depend on the order DuckDB lists them in
    setOf(r.fare_id).ods = o.map((x, i) => [opt(x), opt(d[i])] as [string | null, string | null]).sort((a, b) => cmp(a[0], b[0]) || cmp(a[1], b[1]));
  }
  for (const r of ruleContains) setOf(r.fare_id).contains = (r.contains_id as unknown[]).map(str).sort();
  const zones = (await read(`SELECT id, zone_id FROM ${pq("stops")} WHERE zone_id IS NOT NULL ORDER BY id`)) ?? [];
  const products = (await read(`SELECT fare_product_id, fare_product_name, rider_category_id, amount, currency FROM ${pq("fare_products")}`)) ?? [];
  const cats = (await read(`SELECT rider_category_id FROM ${pq("rider_categories")} WHERE is_default_fare_category = 1`)) ?? [];
  const legRules = (await read(`SELECT leg_group_id, network_id, from_area_id, to_area_id, fare_product_id, rule_priority,
      (from_timeframe_group_id IS NOT NULL OR to_timeframe_group_id IS NOT NULL) AS tf FROM ${pq("fare_leg_rules")}`)) ?? [];
  const transferRules = (await read(`SELECT from_leg_group_id, to_leg_group_id, transfer_count, duration_limit, duration_limit_type, fare_transfer_type, fare_product_id
      FROM ${pq("fare_transfer_rules")}`)) ?? [];
  const stopAreas = (await read(`SELECT area_id, stop_ref FROM ${pq("stop_areas")}`)) ?? [];
  const networks = (await read(`SELECT id AS route_ref, network_id FROM ${pq("routes")} WHERE network_id IS NOT NULL
      UNION ALL BY NAME SELECT route_ref, network_id, 1 AS explicit FROM ${pq("route_networks")} ORDER BY explicit NULLS FIRST, route_ref`)) ?? [];
  return {
    attributes: attributes.map((r) => ({ fareId: str(r.fare_id), price: Number(r.price), currency: str(r.currency_type), transfers: int(r.transfers, -1), transferDuration: int(r.transfer_duration, -1) })),
    ruleSets,
    stopZones: new Map(zones.map((r) => [Number(r.id), str(r.zone_id)])),
    products: products.map((r) => ({ productId: str(r.fare_product_id), name: str(r.fare_product_name), riderCategory: opt(r.rider_category_id), amount: Number(r.amount), currency: str(r.currency) })),
    defaultCategories: cats.map((r) => str(r.rider_category_id)),
    legRules: legRules.map((r) => ({
      legGroup: str(r.leg_group_id), network: opt(r.network_id), fromArea: opt(r.from_area_id), toArea: opt(r.to_area_id), product: str(r.fare_product_id),
      priority: int(r.rule_priority, -1), timeframe: Boolean(r.tf),
    })),
    transferRules: transferRules.map((r) => ({
      fromLegGroup: str(r.from_leg_group_id), toLegGroup: str(r.to_leg_group_id), transferCount: int(r.transfer_count, 0), durationLimit: int(r.duration_limit, -1),
      durationLimitType: int(r.duration_limit_type, 0), transferType: int(r.fare_transfer_type, 0), product: opt(r.fare_product_id),
    })),
    stopAreas: stopAreas.map((r) => ({ area: str(r.area_id), stop: Number(r.stop_ref) })),
    // route_networks.txt rows come last, so they win over routes.network_id
    routeNetworks: new Map(networks.map((r) => [Number(r.route_ref), str(r.network_id)])),
  };
}

/** Interns the ids of one index space, per feed. */
class Ids {
  readonly ids: string[] = [];
  private readonly idx = new Map<string, number>();
  of(feed: number, id: string): number {
    const k = `${feed}\u0000${id}`;
    let i = this.idx.get(k);
    if (i === undefined) {
      i = this.ids.length;
      this.ids.push(id);
      this.idx.set(k, i);
    }
    return i;
  }
  get(feed: number, id: string | null): number {
    return id === null ? -1 : (this.idx.get(`${feed}\u0000${id}`) ?? -1);
  }
}

const sortedUnique = (a: number[]) => [...new Set(a)].sort((x, y) => x - y);

/** The fare columns being laid out, feed after feed (fareTables' steps append to them). */
interface FareLayout {
  zones: Ids;
  networks: Ids;
  areas: Ids;
  productIds: Ids;
  feedSystem: Uint8Array;
  feedPriority: Uint8Array;
  feedAttr: number[];
  feedFree: number[];
  feedLeg: number[];
  feedTransfer: number[];
  a: { fareId: string[]; price: number[]; currency: string[]; transfers: number[]; duration: number[]; routeStart: number[]; odStart: number[]; containsStart: number[] };
  attrRoutes: number[];
  odO: number[];
  odD: number[];
  contains: number[];
  free: number[];
  routeAttrs: number[][];
  p: { id: string[]; name: string[]; amount: number[]; currency: string[] };
  lr: { group: string[]; network: number[]; from: number[]; to: number[]; product: number[]; priority: number[]; timeframe: number[] };
  tr: { from: string[]; to: string[]; count: number[]; limit: number[]; limitType: number[]; type: number[]; product: number[] };
  networkNamed: Set<number>;
  fromNamed: Set<number>;
  toNamed: Set<number>;
  routeNetwork: Int32Array;
  areasOfStopKey: Map<number, number[]>;
}

/**
 * The fare tables of the assembled timetable: `stops` are the timetable's stops in index order,
 * `routeIdx` maps a route key to its GTFS route index (src.routes order). Each feed's fares v1,
 * products and v2 rules are laid out in turn (ids are interned in that order), then the stops' and
 * routes' columns.
 */
export function fareTables(src: SourceData, stops: readonly SourceStop[], routeIdx: Map<number, number>): FareTimetableTables {
  const nFeeds = src.feeds.length;
  const L = newFareLayout(nFeeds, src.routes.length);
  for (let f = 0; f < nFeeds; f++) {
    const fs = src.fares?.[f] ?? NO_FARES;
    L.feedAttr.push(L.a.fareId.length);
    L.feedFree.push(L.free.length);
    L.feedLeg.push(L.lr.group.length);
    L.feedTransfer.push(L.tr.from.length);
    layoutFaresV1(L, f, fs, routeIdx);
    layoutProducts(L, f, fs);
    layoutFaresV2(L, f, fs, routeIdx);
    L.feedSystem[f] = L.lr.group.length > L.feedLeg[f]! ? 2 : fs.attributes.length ? 1 : 0;
  }
  return fareColumns(L, src, stops);
}

/** An empty layout for `nFeeds` feeds and `nRoutes` GTFS routes. */
function newFareLayout(nFeeds: number, nRoutes: number): FareLayout {
  return {
    zones: new Ids(), networks: new Ids(), areas: new Ids(), productIds: new Ids(),
    feedSystem: new Uint8Array(nFeeds), feedPriority: new Uint8Array(nFeeds),
    feedAttr: [], feedFree: [], feedLeg: [], feedTransfer: [],
    a: { fareId: [], price: [], currency: [], transfers: [], duration: [], routeStart: [], odStart: [], containsStart: [] },
    attrRoutes: [], odO: [], odD: [], contains: [], free: [],
    routeAttrs: Array.from({ length: nRoutes }, () => []),
    p: { id: [], name: [], amount: [], currency: [] },
    lr: { group: [], network: [], from: [], to: [], product: [], priority: [], timeframe: [] },
    tr: { from: [], to: [], count: [], limit: [], limitType: [], type: [], product: [] },
    networkNamed: new Set(), fromNamed: new Set(), toNamed: new Set(),
    routeNetwork: new Int32Array(nRoutes).fill(-1),
    areasOfStopKey: new Map(),
  };
}

/** Fares v1 of feed f: one rule set per fare_id (its rules' routes, OD pairs and contains zones); every stop zone interned. */
function layoutFaresV1(L: FareLayout, f: number, fs: SourceFares, routeIdx: Map<number, number>): void {
  const { a, zones } = L;
  for (const at of fs.attributes) {
    const i = a.fareId.length;
    a.fareId.push(at.fareId);
    a.price.push(Math.fround(at.price));
    a.currency.push(at.currency);
    a.transfers.push(at.transfers);
    a.duration.push(at.transferDuration);
    const rs = fs.ruleSets.get(at.fareId) ?? { routes: [], ods: [], contains: [] };
    const routes = sortedUnique(rs.routes.flatMap((r) => (routeIdx.has(r) ? [routeIdx.get(r)!] : [])));
    const ods = rs.ods.map(([o, d]) => [o === null ? -1 : zones.of(f, o), d === null ? -1 : zones.of(f, d)] as const).sort((x, y) => x[0] - y[0] || x[1] - y[1]);
    const cz = sortedUnique(rs.contains.map((z) => zones.of(f, z)));
    a.routeStart.push(L.attrRoutes.length);
    L.attrRoutes.push(...routes);
    a.odStart.push(L.odO.length);
    for (const [o, d] of ods) {
      L.odO.push(o);
      L.odD.push(d);
    }
    a.containsStart.push(L.contains.length);
    L.contains.push(...cz);
    // candidates of a ride sequence by its first route: attributes without route rules, and those naming the route
    if (rs.routes.length === 0) L.free.push(i);
    for (const r of routes) L.routeAttrs[r]!.push(i);
  }
  // every zone of a stop gets an index: a zone no rule names is still not "no zone" (OTP1 tells them apart)
  for (const z of fs.stopZones.values()) zones.of(f, z);
}

/** Fares v2 products of feed f, each at its regular (default rider category) price: the lowest such amount. */
function layoutProducts(L: FareLayout, f: number, fs: SourceFares): void {
  const regular = new Set(fs.defaultCategories);
  const byProduct = new Map<string, { name: string; amount: number; currency: string }>();
  for (const pr of fs.products) {
    const cur = byProduct.get(pr.productId) ?? { name: pr.name, amount: NaN, currency: pr.currency };
    if ((pr.riderCategory === null || regular.has(pr.riderCategory)) && !(pr.amount >= cur.amount)) [cur.amount, cur.currency] = [pr.amount, pr.currency];
    byProduct.set(pr.productId, cur);
  }
  for (const [id, pr] of byProduct) {
    L.productIds.of(f, id);
    L.p.id.push(id);
    L.p.name.push(pr.name);
    L.p.amount.push(pr.amount);
    L.p.currency.push(pr.currency);
  }
}

/** Fares v2 of feed f: route networks, stop areas, leg rules (with a known product) and transfer rules. */
function layoutFaresV2(L: FareLayout, f: number, fs: SourceFares, routeIdx: Map<number, number>): void {
  const { networks, areas, lr, tr } = L;
  for (const [key, n] of fs.routeNetworks) {
    const r = routeIdx.get(key);
    if (r !== undefined) L.routeNetwork[r] = networks.of(f, n);
  }
  for (const sa of fs.stopAreas) {
    const l = L.areasOfStopKey.get(sa.stop) ?? L.areasOfStopKey.set(sa.stop, []).get(sa.stop)!;
    l.push(areas.of(f, sa.area));
  }
  for (const r of fs.legRules) {
    const prod = L.productIds.get(f, r.product);
    if (prod < 0) continue;
    const n = r.network === null ? -1 : networks.of(f, r.network);
    const fa = r.fromArea === null ? -1 : areas.of(f, r.fromArea), ta = r.toArea === null ? -1 : areas.of(f, r.toArea);
    if (n >= 0) L.networkNamed.add(n);
    if (fa >= 0) L.fromNamed.add(fa);
    if (ta >= 0) L.toNamed.add(ta);
    if (r.priority >= 0) L.feedPriority[f] = 1;
    lr.group.push(r.legGroup);
    lr.network.push(n);
    lr.from.push(fa);
    lr.to.push(ta);
    lr.product.push(prod);
    lr.priority.push(r.priority);
    lr.timeframe.push(r.timeframe ? 1 : 0);
  }
  for (const r of fs.transferRules) {
    tr.from.push(r.fromLegGroup);
    tr.to.push(r.toLegGroup);
    tr.count.push(r.transferCount);
    tr.limit.push(r.durationLimit);
    tr.limitType.push(r.durationLimitType);
    tr.type.push(r.transferType);
    tr.product.push(r.product === null ? -1 : L.productIds.get(f, r.product));
  }
}

/**
 * The laid-out fares as the timetable's tables, with the stops' columns (zone: a stop's own
 * zone_id, as OTP1 reads it; areas: its own and its station's) and the routes' attribute lists.
 */
function fareColumns(L: FareLayout, src: SourceData, stops: readonly SourceStop[]): FareTimetableTables {
  const { a, p, lr, tr, zones, networks, areas } = L;
  const feedOfStops = stops.map((s) => s.feed);
  const stopZone = Int32Array.from(stops, (s, i) => {
    const z = src.fares?.[feedOfStops[i]!]?.stopZones.get(s.key);
    return z === undefined ? -1 : zones.get(s.feed, z);
  });
  const areaStart: number[] = [], stopAreaList: number[] = [];
  for (const s of stops) {
    areaStart.push(stopAreaList.length);
    stopAreaList.push(...sortedUnique([...(L.areasOfStopKey.get(s.key) ?? []), ...(s.parent >= 0 ? (L.areasOfStopKey.get(s.parent) ?? []) : [])]));
  }
  const routeAttrStart: number[] = [], routeAttrList: number[] = [];
  for (const l of L.routeAttrs) {
    routeAttrStart.push(routeAttrList.length);
    routeAttrList.push(...l);
  }
  const i32 = (x: number[]) => Int32Array.from(x);
  return {
    fare_feeds: { system: L.feedSystem, attr_start: i32(L.feedAttr), free_start: i32(L.feedFree), leg_rule_start: i32(L.feedLeg), transfer_rule_start: i32(L.feedTransfer), has_priority: L.feedPriority },
    fare_attributes: {
      fare_id: a.fareId, price: Float64Array.from(a.price), currency: a.currency, transfers: i32(a.transfers), transfer_duration: i32(a.duration),
      route_start: i32(a.routeStart), od_start: i32(a.odStart), contains_start: i32(a.containsStart),
    },
    fare_attribute_routes: { route: i32(L.attrRoutes) },
    fare_attribute_ods: { origin: i32(L.odO), destination: i32(L.odD) },
    fare_attribute_contains: { zone: i32(L.contains) },
    fare_free_attributes: { attr: i32(L.free) },
    fare_zones: { zone_id: zones.ids },
    fare_stops: { zone: stopZone, area_start: i32(areaStart) },
    fare_stop_areas: { area: i32(stopAreaList) },
    fare_routes: { attr_start: i32(routeAttrStart), network: L.routeNetwork },
    fare_route_attributes: { attr: i32(routeAttrList) },
    fare_products: { product_id: p.id, name: p.name, amount: Float64Array.from(p.amount), currency: p.currency },
    fare_leg_rules: {
      leg_group: lr.group, network: i32(lr.network), from_area: i32(lr.from), to_area: i32(lr.to), product: i32(lr.product), priority: i32(lr.priority),
      timeframe: Uint8Array.from(lr.timeframe),
    },
    fare_transfer_rules: {
      from_leg_group: tr.from, to_leg_group: tr.to, transfer_count: i32(tr.count), duration_limit: i32(tr.limit), duration_limit_type: i32(tr.limitType),
      transfer_type: i32(tr.type), product: i32(tr.product),
    },
    fare_networks: { network_id: networks.ids, named: Uint8Array.from(networks.ids, (_, i) => (L.networkNamed.has(i) ? 1 : 0)) },
    fare_areas: { area_id: areas.ids, from_named: Uint8Array.from(areas.ids, (_, i) => (L.fromNamed.has(i) ? 1 : 0)), to_named: Uint8Array.from(areas.ids, (_, i) => (L.toNamed.has(i) ? 1 : 0)) },
  };
}
