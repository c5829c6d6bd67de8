/**
 * Test datasets: real feeds from ../shared/data imported with the real pipeline into a temporary
 * folder, once per test process and name.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { importFeed } from "../../pipeline/import.ts";
import { refreshTimetable } from "../../pipeline/timetable/publish.ts";
import { importStreets } from "../../pipeline/street/import-streets.ts";

export const SHARED = resolve(import.meta.dir, "..", "..", "..", "shared");
export const GTFS_DIR = join(SHARED, "data", "gtfs");
export const gtfs = (name: string) => join(GTFS_DIR, name.endsWith(".zip") ? name : `${name}.zip`);
export const osm = (name: string) => join(SHARED, "data", "osm", name.endsWith(".pbf") ? name : `${name}.osm.pbf`);
export const elevationFile = (name: string) => join(SHARED, "data", "elevation", name);

const cache = new Map<string, Promise<string>>();

const created: string[] = [];

/** Remove every temporary folder made by tempDir (test/setup.ts runs it after all tests; KEEP_TEST_DATA=1 keeps them). */
export function removeTempDirs(): void {
  if (process.env.KEEP_TEST_DATA) return;
  for (const d of created.splice(0)) rmSync(d, { recursive: true, force: true });
}

export function tempDir(prefix = "interchange-test-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  created.push(dir);
  return dir;
}

/** Import feeds (paths, or names of ../shared/data/gtfs zips) into a fresh data dir, cached by name. */
export function importedDataset(name: string, feeds: string[], opts: { timetable?: boolean } = {}): Promise<string> {
  let p = cache.get(name);
  if (!p) {
    p = (async () => {
      const dir = tempDir(`interchange-${name}-`);
      for (const f of feeds) {
        const source = existsSync(f) ? f : gtfs(f);
        const r = await importFeed({ dataDir: dir, source });
        if (r.status === "rejected") throw new Error(`test dataset ${name}: ${source} rejected: ${r.error?.message}`);
      }
      if (opts.timetable !== false) await refreshTimetable(dir);
      return dir;
    })();
    cache.set(name, p);
  }
  return p;
}

const streetCache = new Map<string, Promise<string>>();

/**
 * A data dir holding one street dataset built by the real pipeline from OSM extracts (names of
 * ../shared/data/osm files) and elevation files, cached by name for the test process.
 */
export function streetDataset(name: string, extracts: string[], elevation: string[] = [], feeds: string[] = []): Promise<string> {
  let p = streetCache.get(name);
  if (!p) {
    p = (async () => {
      const dir = feeds.length ? await importedDataset(`${name}-feeds`, feeds) : tempDir(`interchange-streets-${name}-`);
      const r = await importStreets({ dataDir: dir, osm: extracts.map(osm), elevation: elevation.map(elevationFile) });
      if (r.status === "rejected") throw new Error(`street dataset ${name}: ${r.error?.message}`);
      return dir;
    })();
    streetCache.set(name, p);
  }
  return p;
}

/**
 * Run `interchange import` as a child process and kill it with SIGKILL once its progress output
 * contains `marker` (calling `onProgress` for every chunk of output before that). Returns the output seen.
 */
export async function importKilledAt(args: string[], marker: string, onProgress: () => Promise<void> | void = () => {}): Promise<string> {
  const bin = resolve(import.meta.dir, "..", "..", "bin", "interchange.ts");
  const child = Bun.spawn([process.execPath, bin, "import", ...args], { stderr: "pipe", stdout: "ignore" });
  const reader = child.stderr.getReader();
  let seen = "";
  while (!seen.includes(marker)) {
    const { value, done } = await reader.read();
    if (done) break;
    seen += new TextDecoder().decode(value);
    await onProgress();
  }
  child.kill(9);
  await child.exited;
  return seen;
}
