/**
 * FEATURE UNDER TEST: an itinerary's `fare` (OTP1's Fare: `{ fare: { regular }, details: { regular } }`)
 * on plans answered by the real server over real feeds. Each itinerary's fare is recomputed here,
 * independently, from the feed's raw fare files (test/support/raw-gtfs.ts) and the itinerary's own
 * legs: a small matcher of the GTFS fare rules (set semantics as OpenTripPlanner 1 applies them:
 * a fare's rules give a set of routes, of origin/destination pairs and of contains zones) and a
 * brute-force search over every split of the rides (not the planner's dynamic programming).
 *
 * Covered: BART origin/destination fares (a station pair checked against fare_attributes' price,
 * and a line change paying one through fare); Caltrain zone fares (2023 feed; the 2017 feed's
 * route-restricted zone pairs); TriMet's zone `contains` fares with a streetcar → MAX transfer
 * (one fare within transfer_duration, two beyond it); two feeds in one itinerary (BART + Caltrain:
 * one component per feed, summed); Yamanashi in JPY (0 fraction digits); GTFS Fares v2 (BART's
 * schedule with C-TRAN's fare_products / fare_leg_rules / fare_transfer_rules and an airport area:
 * networks, areas, the default rider category, free transfers within the duration limit; v2
 * preferred over the feed's v1 files); walk-only itineraries have no fare. OTP-UI's core-utils
 * reads the fare (calculateFares of the 4.x line, getTransitFare of 8.x).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { unzipSync } from "fflate";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
// @ts-ignore untyped CommonJS of OTP-UI's core-utils 4.x (its index needs a browser)
import { calculateFares } from "core-utils-4/lib/deprecated.js";
// @ts-ignore OTP-UI's core-utils 8.x
import { getTransitFare } from "core-utils-8/lib/itinerary.js";
import { readManifest } from "../../pipeline/schema/manifest.ts";
import { startServer, type RunningServer } from "../../server/main.ts";
import { serverConfigFrom } from "../../server/config.ts";
import { fareOf, type FareRide } from "../../server/planner/fares.ts";
import { loadTimetableFile } from "../../server/planner/timetable/arrow-loader.ts";
import { gtfs, importedDataset, tempDir } from "../support/dataset.ts";
import { readRawGtfs, type RawFeed, type Row } from "../support/raw-gtfs.ts";

const quiet = { info() {}, warn() {}, error() {} };
const servers: RunningServer[] = [];
const dirs = new Map<string, string>();

async function serve(name: string, feeds: string[]): Promise<RunningServer> {
  const dir = await importedDataset(name, feeds);
  expect(readManifest(dir).timetable).toBeDefined();
  dirs.set(name, dir);
  const s = await startServer(serverConfigFrom({ data: dir, port: 0, host: "127.0.0.1", noAuth: true }), { log: quiet });
  servers.push(s);
  return s;
}
afterAll(async () => {
  for (const s of servers) await s.stop();
});

type Leg = Record<string, any>;
type Itin = { legs: Leg[]; fare?: any };

async function plan(s: RunningServer, from: [number, number], to: [number, number], date: string, time: string, extra: Record<string, string> = {}): Promise<Itin[]> {
  const q = { fromPlace: from.join(","), toPlace: to.join(","), date, time, showIntermediateStops: "true", numItineraries: "3", ...extra };
  const r = await fetch(`${s.url}/api/v2/routing/otp/plan?${new URLSearchParams(q)}`);
  expect(r.status).toBe(200);
  const body = (await r.json()) as { plan?: { itineraries: Itin[] }; error?: unknown };
  expect(body.error).toBeUndefined();
  return body.plan!.itineraries;
}

// ---------------------------------------------------------------- the test's own fare model

/** `feed:id` → [feed, id] (OTP1's scoped ids; onestop ids hold no colon) */
const unscope = (x: string): [string, string] => {
  const i = x.indexOf(":");
  return [x.slice(0, i), x.slice(i + 1)];
};

