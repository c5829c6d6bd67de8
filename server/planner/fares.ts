/**
 * An itinerary's fare, as OpenTripPlanner 1 computes and serialises it (dev-1.x
 * DefaultFareServiceImpl, FareRuleSet, Fare, FareComponent, Money, WrappedCurrency):
 *
 *   { fare: { regular: Money }, details: { regular: FareComponent[] } }
 *   Money = { currency: { currency, defaultFractionDigits, currencyCode, symbol }, cents }
 *   FareComponent = { fareId: "feed:fare_id", price: Money, routes: ["feed:route_id", ...] }
 *
 * `cents` is in the currency's minor units (ISO 4217 digits: USD 2, JPY 0). OTP-UI reads
 * `fare.fare.regular.cents` and `currency.currencyCode` / `defaultFractionDigits` / `symbol`.
 *
 * GTFS Fares v1, OTP1's algorithm:
 * - rides: consecutive rides on the same route are one ride (createRides); a ride has its first and
 *   last stop's zones and the zones of every stop it passes (a stop without zone_id counts as "no
 *   zone"), its start (departure) and end (arrival) time;
 * - a sequence of rides of one feed matches a fare_id when: its (first origin, last destination)
 *   zones are an origin/destination pair of the fare's rules, or (origin, empty) is, or (empty,
 *   origin) is (OTP1 compares the second fallback with the origin zone: kept as OTP1 has it); the
 *   zones passed are exactly the fare's contains zones, when it has any; every route is one of the
 *   fare's routes, when it has any (a fare without rules matches every sequence of its feed);
 *   transfers (rides - 1) do not exceed `transfers`; the last ride boards within
 *   `transfer_duration` of the first departure. The cheapest matching fare prices the sequence;
 * - the itinerary's fare: the cheapest split of its rides into such sequences (OTP1's dynamic
 *   programming over ride ranges, with its float arithmetic); sequences never span two feeds, so
 *   a multi-feed itinerary pays each feed's part. Components list each priced sequence. When
 *   some ride has no fare at all OTP1 still returns the components it found, with a total of -1
 *   cents (its int cast of an infinite sum): so does this. No priced ride: no fare (OTP1: null).
 *
 * GTFS Fares v2 (a feed with fare_leg_rules; not in OTP1, whose Fare shape it is mapped onto): a
 * leg matches leg rules by network (route_networks / routes.network_id) and from/to areas (a
 * stop's, or its station's, stop_areas), empty fields matching as OTP2 matches them (an empty
 * field matches legs that no rule names; with rule_priority, anything, highest priority kept); the
 * leg's price is the cheapest matching product for the default rider category. Legs chain into one
 * component while fare_transfer_rules allow the next leg (leg groups, transfer_count counted from
 * the chain's first leg, duration_limit from the first leg by its type): type 0 adds the transfer
 * product (A + AB), type 1 also the next leg (A + AB + B), type 2 replaces the first leg's price by
 * it (AB; further transfers of that chain add AB). Not applied: rules with timeframes, fare
 * distances, fare_leg_join_rules, media other than the default category's cheapest.
 */
import type { Journey } from "./api.ts";
import { scopedId } from "./ids.ts";
import type { FareTables, Timetable, TimetableMeta } from "./timetable/types.ts";

/** One ride of an itinerary as the fare rules see it. */
export interface FareRide {
  /** GTFS route index (meta.gtfsRoutes) */
  route: number;
  /** the stops the ride passes, boarding stop first, alighting stop last (timetable stop indexes) */
  stops: ArrayLike<number>;
  /** boarding departure and alighting arrival, seconds from any common origin */
  startSec: number;
  endSec: number;
}

export interface OtpCurrency {
  currency: string;
  defaultFractionDigits: number;
  currencyCode: string;
  symbol: string;
}
export interface OtpMoney {
  currency: OtpCurrency;
  cents: number;
}
export interface OtpFareComponent {
  fareId: string;
  price: OtpMoney;
  routes: string[];
}
/** OTP1's Fare as its API serialises it (fare types other than regular do not exist in GTFS). */
export interface OtpFare {
  fare: { regular: OtpMoney };
  details: { regular: OtpFareComponent[] };
}

