/**
 * Real services for the tests that need them (Debian packages installed by
 * scripts/install-services.sh): each started on a free port of its own, its PID kept, stopped after.
 */
import { createServer } from "node:net";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/**
 * A base port P with P .. P+n-1 all free now, for servers that listen on consecutive ports
 * (--worker-port, --metrics-port with --workers). Chosen below the kernel's ephemeral range
 * (32768 and up), where outgoing connections would otherwise take P+1 between this check and the
 * server's bind; tried on random bases until a run is free.
 */
export async function freePortRun(n: number): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const base = 20000 + Math.floor(Math.random() * (32000 - 20000 - n));
    if ((await Promise.all(Array.from({ length: n }, (_, i) => canListen(base + i)))).every(Boolean)) return base;
  }
  throw new Error(`no run of ${n} free ports found`);
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once("error", () => resolve(false));
    s.listen(port, "127.0.0.1", () => s.close(() => resolve(true)));
  });
}

export function requireBinary(path: string, pkg: string): string {
  if (!existsSync(path)) throw new Error(`${path} is missing: run scripts/install-services.sh (Debian package ${pkg})`);
  return path;
}

export interface RedisServer {
  readonly url: string;
  readonly port: number;
  pid(): number;
  /** SIGKILL, then start again on the same port (an empty script cache: NOSCRIPT) */
  restart(): Promise<void>;
  kill(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

async function waitForPort(port: number, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = Bun.connect({ hostname: "127.0.0.1", port, socket: { open(sock) { sock.end(); resolve(true); }, error() { resolve(false); }, data() {} } }).catch(() => resolve(false));
      void s;
    });
    if (ok) return;
    await Bun.sleep(20);
  }
  throw new Error(`nothing listens on port ${port} after ${ms} ms`);
}

export async function startRedis(): Promise<RedisServer> {
  const bin = requireBinary("/usr/bin/redis-server", "redis-server");
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "interchange-redis-"));
  let proc: ReturnType<typeof Bun.spawn> | null = null;
  const start = async () => {
    proc = Bun.spawn([bin, "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir], { stdout: "ignore", stderr: "ignore" });
    await waitForPort(port);
  };
  const kill = async () => {
    if (!proc) return;
    proc.kill(9);
    await proc.exited;
    proc = null;
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    pid: () => proc?.pid ?? 0,
    start,
    kill,
    async restart() {
      await kill();
      await start();
    },
    async stop() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The deployment's nginx configuration (deploy/nginx.conf). */
export const NGINX_CONF = resolve(import.meta.dir, "..", "..", "deploy", "nginx.conf");

/**
 * deploy/nginx.conf as written, but for a private run: this run's listen and upstream ports, and
 * its pid, logs and temp files in `dir`; `extra` swaps more (e.g. a per-address rate raised for a
 * single load generator). Each swapped text must be in the file, so a change to the deployment
 * file that these runs depend on fails loudly instead of testing something else.
 */
export function edgeConfig(dir: string, listen: number, upstream: number | number[], extra: [string, string][] = []): string {
  const servers = (Array.isArray(upstream) ? upstream : [upstream]).map((p) => `server 127.0.0.1:${p};`).join("\n    ");
  const swaps: [string, string][] = [
    ["listen 80;", `listen 127.0.0.1:${listen};`],
    ["server 127.0.0.1:8081;\n    server 127.0.0.1:8082;", servers],
    ["/run/interchange-nginx.pid", join(dir, "nginx.pid")],
    ["/var/log/nginx/", `${dir}/`],
    ["/var/lib/nginx/", `${dir}/tmp-`],
    ...extra,
  ];
  let out = readFileSync(NGINX_CONF, "utf8");
  for (const [from, to] of swaps) {
    if (!out.includes(from)) throw new Error(`deploy/nginx.conf no longer contains "${from}"`);
    out = out.split(from).join(to);
  }
  return out;
}
