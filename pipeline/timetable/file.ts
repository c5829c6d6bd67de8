/**
 * The planner timetable's file in a dataset: its path (named by the hash of what it was compiled
 * from: format, walk radius, active versions, street dataset) and its durable write. compile.ts
 * writes it, publish.ts places it and points the manifest at it.
 */
import { createHash } from "node:crypto";
import { mkdirSync, renameSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { TIMETABLE_FORMAT, TIMETABLES_DIR } from "../schema/timetable.ts";
import { fsyncDir, writeFileDurableFrom } from "../store/durable.ts";
import { DEFAULT_WALK_RADIUS_M } from "./source.ts";

/**
 * Path (relative to the data dir) of the timetable of this set of active versions, and of the
 * active street dataset its footpaths were measured on (null: none, straight lines).
 */
export function timetableRelPath(activeSha1s: string[], walkRadiusM = DEFAULT_WALK_RADIUS_M, streetsSha1: string | null = null): string {
  const key: Record<string, unknown> = { f: TIMETABLE_FORMAT, radius: walkRadiusM, active: [...activeSha1s].sort() };
  if (streetsSha1) key.streets = streetsSha1;
  const hash = createHash("sha1").update(JSON.stringify(key)).digest("hex").slice(0, 16);
  return join(TIMETABLES_DIR, `${hash}.arrow`);
}

/**
 * Writes the timetable file at `path` durably (temp file + fsync + rename) from the chunks `fill`
 * passes to its `write` as it encodes them; a failed write leaves no temp file behind.
 */
export async function writeTimetableFile(path: string, fill: (write: (chunk: Uint8Array) => void) => Promise<void>): Promise<void> {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    await writeFileDurableFrom(tmp, fill);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
  renameSync(tmp, path);
  fsyncDir(dirname(path));
}
