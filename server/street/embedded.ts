/**
 * The embedded engine: the real Valhalla (npm `@valhallajs/valhallajs`) over the active street
 * dataset (pipeline/street/import-streets.ts). By default (isolation `process`) its calls run in
 * supervised pools of engine processes (engine-pool.ts), one pool per lane, so that a native crash
 * of the engine fails only the call that caused it; with isolation `none` they run in this
 * process on the runtime's native worker threads (only centroid, a known crasher, keeps a process
 * of its own). Either way at most `maxConcurrent` street calls run at once, so that the catalog's
 * DuckDB queries, which share the cores, always find one free; a call waits a bounded time for a
 * slot (then 503 with Retry-After). A new street dataset is swapped in when the manifest changes:
 * calls already running finish on the old processes, which are then ended.
 */
import { activeStreets, readManifest, type StreetEntry } from "../../pipeline/schema/manifest.ts";
import { datasetEngineConfig, type ValhallaConfig } from "../../pipeline/schema/street.ts";
import { type ActorLike, openActor as openEngine } from "../../shared/street-engine.ts";
import { AppError } from "../errors.ts";
import type { Logger } from "../feature.ts";
import type { EngineAnswer, EngineCall, EngineLane, StreetEngine } from "./engine.ts";
import { engineErrorFromMessage } from "./engine-errors.ts";
import { AnswerTooLarge, EngineCrash, EnginePool, EngineTimeout } from "./engine-pool.ts";
import { fillMissingValues } from "./json-repair.ts";
import { MAX_ANSWER_BYTES, MAX_HEIGHT_POINTS } from "./limits.ts";
import type { StreetAction } from "./schemas/index.ts";

/** The Actor's method for each HTTP action. */
export const METHOD: Record<StreetAction, string> = {
  route: "route",
  isochrone: "isochrone",
  expansion: "expansion",
  height: "height",
  locate: "locate",
  centroid: "centroid",
  status: "status",
  sources_to_targets: "matrix",
  optimized_route: "optimizedRoute",
  trace_route: "traceRoute",
  trace_attributes: "traceAttributes",
};

export type { ActorLike };

export interface EmbeddedOptions {
  dataDir: string;
  allowHardExclusions: boolean;
  /** engine calls running at once (default: the cores, less one, at least 1) */
  maxConcurrent?: number;
  /** where calls run (default process: a crash costs only its call) */
  isolation?: EngineIsolation;
  /** most a call waits for an engine slot before 503 (default DEFAULT_SLOT_WAIT_MS) */
  slotWaitMs?: number;
  /** longest answer passed on (default limits.ts MAX_ANSWER_BYTES) */
  maxAnswerBytes?: number;
  /** most one engine call may run (ms, default DEFAULT_CALL_TIMEOUT_MS); then 503, and a pooled call's process is ended */
  callTimeoutMs?: number;
  /** an engine process ended while running a call of `action` (metrics) */
  onCrash?: (action: string) => void;
  /** a call of `action` ran past callTimeoutMs (metrics) */
  onTimeout?: (action: string) => void;
  log: Logger;
}

/**
 * The spec's Limits where they differ from the engine's defaults (5 isochrone contours, 1 to 3
 * isochrone locations, resample_distance below 10 m), and the server's hard-exclusion setting.
 */
export function serviceLimits(config: ValhallaConfig, opts: { allowHardExclusions: boolean }): ValhallaConfig {
  const c = structuredClone(config);
  const limits = c.service_limits;
  limits.isochrone = { ...limits.isochrone, max_contours: 5, max_locations: 3 };
  // resample_distance 0 never reaches the engine (the gateway drops it) and the gateway bounds the
  // points a small one makes (schemas/height.ts), so any distance above 0 may be allowed here
  limits.skadi = { ...limits.skadi, min_resample: 0.001, max_shape: MAX_HEIGHT_POINTS };
  limits.allow_hard_exclusions = opts.allowHardExclusions;
  limits.status = { ...limits.status, allow_verbose: true };
  return c;
}

