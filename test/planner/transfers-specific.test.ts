/**
 * FEATURE UNDER TEST: transfers.txt rows that name routes or trips (transfer_types 0-3, and the
 * in-seat types 4 and 5) in the plan, with GTFS's precedence (both trips, a trip and a route, one
 * trip, both routes, one route, then the stop-to-stop rows). Small hand-written feeds, imported by
 * the real pipeline into one dataset: each scenario its own stops and routes (kilometres apart),
 * searched by the range search, the generalized-cost search and arriveBy (the mirrored rules); the
 * in-seat ones through the plan service (interlineWithPreviousLeg). And BART 2023, whose
 * transfers.txt names route pairs: its plans keep every rule.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { cpSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/dataset.ts";
import { importFeed } from "../../pipeline/import.ts";
import { refreshTimetable } from "../../pipeline/timetable/publish.ts";
import { compileTimetable } from "../../pipeline/timetable/compile.ts";
import { readManifest } from "../../pipeline/schema/manifest.ts";
import { loadTimetableFile } from "../../server/planner/timetable/arrow-loader.ts";
import { reverseCore } from "../../server/planner/timetable/reverse.ts";
import { buildServiceDays, isoToDay, localParts, localToUnix } from "../../server/planner/timetable/calendar.ts";
import type { Timetable } from "../../server/planner/timetable/types.ts";
import { RaptorStatePool, prepare, raptorRequest, searchJourneys, type Prepared, type SearchQuery } from "../../server/planner/raptor/index.ts";
import { searchMc } from "../../server/planner/raptor/mc.ts";
import { DEFAULT_RAPTOR_CONFIG, type CostModel, type Journey, type JourneyLeg, type StopIdx } from "../../server/planner/api.ts";
import { PlanService } from "../../server/planner/plan-service.ts";
import { parsePlanParams } from "../../server/planner/plan-params.ts";
import { parseScopedId } from "../../server/planner/ids.ts";
import { bartCaltrain, rng } from "./support/real-dataset.ts";
import { dist } from "./support/gtfs-reference.ts";
import { planResponse } from "../../server/planner/otp1/plan.ts";

type Json = Record<string, any>;

// ---- the fixture feed: one scenario per "block" of stops and routes, each a degree of latitude apart

/** stop times of a trip: [stop, "HH:MM"] */
type TripSpec = { id: string; route: string; times: [string, string][]; block?: string };
interface Scenario {
  tag: string;
  trips: TripSpec[];
  /** transfers.txt rows: from_stop_id,to_stop_id,transfer_type,min_transfer_time,from_route_id,to_route_id,from_trip_id,to_trip_id (ids without the tag) */
  transfers: string[];
  /** stops placed by hand: [latitude, longitude] offsets from the scenario's corner (else 0.1 degrees of longitude apart) */
  at?: Record<string, [number, number]>;
  /** stations (location_type 1) and their stops */
  stations?: Record<string, string[]>;
}

/**
 * The common scenario: R1 brings the rider from A to X at 08:10; R2 leaves X for B at 08:11 (a),
 * 08:20 (b) and 08:40 (c), arriving 08:30, 08:40, 09:00; R3 leaves X at 08:50, arriving 09:20.
 * The stop-to-stop row X -> X asks for 300 s unless `stopRow` says otherwise.
 */
function common(tag: string, rules: string[], stopRow: string | null = "X,X,2,300"): Scenario {
  return {
    tag,
    trips: [
      { id: "R1a", route: "R1", times: [["A", "08:00"], ["X", "08:10"]] },
      { id: "R2a", route: "R2", times: [["X", "08:11"], ["B", "08:30"]] },
      { id: "R2b", route: "R2", times: [["X", "08:20"], ["B", "08:40"]] },
      { id: "R2c", route: "R2", times: [["X", "08:40"], ["B", "09:00"]] },
      { id: "R3a", route: "R3", times: [["X", "08:50"], ["B", "09:20"]] },
    ],
    transfers: [...(stopRow ? [stopRow] : []), ...rules],
  };
}

/** A rule at X -> X: type, min, from route, to route, from trip, to trip. */
const at = (type: number, min: number | "", fr = "", tr = "", ft = "", tt = "") => `X,X,${type},${min},${fr},${tr},${ft},${tt}`;

/**
 * In-seat: F runs A -> X (08:00-08:10), T continues from X at 08:10 to B (08:30), T2 leaves X at
 * 08:40 (B 09:00). With X -> X asking 300 s, only staying on catches T.
 */
