/**
 * The embedded engine: the real Valhalla (npm `@valhallajs/valhallajs`) in this process, over the
 * active street dataset (pipeline/street/import-streets.ts). Calls run on the runtime's native
 * worker threads, never on the JavaScript thread; at most `maxConcurrent` at once so that the
 * catalog's DuckDB queries, which share those threads, always find one free. A new street dataset
 * is swapped in when the manifest changes; calls already running finish on the old one.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { activeStreets, readManifest, type StreetEntry } from "../../pipeline/schema/manifest.ts";
import { STREET_LAYOUT, withDatasetPaths, type ValhallaConfig } from "../../pipeline/schema/street.ts";
import { AppError } from "../errors.ts";
import type { Logger } from "../feature.ts";
import type { EngineAnswer, EngineCall, EngineLane, StreetEngine } from "./engine.ts";
import { engineErrorFromMessage } from "./engine-errors.ts";
import { MAX_HEIGHT_POINTS } from "./schemas/height.ts";
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

export type ActorLike = Record<string, (query: string) => Promise<string>>;

export interface EmbeddedOptions {
  dataDir: string;
  allowHardExclusions: boolean;
  /** engine calls running at once (default: the cores, less one, at least 1) */
  maxConcurrent?: number;
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
  const dir = join(dataDir, entry.path);
  const stored = JSON.parse(readFileSync(join(dir, STREET_LAYOUT.config), "utf8")) as ValhallaConfig;
  return serviceLimits(withDatasetPaths(stored, dir, { elevation: entry.elevation_tiles.length > 0, admin: existsSync(join(dir, STREET_LAYOUT.admin)) }), opts);
}

/**
 * Every Actor this process opened, never collected: under Bun, an Actor created after another one
 * was garbage-collected answered with that one's native state (heights from its elevation folder,
 * its `tileset_last_modified`). A server opens one per street dataset it loads (a nightly swap);
 * tests open many, and the planner's and the gateway's answers must not depend on the order.
 * Each kept Actor holds its tile cache.
 */
const OPENED: ActorLike[] = [];

/** A Valhalla Actor over a configuration (the npm binding's: JSON strings in, JSON strings out). */
export async function openActor(config: ValhallaConfig): Promise<ActorLike> {
  const { Actor } = (await import("@valhallajs/valhallajs")) as unknown as { Actor: new (c: string) => ActorLike };
  const actor = new Actor(JSON.stringify(config));
  OPENED.push(actor);
  return actor;
}

/** A loaded street dataset: its Actor, its centroid process and what it was built from. */
interface Loaded {
  entry: StreetEntry;
  actor: ActorLike;
  centroid: IsolatedCentroid;
}

/** What a centroid that took its process down is answered with: Valhalla's own "no path" (442). */
export const CENTROID_CRASHED = "Centroid error: No path could be found for input";

/**
 * Centroid calls, run by an Actor in a child process (centroid-worker.ts) started on the first
 * call: Valhalla 3.6.1 crashes its process when the locations' paths never meet, which must not
 * take the server with it. A crash fails the calls in flight (CENTROID_CRASHED); the next call
 * starts a new process.
 */
class IsolatedCentroid {
  private child: ReturnType<typeof Bun.spawn> | null = null;
  private readonly pending = new Map<number, { resolve: (text: string) => void; reject: (e: Error) => void }>();
  private nextId = 1;
  private closed = false;
  constructor(
    private readonly config: string,
    private readonly log: Logger,
  ) {}

  call(query: string): Promise<string> {
    if (this.closed) return Promise.reject(new AppError("ENGINE_UNAVAILABLE", "the street dataset was replaced"));
    if (!this.child) {
      const child = Bun.spawn([process.execPath, join(import.meta.dir, "centroid-worker.ts")], {
        // its stderr would mix a crash report into the server's JSON log: the exit is logged instead
        stdio: ["ignore", "ignore", "ignore"],
        ipc: (m: { id: number; text?: string; error?: string }) => {
          const p = this.pending.get(m.id);
          this.pending.delete(m.id);
          if (m.error !== undefined) p?.reject(new Error(m.error));
          else p?.resolve(m.text ?? "");
        },
        onExit: (_proc, code, signal) => {
          if (this.child === child) this.child = null;
          if (this.pending.size && !this.closed) this.log.warn("the centroid process ended (a Valhalla crash); its calls are answered 442", { code, signal, calls: this.pending.size });
          for (const p of this.pending.values()) p.reject(new Error(CENTROID_CRASHED));
          this.pending.clear();
        },
      });
      child.send({ config: this.config });
      this.child = child;
    }
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.child!.send({ id, query });
    });
  }

  close(): void {
    this.closed = true;
    this.child?.kill();
    this.child = null;
  }
}

