/**
 * The retention policy: old feed versions, timetables and street datasets removed from a dataset
 * without touching what a running server reads. Under the import lock, in two steps:
 *
 * 1. Unlist (a manifest switch): of each feed, every version but its `keep` newest (import order)
 *    and its active one; every street dataset older than the active one (the active one and those
 *    built after it, e.g. with --no-activate, stay). The active versions, the manifest's timetable
 *    and its active street dataset are never unlisted.
 * 2. Remove what nothing protects: a folder of `versions/` or `streets/` or a file of
 *    `timetables/` is removed only when the current manifest does not list it AND no generation
 *    replaced less than `graceMs` ago points at it (the records of store/generations.ts: a server
 *    that loaded such a generation a moment ago may still be reading it) AND, for an item no
 *    manifest ever listed (debris of a killed import), it is older than `graceMs`.
 *    So an item unlisted in step 1 is removed by the first prune at least `graceMs` later.
 *
 * Each removal is atomic: the item is renamed into `<data>/.trash/` (one rename, on the same file
 * system), then deleted there; a crash leaves it whole in its place or in the trash, which the next
 * prune empties, never half-deleted where a manifest lists it.
 */
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { readManifest, type Manifest } from "../schema/manifest.ts";
import { TIMETABLES_DIR } from "../schema/timetable.ts";
import { pathsUsedBy, readGenerationRecords, RECORD_MAX_AGE_MS, type GenerationRecord } from "./generations.ts";
import { acquireLock, writeManifest } from "./manifest.ts";
import { fsyncDir } from "./durable.ts";

export const TRASH_DIR = ".trash";
/** the import reports' folder (pipeline/import/run.ts writes them) */
export const REPORTS_DIR = "reports";
/** default grace period: far longer than a server takes to notice a new manifest (2 s) and load it */
export const DEFAULT_GRACE_MS = 10 * 60_000;

export interface PruneOptions {
  dataDir: string;
  /** feed versions kept per feed besides the active one (>= 1); null/undefined: no version is unlisted */
  keep?: number | null;
  /** per-feed `keep` (feeds file entries), over `keep` */
  keepByFeed?: Map<string, number>;
  /** items a replaced generation points at stay this long after it was replaced (default DEFAULT_GRACE_MS) */
  graceMs?: number;
  /** report what would be done, change nothing */
  dryRun?: boolean;
  now?: () => Date;
  progress?: (msg: string) => void;
}

/** An unlisted item still protected, and from when it may be removed. */
export interface Waiting {
  path: string;
  /** "generation N" (replaced at ...) or "recent" (never listed, younger than the grace period) */
  reason: string;
  until: string;
}

export interface PruneReport {
  dry_run: boolean;
  keep: number | null;
  grace_s: number;
  /** the manifest generation after the prune */
  generation: number;
  /** taken out of the manifest by this prune (their folders follow once nothing protects them) */
  unlisted: { versions: { sha1: string; feed_onestop_id: string }[]; streets: string[] };
  /** removed from the disk, relative to the data dir */
  removed: { versions: string[]; timetables: string[]; streets: string[] };
  /** not listed any more but still protected: removed by a later prune */
  waiting: Waiting[];
  /** import reports (`reports/`) removed: those of versions the manifest does not list, older than REPORT_MAX_AGE_MS */
  reports_removed: string[];
  /** what the manifest lists after the prune */
  kept: { versions: number; streets: number; timetable: string | null };
  elapsed_ms: number;
}

const KINDS = [
  { kind: "versions", dir: "versions", item: (name: string, isDir: boolean) => isDir && !name.startsWith(".") },
  { kind: "streets", dir: "streets", item: (name: string, isDir: boolean) => isDir && !name.startsWith(".") },
  { kind: "timetables", dir: TIMETABLES_DIR, item: (name: string, isDir: boolean) => !isDir && (name.endsWith(".arrow") || name.endsWith(".tmp")) },
] as const;

export function validateKeep(keep: number, where: string): number {
  if (!Number.isInteger(keep) || keep < 1) throw new RangeError(`${where}: keep must be a whole number >= 1 (the active version is always kept besides), got ${keep}`);
  return keep;
}

export function validateGraceMs(graceMs: number, where: string): number {
  if (!Number.isFinite(graceMs) || graceMs < 0 || graceMs > RECORD_MAX_AGE_MS) throw new RangeError(`${where}: the grace period must be between 0 and ${RECORD_MAX_AGE_MS / 1000} s, got ${graceMs / 1000} s`);
  return graceMs;
}