function inSeat(tag: string, rules: string[], opts: { block?: boolean; stopRow?: string | null; tFrom?: string } = {}): Scenario {
  const block = opts.block ? "K" : undefined;
  const tFrom = opts.tFrom ?? "X";
  return {
    tag,
    trips: [
      { id: "F", route: "R1", times: [["A", "08:00"], ["X", "08:10"]], block },
      { id: "T", route: "R2", times: [[tFrom, "08:10"], ["B", "08:30"]], block },
      { id: "T2", route: "R2", times: [[tFrom, "08:40"], ["B", "09:00"]] },
    ],
    transfers: opts.stopRow === null ? rules : [opts.stopRow ?? "X,X,2,300", ...rules],
  };
}

const SCENARIOS: Scenario[] = [
  common("base", []),
  // route to route, each type
  common("rr0", [at(0, "", "R1", "R2")]),
  common("rr1", [at(1, "", "R1", "R2")]),
  common("rr2", [at(2, 900, "R1", "R2")]),
  common("rr3", [at(3, "", "R1", "R2")]),
  // trip to trip
  common("tt1", [at(1, "", "", "", "R1a", "R2a")]),
  common("tt3", [at(3, "", "", "", "R1a", "R2b")]),
  // route to trip, trip to route
  common("rt1", [at(1, "", "R1", "", "", "R2a")]),
  common("rt3", [at(3, "", "R1", "", "", "R2b")]),
  common("tr2", [at(2, 60, "", "R2", "R1a", "")]),
  // one side only: from R1 to anything, to R2 from anything
  common("r-3", [at(3, "", "R1", "")]),
  common("-r1", [at(1, "", "", "R2")]),
  // precedence: a stop row of 1800 s; a route rule (timed) over it; a trip rule (not possible) over that
  common("p-stop", [], "X,X,2,1800"),
  common("p-route", [at(1, "", "R1", "R2")], "X,X,2,1800"),
  common("p-trip", [at(1, "", "R1", "R2"), at(3, "", "", "", "R1a", "R2a")], "X,X,2,1800"),
  // a trip rule allowing what its route's rule forbids; a trip + route rule beating a trip-only one
  common("p-allow", [at(3, "", "R1", "R2"), at(0, "", "", "", "R1a", "R2b")]),
  common("p-rank", [at(3, "", "", "", "R1a", ""), at(1, "", "", "R2", "R1a", "")]),
  // in-seat
  inSeat("seat", [",,4,,,,F,T"]),
  inSeat("noseat", []),
  inSeat("block", [], { block: true, stopRow: null }),
  inSeat("block5", [",,5,,,,F,T"], { block: true, stopRow: null }),
  // in-seat from X into T starting at Y, 200 m away: staying on, no walk
  { ...inSeat("seat2", [",,4,,,,F,T"], { stopRow: "X,Y,2,300", tFrom: "Y" }), at: { A: [0, 0], X: [0, 0.1], Y: [0.0018, 0.1], B: [0, 0.2] } },
  // between two stops: R1 reaches X, R2 and R3 leave from Y, 200 m away (a footpath)
  ...(["walk", "walk3", "walk2"] as const).map((tag): Scenario => ({
    tag,
    trips: [
      { id: "R1a", route: "R1", times: [["A", "08:00"], ["X", "08:10"]] },
      { id: "R2a", route: "R2", times: [["Y", "08:14"], ["B", "08:30"]] },
      { id: "R2b", route: "R2", times: [["Y", "08:30"], ["B", "08:45"]] },
      { id: "R3a", route: "R3", times: [["Y", "08:35"], ["B", "08:50"]] },
    ],
    transfers: tag === "walk3" ? ["X,Y,3,,R1,R2,,"] : tag === "walk2" ? ["X,Y,2,900,R1,R2,,"] : [],
    at: { A: [0, 0], X: [0, 0.1], Y: [0.0018, 0.1], B: [0, 0.2] },
  })),
  // R2 leaves from Z, 1.5 km from X: no footpath, unless a rule names the pair
  ...(["far", "far0"] as const).map((tag): Scenario => ({
    tag,
    trips: [
      { id: "R1a", route: "R1", times: [["A", "08:00"], ["X", "08:10"]] },
      { id: "R2z", route: "R2", times: [["Z", "08:40"], ["B", "09:00"]] },
    ],
    transfers: tag === "far0" ? ["X,Z,0,,R1,R2,,"] : [],
    at: { A: [0, 0], X: [0, 0.1], Z: [0.0135, 0.1], B: [0, 0.2] },
  })),
  // a rule naming a station applies to its stops: R1 reaches platform X1, R2 and R3 leave from X2 (50 m)
  {
    tag: "station",
    trips: [
      { id: "R1a", route: "R1", times: [["A", "08:00"], ["X1", "08:10"]] },
      { id: "R2a", route: "R2", times: [["X2", "08:15"], ["B", "08:30"]] },
      { id: "R3a", route: "R3", times: [["X2", "08:20"], ["B", "08:45"]] },
    ],
    transfers: ["XS,XS,3,,R1,R2,,"],
    at: { A: [0, 0], X1: [0, 0.1], X2: [0.00045, 0.1], XS: [0.0002, 0.1], B: [0, 0.2] },
    stations: { XS: ["X1", "X2"] },
  },
  // nonpreferredTransferPenalty: R1 and R2 over X (recommended), 08:00 to 08:40, cost 3720; R3 and
  // R4 over Y (not recommended) leave later and arrive later, 08:05 to 08:42, cost 3660
  {
    tag: "np",
    trips: [
      { id: "R1a", route: "R1", times: [["A", "08:00"], ["X", "08:10"]] },
      { id: "R2a", route: "R2", times: [["X", "08:12"], ["B", "08:40"]] },
      { id: "R3a", route: "R3", times: [["A", "08:05"], ["Y", "08:15"]] },
      { id: "R4a", route: "R4", times: [["Y", "08:17"], ["B", "08:42"]] },
    ],
    transfers: ["X,X,0,,R1,R2,,"],
    at: { A: [0, 0], X: [0, 0.1], Y: [0.1, 0.1], B: [0, 0.2] },
  },
  // rows the timetable cannot use: unknown ids, an in-seat row naming other stops
  common("bad", [at(3, "", "NOPE", "R2"), "A,B,4,,,,R1a,R2a"]),
];