export class EmbeddedEngine implements StreetEngine {
  readonly kind = "embedded";
  private loaded: Loaded | null = null;
  private readonly maxConcurrent: number;
  /** engine slots of the street endpoints, and the planner's own (its short calls never queue behind long expansions) */
  private readonly lanes: Record<EngineLane, Slots>;

  constructor(private readonly opts: EmbeddedOptions) {
    this.maxConcurrent = opts.maxConcurrent ?? Math.max(1, (navigator.hardwareConcurrency || 2) - 1);
    // the planner's calls are short: as many as there are cores, so a plan's two matrices run at once
    this.lanes = { gateway: new Slots(this.maxConcurrent), planner: new Slots(Math.max(2, navigator.hardwareConcurrency || 2)) };
  }

  /** Loads the active street dataset (again, when it changed). Throws when it cannot be opened. */
  async reload(): Promise<void> {
    const entry = activeStreets(readManifest(this.opts.dataDir));
    if (!entry) {
      if (this.loaded) this.opts.log.warn("street dataset deactivated: street routing answers 503");
      this.loaded?.centroid.close();
      this.loaded = null;
      return;
    }
    if (this.loaded?.entry.sha1 === entry.sha1) return;
    const config = engineConfig(this.opts.dataDir, entry, { allowHardExclusions: this.opts.allowHardExclusions });
    const actor = await openActor(config);
    // a first call opens the tiles: a broken dataset fails here, not on a user's request
    await actor.status!("{}");
    // (the replaced Actor stays open: openActor keeps every Actor, see OPENED)
    this.loaded?.centroid.close();
    this.loaded = { entry, actor, centroid: new IsolatedCentroid(JSON.stringify(config), this.opts.log) };
    this.opts.log.info("street dataset loaded", { sha1: entry.sha1, osm: entry.osm.map((o) => o.source), elevation_tiles: entry.elevation_tiles.length });
  }

  /** The engine's answer as a whole string (the binding's), or its error as Valhalla's error body. */
  async handle(call: EngineCall): Promise<EngineAnswer> {
    const loaded = this.loaded;
    if (!loaded) throw new AppError("ENGINE_UNAVAILABLE", NO_STREETS_MESSAGE);
    if (call.format === "pbf") {
      // the binding hands protobuf answers back as a JavaScript string: the bytes come out mangled
      throw new AppError("INVALID_PARAMETER", PBF_REFUSED, { engineCode: 199, parameter: "format" });
    }
    const query = call.body === null ? "{}" : call.merged();
    const method = call.action === "centroid" ? (q: string) => loaded.centroid.call(q) : loaded.actor[METHOD[call.action]]!.bind(loaded.actor);
    const lane = this.lanes[call.lane ?? "gateway"];
    await lane.acquire(call.signal);
    let text: string;
    try {
      text = await method(query);
    } catch (e) {
      const body = engineErrorFromMessage(call.action, (e as Error).message ?? String(e));
      return { status: body.status_code, contentType: "application/json", body: JSON.stringify(body) };
    } finally {
      lane.release();
    }
    return { status: 200, contentType: contentType(call.format), body: text };
  }

  async close(): Promise<void> {
    this.loaded?.centroid.close();
  }

  health() {
    const e = this.loaded?.entry;
    return {
      engine: this.kind,
      max_concurrent: this.maxConcurrent,
      street_dataset: e ? { sha1: e.sha1, osm: e.osm.map((o) => o.source), elevation_tiles: e.elevation_tiles, bbox: e.bbox, built_at: e.built_at } : null,
    };
  }

}

export const PBF_REFUSED =
  "Invalid parameter: format pbf is not available from the embedded engine (its binding cannot pass protobuf answers through intact); use json, osrm or gpx, or forward to an external Valhalla with --valhalla-url";

export const NO_STREETS_MESSAGE = "no street dataset is active: import one with `interchange import --osm FILE.osm.pbf`, or forward to an external engine with --valhalla-url";

function contentType(format: string | undefined): string {
  return format === "gpx" ? "application/gpx+xml" : "application/json";
}

/**
 * A counting semaphore of engine calls: at most `max` run at once, the others wait in order (or
 * give up when their signal aborts: the client went away, or the planner stopped waiting).
 */
class Slots {
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(private readonly max: number) {}

  acquire(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.reject(new AppError("ENGINE_UNAVAILABLE", "client went away"));
    if (this.running < this.max) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const go = () => {
        signal.removeEventListener("abort", gone);
        this.running++;
        resolve();
      };
      const gone = () => {
        const i = this.waiting.indexOf(go);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(new AppError("ENGINE_UNAVAILABLE", "client went away"));
      };
      signal.addEventListener("abort", gone, { once: true });
      this.waiting.push(go);
    });
  }

  release(): void {
    this.running--;
    this.waiting.shift()?.();
  }
}
