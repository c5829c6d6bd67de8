/**
 * Walks measured on the streets for an analysis, when the dataset has an active street dataset:
 * the embedded engine (in this process) answers one-to-many matrices, as for the plan's access and
 * egress (server/planner/street-legs.ts). The candidates are the stops (destinations) within the
 * walk's reach as the crow flies (a street walk is never shorter), all of them measured; those
 * farther than maxWalkSec on the streets, or not connected, drop out. A point the streets do not
 * reach (off the street dataset) keeps its straight-line walks, and is counted in the run report.
 */
import type { StopIdx, StopWalk } from "../planner/api.ts";
import { NO_JOURNEY } from "../planner/analysis/percentiles.ts";
import { activeStreets, readManifest } from "../../pipeline/schema/manifest.ts";
import { createEngine, type StreetEngine } from "../street/engine.ts";
import { streetPaths } from "../street/paths.ts";
import type { LatLon, StreetCost, StreetPaths } from "../street-paths.ts";

const quiet = { info() {}, warn() {}, error() {} };

export class StreetWalks {
  /** points whose walks fell back to straight lines (off the streets) */
  offStreets = { origins: 0, destinations: 0 };
  private readonly cost: StreetCost;

  private constructor(
    private readonly engine: StreetEngine,
    private readonly streets: StreetPaths,
    readonly sha1: string,
    walkSpeed: number,
    private readonly maxWalkSec: number,
  ) {
    this.cost = { mode: "WALK", speedMps: walkSpeed };
  }

  /** The street walks of the dataset's active street dataset, or null when it has none. */
  static async open(dataDir: string, walkSpeed: number, maxWalkSec: number): Promise<StreetWalks | null> {
    const entry = activeStreets(readManifest(dataDir));
    if (!entry) return null;
    const engine = createEngine({ valhallaUrl: null, valhallaTimeoutMs: 30_000, dataDir, allowHardExclusions: false, engineConcurrency: 1, engineIsolation: "none", engineTimeoutMs: 28_000 }, quiet);
    await engine.reload?.();
    return new StreetWalks(engine, streetPaths(engine, () => true), entry.sha1, walkSpeed, maxWalkSec);
  }

  /**
   * The straight-line `candidates` (stops with their coordinates) measured from (`direction` "from")
   * or to ("to") `place`; null when the place is off the streets.
   */
  async stopWalks(place: LatLon, candidates: StopWalk[], stopLat: Float64Array, stopLon: Float64Array, direction: "from" | "to"): Promise<StopWalk[] | null> {
    if (candidates.length === 0) return [];
    const reached = await this.streets.reach(place, candidates.map((c) => ({ lat: stopLat[c.stop]!, lon: stopLon[c.stop]! })), this.cost, direction);
    if (!reached) return null;
    const out: StopWalk[] = [];
    candidates.forEach((c, i) => {
      const r = reached[i];
      if (r && r.sec <= this.maxWalkSec) out.push({ stop: c.stop as StopIdx, walkSec: r.sec });
    });
    return out;
  }

  /** Walking all the way from `origin` to each destination (seconds, NO_JOURNEY beyond maxWalkSec); `near`: the destinations within reach as the crow flies. Null when the origin is off the streets. */
  async direct(origin: LatLon, dests: LatLon[], near: number[]): Promise<Int32Array | null> {
    const out = new Int32Array(dests.length).fill(NO_JOURNEY);
    if (near.length === 0) return out;
    const reached = await this.streets.reach(origin, near.map((d) => dests[d]!), this.cost, "from");
    if (!reached) return null;
    near.forEach((d, i) => {
      const r = reached[i];
      if (r && r.sec <= this.maxWalkSec) out[d] = r.sec;
    });
    return out;
  }

  async close(): Promise<void> {
    await this.engine.close?.();
  }
}