/** A feed's fare files, read raw. */
class Fares {
  readonly zone = new Map<string, string>();
  readonly attrs: Row[];
  readonly rules = new Map<string, { routes: Set<string>; od: Set<string>; contains: Set<string> }>();
  constructor(readonly raw: RawFeed) {
    for (const s of raw.get("stops.txt")!) this.zone.set(s.stop_id!, s.zone_id ?? "");
    this.attrs = raw.get("fare_attributes.txt") ?? [];
    for (const a of this.attrs) this.rules.set(a.fare_id!, { routes: new Set(), od: new Set(), contains: new Set() });
    for (const r of raw.get("fare_rules.txt") ?? []) {
      const set = this.rules.get(r.fare_id!)!;
      if (r.route_id) set.routes.add(r.route_id);
      if (r.origin_id || r.destination_id) set.od.add(`${r.origin_id ?? ""}|${r.destination_id ?? ""}`);
      if (r.contains_id) set.contains.add(r.contains_id);
    }
  }
}

/** A ride as the rules see it: consecutive legs on one route are one ride (OTP1). */
interface TRide {
  feed: string;
  route: string;
  routes: string[];
  stops: string[];
  zones: Set<string>;
  start: number;
  end: number;
  fromStop: string;
  toStop: string;
}

function ridesOf(it: Itin, fares: Map<string, Fares>, merge = true): TRide[] {
  const out: TRide[] = [];
  for (const l of it.legs.filter((x) => x.transitLeg)) {
    const [feed, route] = unscope(l.routeId);
    const stops = [l.from, ...(l.intermediateStops ?? []), l.to].map((p: Leg) => unscope(p.stopId)[1]);
    const zoneOf = (s: string) => fares.get(feed)?.zone.get(s) ?? "";
    const prev = out[out.length - 1];
    if (merge && prev && prev.feed === feed && prev.route === route) {
      for (const s of stops.slice(1)) prev.zones.add(zoneOf(s)); // the end zone of each hop
      prev.toStop = stops[stops.length - 1]!;
      prev.end = l.endTime / 1000;
      continue;
    }
    out.push({ feed, route, routes: [l.routeId], stops, zones: new Set(stops.map(zoneOf)), start: l.startTime / 1000, end: l.endTime / 1000, fromStop: stops[0]!, toStop: stops[stops.length - 1]! });
  }
  return out;
}

/** The cheapest v1 fare of rides of one feed: [price, fare_ids at that price]. */
function v1Price(f: Fares, group: TRide[]): [number, string[]] {
  const start = f.zone.get(group[0]!.fromStop) ?? "", end = f.zone.get(group[group.length - 1]!.toStop) ?? "";
  const zones = new Set(group.flatMap((r) => [...r.zones]));
  let best = Infinity, ids: string[] = [];
  for (const a of f.attrs) {
    const r = f.rules.get(a.fare_id!)!;
    if (r.routes.size && !group.every((x) => r.routes.has(x.route))) continue;
    if (r.od.size && !r.od.has(`${start}|${end}`) && !r.od.has(`${start}|`) && !r.od.has(`|${start}`)) continue;
    if (r.contains.size && !(r.contains.size === zones.size && [...zones].every((z) => r.contains.has(z)))) continue;
    if (a.transfers !== "" && a.transfers !== undefined && Number(a.transfers) < group.length - 1) continue;
    if (a.transfer_duration && group[group.length - 1]!.start - group[0]!.start > Number(a.transfer_duration)) continue;
    const p = Math.fround(Number(a.price));
    if (p < best) [best, ids] = [p, [a.fare_id!]];
    else if (p === best) ids.push(a.fare_id!);
  }
  return [best, ids];
}

/** Every split of the rides into consecutive groups, brute force: the cheapest total and its groups. */
function cheapestSplit(rides: TRide[], price: (g: TRide[]) => number): { total: number; groups: TRide[][] } {
  let best = { total: Infinity, groups: [] as TRide[][] };
  for (let mask = 0; mask < 1 << Math.max(0, rides.length - 1); mask++) {
    const groups: TRide[][] = [[rides[0]!]];
    for (let i = 1; i < rides.length; i++) {
      if (mask & (1 << (i - 1))) groups.push([rides[i]!]);
      else groups[groups.length - 1]!.push(rides[i]!);
    }
    const total = groups.reduce((s, g) => s + (g.every((r) => r.feed === g[0]!.feed) ? price(g) : Infinity), 0);
    if (total < best.total) best = { total, groups };
  }
  return best;
}

