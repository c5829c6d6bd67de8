/**
 * Footpaths on the streets: the timetable's footpaths between nearby stops (transfers.txt's and the
 * straight-line ones within the walk radius, assemble.ts) measured again on the active street
 * dataset's pedestrian network, with the embedded Valhalla (its one-to-many matrix per stop).
 *
 * - both stops on the network (each within STREET_SNAP_M of a walkable way): the footpath's meters become
 *   the network's, and its time the engine's walking time (at FOOTPATH_REF_WALK_KMH; stored as
 *   walk_m, so the planner scales it to any walking speed, schema/timetable.ts); a pair the network does not connect within reach is dropped, unless
 *   transfers.txt names it (the feed knows a way the map lacks: it keeps its straight line);
 * - a stop off the network keeps its straight-line footpaths.
 * Each footpath records which it is (FOOT_SOURCE), so the planner can say how a transfer was measured.
 */
import { join } from "node:path";
import type { StreetEntry } from "../schema/manifest.ts";
import { datasetEngineConfig, STREET_SNAP_M } from "../schema/street.ts";
import { FOOT_SOURCE, FOOTPATH_REF_WALK_KMH, FOOTPATH_REF_WALK_MPS } from "../schema/timetable.ts";
import { type ActorLike, openActor } from "../../shared/street-engine.ts";

/** Stops located per engine call. */
const LOCATE_BATCH = 1000;
/** Matrix calls in flight (the engine runs each on its own native thread). */
const IN_FLIGHT = Math.max(1, navigator.hardwareConcurrency || 2);

type Actor = ActorLike;

export interface Footpaths {
  from: Int32Array;
  to: Int32Array;
  dist_m: Float64Array;
  /** reference metres: the walk's time at FOOTPATH_REF_WALK_MPS × that speed (schema/timetable.ts) */
  walk_m: Float64Array;
  min_sec: Int32Array;
  /** FOOT_SOURCE per footpath */
  source: Uint8Array;
}

export interface StreetFootpathReport {
  stops_on_streets: number;
  stops_off_streets: number;
  on_streets: number;
  dropped: number;
  straight_line: number;
}

/** The engines this process opened, one per street dataset folder (opened once, kept: shared/street-engine.ts). */
const opened = new Map<string, Promise<Actor>>();

/** The engine over a street dataset of `dataDir`, without elevation (footpaths need none). */
export function openStreetActor(dataDir: string, entry: StreetEntry): Promise<Actor> {
  const dir = join(dataDir, entry.path);
  let actor = opened.get(dir);
  if (!actor) opened.set(dir, (actor = openActor(datasetEngineConfig(dataDir, entry, { elevation: false }))));
  return actor;
}

const at = (lat: number, lon: number) => ({ lat, lon, search_cutoff: STREET_SNAP_M });

/**
 * `foot` (assemble.ts's table: straight lines and transfers.txt) measured on the streets: a new
 * table, rows in the same (from, to) order, dropped pairs left out. Steps: which stops snap to the
 * streets, the engine's distance and time of each footpath between two such stops, then the rows kept.
 */
export async function streetFootpaths(
  actor: Actor, stopLat: Float64Array, stopLon: Float64Array, foot: Footpaths,
): Promise<{ footpaths: Footpaths; report: StreetFootpathReport }> {
  const onNet = await stopsOnStreets(actor, stopLat, stopLon);
  const measured = await measureFootpaths(actor, stopLat, stopLon, foot, onNet);
  return keepFootpaths(foot, onNet, measured);
}

/** Which stops snap to a walkable way (1), asked in batches of LOCATE_BATCH. */
async function stopsOnStreets(actor: Actor, stopLat: Float64Array, stopLon: Float64Array): Promise<Uint8Array> {
  const n = stopLat.length;
  const onNet = new Uint8Array(n);
  for (let s = 0; s < n; s += LOCATE_BATCH) {
    const locations = [];
    for (let i = s; i < Math.min(n, s + LOCATE_BATCH); i++) locations.push(at(stopLat[i]!, stopLon[i]!));
    const r = JSON.parse(await actor.locate!(JSON.stringify({ locations, costing: "pedestrian", verbose: false }))) as { edges: unknown[] | null }[];
    r.forEach((l, k) => {
      onNet[s + k] = Array.isArray(l.edges) && l.edges.length > 0 ? 1 : 0;
    });
  }
  return onNet;
}

/** Per footpath: its length on the streets and its walk in metres at the reference speed (NaN: not measured), or unreachable (1). */
interface Measured {
  meters: Float64Array;
  walkM: Float64Array;
  unreachable: Uint8Array;
}