/** The rides of a journey, in order. */
export function journeyRides(tt: Timetable, j: Journey): FareRide[] {
  const { core, meta } = tt;
  const out: FareRide[] = [];
  for (const l of j.legs) {
    if (l.kind !== "ride") continue;
    const s0 = core.routeStopStart[l.route]!;
    out.push({ route: meta.tripGtfsRoute[l.trip]!, stops: core.routeStops.subarray(s0 + l.boardPos, s0 + l.alightPos + 1), startSec: l.depSec, endSec: l.arrSec });
  }
  return out;
}

/** An itinerary's `fare` field: `{ fare }` when some ride has a fare, else `{}` (OTP1 leaves it null, and its JSON omits nulls). */
export function fareField(tt: Timetable, j: Journey | null): { fare?: OtpFare } {
  const fare = j ? fareOf(tt.meta, journeyRides(tt, j)) : null;
  return fare ? { fare } : {};
}

// ---- currencies: ISO 4217 minor units and a symbol, from the runtime's CLDR data (Java's Currency for OTP1)
const currencies = new Map<string, OtpCurrency>();
export function currencyOf(code: string): OtpCurrency {
  let c = currencies.get(code);
  if (!c) {
    let digits = 2, symbol = code;
    try {
      const nf = new Intl.NumberFormat("en-US", { style: "currency", currency: code });
      digits = nf.resolvedOptions().maximumFractionDigits ?? 2;
      symbol = nf.formatToParts(0).find((p) => p.type === "currency")?.value ?? code;
    } catch {
      // not a well-formed code: two digits, the code as symbol
    }
    c = { currency: code, defaultFractionDigits: digits, currencyCode: code, symbol };
    currencies.set(code, c);
  }
  return c;
}

/** OTP1's getMoney: a float amount in minor units, rounded; an infinite amount is -1 (OTP1's (int) of Long.MAX_VALUE). */
function money(currency: string, amount: number): OtpMoney {
  const cur = currencyOf(currency);
  return { currency: cur, cents: Number.isFinite(amount) ? Math.round(amount * 10 ** cur.defaultFractionDigits) : -1 };
}

/** A ride as OTP1's fare service holds it (rides on one route merged). */
interface Ride {
  feed: number;
  route: number;
  startZone: number;
  endZone: number;
  /** zones of the stops passed, sorted, unique (-1: a stop without zone) */
  zones: number[];
  startSec: number;
  endSec: number;
  fromStop: number;
  toStop: number;
  /** Fares v2: the leg's cheapest regular rule (product, leg group), found once */
  leg?: { product: number; group: string; amount: number } | null;
}

const INF = Number.POSITIVE_INFINITY;
const f32 = Math.fround;

function addZone(zones: number[], z: number): void {
  let i = 0;
  while (i < zones.length && zones[i]! < z) i++;
  if (zones[i] !== z) zones.splice(i, 0, z);
}