/** OTP1's JSON shape of a Fare, and what OTP-UI makes of it. */
function checkShape(fare: any, currency: string, digits: number, symbol: string) {
  expect(Object.keys(fare).sort()).toEqual(["details", "fare"]);
  expect(Object.keys(fare.fare)).toEqual(["regular"]);
  const cur = { currency, defaultFractionDigits: digits, currencyCode: currency, symbol };
  expect(fare.fare.regular.currency).toEqual(cur);
  expect(Object.keys(fare.fare.regular).sort()).toEqual(["cents", "currency"]);
  for (const c of fare.details.regular) {
    expect(Object.keys(c).sort()).toEqual(["fareId", "price", "routes"]);
    expect(c.price.currency).toEqual(cur);
    expect(Number.isInteger(c.price.cents)).toBe(true);
  }
  const warn = console.warn, log = console.log;
  console.warn = console.log = () => {};
  try {
    const ui4 = calculateFares({ legs: [], fare });
    expect(ui4.centsToString(ui4.transitFare)).toBe(`${symbol}${(fare.fare.regular.cents / 10 ** digits).toFixed(digits)}`);
    expect(getTransitFare(fare.fare.regular)).toEqual({ currencyCode: currency, transitFare: fare.fare.regular.cents });
  } finally {
    console.warn = warn;
    console.log = log;
  }
}

/** Checks an itinerary's fare against the test's own computation (Fares v1). */
function checkV1(it: Itin, fares: Map<string, Fares>, currency = "USD", digits = 2, symbol = "$"): number {
  const rides = ridesOf(it, fares);
  const { total, groups } = cheapestSplit(rides, (g) => v1Price(fares.get(g[0]!.feed)!, g)[0]);
  expect(Number.isFinite(total)).toBe(true);
  checkShape(it.fare, currency, digits, symbol);
  expect(it.fare.fare.regular.cents).toBe(Math.round(total * 10 ** digits));
  // components: the rides, in order, each priced as the cheapest fare of its group
  const comps = it.fare.details.regular as { fareId: string; price: { cents: number }; routes: string[] }[];
  expect(comps.flatMap((c) => c.routes)).toEqual(rides.flatMap((r) => r.routes.slice(0, 1)));
  expect(comps.reduce((s, c) => s + c.price.cents, 0)).toBe(it.fare.fare.regular.cents);
  let at = 0;
  for (const c of comps) {
    const group = rides.slice(at, at + c.routes.length);
    at += c.routes.length;
    const [feed] = unscope(c.fareId);
    const [p, ids] = v1Price(fares.get(feed)!, group);
    expect(c.price.cents).toBe(Math.round(p * 10 ** digits));
    expect(ids.map((id) => `${feed}:${id}`)).toContain(c.fareId);
  }
  expect(comps.length).toBeLessThanOrEqual(rides.length);
  expect(groups.length).toBeGreaterThan(0);
  return it.fare.fare.regular.cents;
}

const feedsOf = (its: Itin[]) => new Set(its.flatMap((it) => it.legs.filter((l) => l.transitLeg).map((l) => unscope(l.routeId)[0])));

// ---------------------------------------------------------------- BART + Caltrain 2017 (one dataset, two feeds)

