/**
 * importStreets: OSM extracts (+ elevation) → one immutable street dataset of Valhalla routing tiles,
 * then an atomic manifest switch, with the guarantees of a feed version (pipeline/import.ts): built
 * in `<data>/staging/`, flushed to disk, renamed into `<data>/streets/<sha1>/`, and made active only
 * by the manifest rewrite. The key is the SHA-1 of the inputs (engine version, build format, each
 * file's SHA-1), so importing the same bytes again changes nothing. Several extracts given together
 * are merged into one tile set; one street dataset is active at a time.
 */
import { createHash } from "node:crypto";
import { createReadStream, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { pipeline as streamPipeline } from "node:stream/promises";
import { DataError } from "../report.ts";
import { isUrl } from "../source.ts";
import { DEFAULT_FETCH_POLICY, downloadToFile, type FetchPolicy, type Validators } from "../import/download.ts";
import { readSourceState, writeSourceState, type SourceState } from "../store/sources.ts";
import { readManifest, type StreetEntry } from "../schema/manifest.ts";
import { STREET_LAYOUT, withDatasetPaths } from "../schema/street.ts";
import { acquireLock, writeManifest } from "../store/manifest.ts";
import { fsyncDir, fsyncTreeAsync, writeFileDurable } from "../store/durable.ts";
import { defaultValhallaConfig, runValhallaTool, valhallaVersion } from "./valhalla.ts";
import { writeStreetMap } from "./street-map.ts";
import { writeBaseMap } from "./base-map.ts";
import { GEOCODE_FILE } from "../schema/geocode.ts";

/**
 * Bumped when the way tiles are built changes (config, tools run), so old datasets are rebuilt.
 * 2: the dataset also holds the map page's street background (STREET_LAYOUT.map).
 * 3: and the geocoder's index of the extracts' names and addresses (pipeline/schema/geocode.ts).
 * 4: street names in the background, and the basemap (STREET_LAYOUT.base: places, water, parks, buildings).
 * 5: the basemap's point budget (the smallest features left out first), old-style multipolygons with their holes, and the sea from coastlines.
 */
export const STREET_BUILD_FORMAT = 5;

export interface StreetImportOptions {
  dataDir: string;
  /** OSM PBF extracts (paths or http(s) URLs), merged into one tile set */
  osm: string[];
  /** SRTM .hgt/.hgt.gz tiles and GeoTIFF DEMs */
  elevation?: string[];
  /** make it the active street dataset (default true) */
  activate?: boolean;
  progress?: (msg: string) => void;
  now?: () => Date;
  /** how URLs are downloaded (default: DEFAULT_FETCH_POLICY's retries and back-off, STREET_FETCH_TIMEOUT_MS per attempt) */
  fetch?: Partial<FetchPolicy>;
}

/** Time-out of one attempt to download an OSM extract or elevation file (they can be large). */
export const STREET_FETCH_TIMEOUT_MS = 30 * 60_000;

export interface StreetImportReport {
  status: "imported" | "unchanged" | "rejected";
  sha1: string | null;
  activated: boolean;
  elapsed_ms: number;
  osm: string[];
  elevation: string[];
  tiles?: Record<string, number>;
  elevation_tiles?: string[];
  bbox?: StreetEntry["bbox"];
  error?: { message: string };
}

const PBF_MAGIC_HINT = "OSMHeader";

async function fileSha1(path: string): Promise<string> {
  const h = createHash("sha1");
  await streamPipeline(createReadStream(path), h);
  return h.digest("hex");
}

/** One input of a street import: a local file, or a URL downloaded into one (or not, when it answered 304). */
interface StreetInput {
  source: string;
  /** where its bytes are; null for a URL that answered 304 (its bytes are those of `sha1`) */
  file: string | null;
  /** SHA-1 and size of its bytes, once known */
  sha1: string | null;
  bytes: number | null;
  /** a URL's validators from the answer that brought its bytes (kept for the next conditional request) */
  validators?: Validators;
  /** a URL asked conditionally: its state in `DIR/sources/` */
  state?: SourceState;
}

/**
 * The validators of what a URL last answered with, when a listed street dataset was built from
 * those bytes (so a 304 means "the bytes of `sha1`, which built a dataset we have").
 */
function knownValidators(dataDir: string, url: string): SourceState | null {
  const state = readSourceState(dataDir, url);
  if (!state) return null;
  const m = readManifest(dataDir);
  const built = (m.streets ?? []).some((s) => [...s.osm, ...s.elevation].some((i) => i.source === url && i.sha1 === state.sha1));
  return built ? state : null;
}

/**
 * Each input: paths are checked; URLs are downloaded into `dir` with the fetch policy's time-out,
 * retries and back-off, conditionally (If-None-Match / If-Modified-Since) when a listed street
 * dataset was built from what they last answered: a 304 leaves the input without a file, its
 * SHA-1 known.
 */
async function streetInputs(dataDir: string, sources: string[], dir: string, kind: string, policy: FetchPolicy, progress: (m: string) => void): Promise<StreetInput[]> {
  const out: StreetInput[] = [];
  for (const [i, source] of sources.entries()) {
    if (isUrl(source)) {
      const file = inputFile(dir, kind, i, source);
      const state = knownValidators(dataDir, source);
      const d = await downloadToFile(source, file, policy, state, progress);
      if (d.status === "not_modified") {
        progress(`${source}: not modified (304), the bytes of ${state!.sha1}`);
        const bytes = (readManifest(dataDir).streets ?? []).flatMap((s) => [...s.osm, ...s.elevation]).find((x) => x.source === source && x.sha1 === state!.sha1)?.bytes ?? null;
        out.push({ source, file: null, sha1: state!.sha1, bytes, state: state! });
      } else {
        progress(`${source}: downloaded ${Math.round(d.bytes / 1024)} kB`);
        out.push({ source, file, sha1: d.sha1, bytes: d.bytes, validators: d.validators, ...(state ? { state } : {}) });
      }
    } else {
      const file = resolve(source);
      if (!existsSync(file) || !statSync(file).isFile()) throw new DataError(`${source}: no such file`);
      out.push({ source: file, file, sha1: await fileSha1(file), bytes: statSync(file).size });
    }
  }
  return out;
}

const inputFile = (dir: string, kind: string, i: number, url: string) => join(dir, `${kind}-${i}-${basename(new URL(url).pathname) || "download"}`);

/** The bytes of the inputs that answered 304, downloaded after all (unconditionally): the dataset they built is not the one wanted now. */
async function fetchMissing(inputs: StreetInput[], dir: string, kind: string, policy: FetchPolicy, progress: (m: string) => void): Promise<void> {
  for (const [i, input] of inputs.entries()) {
    if (input.file !== null) continue;
    const file = inputFile(dir, kind, i, input.source);
    const d = await downloadToFile(input.source, file, policy, null, progress);
    if (d.status !== "ok") throw new DataError(`${input.source}: answered 304 to a request that was not conditional`);
    progress(`${input.source}: downloaded ${Math.round(d.bytes / 1024)} kB (its bytes are needed for the new dataset)`);
    Object.assign(input, { file, sha1: d.sha1, bytes: d.bytes, validators: d.validators });
  }
}

/** Keep each URL input's validators (only once the dataset its bytes built, or were found in, is listed). */
function rememberSources(dataDir: string, inputs: StreetInput[], at: string): void {
  for (const i of inputs) {
    if (!isUrl(i.source) || !i.sha1) continue;
    const v = i.validators ?? (i.state ? { etag: i.state.etag, last_modified: i.state.last_modified } : null);
    if (!v) continue;
    const changed = !i.state || i.state.sha1 !== i.sha1;
    writeSourceState(dataDir, { url: i.source, etag: v.etag, last_modified: v.last_modified, sha1: i.sha1, feed_onestop_id: null, checked_at: at, changed_at: changed ? at : i.state!.changed_at });
  }
}

/** A quick look at the first bytes: an OSM PBF starts with a BlobHeader of type "OSMHeader". */
async function checkPbf(file: string): Promise<void> {
  const fh = await import("node:fs/promises").then((fs) => fs.open(file, "r"));
  try {
    const buf = Buffer.alloc(64);
    const { bytesRead } = await fh.read(buf, 0, 64, 0);
    if (!buf.subarray(0, bytesRead).toString("latin1").includes(PBF_MAGIC_HINT)) {
      throw new DataError(`${file}: not an OSM PBF extract (no OSMHeader block at the start)`);
    }
  } finally {
    await fh.close();
  }
}

/** Graph tiles per level, and the bbox of the level-2 (0.25 degree) tiles. */
export function describeTiles(tileDir: string): { tiles: Record<string, number>; bbox: StreetEntry["bbox"] } {
  const tiles: Record<string, number> = {};
  let bbox: [number, number, number, number] | null = null;
  const walk = (dir: string, level: string, digits: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(dir, e.name), level, digits + e.name);
      else if (e.name.endsWith(".gph")) {
        tiles[level] = (tiles[level] ?? 0) + 1;
        if (level === "2") {
          const id = Number(digits + e.name.slice(0, -4));
          const row = Math.floor(id / 1440);
          const col = id % 1440;
          const [w, s] = [-180 + col * 0.25, -90 + row * 0.25];
          bbox = bbox ? [Math.min(bbox[0], w), Math.min(bbox[1], s), Math.max(bbox[2], w + 0.25), Math.max(bbox[3], s + 0.25)] : [w, s, w + 0.25, s + 0.25];
        }
      }
    }
  };
  if (existsSync(tileDir)) for (const e of readdirSync(tileDir, { withFileTypes: true })) if (e.isDirectory()) walk(join(tileDir, e.name), e.name, "");
  return { tiles, bbox };
}