/** Whether the ascending `list[from, to)` holds x. */
function has(list: Int32Array, from: number, to: number, x: number): boolean {
  let lo = from, hi = to - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1, v = list[mid]!;
    if (v === x) return true;
    if (v < x) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

/**
 * The itinerary's fare (OTP1's Fare), or null when none of its rides has a fare. Costs
 * microseconds: every lookup structure is in the timetable file (pipeline/timetable/fares.ts).
 */
export function fareOf(meta: TimetableMeta, fareRides: readonly FareRide[]): OtpFare | null {
  const F = meta.fares;
  if (!F || F.fare_feeds.system.length === 0 || fareRides.length === 0) return null;
  const rides = toRides(meta, F, fareRides);
  const n = rides.length;
  // OTP1 performSearch: cell [i][j] = the cheapest fare of rides i..j, next[i][j] = end of the first
  // component of that, label[i][j] = the fare (attribute or product) of the single sequence i..j
  const result = new Float64Array(n * n), next = new Int32Array(n * n), label = new Int32Array(n * n).fill(-1);
  const endOfComponent = new Int32Array(n).fill(-1);
  const priced = { label: -1 };
  for (let i = 0; i < n; i++) {
    for (let j = 0; j + i < n; j++) {
      const e = j + i;
      let cost = rangeCost(F, rides, j, e, priced);
      const lab = priced.label;
      if (cost < 0) cost = INF;
      if (cost < INF) {
        endOfComponent[j] = e;
        next[j * n + e] = e;
      }
      result[j * n + e] = cost;
      label[j * n + e] = lab;
      for (let k = 0; k < i; k++) {
        const via = f32(result[j * n + j + k]! + result[(j + k + 1) * n + e]!);
        if (result[j * n + e]! > via) {
          result[j * n + e] = via;
          endOfComponent[j] = e;
          next[j * n + e] = next[j * n + j + k]!;
        }
      }
    }
  }
  // OTP1 populateFare: the components of the cheapest split, skipping rides without any fare
  const details: OtpFareComponent[] = [];
  const currenciesUsed = new Set<string>();
  for (let start = 0; start < n; ) {
    while (start < n && endOfComponent[start]! < 0) start++;
    if (start >= n) break;
    const via = next[start * n + endOfComponent[start]!]!;
    const lab = label[start * n + via]!;
    const feed = rides[start]!.feed;
    const feedId = meta.feeds[feed]?.onestopId ?? "";
    const v2 = F.fare_feeds.system[feed] === 2;
    const currency = v2 ? F.fare_products.currency[lab]! : F.fare_attributes.currency[lab]!;
    currenciesUsed.add(currency);
    const routes: string[] = [];
    for (let i = start; i <= via; i++) routes.push(scopedId(feedId, meta.gtfsRoutes[rides[i]!.route]?.routeId ?? ""));
    details.push({ fareId: scopedId(feedId, v2 ? F.fare_products.product_id[lab]! : F.fare_attributes.fare_id[lab]!), price: money(currency, result[start * n + via]!), routes });
    start = via + 1;
  }
  if (details.length === 0) return null;
  // OTP1 assumes one currency; components in several have no meaningful sum (-1, like a missing fare)
  const total = currenciesUsed.size === 1 ? result[n - 1]! : INF;
  return { fare: { regular: money(details[0]!.price.currency.currencyCode, total) }, details: { regular: details } };
}

/** OTP1 createRides: the itinerary's rides, consecutive rides on one route merged (not in Fares v2 feeds, whose legs are legs). */
function toRides(meta: TimetableMeta, F: FareTables, fareRides: readonly FareRide[]): Ride[] {
  const zone = F.fare_stops.zone;
  const zoneOf = (s: number) => (s < zone.length ? zone[s]! : -1);
  const rides: Ride[] = [];
  for (const fr of fareRides) {
    const first = fr.stops[0]!, last = fr.stops[fr.stops.length - 1]!;
    const feed = meta.agencies[meta.gtfsRoutes[fr.route]?.agency ?? -1]?.feed ?? meta.stopFeed[first]!;
    const prev = rides[rides.length - 1];
    if (prev && prev.route === fr.route && F.fare_feeds.system[feed] !== 2) {
      // OTP1 adds the end zone of each hop: the stops after the boarding stop
      for (let i = 1; i < fr.stops.length; i++) addZone(prev.zones, zoneOf(fr.stops[i]!));
      prev.endZone = zoneOf(last);
      prev.endSec = fr.endSec;
      prev.toStop = last;
      continue;
    }
    const zones: number[] = [];
    for (let i = 0; i < fr.stops.length; i++) addZone(zones, zoneOf(fr.stops[i]!));
    rides.push({ feed, route: fr.route, startZone: zoneOf(first), endZone: zoneOf(last), zones, startSec: fr.startSec, endSec: fr.endSec, fromStop: first, toStop: last });
  }
  return rides;
}

/**
 * OTP1 getBestFareAndId for rides i..j (Fares v1), or the chain of legs i..j (Fares v2): the price,
 * and in `priced.label` the fare attribute or product that gives it (-1 none).
 */
function rangeCost(F: FareTables, rides: Ride[], i: number, j: number, priced: { label: number }): number {
  priced.label = -1;
  const feed = rides[i]!.feed;
  for (let k = i + 1; k <= j; k++) if (rides[k]!.feed !== feed) return INF; // "skipped multi-feed ride sequence"
  const system = F.fare_feeds.system[feed];
  if (system === 1) return v1Cost(F, rides, i, j, feed, priced);
  if (system === 2) return v2Cost(F, rides, i, j, feed, priced);
  return INF;
}

function v1Cost(F: FareTables, rides: Ride[], i: number, j: number, feed: number, priced: { label: number }): number {
  const A = F.fare_attributes;
  const first = rides[i]!, lastRide = rides[j]!;
  const startZone = first.startZone, endZone = lastRide.endZone;
  const transfersUsed = j - i;
  const tripTime = lastRide.startSec - first.startSec;
  let zones = first.zones;
  if (j > i) {
    zones = [...first.zones];
    for (let k = i + 1; k <= j; k++) for (const z of rides[k]!.zones) addZone(zones, z);
  }
  let best = INF;
  // candidates: the feed's fares without route rules and those naming the first ride's route, in file order
  const free = F.fare_free_attributes.attr, byRoute = F.fare_route_attributes.attr;
  let [p, pEnd] = rangeOf(F.fare_feeds.free_start, feed, free.length);
  let [q, qEnd] = rangeOf(F.fare_routes.attr_start, first.route, byRoute.length);
  while (p < pEnd || q < qEnd) {
    const a = q >= qEnd || (p < pEnd && free[p]! < byRoute[q]!) ? free[p++]! : byRoute[q++]!;
    const price = A.price[a]!;
    if (!(price < best)) continue;
    const tr = A.transfers[a]!;
    if (tr >= 0 && tr < transfersUsed) continue;
    const td = A.transfer_duration[a]!;
    if (td >= 0 && tripTime > td) continue;
    if (!matches(F, a, startZone, endZone, zones, rides, i, j)) continue;
    best = price;
    priced.label = a;
  }
  return best;
}

/** OTP1 FareRuleSet.matches (no agency: the default fare service sets none). */
function matches(F: FareTables, a: number, startZone: number, endZone: number, zones: number[], rides: Ride[], i: number, j: number): boolean {
  const A = F.fare_attributes;
  const end = (start: Int32Array, list: { length: number }) => (a + 1 < start.length ? start[a + 1]! : list.length);
  // origin/destination: (start, end), else (start, empty), else (empty, start) as OTP1 writes it
  const o0 = A.od_start[a]!, o1 = end(A.od_start, F.fare_attribute_ods.origin);
  if (o1 > o0) {
    const O = F.fare_attribute_ods.origin, D = F.fare_attribute_ods.destination;
    const hasPair = (o: number, d: number) => {
      let lo = o0, hi = o1 - 1;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1, c = O[mid]! - o || D[mid]! - d;
        if (c === 0) return true;
        if (c < 0) lo = mid + 1;
        else hi = mid - 1;
      }
      return false;
    };
    if (!hasPair(startZone, endZone) && !hasPair(startZone, -1) && !hasPair(-1, startZone)) return false;
  }
  // contains: the zones passed are exactly the fare's
  const c0 = A.contains_start[a]!, c1 = end(A.contains_start, F.fare_attribute_contains.zone);
  if (c1 > c0) {
    if (zones.length !== c1 - c0) return false;
    for (let k = 0; k < zones.length; k++) if (zones[k] !== F.fare_attribute_contains.zone[c0 + k]) return false;
  }
  // routes: every route ridden is one of the fare's
  const r0 = A.route_start[a]!, r1 = end(A.route_start, F.fare_attribute_routes.route);
  if (r1 > r0) for (let k = i; k <= j; k++) if (!has(F.fare_attribute_routes.route, r0, r1, rides[k]!.route)) return false;
  return true;
}