describe("Fares v1 on BART and Caltrain (2017): origin/destination zones, a line change, two feeds", () => {
  let s: RunningServer;
  const fares = new Map<string, Fares>();
  const bart = new Fares(readRawGtfs(gtfs("bart")));
  const ct17 = new Fares(readRawGtfs(gtfs("caltrain-2017")));
  const STOP = { "12TH": [37.803768, -122.27145], SFIA: [37.615966, -122.392409], RICH: [37.936853, -122.353099], DUBL: [37.701687, -121.899179], PALO_ALTO: [37.4434, -122.165] } as const;
  beforeAll(async () => {
    s = await serve("fares-bay", ["bart", "caltrain-2017"]);
  });
  const register = (its: Itin[]) => {
    for (const f of feedsOf(its)) fares.set(f, f.includes("caltrain") ? ct17 : bart);
  };

  test("12th St. Oakland → SFO: the fare of fare_rules (12TH, SFIA), at fare_attributes' price", async () => {
    const its = await plan(s, [...STOP["12TH"]], [...STOP.SFIA], "2019-06-04", "08:00");
    register(its);
    expect(its.length).toBeGreaterThan(0);
    const rule = bart.raw.get("fare_rules.txt")!.find((r) => r.origin_id === "12TH" && r.destination_id === "SFIA")!;
    const price = Number(bart.raw.get("fare_attributes.txt")!.find((a) => a.fare_id === rule.fare_id)!.price);
    expect(price).toBe(10);
    for (const it of its) {
      expect(it.legs.filter((l) => l.transitLeg).map((l) => [unscope(l.from.stopId)[1], unscope(l.to.stopId)[1]])).toEqual([["12TH", "SFIA"]]);
      expect(checkV1(it, fares)).toBe(1000);
      expect(it.fare.details.regular).toHaveLength(1);
      expect(unscope(it.fare.details.regular[0].fareId)[1]).toBe(rule.fare_id);
    }
  });

  test("Richmond → Dublin/Pleasanton with a line change: one through fare (RICH, DUBL), cheaper than two", async () => {
    const its = await plan(s, [...STOP.RICH], [...STOP.DUBL], "2019-06-04", "08:00");
    register(its);
    const changes = its.filter((it) => it.legs.filter((l) => l.transitLeg).length === 2);
    expect(changes.length).toBeGreaterThan(0);
    const through = Number(bart.raw.get("fare_attributes.txt")!.find((a) => a.fare_id === bart.raw.get("fare_rules.txt")!.find((r) => r.origin_id === "RICH" && r.destination_id === "DUBL")!.fare_id)!.price);
    for (const it of changes) {
      expect(checkV1(it, fares)).toBe(Math.round(through * 100));
      expect(it.fare.details.regular).toHaveLength(1);
      expect(it.fare.details.regular[0].routes).toHaveLength(2);
      const legs = ridesOf(it, fares).map((r) => v1Price(bart, [r])[0]);
      expect(legs[0]! + legs[1]!).toBeGreaterThan(through);
    }
  });

  test("Oakland → Palo Alto (BART, then Caltrain 2017 at Millbrae): one component per feed, summed; Caltrain's rules name routes and zones", async () => {
    const its = await plan(s, [...STOP["12TH"]], [...STOP.PALO_ALTO], "2019-06-04", "08:00");
    register(its);
    const both = its.filter((it) => feedsOf([it]).size === 2);
    expect(both.length).toBeGreaterThan(0);
    for (const it of both) {
      checkV1(it, fares);
      const comps = it.fare.details.regular;
      expect(comps).toHaveLength(2);
      expect(new Set(comps.map((c: { fareId: string }) => unscope(c.fareId)[0])).size).toBe(2);
      // Caltrain 2017: the fare of the ride's route and zones (route_id, origin_id, destination_id rows)
      const ct = ridesOf(it, fares).find((r) => fares.get(r.feed) === ct17)!;
      const zones = [ct17.zone.get(ct.fromStop), ct17.zone.get(ct.toStop)];
      const row = ct17.raw.get("fare_rules.txt")!.find((r) => r.route_id === ct.route && r.origin_id === zones[0] && r.destination_id === zones[1])!;
      expect(unscope(comps[1].fareId)[1]).toBe(row.fare_id);
    }
  });

  test("a ride no fare matches (Caltrain 2017's San José and Tamien have no zone): the components that have one and a total of -1, as OTP1; no priced ride: no fare", async () => {
    const dir = dirs.get("fares-bay")!;
    const tt = loadTimetableFile(join(dir, readManifest(dir).timetable!.path));
    const { core, meta } = tt;
    const stop = (id: string) => meta.stopId.indexOf(id);
    /** a ride of the first RAPTOR route passing `from`, then `to` */
    const ride = (from: string, to: string, startSec: number): FareRide => {
      for (let r = 0; r < core.nRoutes; r++) {
        const st = Array.from(core.routeStops.subarray(core.routeStopStart[r]!, core.routeStopStart[r + 1]!));
        const a = st.indexOf(stop(from)), b = st.indexOf(stop(to));
        if (a >= 0 && b > a) return { route: meta.routeGtfsRoute[r]!, stops: st.slice(a, b + 1), startSec, endSec: startSec + 900 };
      }
      throw new Error(`no route from ${from} to ${to}`);
    };
    expect(ct17.zone.get("777402")).toBe("");
    const unpriced = ride("777402", "777403", 3600);
    expect(fareOf(meta, [unpriced])).toBeNull();
    const partial = fareOf(meta, [ride("12TH", "MLBR", 0), unpriced])!;
    expect(partial.fare.regular.cents).toBe(-1);
    const bartFare = v1Price(bart, [{ feed: "", route: "", routes: [], stops: [], zones: new Set(), start: 0, end: 0, fromStop: "12TH", toStop: "MLBR" }])[0];
    expect(partial.details.regular.map((c) => c.price.cents)).toEqual([Math.round(bartFare * 100)]);
    expect(partial.details.regular[0]!.routes).toHaveLength(1);
  });

  test("a walk-only itinerary has no fare", async () => {
    const its = await plan(s, [37.8037, -122.2714], [37.8045, -122.2705], "2019-06-04", "08:00");
    const walks = its.filter((it) => !it.legs.some((l) => l.transitLeg));
    expect(walks.length).toBeGreaterThan(0);
    for (const it of walks) expect("fare" in it).toBe(false);
  });
});

