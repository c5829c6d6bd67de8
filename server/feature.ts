/**
 * The contract between app.ts and each feature (catalog, planner, street routing): a feature is
 * built from the frozen config and hands back its Elysia routes plus lifecycle hooks.
 */
import type { Elysia } from "elysia";
import type { ServerConfig } from "./config.ts";

export interface Logger {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

export interface FeatureContext {
  readonly config: ServerConfig;
  readonly log: Logger;
  /** injected clock (ms since epoch) so tests can pin "now" */
  readonly now: () => number;
}

export interface Feature {
  readonly name: string;
  // biome-ignore lint: Elysia's generic parameters are irrelevant at this boundary
  readonly routes: Elysia<any, any, any, any, any, any, any>;
  /** called when the active dataset changes (manifest rewritten) */
  reload?(): Promise<void>;
  close?(): Promise<void>;
  /** one-line status for /health */
  health?(): Record<string, unknown>;
}

export const consoleLogger: Logger = {
  info: (msg, f) => console.error(JSON.stringify({ level: "info", msg, ...f })),
  warn: (msg, f) => console.error(JSON.stringify({ level: "warn", msg, ...f })),
  error: (msg, f) => console.error(JSON.stringify({ level: "error", msg, ...f })),
};
