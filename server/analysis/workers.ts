/**
 * `interchange analyze --workers W`: this run's origins shared by W processes (one core each), each
 * the same command on a sub-shard: shard K/N with W workers runs shard K + jN of NW in worker j
 * (j = 0 .. W - 1), whose origins (position i with i mod NW = K - 1 + jN) together are exactly
 * shard K/N's (i mod N = K - 1). Each writes its own partition folder and report; the folder still
 * reads as one table. The workers report their counts on stderr ("analyze-progress DONE TOTAL"),
 * summed here into one progress line; anything else they write is passed on.
 */
import { resolve } from "node:path";
import type { AnalyzeConfig } from "./config.ts";
import { progress } from "./run.ts";

/** The environment variable that marks a worker process (it then reports counts, not a progress line). */
export const WORKER_ENV = "INTERCHANGE_ANALYZE_WORKER";

const BIN = resolve(import.meta.dir, "..", "..", "bin", "interchange.ts");

export async function runWorkers(c: AnalyzeConfig, argv: string[], io: { stderr: (s: string) => void; stdout: (s: string) => void; tty: boolean }): Promise<number> {
  const w = c.workers, n = c.shard.n * w;
  const done = new Array<number>(w).fill(0), totals = new Array<number>(w).fill(0);
  let show: ReturnType<typeof progress> | null = null;
  const t0 = performance.now();
  const summaries: unknown[] = [];
  const children = Array.from({ length: w }, (_, j) => {
    const sub = c.shard.k + j * c.shard.n;
    return Bun.spawn([process.execPath, BIN, "analyze", ...argv, "--workers", "1", "--shard", `${sub}/${n}`], {
      env: { ...process.env, [WORKER_ENV]: "1" },
      stdout: "pipe",
      stderr: "pipe",
    });
  });
  const pumps = children.map(async (child, j) => {
    const decoder = new TextDecoder();
    let buf = "";
    for await (const chunk of child.stderr) {
      buf += decoder.decode(chunk);
      let nl: number;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        const m = /^analyze-progress (\d+) (\d+)$/.exec(line);
        if (!m) {
          io.stderr(`${line}\n`);
          continue;
        }
        done[j] = Number(m[1]);
        totals[j] = Number(m[2]);
        if (totals.every((t, i) => t > 0 || done[i]! > 0) || show) {
          show ??= progress(totals.reduce((a, b) => a + b, 0), c.quiet, io.stderr, io.tty);
          show(done.reduce((a, b) => a + b, 0));
        }
      }
    }
    const out = await new Response(child.stdout).text();
    for (const l of out.split("\n")) if (l.trim()) summaries.push(JSON.parse(l));
  });
  const codes = await Promise.all(children.map((ch) => ch.exited));
  await Promise.all(pumps);
  const total = done.reduce((a, b) => a + b, 0);
  (show ?? progress(total, c.quiet, io.stderr, io.tty))(total, true);
  const bad = codes.find((x) => x !== 0);
  if (bad !== undefined) return bad;
  io.stdout(`${JSON.stringify({ workers: w, origins: total, origins_per_s: Math.round((100 * total) / ((performance.now() - t0) / 1000)) / 100, parts: summaries })}\n`);
  return 0;
}
