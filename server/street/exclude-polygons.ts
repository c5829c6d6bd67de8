/**
 * exclude_polygons in the spec's FeatureCollection form becomes the ring form before the engine
 * sees it: Valhalla 3.6.1 answers the FeatureCollection with warning 204 and routes through the
 * polygon as if it were not there. `properties.levels` (exclude only on those building levels) has
 * no ring equivalent in 3.6.1, so such a polygon is excluded on every level, and the answer says so.
 */
import type { Warning } from "./relay.ts";

/** Our own warning codes start at 900 (Valhalla's are below 500). */
export const LEVELS_IGNORED_WARNING: Warning = {
  code: 900,
  text: "exclude_polygons: properties.levels is not supported by this engine (Valhalla 3.6.1); the polygon is excluded on every level",
};

type Ring = [number, number][];

/**
 * The rings of a validated FeatureCollection, or null when `value` is not one (already rings, or
 * absent): validation (schemas/base.ts) has checked the shape.
 */
export function polygonsToRings(value: unknown): { rings: Ring[]; warnings: Warning[] } | null {
  if (!value || typeof value !== "object" || Array.isArray(value)) return null;
  const fc = value as { type?: unknown; features?: { geometry: { coordinates: Ring[] }; properties?: { levels?: number[] } | null }[] };
  if (fc.type !== "FeatureCollection" || !Array.isArray(fc.features)) return null;
  const rings = fc.features.map((f) => f.geometry.coordinates[0]!);
  const withLevels = fc.features.some((f) => Array.isArray(f.properties?.levels) && f.properties.levels.length > 0);
  return { rings, warnings: withLevels ? [LEVELS_IGNORED_WARNING] : [] };
}
