/**
 * `interchange analyze` configuration: read once from flags and environment (bin/interchange.ts),
 * validated here, frozen, and passed to runAnalysis. Nothing else in server/analysis reads the
 * environment.
 */
import { UsageError, type FlagSpec, type FlagValues } from "../../config/flags.ts";
import { TRANSIT_MODES } from "../planner/plan-params.ts";
import { isoToDay } from "../planner/timetable/calendar.ts";
import { parseWindow } from "../planner/analysis/travel-times.ts";

export const ANALYZE_KINDS = ["travel-times", "accessibility"] as const;
export type AnalyzeKind = (typeof ANALYZE_KINDS)[number];

export interface AnalyzeConfig {
  readonly kind: AnalyzeKind;
  readonly dataDir: string;
  readonly origins: string;
  readonly destinations: string;
  /** YYYY-MM-DD, and its day number */
  readonly date: string;
  readonly day: number;
  /** local seconds after midnight of `date`; the end is exclusive and may pass 24:00 */
  readonly windowStartSec: number;
  readonly windowEndSec: number;
  readonly stepMin: number;
  readonly walkSpeed: number;
  readonly maxWalkMin: number;
  /** the origin's end (to the first stop, and all the way): WALK, or BICYCLE at bikeSpeed within maxBikeMin (needs a street dataset) */
  readonly accessMode: "WALK" | "BICYCLE";
  /** the destinations' end (from the last stop): WALK, or BICYCLE at bikeSpeed within maxBikeMin (needs a street dataset) */
  readonly egressMode: "WALK" | "BICYCLE";
  readonly bikeSpeed: number;
  readonly maxBikeMin: number;
  readonly maxDurationMin: number;
  readonly maxTransfers: number;
  /** transit modes ridden, null = every mode */
  readonly modes: ReadonlySet<string> | null;
  readonly percentiles: readonly number[];
  readonly cutoffs: readonly number[];
  readonly outDir: string;
  /** this run's share of the origins: the i-th origin (0-based) when i mod n = k - 1 */
  readonly shard: { k: number; n: number };
  readonly quiet: boolean;
  /** processes running this shard's origins at once (each a sub-shard); 1 = this process alone */
  readonly workers: number;
}