// ---------------------------------------------------------------- Caltrain 2023: zones

describe("Fares v1 on Caltrain (2023): zone pairs", () => {
  test("San Francisco → Palo Alto and → San José: the fare of the stations' zones", async () => {
    const s = await serve("fares-caltrain", ["caltrain"]);
    const ct = new Fares(readRawGtfs(gtfs("caltrain")));
    const seen = new Set<number>();
    for (const to of [[37.4434, -122.165], [37.3297, -121.9027]] as [number, number][]) {
      const its = await plan(s, [37.7764, -122.3943], to, "2023-10-17", "08:00");
      expect(its.length).toBeGreaterThan(0);
      const fares = new Map([...feedsOf(its)].map((f) => [f, ct]));
      for (const it of its) {
        const cents = checkV1(it, fares);
        seen.add(cents);
        // the zones of the boarding and alighting stations pick the fare (origin_id, destination_id)
        const r = ridesOf(it, fares)[0]!;
        const rule = ct.raw.get("fare_rules.txt")!.find((x) => x.origin_id === ct.zone.get(r.fromStop) && x.destination_id === ct.zone.get(r.toStop))!;
        expect(unscope(it.fare.details.regular[0].fareId)[1]).toBe(rule.fare_id);
      }
    }
    expect(seen.size).toBe(2); // two zone counts, two prices
  });
});

// ---------------------------------------------------------------- TriMet: contains zones, transfers, transfer_duration

describe("Fares v1 on TriMet: contains zones and a transfer", () => {
  test("streetcar (zone B) → MAX (zone R): one fare (BR: origin B, contains B and R) within transfer_duration; two beyond it", async () => {
    const s = await serve("fares-trimet", ["trimet-2routes"]);
    const tm = new Fares(readRawGtfs(gtfs("trimet-2routes")));
    const its = await plan(s, [45.493891, -122.671376], [45.435721, -122.567769], "2021-11-09", "09:00");
    const fares = new Map([...feedsOf(its)].map((f) => [f, tm]));
    const transfers = its.filter((it) => it.legs.filter((l) => l.transitLeg).length === 2);
    expect(transfers.length).toBeGreaterThan(0);
    for (const it of transfers) {
      expect(checkV1(it, fares)).toBe(250);
      expect(unscope(it.fare.details.regular[0].fareId)[1]).toBe("BR");
      expect(it.fare.details.regular[0].routes.map((r: string) => unscope(r)[1])).toEqual(["193", "200"]);
    }
    // the same rides with the MAX boarded past transfer_duration (9000 s after the streetcar left): B + R
    const tt = loadTimetableFile(join(dirs.get("fares-trimet")!, readManifest(dirs.get("fares-trimet")!).timetable!.path));
    const stopIdx = new Map(tt.meta.stopId.map((id, i) => [id, i]));
    const rides = ridesOf(transfers[0]!, fares);
    const late = (shift: number): FareRide[] => rides.map((r, k) => ({
      route: tt.meta.gtfsRoutes.findIndex((g) => g.routeId === r.route),
      stops: r.stops.map((id) => stopIdx.get(id)!),
      startSec: r.start + (k ? shift : 0),
      endSec: r.end + (k ? shift : 0),
    }));
    const gap = rides[1]!.start - rides[0]!.start;
    const within = fareOf(tt.meta, late(9000 - gap))!;
    expect(within.fare.regular.cents).toBe(250);
    const beyond = fareOf(tt.meta, late(9001 - gap))!;
    const shifted = rides.map((r, k) => ({ ...r, start: r.start + (k ? 9001 - gap : 0) }));
    expect(beyond.fare.regular.cents).toBe(Math.round(cheapestSplit(shifted, (g) => v1Price(tm, g)[0]).total * 100));
    expect(beyond.fare.regular.cents).toBe(500);
    expect(beyond.details.regular.map((c) => unscope(c.fareId)[1])).toEqual(["B", "R"]);
  });
});

