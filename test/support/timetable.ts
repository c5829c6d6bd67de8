/** Timetable helpers for tests: a file's SHA-1, and a fresh compile from a dataset's Parquet files. */
import { cpSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { compileTimetable } from "../../pipeline/timetable/compile.ts";
import { tempDir } from "./dataset.ts";

export const fileSha1 = (path: string) => new Bun.CryptoHasher("sha1").update(readFileSync(path)).digest("hex");

/** The timetable of a dataset's active versions compiled from their Parquet files, in a copy of the dataset; its path. */
export async function compileFresh(dataDir: string): Promise<string> {
  const copy = join(tempDir(), "data");
  cpSync(dataDir, copy, { recursive: true });
  rmSync(join(copy, "timetables"), { recursive: true, force: true });
  const r = await compileTimetable(copy);
  return join(copy, r.path);
}
