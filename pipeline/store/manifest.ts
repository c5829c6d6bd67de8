/**
 * The writing side of a dataset (its types and readers are pipeline/schema/manifest.ts): the
 * manifest replaced atomically (write a temp file, fsync, rename) with a record of the generation
 * it replaces (generations.ts), the id allocator and the import lock (durable file writes: durable.ts). Only the
 * pipeline writes a dataset; pruning old items is prune.ts.
 */
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";
import { MANIFEST, readManifest, type Manifest } from "../schema/manifest.ts";
import { fsyncDir, writeFileDurable } from "./durable.ts";
import { recordReplaced } from "./generations.ts";

/**
 * Atomically replace the manifest. What the generation it replaces points servers at is recorded
 * first (store/generations.ts), so that pruning spares it while a server may still read it.
 */
export function writeManifest(dataDir: string, m: Manifest): void {
  mkdirSync(dataDir, { recursive: true });
  const replaced = existsSync(join(dataDir, MANIFEST)) ? readManifest(dataDir) : null;
  m.generation = Math.max(m.generation, replaced?.generation ?? 0) + 1;
  m.updated_at = new Date().toISOString();
  if (replaced) recordReplaced(dataDir, replaced, m.updated_at);
  const tmp = join(dataDir, `.${MANIFEST}.${process.pid}.tmp`);
  writeFileDurable(tmp, JSON.stringify(m, null, 2) + "\n");
  renameSync(tmp, join(dataDir, MANIFEST));
  fsyncDir(dataDir);
}

/** Reserve `count` consecutive ids of `kind` in the manifest (written with it); returns the first. */
export function allocateIds(m: Manifest, kind: string, count: number): number {
  const start = m.next_ids[kind] ?? 1;
  m.next_ids[kind] = start + count;
  return start;
}

/**
 * Exclusive import lock (`<data>/.import.lock`, O_EXCL). A lock whose process is gone is stale and
 * taken over, so a kill -9 never blocks later imports.
 */
export function acquireLock(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const p = join(dataDir, ".import.lock");
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(p, "wx");
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => {
        try {
          unlinkSync(p);
        } catch {
          /* already gone */
        }
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      const pid = Number(readFileSync(p, "utf8").trim());
      if (pid && isAlive(pid) && pid !== process.pid) throw new Error(`another import (pid ${pid}) holds ${p}`);
      unlinkSync(p); // stale
    }
  }
  throw new Error(`cannot take the import lock ${p}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