// ---------------------------------------------------------------- Yamanashi: JPY

describe("Fares v1 on Yamanashi: yen, no fraction digits", () => {
  test("bus fares by route and zone pairs, in JPY (defaultFractionDigits 0, cents = yen)", async () => {
    const s = await serve("fares-yamanashi", ["yamanashi"]);
    const ym = new Fares(readRawGtfs(gtfs("yamanashi")));
    const its = await plan(s, [35.640926, 138.570605], [35.667949, 138.569514], "2019-06-04", "09:00");
    const rides = its.filter((it) => it.legs.some((l) => l.transitLeg));
    expect(rides.length).toBeGreaterThan(0);
    const fares = new Map([...feedsOf(its)].map((f) => [f, ym]));
    for (const it of rides) expect(checkV1(it, fares, "JPY", 0, "¥")).toBeGreaterThan(100);
  });
});

// ---------------------------------------------------------------- GTFS Fares v2

/** BART's files with C-TRAN's Fares v2 files, a network of every route and an airport area at SFO. */
function bartWithFaresV2(): string {
  const dir = join(tempDir(), "bart-fares-v2");
  mkdirSync(dir, { recursive: true });
  for (const [name, bytes] of Object.entries(unzipSync(new Uint8Array(readFileSync(gtfs("bart")))))) writeFileSync(join(dir, name), bytes);
  const ctran = unzipSync(new Uint8Array(readFileSync(gtfs("ctran-flex"))));
  for (const f of ["fare_media.txt", "rider_categories.txt", "fare_transfer_rules.txt"]) writeFileSync(join(dir, f), ctran[f]!);
  const text = (f: string) => new TextDecoder().decode(ctran[f]!).trimEnd();
  writeFileSync(join(dir, "fare_products.txt"), `${text("fare_products.txt")}\nAIRPORT_SINGLE,Airport,ADULT,0,5.00,USD\nAIRPORT_SINGLE,Airport,YOUTH,0,2.00,USD\n`);
  // C-TRAN's leg rules (network LOCAL, no areas) and one for legs to the airport area
  const legRules = readRawGtfs(gtfs("ctran-flex")).get("fare_leg_rules.txt")!.map((r) => `${r.leg_group_id},${r.network_id},,,${r.fare_product_id}`);
  writeFileSync(join(dir, "fare_leg_rules.txt"), ["leg_group_id,network_id,from_area_id,to_area_id,fare_product_id", ...legRules, "AIRPORT,LOCAL,,SFO,AIRPORT_SINGLE"].join("\n") + "\n");
  writeFileSync(join(dir, "networks.txt"), "network_id,network_name\nLOCAL,BART\n");
  const routes = readRawGtfs(gtfs("bart")).get("routes.txt")!;
  writeFileSync(join(dir, "route_networks.txt"), `network_id,route_id\n${routes.map((r) => `LOCAL,${r.route_id}`).join("\n")}\n`);
  writeFileSync(join(dir, "areas.txt"), "area_id,area_name\nSFO,San Francisco International Airport\n");
  writeFileSync(join(dir, "stop_areas.txt"), "area_id,stop_id\nSFO,SFIA\n");
  return dir;
}

