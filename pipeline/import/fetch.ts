/**
 * The first stages of an import. fetchSource: the source's bytes (zip, URL) or folder and the SHA-1
 * that names the version; a version already in the manifest makes the import a no-op, and so does
 * a URL answering 304 to a conditional request (import/download.ts: time-outs and retries too); a
 * zip whose version is there but was imported before the import kept its zip leaves it there now.
 * unpack: the zip's files into the session's staging folder, stop_times.txt handed to the fast
 * reader in a worker thread (unpacked in memory there) while the others are written.
 */
import { existsSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { readStopTimesOffThread, type StopTimesOffThread } from "../gtfs/stop-times/fast.ts";
import type { FetchInfo } from "../report.ts";
import { readManifest, type Manifest, VERSION_ZIP, type VersionEntry } from "../schema/manifest.ts";
import { fsyncDir, writeFileDurable } from "../store/durable.ts";
import { folderSha1, isUrl, readSourceBytes, sha1Hex, unpackZip } from "../source.ts";
import { writeManifest } from "../store/manifest.ts";
import { readSourceState, writeSourceState } from "../store/sources.ts";
import { download, FetchError, type Validators } from "./download.ts";
import type { ImportRun } from "./run.ts";
import type { ImportSession } from "./session.ts";

export interface FetchedSource {
  kind: "zip" | "folder";
  bytes?: Uint8Array;
  sha1: string;
  fetchedAt: Date;
  /** the manifest when the import started (unchanged while it holds the lock) */
  manifest: Manifest;
  /** what the URL said about these bytes: kept (rememberSource) once they are in the dataset */
  validators?: Validators;
}

/**
 * An unchanged feed's name and tags as the import's options (the feeds file) now give them: the
 * manifest is rewritten (under the import's lock) only when they differ, so that editing a feed's
 * labels does not wait for its next version.
 */
function refreshLabels(run: ImportRun, feedOnestopId: string): void {
  const { name, tags } = run.opts;
  if (name === undefined && tags === undefined) return;
  if (run.opts.feedId !== undefined && run.opts.feedId !== feedOnestopId) return;
  const m = readManifest(run.dataDir);
  const feed = m.feeds.find((f) => f.onestop_id === feedOnestopId);
  if (!feed) return;
  const nextName = name !== undefined ? name : (feed.name ?? null);
  const nextTags = tags !== undefined ? { ...tags } : (feed.tags ?? null);
  if ((feed.name ?? null) === nextName && JSON.stringify(feed.tags ?? null) === JSON.stringify(nextTags)) return;
  feed.name = nextName;
  feed.tags = nextTags;
  writeManifest(run.dataDir, m);
  run.progress(`feed ${feedOnestopId}: name and tags updated`);
}

/** The source and its SHA-1; null when that version is imported already (the report says so). */
export async function fetchSource(run: ImportRun): Promise<FetchedSource | null> {
  const { report } = run;
  const fetchedAt = run.now();
  report.fetched_at = fetchedAt.toISOString();
  const manifest = readManifest(run.dataDir);
  let src: { kind: "zip" | "folder"; bytes?: Uint8Array; validators?: Validators };
  if (isUrl(run.source)) {
    const fetched = await fetchUrl(run, manifest);
    if (!fetched) return null;
    src = fetched;
  } else {
    src = await readSourceBytes(run.source);
  }
  const sha1 = src.kind === "zip" ? sha1Hex(src.bytes!) : folderSha1(run.source);
  report.sha1 = sha1;
  const existing = manifest.versions.find((v) => v.sha1 === sha1);
  if (existing) {
    report.status = "unchanged";
    report.feed_onestop_id = existing.feed_onestop_id;
    report.activated = manifest.feeds.find((f) => f.onestop_id === existing.feed_onestop_id)?.active === sha1;
    run.progress(`unchanged: version ${sha1} is already imported (feed ${existing.feed_onestop_id})`);
    if (src.kind === "zip") keepZip(run, existing, src.bytes!);
    if (src.validators) rememberSource(run, sha1, existing.feed_onestop_id, src.validators);
    refreshLabels(run, existing.feed_onestop_id);
    return null;
  }
  return { ...src, sha1, fetchedAt, manifest };
}

/**
 * A version imported before the import kept its zip (schema/manifest.ts VERSION_ZIP) gets it now,
 * from the same bytes: written beside, flushed, renamed in (one step: a reader sees it whole or not
 * at all). The version's other files are not touched. A failure costs only the zip.
 */
function keepZip(run: ImportRun, version: VersionEntry, bytes: Uint8Array): void {
  const dir = join(run.dataDir, version.path);
  const file = join(dir, VERSION_ZIP);
  if (!existsSync(dir) || existsSync(file)) return;
  try {
    writeFileDurable(`${file}.tmp`, bytes);
    renameSync(`${file}.tmp`, file);
    fsyncDir(dir);
    run.progress(`kept the zip of version ${version.sha1} (${VERSION_ZIP}), imported before the import kept it`);
  } catch (e) {
    rmSync(`${file}.tmp`, { force: true });
    run.progress(`could not keep the zip of version ${version.sha1}: ${(e as Error).message}`);
  }
}

/**
 * Download an http(s) source, conditionally when the dataset still lists the version the URL
 * answered with last time. null: a 304, the report says "unchanged" with that version.
 */
async function fetchUrl(run: ImportRun, manifest: Manifest): Promise<{ kind: "zip"; bytes: Uint8Array; validators: Validators } | null> {
  const { report } = run;
  const state = run.conditional ? readSourceState(run.dataDir, run.source) : null;
  const known = state && (state.etag || state.last_modified) ? manifest.versions.find((v) => v.sha1 === state.sha1) : undefined;
  const info: FetchInfo = { url: run.source, attempts: 0, http_status: null, not_modified: false, conditional: Boolean(known), etag: null, last_modified: null, bytes: 0 };
  report.fetch = info;
  try {
    const d = await download(run.source, run.fetchPolicy, known ? state : null, run.progress);
    info.attempts = d.attempts;
    info.http_status = d.http_status;
    if (d.status === "not_modified" && !known) throw new FetchError(`cannot fetch ${run.source}: HTTP 304 to a request that was not conditional`, d.attempts, 304);
    if (d.status === "not_modified") {
      Object.assign(info, { not_modified: true, etag: state!.etag, last_modified: state!.last_modified });
      Object.assign(report, { status: "unchanged", sha1: known!.sha1, feed_onestop_id: known!.feed_onestop_id });
      report.activated = manifest.feeds.find((f) => f.onestop_id === known!.feed_onestop_id)?.active === known!.sha1;
      try {
        writeSourceState(run.dataDir, { ...state!, checked_at: run.now().toISOString() });
      } catch { /* only the time of the check */ }
      run.progress(`unchanged: not modified (HTTP 304), version ${known!.sha1} (feed ${known!.feed_onestop_id})`);
      refreshLabels(run, known!.feed_onestop_id);
      return null;
    }
    Object.assign(info, { etag: d.validators.etag, last_modified: d.validators.last_modified, bytes: d.bytes.length });
    return { kind: "zip", bytes: d.bytes, validators: d.validators };
  } catch (e) {
    if (e instanceof FetchError) Object.assign(info, { attempts: e.attempts, http_status: e.httpStatus });
    throw e;
  }
}

/** The URL's answer is in the dataset now (version `sha1`): its validators serve the next conditional request. */
export function rememberSource(run: ImportRun, sha1: string, feedOnestopId: string | null, validators: Validators | undefined): void {
  if (!validators || !(validators.etag || validators.last_modified)) return; // nothing to ask with
  const now = run.now().toISOString();
  const before = readSourceState(run.dataDir, run.source);
  try {
    writeSourceState(run.dataDir, {
      url: run.source, ...validators, sha1, feed_onestop_id: feedOnestopId, checked_at: now,
      changed_at: before?.sha1 === sha1 ? before.changed_at : now,
    });
  } catch (e) {
    // the import stands; the next run downloads the feed again
    run.progress(`could not keep the URL's validators: ${(e as Error).message}`);
  }
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