function writeFeed(dir: string, scenarios: Scenario[]): void {
  mkdirSync(dir, { recursive: true });
  const stops = ["stop_id,stop_name,stop_lat,stop_lon,location_type,parent_station"];
  const routes = ["route_id,agency_id,route_short_name,route_long_name,route_type"];
  const trips = ["route_id,service_id,trip_id,block_id"];
  const times = ["trip_id,stop_sequence,stop_id,arrival_time,departure_time"];
  const transfers = ["from_stop_id,to_stop_id,transfer_type,min_transfer_time,from_route_id,to_route_id,from_trip_id,to_trip_id"];
  scenarios.forEach((sc, i) => {
    const lat = 40 + i;
    const id = (x: string) => (x ? `${sc.tag}${x}` : "");
    const seen = new Set<string>();
    // stops 8.5 km apart unless placed: no walking between them
    for (const t of sc.trips) for (const [s] of t.times) seen.add(s);
    const parent = new Map<string, string>();
    for (const [st, kids] of Object.entries(sc.stations ?? {})) {
      for (const k of kids) parent.set(k, st);
      const [dLat, dLon] = sc.at![st]!;
      stops.push(`${id(st)},${sc.tag} ${st},${lat + dLat},${-100 + dLon},1,`);
    }
    [...seen].sort().forEach((s, k) => {
      const [dLat, dLon] = sc.at?.[s] ?? [0, k * 0.1];
      stops.push(`${id(s)},${sc.tag} ${s},${lat + dLat},${-100 + dLon},0,${parent.has(s) ? id(parent.get(s)!) : ""}`);
    });
    for (const r of new Set(sc.trips.map((t) => t.route))) routes.push(`${id(r)},T,${r},,3`);
    for (const t of sc.trips) {
      trips.push(`${id(t.route)},D,${id(t.id)},${t.block ? id(t.block) : ""}`);
      t.times.forEach(([s, hm], k) => times.push(`${id(t.id)},${k + 1},${id(s)},${hm}:00,${hm}:00`));
    }
    for (const row of sc.transfers) {
      const f = row.split(",");
      transfers.push(f.map((v, k) => (k === 2 || k === 3 ? v : id(v))).join(","));
    }
  });
  const files: Record<string, string[]> = {
    "agency.txt": ["agency_id,agency_name,agency_url,agency_timezone", "T,Transfer Test,https://t.example,UTC"],
    "calendar.txt": ["service_id,monday,tuesday,wednesday,thursday,friday,saturday,sunday,start_date,end_date", "D,1,1,1,1,1,1,1,20260101,20261231"],
    "stops.txt": stops,
    "routes.txt": routes,
    "trips.txt": trips,
    "stop_times.txt": times,
    "transfers.txt": transfers,
  };
  for (const [name, lines] of Object.entries(files)) writeFileSync(join(dir, name), lines.join("\n") + "\n");
}

let data: string;
let tt: Timetable;
let prepared: Prepared;
const pool = new RaptorStatePool();
const DAY = isoToDay("2026-07-01");

