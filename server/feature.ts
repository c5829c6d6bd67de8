/**
 * The contract between app.ts and each feature (catalog, planner, street routing): a feature is
 * built from the frozen config and hands back its Elysia routes plus lifecycle hooks. Also the
 * service's logger: JSON lines on stderr, the request log's lines written in batches (LineWriter).
 */
import { constants as fsConstants, fstatSync, openSync, writeSync } from "node:fs";
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
  /** the feature's error bodies for its paths, one prefix or several (default: server/errors.ts renderError) */
  readonly errors?: FeatureErrors | readonly FeatureErrors[];
  /**
   * Paths answered without an API key (the web map's page and files); every other path needs one
   * (server/app.ts). An entry ending in "/" covers the paths under it.
   */
  readonly publicPaths?: readonly string[];
  /**
   * Requests answered without an API key on a path that otherwise needs one, decided on the request
   * (the GraphiQL page: a browser's GET for HTML on the GraphQL endpoint, which answers no data).
   */
  readonly publicRequest?: (request: Request, path: string) => boolean;
  /** OpenAPI path items the route table cannot give /docs (the swagger plugin drops paths with a dot) */
  readonly docPaths?: Record<string, unknown>;
  /** called when the active dataset changes (manifest rewritten) */
  reload?(): Promise<void>;
  close?(): Promise<void>;
  /** one-line status for /health */
  health?(): Record<string, unknown>;
}

/** Log levels, least severe first: a logger at a level writes that level's lines and the more severe ones. */
export { LOG_LEVELS, type LogLevel } from "./config.ts";

/** How long lines wait before another try when a pipe's reader is behind (ms). */
export const LOG_FLUSH_MS = 5;
/** How long a batched line waits for others to share its write (ms). */
export const LOG_BATCH_MS = 50;
/** Buffered characters that make the buffer be written at once. */
export const LOG_FLUSH_CHARS = 64 * 1024;
/** Characters the buffer may hold while the reader of a pipe is behind; past it, writing waits for the reader. */
export const LOG_BACKLOG_CHARS = 8 * 1024 * 1024;
/** Linux's atomic pipe write size. */
const PIPE_BUF = 4096;
const NL = 10;

/**
 * Log lines to a file descriptor, written in batches and off the request path:
 * - a batched line waits in a buffer written LOG_BATCH_MS later (the requests answered meanwhile
 *   share the writes: at 13,000 requests a second, ~40 writes of 4 KB back to back every 50 ms;
 *   with 5 ms batches the pipe's reader was woken for almost every write, which cost the server
 *   ~5 µs of system CPU per request on the catalog's stop by key), or at once when
 *   LOG_FLUSH_CHARS wait; a line
 *   written "now" goes out at once after whatever waits before it (lines keep their order);
 * - a pipe (stderr read by a supervisor, a log shipper, a test) is written without blocking: what
 *   the pipe cannot take now waits for the next flush; only past LOG_BACKLOG_CHARS waiting does a
 *   write wait for the reader (as a plain blocking write would), so no line is dropped;
 * - writes are whole lines of at most PIPE_BUF bytes, so the lines of several processes sharing
 *   one pipe (serve --workers N) never interleave;
 * - `flush(true)` writes everything, waiting for the reader (up to 10 s); the process's exit does
 *   that for stderr (a SIGTERM makes bin/interchange.ts exit), so no line is lost at exit.
 * A failed write (the reader went away) drops the lines it held.
 */
export class LineWriter {
  private pending = "";
  /** batches a pipe did not take yet (written before `pending`), from byte `head` of the first */
  private queue: Buffer[] = [];
  private head = 0;
  private queued = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  /** the descriptor written: a non-blocking one onto the same pipe when `fd` is a pipe */
  private readonly out: number;
  constructor(
    fd: number,
    private readonly delayMs = LOG_FLUSH_MS,
    private readonly batchMs = LOG_BATCH_MS,
    private readonly maxChars = LOG_FLUSH_CHARS,
    private readonly backlogChars = LOG_BACKLOG_CHARS,
  ) {
    this.out = nonBlockingPipe(fd) ?? fd;
  }

