/**
 * Benchmark helpers: run a command as a child process and measure its wall time, CPU time and
 * peak resident memory (RSS) from outside, plus small statistics/formatting helpers.
 *
 * Peak RSS comes from the kernel's rusage of the exited child (wait4 → ru_maxrss, which on Linux
 * also covers the child's own waited-for descendants as a max, not a sum); while the child runs,
 * /proc/<pid>/status VmHWM is polled as well, and the larger of the two is kept, so the figure
 * holds even where rusage is unavailable.
 */
import { readFileSync } from "node:fs";
import { cpus } from "node:os";

export interface Measured {
  /** argv that was run */
  cmd: string[];
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  wallMs: number;
  /** user + system CPU time of the child (0 when unknown) */
  cpuMs: number;
  /** its user and system (kernel) parts */
  userMs: number;
  sysMs: number;
  /** peak resident set size in bytes (0 when unknown) */
  peakRssBytes: number;
  stdout: string;
  stderr: string;
  /**
   * CPU time used by OTHER processes on the machine while the child ran, as a fraction of all
   * cores (0 = machine otherwise idle, 1 = every core busy elsewhere); NaN when /proc/stat is
   * unreadable. Non-zero means the wall time is inflated by contention.
   */
  othersLoad: number;
}

export interface MeasureOptions {
  cwd?: string;
  env?: Record<string, string | undefined>;
  /** SIGKILL the child after this many ms (its result then has timedOut: true) */
  timeoutMs?: number;
  /** /proc polling period, default 50 ms */
  pollMs?: number;
}

function vmHwmBytes(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0; // not Linux, or the process is gone
  }
}

/** Busy and total jiffies summed over all CPUs (from /proc/stat), or undefined off Linux. */
function cpuJiffies(): { busy: number; total: number } | undefined {
  try {
    const f = readFileSync("/proc/stat", "utf8").split("\n", 1)[0]!.trim().split(/\s+/).slice(1).map(Number);
    const total = f.reduce((a, b) => a + b, 0);
    const idle = (f[3] ?? 0) + (f[4] ?? 0); // idle + iowait
    return { busy: total - idle, total };
  } catch {
    return undefined;
  }
}

const NCPU = cpus().length;

/** Fraction of all cores busy over the next `ms` milliseconds (NaN off Linux). */
export async function machineBusy(ms = 1000): Promise<number> {
  const a = cpuJiffies();
  await Bun.sleep(ms);
  const b = cpuJiffies();
  if (!a || !b || b.total === a.total) return NaN;
  return (b.busy - a.busy) / (b.total - a.total);
}

/**
 * Waits (at most maxWaitMs) until the machine is quiet: under `threshold` of all cores busy over a
 * 1 s sample. Returns the last sample. For benchmarks on a shared machine.
 */
export async function waitForQuiet(maxWaitMs: number, threshold = 0.15): Promise<number> {
  const end = performance.now() + maxWaitMs;
  let busy = await machineBusy(1000);
  while (!(busy < threshold) && performance.now() < end) busy = await machineBusy(1000);
  return busy;
}

/** Runs `cmd` (argv, no shell) to completion and measures it. Never throws for a failing child. */
export async function measure(cmd: string[], opts: MeasureOptions = {}): Promise<Measured> {
  const j0 = cpuJiffies();
  const t0 = performance.now();
  const proc = Bun.spawn(cmd, {
    cwd: opts.cwd,
    env: (opts.env ?? process.env) as Record<string, string>,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  let polled = 0;
  const poll = setInterval(() => {
    polled = Math.max(polled, vmHwmBytes(proc.pid));
  }, opts.pollMs ?? 50);
  let timedOut = false;
  const timer = opts.timeoutMs
    ? setTimeout(() => {
        timedOut = true;
        proc.kill("SIGKILL");
      }, opts.timeoutMs)
    : undefined;
  const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  await proc.exited;
  const wallMs = performance.now() - t0;
  clearInterval(poll);
  if (timer) clearTimeout(timer);
  const j1 = cpuJiffies();
  const ru = proc.resourceUsage();
  const cpuMs = ru ? Number(ru.cpuTime.total) / 1000 : 0; // cpuTime is in µs
  const userMs = ru ? Number(ru.cpuTime.user) / 1000 : 0;
  const sysMs = ru ? Number(ru.cpuTime.system) / 1000 : 0;
  let othersLoad = NaN;
  if (j0 && j1 && j1.total > j0.total) {
    const busyFrac = (j1.busy - j0.busy) / (j1.total - j0.total);
    othersLoad = Math.max(0, busyFrac - cpuMs / (wallMs * NCPU));
  }
  return {
    cmd,
    exitCode: proc.exitCode,
    signal: proc.signalCode == null ? null : String(proc.signalCode),
    timedOut,
    wallMs,
    cpuMs,
    userMs,
    sysMs,
    peakRssBytes: Math.max(ru?.maxRSS ?? 0, polled),
    stdout,
    stderr,
    othersLoad,
  };
}

export function median(xs: number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** 1234567 → "1,234,567" */
export function fmtInt(n: number): string {
  return Number.isFinite(n) ? Math.round(n).toLocaleString("en-US") : "n/a";
}

/** bytes → "1.23 GB" / "456 MB" (decimal units) */
export function fmtBytes(b: number): string {
  if (!Number.isFinite(b) || b <= 0) return "n/a";
  if (b >= 1e9) return `${(b / 1e9).toFixed(2)} GB`;
  return b >= 1e8 ? `${(b / 1e6).toFixed(0)} MB` : `${(b / 1e6).toFixed(1)} MB`;
}

/** ms → "12.34 s" */
export function fmtSec(ms: number): string {
  return Number.isFinite(ms) ? `${(ms / 1000).toFixed(2)} s` : "n/a";
}

/** Renders a Markdown table (also readable as plain text on a terminal). */
export function mdTable(header: string[], rows: string[][]): string {
  const w = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(w[i]!)).join(" | ")} |`;
  return [line(header), `| ${w.map((n) => "-".repeat(n)).join(" | ")} |`, ...rows.map(line)].join("\n");
}