// ---- Fares v2

function rangeOf(start: Int32Array, f: number, total: number): [number, number] {
  return [start[f] ?? total, f + 1 < start.length ? start[f + 1]! : total];
}

/** The leg's cheapest regular leg rule (network and areas matched as OTP2 does), or null. */
function legOf(F: FareTables, ride: Ride): Ride["leg"] {
  if (ride.leg !== undefined) return ride.leg;
  const L = F.fare_leg_rules, P = F.fare_products.amount;
  const [r0, r1] = rangeOf(F.fare_feeds.leg_rule_start, ride.feed, L.product.length);
  const prio = F.fare_feeds.has_priority[ride.feed] === 1;
  const network = F.fare_routes.network[ride.route] ?? -1;
  const areasOf = (s: number): Int32Array => {
    const st = F.fare_stops.area_start;
    return s < st.length ? F.fare_stop_areas.area.subarray(st[s]!, s + 1 < st.length ? st[s + 1]! : F.fare_stop_areas.area.length) : new Int32Array(0);
  };
  const fromAreas = areasOf(ride.fromStop), toAreas = areasOf(ride.toStop);
  const networkUnnamed = network < 0 || F.fare_networks.named[network] !== 1;
  const fromUnnamed = !fromAreas.some((x) => F.fare_areas.from_named[x] === 1);
  const toUnnamed = !toAreas.some((x) => F.fare_areas.to_named[x] === 1);
  let best: Ride["leg"] = null, bestPrio = -Infinity;
  for (let r = r0; r < r1; r++) {
    if (L.timeframe[r] === 1) continue;
    const amount = P[L.product[r]!]!;
    if (Number.isNaN(amount)) continue;
    const net = L.network[r]!, fa = L.from_area[r]!, ta = L.to_area[r]!;
    const ok = prio
      ? (net < 0 || net === network) && (fa < 0 || fromAreas.includes(fa)) && (ta < 0 || toAreas.includes(ta))
      : (net >= 0 ? net === network : networkUnnamed) && (fa >= 0 ? fromAreas.includes(fa) : fromUnnamed) && (ta >= 0 ? toAreas.includes(ta) : toUnnamed);
    if (!ok) continue;
    const pr = prio ? L.priority[r]! : 0;
    if (pr < bestPrio) continue;
    if (pr > bestPrio || !best || amount < best.amount) {
      best = { product: L.product[r]!, group: L.leg_group[r]!, amount };
      bestPrio = pr;
    }
  }
  ride.leg = best;
  return best;
}

