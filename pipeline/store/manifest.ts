/**
 * The dataset manifest, `<data>/manifest.json`: which feed versions exist and which one is active
 * per feed. It is the only mutable file of a dataset and is replaced atomically (write a temp file,
 * fsync, rename), so readers see either the old or the new manifest, never a mix. A version folder
 * `<data>/versions/<sha1>/` is visible only once the manifest lists it.
 */
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, statSync, unlinkSync, watch, writeSync } from "node:fs";
import { open, readdir } from "node:fs/promises";
import { join } from "node:path";

export type LicenseValue = "yes" | "no" | "unknown";
export interface License {
  commercial_use_allowed: LicenseValue;
  share_alike_optional: LicenseValue;
  create_derived_product: LicenseValue;
  redistribution_allowed: LicenseValue;
  use_without_attribution: LicenseValue;
}
export const UNKNOWN_LICENSE: License = {
  commercial_use_allowed: "unknown",
  share_alike_optional: "unknown",
  create_derived_product: "unknown",
  redistribution_allowed: "unknown",
  use_without_attribution: "unknown",
};

export interface FeedEntry {
  id: number;
  onestop_id: string;
  source: string | null;
  license: License;
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

export interface Manifest {
  format: 1;
  /** incremented on every write */
  generation: number;
  updated_at: string;
  /** next free integer id per entity kind; ids are never reused */
  next_ids: Record<string, number>;
  feeds: FeedEntry[];
  versions: VersionEntry[];
  /** planner timetable compiled from the active versions (issue 4), relative path */
  timetable?: { path: string; active_sha1s: string[] } | null;
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

/** Atomically replace the manifest. */
export function writeManifest(dataDir: string, m: Manifest): void {
  mkdirSync(dataDir, { recursive: true });
  m.generation += 1;
  m.updated_at = new Date().toISOString();
  const tmp = join(dataDir, `.${MANIFEST}.${process.pid}.tmp`);
  writeFileDurable(tmp, JSON.stringify(m, null, 2) + "\n");
  renameSync(tmp, join(dataDir, MANIFEST));
  fsyncDir(dataDir);
}

/** Write `text` (or the concatenation of the chunks) to path and fsync it. */
export function writeFileDurable(path: string, text: string | Uint8Array | Uint8Array[]): void {
  const fd = openSync(path, "w");
  try {
    for (const chunk of typeof text === "string" ? [Buffer.from(text)] : Array.isArray(text) ? text : [text]) {
      for (let at = 0; at < chunk.length; ) at += writeSync(fd, chunk, at, chunk.length - at);
    }
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Every file under `dir` (recursively) and every folder flushed to disk (fsync), off this thread. */
export async function fsyncTreeAsync(dir: string): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true });
  for (const e of entries) if (e.isDirectory()) await fsyncTreeAsync(join(dir, e.name));
  const files = entries.filter((e) => e.isFile());
  // a few at a time: a planet's tile folder holds ~100 k files
  for (let i = 0; i < files.length; i += 32) {
    await Promise.all(files.slice(i, i + 32).map(async (e) => {
      const fh = await open(join(dir, e.name), "r");
      try {
        await fh.sync();
      } finally {
        await fh.close();
      }
    }));
  }
  fsyncDir(dir);
}

/** Every file directly in `dir` flushed to disk (fsync), off this thread. */
export async function fsyncFilesAsync(dir: string): Promise<void> {
  const files = (await readdir(dir, { withFileTypes: true })).filter((e) => e.isFile());
  await Promise.all(files.map(async (e) => {
    const fh = await open(join(dir, e.name), "r");
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
  }));
}

export function fsyncDir(dir: string): void {
  try {
    const fd = openSync(dir, "r");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    /* not supported on every platform */
  }
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

export function allocateIds(m: Manifest, kind: string, count: number): number {
  const start = m.next_ids[kind] ?? 1;
  m.next_ids[kind] = start + count;
  return start;
}

/**
 * Exclusive import lock (`<data>/.import.lock`, O_EXCL). A lock whose process is gone is stale and
 * taken over, so a kill -9 never blocks later imports.
 */
export function acquireLock(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const p = join(dataDir, ".import.lock");
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(p, "wx");
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => {
        try {
          unlinkSync(p);
        } catch {
          /* already gone */
        }
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      const pid = Number(readFileSync(p, "utf8").trim());
      if (pid && isAlive(pid) && pid !== process.pid) throw new Error(`another import (pid ${pid}) holds ${p}`);
      unlinkSync(p); // stale
    }
  }
  throw new Error(`cannot take the import lock ${p}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
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
  let watcher: ReturnType<typeof watch> | null = null;
  try {
    mkdirSync(dataDir, { recursive: true });
    watcher = watch(dataDir, (_ev, name) => {
      if (name === MANIFEST) check();
    });
  } catch {
    watcher = null;
  }
  const poll = setInterval(check, 2000);
  poll.unref?.();
  return () => {
    watcher?.close();
    clearInterval(poll);
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
