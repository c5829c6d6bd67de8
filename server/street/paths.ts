/**
 * The planner's street paths (server/street-paths.ts) over the street feature's engine, embedded
 * or external alike: `reach` is a one-to-many sources_to_targets, `path` a route with its
 * maneuvers as OTP1 WalkSteps and its elevation. Places snap to the streets within a cut-off
 * (STREET_SNAP_M, 300 m): a point farther from every street is not on the network, and the planner walks there
 * in a straight line instead. The planner's calls have their own engine slots (lane "planner"), so
 * they never queue behind the street endpoints' long searches, and wait at most
 * PLANNER_ENGINE_DEADLINE_MS; `forAccount` names the account a request's calls are made for, and
 * the lane serves the accounts waiting in turn (embedded.ts Slots). A target that does not snap would fail the whole matrix (Valhalla
 * 171), so on that error the targets are located once and the matrix asked again without them.
 */
import polyline from "@mapbox/polyline";
import { STREET_SNAP_M } from "../../pipeline/schema/street.ts";
import type { LatLon, Reach, StreetCost, StreetPath, StreetPaths } from "../street-paths.ts";
import { answerText, type EngineAnswer, type EngineCall, type StreetEngine } from "./engine.ts";
import type { StreetAction } from "./schemas/index.ts";
import { walkSteps, type Maneuver } from "./walk-steps.ts";

/**
 * How long a plan waits for the engine (a free planner slot, or an external engine's answer)
 * before it draws that part in straight lines: a busy engine slows plans down, never stops them.
 */
export const PLANNER_ENGINE_DEADLINE_MS = 2000;
/** Meters between the elevation samples of a path. */
const ELEVATION_INTERVAL_M = 10;

const clamp = (x: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, x));

/** Valhalla's costing and options for a street cost (speeds in km/h, within Valhalla's bounds). */
export function costing(cost: StreetCost): { costing: string; costing_options: Record<string, unknown> } {
  if (cost.mode === "WALK") {
    const o: Record<string, unknown> = { walking_speed: clamp((cost.speedMps ?? 1.33) * 3.6, 0.5, 25) };
    if (cost.wheelchair) o.type = "wheelchair";
    return { costing: "pedestrian", costing_options: { pedestrian: o } };
  }
  if (cost.mode === "BICYCLE") {
    const o: Record<string, unknown> = { cycling_speed: clamp((cost.speedMps ?? 5) * 3.6, 5, 60) };
    if (cost.triangle) {
      // OTP1's triangle: more safety = fewer roads, more slope weight = fewer hills
      o.use_roads = clamp(1 - cost.triangle.safety, 0, 1);
      o.use_hills = clamp(1 - cost.triangle.slope, 0, 1);
    }
    return { costing: "bicycle", costing_options: { bicycle: o } };
  }
  return { costing: "auto", costing_options: {} };
}

const at = (p: LatLon) => ({ lat: p.lat, lon: p.lon, search_cutoff: STREET_SNAP_M });

class EngineNoAnswer extends Error {}

export function streetPaths(engine: StreetEngine, available: () => boolean, account?: string): StreetPaths {
  /** The engine's JSON answer, or null when it answered with an error (the body says which). */
  async function ask(action: StreetAction, request: unknown): Promise<{ ok: boolean; body: Record<string, any> }> {
    const body = JSON.stringify(request);
    const call: EngineCall = { action, body, query: "", merged: () => body, signal: AbortSignal.timeout(PLANNER_ENGINE_DEADLINE_MS), lane: "planner", ...(account !== undefined ? { account } : {}) };
    let res: EngineAnswer;
    let parsed: Record<string, any>;
    try {
      // (an external engine's body is a stream: one that stalls or breaks is no answer too)
      res = await engine.handle(call);
      parsed = JSON.parse(await answerText(res));
    } catch {
      throw new EngineNoAnswer();
    }
    return { ok: res.status >= 200 && res.status < 300, body: parsed };
  }

  async function matrix(origin: LatLon, others: LatLon[], cost: StreetCost, direction: "from" | "to") {
    const o = [at(origin)], t = others.map(at);
    const req = direction === "from" ? { sources: o, targets: t } : { sources: t, targets: o };
    return ask("sources_to_targets", { ...req, ...costing(cost), units: "kilometers" });
  }

  const toReach = (cell: { time: number | null; distance: number | null } | undefined): Reach | null =>
    cell && cell.time != null && cell.distance != null ? { sec: Math.ceil(cell.time), meters: cell.distance * 1000 } : null;

  const paths: StreetPaths = {
    available,
    forAccount: (who) => (who === account ? paths : streetPaths(engine, available, who)),
    async reach(origin, others, cost, direction) {
      if (!available() || others.length === 0) return available() ? [] : null;
      try {
        let keep = others.map((_, i) => i);
        let r = await matrix(origin, others, cost, direction);
        if (!r.ok && r.body.error_code === 171) {
          // some point does not snap: which? (the origin alone means no network here)
          const located = await ask("locate", { locations: [at(origin), ...others.map(at)], ...costing(cost), verbose: false });
          if (!located.ok || !Array.isArray(located.body)) return null;
          const snaps = (located.body as unknown as { edges: unknown[] | null }[]).map((l) => Array.isArray(l.edges) && l.edges.length > 0);
          if (!snaps[0]) return null;
          keep = keep.filter((i) => snaps[i + 1]);
          if (keep.length === 0) return others.map(() => null);
          r = await matrix(origin, keep.map((i) => others[i]!), cost, direction);
        }
        if (!r.ok) return null;
        const rows = r.body.sources_to_targets as { time: number | null; distance: number | null }[][];
        const out: (Reach | null)[] = others.map(() => null);
        keep.forEach((i, k) => {
          out[i] = toReach(direction === "from" ? rows[0]?.[k] : rows[k]?.[0]);
        });
        return out;
      } catch (e) {
        if (e instanceof EngineNoAnswer) return null;
        throw e;
      }
    },
    async path(from, to, cost) {
      if (!available()) return null;
      try {
        const r = await ask("route", { locations: [at(from), at(to)], ...costing(cost), units: "kilometers", elevation_interval: ELEVATION_INTERVAL_M, directions_type: "maneuvers" });
        if (!r.ok) return null;
        const legs = r.body.trip?.legs as { shape: string; maneuvers: Maneuver[]; elevation?: number[]; summary: { time: number; length: number } }[] | undefined;
        if (!legs?.length) return null;
        const leg = legs[0]!;
        const points = polyline.decode(leg.shape, 6) as [number, number][];
        const { steps, gained, lost } = walkSteps(leg.maneuvers, points, leg.elevation ?? null, ELEVATION_INTERVAL_M);
        const path: StreetPath = { meters: leg.summary.length * 1000, sec: Math.ceil(leg.summary.time), points, steps, elevationGained: gained, elevationLost: lost };
        return path;
      } catch (e) {
        if (e instanceof EngineNoAnswer) return null;
        throw e;
      }
    },
  };
  return paths;
}
