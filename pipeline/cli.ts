/**
 * `interchange import`: flags → ImportOptions, one report per feed, exit code 1 when any feed was
 * rejected or could not be fetched. Feeds come from positional arguments and/or a feeds file
 * (--feeds, the nightly job): URLs are fetched conditionally, with a time-out and retries, each
 * feed on its own (one failing does not stop the others); the run report (run-report.ts) says what
 * became of each; with `keep` (flag or feeds file) the retention policy runs after the import
 * (store/prune.ts).
 */
import { readFileSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import type { z as Z } from "zod";
import { parseFlags, helpText, UsageError, type FlagSpec, type FlagValues } from "../config/flags.ts";
import { importFeed } from "./import.ts";
import { DEFAULT_FETCH_POLICY, type FetchPolicy } from "./import/download.ts";
import type { ImportReport } from "./report.ts";
import { countOutcomes, feedRun, streetsRun, writeRunReport, type RunReport } from "./run-report.ts";
import { pruneLine } from "./prune.ts";
import { DEFAULT_GRACE_MS, prune, validateGraceMs, validateKeep } from "./store/prune.ts";
import { activeVersions, LICENSE_FIELDS, readManifest, type License, type LicenseField } from "./schema/manifest.ts";
import { isUrl } from "./source.ts";
import { parsePolicy, type ValidationPolicy } from "./validate/policy.ts";
import { refreshTimetable } from "./timetable/publish.ts";
import type { StreetImportReport } from "./street/import-streets.ts";

export const IMPORT_FLAGS: FlagSpec[] = [
  { name: "data", env: "INTERCHANGE_DATA", type: "string", default: "data", description: "dataset folder (created if missing)" },
  { name: "feed-id", env: "INTERCHANGE_FEED_ID", type: "string", description: "Onestop feed id for the positional FEED (default: derived f-<geohash>-<agency name>)" },
  { name: "feeds", env: "INTERCHANGE_FEEDS", type: "string", description: "JSON feeds file: [{id, url or path, license, name, tags}]" },
  { name: "activate", env: "INTERCHANGE_ACTIVATE", type: "boolean", default: true, description: "make each new version its feed's active one; --no-activate keeps the old one active" },
  { name: "osm", env: "INTERCHANGE_OSM", type: "list", takes: /\.pbf$/i, description: "OSM PBF extract(s) to build the street dataset from (merged into one; repeatable)" },
  { name: "elevation", env: "INTERCHANGE_ELEVATION", type: "list", takes: /\.(hgt|hgt\.gz|tif|tiff)$/i, description: "elevation for the street dataset: SRTM .hgt/.hgt.gz tiles, GeoTIFF DEMs" },
  { name: "fetch-timeout-ms", env: "INTERCHANGE_FETCH_TIMEOUT_MS", type: "number", default: DEFAULT_FETCH_POLICY.timeoutMs, description: "time-out of one attempt to download a feed URL (the whole answer)" },
  { name: "fetch-retries", env: "INTERCHANGE_FETCH_RETRIES", type: "number", default: DEFAULT_FETCH_POLICY.retries, description: "attempts after the first for a feed URL that timed out, failed to connect or answered 408/425/429/5xx" },
  { name: "fetch-backoff-ms", env: "INTERCHANGE_FETCH_BACKOFF_MS", type: "number", default: DEFAULT_FETCH_POLICY.backoffMs, description: "wait before the first retry, doubled before each further one (at most 60 s; a longer Retry-After is honoured up to 60 s)" },
  { name: "conditional", env: "INTERCHANGE_CONDITIONAL", type: "boolean", default: true, description: "ask feed URLs with If-None-Match / If-Modified-Since from their last answer (an unchanged feed costs one 304); --no-conditional downloads in full" },
  { name: "report", env: "INTERCHANGE_REPORT", type: "string", description: "write the run report (JSON: each feed imported, unchanged or failed and why) to this file" },
  { name: "keep", env: "INTERCHANGE_KEEP", type: "number", description: "after the import, prune: keep each feed's N newest versions besides the active one (over the feeds file's keep; see interchange prune)" },
  { name: "grace-s", env: "INTERCHANGE_PRUNE_GRACE_S", type: "number", default: DEFAULT_GRACE_MS / 1000, description: "prune: what a manifest replaced less than this long ago points at is not removed yet" },
  { name: "json", env: "INTERCHANGE_JSON", type: "boolean", default: false, description: "print JSON on stdout: the import reports; with --feeds, the run report" },
  { name: "validate", env: "INTERCHANGE_VALIDATE", type: "boolean", default: false, description: "validate each version (MobilityData's notice codes; report.json and report.html kept in the version folder); off by default until it costs an import less (it adds 16-28 % to MTA bus_bk's CPU time), on whenever a --refuse policy needs it" },
  { name: "refuse", env: "INTERCHANGE_REFUSE", type: "string", default: "accept", description: "validation policy: accept (every version), errors (refuse versions with ERROR notices) or CODE[,CODE...] (refuse versions with these notice codes); a refused version is never published nor activated. A feeds file entry's `refuse` is over it" },
  { name: "quiet", env: "INTERCHANGE_QUIET", type: "boolean", default: false, description: "no progress on stderr" },
];

export interface FeedSpec {
  source: string;
  feedId?: string;
  license?: Partial<License>;
  /** the feed's name and tags (feeds file), kept in the manifest and served by /feeds */
  name?: string;
  tags?: Record<string, string>;
  /** this feed's download settings, over the flags' */
  fetch?: Partial<FetchPolicy>;
  /** this feed's versions kept by the prune after the import, over the run's keep */
  keep?: number;
  /** this feed's validation policy, over the run's --refuse */
  refuse?: ValidationPolicy;
}

/** What a feeds file lists: GTFS feeds, and OSM extracts and elevation for one street dataset. */
export interface FeedsFile {
  feeds: FeedSpec[];
  osm: string[];
  elevation: string[];
  /** the file's `keep` (object form): prune after the import */
  keep?: number;
}

/**
 * The feeds file's schema (zod is loaded only when a feeds file is read: an import without one
 * starts sooner): a list of entries, or `{ keep, feeds: [entries] }`.
 */
function feedsFileSchema(z: typeof Z) {
  const LicenseValue = z.enum(["yes", "no", "unknown"]);
  const keep = z.number().int().min(1);
  const entries = z.array(
    z.object({
      id: z.string().optional(),
      url: z.string().optional(),
      path: z.string().optional(),
      /** an OSM extract (path or URL) for the street dataset */
      osm: z.string().optional(),
      /** an elevation file (path or URL) for the street dataset */
      elevation: z.string().optional(),
      /** the feed's name (served as Transitland's feed `name`) */
      name: z.string().min(1).max(200).optional(),
      /** free key/value tags (served as Transitland's feed `tags`, filtered by tag_key/tag_value) */
      tags: z.record(z.string().min(1).max(100), z.string().max(1000)).refine((t) => Object.keys(t).length <= 100, "at most 100 tags").optional(),
      license: z
        .object(Object.fromEntries(LICENSE_FIELDS.map((f) => [f, LicenseValue.optional()])) as Record<LicenseField, Z.ZodOptional<typeof LicenseValue>>)
        .optional(),
      /** versions of this feed kept by the prune after the import */
      keep: keep.optional(),
      /** download settings of this feed (a URL) */
      timeout_ms: z.number().positive().optional(),
      retries: z.number().int().min(0).optional(),
      /** validation policy: "accept", "errors", or a list of notice codes that refuse the version */
      refuse: z.union([z.enum(["accept", "errors"]), z.array(z.string()).min(1)]).optional(),
    }).refine((f) => [f.url ?? f.path, f.osm, f.elevation].filter(Boolean).length === 1, "each entry needs exactly one of: a url or path (a GTFS feed), osm, elevation"),
  );
  return z.union([entries, z.object({ keep: keep.optional(), feeds: entries }).strict()]);
}

/** A feeds file's `refuse` as a policy (unknown codes are a usage error). */
function policyOf(refuse: "accept" | "errors" | string[], path: string): ValidationPolicy {
  return Array.isArray(refuse) ? parsePolicy(refuse.join(","), `feeds file ${path}: refuse`) : refuse;
}

export async function readFeedsFile(path: string): Promise<FeedsFile> {
  const { z } = await import("zod");
  const schema = feedsFileSchema(z);
  let parsed: Z.infer<ReturnType<typeof feedsFileSchema>>;
  try {
    parsed = schema.parse(JSON.parse(readFileSync(path, "utf8")));
  } catch (e) {
    const why = e instanceof z.ZodError ? e.issues.map((i) => `[${i.path.join(".")}] ${i.message}`).join("; ") : (e as Error).message;
    throw new UsageError(`feeds file ${path}: ${why}`);
  }
  const where = (src: string) => (isUrl(src) || isAbsolute(src) ? src : resolve(dirname(path), src));
  const out: FeedsFile = { feeds: [], osm: [], elevation: [] };
  const list = Array.isArray(parsed) ? parsed : parsed.feeds;
  if (!Array.isArray(parsed) && parsed.keep !== undefined) out.keep = parsed.keep;
  for (const f of list) {
    if (f.osm) out.osm.push(where(f.osm));
    else if (f.elevation) out.elevation.push(where(f.elevation));
    else {
      const spec: FeedSpec = { source: where(f.url ?? f.path!), feedId: f.id, license: f.license };
      if (f.timeout_ms !== undefined || f.retries !== undefined) spec.fetch = { timeoutMs: f.timeout_ms, retries: f.retries };
      if (f.keep !== undefined) spec.keep = f.keep;
      if (f.name !== undefined) spec.name = f.name;
      if (f.tags !== undefined) spec.tags = f.tags;
      if (f.refuse !== undefined) spec.refuse = policyOf(f.refuse, path);
      out.feeds.push(spec);
    }
  }
  return out;
}

/**
 * `interchange import`: the inputs of the flags and feeds file, then the streets, the feeds, the
 * timetable, the prune, and the run report; exit code 1 when any of them failed.
 */
export async function runImport(argv: string[]): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    console.log(helpText("import [flags] [FEED...] [--osm FILE.osm.pbf... [--elevation FILE...]]", "Import GTFS feeds (zip, folder or http(s) URL of a zip) and OSM extracts (the street dataset) into the dataset.", IMPORT_FLAGS));
    return 0;
  }
  const startedAt = new Date();
  const { values, positionals } = parseFlags(argv, IMPORT_FLAGS);
  const dataDir = String(values.data);
  const { feeds, osm, elevation, fileKeep } = await importInputs(values, positionals);
  const policy = fetchPolicyOf(values);
  const keep = values.keep !== undefined ? usage(() => validateKeep(Number(values.keep), "--keep")) : fileKeep;
  const graceMs = usage(() => validateGraceMs(Number(values.graceS) * 1000, "--grace-s"));
  const refuse = parsePolicy(String(values.refuse ?? "accept"), "--refuse");
  const quiet = Boolean(values.quiet);
  const progress = quiet ? undefined : (m: string) => console.error(m);
  // streets first: the timetable the feeds' import prepares measures its footpaths on them
  const streetReport = osm.length ? await runStreetImport(dataDir, osm, elevation, values, policy, progress) : null;
  const streetsFailed = streetReport?.status === "rejected";
  const reports: ImportReport[] = [];
  for (const [i, f] of feeds.entries()) {
    const report = await importFeed({
      dataDir,
      source: f.source,
      feedId: f.feedId,
      license: f.license,
      name: f.name,
      tags: f.tags,
      activate: values.activate !== false,
      fetch: { ...policy, ...definedOf(f.fetch ?? {}) },
      conditional: values.conditional !== false,
      // the last import builds the batch's timetable while it writes its Parquet files
      prepareTimetable: i === feeds.length - 1,
      validate: values.validate === true,
      validationPolicy: f.refuse ?? refuse,
      progress,
    });
    reports.push(report);
    if (!values.json) console.log(summaryLine(f, report));
  }
  const run: RunReport = {
    format: 1, started_at: startedAt.toISOString(), finished_at: "", elapsed_ms: 0, data: resolve(dataDir), exit_code: 0,
    counts: countOutcomes([]), feeds: reports.map(feedRun), streets: streetsRun(streetReport),
    timetable: { outcome: "skipped", path: null, error: null }, prune: null,
  };
  if (feeds.length === 0 && !(streetReport?.activated && activeVersions(readManifest(dataDir)).length > 0)) {
    if (values.json && !values.feeds) console.log(JSON.stringify({ streets: streetReport }, null, 2));
  } else run.timetable = await compileTimetable(dataDir, progress);
  await runPrune(run, dataDir, feeds, reports, keep, graceMs, values, progress);
  run.counts = countOutcomes(run.feeds);
  const failed = run.counts.failed > 0 || run.timetable.outcome === "failed" || streetsFailed || (run.prune !== null && "error" in run.prune);
  run.exit_code = failed ? 1 : 0;
  run.finished_at = new Date().toISOString();
  run.elapsed_ms = Date.now() - startedAt.getTime();
  if (values.report) writeRunReport(String(values.report), run);
  if (values.json) {
    const legacyJson = () => (streetReport ? { feeds: reports, streets: streetReport } : reports);
    if (values.feeds) console.log(JSON.stringify(run, null, 2));
    else if (feeds.length > 0 || run.timetable.outcome !== "skipped") console.log(JSON.stringify(legacyJson(), null, 2));
  }
  return run.exit_code;
}

