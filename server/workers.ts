/**
 * `interchange serve --workers N` (N > 1): a supervisor process that runs N server processes on one
 * port. Each worker is `interchange serve` again (the command line is handed in by bin/interchange.ts,
 * this module knows nothing of it) with the same flags, marked by INTERCHANGE_WORKER_INDEX; each
 * binds the port with Bun.serve's `reusePort` (Linux SO_REUSEPORT: the kernel spreads the
 * connections over the workers). The supervisor serves nothing and loads no dataset:
 * - worker 0 starts first; the port it bound (port 0: any free one) is the port every other worker,
 *   and every restarted one, is given;
 * - a worker tells the supervisor it listens over the IPC channel ({type: "ready"}); a worker whose
 *   channel closes (the supervisor died) stops itself, so no worker outlives its supervisor;
 * - a worker that exits unexpectedly is started again after a back-off (250 ms, doubling up to 30 s
 *   while it keeps dying within 30 s of its start), so a crash loop does not spin;
 * - stop(): SIGTERM to every worker, SIGKILL to those still running after the grace period.
 * A worker that exits before it listens during the first start makes start fail (the same error N
 * times over is not worth retrying: a bad dataset, a port in use).
 *
 * The kernel spreads connections, not requests: a proxy that keeps a few connections open to the
 * shared port (nginx's upstream keep-alive, which reuses the last idle connection first) can send
 * every request to one worker. With --worker-port P each worker also listens on P + index, its own
 * port (listenOwnPort); deploy/nginx.conf lists those ports in its upstream, and nginx then
 * balances each request over the workers (least_conn).
 */
import type { Server } from "bun";
import type { ServerConfig } from "./config.ts";
import type { Logger } from "./feature.ts";
import { serveOptions } from "./gate.ts";

/** The IPC message a worker sends once it listens. */
export interface WorkerReady {
  type: "ready";
  index: number;
  pid: number;
  url: string;
  port: number;
  metricsUrl: string | null;
}

export interface SupervisorOptions {
  count: number;
  /** the worker's command line; `port` is the port to bind (null for worker 0's first start: the configured one) */
  command(index: number, port: number | null): string[];
  /** the workers' environment (INTERCHANGE_WORKER_INDEX and INTERCHANGE_WORKER_COUNT are added) */
  env: Record<string, string | undefined>;
  log: Logger;
  /** back-off before restarting a worker after its n-th consecutive early exit (n >= 1) */
  restartDelayMs?(failures: number): number;
  /** how long stop() waits for a worker after SIGTERM before SIGKILL */
  stopGraceMs?: number;
}

export interface Supervisor {
  readonly url: string;
  readonly port: number;
  /** the pids of the workers running now, by index (0 while one is being restarted) */
  pids(): number[];
  /** the metrics listeners' URLs, by index (null without --metrics-port) */
  metricsUrls(): (string | null)[];
  stop(): Promise<void>;
}

/** A worker that lived this long before dying is restarted without back-off. */
const HEALTHY_AFTER_MS = 30_000;
const defaultDelay = (failures: number) => Math.min(30_000, 250 * 2 ** (failures - 1));

interface Slot {
  index: number;
  proc: ReturnType<typeof Bun.spawn> | null;
  ready: WorkerReady | null;
  startedAt: number;
  failures: number;
  timer: ReturnType<typeof setTimeout> | null;
}

/**
 * The supervisor's workers: one slot per worker index, the port they share once worker 0 listens,
 * and whether the supervisor is still starting them (a worker that dies then is not restarted:
 * the start fails) or stopping them (none is restarted).
 */
class WorkerSlots {
  readonly slots: Slot[];
  port: number | null = null;
  stopping = false;
  starting = true;
  private readonly delay: (failures: number) => number;

  constructor(private readonly opts: SupervisorOptions) {
    this.slots = Array.from({ length: opts.count }, (_, index) => ({ index, proc: null, ready: null, startedAt: 0, failures: 0, timer: null }));
    this.delay = opts.restartDelayMs ?? defaultDelay;
  }