export async function prune(opts: PruneOptions): Promise<PruneReport> {
  const started = performance.now();
  const dataDir = opts.dataDir;
  const graceMs = validateGraceMs(opts.graceMs ?? DEFAULT_GRACE_MS, "prune");
  const keep = opts.keep == null ? null : validateKeep(opts.keep, "prune");
  for (const [feed, n] of opts.keepByFeed ?? []) validateKeep(n, `prune (feed ${feed})`);
  const dryRun = opts.dryRun === true;
  const now = (opts.now ?? (() => new Date()))();
  const progress = (m: string) => opts.progress?.(`[prune] ${m}`);
  const release = acquireLock(dataDir);
  try {
    if (!dryRun) emptyTrash(dataDir);
    // 1. unlist
    const before = readManifest(dataDir);
    const plan = unlistPlan(before, keep, opts.keepByFeed ?? new Map());
    let current = before;
    const records = readGenerationRecords(dataDir);
    if (plan.versions.length || plan.streets.length) {
      const gone = new Set(plan.versions.map((v) => v.sha1));
      const goneStreets = new Set(plan.streets);
      const next: Manifest = { ...before, versions: before.versions.filter((v) => !gone.has(v.sha1)), streets: before.streets?.filter((s) => !goneStreets.has(s.sha1)) };
      if (dryRun) {
        // as if switched now: the generation it replaces protects what it lists
        records.push({ generation: before.generation, replaced_at: now.toISOString(), paths: pathsUsedBy(before) });
        current = { ...next, generation: before.generation + 1 };
      } else {
        writeManifest(dataDir, next);
        current = readManifest(dataDir);
        records.splice(0, records.length, ...readGenerationRecords(dataDir));
      }
      progress(`${dryRun ? "would unlist" : "unlisted"} ${plan.versions.length} feed version(s), ${plan.streets.length} street dataset(s)`);
    }

    // 2. remove what nothing protects
    const { removed, waiting } = removeUnprotected(dataDir, current, records, graceMs, now, dryRun, KINDS);
    const reportsRemoved = oldReports(dataDir, current, now, dryRun);
    const n = removed.versions.length + removed.timetables.length + removed.streets.length;
    progress(`${dryRun ? "would remove" : "removed"} ${n} item(s)${waiting.length ? `; ${waiting.length} unlisted item(s) wait for the grace period` : ""}`);
    return {
      dry_run: dryRun, keep, grace_s: graceMs / 1000, generation: current.generation,
      unlisted: { versions: plan.versions, streets: plan.streets },
      removed: { versions: removed.versions.sort(), timetables: removed.timetables.sort(), streets: removed.streets.sort() },
      waiting: waiting.sort((a, b) => a.path.localeCompare(b.path)),
      reports_removed: reportsRemoved,
      kept: { versions: current.versions.length, streets: current.streets?.length ?? 0, timetable: current.timetable?.path ?? null },
      elapsed_ms: Math.round(performance.now() - started),
    };
  } finally {
    release();
  }
}

/**
 * Step 2 of the policy for the `kinds` given: remove each item the manifest `current` does not
 * list, that no generation of `records` replaced less than `graceMs` before `now` points at, and
 * that, if no generation ever listed it, is older than `graceMs` (temp files of interrupted
 * compiles excepted). Under the import lock.
 */
function removeUnprotected(dataDir: string, current: Manifest, records: GenerationRecord[], graceMs: number, now: Date, dryRun: boolean, kinds: readonly (typeof KINDS)[number][]): { removed: PruneReport["removed"]; waiting: Waiting[] } {
  const listed = new Set([...current.versions.map((v) => v.path), ...(current.streets ?? []).map((s) => s.path), ...(current.timetable?.path ? [current.timetable.path] : [])]);
  const protectedUntil = new Map<string, { until: number; reason: string }>();
  for (const r of records) {
    const until = Date.parse(r.replaced_at) + graceMs;
    if (until <= now.getTime()) continue;
    for (const p of r.paths) {
      const had = protectedUntil.get(p);
      if (!had || had.until < until) protectedUntil.set(p, { until, reason: `generation ${r.generation} (replaced at ${r.replaced_at})` });
    }
  }
  const everListed = new Set(records.flatMap((r: GenerationRecord) => r.paths));
  const removed: PruneReport["removed"] = { versions: [], timetables: [], streets: [] };
  const waiting: Waiting[] = [];
  for (const k of kinds) {
    const dir = join(dataDir, k.dir);
    if (!existsSync(dir)) continue;
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (!k.item(e.name, e.isDirectory())) continue;
      const rel = `${k.dir}/${e.name}`;
      if (listed.has(rel)) continue;
      const held = protectedUntil.get(rel);
      if (held) {
        waiting.push({ path: rel, reason: held.reason, until: new Date(held.until).toISOString() });
        continue;
      }
      if (!everListed.has(rel) && !e.name.endsWith(".tmp")) {
        // never listed by a generation we know of: debris, or an item being published right now
        const young = mtimeMs(join(dir, e.name)) + graceMs;
        if (young > now.getTime()) {
          waiting.push({ path: rel, reason: "recent (listed by no manifest)", until: new Date(young).toISOString() });
          continue;
        }
      }
      if (!dryRun) removeAtomically(dataDir, dir, e.name, k.kind);
      removed[k.kind].push(rel);
    }
  }
  return { removed, waiting };
}

