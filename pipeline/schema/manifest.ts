/**
 * The dataset manifest, `<data>/manifest.json`: its types and its readers. Which feed versions exist
 * and which one is active per feed, the planner timetable of the active versions, the street
 * datasets. It is the only mutable file of a dataset and is replaced atomically (the writer and the
 * import lock are pipeline/store/manifest.ts), so readers see either the old or the new manifest,
 * never a mix. A version folder `<data>/versions/<sha1>/` is visible only once the manifest lists it.
 *
 * Part of the dataset contract (pipeline/schema/): the pipeline writes what this says, the server
 * reads it with these functions. Imports nothing but Node's fs and path.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { watchFolder } from "./watch.ts";

export type LicenseValue = "yes" | "no" | "unknown";
/** The five licence fields of a feed, in their one order (manifest, feed_version.parquet `license_<field>`, feeds file, catalog filters). */
export const LICENSE_FIELDS = ["commercial_use_allowed", "share_alike_optional", "create_derived_product", "redistribution_allowed", "use_without_attribution"] as const;
export type LicenseField = (typeof LICENSE_FIELDS)[number];
export type License = Record<LicenseField, LicenseValue>;
export const UNKNOWN_LICENSE: License = Object.fromEntries(LICENSE_FIELDS.map((f) => [f, "unknown"])) as License;

export interface FeedEntry {
  id: number;
  onestop_id: string;
  source: string | null;
  license: License;
  /** the feeds file's name of the feed (absent: none) */
  name?: string | null;
  /** the feeds file's tags of the feed (absent: none) */
  tags?: Record<string, string> | null;
  /** sha1 of the active version, or null */
  active: string | null;
}

export interface VersionEntry {
  id: number;
  sha1: string;
  feed_onestop_id: string;
  fetched_at: string;
  source: string;
  /** folder relative to the data dir */
  path: string;
  /** row counts per table */
  counts: Record<string, number>;
}

/**
 * The zip a version was imported from, byte for byte, in its folder (`<path>/feed.zip`; its SHA-1
 * is the version's). Absent for a version imported from a folder of .txt files, and for versions
 * imported before the import kept it. The catalog's download endpoints serve it.
 */
export const VERSION_ZIP = "feed.zip";

export interface Manifest {
  format: 1;
  /** incremented on every write */
  generation: number;
  updated_at: string;
  /** next free integer id per entity kind; ids are never reused */
  next_ids: Record<string, number>;
  feeds: FeedEntry[];
  versions: VersionEntry[];
  /** planner timetable compiled from the active versions (pipeline/schema/timetable.ts), relative path */
  timetable?: { path: string; active_sha1s: string[]; streets_sha1?: string | null } | null;
  /** street datasets (Valhalla routing tiles built from OSM extracts), oldest first */
  streets?: StreetEntry[];
  /** sha1 of the street dataset the engine serves, or null */
  active_streets?: string | null;
}

/** One street dataset: routing tiles built from one or more OSM extracts (merged) and elevation. */
export interface StreetEntry {
  /** SHA-1 of its inputs: the engine version, the build format and every input file's SHA-1 */
  sha1: string;
  /** folder relative to the data dir */
  path: string;
  built_at: string;
  /** engine (npm @valhallajs/valhallajs) version that built the tiles */
  engine_version: string;
  osm: { source: string; sha1: string; bytes: number }[];
  elevation: { source: string; sha1: string; bytes: number }[];
  /** elevation tiles written (N43E007, ...) */
  elevation_tiles: string[];
  /** graph tiles per hierarchy level */
  tiles: Record<string, number>;
  /** [min_lon, min_lat, max_lon, max_lat] of the local (level 2, 0.25 degree) tiles */
  bbox: [number, number, number, number] | null;
}

export const MANIFEST = "manifest.json";

export function emptyManifest(): Manifest {
  return { format: 1, generation: 0, updated_at: new Date(0).toISOString(), next_ids: {}, feeds: [], versions: [], timetable: null };
}

export function readManifest(dataDir: string): Manifest {
  const p = join(dataDir, MANIFEST);
  if (!existsSync(p)) return emptyManifest();
  const m = JSON.parse(readFileSync(p, "utf8")) as Manifest;
  if (m.format !== 1) throw new Error(`${p}: unsupported manifest format ${m.format}`);
  return m;
}

/** The active street dataset, or null. */
export function activeStreets(m: Manifest): StreetEntry | null {
  return m.active_streets ? (m.streets ?? []).find((s) => s.sha1 === m.active_streets) ?? null : null;
}

/** Active versions: one per feed, in feed order. */
export function activeVersions(m: Manifest): VersionEntry[] {
  const bySha = new Map(m.versions.map((v) => [v.sha1, v]));
  const out: VersionEntry[] = [];
  for (const f of m.feeds) {
    const v = f.active ? bySha.get(f.active) : undefined;
    if (v) out.push(v);
  }
  return out;
}

/** Call onChange when the manifest is replaced (fs.watch plus a 2 s mtime poll as a fallback). */
export function watchManifest(dataDir: string, onChange: () => void | Promise<void>): () => void {
  const p = join(dataDir, MANIFEST);
  let last = mtime(p);
  let timer: ReturnType<typeof setTimeout> | null = null;
  let running = false;
  const check = () => {
    const now = mtime(p);
    if (now === last || running) return;
    last = now;
    if (timer) clearTimeout(timer);
    timer = setTimeout(async () => {
      running = true;
      try {
        await onChange();
      } finally {
        running = false;
      }
    }, 100);
  };
  const stop = watchFolder(dataDir, check, (name) => name === MANIFEST);
  return () => {
    stop();
    if (timer) clearTimeout(timer);
  };
}

function mtime(p: string): number {
  try {
    return statSync(p).mtimeMs;
  } catch {
    return 0;
  }
}
