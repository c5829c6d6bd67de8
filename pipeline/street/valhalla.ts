/**
 * The Valhalla engine from npm (`@valhallajs/valhallajs`): where its native tools are, the
 * configuration it reads, and running a tool with its log lines as progress. The pipeline builds
 * street datasets with these tools; the server's embedded engine loads the configuration written
 * with them through the dataset contract (pipeline/schema/street.ts).
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { arch, platform } from "node:os";
import { dirname, join } from "node:path";
import type { ValhallaConfig } from "../schema/street.ts";

const require = createRequire(import.meta.url);

/** Folder of the npm package. */
export function valhallaPackageDir(): string {
  return dirname(require.resolve("@valhallajs/valhallajs/package.json"));
}

/** The engine's version (the package's), part of a street dataset's key: tiles are engine-specific. */
export function valhallaVersion(): string {
  return (JSON.parse(readFileSync(join(valhallaPackageDir(), "package.json"), "utf8")) as { version: string }).version;
}

/** Folder of the native tools (valhalla_build_tiles, ...) for this platform. */
export function valhallaBinDir(): string {
  const dir = join(valhallaPackageDir(), platform(), arch());
  if (!existsSync(join(dir, "valhalla_build_tiles"))) {
    throw new Error(`the Valhalla engine has no build for ${platform()}/${arch()} (the npm package ships linux x64/arm64 and macOS arm64)`);
  }
  return dir;
}

/**
 * Valhalla's default configuration, as its own `valhalla_build_config` script writes it (a Python 3
 * script in the package; run at import time only, never by the server).
 */
export async function defaultValhallaConfig(): Promise<ValhallaConfig> {
  const script = join(valhallaPackageDir(), "valhalla_build_config");
  const { code, stdout, stderr } = await run("python3", [script], {});
  if (code !== 0) throw new Error(`valhalla_build_config failed (exit ${code}): ${stderr.trim() || stdout.trim()} (it needs python3)`);
  return JSON.parse(stdout) as ValhallaConfig;
}

export interface ToolRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs a Valhalla tool (`valhalla_build_tiles`, ...) in `cwd`, each output line to onLine. */
export function runValhallaTool(tool: string, args: string[], opts: { cwd: string; onLine?: (line: string) => void }): Promise<ToolRun> {
  const bin = join(valhallaBinDir(), tool);
  // the tool dies with us: a killed import leaves no builder writing into its staging folder
  if (existsSync(SETPRIV)) return run(SETPRIV, ["--pdeathsig", "KILL", bin, ...args], opts);
  return run(bin, args, opts);
}

/** util-linux's setpriv (Debian), to give a child PR_SET_PDEATHSIG. */
const SETPRIV = "/usr/bin/setpriv";

function run(cmd: string, args: string[], opts: { cwd?: string; onLine?: (line: string) => void }): Promise<ToolRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    // the last 64 KB of each stream is kept for error messages (a planet build logs for hours)
    const keep = (all: string, s: string) => (all.length + s.length > 65536 ? (all + s).slice(-65536) : all + s);
    const lines = (chunk: Buffer, into: "stdout" | "stderr") => {
      const s = chunk.toString("utf8");
      if (into === "stdout") stdout = keep(stdout, s);
      else stderr = keep(stderr, s);
      if (opts.onLine) for (const l of s.split("\n")) if (l.trim()) opts.onLine(l.trim());
    };
    child.stdout.on("data", (c: Buffer) => lines(c, "stdout"));
    child.stderr.on("data", (c: Buffer) => lines(c, "stderr"));
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}