beforeAll(async () => {
  const feed = join(tempDir(), "feed");
  writeFeed(feed, SCENARIOS);
  data = tempDir();
  expect((await importFeed({ dataDir: data, source: feed })).status).toBe("imported");
  await refreshTimetable(data);
  tt = loadTimetableFile(join(data, readManifest(data).timetable!.path));
  prepared = prepare({ forward: tt.core, backward: () => (tt.reversed ??= reverseCore(tt.core)) });
});

const OTP1_COSTS: CostModel = { walkReluctance: 2, waitReluctance: 1, waitAtBeginningFactor: 0.4, boardCost: 600, transferPenalty: 0 };

/**
 * The journeys from tag+from to tag+to, one line each ("R1 A 08:00 X 08:10, R2 X 08:11 B 08:30"),
 * by arrival: leaving at `time` (range search over `windowSec`), or with arriveBy arriving by it;
 * with `costs` the generalized-cost search (searchJourneys: the range search's journeys and the
 * cost search's), with `mcOnly` the cost search alone (mc.ts searchMc).
 */
function plan(tag: string, from: string, to: string, time: string, o: { arriveBy?: boolean; costs?: boolean; mcOnly?: boolean; windowSec?: number } = {}): string[] {
  const stop = (s: string) => {
    const i = tt.meta.stopId.indexOf(`${tag}${s}`);
    if (i < 0) throw new Error(`no stop ${tag}${s}`);
    return i as StopIdx;
  };
  const [h, m] = time.split(":").map(Number);
  const t = localToUnix(DAY, h! * 3600 + m! * 60, "UTC");
  const epoch = t - 2 * 86400;
  const q: SearchQuery = {
    epochSec: epoch, timeSec: t - epoch, arriveBy: o.arriveBy ?? false, windowSec: o.windowSec ?? 0, horizonSec: 86400,
    access: [{ stop: stop(from), walkSec: 0 }], egress: [{ stop: stop(to), walkSec: 0 }], maxTransfers: 3, walkSpeed: 1.33,
    days: buildServiceDays(tt, epoch, t), wheelchair: false, ...(o.costs || o.mcOnly ? { costs: { ...OTP1_COSTS, startSec: t - epoch }, keepEarliest: 3 } : {}),
  };
  let js: Journey[];
  if (o.mcOnly) {
    const pc = q.arriveBy ? prepared.backward() : prepared.forward;
    const req = raptorRequest(q, q.arriveBy, q.arriveBy ? pc.core : undefined);
    js = searchMc(pc, req, pool.get(pc, req.maxRides), DEFAULT_RAPTOR_CONFIG, []).journeys.map((j) => (q.arriveBy ? forward(j) : j));
  } else js = searchJourneys(prepared, q, pool).journeys;
  return [...js].sort((a, b) => a.arriveSec - b.arriveSec || a.rides - b.rides).map((j) => line(tag, j, epoch));
}

/** A journey of the mirrored core (arriveBy) in forward order: legs reversed, ends swapped, times negated (its trips stay mirrored: `line` reads none). */
function forward(j: Journey): Journey {
  const legs = [...j.legs].reverse().map((l): JourneyLeg => {
    if (l.kind === "ride" || l.kind === "transfer") return { ...l, fromStop: l.toStop, toStop: l.fromStop, depSec: -l.arrSec, arrSec: -l.depSec };
    return { ...l, kind: l.kind === "access" ? "egress" : "access", depSec: -l.arrSec, arrSec: -l.depSec } as JourneyLeg;
  });
  return { ...j, legs, departSec: -j.arriveSec, arriveSec: -j.departSec };
}

function line(tag: string, j: Journey, epoch: number): string {
  const name = (s: number) => tt.meta.stopId[s]!.slice(tag.length);
  const clock = (rel: number) => {
    const sec = localParts(epoch + rel, "UTC").sec;
    return `${String(Math.floor(sec / 3600)).padStart(2, "0")}:${String(Math.floor((sec % 3600) / 60)).padStart(2, "0")}`;
  };
  return j.legs
    .map((l) => (l.kind === "ride" ? `${tt.meta.gtfsRoutes[tt.meta.routeGtfsRoute[l.route]!]!.routeId.slice(tag.length)} ${name(l.fromStop)} ${clock(l.depSec)} ${name(l.toStop)} ${clock(l.arrSec)}` : l.kind === "transfer" ? `walk ${name(l.fromStop)}-${name(l.toStop)}` : ""))
    .filter(Boolean)
    .join(", ");
}