  /** A line (without its line feed) written within delayMs. */
  write(line: string): void {
    this.pending += `${line}\n`;
    if (this.pending.length >= this.maxChars && this.queue.length === 0) this.flush();
    else this.schedule();
  }

  /** A line written now, after those waiting. */
  writeNow(line: string): void {
    this.pending += `${line}\n`;
    this.flush();
  }

  /** Write what waits; what a pipe cannot take now is left for the next flush, unless `all`. */
  flush(all = false): void {
    if (this.pending !== "") {
      const b = Buffer.from(this.pending);
      this.pending = "";
      this.queue.push(b);
      this.queued += b.length;
    }
    const deadline = all ? Date.now() + 10_000 : 0;
    try {
      while (this.queue.length > 0) {
        const bytes = this.queue[0]!;
        while (this.head < bytes.length) {
          const off = this.head;
          let end = off + PIPE_BUF >= bytes.length ? bytes.length : bytes.lastIndexOf(NL, off + PIPE_BUF - 1) + 1;
          if (end <= off) end = bytes.indexOf(NL, off) + 1 || bytes.length; // one line longer than PIPE_BUF
          try {
            const n = writeSync(this.out, bytes, off, end - off);
            this.head += n;
            this.queued -= n;
          } catch (e) {
            if ((e as { code?: string }).code !== "EAGAIN") throw e;
            // the reader is behind: keep the rest for the next flush, unless it must go now or too much waits
            if ((all && Date.now() < deadline) || this.queued > this.backlogChars) Bun.sleepSync(1);
            else {
              this.schedule(true);
              return;
            }
          }
        }
        this.queue.shift();
        this.head = 0;
      }
    } catch {
      // stderr closed or broken: nothing left to tell
      this.queue = [];
      this.head = 0;
      this.queued = 0;
    }
  }

  /** The next flush: after batchMs (lines written meanwhile share it), or after delayMs when the pipe was full. */
  private schedule(retry = false): void {
    if (this.timer !== null) return;
    this.timer = setTimeout(
      () => {
        this.timer = null;
        this.flush();
      },
      retry ? this.delayMs : this.batchMs,
    );
    this.timer.unref?.();
  }
}

/** A second, non-blocking descriptor onto `fd` when it is a pipe (Linux: /proc/self/fd), else null. */
function nonBlockingPipe(fd: number): number | null {
  try {
    if (!fstatSync(fd).isFIFO()) return null;
    return openSync(`/proc/self/fd/${fd}`, fsConstants.O_WRONLY | fsConstants.O_NONBLOCK);
  } catch {
    return null;
  }
}

/** The process's stderr, batched; all of it written when the process exits. */
export const stderrWriter = new LineWriter(2);
process.on("exit", () => stderrWriter.flush(true));

/** The message of the request log's lines (server/ops/requests.ts), the one info line frequent enough to batch. */
export const REQUEST_MSG = "request";
const REQUEST_LINE = `{"level":"info","msg":"${REQUEST_MSG}"`;

/** `{"level":"info","msg":"request",...fields}` from the fields' own JSON (no copy of the record). */
function requestLine(f: Record<string, unknown> | undefined): string {
  const body = f === undefined ? "{}" : JSON.stringify(f);
  return body.length > 2 ? `${REQUEST_LINE},${body.slice(1)}` : `${REQUEST_LINE}}`;
}

/**
 * A logger writing one JSON line per message, `{"level","msg",...fields}`, through `out`: request
 * log lines batched (LineWriter.write), every other line at once (start-up, reloads, warnings:
 * rare, and read by people and supervisors as they happen).
 */
export function jsonLogger(out: LineWriter): Logger {
  return {
    info: (msg, f) => (msg === REQUEST_MSG ? out.write(requestLine(f)) : out.writeNow(JSON.stringify({ level: "info", msg, ...f }))),
    warn: (msg, f) => out.writeNow(JSON.stringify({ level: "warn", msg, ...f })),
    error: (msg, f) => out.writeNow(JSON.stringify({ level: "error", msg, ...f })),
  };
}

/** The service's log: JSON lines on stderr, request lines batched (stderrWriter). */
export const consoleLogger: Logger = jsonLogger(stderrWriter);