/** The test's own Fares v2: a leg's cheapest regular product, legs joined while a transfer rule allows. */
function v2Expected(raw: RawFeed, rides: TRide[]): { total: number; comps: { product: string; price: number; n: number }[] } {
  const defaults = new Set(raw.get("rider_categories.txt")!.filter((c) => c.is_default_fare_category === "1").map((c) => c.rider_category_id));
  const price = new Map<string, number>();
  for (const p of raw.get("fare_products.txt")!) {
    if (p.rider_category_id && !defaults.has(p.rider_category_id)) continue;
    price.set(p.fare_product_id!, Math.min(price.get(p.fare_product_id!) ?? Infinity, Number(p.amount)));
  }
  const network = new Map(raw.get("route_networks.txt")!.map((r) => [r.route_id!, r.network_id!]));
  const areas = (stop: string) => raw.get("stop_areas.txt")!.filter((a) => a.stop_id === stop).map((a) => a.area_id!);
  const rules = raw.get("fare_leg_rules.txt")!;
  const namedTo = new Set(rules.map((r) => r.to_area_id).filter(Boolean));
  const namedFrom = new Set(rules.map((r) => r.from_area_id).filter(Boolean));
  const legOf = (r: TRide) => {
    let best: { group: string; product: string; price: number } | null = null;
    for (const x of rules) {
      if (x.network_id && x.network_id !== network.get(r.route)) continue;
      const fa = areas(r.fromStop), ta = areas(r.toStop);
      if (x.from_area_id ? !fa.includes(x.from_area_id) : fa.some((a) => namedFrom.has(a))) continue;
      if (x.to_area_id ? !ta.includes(x.to_area_id) : ta.some((a) => namedTo.has(a))) continue;
      const p = price.get(x.fare_product_id!);
      if (p === undefined) continue;
      if (!best || p < best.price) best = { group: x.leg_group_id!, product: x.fare_product_id!, price: p };
    }
    return best!;
  };
  const transfer = raw.get("fare_transfer_rules.txt")!;
  const comps: { product: string; price: number; n: number }[] = [];
  let head = 0;
  for (let i = 0; i < rides.length; i++) {
    const leg = legOf(rides[i]!);
    const prev = i > 0 ? legOf(rides[i - 1]!) : null;
    // ctran's rule: LOCAL → LOCAL, unlimited, within duration_limit from the first leg's departure (type 1), free (type 0, no product)
    const t = prev && transfer.find((x) => x.from_leg_group_id === prev.group && x.to_leg_group_id === leg.group && rides[i]!.start - rides[head]!.start <= Number(x.duration_limit));
    if (t) comps[comps.length - 1]!.n++;
    else {
      comps.push({ product: leg.product, price: leg.price, n: 1 });
      head = i;
    }
  }
  return { total: comps.reduce((s, c) => s + c.price, 0), comps };
}

describe("GTFS Fares v2 (BART's schedule with C-TRAN's v2 files)", () => {
  let s: RunningServer;
  let raw: RawFeed;
  beforeAll(async () => {
    const dir = bartWithFaresV2();
    raw = readRawGtfs(dir);
    s = await serve("fares-v2", [dir]);
  });

  test("a local ride costs the default rider category's product (ADULT $1.25, not YOUTH $0.00); v1 files of the feed are not used", async () => {
    const its = await plan(s, [37.803768, -122.27145], [37.792874, -122.39702], "2019-06-04", "08:00");
    expect(its.length).toBeGreaterThan(0);
    for (const it of its) {
      checkShape(it.fare, "USD", 2, "$");
      const e = v2Expected(raw, ridesOf(it, new Map(), false));
      expect(it.fare.fare.regular.cents).toBe(Math.round(e.total * 100));
      expect(it.fare.fare.regular.cents).toBe(125);
      expect(unscope(it.fare.details.regular[0].fareId)[1]).toBe("ADULT_LOCAL_SINGLE_RIDE");
    }
  });

  test("a leg to the airport area matches the rule naming its to_area (AIRPORT $5.00)", async () => {
    const its = await plan(s, [37.803768, -122.27145], [37.615966, -122.392409], "2019-06-04", "08:00");
    expect(its.length).toBeGreaterThan(0);
    for (const it of its) {
      const rides = ridesOf(it, new Map(), false);
      const e = v2Expected(raw, rides);
      expect(it.fare.fare.regular.cents).toBe(Math.round(e.total * 100));
      expect(it.fare.details.regular.map((c: { fareId: string; price: { cents: number }; routes: string[] }) => [unscope(c.fareId)[1], c.price.cents, c.routes.length]))
        .toEqual(e.comps.map((c) => [c.product, Math.round(c.price * 100), c.n]));
      expect(it.fare.details.regular[it.fare.details.regular.length - 1].fareId).toMatch(/:AIRPORT_SINGLE$/);
    }
  });

  test("a line change within the transfer rule's duration limit is one local fare", async () => {
    const its = await plan(s, [37.936853, -122.353099], [37.701687, -121.899179], "2019-06-04", "08:00");
    const changes = its.filter((it) => it.legs.filter((l) => l.transitLeg).length === 2);
    expect(changes.length).toBeGreaterThan(0);
    for (const it of changes) {
      const e = v2Expected(raw, ridesOf(it, new Map(), false));
      expect(e.comps).toEqual([{ product: "ADULT_LOCAL_SINGLE_RIDE", price: 1.25, n: 2 }]);
      expect(it.fare.fare.regular.cents).toBe(125);
      expect(it.fare.details.regular).toHaveLength(1);
      expect(it.fare.details.regular[0].routes).toHaveLength(2);
    }
  });
});
