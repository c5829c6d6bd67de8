/**
 * The contract between app.ts and each feature (catalog, planner, street routing): a feature is
 * built from the frozen config and hands back its Elysia routes plus lifecycle hooks.
 */
import type { Elysia } from "elysia";
import type { ServerConfig } from "./config.ts";
import type { ErrorRenderer } from "./errors.ts";
import type { PublicOrigin } from "./origin.ts";

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
  /** the public origin absolute links are written with (server/origin.ts; "" = relative links) */
  readonly origin: PublicOrigin;
}

/**
 * How a feature's errors look: every error answered under `prefix` (a bad parameter, an unknown
 * key, a failed search, and also the service-wide refusals: API key, rate limit, unknown path) is
 * rendered by `render`. server/app.ts picks the longest matching prefix; server/errors.ts
 * renderError answers elsewhere.
 */
export interface FeatureErrors {
  readonly prefix: string;
  readonly render: ErrorRenderer;
}

export interface Feature {
  readonly name: string;
  // biome-ignore lint: Elysia's generic parameters are irrelevant at this boundary
  readonly routes: Elysia<any, any, any, any, any, any, any>;
  /** the feature's error bodies for its paths (default: server/errors.ts renderError) */
  readonly errors?: FeatureErrors;
  /**
   * Paths answered without an API key (the web map's page and files); every other path needs one
   * (server/app.ts). An entry ending in "/" covers the paths under it.
   */
  readonly publicPaths?: readonly string[];
  /** OpenAPI path items the route table cannot give /docs (the swagger plugin drops paths with a dot) */
  readonly docPaths?: Record<string, unknown>;
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
