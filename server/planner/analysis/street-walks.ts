// Purpose: analysis walks measured on the streets through the StreetPaths port.
/**
 * Walks measured on the streets for an analysis, through the street paths port (server/street-paths.ts:
 * the command's own embedded engine, or the server's): one-to-many matrices, as for the plan's
 * access and egress (street-legs.ts). The candidates are the stops (destinations) within the walk's
 * reach as the crow flies (a street walk is never much shorter), all of them measured; those
 * farther than maxWalkSec on the streets, or not connected, drop out. Null answers (the point is off
 * the streets, or the engine cannot answer) leave the caller's straight lines.
 */
import type { StopIdx, StopWalk } from "../api.ts";
import type { LatLon, StreetCost, StreetPaths } from "../../street-paths.ts";
import { NO_JOURNEY } from "./percentiles.ts";

export class StreetWalks {
  /** points whose walks fell back to straight lines (off the streets) */
  offStreets = { origins: 0, destinations: 0 };
  private readonly cost: StreetCost;

  constructor(
    private readonly streets: StreetPaths,
    walkSpeed: number,
    private readonly maxWalkSec: number,
  ) {
    this.cost = { mode: "WALK", speedMps: walkSpeed };
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
}
