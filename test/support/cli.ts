/**
 * The command line as a user runs it in the tests: `node bin/interchange.cjs ...` (the npm bin
 * shim, which starts Bun), either to completion (runCli) or as a server whose URL is read from
 * its "listening" log line (startCli).
 */
import { join, resolve } from "node:path";

export const ROOT = resolve(import.meta.dir, "..", "..");
export const SHIM = join(ROOT, "bin", "interchange.cjs");

/** Run to completion: stdout, stderr and the exit code. */
export async function runCli(args: string[], env: Record<string, string> = {}) {
  const p = Bun.spawn(["node", SHIM, ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { out, err, code };
}

/**
 * Start a long-running command (serve, demo) and read its stderr until it logs the URL it listens
 * on; `url` is null when it exited first. Its stderr is read on in the background (a server that
 * logs every request would otherwise block on a full pipe): `log()` is all it wrote so far. The
 * caller kills `proc`.
 */
export async function startCli(args: string[], env: Record<string, string> = {}) {
  const proc = Bun.spawn(["node", SHIM, ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdout: "ignore", stderr: "pipe" });
  const reader = proc.stderr.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let url: string | null = null;
  let done = false;
  while (!url && !done) {
    const r = await reader.read();
    done = r.done;
    if (r.value) text += decoder.decode(r.value);
    url = /"url":"(http:\/\/[^"]+)"/.exec(text)?.[1] ?? null;
  }
  if (!done) {
    void (async () => {
      for (let r = await reader.read(); !r.done; r = await reader.read()) text += decoder.decode(r.value);
    })();
  }
  return { proc, url, log: () => text };
}