/** The engine configuration the server runs a street dataset with. */
export function engineConfig(dataDir: string, entry: StreetEntry, opts: { allowHardExclusions: boolean }): ValhallaConfig {
  return serviceLimits(datasetEngineConfig(dataDir, entry), opts);
}

/** A Valhalla Actor over a configuration (shared/street-engine.ts: every Actor is kept). */
export async function openActor(config: ValhallaConfig): Promise<ActorLike> {
  return openEngine(config);
}

/** How engine calls run: `process` in a supervised pool of engine processes (the default), `none` in this process. */
export type EngineIsolation = "process" | "none";

/**
 * A loaded street dataset: what it was built from and how its calls run. `run` is per lane; in
 * `process` mode each lane has its own pool of engine processes, in `none` mode one Actor in this
 * process serves both lanes and only centroid runs in a pool (Valhalla 3.6.1's centroid crashes
 * its process when the locations' paths never meet: that must not take the server with it).
 */
interface Loaded {
  entry: StreetEntry;
  run: Record<EngineLane, (method: string, query: string, action: StreetAction) => Promise<string>>;
  /** the first call on a dataset (status; it opens the tiles): not held to the calls' deadline */
  probe: () => Promise<string>;
  centroid: (query: string) => Promise<string>;
  pools: EnginePool[];
}

/** What a centroid that took its process down is answered with: Valhalla's own "no path" (442). */
export const CENTROID_CRASHED = "Centroid error: No path could be found for input";

/**
 * What any other call that took its engine process down is answered with: HTTP 500 with the body
 * of Valhalla's catch-all 499 "Unknown" (thor's code for an unexpected failure, which a Valhalla
 * server answers with 500). A 5xx, not a 4xx: the request passed validation, so the fault is the
 * engine's (or the gateway's, which should have refused it); the client's input is not known to
 * be wrong, and it must not read this as "no route". Centroid keeps 442: there the cause is known
 * (the paths never meet), and 442 is what a correct engine answers.
 */
export const ENGINE_CRASHED_BODY = {
  error_code: 499,
  error: "Unknown: the routing engine stopped while answering this request (its process ended; the server goes on and the engine was restarted)",
  status_code: 500,
  status: "Internal Server Error",
} as const;

export class EmbeddedEngine implements StreetEngine {
  readonly kind = "embedded";
  private loaded: Loaded | null = null;
  private readonly maxConcurrent: number;
  private readonly plannerConcurrent: number;
  readonly isolation: EngineIsolation;
  private readonly waitMs: number;
  private readonly maxAnswer: number;
  private readonly timeoutMs: number;
  /**
   * Engine slots of the street endpoints' long calls, and the short lane: the planner's calls and
   * the gateway's `status` (a constant-time read), which never queue behind long expansions.
   */
  private readonly lanes: Record<EngineLane, Slots>;
  /** engine processes ended by a crash, and started (first ones and replacements), over every dataset */
  private crashes = 0;

  constructor(private readonly opts: EmbeddedOptions) {
    this.maxConcurrent = opts.maxConcurrent ?? Math.max(1, (navigator.hardwareConcurrency || 2) - 1);
    // the planner's calls are short: as many as there are cores, so a plan's two matrices run at once
    this.plannerConcurrent = Math.max(2, navigator.hardwareConcurrency || 2);
    this.isolation = opts.isolation ?? "process";
    this.waitMs = opts.slotWaitMs ?? DEFAULT_SLOT_WAIT_MS;
    this.maxAnswer = opts.maxAnswerBytes ?? MAX_ANSWER_BYTES;
    this.timeoutMs = opts.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    this.lanes = { gateway: new Slots(this.maxConcurrent), planner: new Slots(this.plannerConcurrent) };
  }

