// Purpose: travel times from one origin to many destinations over a departure window (analysis core).
/**
 * Travel-time analysis (issue #29, Conveyal R5's regional analysis): for one origin, one range-RAPTOR
 * pass over every step (minute) of a departure window (raptor/minutes.ts through the core's
 * stepArrivals), and per step the travel time to each destination: the earliest arrival by a ride at
 * one of its egress stops plus the walk from there, or walking all the way when that is shorter.
 * Arrivals only get earlier as the departures do (the search runs latest first), so a destination's
 * best arrival is kept and lowered only through the stops whose arrival fell in that step.
 * Percentiles and accessibility follow (percentiles.ts).
 *
 * Walks are straight lines at walkSpeed within maxWalkSec unless the caller hands in walks measured
 * on the streets (access per origin, egress per destination, direct per origin and destination).
 * No HTTP and no DuckDB here: the analysis command (server/analysis/) reads and writes the files.
 */
import { UNREACHED, type StopWalk, type SearchQuery } from "../api.ts";
import { stepArrivals } from "../raptor/index.ts";
import { dayToIso, localToUnix } from "../timetable/calendar.ts";
import type { PlanService } from "../plan-service.ts";
import { haversineM } from "../../../shared/geo.ts";
import { NO_JOURNEY, percentileIndex, percentileMinutes, minutesOf } from "./percentiles.ts";

export interface AnalysisPoint {
  id: string;
  lat: number;
  lon: number;
}

export interface AnalysisSettings {
  /** local service date, day number since 1970-01-01 */
  day: number;
  /** first departure, local seconds after midnight of `day` */
  windowStartSec: number;
  /** end of the window (exclusive), local seconds after midnight of `day`; past 86400 for a window past midnight */
  windowEndSec: number;
  stepSec: number;
  /** m/s, for the access, egress, direct and transfer walks */
  walkSpeed: number;
  /** longest access, egress or direct walk, seconds */
  maxWalkSec: number;
  /** travel times of this many minutes or more are unreachable */
  maxDurationMin: number;
  maxTransfers: number;
  /** transit modes ridden (plan-params TRANSIT_MODES); null = all */
  transitModes: Set<string> | null;
  /** ascending, each in 1..100 */
  percentiles: number[];
}

/** Where one origin's time went, milliseconds. */
export interface OriginTimings {
  accessMs: number;
  raptorMs: number;
  egressMs: number;
  percentilesMs: number;
}

/** What one origin's pass did: counts, not times (they compare across runs on a loaded host). */
export interface OriginWork {
  /** RAPTOR over every step: rounds run, routes scanned, route stops visited, footpaths relaxed */
  rounds: number;
  routesScanned: number;
  stopsVisited: number;
  footpaths: number;
  /** egress: arrivals at egress stops lowered, those read (not skipped by the stop's bound), (stop, destination) pairs read, destination arrivals lowered */
  stopImprovements: number;
  stopReads: number;
  pairReads: number;
  destinationImprovements: number;
}

export interface OriginResult {
  /** destination-major percentile minutes (nDest * nPct), UNREACHABLE (-1) where unreachable */
  percentiles: Int16Array;
  /** destinations reached by transit at some step */
  reachedByTransit: number;
  timings: OriginTimings;
  work: OriginWork;
}

/**
 * A departure window "HH:MM-HH:MM" (end exclusive; an end at or before the start, or past 24:00,
 * runs past midnight) as local seconds after midnight; a string saying what is wrong otherwise.
 */
export function parseWindow(raw: string): { startSec: number; endSec: number } | string {
  const parts = raw.split("-");
  const clock = (t: string | undefined) => {
    const m = /^(\d{1,2}):(\d{2})(?::(\d{2}))?$/.exec((t ?? "").trim());
    return m && Number(m[2]) < 60 && Number(m[3] ?? 0) < 60 ? Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3] ?? 0) : null;
  };
  const startSec = clock(parts[0]);
  let endSec = clock(parts[1]);
  if (parts.length !== 2 || startSec === null || endSec === null) return `the window must be HH:MM-HH:MM, got ${raw}`;
  if (endSec <= startSec) endSec += 86400;
  if (endSec - startSec > 86400) return "the window is longer than a day";
  return { startSec, endSec };
}