/**
 * The timetable files a compile leaves behind, removed by the policy's step 2 (under the import
 * lock, which the caller holds): a replaced timetable stays while a generation replaced less than
 * the grace period ago points at it (a server that loaded that generation a moment ago may still be
 * opening it), so it goes with a later compile or prune. Returns the removed paths.
 */
export function pruneTimetableFiles(dataDir: string, graceMs = DEFAULT_GRACE_MS, now = new Date()): string[] {
  const timetables = KINDS.filter((k) => k.kind === "timetables");
  return removeUnprotected(dataDir, readManifest(dataDir), readGenerationRecords(dataDir), graceMs, now, false, timetables).removed.timetables.sort();
}

/** How long the import report of a version the manifest does not list (a rejected feed, a removed version) is kept. */
export const REPORT_MAX_AGE_MS = 30 * 24 * 3600_000;

/**
 * The import reports (`reports/<sha1>-<status>.json`) of versions `current` does not list, older
 * than REPORT_MAX_AGE_MS: removed (unless `dryRun`). A listed version's reports stay with it.
 */
function oldReports(dataDir: string, current: Manifest, now: Date, dryRun: boolean): string[] {
  const dir = join(dataDir, REPORTS_DIR);
  if (!existsSync(dir)) return [];
  const listed = new Set(current.versions.map((v) => v.sha1));
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const m = /^([0-9a-f]{40}|unknown)-[a-z_]+\.json$/.exec(name);
    if (!m || listed.has(m[1]!)) continue;
    if (mtimeMs(join(dir, name)) + REPORT_MAX_AGE_MS > now.getTime()) continue;
    if (!dryRun) rmSync(join(dir, name), { force: true });
    out.push(`${REPORTS_DIR}/${name}`);
  }
  return out.sort();
}

/** Which versions and street datasets step 1 takes out of the manifest. */
export function unlistPlan(m: Manifest, keep: number | null, keepByFeed: Map<string, number>): { versions: { sha1: string; feed_onestop_id: string }[]; streets: string[] } {
  const versions: { sha1: string; feed_onestop_id: string }[] = [];
  const inUse = new Set(m.timetable?.active_sha1s ?? []);
  for (const feed of m.feeds) {
    const n = keepByFeed.get(feed.onestop_id) ?? keep;
    if (n == null) continue;
    const own = m.versions.filter((v) => v.feed_onestop_id === feed.onestop_id).sort((a, b) => b.id - a.id); // newest first
    for (const v of own.slice(n)) {
      if (v.sha1 === feed.active || inUse.has(v.sha1)) continue;
      versions.push({ sha1: v.sha1, feed_onestop_id: feed.onestop_id });
    }
  }
  const streets: string[] = [];
  const all = m.streets ?? [];
  const activeAt = all.findIndex((s) => s.sha1 === m.active_streets);
  if (activeAt > 0) for (const s of all.slice(0, activeAt)) if (s.sha1 !== m.timetable?.streets_sha1) streets.push(s.sha1);
  return { versions, streets };
}

/** Rename `name` out of `dir` into the trash (atomic), then delete it there. */
function removeAtomically(dataDir: string, dir: string, name: string, kind: string): void {
  const trash = join(dataDir, TRASH_DIR);
  mkdirSync(trash, { recursive: true });
  const target = join(trash, `${kind}-${name}-${process.pid}-${Date.now()}`);
  renameSync(join(dir, name), target);
  fsyncDir(dir);
  rmSync(target, { recursive: true, force: true });
}

/** What a crashed prune left in the trash (already out of its place, listed by no manifest). */
function emptyTrash(dataDir: string): void {
  const trash = join(dataDir, TRASH_DIR);
  if (!existsSync(trash)) return;
  for (const name of readdirSync(trash)) rmSync(join(trash, name), { recursive: true, force: true });
}

function mtimeMs(p: string): number {
  try {
    return statSync(p).mtimeMs;
  } catch {
    return 0;
  }
}
