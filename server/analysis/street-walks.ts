/**
 * The command's street walks: when the dataset has an active street dataset, the embedded engine
 * opened in this process (no pool: one call at a time) behind the street paths port, measured by
 * the planner's analysis walks (server/planner/analysis/street-walks.ts).
 */
import { activeStreets, readManifest } from "../../pipeline/schema/manifest.ts";
import { StreetWalks, type AccessMode } from "../planner/analysis/street-walks.ts";
import { createEngine } from "../street/create-engine.ts";
import type { StreetEngine } from "../street/engine.ts";
import { streetPaths } from "../street/paths.ts";

const quiet = { info() {}, warn() {}, error() {} };

/** The dataset's street walks and the engine to close after, or null when it has no street dataset. */
export async function openStreetWalks(dataDir: string, walkSpeed: number, maxWalkSec: number, access?: AccessMode, egress?: AccessMode): Promise<{ walks: StreetWalks; sha1: string; close: () => Promise<void> } | null> {
  const entry = activeStreets(readManifest(dataDir));
  if (!entry) return null;
  const engine: StreetEngine = createEngine({ valhallaUrl: null, valhallaTimeoutMs: 30_000, dataDir, allowHardExclusions: false, engineConcurrency: 1, engineIsolation: "none", engineTimeoutMs: 28_000 }, quiet);
  await engine.reload?.();
  return { walks: new StreetWalks(streetPaths(engine, () => true), walkSpeed, maxWalkSec, access, egress), sha1: entry.sha1, close: async () => engine.close?.() };
}
