/**
 * The street engine the configuration asks for: an external Valhalla-compatible engine at
 * --valhalla-url, else the embedded engine over the dataset's street tiles (embedded.ts).
 */
import type { ServerConfig } from "../config.ts";
import type { Logger } from "../feature.ts";
import { EmbeddedEngine } from "./embedded.ts";
import { ExternalValhallaEngine, type StreetEngine } from "./engine.ts";

export interface EngineHooks {
  /** an engine process ended while running a call of `action` (a native crash; the embedded engine) */
  onCrash?: (action: string) => void;
  /** an engine call ran past --engine-timeout-ms and was stopped (the embedded engine) */
  onTimeout?: (action: string) => void;
}

export function createEngine(
  config: Pick<ServerConfig, "valhallaUrl" | "valhallaTimeoutMs" | "dataDir" | "allowHardExclusions" | "engineConcurrency"> & Partial<Pick<ServerConfig, "engineIsolation" | "engineWaitMs" | "engineTimeoutMs">>,
  log: Logger,
  hooks: EngineHooks = {},
): StreetEngine {
  if (config.valhallaUrl) return new ExternalValhallaEngine(config.valhallaUrl, config.valhallaTimeoutMs);
  return new EmbeddedEngine({
    dataDir: config.dataDir,
    allowHardExclusions: config.allowHardExclusions,
    maxConcurrent: config.engineConcurrency ?? undefined,
    isolation: config.engineIsolation,
    slotWaitMs: config.engineWaitMs,
    callTimeoutMs: config.engineTimeoutMs,
    onCrash: hooks.onCrash,
    onTimeout: hooks.onTimeout,
    log,
  });
}