/** The number of departures in the window. Throws on an empty or bad window. */
export function windowSteps(s: AnalysisSettings): number {
  if (!(s.stepSec > 0)) throw new Error(`step must be positive, got ${s.stepSec} s`);
  if (!(s.windowEndSec > s.windowStartSec)) throw new Error("the departure window is empty (its end must come after its start)");
  return Math.ceil((s.windowEndSec - s.windowStartSec) / s.stepSec);
}

/**
 * One analysis run's fixed part (the destinations' egress stops, the searched days, the mode
 * filter), then `origin()` per origin. Not for concurrent use (its scratch arrays are reused).
 */
export class TravelTimeAnalysis {
  readonly nSteps: number;
  readonly nDest: number;
  readonly tz: string;
  /** Unix time relative times count from, and the first departure in relative seconds */
  readonly epochSec: number;
  readonly firstDepSec: number;
  private readonly maxWalkM: number;
  private readonly days: SearchQuery["days"];
  private readonly routeAllowed: Uint8Array | undefined;
  /** stops within walking distance of some destination, and per such stop j: pairs [eStart[j], eStart[j+1]) of eDestWalk ([2e] destination, [2e + 1] walk seconds) */
  readonly egressStops: Int32Array;
  private readonly eStart: Int32Array;
  private readonly eDestWalk: Int32Array;
  private readonly pctIdx: Int32Array;
  // scratch, reused per origin
  private readonly prev: Int32Array;
  /** egress stop j -> an upper bound of max(destArr[d] - walk) over its destinations (a stop arriving at or after it improves none) */
  private readonly slack: Int32Array;
  private readonly destArr: Int32Array;
  private readonly rowOf: Int32Array;
  private readonly touched: Int32Array;
  private series: Int32Array;
  private readonly direct: Int32Array;
  private readonly counts: Int32Array;

  /**
   * `egress`: per destination, the walks (or rides) from stops to it measured on the streets, each
   * within the caller's limit (default: straight lines within maxWalkSec). Throws when the date is outside every feed's service.
   */
  constructor(
    private readonly service: PlanService,
    readonly destinations: AnalysisPoint[],
    readonly settings: AnalysisSettings,
    egress?: (StopWalk[] | null)[],
  ) {
    const s = settings;
    this.nSteps = windowSteps(s);
    this.nDest = destinations.length;
    this.maxWalkM = s.maxWalkSec * s.walkSpeed;
    for (const p of s.percentiles) percentileIndex(this.nSteps, p);
    for (let i = 1; i < s.percentiles.length; i++) if (!(s.percentiles[i]! > s.percentiles[i - 1]!)) throw new Error("percentiles must be ascending");
    this.pctIdx = Int32Array.from(s.percentiles, (p) => percentileIndex(this.nSteps, p));
    const m = service.tt.meta;
    const anchor = destinations[0] ?? { lat: m.stopLat[0] ?? 0, lon: m.stopLon[0] ?? 0 };
    this.tz = service.tzNear(anchor.lat, anchor.lon);
    const backDays = -service.dayDeltas[0]!;
    const ranges = m.feeds.map((f, i) => `${f.onestopId} ${dayToIso(m.feedStartDay[i]!)}..${dayToIso(m.feedEndDay[i]!)}`);
    if (!m.feeds.some((_, f) => s.day >= m.feedStartDay[f]! - 1 && s.day <= m.feedEndDay[f]! + backDays)) {
      throw new Error(`date ${dayToIso(s.day)} is outside the service of every feed (${ranges.join(", ")})`);
    }
    const firstUnix = localToUnix(s.day, s.windowStartSec, this.tz);
    this.epochSec = firstUnix - (service.dayDeltas.length - 1) * 86400;
    this.firstDepSec = firstUnix - this.epochSec;
    this.days = service.searchDays(this.epochSec, firstUnix);
    this.routeAllowed = service.routeFilter(s.transitModes);
    // egress walks, inverted to stop -> destinations (CSR)
    const byStop = new Map<number, { d: number; sec: number }[]>();
    destinations.forEach((p, d) => {
      // (walks measured by the caller come within its own limit: a ride from the stop may be longer than maxWalkSec)
      const measured = egress?.[d];
      const walks = measured ?? service.walkStops(p.lat, p.lon, this.maxWalkM, s.walkSpeed, false);
      for (const w of walks) {
        if (!measured && w.walkSec > s.maxWalkSec) continue;
        let l = byStop.get(w.stop);
        if (!l) byStop.set(w.stop, (l = []));
        l.push({ d, sec: w.walkSec });
      }
    });
    const stops = [...byStop.keys()].sort((a, b) => a - b);
    this.egressStops = Int32Array.from(stops);
    this.eStart = new Int32Array(stops.length + 1);
    let total = 0;
    stops.forEach((p, j) => {
      this.eStart[j] = total;
      total += byStop.get(p)!.length;
    });
    this.eStart[stops.length] = total;
    this.eDestWalk = new Int32Array(2 * total);
    stops.forEach((p, j) => byStop.get(p)!.forEach((e, k) => {
      this.eDestWalk[2 * (this.eStart[j]! + k)] = e.d;
      this.eDestWalk[2 * (this.eStart[j]! + k) + 1] = e.sec;
    }));
    this.prev = new Int32Array(stops.length);
    this.slack = new Int32Array(stops.length);
    this.destArr = new Int32Array(this.nDest);
    this.rowOf = new Int32Array(this.nDest);
    this.touched = new Int32Array(this.nDest);
    this.series = new Int32Array(Math.min(this.nDest, 64) * this.nSteps);
    this.direct = new Int32Array(this.nDest);
    this.counts = new Int32Array(s.maxDurationMin + 1);
  }