/** The earliest journey by every search: range (single departure and a window), generalized cost; and arriveBy `by` (null: none arrives by then). */
function best(tag: string, want: string | null, arriveBy: { by: string; want: string | null }) {
  const first = (js: string[]): string | null => js[0] ?? null;
  expect({ tag, search: "range", got: first(plan(tag, "A", "B", "07:55")) }).toEqual({ tag, search: "range", got: want });
  expect({ tag, search: "window", got: first(plan(tag, "A", "B", "07:30", { windowSec: 3600 })) }).toEqual({ tag, search: "window", got: want });
  expect({ tag, search: "cost", got: first(plan(tag, "A", "B", "07:55", { costs: true })) }).toEqual({ tag, search: "cost", got: want });
  expect({ tag, search: "mc", got: first(plan(tag, "A", "B", "07:55", { mcOnly: true })) }).toEqual({ tag, search: "mc", got: want });
  const back = plan(tag, "A", "B", arriveBy.by, { arriveBy: true });
  expect({ tag, search: "arriveBy", got: back.find((j) => j === arriveBy.want) ?? first(back) }).toEqual({ tag, search: "arriveBy", got: arriveBy.want });
  const backCost = plan(tag, "A", "B", arriveBy.by, { arriveBy: true, costs: true });
  expect({ tag, search: "arriveBy cost", got: backCost.find((j) => j === arriveBy.want) ?? first(backCost) }).toEqual({ tag, search: "arriveBy cost", got: arriveBy.want });
  const backMc = plan(tag, "A", "B", arriveBy.by, { arriveBy: true, mcOnly: true });
  expect({ tag, search: "arriveBy mc", got: backMc.find((j) => j === arriveBy.want) ?? first(backMc) }).toEqual({ tag, search: "arriveBy mc", got: arriveBy.want });
}

const R2a = "R1 A 08:00 X 08:10, R2 X 08:11 B 08:30";
const R2b = "R1 A 08:00 X 08:10, R2 X 08:20 B 08:40";
const R2c = "R1 A 08:00 X 08:10, R2 X 08:40 B 09:00";
const R3 = "R1 A 08:00 X 08:10, R3 X 08:50 B 09:20";

describe("transfer rules naming routes", () => {
  test("without rules the stop-to-stop minimum (300 s) holds: R2b", () => {
    best("base", R2b, { by: "08:35", want: null });
  });
  test("route to route: recommended and timed need no minimum (R2a), a minimum of 900 s waits for R2c, not possible leaves R3", () => {
    best("rr0", R2a, { by: "08:35", want: R2a });
    best("rr1", R2a, { by: "08:35", want: R2a });
    best("rr2", R2c, { by: "08:50", want: null });
    best("rr3", R3, { by: "09:10", want: null });
  });
  test("one side only: from R1 to any route not possible; timed to R2 from any route", () => {
    best("r-3", null, { by: "10:00", want: null });
    best("-r1", R2a, { by: "08:35", want: R2a });
  });
});

describe("transfer rules naming trips", () => {
  test("trip to trip: timed catches R2a; not possible skips R2b for R2c", () => {
    best("tt1", R2a, { by: "08:35", want: R2a });
    best("tt3", R2c, { by: "08:45", want: null });
  });
  test("route to trip and trip to route", () => {
    best("rt1", R2a, { by: "08:35", want: R2a });
    best("rt3", R2c, { by: "08:45", want: null });
    best("tr2", R2a, { by: "08:35", want: R2a });
  });
});

describe("precedence: trip over route over stop", () => {
  test("a stop row of 1800 s, a timed route rule over it, a trip rule forbidding R2a over that", () => {
    best("p-stop", R2c, { by: "08:50", want: null });
    best("p-route", R2a, { by: "08:35", want: R2a });
    best("p-trip", R2b, { by: "08:35", want: null });
  });
  test("a trip rule allows what its route's rule forbids; a trip and route rule beats a trip-only one", () => {
    best("p-allow", R2b, { by: "08:35", want: null });
    best("p-rank", R2a, { by: "08:35", want: R2a });
  });
});

