/** Great-circle geometry shared by the features (catalog, planner, street gateway). */

/** Mean earth radius (IUGG), metres. */
export const EARTH_RADIUS_M = 6_371_008.8;

/** Great-circle distance in metres between two points (haversine formula). */
export function haversineM(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const r = Math.PI / 180;
  const a = Math.sin(((lat2 - lat1) * r) / 2) ** 2 + Math.cos(lat1 * r) * Math.cos(lat2 * r) * Math.sin(((lon2 - lon1) * r) / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(a)));
}
