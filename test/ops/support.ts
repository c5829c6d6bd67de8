/**
 * The ops tests' dataset and server: BART (2019) with the downtown San Francisco street extract,
 * imported by the real pipeline, copied per test file (the realtime status files a test writes
 * stay its own); the real server over it with API keys, or `interchange serve` as a child process.
 */
import { cpSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { streetDataset, tempDir } from "../support/dataset.ts";

export const BIN = resolve(import.meta.dir, "..", "..", "bin", "interchange.ts");

/** Two points downtown (Civic Center, Embarcadero), inside the street extract and BART's area. */
export const CIVIC_CENTER = { lat: 37.7793, lon: -122.4193 };
export const EMBARCADERO = { lat: 37.7895, lon: -122.3972 };

/** A fresh copy of the shared BART + downtown streets dataset. */
export async function opsDataset(): Promise<string> {
  const src = await streetDataset("ops-sf", ["sf-downtown"], [], ["bart"]);
  const dir = tempDir("interchange-ops-");
  cpSync(src, dir, { recursive: true });
  return dir;
}

export interface ChildServer {
  readonly url: string;
  readonly metricsUrl: string | null;
  readonly pid: number;
  /** every stderr line so far (the JSON log) */
  readonly lines: string[];
  /** the process exit code, once it ended */
  exited(): number | null;
  stop(): Promise<void>;
}

/**
 * `interchange serve` as its own process (port 0); resolves once its "listening" log line names
 * the URLs. stderr is read continuously into `lines` (the per-request log is large).
 */
export async function serveChild(args: string[], env: Record<string, string> = {}): Promise<ChildServer> {
  const proc = Bun.spawn([process.execPath, BIN, "serve", "--port", "0", "--host", "127.0.0.1", ...args], {
    stdout: "ignore",
    stderr: "pipe",
    env: { ...process.env, INTERCHANGE_WORKERS: "1", ...env }, // one process unless the test asks for --workers
  });
  const lines: string[] = [];
  let code: number | null = null;
  void proc.exited.then((c) => {
    code = c;
  });
  let listening: (v: { url: string; metrics?: string }) => void = () => {};
  const ready = new Promise<{ url: string; metrics?: string }>((r) => (listening = r));
  void (async () => {
    const decoder = new TextDecoder();
    let buf = "";
    for await (const chunk of proc.stderr) {
      buf += decoder.decode(chunk, { stream: true });
      let nl: number;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        lines.push(line);
        if (line.includes('"msg":"listening"')) listening(JSON.parse(line));
      }
    }
  })();
  const first = await Promise.race([ready, proc.exited.then((c) => new Error(`interchange serve exited with ${c}: ${lines.join("\n")}`)), Bun.sleep(60_000).then(() => new Error("interchange serve did not start in 60 s"))]);
  if (first instanceof Error) throw first;
  return {
    url: first.url,
    metricsUrl: first.metrics ? first.metrics.replace(/\/metrics$/, "") : null,
    pid: proc.pid,
    lines,
    exited: () => code,
    async stop() {
      if (code === null) proc.kill("SIGTERM");
      await proc.exited;
    },
  };
}

/** Resident set size of a process, from /proc (bytes). */
export function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const m = /VmRSS:\s+(\d+) kB/.exec(status);
  if (!m) throw new Error(`no VmRSS for ${pid}`);
  return Number(m[1]) * 1024;
}

/** Poll `ok` every 50 ms until it holds (returns the milliseconds it took) or `ms` have passed (throws, naming `what`). */
export async function until(what: string, ok: () => Promise<boolean>, ms = 20_000): Promise<number> {
  const t0 = Date.now();
  while (Date.now() - t0 < ms) {
    if (await ok()) return Date.now() - t0;
    await Bun.sleep(50);
  }
  throw new Error(`${what}: not within ${ms} ms`);
}

/** Whether a process with this pid is still there (signal 0 tests without sending anything). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
