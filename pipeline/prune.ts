/**
 * `interchange prune`: the retention policy (store/prune.ts) from the command line. Exit code 0
 * when it ran, 1 when it failed (e.g. an import holds the lock), 2 for bad usage.
 */
import { helpText, parseFlags, UsageError, type FlagSpec } from "../config/flags.ts";
import { DEFAULT_GRACE_MS, prune, validateGraceMs, validateKeep, type PruneReport } from "./store/prune.ts";

export const PRUNE_FLAGS: FlagSpec[] = [
  { name: "data", env: "INTERCHANGE_DATA", type: "string", default: "data", description: "dataset folder" },
  { name: "keep", env: "INTERCHANGE_KEEP", type: "number", description: "feed versions kept per feed besides the active one: its N newest (without it, no version is unlisted; only what no manifest lists is removed)" },
  { name: "grace-s", env: "INTERCHANGE_PRUNE_GRACE_S", type: "number", default: DEFAULT_GRACE_MS / 1000, description: "what a manifest replaced less than this long ago points at is not removed yet (a server may still read it); 0 only for a dataset no server reads" },
  { name: "dry-run", env: "INTERCHANGE_PRUNE_DRY_RUN", type: "boolean", default: false, description: "say what would be unlisted and removed, change nothing" },
  { name: "json", env: "INTERCHANGE_JSON", type: "boolean", default: false, description: "print the prune report as JSON on stdout" },
  { name: "quiet", env: "INTERCHANGE_QUIET", type: "boolean", default: false, description: "no progress on stderr" },
];

export async function runPrune(argv: string[]): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    console.log(helpText("prune [flags]", "Remove old inactive feed versions, unreferenced timetables and old street datasets, never what a server may still read.", PRUNE_FLAGS));
    return 0;
  }
  const { values, positionals } = parseFlags(argv, PRUNE_FLAGS);
  if (positionals.length) throw new UsageError(`unexpected argument ${positionals[0]}`);
  let keep: number | null = null;
  let graceMs: number;
  try {
    if (values.keep !== undefined) keep = validateKeep(Number(values.keep), "--keep");
    graceMs = validateGraceMs(Number(values.graceS) * 1000, "--grace-s");
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const report = await prune({
    dataDir: String(values.data), keep, graceMs, dryRun: Boolean(values.dryRun),
    progress: values.quiet ? undefined : (m) => console.error(m),
  });
  if (values.json) console.log(JSON.stringify(report, null, 2));
  else {
    console.log(pruneLine(report));
    for (const w of report.waiting) console.log(`  waiting: ${w.path} until ${w.until} (${w.reason})`);
  }
  return 0;
}

/** One line saying what a prune did. */
export function pruneLine(r: PruneReport): string {
  const removed = r.removed.versions.length + r.removed.timetables.length + r.removed.streets.length;
  return `${r.dry_run ? "prune (dry run): would unlist" : "pruned: unlisted"} ${r.unlisted.versions.length} feed version(s) and ${r.unlisted.streets.length} street dataset(s); ` +
    `${r.dry_run ? "would remove" : "removed"} ${removed} item(s) (${r.removed.versions.length} versions, ${r.removed.timetables.length} timetables, ${r.removed.streets.length} street datasets); ` +
    `${r.waiting.length} unlisted item(s) kept until their grace period ends` +
    (r.reports_removed.length ? `; ${r.reports_removed.length} old import report(s) ${r.dry_run ? "would be " : ""}removed` : "");
}