/**
 * The footpaths between stops on the streets measured by the engine: one matrix request per source
 * stop (the table is sorted by from), IN_FLIGHT at a time; a source the engine cannot search from
 * keeps its straight lines.
 */
async function measureFootpaths(actor: Actor, stopLat: Float64Array, stopLon: Float64Array, foot: Footpaths, onNet: Uint8Array): Promise<Measured> {
  const m = foot.from.length;
  const meters = new Float64Array(m).fill(NaN); // NaN: not measured (straight line kept)
  const walkM = new Float64Array(m).fill(NaN);
  const unreachable = new Uint8Array(m);
  // footpaths grouped by their source stop (the table is sorted by from)
  const groups: [number, number][] = [];
  for (let i = 0; i < m; ) {
    let j = i + 1;
    while (j < m && foot.from[j] === foot.from[i]) j++;
    if (onNet[foot.from[i]!]) groups.push([i, j]);
    i = j;
  }
  let next = 0;
  const worker = async () => {
    while (next < groups.length) {
      const [a, b] = groups[next++]!;
      const from = foot.from[a]!;
      const idx: number[] = [];
      for (let i = a; i < b; i++) if (onNet[foot.to[i]!]) idx.push(i);
      if (idx.length === 0) continue;
      const q = {
        sources: [at(stopLat[from]!, stopLon[from]!)],
        targets: idx.map((i) => at(stopLat[foot.to[i]!]!, stopLon[foot.to[i]!]!)),
        costing: "pedestrian",
        costing_options: { pedestrian: { walking_speed: FOOTPATH_REF_WALK_KMH } },
        units: "kilometers",
      };
      let row: { distance: number | null; time: number | null }[];
      try {
        row = (JSON.parse(await actor.matrix!(JSON.stringify(q))) as { sources_to_targets: typeof row[] }).sources_to_targets[0]!;
      } catch {
        continue; // the engine could not search from here: straight lines stay
      }
      idx.forEach((i, k) => {
        const d = row[k]?.distance;
        if (d == null || row[k]?.time == null) unreachable[i] = 1;
        // never shorter than the straight line (the stops snap onto the streets between them)
        else {
          meters[i] = Math.max(d * 1000, foot.dist_m[i]!);
          // the engine's time (crossings, steps, slopes), in metres at the reference speed; never
          // quicker than walking the straight line
          walkM[i] = Math.max(row[k]!.time! * FOOTPATH_REF_WALK_MPS, foot.dist_m[i]!);
        }
      });
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  return { meters, walkM, unreachable };
}

/**
 * The rows kept, with their source: transfers.txt rows always (measured where they could be),
 * measured straight lines as streets, unmeasured ones as straight lines; unreachable ones dropped.
 * (`foot`'s dist_m and walk_m are overwritten with the measured values.)
 */
function keepFootpaths(foot: Footpaths, onNet: Uint8Array, { meters, walkM, unreachable }: Measured): { footpaths: Footpaths; report: StreetFootpathReport } {
  const n = onNet.length, m = foot.from.length;
  const keep: number[] = [];
  const report: StreetFootpathReport = { stops_on_streets: 0, stops_off_streets: 0, on_streets: 0, dropped: 0, straight_line: 0 };
  for (let s = 0; s < n; s++) onNet[s] ? report.stops_on_streets++ : report.stops_off_streets++;
  const source = new Uint8Array(m);
  for (let i = 0; i < m; i++) {
    if (foot.source[i] === FOOT_SOURCE.transfersTxt) {
      source[i] = FOOT_SOURCE.transfersTxt;
      if (!Number.isNaN(meters[i]!)) {
        foot.dist_m[i] = meters[i]!;
        foot.walk_m[i] = walkM[i]!;
      }
      keep.push(i);
    } else if (!Number.isNaN(meters[i]!)) {
      source[i] = FOOT_SOURCE.streets;
      foot.dist_m[i] = meters[i]!;
      foot.walk_m[i] = walkM[i]!;
      report.on_streets++;
      keep.push(i);
    } else if (unreachable[i]) {
      report.dropped++;
    } else {
      source[i] = FOOT_SOURCE.straightLine;
      report.straight_line++;
      keep.push(i);
    }
  }
  const pick = <T extends Int32Array | Float64Array | Uint8Array>(a: T): T => {
    const out = new (a.constructor as new (n: number) => T)(keep.length);
    keep.forEach((i, k) => (out[k] = a[i]!));
    return out;
  };
  return { footpaths: { from: pick(foot.from), to: pick(foot.to), dist_m: pick(foot.dist_m), walk_m: pick(foot.walk_m), min_sec: pick(foot.min_sec), source: pick(source) }, report };
}
