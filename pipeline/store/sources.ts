/**
 * What each feed URL last answered, kept in the dataset for conditional requests:
 * `<data>/sources/<sha1 of the URL>.json` = { url, etag, last_modified, sha1, feed_onestop_id,
 * checked_at, changed_at }. Written only once the bytes it describes are in the dataset (imported,
 * or found to be a version already there), so a 304 always means "the version `sha1` is here";
 * the import sends the validators only while the manifest still lists that version (prune may have
 * removed it). Pipeline-only state: the server never reads it.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync } from "node:fs";
import { join } from "node:path";
import type { Validators } from "../import/download.ts";
import { writeFileDurable } from "./durable.ts";

export const SOURCES_DIR = "sources";

export interface SourceState extends Validators {
  url: string;
  /** SHA-1 of the bytes the URL answered with (the feed version) */
  sha1: string;
  feed_onestop_id: string | null;
  /** last time the URL was asked (a 304 included) */
  checked_at: string;
  /** when the URL last answered with new bytes */
  changed_at: string;
}

const fileOf = (dataDir: string, url: string) => join(dataDir, SOURCES_DIR, `${createHash("sha1").update(url).digest("hex")}.json`);

export function readSourceState(dataDir: string, url: string): SourceState | null {
  const p = fileOf(dataDir, url);
  if (!existsSync(p)) return null;
  try {
    const s = JSON.parse(readFileSync(p, "utf8")) as SourceState;
    return s.url === url && typeof s.sha1 === "string" ? s : null;
  } catch {
    return null; // a torn or foreign file: ask without validators
  }
}

/** Replace the URL's state (temp file, fsync, rename). Only under the import lock. */
export function writeSourceState(dataDir: string, state: SourceState): void {
  const p = fileOf(dataDir, state.url);
  mkdirSync(join(dataDir, SOURCES_DIR), { recursive: true });
  const tmp = `${p}.${process.pid}.tmp`;
  writeFileDurable(tmp, JSON.stringify(state, null, 2) + "\n");
  renameSync(tmp, p);
}