/** The feeds, OSM extracts and elevation files of the arguments and the feeds file, and the file's keep (usage errors thrown). */
async function importInputs(values: FlagValues, positionals: string[]): Promise<{ feeds: FeedSpec[]; osm: string[]; elevation: string[]; fileKeep: number | undefined }> {
  const feeds: FeedSpec[] = [];
  if (values.feedId && positionals.length !== 1) throw new UsageError("--feed-id applies to exactly one FEED argument");
  for (const p of positionals) feeds.push({ source: p, feedId: values.feedId as string | undefined });
  const osm = [...((values.osm as string[] | undefined) ?? [])];
  const elevation = [...((values.elevation as string[] | undefined) ?? [])];
  let fileKeep: number | undefined;
  if (values.feeds) {
    const file = await readFeedsFile(String(values.feeds));
    feeds.push(...file.feeds);
    osm.push(...file.osm);
    elevation.push(...file.elevation);
    fileKeep = file.keep;
  }
  if (elevation.length && !osm.length) throw new UsageError("--elevation belongs to a street dataset: give the OSM extract(s) too (--osm FILE.osm.pbf)");
  if (feeds.length === 0 && osm.length === 0) throw new UsageError("nothing to import: give FEED arguments, --osm FILE or --feeds FILE (see interchange import --help)");
  return { feeds, osm, elevation, fileKeep };
}