  /** Departure of step i, Unix seconds. */
  departureUnix(i: number): number {
    return this.epochSec + this.firstDepSec + i * this.settings.stepSec;
  }

  /** The straight-line access walks of a point (stops within maxWalkSec at walkSpeed). */
  accessWalks(o: { lat: number; lon: number }): StopWalk[] {
    return this.service.walkStops(o.lat, o.lon, this.maxWalkM, this.settings.walkSpeed, false).filter((w) => w.walkSec <= this.settings.maxWalkSec);
  }

  /** The destinations within `radiusM` (default: maxWalkSec's walk) of a point as the crow flies (walking all the way can only be longer). */
  nearDestinations(o: { lat: number; lon: number }, radiusM = this.maxWalkM): number[] {
    const out: number[] = [];
    const dLat = radiusM / 111_000 + 1e-9;
    const dLon = dLat / Math.max(0.05, Math.cos((o.lat * Math.PI) / 180));
    for (let d = 0; d < this.nDest; d++) {
      const p = this.destinations[d]!;
      if (Math.abs(p.lat - o.lat) > dLat || Math.abs(p.lon - o.lon) > dLon) continue;
      if (haversineM(o.lat, o.lon, p.lat, p.lon) <= radiusM) out.push(d);
    }
    return out;
  }

