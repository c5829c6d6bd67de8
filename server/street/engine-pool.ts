/**
 * A supervised pool of engine processes (engine-worker.ts), one Valhalla Actor each over the same
 * configuration, so that a native crash of the engine costs only the call that caused it, never
 * the server: each process runs one call at a time; a process that ends while running a call
 * fails that call with EngineCrash (embedded.ts answers it with a Valhalla error body), is logged
 * once, counted (onCrash) and replaced at once.
 *
 * The pool does not queue: its owner (embedded.ts, the lane's Slots) lets at most `size` calls in at
 * once, so a call always finds an idle process or room to start one. Processes start when the
 * dataset is loaded (warm) or on first use, and stay.
 *
 * Memory: the tiles are read through the operating system's page cache (Valhalla's tile_extract
 * is memory-mapped when the dataset has one; loose tile files are read into each process's own
 * tile cache, capped by the configuration's mjolnir.max_cache_size), so what a process adds is
 * its runtime and its own cache (see docs/pending/engine.md for the measured figures).
 *
 * The calls travel as frames over a Unix socket the pool listens on (frames.ts), in a folder of its
 * own (mode 0700, under the system's temporary folder): a process says HELLO with the token it was
 * given before any call, so only the pool's own processes are served. Bun's IPC carries only the
 * set-up; its messages cost about 0.3 ms more per route call (bench:street --only isolation).
 *
 * A swap to another street dataset gets a new pool; the old one is drained: calls in flight finish
 * on their processes, which are then ended.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Socket, UnixSocketListener } from "bun";
import type { Logger } from "../feature.ts";
import { encodeFrame, type Frame, FrameReader, FrameWriter, KIND, METHODS } from "./frames.ts";

/** A call ended because its engine process ended (a native crash of the engine). */
export class EngineCrash extends Error {
  override readonly name = "EngineCrash";
  constructor(
    readonly code: number | null,
    readonly signal: string | null,
  ) {
    super(`the engine process ended (${signal ?? `exit code ${code}`})`);
  }
}

/** A call ran past its deadline: its engine process was ended (and replaced), the call failed. */
export class EngineTimeout extends Error {
  override readonly name = "EngineTimeout";
  constructor(readonly ms: number) {
    super(`the engine did not answer within ${ms} ms`);
  }
}

/** The answer was longer than the pool's limit; it was not passed on. */
export class AnswerTooLarge extends Error {
  override readonly name = "AnswerTooLarge";
  constructor(readonly chars: number) {
    super(`the engine's answer has ${chars} characters`);
  }
}

export interface PoolOptions {
  /** the engine configuration (JSON text) every process opens its Actor with */
  config: string;
  /** processes at most (= the calls the owner lets in at once) */
  size: number;
  /** what the processes serve, for the log ("gateway", "planner", "centroid") */
  name: string;
  /** answers longer than this many characters are refused (AnswerTooLarge) */
  maxAnswerChars: number;
  log: Logger;
  /** a process ended while running a call of `action` */
  onCrash?: (action: string) => void;
  /** most a call may run (ms): past it the process is ended, the call fails with EngineTimeout (default: no deadline) */
  callTimeoutMs?: number;
  /** a call of `action` ran past callTimeoutMs */
  onTimeout?: (action: string) => void;
}

/** The socket folders of the pools alive in this process: removed when it exits (a SIGKILL leaves them). */
const SOCKET_DIRS = new Set<string>();
process.once("exit", () => {
  for (const dir of SOCKET_DIRS) rmSync(dir, { recursive: true, force: true });
});

/** What the pool keeps per connection of one of its processes. */
interface SocketState {
  reader: FrameReader;
  writer: FrameWriter;
  proc: EngineProcess | null;
}

interface Pending {
  action: string;
  resolve: (text: string) => void;
  reject: (e: Error) => void;
}