/** The street dataset imported (its summary line printed unless --json). */
async function runStreetImport(
  dataDir: string, osm: string[], elevation: string[], values: FlagValues, policy: FetchPolicy, progress: ((m: string) => void) | undefined,
): Promise<StreetImportReport> {
  const { importStreets } = await import("./street/import-streets.ts");
  // URLs with the feeds' retries and back-off (a longer time-out per attempt: extracts are large)
  const r = await importStreets({ dataDir, osm, elevation, activate: values.activate !== false, progress, fetch: { retries: policy.retries, backoffMs: policy.backoffMs } });
  if (!values.json) {
    console.log(r.status === "rejected" ? `REJECTED streets ${osm.join(", ")}: ${r.error?.message}` : `${r.status} streets ${r.sha1}${r.activated ? " (active)" : ""}; tiles: ${Object.entries(r.tiles ?? {}).map(([l, n]) => `level ${l}=${n}`).join(", ")}; elevation tiles: ${r.elevation_tiles?.length ?? 0}`);
  }
  return r;
}

/** The timetable of the active versions compiled; a failure is reported (the imported versions stay, the planner keeps the previous timetable). */
async function compileTimetable(dataDir: string, progress: ((m: string) => void) | undefined): Promise<RunReport["timetable"]> {
  try {
    const outcome = await refreshTimetable(dataDir, progress);
    return { outcome, path: readManifest(dataDir).timetable?.path ?? null, error: null };
  } catch (e) {
    // the imported versions stay; the planner keeps serving the previous timetable
    const failed: RunReport["timetable"] = { outcome: "failed", path: readManifest(dataDir).timetable?.path ?? null, error: (e as Error).message };
    console.error(`timetable compile failed: ${(e as Error).message}`);
    return failed;
  }
}