describe("in-seat transfers", () => {
  const SEAT = "R1 A 08:00 X 08:10, R2 X 08:10 B 08:30";
  test("type 4: staying on from F's last stop into T, without the stop's minimum", () => {
    best("seat", SEAT, { by: "08:35", want: SEAT });
    best("noseat", "R1 A 08:00 X 08:10, R2 X 08:40 B 09:00", { by: "08:35", want: null });
  });

  test("the itinerary marks the in-seat leg interlineWithPreviousLeg; type 5 unmarks a block continuation", () => {
    const svc = new PlanService(tt);
    const interline = (tag: string) => {
      const idx = tt.meta.stopId.indexOf(`${tag}A`), jdx = tt.meta.stopId.indexOf(`${tag}B`);
      const body = planResponse(svc.plan(parsePlanParams({ fromPlace: `${tt.meta.stopLat[idx]},${tt.meta.stopLon[idx]}`, toPlace: `${tt.meta.stopLat[jdx]},${tt.meta.stopLon[jdx]}`, date: "2026-07-01", time: "07:55", numItineraries: "1" }), Date.now())) as Json;
      const rides = body.plan.itineraries[0].legs.filter((l: Json) => l.transitLeg);
      return rides.map((l: Json) => `${parseScopedId(l.tripId, [l.feedId]).id.slice(tag.length)}${l.interlineWithPreviousLeg ? " (in seat)" : ""}`).join(", ");
    };
    expect(interline("seat")).toBe("F, T (in seat)");
    expect(interline("block")).toBe("F, T (in seat)");
    expect(interline("block5")).toBe("F, T");
  });
});

describe("nonpreferredTransferPenalty", () => {
  // the rides of the cheapest itinerary through the plan service (cost ranked: the parameters name a cost)
  const cheapest = (q: Record<string, string>) => {
    const a = tt.meta.stopId.indexOf("npA"), b = tt.meta.stopId.indexOf("npB");
    const body = planResponse(new PlanService(tt).plan(parsePlanParams({ fromPlace: `${tt.meta.stopLat[a]},${tt.meta.stopLon[a]}`, toPlace: `${tt.meta.stopLat[b]},${tt.meta.stopLon[b]}`, date: "2026-07-01", time: "07:55", numItineraries: "3", ...q }), Date.now())) as Json;
    const its = body.plan.itineraries as Json[];
    expect(its.length).toBe(2);
    return its.map((it) => it.legs.filter((l: Json) => l.transitLeg).map((l: Json) => `${l.route} ${l.from.name.slice(3)}`).join(", "));
  };
  const viaX = "R1 A, R2 X", viaY = "R3 A, R4 Y";

  test("a transfer not recommended costs it (OTP1's default 180 s) when transfers.txt recommends some: the recommended one at X wins", () => {
    expect(cheapest({ nonpreferredTransferPenalty: "0" })).toEqual([viaY, viaX]);
    expect(cheapest({ walkBoardCost: "600" })).toEqual([viaX, viaY]);
    expect(cheapest({ nonpreferredTransferPenalty: "180" })).toEqual([viaX, viaY]);
    expect(cheapest({ nonpreferredTransferPenalty: "50" })).toEqual([viaY, viaX]);
    expect(cheapest({ nonpreferredTransferPenalty: "100" })).toEqual([viaX, viaY]);
  });

  test("arriveBy (the mirrored rules): the penalty decides the cheapest arriving by 08:45", () => {
    const a = tt.meta.stopId.indexOf("npA"), b = tt.meta.stopId.indexOf("npB");
    const base = { fromPlace: `${tt.meta.stopLat[a]},${tt.meta.stopLon[a]}`, toPlace: `${tt.meta.stopLat[b]},${tt.meta.stopLon[b]}`, date: "2026-07-01", numItineraries: "3" };
    const first = (q: Record<string, string>) => ((planResponse(new PlanService(tt).plan(parsePlanParams({ ...base, ...q }), Date.now())) as Json).plan.itineraries[0].legs as Json[]).filter((l) => l.transitLeg).map((l) => l.route).join(", ");
    expect(first({ time: "08:45", arriveBy: "true", nonpreferredTransferPenalty: "0" })).toBe("R3, R4");
    expect(first({ time: "08:45", arriveBy: "true", nonpreferredTransferPenalty: "600" })).toBe("R1, R2");
  });
});

describe("transfer rules between two stops", () => {
  test("a route rule between stops changes the walk's transfer: not possible, a minimum of 900 s; one 1.5 km apart (no footpath) allows a walk there", () => {
    // the walk X -> Y takes 152 s: R2a at 08:14
    best("walk", "R1 A 08:00 X 08:10, walk X-Y, R2 Y 08:14 B 08:30", { by: "08:32", want: "R1 A 08:00 X 08:10, walk X-Y, R2 Y 08:14 B 08:30" });
    best("walk3", "R1 A 08:00 X 08:10, walk X-Y, R3 Y 08:35 B 08:50", { by: "08:47", want: null });
    best("walk2", "R1 A 08:00 X 08:10, walk X-Y, R2 Y 08:30 B 08:45", { by: "08:32", want: null });
    best("far", null, { by: "09:05", want: null });
    // 1.5 km at 1.33 m/s: 1128 s, R2z at 08:40
    best("far0", "R1 A 08:00 X 08:10, walk X-Z, R2 Z 08:40 B 09:00", { by: "09:05", want: "R1 A 08:00 X 08:10, walk X-Z, R2 Z 08:40 B 09:00" });
  });

  test("in-seat from one stop into a trip starting at another: no walk leg", () => {
    best("seat2", "R1 A 08:00 X 08:10, R2 Y 08:10 B 08:30", { by: "08:35", want: "R1 A 08:00 X 08:10, R2 Y 08:10 B 08:30" });
  });

  test("a rule naming a station applies between its stops", () => {
    best("station", "R1 A 08:00 X1 08:10, walk X1-X2, R3 X2 08:20 B 08:45", { by: "08:40", want: null });
  });
});

