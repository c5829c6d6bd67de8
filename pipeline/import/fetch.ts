/**
 * The first stages of an import. fetchSource: the source's bytes (zip, URL) or folder and the SHA-1
 * that names the version; a version already in the manifest makes the import a no-op. unpack: the
 * zip's files into the session's staging folder, stop_times.txt handed to the fast reader in a
 * worker thread (unpacked in memory there) while the others are written.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { readStopTimesOffThread, type StopTimesOffThread } from "../gtfs/stop-times/fast.ts";
import { readManifest, type Manifest } from "../schema/manifest.ts";
import { folderSha1, readSourceBytes, sha1Hex, unpackZip } from "../source.ts";
import type { ImportRun } from "./run.ts";
import type { ImportSession } from "./session.ts";

export interface FetchedSource {
  kind: "zip" | "folder";
  bytes?: Uint8Array;
  sha1: string;
  fetchedAt: Date;
  /** the manifest when the import started (unchanged while it holds the lock) */
  manifest: Manifest;
}

/** The source and its SHA-1; null when that version is imported already (the report says so). */
export async function fetchSource(run: ImportRun): Promise<FetchedSource | null> {
  const { report } = run;
  const fetchedAt = run.now();
  report.fetched_at = fetchedAt.toISOString();
  const src = await readSourceBytes(run.source);
  const sha1 = src.kind === "zip" ? sha1Hex(src.bytes!) : folderSha1(run.source);
  report.sha1 = sha1;
  const manifest = readManifest(run.dataDir);
  const existing = manifest.versions.find((v) => v.sha1 === sha1);
  if (existing) {
    report.status = "unchanged";
    report.feed_onestop_id = existing.feed_onestop_id;
    report.activated = manifest.feeds.find((f) => f.onestop_id === existing.feed_onestop_id)?.active === sha1;
    run.progress(`unchanged: version ${sha1} is already imported (feed ${existing.feed_onestop_id})`);
    return null;
  }
  return { ...src, sha1, fetchedAt, manifest };
}

export interface UnpackedFeed {
  /** the folder of the GTFS .txt files */
  gtfsDir: string;
  /** stop_times.txt being read by the fast reader (and, from a zip, unpacked), or null */
  stopTimes: StopTimesOffThread | null;
}

export async function unpack(run: ImportRun, session: ImportSession, src: FetchedSource): Promise<UnpackedFeed> {
  if (src.kind === "zip") {
    const gtfsDir = join(session.dir, "gtfs");
    const { size, stopTimes } = await unpackZip(src.bytes!, gtfsDir, run.source, run.fastReader);
    if (stopTimes) session.adopt(stopTimes);
    run.progress(`unpacking ${(size / 1e6).toFixed(1)} MB`);
    return { gtfsDir, stopTimes };
  }
  const gtfsDir = run.source;
  const file = join(gtfsDir, "stop_times.txt");
  const stopTimes = run.fastReader && existsSync(file) ? readStopTimesOffThread({ file }) : null;
  if (stopTimes) session.adopt(stopTimes);
  return { gtfsDir, stopTimes };
}