/** Seconds between two legs of a chain, as duration_limit_type measures them. */
function between(type: number, a: Ride, b: Ride): number {
  switch (type) {
    case 0: return b.endSec - a.startSec;
    case 1: return b.startSec - a.startSec;
    case 2: return b.startSec - a.endSec;
    default: return b.endSec - a.endSec;
  }
}

function v2Cost(F: FareTables, rides: Ride[], i: number, j: number, feed: number, priced: { label: number }): number {
  const first = legOf(F, rides[i]!);
  if (!first) return INF;
  let cost = first.amount;
  if (j > i) {
    const T = F.fare_transfer_rules, P = F.fare_products.amount;
    const [t0, t1] = rangeOf(F.fare_feeds.transfer_rule_start, feed, T.transfer_type.length);
    for (let k = i; k < j; k++) {
      const a = legOf(F, rides[k]!), b = legOf(F, rides[k + 1]!);
      if (!a || !b) return INF;
      // an empty from/to leg group matches the groups that no rule names
      let fromNamed = false, toNamed = false;
      for (let t = t0; t < t1; t++) {
        if (T.from_leg_group[t] === a.group) fromNamed = true;
        if (T.to_leg_group[t] === b.group) toNamed = true;
      }
      let add = INF;
      for (let t = t0; t < t1; t++) {
        const fg = T.from_leg_group[t]!, tg = T.to_leg_group[t]!;
        if (!(fg === "" ? !fromNamed : fg === a.group) || !(tg === "" ? !toNamed : tg === b.group)) continue;
        const count = T.transfer_count[t]!;
        if (count > 0 && k + 1 - i > count) continue;
        const limit = T.duration_limit[t]!;
        if (limit >= 0 && between(T.duration_limit_type[t]!, rides[i]!, rides[k + 1]!) > limit) continue;
        const prod = T.product[t]!;
        const ab = prod >= 0 ? P[prod]! : 0;
        if (Number.isNaN(ab)) continue;
        const type = T.transfer_type[t]!;
        const x = type === 1 ? ab + b.amount : type === 2 && k === i ? ab - first.amount : ab;
        if (x < add) add = x;
      }
      if (add === INF) return INF;
      cost += add;
    }
  }
  priced.label = first.product;
  return f32(cost);
}