describe("itineraries", () => {
  test("every scenario's plan renders with its sums holding, walks as long as their walking, rides as the feed has them", () => {
    const svc = new PlanService(tt);
    let n = 0;
    for (const sc of SCENARIOS) {
      const a = tt.meta.stopId.indexOf(`${sc.tag}A`), b = tt.meta.stopId.indexOf(`${sc.tag}B`);
      const body = planResponse(svc.plan(parsePlanParams({ fromPlace: `${tt.meta.stopLat[a]},${tt.meta.stopLon[a]}`, toPlace: `${tt.meta.stopLat[b]},${tt.meta.stopLon[b]}`, date: "2026-07-01", time: "07:55", numItineraries: "3" }), Date.now())) as Json;
      for (const it of body.plan?.itineraries ?? []) {
        expect(it.walkTime + it.transitTime + it.waitingTime).toBe(it.duration);
        let prevEnd = it.startTime;
        for (const l of it.legs) {
          expect(l.startTime).toBeGreaterThanOrEqual(prevEnd);
          prevEnd = l.endTime;
          if (!l.transitLeg) expect(l.duration).toBeGreaterThanOrEqual(Math.ceil(dist(l.from, l.to) / 1.33) - 1);
          else {
            const spec = sc.trips.find((t) => `${sc.tag}${t.id}` === parseScopedId(l.tripId, [l.feedId]).id)!;
            const time = (s: string) => Date.parse(`2026-07-01T${spec.times.find(([x]) => `${sc.tag}${x}` === parseScopedId(s, [l.feedId]).id)![1]}:00Z`);
            expect([l.startTime, l.endTime]).toEqual([time(l.from.stopId), time(l.to.stopId)]);
          }
        }
        n++;
      }
    }
    expect(n).toBeGreaterThan(SCENARIOS.length - 5);
  });
});

describe("a real feed whose transfers.txt names route pairs: BART 2023", () => {
  test("plans keep every rule of the transfers they make, and some make them", async () => {
    const { svc, ref } = await bartCaltrain();
    const { meta, core } = svc.tt;
    // BART's 35 rows naming routes (MacArthur, 19th St, 12th St, Coliseum, Bay Fair, Orinda, Lafayette, Rockridge), one stop pair each
    expect(core.transferRules!.type.length).toBe(35);
    const bart = meta.feeds.findIndex((f) => f.onestopId.includes("bayarearapid"));
    let day = Math.floor((meta.feedStartDay[bart]! + meta.feedEndDay[bart]!) / 2);
    while ((day + 3) % 7 > 4) day++;
    const served: number[] = [];
    for (let s = 0; s < core.nStops; s++) if (meta.stopFeed[s] === bart && core.stopRouteStart[s + 1]! > core.stopRouteStart[s]!) served.push(s);
    const rand = rng(11);
    let transfers = 0, ruled = 0;
    for (let i = 0; i < 80; i++) {
      const a = served[Math.floor(rand() * served.length)]!, b = served[Math.floor(rand() * served.length)]!;
      const sec = 6 * 3600 + Math.floor(rand() * 15 * 3600);
      const body = planResponse(svc.plan(parsePlanParams({
        fromPlace: `${meta.stopLat[a]},${meta.stopLon[a]}`, toPlace: `${meta.stopLat[b]},${meta.stopLon[b]}`, date: new Date(day * 86400_000).toISOString().slice(0, 10),
        time: `${Math.floor(sec / 3600)}:${String(Math.floor((sec % 3600) / 60)).padStart(2, "0")}`, arriveBy: i % 3 === 2 ? "true" : "false", ...(i % 4 === 1 ? { walkReluctance: "3" } : {}),
      }), Date.now())) as Json;
      for (const it of body.plan?.itineraries ?? []) {
        const rides = it.legs.filter((l: Json) => l.transitLeg);
        rides.forEach((l: Json, k: number) => {
          const key = (id: string) => `${l.feedVersionSha1}|${parseScopedId(id, [l.feedId]).id}`;
          const trip = ref.trips.get(key(l.tripId))!;
          const from = trip.times.find((s) => s.seq === l.from.stopSequence)!, to = trip.times.find((s) => s.seq === l.to.stopSequence)!;
          expect([from.stop, to.stop]).toEqual([key(l.from.stopId), key(l.to.stopId)]);
          expect((l.endTime - l.startTime) / 1000).toBe(to.arr - from.dep);
          if (k === 0) return;
          const p = rides[k - 1]!;
          const pk = (id: string) => `${p.feedVersionSha1}|${parseScopedId(id, [p.feedId]).id}`;
          transfers++;
          const need = ref.ruleSeconds(pk(p.to.stopId), key(l.from.stopId), pk(p.tripId), pk(p.routeId), key(l.tripId), key(l.routeId), 1.33);
          if (need === null) return;
          ruled++;
          expect({ at: l.from.stopId, from: p.routeId, to: l.routeId, waited: (l.startTime - p.endTime) / 1000 >= need }).toEqual({ at: l.from.stopId, from: p.routeId, to: l.routeId, waited: true });
        });
      }
    }
    expect(transfers).toBeGreaterThan(20);
    expect(ruled).toBeGreaterThan(5);
  });
});

