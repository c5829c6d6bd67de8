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
  const model = /^Model name:\s*(.+)$/m.exec(lscpu)?.[1]?.trim() ?? cpus()[0]?.model ?? "unknown";
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