  /** Loads the active street dataset (again, when it changed). Throws when it cannot be opened. */
  async reload(): Promise<void> {
    const entry = activeStreets(readManifest(this.opts.dataDir));
    if (!entry) {
      if (this.loaded) this.opts.log.warn("street dataset deactivated: street routing answers 503");
      this.drain(this.loaded);
      this.loaded = null;
      return;
    }
    if (this.loaded?.entry.sha1 === entry.sha1) return;
    const config = engineConfig(this.opts.dataDir, entry, { allowHardExclusions: this.opts.allowHardExclusions });
    const loaded = this.isolation === "process" ? this.pooled(entry, config) : await this.inProcess(entry, config);
    try {
      // a first call opens the tiles (and starts a process): a broken dataset fails here, not on a user's request
      await loaded.probe();
      // every process of the pools started and ready before the swap: the first calls on the new
      // dataset do not wait for processes to start while holding the slots
      await Promise.all(loaded.pools.map((p) => p.warm()));
    } catch (e) {
      this.drain(loaded);
      throw e;
    }
    // calls in flight finish on the old processes (or the old Actor), which are then ended
    this.drain(this.loaded);
    this.loaded = loaded;
    this.opts.log.info("street dataset loaded", { sha1: entry.sha1, osm: entry.osm.map((o) => o.source), elevation_tiles: entry.elevation_tiles.length, isolation: this.isolation });
  }

  private pool(config: ValhallaConfig, name: string, size: number): EnginePool {
    return new EnginePool({
      config: JSON.stringify(config),
      size,
      name,
      maxAnswerChars: this.maxAnswer,
      callTimeoutMs: this.timeoutMs,
      onTimeout: this.opts.onTimeout,
      log: this.opts.log,
      onCrash: (action) => {
        this.crashes++;
        this.opts.onCrash?.(action);
      },
    });
  }

  private pooled(entry: StreetEntry, config: ValhallaConfig): Loaded {
    const gateway = this.pool(config, "gateway", this.maxConcurrent);
    const planner = this.pool(config, "planner", this.plannerConcurrent);
    return {
      entry,
      run: { gateway: (m, q, a) => gateway.call(m, q, a), planner: (m, q, a) => planner.call(m, q, a) },
      probe: () => planner.call("status", "{}", "status", { deadline: false }),
      centroid: (q) => gateway.call("centroid", q, "centroid"),
      pools: [gateway, planner],
    };
  }

  private async inProcess(entry: StreetEntry, config: ValhallaConfig): Promise<Loaded> {
    const actor = await openActor(config);
    const centroid = this.pool(config, "centroid", 1);
    const run = async (method: string, query: string, action: StreetAction) => {
      const text = await withDeadline(actor[method]!.call(actor, query), this.timeoutMs, () => this.opts.onTimeout?.(action));
      if (text.length > this.maxAnswer) throw new AnswerTooLarge(text.length);
      return text;
    };
    // (a replaced Actor stays open: openActor keeps every Actor, see OPENED)
    return { entry, run: { gateway: run, planner: run }, probe: () => actor.status!.call(actor, "{}"), centroid: (q) => centroid.call("centroid", q, "centroid"), pools: [centroid] };
  }

  private drain(loaded: Loaded | null): void {
    for (const p of loaded?.pools ?? []) p.drain();
  }

