/**
 * After the active dataset changes, the planner's Arrow timetable is recompiled from the active
 * versions (pipeline/timetable/compile.ts) and the manifest is pointed at it, under the import
 * lock. Called once after a batch of imports, not per feed.
 */
import { existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { acquireLock, activeVersions, readManifest, writeManifest } from "./store/manifest.ts";

const sameSet = (a: string[], b: string[]) => a.length === b.length && [...a].sort().join() === [...b].sort().join();

/** Compile the timetable of the current active versions unless the manifest already has it. */
export async function refreshTimetable(dataDir: string, progress?: (msg: string) => void): Promise<"unchanged" | "compiled"> {
  const release = acquireLock(dataDir);
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      const m = readManifest(dataDir);
      const active = activeVersions(m).map((v) => v.sha1);
      if (m.timetable && sameSet(m.timetable.active_sha1s, active) && existsSync(join(dataDir, m.timetable.path))) return "unchanged";
      const t0 = performance.now();
      // (loaded when needed: `interchange import` starts without DuckDB, see pipeline/import.ts)
      const { compileTimetable } = await import("./timetable/compile.ts");
      const result = await compileTimetable(dataDir, { progress });
      const now = readManifest(dataDir);
      if (!sameSet(activeVersions(now).map((v) => v.sha1), result.active_sha1s)) continue; // changed meanwhile
      const previous = now.timetable?.path;
      now.timetable = result;
      writeManifest(dataDir, now);
      progress?.(`timetable: ${result.path} for ${result.active_sha1s.length} active versions (${((performance.now() - t0) / 1000).toFixed(2)} s)`);
      const removed = pruneTimetables(dataDir, [result.path, previous]);
      if (removed.length) progress?.(`timetable: removed ${removed.length} older file(s): ${removed.join(", ")}`);
      return "compiled";
    }
    throw new Error("the active versions kept changing while the timetable was compiled");
  } finally {
    release();
  }
}

/**
 * Removes the timetable files a nightly rebuild leaves behind: every `timetables/*.arrow` except
 * `keep` (the manifest's timetable and the one it replaced, which a server that read the manifest
 * just before the switch may still be opening), and the temp files of interrupted compiles. Only
 * under the import lock (no compile is writing). Returns the removed names.
 */
export function pruneTimetables(dataDir: string, keep: (string | undefined)[]): string[] {
  const dir = join(dataDir, "timetables");
  if (!existsSync(dir)) return [];
  const kept = new Set(keep.filter((k): k is string => !!k).map((k) => k.split("/").pop()!));
  const removed: string[] = [];
  for (const name of readdirSync(dir)) {
    if (kept.has(name) || !(name.endsWith(".arrow") || name.endsWith(".tmp"))) continue;
    rmSync(join(dir, name), { force: true });
    removed.push(name);
  }
  return removed.sort();
}
