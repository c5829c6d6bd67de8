/**
 * `interchange import-rt --data DIR --feed-id ID FILE_OR_URL...`: one-off GTFS-Realtime snapshots
 * into the dataset (Parquet for analysts; the newest becomes the feed's current snapshot, which a
 * running server picks up). One report line per input; exit code 1 when any input was refused.
 */
import { helpText, parseFlags, UsageError, type FlagSpec } from "../../config/flags.ts";
import { FUTURE_TOLERANCE_S, REALTIME_KINDS, type RealtimeKind } from "../schema/realtime.ts";
import { readFeedBytes } from "./fetch.ts";
import { Ingester, type IngestResult } from "./ingest.ts";

export const IMPORT_RT_FLAGS: FlagSpec[] = [
  { name: "data", env: "INTERCHANGE_DATA", type: "string", default: "data", description: "dataset folder (created if missing)" },
  { name: "feed-id", env: "INTERCHANGE_FEED_ID", type: "string", description: "Onestop ID of the static feed the snapshots belong to (required)" },
  { name: "kind", env: "INTERCHANGE_REALTIME_KIND", type: "string", description: "alerts, trip_updates or vehicle_positions (default: from the entities; needed for an empty feed)" },
  { name: "retention-days", env: "INTERCHANGE_REALTIME_RETENTION_DAYS", type: "number", default: 7, description: "remove the feed's snapshot partitions older than this many days (0 = keep all)" },
  { name: "timeout-ms", env: "INTERCHANGE_REALTIME_TIMEOUT_MS", type: "number", default: 10000, description: "time-out for fetching a URL" },
  { name: "json", env: "INTERCHANGE_JSON", type: "boolean", default: false, description: "print the results as JSON on stdout" },
];

export async function runImportRt(argv: string[], now: () => number = Date.now): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    console.log(helpText("import-rt --feed-id ID [flags] FILE_OR_URL...", "Import GTFS-Realtime snapshots (protobuf files or http(s) URLs) of one feed into the dataset.", IMPORT_RT_FLAGS));
    return 0;
  }
  const { values, positionals } = parseFlags(argv, IMPORT_RT_FLAGS);
  const feedId = values.feedId as string | undefined;
  if (!feedId) throw new UsageError("--feed-id is required: the Onestop ID of the static feed the snapshots belong to");
  if (!/^[a-z0-9~<>.-]{1,64}$/.test(feedId)) throw new UsageError(`--feed-id ${feedId}: a feed Onestop ID (lowercase, at most 64 characters)`);
  const kind = (values.kind as string | undefined) ?? null;
  if (kind !== null && !(REALTIME_KINDS as readonly string[]).includes(kind)) throw new UsageError(`--kind must be one of ${REALTIME_KINDS.join(", ")}`);
  if (!positionals.length) throw new UsageError("nothing to import: give FILE_OR_URL arguments");
  const retentionDays = Number(values.retentionDays);
  if (!(retentionDays >= 0)) throw new UsageError("--retention-days must be >= 0");
  const timeoutMs = Number(values.timeoutMs);
  if (!(timeoutMs > 0)) throw new UsageError("--timeout-ms must be > 0");

  const { DuckDBInstance } = await import("@duckdb/node-api");
  const db = await DuckDBInstance.create(":memory:", { threads: "1" });
  const conn = await db.connect();
  const all: (IngestResult & { source: string })[] = [];
  try {
    // archival: any age is written; the newest (not from the future) becomes current
    const ingester = new Ingester({ dataDir: String(values.data), maxAgeS: null, futureToleranceS: FUTURE_TOLERANCE_S, retentionDays, refuseBackwards: false }, conn);
    for (const source of positionals) {
      const got = await readFeedBytes(source, { timeoutMs });
      const at = new Date(now());
      const results = got.ok
        ? await ingester.ingest(feedId, kind as RealtimeKind | null, got.bytes, source, at)
        : [kind ? ingester.fail(feedId, kind as RealtimeKind, source, got.outcome, got.message, at) : { kind: null, outcome: got.outcome, message: got.message }];
      for (const r of results) {
        all.push({ ...r, source });
        if (!values.json) console.log(line(source, r));
      }
    }
  } finally {
    conn.closeSync();
    db.closeSync();
  }
  if (values.json) console.log(JSON.stringify(all, null, 2));
  return all.every((r) => r.outcome === "accepted" || r.outcome === "unchanged") ? 0 : 1;
}

function line(source: string, r: IngestResult): string {
  if (r.outcome !== "accepted") return `${r.outcome.toUpperCase()} ${source}${r.kind ? ` (${r.kind})` : ""}${r.message ? `: ${r.message}` : ""}`;
  const s = r.snapshot!;
  const unknown = s.unknown.count ? `; unknown ids: ${Object.entries(s.unknown.by_field).map(([f, n]) => `${f}=${n}`).join(", ")}` : "";
  const unattached = s.unattached_alerts ? `; alerts attached to nothing known: ${s.unattached_alerts}` : "";
  return `accepted ${source} (${r.kind}) -> ${s.path}: ${s.entities} entities, ${s.rows} rows${r.current ? " (current)" : ` (${r.message})`}${unknown}${unattached}${s.checked_against ? "" : "; no static feed with this id in the dataset"}`;
}