describe("the compiled rules", () => {
  test("rules per stop pair with GTFS specificity: stations expanded, in-seat rows on their trips' stops, trips named by rule trip", () => {
    const r = tt.core.transferRules!;
    const { meta } = tt;
    const rules = (tag: string) => {
      const out: string[] = [];
      const name = (s: number) => meta.stopId[s]!.slice(tag.length);
      const route = (g: number) => (g < 0 ? "*" : meta.gtfsRoutes[g]!.routeId.slice(tag.length));
      const trip = (k: number) => (k < 0 ? "*" : meta.tripId[r.tripRule.indexOf(k)]!.slice(tag.length));
      for (let x = 0; x < r.type.length; x++) {
        const id = meta.stopId[r.fromStop[x]!]!;
        if (!id.startsWith(tag) || !["A", "B", "X", "X1", "X2", "Y", "Z"].includes(id.slice(tag.length))) continue;
        out.push(`${name(r.fromStop[x]!)}>${name(r.toStop[x]!)} ${route(r.fromRoute[x]!)}/${trip(r.fromTrip[x]!)} -> ${route(r.toRoute[x]!)}/${trip(r.toTrip[x]!)} type ${r.type[x]} min ${r.minSec[x]} specificity ${r.specificity[x]}`);
      }
      return out.sort();
    };
    expect(rules("rr2")).toEqual(["X>X R1/* -> R2/* type 2 min 900 specificity 14"]);
    expect(rules("p-rank")).toEqual(["X>X R1/R1a -> */* type 3 min 0 specificity 18", "X>X R1/R1a -> R2/* type 1 min 0 specificity 22"]);
    expect(rules("station")).toEqual(["X1>X1 R1/* -> R2/* type 3 min 0 specificity 12", "X1>X2 R1/* -> R2/* type 3 min 0 specificity 12", "X2>X1 R1/* -> R2/* type 3 min 0 specificity 12", "X2>X2 R1/* -> R2/* type 3 min 0 specificity 12"]);
    expect(rules("seat")).toEqual(["X>X R1/F -> R2/T type 4 min 0 specificity 26"]);
    expect(rules("seat2")).toEqual(["X>Y R1/F -> R2/T type 4 min 0 specificity 26"]);
    expect(rules("block5")).toEqual(["X>X R1/F -> R2/T type 5 min 0 specificity 26"]);
    // the walk between the stops of a rule, straight line
    const far = r.toStop.findIndex((q) => meta.stopId[q] === "far0Z");
    expect(Math.round(r.distM[far]!)).toBe(1501);
  });

  test("rows naming unknown routes, or in-seat rows naming other stops, are left out and reported", async () => {
    const copy = join(tempDir(), "data");
    cpSync(data, copy, { recursive: true });
    rmSync(join(copy, "timetables"), { recursive: true, force: true });
    const msgs: string[] = [];
    await compileTimetable(copy, { progress: (m) => msgs.push(m) });
    expect(msgs.some((m) => /1 transfers\.txt row\(s\) left out \(unknown from_route_id\)/.test(m))).toBe(true);
    expect(msgs.some((m) => /1 in-seat transfers\.txt row\(s\) whose stops are not/.test(m))).toBe(true);
    best("bad", R2b, { by: "08:35", want: null });
  });
});