  /** The engine's answer as a whole string (the binding's), or its error as Valhalla's error body. */
  async handle(call: EngineCall): Promise<EngineAnswer> {
    if (!this.loaded) throw new AppError("ENGINE_UNAVAILABLE", NO_STREETS_MESSAGE);
    if (call.format === "pbf") {
      // the binding hands protobuf answers back as a JavaScript string: the bytes come out mangled
      throw new AppError("INVALID_PARAMETER", PBF_REFUSED, { engineCode: 199, parameter: "format" });
    }
    if (call.format === "geotiff") {
      // the same for a GeoTIFF isochrone: binary bytes through a JavaScript string (found by test/fuzz)
      throw new AppError("INVALID_PARAMETER", GEOTIFF_REFUSED, { engineCode: 199, parameter: "format" });
    }
    const query = call.body === null ? "{}" : call.merged();
    // status is a constant-time read: on the short lane, never behind the street endpoints' long calls
    const laneName: EngineLane = call.action === "status" ? "planner" : (call.lane ?? "gateway");
    const lane = this.lanes[laneName];
    await lane.acquire(call.signal, this.waitMs, call.account);
    // the dataset is read once the slot is held: a swap while this call waited drained the pools it
    // would have found before, and a drained pool refuses new calls
    const loaded = this.loaded;
    if (!loaded) {
      lane.release();
      throw new AppError("ENGINE_UNAVAILABLE", NO_STREETS_MESSAGE);
    }
    let text: string;
    let lastStillRunning: Promise<unknown> | null = null;
    try {
      text = call.action === "centroid" ? await loaded.centroid(query) : await loaded.run[laneName](METHOD[call.action], query, call.action);
    } catch (e) {
      if (e instanceof AnswerTooLarge) throw answerTooLarge(e.chars, this.maxAnswer);
      if (e instanceof StillRunning) lastStillRunning = e.call;
      if (e instanceof EngineTimeout) throw new AppError("ENGINE_UNAVAILABLE", `the routing engine did not answer within ${e.ms} ms (--engine-timeout-ms); the call was stopped`, { action: call.action });
      if (e instanceof EngineCrash) {
        if (call.action === "centroid") return errorAnswer(engineErrorFromMessage(call.action, CENTROID_CRASHED));
        return errorAnswer(ENGINE_CRASHED_BODY);
      }
      return errorAnswer(engineErrorFromMessage(call.action, (e as Error).message ?? String(e)));
    } finally {
      // an in-process call answered at its deadline still runs: it keeps its slot until it ends
      if (lastStillRunning) void lastStillRunning.finally(() => lane.release());
      else lane.release();
    }
    const type = contentType(call.format);
    // a NaN or an infinity leaves a hole in the engine's JSON (json-repair.ts): filled with null
    return { status: 200, contentType: type, body: type === "application/json" ? fillMissingValues(text) : text };
  }

  async close(): Promise<void> {
    this.drain(this.loaded);
  }

  health() {
    const e = this.loaded?.entry;
    return {
      engine: this.kind,
      max_concurrent: this.maxConcurrent,
      call_timeout_ms: this.timeoutMs,
      isolation: this.isolation,
      engine_processes: (this.loaded?.pools ?? []).reduce((n, p) => n + p.processes, 0),
      engine_crashes: this.crashes,
      street_dataset: e ? { sha1: e.sha1, osm: e.osm.map((o) => o.source), elevation_tiles: e.elevation_tiles, bbox: e.bbox, built_at: e.built_at } : null,
    };
  }

  /** The pids of the engine processes (tests: a crashed one is replaced, the server's stays). */
  enginePids(): number[] {
    return (this.loaded?.pools ?? []).flatMap((p) => p.pids());
  }
}

function errorAnswer(body: { status_code: number }): EngineAnswer {
  return { status: body.status_code, contentType: "application/json", body: JSON.stringify(body) };
}

function answerTooLarge(chars: number, max: number): AppError {
  return new AppError(
    "INVALID_PARAMETER",
    `Invalid parameter: the answer would be ${(chars / 1e6).toFixed(1)} MB, above this server's limit of ${max / 1e6} MB per answer: ask for less (fewer locations or contours, a shorter time or distance, verbose false, a larger resample_distance)`,
    { engineCode: 199, parameter: "request" },
  );
}

export const PBF_REFUSED =
  "Invalid parameter: format pbf is not available from the embedded engine (its binding cannot pass protobuf answers through intact); use json, osrm or gpx, or forward to an external Valhalla with --valhalla-url";

export const GEOTIFF_REFUSED =
  "Invalid parameter: format geotiff is not available from the embedded engine (its binding cannot pass binary answers through intact); use json, or forward to an external Valhalla with --valhalla-url";