/** The prune after the import, when a keep is set (the run's or a feed's): into run.prune, a failure as its error. */
async function runPrune(
  run: RunReport, dataDir: string, feeds: FeedSpec[], reports: ImportReport[], keep: number | undefined, graceMs: number, values: FlagValues,
  progress: ((m: string) => void) | undefined,
): Promise<void> {
  const keepByFeed = new Map<string, number>();
  feeds.forEach((f, i) => {
    const id = f.feedId ?? reports[i]!.feed_onestop_id;
    if (f.keep !== undefined && id) keepByFeed.set(id, f.keep);
  });
  if (keep === undefined && !keepByFeed.size) return;
  try {
    run.prune = await prune({ dataDir, keep: keep ?? null, keepByFeed, graceMs, progress });
    if (!values.json) console.log(pruneLine(run.prune));
  } catch (e) {
    run.prune = { error: (e as Error).message };
    console.error(`prune failed: ${(e as Error).message}`);
  }
}

/** The download settings of the flags (checked: a bad number is a usage error). */
function fetchPolicyOf(values: Record<string, unknown>): FetchPolicy {
  const policy = { timeoutMs: Number(values.fetchTimeoutMs), retries: Number(values.fetchRetries), backoffMs: Number(values.fetchBackoffMs) };
  if (!(policy.timeoutMs > 0)) throw new UsageError(`--fetch-timeout-ms must be > 0, got ${values.fetchTimeoutMs}`);
  if (!Number.isInteger(policy.retries) || policy.retries < 0) throw new UsageError(`--fetch-retries must be a whole number >= 0, got ${values.fetchRetries}`);
  if (!(policy.backoffMs >= 0)) throw new UsageError(`--fetch-backoff-ms must be >= 0, got ${values.fetchBackoffMs}`);
  return policy;
}

const definedOf = <T extends object>(o: T): Partial<T> => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;

function usage<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

function summaryLine(f: FeedSpec, report: ImportReport): string {
  if (report.status === "rejected") return `${report.error?.stage === "validate" ? "REFUSED" : "REJECTED"} ${f.source}: ${report.error?.message}`;
  const how = report.fetch?.not_modified ? " (not modified: HTTP 304)" : "";
  return `${report.status} ${report.feed_onestop_id} ${report.sha1}${report.activated ? " (active)" : ""}${how}; warnings: ${Object.entries(report.warnings).map(([k, w]) => `${k}=${w.count}`).join(", ") || "none"}${report.validation ? `; validation: ${report.validation.errors} errors, ${report.validation.warnings} warnings, ${report.validation.infos} infos (${report.validation.report_html})` : ""}`;
}
