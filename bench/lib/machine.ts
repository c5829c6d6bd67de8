/** Describes the machine a benchmark ran on (for the header of a docs/bench-*.md file). */
import { spawnSync } from "node:child_process";
import { cpus, totalmem, release, platform } from "node:os";

export interface MachineInfo {
  cpuModel: string;
  cores: number;
  ramGiB: number;
  os: string;
  bun: string;
  node: string;
  gitCommit: string;
}

function run(cmd: string, args: string[], cwd?: string): string {
  try {
    const r = spawnSync(cmd, args, { encoding: "utf8", cwd });
    return r.status === 0 ? r.stdout.trim() : "";
  } catch {
    return "";
  }
}

export function machineInfo(repoRoot?: string): MachineInfo {
  const lscpu = run("lscpu", []);
  const name = /^Model name:\s*(.+)$/m.exec(lscpu)?.[1]?.trim() ?? cpus()[0]?.model ?? "unknown";
  // hosts that print only "AMD EPYC" differ by generation: the family and model numbers tell them apart
  const family = /^CPU family:\s*(\d+)$/m.exec(lscpu)?.[1], modelNo = /^Model:\s*(\d+)$/m.exec(lscpu)?.[1];
  const model = family && modelNo ? `${name} (family ${family}, model ${modelNo})` : name;
  const commit = run("git", ["rev-parse", "--short", "HEAD"], repoRoot);
  const dirty = commit && run("git", ["status", "--porcelain", "--untracked-files=no"], repoRoot) ? "+dirty" : "";
  return {
    cpuModel: model,
    cores: cpus().length,
    ramGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    os: `${platform()} ${release()}`,
    bun: typeof Bun !== "undefined" ? Bun.version : "n/a",
    node: run("node", ["--version"]) || "not found",
    gitCommit: commit ? commit + dirty : "unknown",
  };
}

/**
 * Host speed probe: milliseconds per pass of a fixed CPU- and cache-bound loop (a 4 MB Int32Array,
 * multiply and xor): 9 rounds of 30 passes, the first two discarded (JIT warm-up), the median of
 * the rest. On this project's shared 2-core hosts it reads about 0.71 ms when the host is quiet and
 * up to 1.5 ms when neighbours load it: quoted next to timings, it tells a slow moment of the host
 * from a slower program.
 */
export function hostProbeMs(): number {
  const a = new Int32Array(1 << 20);
  let s = 0;
  const rounds: number[] = [];
  for (let r = 0; r < 9; r++) {
    const t0 = performance.now();
    for (let pass = 0; pass < 30; pass++) {
      for (let i = 0; i < a.length; i++) {
        a[i] = (a[i]! * 31 + i) | 0;
        s ^= a[i]!;
      }
    }
    if (r >= 2) rounds.push((performance.now() - t0) / 30);
  }
  if (s === 0x7fffffff) console.error(""); // keeps the loop's result alive
  return rounds.sort((x, y) => x - y)[3]!;
}