export const NO_STREETS_MESSAGE = "no street dataset is active: import one with `interchange import --osm FILE.osm.pbf`, or forward to an external engine with --valhalla-url";

function contentType(format: string | undefined): string {
  // an isochrone with format geotiff is a TIFF image, not JSON (found by test/fuzz)
  return format === "gpx" ? "application/gpx+xml" : format === "geotiff" ? "image/tiff" : "application/json";
}

/** Most one engine call may run before it is answered 503 (--engine-timeout-ms; under the server's 30 s idle time-out). */
export const DEFAULT_CALL_TIMEOUT_MS = 20_000;

/** An in-process call past its deadline: answered, but the native call goes on (nothing can stop it) until `call` settles. */
class StillRunning extends EngineTimeout {
  constructor(
    ms: number,
    readonly call: Promise<unknown>,
  ) {
    super(ms);
  }
}

/** `call`, or StillRunning once `ms` have passed (`onTimeout` told). */
function withDeadline<T>(call: Promise<T>, ms: number, onTimeout: () => void): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onTimeout();
      reject(new StillRunning(ms, call.catch(() => {})));
    }, ms);
  });
  return Promise.race([call, deadline]).finally(() => clearTimeout(timer));
}

/** How long a call waits for an engine slot before it is answered 503 with Retry-After (--engine-wait-ms). */
export const DEFAULT_SLOT_WAIT_MS = 2000;

/**
 * A counting semaphore of engine calls: at most `max` run at once, the others wait, for at most
 * `waitMs` (then 503 with Retry-After: an unbounded queue answered nothing at all, cut by the idle
 * time-out, issue 31), or until their signal aborts (the client went away, or the planner stopped
 * waiting). Waiting calls are served fairly across accounts: each account waits in its own line,
 * and a freed slot goes to the accounts in turn (round robin), so an account with many calls
 * queued delays another account's call by at most one call per account ahead of it, not by its
 * whole queue. Calls without an account (no keys, the planner's) share one line.
 */
export class Slots {
  private running = 0;
  /** the waiting calls of each account, in arrival order; an account is here only while it has some */
  private readonly lines = new Map<string, (() => void)[]>();
  /** the accounts with waiting calls, in the order they are served next */
  private readonly turn: string[] = [];
  constructor(private readonly max: number) {}

  /** Calls waiting for a slot now (all accounts). */
  get waitingCount(): number {
    let n = 0;
    for (const line of this.lines.values()) n += line.length;
    return n;
  }

  acquire(signal: AbortSignal, waitMs: number, account = ""): Promise<void> {
    if (signal.aborted) return Promise.reject(new AppError("ENGINE_UNAVAILABLE", "client went away"));
    if (this.running < this.max) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const leave = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", gone);
        const line = this.lines.get(account);
        const i = line ? line.indexOf(go) : -1;
        if (i >= 0) line!.splice(i, 1);
        if (line && line.length === 0) {
          this.lines.delete(account);
          const t = this.turn.indexOf(account);
          if (t >= 0) this.turn.splice(t, 1);
        }
      };
      const go = () => {
        leave();
        this.running++;
        resolve();
      };
      const gone = () => {
        leave();
        reject(new AppError("ENGINE_UNAVAILABLE", "client went away"));
      };
      const timer = setTimeout(() => {
        leave();
        reject(new AppError("ENGINE_UNAVAILABLE", `the routing engine is busy: no engine slot came free within ${waitMs} ms; retry later`, { retryAfterSec: 1 }));
      }, waitMs);
      signal.addEventListener("abort", gone, { once: true });
      const line = this.lines.get(account);
      if (line) line.push(go);
      else {
        this.lines.set(account, [go]);
        this.turn.push(account);
      }
    });
  }

  release(): void {
    this.running--;
    const account = this.turn.shift();
    if (account === undefined) return;
    // the account goes to the back of the turn; its call's go() takes it out when its line empties
    this.turn.push(account);
    this.lines.get(account)![0]!();
  }
}