/** One engine process: its child, its socket once it said HELLO (it is then ready), and the call it runs. */
class EngineProcess {
  readonly child: ReturnType<typeof Bun.spawn>;
  readonly ready: Promise<void>;
  readonly token = randomBytes(16).toString("hex");
  pending: Pending | null = null;
  alive = true;
  private writer: FrameWriter | null = null;
  private nextId = 1;
  private readyResolve!: () => void;
  private readyReject!: (e: Error) => void;

  constructor(opts: PoolOptions, socketPath: string, onExit: (p: EngineProcess, code: number | null, signal: string | null) => void) {
    this.ready = new Promise((resolve, reject) => {
      this.readyResolve = resolve;
      this.readyReject = reject;
    });
    // a failed start is seen through the calls that wait on it
    this.ready.catch(() => {});
    this.child = Bun.spawn([process.execPath, join(import.meta.dir, "engine-worker.ts")], {
      // its stderr would mix a crash report into the server's JSON log: the exit is logged instead
      stdio: ["ignore", "ignore", "ignore"],
      // the set-up message only (and: the process ends when this channel closes)
      ipc: () => {},
      onExit: (_proc, code, signal) => {
        this.alive = false;
        this.readyReject(new EngineCrash(code, signal === null ? null : String(signal)));
        onExit(this, code, signal === null ? null : String(signal));
      },
    });
    this.child.send({ config: opts.config, maxAnswerChars: opts.maxAnswerChars, socket: socketPath, token: this.token });
  }

  /** Its socket, once it said HELLO: it is ready. */
  attach(writer: FrameWriter): void {
    this.writer = writer;
    this.readyResolve();
  }

  /** A frame from the process: the answer to its call. */
  answered(f: Frame): void {
    const p = this.pending;
    this.pending = null;
    if (!p) return;
    if (f.kind === KIND.FAILED) p.reject(new Error(f.payload));
    else if (f.kind === KIND.TOO_LARGE) p.reject(new AnswerTooLarge(Number(f.payload)));
    else p.resolve(f.payload);
  }

  async call(method: string, query: string, action: string): Promise<string> {
    await this.ready;
    const kind = METHODS.indexOf(method as (typeof METHODS)[number]);
    if (kind < 0) throw new Error(`Unknown: the engine has no method ${method}`);
    return new Promise((resolve, reject) => {
      this.pending = { action, resolve, reject };
      this.writer!.write(encodeFrame(this.nextId++, kind, query));
    });
  }

  kill(): void {
    if (this.alive) this.child.kill();
  }

  /** Ends the process now (SIGKILL: a hung native call ignores nothing else) and fails its call; it is no longer used. */
  abandon(e: Error): void {
    const p = this.pending;
    this.pending = null;
    this.alive = false;
    this.child.kill("SIGKILL");
    p?.reject(e);
  }
}

export class EnginePool {
  private readonly procs = new Set<EngineProcess>();
  private readonly idle: EngineProcess[] = [];
  private draining = false;
  /** processes started (the first ones and every replacement) */
  started = 0;
  /** the Unix socket the processes connect to (in a folder of this process's own, mode 0700), made on the first start */
  private listener: { dir: string; path: string; server: UnixSocketListener<SocketState> } | null = null;
  /** processes started and not yet connected, by their token */
  private readonly connecting = new Map<string, EngineProcess>();

  constructor(private readonly opts: PoolOptions) {}

  /** The listener, made on first use: a connection says HELLO with its process's token before anything else. */
  private socketPath(): string {
    if (this.listener) return this.listener.path;
    const dir = mkdtempSync(join(tmpdir(), "interchange-engine-"));
    const path = join(dir, "s");
    const server = Bun.listen<SocketState>({
      unix: path,
      socket: {
        open: (socket) => {
          const writer = new FrameWriter(socket as Socket<unknown>);
          socket.data = {
            writer,
            proc: null,
            reader: new FrameReader((f) => {
              const state = socket.data;
              if (state.proc) return state.proc.answered(f);
              const proc = f.kind === KIND.HELLO ? this.connecting.get(f.payload) : undefined;
              if (!proc) return void socket.end(); // not one of this pool's processes
              this.connecting.delete(f.payload);
              state.proc = proc;
              proc.attach(writer);
            }),
          };
        },
        data: (socket, chunk) => socket.data.reader.push(chunk),
        drain: (socket) => socket.data.writer.drained(),
      },
    });
    this.listener = { dir, path, server };
    SOCKET_DIRS.add(dir);
    return path;
  }

