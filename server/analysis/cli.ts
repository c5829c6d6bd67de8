/**
 * `interchange analyze travel-times|accessibility [flags]`: flags to the frozen configuration
 * (config.ts), then the run (run.ts).
 */
import { helpText, parseFlags, UsageError } from "../../config/flags.ts";
import { ANALYZE_FLAGS, ANALYZE_KINDS, analyzeConfigFrom } from "./config.ts";
import { runAnalysis } from "./run.ts";
import { runWorkers, WORKER_ENV } from "./workers.ts";

export async function runAnalyze(argv: string[]): Promise<number> {
  const [kind, ...rest] = argv;
  if (!kind || kind === "--help" || kind === "-h" || rest.includes("--help") || rest.includes("-h")) {
    console.log(helpText(`analyze ${ANALYZE_KINDS.join("|")} [flags]`, "Travel times from many origins to many destinations over a departure window (percentiles), or cumulative accessibility, written to Parquet (docs/analysis.md).", ANALYZE_FLAGS));
    return kind ? 0 : 2;
  }
  const { values, positionals } = parseFlags(rest, ANALYZE_FLAGS);
  if (positionals.length) throw new UsageError(`unexpected argument ${positionals[0]}`);
  const config = analyzeConfigFrom(kind, values);
  if (config.workers > 1) return runWorkers(config, [kind, ...rest], { stderr: (s) => process.stderr.write(s), stdout: (s) => process.stdout.write(s), tty: Boolean(process.stderr.isTTY) });
  // a worker of --workers (workers.ts) reports counts for its parent's progress line
  const worker = process.env[WORKER_ENV] === "1";
  const report = await runAnalysis(config, { stderr: (s) => process.stderr.write(s), tty: !worker && Boolean(process.stderr.isTTY), counts: worker });
  console.log(JSON.stringify({ outputs: report.outputs, origins: report.inputs.origins.in_shard, origins_per_s: report.timings.origins_per_s }));
  return 0;
}
