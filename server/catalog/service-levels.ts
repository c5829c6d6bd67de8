/**
 * Feed versions' service levels for the catalog's feed versions (feed-docs.ts): each version's
 * `service_levels.json`, written by the import (pipeline/schema/service-levels.ts says what they
 * are and how they are computed); for a version imported before that file existed, the same SQL
 * over its Parquet files, once per version SHA-1 (a reload computes only versions it has not seen).
 * No HTTP here.
 */
import { join } from "node:path";
import type { Manifest } from "../../pipeline/schema/manifest.ts";
import { canComputeServiceLevels, readServiceLevels, type ServiceLevel, serviceLevelFiles, serviceLevelSql, serviceLevelsFromRows } from "../../pipeline/schema/service-levels.ts";
import type { Database } from "./db.ts";

export type { ServiceLevel };

/**
 * Levels computed here (versions without the import's file), per data dir and version SHA-1:
 * versions never change. Holds only the versions of the last manifest read for that dir.
 */
const computed = new Map<string, Map<string, ServiceLevel[]>>();

/** Each version's service levels, by version id (oldest level first). */
export async function serviceLevelsByVersion(db: Database, dataDir: string, manifest: Manifest): Promise<Map<number, ServiceLevel[]>> {
  const out = new Map<number, ServiceLevel[]>();
  const known = computed.get(dataDir) ?? new Map<string, ServiceLevel[]>();
  const kept = new Map<string, ServiceLevel[]>();
  const missing: Manifest["versions"] = [];
  for (const v of manifest.versions) {
    const levels = readServiceLevels(join(dataDir, v.path)) ?? known.get(v.sha1);
    if (levels) {
      out.set(v.id, levels);
      if (known.has(v.sha1)) kept.set(v.sha1, levels);
    } else missing.push(v);
  }
  const files = serviceLevelFiles(missing.map((v) => join(dataDir, v.path)));
  let fresh = new Map<number, ServiceLevel[]>();
  let failed = false;
  if (missing.length && canComputeServiceLevels(files)) {
    try {
      fresh = serviceLevelsFromRows(await db.all({ sql: serviceLevelSql(files), values: [] }));
    } catch {
      // (a version folder of an older layout): its levels are served empty, and tried again at the next load
      failed = true;
    }
  }
  for (const v of missing) {
    const levels = fresh.get(v.id) ?? [];
    if (!failed) kept.set(v.sha1, levels);
    out.set(v.id, levels);
  }
  computed.set(dataDir, kept);
  return out;
}
