/**
 * The real server for benchmarks: `interchange serve --no-auth` on a data dir as a child process
 * (its memory is then the service's alone), and its resident memory read from /proc.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "..", "..");

/** A /proc/<pid>/status memory field (VmRSS, VmHWM) in kB; 0 when unreadable. */
export function rssKb(pid: number, field = "VmRSS"): number {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) : 0;
}

/** The CPU time a process has used so far, user and system, in seconds (/proc/<pid>/stat, 100 ticks a second). */
export function cpuSec(pid: number): { user: number; sys: number } {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return { user: Number(f[11]) / 100, sys: Number(f[12]) / 100 };
}

/** Start `interchange serve` of the source tree `root` (default this one) on `dataDir` (any free port) and wait until it listens. */
export async function startServer(dataDir: string, root = ROOT): Promise<{ url: string; pid: number; stop: () => void }> {
  const child = spawn(process.execPath, [join(root, "bin", "interchange.ts"), "serve", "--data", dataDir, "--port", "0", "--host", "127.0.0.1", "--no-auth", "--workers", "1"], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let log = "";
  const url = await new Promise<string>((res, rej) => {
    child.stderr!.on("data", (b: Buffer) => {
      log += b.toString();
      const m = /"msg":"listening","url":"([^"]+)"/.exec(log);
      if (m) res(m[1]!);
    });
    child.on("exit", (code) => rej(new Error(`server exited (${code}):\n${log}`)));
  });
  return { url, pid: child.pid!, stop: () => child.kill("SIGTERM") };
}