export const ANALYZE_FLAGS: FlagSpec[] = [
  { name: "data", env: "INTERCHANGE_DATA", type: "string", default: "data", description: "dataset folder written by `interchange import` (its timetable is analysed)" },
  { name: "origins", env: "INTERCHANGE_ANALYZE_ORIGINS", type: "string", description: "origin points: .csv (id,lat,lon), .parquet or .geojson (Point features)" },
  { name: "destinations", env: "INTERCHANGE_ANALYZE_DESTINATIONS", type: "string", description: "destination points, as --origins, with any numeric opportunity columns (jobs, people); default: the origins" },
  { name: "date", env: "INTERCHANGE_ANALYZE_DATE", type: "string", description: "service date YYYY-MM-DD (local time of the timetable's agencies)" },
  { name: "window", env: "INTERCHANGE_ANALYZE_WINDOW", type: "string", default: "07:00-09:00", description: "departure window HH:MM-HH:MM, end exclusive; an end before the start (23:30-00:30) or past 24:00 runs past midnight" },
  { name: "step", env: "INTERCHANGE_ANALYZE_STEP", type: "number", default: 1, description: "minutes between the departures searched in the window" },
  { name: "walk-speed", env: "INTERCHANGE_ANALYZE_WALK_SPEED", type: "number", default: 1.3, description: "walking speed, m/s (access, egress, transfers, walking all the way)" },
  { name: "max-walk", env: "INTERCHANGE_ANALYZE_MAX_WALK", type: "number", default: 20, description: "longest walk to the first stop, from the last stop, or all the way, minutes" },
  { name: "access-mode", env: "INTERCHANGE_ANALYZE_ACCESS_MODE", type: "string", default: "WALK", description: "from the origin to the first stop, and all the way: WALK or BICYCLE (cycling needs the dataset's street dataset)" },
  { name: "egress-mode", env: "INTERCHANGE_ANALYZE_EGRESS_MODE", type: "string", default: "WALK", description: "from the last stop to the destination: WALK or BICYCLE (a bicycle at the stop; cycling needs the dataset's street dataset)" },
  { name: "bike-speed", env: "INTERCHANGE_ANALYZE_BIKE_SPEED", type: "number", default: 4.2, description: "cycling speed, m/s, with --access-mode or --egress-mode BICYCLE" },
  { name: "max-bike", env: "INTERCHANGE_ANALYZE_MAX_BIKE", type: "number", default: 20, description: "longest ride to the first stop, from the last stop, or all the way, minutes, with --access-mode or --egress-mode BICYCLE" },
  { name: "max-duration", env: "INTERCHANGE_ANALYZE_MAX_DURATION", type: "number", default: 120, description: "travel times of this many minutes or more count as unreachable (1..240)" },
  { name: "max-transfers", env: "INTERCHANGE_ANALYZE_MAX_TRANSFERS", type: "number", default: 4, description: "transfers at most (0..8)" },
  { name: "modes", env: "INTERCHANGE_ANALYZE_MODES", type: "string", default: "TRANSIT", description: `transit modes ridden: TRANSIT (all) or a comma list of ${TRANSIT_MODES.join(", ")}` },
  { name: "percentiles", env: "INTERCHANGE_ANALYZE_PERCENTILES", type: "string", default: "5,25,50,75,95", description: "travel-time percentiles over the window's departures, ascending, 1..100 (nearest rank, as R5)" },
  { name: "cutoffs", env: "INTERCHANGE_ANALYZE_CUTOFFS", type: "string", default: "15,30,45,60", description: "accessibility cutoffs, minutes: opportunities reached in less than each" },
  { name: "out", env: "INTERCHANGE_ANALYZE_OUT", type: "string", default: "analysis", description: "output folder: travel_times/ or accessibility/ (Parquet, one folder per shard) and reports/ (JSON)" },
  { name: "shard", env: "INTERCHANGE_ANALYZE_SHARD", type: "string", default: "1/1", description: "K/N: this run takes the origins whose 0-based position i has i mod N = K - 1, and writes its own partition (shard=K-of-N)" },
  { name: "quiet", env: "INTERCHANGE_ANALYZE_QUIET", type: "boolean", default: false, description: "no progress line on stderr" },
  { name: "workers", env: "INTERCHANGE_ANALYZE_WORKERS", type: "number", default: 1, description: "processes sharing this run's origins, one core each (0 = one per core); each writes its own partition: shard K/N with W workers writes shard=(K + jN)-of-(NW) for j = 0 .. W - 1" },
];

function numberList(raw: string, flag: string, min: number, max: number): number[] {
  const out = raw.split(",").map((s) => s.trim()).filter(Boolean).map(Number);
  if (!out.length || out.some((n) => !Number.isInteger(n) || n < min || n > max)) throw new UsageError(`${flag} must be a comma list of whole numbers ${min}..${max}, got ${raw}`);
  for (let i = 1; i < out.length; i++) if (out[i]! <= out[i - 1]!) throw new UsageError(`${flag} must be ascending, got ${raw}`);
  return out;
}

function bounded(values: FlagValues, name: string, min: number, max: number, integer: boolean): number {
  const key = name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
  const v = Number(values[key]);
  if (!Number.isFinite(v) || v < min || v > max || (integer && !Number.isInteger(v))) throw new UsageError(`--${name} must be ${integer ? "an integer" : "a number"} ${min}..${max}, got ${values[key]}`);
  return v;
}

