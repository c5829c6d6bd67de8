/**
 * The one place that writes the planner timetable into a dataset: its files under
 * `<data>/timetables/` and `manifest.timetable`, which points the server at one of them.
 *
 * - compileTimetable (compile.ts) writes the file of the active versions with writeTimetableFile (file.ts).
 * - An import that prepares the timetable (pipeline/import.ts) stages the file with
 *   stageTimetable and, once its version is published, moves it to its place with
 *   placeStagedTimetable: only then is it the timetable of the active versions its name says.
 * - refreshTimetable, run after a batch of imports under the import lock, compiles the timetable of
 *   the active versions unless its file exists (a staged one placed, or an earlier compile), points
 *   the manifest at it and prunes the files nothing points at.
 */
import { existsSync, mkdirSync, renameSync } from "node:fs";
import { dirname, join } from "node:path";
import { activeStreets, activeVersions, readManifest, type Manifest } from "../schema/manifest.ts";
import { acquireLock, writeManifest } from "../store/manifest.ts";
import { fsyncDir, writeFileDurableFrom } from "../store/durable.ts";
import { pruneTimetableFiles } from "../store/prune.ts";

/** A timetable written ahead of its version's publication: where it is, where it goes. */
export interface StagedTimetable {
  /** where it goes, relative to the data dir (timetableRelPath of the active versions once published) */
  rel: string;
  /** where it is (in an import's staging folder) */
  file: string;
}

/**
 * Writes a timetable prepared by an import into its staging folder (durably: it is moved, not
 * copied), from the chunks `fill` passes to its `write` as it encodes them.
 */
export async function stageTimetable(stagingDir: string, rel: string, fill: (write: (chunk: Uint8Array) => void) => Promise<void>): Promise<StagedTimetable> {
  const file = join(stagingDir, "timetable.arrow");
  await writeFileDurableFrom(file, fill);
  return { rel, file };
}

/**
 * Moves a staged timetable to its place, after the manifest switch that published its version (a
 * version's ids are final once published); a crash before this leaves refreshTimetable to compile it.
 */
export function placeStagedTimetable(dataDir: string, staged: StagedTimetable): void {
  const dest = join(dataDir, staged.rel);
  mkdirSync(dirname(dest), { recursive: true });
  renameSync(staged.file, dest);
  fsyncDir(dirname(dest));
}

const sameSet = (a: string[], b: string[]) => a.length === b.length && [...a].sort().join() === [...b].sort().join();
/** What a timetable is built from: the active versions and the active street dataset. */
const inputsOf = (m: Manifest) => ({ active: activeVersions(m).map((v) => v.sha1), streets: activeStreets(m)?.sha1 ?? null });
const sameInputs = (a: ReturnType<typeof inputsOf>, b: ReturnType<typeof inputsOf>) => sameSet(a.active, b.active) && a.streets === b.streets;

/**
 * After the active dataset changes: the timetable of the current active versions, compiled unless
 * its file exists, and the manifest pointed at it, under the import lock. Called once after a batch
 * of imports, not per feed.
 */
export async function refreshTimetable(dataDir: string, progress?: (msg: string) => void): Promise<"unchanged" | "compiled"> {
  const release = acquireLock(dataDir);
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      const m = readManifest(dataDir);
      const inputs = inputsOf(m);
      const built = m.timetable && { active: m.timetable.active_sha1s, streets: m.timetable.streets_sha1 ?? null };
      if (built && sameInputs(built, inputs) && existsSync(join(dataDir, m.timetable!.path))) return "unchanged";
      const t0 = performance.now();
      // (loaded when needed: `interchange import` starts without DuckDB, see pipeline/import.ts)
      const { compileTimetable } = await import("./compile.ts");
      const result = await compileTimetable(dataDir, { progress });
      const now = readManifest(dataDir);
      if (!sameInputs(inputsOf(now), { active: result.active_sha1s, streets: result.streets_sha1 ?? null })) continue; // changed meanwhile
      now.timetable = result;
      writeManifest(dataDir, now);
      progress?.(`timetable: ${result.path} for ${result.active_sha1s.length} active versions (${((performance.now() - t0) / 1000).toFixed(2)} s)`);
      // older files go once no recent generation points at them (the retention policy's grace period)
      const removed = pruneTimetableFiles(dataDir);
      if (removed.length) progress?.(`timetable: removed ${removed.length} older file(s): ${removed.join(", ")}`);
      return "compiled";
    }
    throw new Error("the active versions kept changing while the timetable was compiled");
  } finally {
    release();
  }
}