  /** The listener goes once the pool is drained and its last process has ended. */
  private closeIfDone(): void {
    if (!this.draining || this.procs.size > 0 || !this.listener) return;
    this.listener.server.stop(true);
    rmSync(this.listener.dir, { recursive: true, force: true });
    SOCKET_DIRS.delete(this.listener.dir);
    this.listener = null;
  }

  /** Runs one call of the Actor's `method` on an idle process (`action` names it in logs and metrics). */
  async call(method: string, query: string, action: string, opts: { deadline?: boolean } = {}): Promise<string> {
    if (this.draining) throw new EngineCrash(null, null);
    const proc = this.idle.pop() ?? this.spawn();
    const ms = opts.deadline === false ? undefined : this.opts.callTimeoutMs;
    let timer: ReturnType<typeof setTimeout> | null = null;
    try {
      // the deadline bounds the call, not the start of a new process
      await proc.ready;
      if (ms !== undefined)
        timer = setTimeout(() => {
          if (!proc.alive) return;
          this.opts.log.warn("an engine call ran past its deadline: its engine process was ended and replaced", { pool: this.opts.name, action, ms });
          this.opts.onTimeout?.(action);
          proc.abandon(new EngineTimeout(ms));
          // replaced at once, so the next call does not pay for the start
          if (!this.draining) this.idle.push(this.spawn());
        }, ms);
      return await proc.call(method, query, action);
    } finally {
      if (timer) clearTimeout(timer);
      if (proc.alive) {
        if (this.draining) proc.kill();
        else this.idle.push(proc);
      }
    }
  }

  /** Starts processes until the pool has `size` (or, once warm() was called for a lazy pool, none more) and waits until each is ready. */
  async warm(): Promise<void> {
    while (this.procs.size < this.opts.size && !this.draining) this.idle.push(this.spawn());
    await Promise.all([...this.procs].map((p) => p.ready));
  }

  /** Processes running now. */
  get processes(): number {
    return this.procs.size;
  }

  /** The pids of the processes (tests check a crashed one is replaced). */
  pids(): number[] {
    return [...this.procs].map((p) => p.child.pid);
  }

  /** No new calls; idle processes end now, busy ones once their call is answered. */
  drain(): void {
    this.draining = true;
    for (const p of this.idle.splice(0)) p.kill();
    this.closeIfDone();
  }

  private spawn(): EngineProcess {
    const proc = new EngineProcess(this.opts, this.socketPath(), (p, code, signal) => this.exited(p, code, signal));
    this.connecting.set(proc.token, proc);
    this.procs.add(proc);
    this.started++;
    return proc;
  }

  private exited(p: EngineProcess, code: number | null, signal: string | null): void {
    this.procs.delete(p);
    this.connecting.delete(p.token);
    this.closeIfDone();
    const i = this.idle.indexOf(p);
    if (i >= 0) this.idle.splice(i, 1);
    const pending = p.pending;
    p.pending = null;
    if (!pending) return; // ended while idle: drained, or the server is closing
    this.opts.log.warn("an engine process ended while answering (a crash of the engine); that request is answered with an error, the process replaced", {
      pool: this.opts.name,
      action: pending.action,
      code,
      signal,
    });
    this.opts.onCrash?.(pending.action);
    pending.reject(new EngineCrash(code, signal));
    // refilled at once, so the next call does not pay for the start
    if (!this.draining) this.idle.push(this.spawn());
  }
}
