/**
 * The shapes of the feed endpoints' documents (feeds, feed versions, agencies, operators) as a
 * loaded dataset holds them (CatalogData.directory): feed-docs.ts builds them at load, feeds.ts
 * queries them. Types only (and the empty directory), so data.ts can hold one without importing
 * the builder.
 */
import type { License } from "../../pipeline/schema/manifest.ts";
import type { ValidationSummary } from "../../pipeline/schema/validation.ts";

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
/** GeoJSON geometry (Polygon of a convex hull, or a Point/LineString for one or two distinct stops) */
export type Geometry = { type: string; coordinates: Json } | null;

export interface Place {
  city_name: string | null;
  adm0_name: string | null;
  adm1_name: string | null;
  adm0_iso: string | null;
  adm1_iso: string | null;
  /** share of the agency's stops in this area */
  rank: number;
}

export interface VersionDoc {
  id: number;
  sha1: string;
  feedId: number;
  feedOnestopId: string;
  active: boolean;
  fetchedAt: string;
  earliest: string | null;
  latest: string | null;
  geometry: Geometry;
  /** [minLon, minLat, maxLon, maxLat] of its stops, or null */
  box: [number, number, number, number] | null;
  /** every field but geometry */
  fields: Record<string, Json>;
  validation: ValidationSummary | null;
}

/**
 * A GTFS-Realtime feed's integer id: this plus its static feed's id (static feeds' ids are the
 * manifest's, far below it), so that it is stable and never a static feed's.
 */
export const REALTIME_FEED_ID_BASE = 1_000_000_000;
/** A GTFS-Realtime feed's Onestop ID: its static feed's with this suffix (as Transitland's `BA~rt`). */
export const REALTIME_FEED_SUFFIX = "~rt";

export interface FeedDoc {
  id: number;
  onestopId: string;
  /** gtfs: a static feed of the manifest; gtfs-rt: the realtime feed of a static feed (its realtime status file) */
  spec: "gtfs" | "gtfs-rt";
  /** the feeds file's name and tags */
  name: string | null;
  tags: Record<string, string> | null;
  /** gtfs-rt: the static feed's Onestop ID; gtfs: the realtime feed's, or null */
  associated: string | null;
  /** versions, newest first */
  versions: VersionDoc[];
  activeVersion: VersionDoc | null;
  urls: Record<string, Json>;
  fetchError: boolean;
  license: License;
  fields: Record<string, Json>;
}

export interface AgencyDoc {
  id: number;
  fv: number;
  agencyId: string;
  agencyName: string;
  onestopId: string | null;
  stops: Int32Array;
  places: Place[];
  geometry: Geometry;
  /** agency.txt fields and the others (without operator, feed_version, places, geometry, alerts, routes) */
  fields: Record<string, Json>;
}

export interface OperatorDoc {
  /** the smallest id of its agencies (stable while that agency is in the dataset) */
  id: number;
  onestopId: string;
  name: string;
  website: string | null;
  agencies: AgencyDoc[];
  feeds: FeedDoc[];
  /** convex hull of its agencies' stops */
  geometry: Geometry;
}

export interface FeedDirectory {
  feeds: FeedDoc[];
  feedById: Map<number, FeedDoc>;
  feedByOnestop: Map<string, FeedDoc>;
  versions: VersionDoc[];
  versionById: Map<number, VersionDoc>;
  agencies: AgencyDoc[];
  agencyById: Map<number, AgencyDoc>;
  /** operators of the active versions by Onestop ID, in id order */
  operators: OperatorDoc[];
  operatorByOnestop: Map<string, OperatorDoc>;
  /** agency id → its route ids, ascending */
  routesByAgency: Map<number, number[]>;
}

export const emptyFeedDirectory = (): FeedDirectory => ({
  feeds: [], feedById: new Map(), feedByOnestop: new Map(), versions: [], versionById: new Map(), agencies: [], agencyById: new Map(), operators: [], operatorByOnestop: new Map(), routesByAgency: new Map(),
});
