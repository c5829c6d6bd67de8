/**
 * What each replaced manifest generation pointed servers at, kept so that pruning
 * (pipeline/store/prune.ts) leaves alone what a server that loaded it may still read:
 * `<data>/generations/<generation>.json` = { generation, replaced_at, paths }, written by
 * writeManifest just before the switch that replaces that generation. `paths` are the folders and
 * files (relative to the data dir) a server on that generation reads: every listed feed version
 * (the catalog loads them all, and reads a large dataset's stop_times from their Parquet files),
 * the timetable, the active street dataset. Records older than RECORD_MAX_AGE_MS (longer than any
 * grace period) are dropped by writeManifest. Pipeline-only: servers never read them.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { activeStreets, type Manifest } from "../schema/manifest.ts";
import { writeFileDurable } from "./durable.ts";

export const GENERATIONS_DIR = "generations";
/** the longest a record is kept (prune's grace period cannot be longer) */
export const RECORD_MAX_AGE_MS = 7 * 24 * 3600_000;

export interface GenerationRecord {
  generation: number;
  /** when the next generation replaced it */
  replaced_at: string;
  /** what a server on it reads, relative to the data dir */
  paths: string[];
}

/** What a server that loaded `m` reads: every listed version, the timetable, the active street dataset. */
export function pathsUsedBy(m: Manifest): string[] {
  const paths = m.versions.map((v) => v.path);
  if (m.timetable?.path) paths.push(m.timetable.path);
  const streets = activeStreets(m);
  if (streets) paths.push(streets.path);
  return paths;
}

/** Record `replaced` (the manifest about to be replaced) as replaced at `at`; trims records past RECORD_MAX_AGE_MS. */
export function recordReplaced(dataDir: string, replaced: Manifest, at: string): void {
  const dir = join(dataDir, GENERATIONS_DIR);
  mkdirSync(dir, { recursive: true });
  const rec: GenerationRecord = { generation: replaced.generation, replaced_at: at, paths: pathsUsedBy(replaced) };
  const file = join(dir, `${replaced.generation}.json`);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileDurable(tmp, JSON.stringify(rec) + "\n");
  renameSync(tmp, file);
  const oldest = Date.parse(at) - RECORD_MAX_AGE_MS;
  for (const name of readdirSync(dir)) {
    try {
      if (statSync(join(dir, name)).mtimeMs < oldest) rmSync(join(dir, name), { force: true });
    } catch { /* gone meanwhile */ }
  }
}

/** Every readable record, oldest generation first. */
export function readGenerationRecords(dataDir: string): GenerationRecord[] {
  const dir = join(dataDir, GENERATIONS_DIR);
  if (!existsSync(dir)) return [];
  const out: GenerationRecord[] = [];
  for (const name of readdirSync(dir)) {
    if (!/^\d+\.json$/.test(name)) continue;
    try {
      const r = JSON.parse(readFileSync(join(dir, name), "utf8")) as GenerationRecord;
      if (Number.isFinite(r.generation) && Array.isArray(r.paths) && Number.isFinite(Date.parse(r.replaced_at))) out.push(r);
    } catch { /* not a record (records are written whole: temp file and rename) */ }
  }
  return out.sort((a, b) => a.generation - b.generation);
}