  /**
   * Travel times from `origin`: per destination and step, seconds (NO_JOURNEY when none) handed to
   * `perStep(d, i, sec)` when given (tests read them), and the percentile minutes. `access` and
   * `direct` (seconds per destination, NO_JOURNEY for none): measured on the streets by the caller,
   * else straight lines.
   */
  origin(origin: { lat: number; lon: number }, opts: { access?: StopWalk[]; direct?: Int32Array; perStep?: (d: number, i: number, sec: number) => void } = {}): OriginResult {
    const s = this.settings;
    const nSteps = this.nSteps, nDest = this.nDest, nPct = s.percentiles.length;
    const t0 = performance.now();
    const access = opts.access ?? this.accessWalks(origin);
    const direct = this.direct;
    if (opts.direct) direct.set(opts.direct);
    else {
      direct.fill(NO_JOURNEY);
      for (const d of this.nearDestinations(origin)) {
        const p = this.destinations[d]!;
        const sec = Math.ceil(haversineM(origin.lat, origin.lon, p.lat, p.lon) / s.walkSpeed);
        if (sec <= s.maxWalkSec) direct[d] = sec;
      }
    }
    const t1 = performance.now();
    // transit: per step, the destinations' best arrivals lowered through the stops whose arrival fell
    const { prev, destArr, rowOf, touched, eStart, eDestWalk, slack } = this;
    prev.fill(UNREACHED);
    slack.fill(0x7fffffff);
    destArr.fill(UNREACHED);
    rowOf.fill(-1);
    let nTouched = 0;
    let egressMs = 0;
    const work: OriginWork = { rounds: 0, routesScanned: 0, stopsVisited: 0, footpaths: 0, stopImprovements: 0, stopReads: 0, pairReads: 0, destinationImprovements: 0 };
    let stopImprovements = 0, stopReads = 0, pairReads = 0, destinationImprovements = 0;
    if (access.length && this.egressStops.length) {
      const q: SearchQuery = {
        epochSec: this.epochSec,
        timeSec: this.firstDepSec,
        arriveBy: false,
        windowSec: 0,
        horizonSec: s.maxDurationMin * 60,
        access,
        egress: [],
        maxTransfers: s.maxTransfers,
        walkSpeed: s.walkSpeed,
        days: this.days,
        routeAllowed: this.routeAllowed,
        wheelchair: false,
        maxDurationSec: s.maxDurationMin * 60,
      };
      const stats = stepArrivals(this.service.prepared, q, this.service.pool, nSteps, s.stepSec, this.egressStops, (i, dep, arr, changed, nChanged) => {
        const e0 = performance.now();
        // counted in locals, added to the origin's counts once per step
        let sImp = 0, sRead = 0, pRead = 0, dImp = 0;
        for (let c = 0; c < nChanged; c++) {
          const j = changed[c]!;
          const a = arr[j]!;
          if (a >= prev[j]!) continue;
          prev[j] = a;
          sImp++;
          // no destination of this stop improves when a + walk >= its arrival for every one, i.e. a >=
          // max(destArr - walk): slack[j] holds that maximum as last computed, an upper bound of it
          // now (arrivals only fall), so the stop is skipped exactly
          if (a >= slack[j]!) continue;
          sRead++;
          pRead += eStart[j + 1]! - eStart[j]!;
          let most = -NO_JOURNEY;
          for (let e = 2 * eStart[j]!, end = 2 * eStart[j + 1]!; e < end; e += 2) {
            const w = eDestWalk[e + 1]!;
            const t = a + w;
            const d = eDestWalk[e]!;
            if (t >= destArr[d]!) {
              if (destArr[d]! - w > most) most = destArr[d]! - w;
              continue;
            }
            destArr[d] = t;
            dImp++;
            if (a > most) most = a;
            if (rowOf[d]! < 0) {
              // first reached at step i: no journey at the later steps already searched
              if ((nTouched + 1) * nSteps > this.series.length) {
                const grown = new Int32Array(Math.min(nDest, 2 * (nTouched + 1)) * nSteps);
                grown.set(this.series.subarray(0, nTouched * nSteps));
                this.series = grown;
              }
              rowOf[d] = nTouched;
              touched[nTouched] = d;
              this.series.fill(NO_JOURNEY, nTouched * nSteps + i + 1, (nTouched + 1) * nSteps);
              nTouched++;
            }
          }
          slack[j] = most;
        }
        const series = this.series;
        for (let r = 0; r < nTouched; r++) series[r * nSteps + i] = destArr[touched[r]!]! - dep;
        stopImprovements += sImp;
        stopReads += sRead;
        pairReads += pRead;
        destinationImprovements += dImp;
        egressMs += performance.now() - e0;
      });
      Object.assign(work, { rounds: stats.rounds, routesScanned: stats.routesScanned, stopsVisited: stats.stopsVisited, footpaths: stats.footpaths, stopImprovements, stopReads, pairReads, destinationImprovements });
    }
    const t2 = performance.now();
    // percentiles: the transit times, or walking all the way where shorter
    const out = new Int16Array(nDest * nPct);
    const { series, counts, pctIdx } = this;
    const row = new Int32Array(nSteps);
    for (let d = 0; d < nDest; d++) {
      const r = rowOf[d]!;
      const w = direct[d]!;
      if (r < 0) {
        out.fill(minutesOf(w, s.maxDurationMin), d * nPct, (d + 1) * nPct);
        if (opts.perStep) for (let i = 0; i < nSteps; i++) opts.perStep(d, i, w);
        continue;
      }
      for (let i = 0; i < nSteps; i++) {
        const t = series[r * nSteps + i]!;
        row[i] = t < w ? t : w;
      }
      if (opts.perStep) for (let i = 0; i < nSteps; i++) opts.perStep(d, i, row[i]!);
      percentileMinutes(row, nSteps, s.maxDurationMin, pctIdx, counts, out, d * nPct);
    }
    const t3 = performance.now();
    return { percentiles: out, reachedByTransit: nTouched, timings: { accessMs: t1 - t0, raptorMs: t2 - t1 - egressMs, egressMs, percentilesMs: t3 - t2 }, work };
  }
}