/** Runs a tool; a failure (exit code or signal) is a DataError with the tool's last log lines. */
async function tool(name: string, args: string[], cwd: string, progress: (m: string) => void): Promise<void> {
  const r = await runValhallaTool(name, args, { cwd, onLine: (l) => progress(`${name}: ${l.replace(/^\d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d\.\d+ /, "")}`) });
  if (r.code !== 0) {
    const tail = (r.stderr + r.stdout).trim().split("\n").slice(-3).join(" | ");
    throw new DataError(`${name} failed (${r.signal ? `signal ${r.signal}` : `exit ${r.code}`}): ${tail}`);
  }
}

/**
 * Import a street dataset: gather the inputs (downloads included) and their key; an existing
 * dataset of that key is reused (made active again), otherwise one is built in staging and
 * published. Every failure is a rejected report; the lock and the staging folder are released.
 */
export async function importStreets(opts: StreetImportOptions): Promise<StreetImportReport> {
  const started = performance.now();
  const dataDir = resolve(opts.dataDir);
  const now = opts.now ?? (() => new Date());
  const progress = (m: string) => opts.progress?.(`[streets] ${m}`);
  const elevationSources = opts.elevation ?? [];
  const report: StreetImportReport = { status: "rejected", sha1: null, activated: false, elapsed_ms: 0, osm: opts.osm, elevation: elevationSources };
  if (opts.osm.length === 0) {
    report.error = { message: "no OSM extract given (--osm FILE.osm.pbf)" };
    return report;
  }
  const release = acquireLock(dataDir);
  const stagingRoot = join(dataDir, "staging");
  let staging: string | null = null;
  try {
    // We hold the lock, so anything left in staging/ is debris of a killed import.
    rmSync(stagingRoot, { recursive: true, force: true });
    staging = join(stagingRoot, `streets.${process.pid}`);
    const inputsDir = join(staging, "inputs");
    mkdirSync(inputsDir, { recursive: true });
    const policy = { ...DEFAULT_FETCH_POLICY, timeoutMs: STREET_FETCH_TIMEOUT_MS, ...opts.fetch };
    const { osm, elevation, engineVersion, key, manifest } = await gatherInputs(dataDir, opts.osm, elevationSources, inputsDir, policy, progress);
    const activate = opts.activate ?? true;
    report.sha1 = key;
    const existing = (manifest.streets ?? []).find((s) => s.sha1 === key);
    if (existing) {
      rememberSources(dataDir, [...osm, ...elevation], now().toISOString());
      report.status = "unchanged";
      Object.assign(report, { tiles: existing.tiles, elevation_tiles: existing.elevation_tiles, bbox: existing.bbox });
      if (activate && manifest.active_streets !== key) {
        manifest.active_streets = key;
        writeManifest(dataDir, manifest);
        progress(`street dataset ${key} already built; made active again`);
      } else progress(`unchanged: street dataset ${key} is already built${manifest.active_streets === key ? " and active" : ""}`);
      report.activated = manifest.active_streets === key;
      return report;
    }

    const out = join(staging, "dataset");
    const entry = await buildStreetDataset(staging, out, osm, elevation, { key, engineVersion, builtAt: now, sources: opts.osm }, progress);
    publishStreets(dataDir, out, entry, activate);
    rememberSources(dataDir, [...osm, ...elevation], now().toISOString());
    Object.assign(report, { status: "imported", activated: activate, tiles: entry.tiles, elevation_tiles: entry.elevation_tiles, bbox: entry.bbox });
    progress(`imported street dataset ${key}${activate ? " (active)" : ""} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    return report;
  } catch (e) {
    report.status = "rejected";
    report.error = { message: (e as Error).message };
    progress(`rejected: ${report.error.message}`);
    return report;
  } finally {
    report.elapsed_ms = Math.round(performance.now() - started);
    if (staging) rmSync(staging, { recursive: true, force: true });
    try {
      if (existsSync(stagingRoot) && readdirSync(stagingRoot).length === 0) rmSync(stagingRoot, { recursive: true, force: true });
    } catch { /* ignore */ }
    release();
  }
}

/**
 * The OSM and elevation inputs (local files checked, URLs downloaded or found unchanged), the
 * engine version, the dataset key they make and the manifest; a URL that answered 304 is
 * downloaded after all when the dataset it makes is not built yet.
 */
async function gatherInputs(dataDir: string, osmSources: string[], elevationSources: string[], inputsDir: string, policy: FetchPolicy, progress: (m: string) => void) {
  const osm = await streetInputs(dataDir, osmSources, inputsDir, "osm", policy, progress);
  const elevation = await streetInputs(dataDir, elevationSources, inputsDir, "elevation", policy, progress);
  for (const o of osm) if (o.file) await checkPbf(o.file);
  const engineVersion = valhallaVersion();
  const keyOf = () =>
    createHash("sha1")
      .update(JSON.stringify({ format: STREET_BUILD_FORMAT, engine: engineVersion, osm: osm.map((o) => o.sha1).sort(), elevation: elevation.map((e) => e.sha1).sort() }))
      .digest("hex");
  let key = keyOf();
  const manifest = readManifest(dataDir);
  if (!(manifest.streets ?? []).some((s) => s.sha1 === key) && [...osm, ...elevation].some((i) => i.file === null)) {
    // a URL answered 304 but the dataset wanted now is a new one: its bytes are needed after all
    await fetchMissing(osm, inputsDir, "osm", policy, progress);
    await fetchMissing(elevation, inputsDir, "elevation", policy, progress);
    for (const o of osm) await checkPbf(o.file!);
    key = keyOf();
  }
  return { osm, elevation, engineVersion, key, manifest };
}

/**
 * The street dataset built into `out` (inside `staging`): elevation tiles, the engine's
 * administrative areas and routing tiles, its configuration, the map background, street.json;
 * flushed to disk. Returns its manifest entry.
 */
async function buildStreetDataset(
  staging: string, out: string, osm: StreetInput[], elevation: StreetInput[],
  id: { key: string; engineVersion: string; builtAt: () => Date; sources: string[] }, progress: (m: string) => void,
): Promise<StreetEntry> {
  const info = (list: StreetInput[]) => list.map((i) => ({ source: i.source, sha1: i.sha1!, bytes: i.bytes ?? 0 }));
  mkdirSync(out, { recursive: true });
  let elevationTiles: string[] = [];
  if (elevation.length) {
    progress(`elevation: ${elevation.length} input(s)`);
    const { writeElevationTiles } = await import("./elevation.ts");
    const written = await writeElevationTiles(elevation.map((e) => e.file!), join(out, STREET_LAYOUT.elevation), progress);
    elevationTiles = written.map((w) => w.tile).sort();
    progress(`elevation: ${elevationTiles.length} tile(s) written (${elevationTiles.join(", ")})`);
  }
  const base = await defaultValhallaConfig();
  // the build reads its inputs from the staging folder; the stored configuration has no paths
  const buildConfig = join(staging, "build-config.json");
  writeFileSync(buildConfig, JSON.stringify(withDatasetPaths(base, out, { elevation: elevationTiles.length > 0, admin: true, logging: true })));
  const osmFiles = osm.map((o) => o.file!);
  const t0 = performance.now();
  progress(`building administrative areas from ${osmFiles.length} extract(s)`);
  await tool("valhalla_build_admins", ["-c", buildConfig, ...osmFiles], staging, progress);
  progress(`building routing tiles`);
  await tool("valhalla_build_tiles", ["-c", buildConfig, ...osmFiles], staging, progress);
  const { tiles, bbox } = describeTiles(join(out, STREET_LAYOUT.tiles));
  if (!tiles["2"] && !tiles["1"] && !tiles["0"]) throw new DataError(`no routable streets in ${id.sources.join(", ")}: the engine built no tiles`);
  progress(`tiles built in ${((performance.now() - t0) / 1000).toFixed(1)} s: ${Object.entries(tiles).map(([l, n]) => `level ${l}: ${n}`).join(", ")}`);
  writeFileDurable(join(out, STREET_LAYOUT.config), JSON.stringify(base, null, 1));
  // the map page's background: never a reason to refuse streets the engine could build
  try {
    const background = await writeStreetMap(osmFiles, join(out, STREET_LAYOUT.map), writeFileDurable);
    progress(`map background: ${background.ways} ways, ${background.points} points (${background.classes.join(", ")}), ${Math.round(background.bytes / 1024)} kB`);
  } catch (e) {
    progress(`map background left out: ${(e as Error).message}`);
  }
  // the basemap's places, water, parks and buildings: likewise never a reason to refuse
  try {
    const t1 = performance.now();
    const basemap = writeBaseMap(osmFiles, join(out, STREET_LAYOUT.base), writeFileDurable);
    progress(`basemap: ${Object.entries(basemap.features).map(([l, n]) => `${l} ${n}`).join(", ")}; ${basemap.points} points${basemap.minSize !== null ? ` (left out for size, those under ${Math.round(basemap.minSize)} m: ${Object.entries(basemap.dropped).filter(([, n]) => n > 0).map(([l, n]) => `${l} ${n}`).join(", ")})` : ""}, ${Math.round(basemap.bytes / 1024)} kB in ${((performance.now() - t1) / 1000).toFixed(1)} s`);
  } catch (e) {
    progress(`basemap left out: ${(e as Error).message}`);
  }
  // the geocoder's names and addresses: like the background, never a reason to refuse the streets
  try {
    const t1 = performance.now();
    const { osmPlaces } = await import("../geocode/osm.ts");
    const { buildGeocodeIndex } = await import("../geocode/build.ts");
    const { loadBoundaries } = await import("../places/boundaries.ts");
    const { bytes, report } = buildGeocodeIndex(osmPlaces(osmFiles, await loadBoundaries()));
    writeFileDurable(join(out, GEOCODE_FILE), bytes);
    progress(`geocoder index: ${report.docs} places (${Object.entries(report.by_layer).map(([l, n]) => `${l} ${n}`).join(", ")}), ${report.tokens} words, ${Math.round(report.bytes / 1024)} kB in ${((performance.now() - t1) / 1000).toFixed(1)} s`);
  } catch (e) {
    progress(`geocoder index left out: ${(e as Error).message}`);
  }
  const entry: StreetEntry = {
    sha1: id.key, path: `streets/${id.key}`, built_at: id.builtAt().toISOString(), engine_version: id.engineVersion,
    osm: info(osm), elevation: info(elevation), elevation_tiles: elevationTiles, tiles, bbox,
  };
  writeFileDurable(join(out, "street.json"), JSON.stringify(entry, null, 2));
  await fsyncTreeAsync(out);
  return entry;
}

/** Publish a built dataset: the folder renamed into streets/ first, then the manifest (the atomic switch). */
function publishStreets(dataDir: string, out: string, entry: StreetEntry, activate: boolean): void {
  const streetsDir = join(dataDir, "streets");
  mkdirSync(streetsDir, { recursive: true });
  const finalDir = join(dataDir, entry.path);
  if (existsSync(finalDir)) rmSync(finalDir, { recursive: true, force: true }); // debris: not in the manifest
  renameSync(out, finalDir);
  fsyncDir(streetsDir);
  const m = readManifest(dataDir);
  m.streets = [...(m.streets ?? []), entry];
  if (activate) m.active_streets = entry.sha1;
  writeManifest(dataDir, m);
}