export function analyzeConfigFrom(kind: string, given: FlagValues): AnalyzeConfig {
  // the flags' defaults under what is given (parseFlags sets them; a caller building values may not)
  const values: FlagValues = Object.fromEntries(ANALYZE_FLAGS.filter((f) => f.default !== undefined).map((f) => [f.name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase()), f.default]));
  for (const [k, v] of Object.entries(given)) if (v !== undefined) values[k] = v;
  if (!(ANALYZE_KINDS as readonly string[]).includes(kind)) throw new UsageError(`analyze: unknown analysis "${kind}" (${ANALYZE_KINDS.join(" or ")})`);
  const origins = values.origins as string | undefined;
  if (!origins) throw new UsageError("--origins FILE is required");
  const date = values.date as string | undefined;
  if (!date || !/^\d{4}-\d{2}-\d{2}$/.test(date) || Number.isNaN(Date.parse(`${date}T00:00:00Z`))) throw new UsageError(`--date must be a date YYYY-MM-DD, got ${date ?? "nothing"}`);
  const window = parseWindow(String(values.window));
  if (typeof window === "string") throw new UsageError(`--window: ${window}`);
  const { startSec: windowStartSec, endSec: windowEndSec } = window;
  const stepMin = bounded(values, "step", 1, 60, true);
  const modesRaw = String(values.modes ?? "TRANSIT").toUpperCase().split(",").map((s) => s.trim()).filter(Boolean);
  for (const m of modesRaw) if (m !== "TRANSIT" && !TRANSIT_MODES.includes(m)) throw new UsageError(`--modes: ${m} is not TRANSIT or one of ${TRANSIT_MODES.join(", ")}`);
  const shardRaw = String(values.shard ?? "1/1");
  const sm = /^(\d+)\/(\d+)$/.exec(shardRaw);
  if (!sm || Number(sm[2]) < 1 || Number(sm[1]) < 1 || Number(sm[1]) > Number(sm[2])) throw new UsageError(`--shard must be K/N with 1 <= K <= N, got ${shardRaw}`);
  const maxDurationMin = bounded(values, "max-duration", 1, 240, true);
  return Object.freeze({
    kind: kind as AnalyzeKind,
    dataDir: String(values.data ?? "data"),
    origins,
    destinations: (values.destinations as string | undefined) || origins,
    date,
    day: isoToDay(date),
    windowStartSec,
    windowEndSec,
    stepMin,
    walkSpeed: bounded(values, "walk-speed", 0.1, 10, false),
    maxWalkMin: bounded(values, "max-walk", 0, 120, false),
    accessMode: modeOf(values.accessMode, "--access-mode"),
    egressMode: modeOf(values.egressMode, "--egress-mode"),
    bikeSpeed: bounded(values, "bike-speed", 0.5, 15, false),
    maxBikeMin: bounded(values, "max-bike", 0, 120, false),
    maxDurationMin,
    maxTransfers: bounded(values, "max-transfers", 0, 8, true),
    modes: modesRaw.includes("TRANSIT") ? null : new Set(modesRaw),
    percentiles: Object.freeze(numberList(String(values.percentiles), "--percentiles", 1, 100)),
    cutoffs: Object.freeze(numberList(String(values.cutoffs), "--cutoffs", 1, maxDurationMin)),
    outDir: String(values.out ?? "analysis"),
    shard: Object.freeze({ k: Number(sm[1]), n: Number(sm[2]) }),
    quiet: Boolean(values.quiet),
    workers: workersOf(values.workers),
  });
}

function workersOf(raw: FlagValues[string]): number {
  const n = Number(raw ?? 1);
  if (!(Number.isInteger(n) && n >= 0 && n <= 64)) throw new UsageError(`--workers must be an integer 0..64, got ${raw}`);
  return n === 0 ? Math.max(1, navigator.hardwareConcurrency || 1) : n;
}

function modeOf(raw: FlagValues[string], flag: string): "WALK" | "BICYCLE" {
  const m = String(raw ?? "WALK").toUpperCase();
  if (m !== "WALK" && m !== "BICYCLE") throw new UsageError(`${flag} must be WALK or BICYCLE, got ${raw}`);
  return m;
}
