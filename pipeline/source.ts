/**
 * Feed sources: a GTFS zip, an unpacked GTFS folder, or an http(s) URL of a zip. Each is turned into
 * a folder of GTFS .txt files in the staging area plus the SHA-1 that identifies the feed version:
 * the SHA-1 of the zip bytes; for a folder, the SHA-1 of a canonical serialisation of the files the
 * import reads, its .txt files and the GTFS-Flex zones' locations.geojson (sorted names, each as
 * `name NUL size NUL bytes`), so the same folder always gets the same id and a change to any of
 * them a new one.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { extractMember, listMembers, unzipAll, type ZipMember } from "./zip.ts";
import { readStopTimesOffThread, type StopTimesOffThread } from "./gtfs/stop-times/fast.ts";
import { DEFAULT_FETCH_POLICY, download, type FetchPolicy } from "./import/download.ts";
import { DataError } from "./report.ts";
import { Task } from "./tasks.ts";

export interface ResolvedSource {
  sha1: string;
  /** folder with the GTFS .txt files */
  gtfsDir: string;
  fetchedAt: Date;
  source: string;
  /** size of the zip or the folder's .txt files */
  bytes: number;
}

export const isUrl = (s: string) => /^https?:\/\//i.test(s);

/** A source's bytes (a zip file or URL; a folder is read where it is). URLs: import/download.ts, unconditionally. */
export async function readSourceBytes(source: string, policy: FetchPolicy = DEFAULT_FETCH_POLICY): Promise<{ kind: "zip" | "folder"; bytes?: Uint8Array }> {
  if (isUrl(source)) {
    const d = await download(source, policy, null);
    if (d.status !== "ok") throw new DataError(`cannot fetch ${source}: HTTP 304 to a request that was not conditional`);
    return { kind: "zip", bytes: d.bytes };
  }
  if (!existsSync(source)) throw new DataError(`no such file or folder: ${source}`);
  if (statSync(source).isDirectory()) return { kind: "folder" };
  return { kind: "zip", bytes: new Uint8Array(readFileSync(source)) };
}

export function sha1Hex(bytes: Uint8Array): string {
  return createHash("sha1").update(bytes).digest("hex");
}

/** Is `name` (a file of a feed folder or zip) one the import reads? */
const isFeedFile = (name: string) => name.toLowerCase().endsWith(".txt") || basename(name) === "locations.geojson";

export function folderSha1(dir: string): string {
  const h = createHash("sha1");
  for (const name of readdirSync(dir).filter((n) => n.endsWith(".txt") || n === "locations.geojson").sort()) {
    const b = readFileSync(join(dir, name));
    h.update(name).update("\0").update(String(b.length)).update("\0").update(b);
  }
  return h.digest("hex");
}

/**
 * Unpack the .txt members of a GTFS zip into outDir (members may sit in one sub-folder), each
 * streamed to its file with its checksum verified. Returns the unpacked size in bytes. With
 * `deferStopTimes`, stop_times.txt (at the feed's root) is unpacked to memory and read by the fast
 * reader in a worker thread (readStopTimesOffThread), not awaited: its `unpacked` settles when it is
 * in (or rejects as the others would), its `ensureFile` puts it on disk when DuckDB is to read it.
 */
export async function unpackZip(bytes: Uint8Array, outDir: string, sourceName: string, deferStopTimes = false): Promise<{ size: number; stopTimes: StopTimesOffThread | null }> {
  const unreadable = (e: unknown) => new DataError(`not a readable zip file (${(e as Error).message})`, basename(sourceName));
  // (.txt files, and the GTFS-Flex zones, locations.geojson)
  const wanted = (name: string) => isFeedFile(name) && !name.startsWith("__MACOSX/") && !basename(name).startsWith("._");
  let members: ZipMember[] | null;
  try {
    members = listMembers(bytes);
  } catch (e) {
    throw unreadable(e);
  }
  let inMemory: Record<string, Uint8Array> = {};
  if (members === null) {
    try {
      inMemory = await unzipAll(bytes, wanted);
    } catch (e) {
      throw unreadable(e);
    }
  }
  const names = members ? members.map((m) => m.name).filter(wanted) : Object.keys(inMemory);
  // GTFS files at the root, or all inside one folder (a common packaging mistake we accept).
  const stops = names.filter((n) => basename(n) === "stops.txt").sort((a, b) => a.length - b.length)[0];
  const prefix = stops ? stops.slice(0, stops.length - "stops.txt".length) : "";
  const target = (n: string) => (n.startsWith(prefix) && !n.slice(prefix.length).includes("/") ? join(outDir, n.slice(prefix.length)) : null);
  mkdirSync(outDir, { recursive: true });
  let total = 0;
  // stop_times.txt first (in a worker thread), then the others here meanwhile
  const stPath = join(outDir, "stop_times.txt");
  const deferredMember = deferStopTimes ? members?.find((m) => wanted(m.name) && target(m.name) === stPath) : undefined;
  let stopTimes: StopTimesOffThread | null = null;
  if (deferredMember) {
    total += deferredMember.size;
    const read = readStopTimesOffThread({ member: deferredMember, path: stPath });
    // (a corrupt member rejects the feed as an unreadable zip, like the members unpacked here)
    const unpacked = new Task("unpack stop_times.txt", async () => {
      try {
        await read.unpacked.result();
      } catch (e) {
        throw unreadable(e);
      }
    });
    stopTimes = { ...read, unpacked, ensureFile: () => unpacked.result().then(() => read.ensureFile()) };
  }
  for (const m of members ?? []) {
    const path = m === deferredMember || !wanted(m.name) ? null : target(m.name);
    if (!path) continue;
    total += m.size;
    try {
      await extractMember(m, path);
    } catch (e) {
      stopTimes?.cancel(); // nothing keeps unpacking after we fail
      throw unreadable(e);
    }
  }
  for (const [n, b] of Object.entries(inMemory)) {
    const path = target(n);
    if (!path) continue;
    writeFileSync(path, b);
    total += b.length;
  }
  return { size: total, stopTimes };
}
