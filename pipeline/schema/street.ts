/**
 * The street dataset layout: what a street dataset folder (`<data>/streets/<sha1>/`, listed in the
 * manifest's `streets`) holds, and the engine configuration pointed into it. The pipeline builds
 * it (pipeline/street/import-streets.ts with the tools of pipeline/street/valhalla.ts); the
 * server's embedded engine (server/street/embedded.ts) and the pipeline's footpaths load the
 * stored configuration through datasetEngineConfig. Part of the dataset contract (pipeline/schema/):
 * imports nothing but node's built-ins and the contract.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { StreetEntry } from "./manifest.ts";

/** Valhalla's configuration (JSON), as valhalla_build_config writes it. */
export type ValhallaConfig = Record<string, any>;

/**
 * A place farther than this (metres) from every walkable way is off a street dataset's network:
 * the footpaths measured at import (pipeline/timetable/street-footpaths.ts) and the planner's walks
 * (server/street/paths.ts) snap with the same cut-off, so a stop is on the streets for both or for neither.
 */
export const STREET_SNAP_M = 300;

/** Where each part of a street dataset lives, relative to its folder. */
export const STREET_LAYOUT = {
  /** the routing graph tiles (valhalla_build_tiles), one folder per hierarchy level */
  tiles: "tiles",
  /** administrative areas (valhalla_build_admins) */
  admin: "admin.sqlite",
  /** skadi elevation tiles (N43/N43E007.hgt), when the dataset was built with elevation */
  elevation: "elevation",
  /** the engine configuration, its paths relative to the folder (withDatasetPaths makes them absolute) */
  config: "valhalla.json",
  /**
   * the map page's street background (pipeline/street/street-map.ts): the extracts' roads as a
   * GeoJSON FeatureCollection of LineStrings with a `class` property (major, minor, path) and a
   * `name` where the way has one, gzip.
   * Datasets built before STREET_BUILD_FORMAT 2 have none (the map then draws no background).
   */
  map: "map-streets.geojson.gz",
  /**
   * the basemap beside the roads (pipeline/street/base-map.ts): places (Points), water, parks and
   * buildings (Polygons, MultiPolygons), waterways (LineStrings) as a GeoJSON FeatureCollection whose
   * features name their tile layer in a `layer` property, with `class`, `name`, `rank` (places), gzip.
   * Datasets built before it have none (the tile layers are then empty).
   */
  base: "map-base.geojson.gz",
} as const;

/**
 * A configuration whose paths point into `dir`: `base` is the stored one (valhalla.json), whose
 * paths are relative. Logging off: the engine logs one line per search otherwise.
 */
export function withDatasetPaths(base: ValhallaConfig, dir: string, opts: { elevation: boolean; admin: boolean; logging?: boolean }): ValhallaConfig {
  const c = structuredClone(base);
  c.mjolnir.tile_dir = join(dir, STREET_LAYOUT.tiles);
  // no tar extract: tiles are read from the folder (an extract that does not exist is skipped)
  c.mjolnir.tile_extract = join(dir, "tiles.tar");
  c.mjolnir.traffic_extract = join(dir, "traffic.tar");
  c.mjolnir.admin = opts.admin ? join(dir, STREET_LAYOUT.admin) : join(dir, "no-admin.sqlite");
  c.mjolnir.timezone = join(dir, "no-timezones.sqlite");
  c.mjolnir.landmarks = join(dir, "no-landmarks.sqlite");
  c.mjolnir.transit_dir = join(dir, "no-transit");
  c.mjolnir.transit_feeds_dir = join(dir, "no-transit-feeds");
  c.additional_data.elevation = opts.elevation ? join(dir, STREET_LAYOUT.elevation) + "/" : join(dir, "no-elevation") + "/";
  c.mjolnir.logging = { ...c.mjolnir.logging, type: opts.logging ? "std_out" : "", color: false };
  for (const part of ["loki", "thor", "odin", "meili"]) {
    if (c[part]?.logging) c[part].logging = { ...c[part].logging, type: opts.logging ? "std_out" : "" };
  }
  return c;
}

/**
 * The engine configuration of a street dataset of `dataDir` (its stored valhalla.json with paths
 * into its folder): elevation where the dataset has elevation tiles (unless `elevation: false`),
 * administrative areas where it has them. The server (its service limits on top) and the
 * pipeline (footpaths) open the engine with it (shared/street-engine.ts).
 */
export function datasetEngineConfig(dataDir: string, entry: StreetEntry, opts: { elevation?: boolean } = {}): ValhallaConfig {
  const dir = join(dataDir, entry.path);
  const stored = JSON.parse(readFileSync(join(dir, STREET_LAYOUT.config), "utf8")) as ValhallaConfig;
  return withDatasetPaths(stored, dir, { elevation: (opts.elevation ?? true) && entry.elevation_tiles.length > 0, admin: existsSync(join(dir, STREET_LAYOUT.admin)) });
}
