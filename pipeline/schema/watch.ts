/**
 * Watching a folder of the dataset for changes: fs.watch where the platform delivers its events,
 * and a 2 s poll of a fingerprint as the fallback (network and synced folders often send none).
 * `check` runs on every event and poll; it compares its own fingerprint and acts on a change.
 */
import { mkdirSync, watch } from "node:fs";

export const WATCH_POLL_MS = 2000;

/** Watch `dir` (created if missing), calling `check` on events whose file name passes `only` and every WATCH_POLL_MS; returns the stop function. */
export function watchFolder(dir: string, check: () => void, only?: (name: string | null) => boolean): () => void {
  let watcher: ReturnType<typeof watch> | null = null;
  try {
    mkdirSync(dir, { recursive: true });
    watcher = watch(dir, (_ev, name) => {
      if (!only || only(name)) check();
    });
  } catch {
    watcher = null;
  }
  const poll = setInterval(check, WATCH_POLL_MS);
  poll.unref?.();
  return () => {
    watcher?.close();
    clearInterval(poll);
  };
}
