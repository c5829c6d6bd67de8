/**
 * A dataset folder copied to another machine's folder the way README's "Several machines" says to
 * (what `rsync -a` does, in the same order): every data file first (versions/, timetables/,
 * streets/, realtime snapshots, ...), each copied to a temporary name beside it and renamed into
 * place (so no reader sees half a file), with its modification time kept; then the realtime status
 * files (realtime/feeds/*.json, which name snapshot files); the manifest last. A file whose size
 * and modification time already match is skipped, as rsync skips it. Nothing is deleted (removals
 * are a later pass, after the manifest; see README). `order: "manifest-first"` is the wrong order,
 * for the test that shows what it does.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, statSync, utimesSync } from "node:fs";
import { dirname, join, relative } from "node:path";

/** What the import writes for itself only: never copied (the lock, staging, the trash, the manifest's temp files). */
const PRIVATE = (rel: string) => rel === ".import.lock" || rel === "staging" || rel === ".trash" || /^\.manifest\.json\..*\.tmp$/.test(rel);

function walk(root: string, dir = root, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    const rel = relative(root, p);
    if (PRIVATE(rel)) continue;
    if (e.isDirectory()) walk(root, p, out);
    else if (e.isFile()) out.push(rel);
  }
  return out;
}

function copyOne(from: string, to: string, rel: string): boolean {
  const src = join(from, rel);
  const dst = join(to, rel);
  const s = statSync(src);
  if (existsSync(dst)) {
    const d = statSync(dst);
    if (d.size === s.size && Math.trunc(d.mtimeMs) === Math.trunc(s.mtimeMs)) return false;
  }
  mkdirSync(dirname(dst), { recursive: true });
  const tmp = join(dirname(dst), `.${rel.split("/").pop()}.sync-${process.pid}`);
  copyFileSync(src, tmp);
  utimesSync(tmp, s.atime, s.mtime);
  renameSync(tmp, dst);
  return true;
}

const isManifest = (rel: string) => rel === "manifest.json";
const isStatus = (rel: string) => rel.startsWith("realtime/feeds/");

/** Copy dataset folder `from` into `to` (created if missing); returns the files copied, in order. */
export function syncDataset(from: string, to: string, opts: { order?: "safe" | "manifest-first"; only?: "manifest" | "data" } = {}): string[] {
  const files = walk(from);
  const data = files.filter((f) => !isManifest(f) && !isStatus(f)).sort();
  const status = files.filter(isStatus).sort();
  const manifest = files.filter(isManifest);
  let order = opts.order === "manifest-first" ? [...manifest, ...status, ...data] : [...data, ...status, ...manifest];
  if (opts.only === "manifest") order = manifest;
  if (opts.only === "data") order = [...data, ...status];
  mkdirSync(to, { recursive: true });
  return order.filter((rel) => copyOne(from, to, rel));
}
