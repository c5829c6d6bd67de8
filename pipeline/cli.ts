/**
 * `interchange import`: flags → ImportOptions, one report per feed, exit code 1 when any feed was
 * rejected. Feeds come from positional arguments and/or a feeds file (--feeds).
 */
import { readFileSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import type { z as Z } from "zod";
import { parseFlags, helpText, UsageError, type FlagSpec } from "../config/flags.ts";
import { importFeed } from "./import.ts";
import type { ImportReport } from "./report.ts";
import { activeVersions, LICENSE_FIELDS, readManifest, type License, type LicenseField } from "./schema/manifest.ts";
import { isUrl } from "./source.ts";
import { refreshTimetable } from "./timetable/publish.ts";
import type { StreetImportReport } from "./street/import-streets.ts";

export const IMPORT_FLAGS: FlagSpec[] = [
  { name: "data", env: "INTERCHANGE_DATA", type: "string", default: "data", description: "dataset folder (created if missing)" },
  { name: "feed-id", env: "INTERCHANGE_FEED_ID", type: "string", description: "Onestop feed id for the positional FEED (default: derived f-<geohash>-<agency name>)" },
  { name: "feeds", env: "INTERCHANGE_FEEDS", type: "string", description: "JSON feeds file: [{id, url or path, license}]" },
  { name: "activate", env: "INTERCHANGE_ACTIVATE", type: "boolean", default: true, description: "make each new version its feed's active one; --no-activate keeps the old one active" },
  { name: "osm", env: "INTERCHANGE_OSM", type: "list", takes: /\.pbf$/i, description: "OSM PBF extract(s) to build the street dataset from (merged into one; repeatable)" },
  { name: "elevation", env: "INTERCHANGE_ELEVATION", type: "list", takes: /\.(hgt|hgt\.gz|tif|tiff)$/i, description: "elevation for the street dataset: SRTM .hgt/.hgt.gz tiles, GeoTIFF DEMs" },
  { name: "json", env: "INTERCHANGE_JSON", type: "boolean", default: false, description: "print the import reports as JSON on stdout" },
  { name: "quiet", env: "INTERCHANGE_QUIET", type: "boolean", default: false, description: "no progress on stderr" },
];

export interface FeedSpec {
  source: string;
  feedId?: string;
  license?: Partial<License>;
}

/** What a feeds file lists: GTFS feeds, and OSM extracts and elevation for one street dataset. */
export interface FeedsFile {
  feeds: FeedSpec[];
  osm: string[];
  elevation: string[];
}

/** The feeds file's schema (zod is loaded only when a feeds file is read: an import without one starts sooner). */
function feedsFileSchema(z: typeof Z) {
  const LicenseValue = z.enum(["yes", "no", "unknown"]);
  return z.array(
    z.object({
      id: z.string().optional(),
      url: z.string().optional(),
      path: z.string().optional(),
      /** an OSM extract (path or URL) for the street dataset */
      osm: z.string().optional(),
      /** an elevation file (path or URL) for the street dataset */
      elevation: z.string().optional(),
      license: z
        .object(Object.fromEntries(LICENSE_FIELDS.map((f) => [f, LicenseValue.optional()])) as Record<LicenseField, Z.ZodOptional<typeof LicenseValue>>)
        .optional(),
    }).refine((f) => [f.url ?? f.path, f.osm, f.elevation].filter(Boolean).length === 1, "each entry needs exactly one of: a url or path (a GTFS feed), osm, elevation"),
  );
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
  for (const f of parsed) {
    if (f.osm) out.osm.push(where(f.osm));
    else if (f.elevation) out.elevation.push(where(f.elevation));
    else out.feeds.push({ source: where(f.url ?? f.path!), feedId: f.id, license: f.license });
  }
  return out;
}

export async function runImport(argv: string[]): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    console.log(helpText("import [flags] [FEED...] [--osm FILE.osm.pbf... [--elevation FILE...]]", "Import GTFS feeds (zip, folder or http(s) URL of a zip) and OSM extracts (the street dataset) into the dataset.", IMPORT_FLAGS));
    return 0;
  }
  const { values, positionals } = parseFlags(argv, IMPORT_FLAGS);
  const feeds: FeedSpec[] = [];
  if (values.feedId && positionals.length !== 1) throw new UsageError("--feed-id applies to exactly one FEED argument");
  for (const p of positionals) feeds.push({ source: p, feedId: values.feedId as string | undefined });
  const osm = [...((values.osm as string[] | undefined) ?? [])];
  const elevation = [...((values.elevation as string[] | undefined) ?? [])];
  if (values.feeds) {
    const file = await readFeedsFile(String(values.feeds));
    feeds.push(...file.feeds);
    osm.push(...file.osm);
    elevation.push(...file.elevation);
  }
  if (elevation.length && !osm.length) throw new UsageError("--elevation belongs to a street dataset: give the OSM extract(s) too (--osm FILE.osm.pbf)");
  if (feeds.length === 0 && osm.length === 0) throw new UsageError("nothing to import: give FEED arguments, --osm FILE or --feeds FILE (see interchange import --help)");
  const quiet = Boolean(values.quiet);
  let streetReport: StreetImportReport | null = null;
  // streets first: the timetable the feeds' import prepares measures its footpaths on them
  let streetsFailed = false;
  if (osm.length) {
    const { importStreets } = await import("./street/import-streets.ts");
    const r = await importStreets({ dataDir: String(values.data), osm, elevation, activate: values.activate !== false, progress: quiet ? undefined : (m) => console.error(m) });
    streetsFailed = r.status === "rejected";
    if (!values.json) {
      console.log(r.status === "rejected" ? `REJECTED streets ${osm.join(", ")}: ${r.error?.message}` : `${r.status} streets ${r.sha1}${r.activated ? " (active)" : ""}; tiles: ${Object.entries(r.tiles ?? {}).map(([l, n]) => `level ${l}=${n}`).join(", ")}; elevation tiles: ${r.elevation_tiles?.length ?? 0}`);
    }
    streetReport = r;
  }
  const reports: ImportReport[] = [];
  for (const [i, f] of feeds.entries()) {
    const report = await importFeed({
      dataDir: String(values.data),
      source: f.source,
      feedId: f.feedId,
      license: f.license,
      activate: values.activate !== false,
      // the last import builds the batch's timetable while it writes its Parquet files
      prepareTimetable: i === feeds.length - 1,
      progress: quiet ? undefined : (m) => console.error(m),
    });
    reports.push(report);
    if (!values.json) {
      const line = report.status === "rejected"
        ? `REJECTED ${f.source}: ${report.error?.message}`
        : `${report.status} ${report.feed_onestop_id} ${report.sha1}${report.activated ? " (active)" : ""}; warnings: ${Object.entries(report.warnings).map(([k, w]) => `${k}=${w.count}`).join(", ") || "none"}`;
      console.log(line);
    }
  }
  if (feeds.length === 0 && !(streetReport?.activated && activeVersions(readManifest(String(values.data))).length > 0)) {
    if (values.json) console.log(JSON.stringify({ streets: streetReport }, null, 2));
    return streetsFailed ? 1 : 0;
  }
  let timetableFailed = false;
  try {
    await refreshTimetable(String(values.data), quiet ? undefined : (m) => console.error(m));
  } catch (e) {
    // the imported versions stay; the planner keeps serving the previous timetable
    timetableFailed = true;
    console.error(`timetable compile failed: ${(e as Error).message}`);
  }
  if (values.json) console.log(JSON.stringify(streetReport ? { feeds: reports, streets: streetReport } : reports, null, 2));
  return reports.some((r) => r.status === "rejected") || timetableFailed || streetsFailed ? 1 : 0;
}
