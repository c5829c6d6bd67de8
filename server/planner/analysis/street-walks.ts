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
import type { PlanService } from "../plan-service.ts";
import type { LatLon, StreetCost, StreetPaths } from "../../street-paths.ts";
import { NO_JOURNEY } from "./percentiles.ts";
import type { TravelTimeAnalysis } from "./travel-times.ts";

/** How an end is travelled (the origin's: to the first stop, and all the way; the destination's: from the last stop): walking, or cycling at its own speed and limit. */
export interface AccessMode {
  mode: "WALK" | "BICYCLE";
  speedMps: number;
  maxSec: number;
}

export class StreetWalks {
  /** points whose walks fell back to straight lines (off the streets) */
  offStreets = { origins: 0, destinations: 0 };
  /** each end's mode, speed and limit: "from" the origin's (to the first stop, and all the way), "to" the destinations' (from the last stop) */
  private readonly ends: Record<"from" | "to", AccessMode>;

  /** `access`: the origin's mode, `egress`: the destinations' (each by default walking at walkSpeed within maxWalkSec). */
  constructor(
    private readonly streets: StreetPaths,
    walkSpeed: number,
    maxWalkSec: number,
    access?: AccessMode,
    egress?: AccessMode,
  ) {
    const walk: AccessMode = { mode: "WALK", speedMps: walkSpeed, maxSec: maxWalkSec };
    this.ends = { from: access ?? walk, to: egress ?? walk };
  }

  /**
   * The straight-line `candidates` (stops with their coordinates) measured from (`direction` "from":
   * the access mode) or to ("to": the egress mode) `place`; null when the place is off the streets.
   */
  async stopWalks(place: LatLon, candidates: StopWalk[], stopLat: Float64Array, stopLon: Float64Array, direction: "from" | "to"): Promise<StopWalk[] | null> {
    if (candidates.length === 0) return [];
    const end = this.ends[direction];
    const reached = await this.streets.reach(place, candidates.map((c) => ({ lat: stopLat[c.stop]!, lon: stopLon[c.stop]! })), costOf(end), direction);
    if (!reached) return null;
    const out: StopWalk[] = [];
    candidates.forEach((c, i) => {
      const r = reached[i];
      if (r && r.sec <= end.maxSec) out.push({ stop: c.stop as StopIdx, walkSec: r.sec });
    });
    return out;
  }

  /** Whether the origin's end is cycled (BICYCLE access mode). */
  get cycling(): boolean {
    return this.ends.from.mode === "BICYCLE";
  }

  /** The stops from which `d` is reached in the egress mode, measured on the streets (null when `d` is off the streets). */
  destinationWalks(svc: PlanService, d: LatLon): Promise<StopWalk[] | null> {
    const { stopLat, stopLon } = svc.tt.meta;
    const { speedMps, maxSec } = this.ends.to;
    const crow = svc.walkStops(d.lat, d.lon, maxSec * speedMps, speedMps, false);
    return this.stopWalks(d, crow, stopLat, stopLon, "to");
  }

  /**
   * An origin's access walks (or rides) to stops and its direct trips to the analysis's
   * destinations, on the streets; each absent where the origin is off the streets (the analysis then
   * keeps its straight lines).
   */
  async originWalks(svc: PlanService, analysis: TravelTimeAnalysis, o: LatLon, dests: LatLon[]): Promise<{ access?: StopWalk[]; direct?: Int32Array }> {
    const { stopLat, stopLon } = svc.tt.meta;
    const { speedMps, maxSec } = this.ends.from;
    const reachM = maxSec * speedMps;
    const candidates = this.cycling ? svc.walkStops(o.lat, o.lon, reachM, speedMps, false) : analysis.accessWalks(o);
    const [access, direct] = await Promise.all([
      this.stopWalks(o, candidates, stopLat, stopLon, "from"),
      this.direct(o, dests, analysis.nearDestinations(o, this.cycling ? reachM : undefined)),
    ]);
    return { ...(access ? { access } : {}), ...(direct ? { direct } : {}) };
  }

  /** All the way from `origin` to each destination in the access mode (seconds, NO_JOURNEY beyond its limit); `near`: the destinations within reach as the crow flies. Null when the origin is off the streets. */
  async direct(origin: LatLon, dests: LatLon[], near: number[]): Promise<Int32Array | null> {
    const out = new Int32Array(dests.length).fill(NO_JOURNEY);
    if (near.length === 0) return out;
    const reached = await this.streets.reach(origin, near.map((d) => dests[d]!), costOf(this.ends.from), "from");
    if (!reached) return null;
    near.forEach((d, i) => {
      const r = reached[i];
      if (r && r.sec <= this.ends.from.maxSec) out[d] = r.sec;
    });
    return out;
  }
}

/** The street engine's cost of an end: its mode and speed. */
const costOf = (e: AccessMode): StreetCost => ({ mode: e.mode, speedMps: e.speedMps });