  /** Start the worker of a slot; resolves when it listens, rejects if it exits first. */
  spawn(slot: Slot): Promise<WorkerReady> {
    return new Promise((resolve, reject) => {
      slot.ready = null;
      slot.startedAt = Date.now();
      const proc = Bun.spawn(this.opts.command(slot.index, this.port), {
        env: { ...this.opts.env, INTERCHANGE_WORKER_INDEX: String(slot.index), INTERCHANGE_WORKER_COUNT: String(this.opts.count) },
        stdin: "ignore",
        stdout: "inherit",
        stderr: "inherit",
        ipc(message) {
          const m = message as WorkerReady;
          if (m?.type !== "ready" || slot.proc !== proc) return;
          slot.ready = m;
          resolve(m);
        },
        onExit: (_p, exitCode, signalCode) => {
          if (slot.proc !== proc) return;
          slot.proc = null;
          const wasReady = slot.ready !== null;
          slot.ready = null;
          if (!wasReady) reject(new Error(`worker ${slot.index} exited with ${signalCode ?? exitCode} before it listened`));
          if (this.stopping || (this.starting && !wasReady)) return;
          this.restartLater(slot, proc.pid, exitCode, signalCode);
        },
      });
      slot.proc = proc;
    });
  }

  /** A worker died: start it again after the back-off of its run of failures (none after a healthy run). */
  private restartLater(slot: Slot, pid: number, exitCode: number | null, signalCode: number | NodeJS.Signals | null): void {
    const { log } = this.opts;
    slot.failures = Date.now() - slot.startedAt >= HEALTHY_AFTER_MS ? 1 : slot.failures + 1;
    const wait = this.delay(slot.failures);
    log.error("worker exited; restarting it", { worker: slot.index, pid, code: exitCode, signal: signalCode, restart_in_ms: wait });
    slot.timer = setTimeout(() => {
      slot.timer = null;
      if (this.stopping) return;
      this.spawn(slot).then(
        (r) => log.info("worker restarted", { worker: slot.index, pid: r.pid }),
        () => {}, // its exit was logged and has scheduled the next attempt
      );
    }, wait);
  }

  /** SIGTERM to every worker, SIGKILL to those still running after the grace period; resolves when all have exited. */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const s of this.slots) if (s.timer) clearTimeout(s.timer);
    const running = this.slots.flatMap((s) => (s.proc ? [s.proc] : []));
    for (const p of running) p.kill("SIGTERM");
    const killer = setTimeout(() => {
      for (const p of running) if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL");
    }, this.opts.stopGraceMs ?? 10_000);
    await Promise.all(running.map((p) => p.exited));
    clearTimeout(killer);
  }
}

/** Start the workers (worker 0 first: the others bind the port it got) and keep them running until stop(). */
export async function superviseWorkers(opts: SupervisorOptions): Promise<Supervisor> {
  const workers = new WorkerSlots(opts);
  const { slots } = workers;
  let first: WorkerReady;
  try {
    first = await workers.spawn(slots[0]!);
    workers.port = first.port;
    await Promise.all(slots.slice(1).map((s) => workers.spawn(s)));
  } catch (e) {
    await workers.stop();
    throw e;
  }
  workers.starting = false;
  return {
    url: first.url,
    port: workers.port!,
    pids: () => slots.map((s) => s.proc?.pid ?? 0),
    metricsUrls: () => slots.map((s) => s.ready?.metricsUrl ?? null),
    stop: () => workers.stop(),
  };
}

/** The worker's log: every line names the worker (index and pid). */
export function workerLogger(base: Logger, index: number): Logger {
  const tag = { worker: index, pid: process.pid };
  return {
    info: (msg, f) => base.info(msg, { ...f, ...tag }),
    warn: (msg, f) => base.warn(msg, { ...f, ...tag }),
    error: (msg, f) => base.error(msg, { ...f, ...tag }),
  };
}

/**
 * The worker's own listener (--worker-port P: worker `index` on P + index, a single process on P),
 * answering like the shared port; null without --worker-port.
 */
export function listenOwnPort(config: ServerConfig, index: number, fetch: (request: Request, server: Server<undefined>) => Response | Promise<Response>, log: Logger): Server<undefined> | null {
  if (config.workerPort === null) return null;
  return Bun.serve({ hostname: config.host, port: config.workerPort + index, idleTimeout: 30, fetch, ...serveOptions(log) });
}
