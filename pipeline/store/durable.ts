/**
 * Durable writes of the dataset: a file written and flushed to disk (fsync), a folder's files or a
 * whole tree flushed, a folder's entries flushed. Used by the manifest switch (manifest.ts), the
 * generation records (generations.ts) and every writer of dataset files.
 */
import { closeSync, fsyncSync, openSync, writeSync } from "node:fs";
import { open, readdir } from "node:fs/promises";
import { join } from "node:path";

/** All of `chunk` written at the descriptor's position (a write may take less than asked). */
function writeAll(fd: number, chunk: Uint8Array): void {
  for (let at = 0; at < chunk.length; ) at += writeSync(fd, chunk, at, chunk.length - at);
}

/** Write `text` (or the concatenation of the chunks) to path and fsync it. */
export function writeFileDurable(path: string, text: string | Uint8Array | Uint8Array[]): void {
  const fd = openSync(path, "w");
  try {
    for (const chunk of typeof text === "string" ? [Buffer.from(text)] : Array.isArray(text) ? text : [text]) writeAll(fd, chunk);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes `path` from the chunks `fill` passes to its `write` as it makes them (written at once, so
 * none needs to be held until the end), then fsyncs it; the file is closed whether `fill` fails or not.
 */
export async function writeFileDurableFrom(path: string, fill: (write: (chunk: Uint8Array) => void) => Promise<void>): Promise<void> {
  const fd = openSync(path, "w");
  try {
    await fill((chunk) => writeAll(fd, chunk));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Every file under `dir` (recursively) and every folder flushed to disk (fsync), off this thread. */
export async function fsyncTreeAsync(dir: string): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true });
  for (const e of entries) if (e.isDirectory()) await fsyncTreeAsync(join(dir, e.name));
  const files = entries.filter((e) => e.isFile());
  // a few at a time: a planet's tile folder holds ~100 k files
  for (let i = 0; i < files.length; i += 32) {
    await Promise.all(files.slice(i, i + 32).map(async (e) => {
      const fh = await open(join(dir, e.name), "r");
      try {
        await fh.sync();
      } finally {
        await fh.close();
      }
    }));
  }
  fsyncDir(dir);
}

/** Every file directly in `dir` flushed to disk (fsync), off this thread. */
export async function fsyncFilesAsync(dir: string): Promise<void> {
  const files = (await readdir(dir, { withFileTypes: true })).filter((e) => e.isFile());
  await Promise.all(files.map(async (e) => {
    const fh = await open(join(dir, e.name), "r");
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
  }));
}

export function fsyncDir(dir: string): void {
  try {
    const fd = openSync(dir, "r");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    /* not supported on every platform */
  }
}
