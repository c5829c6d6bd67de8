/**
 * Great-circle geometry, once for the whole project: the earth radius, the haversine distance in
 * JavaScript, and the same formula as a DuckDB SQL expression generated from the same constant
 * (the pipeline's hav_m macro, pipeline/gtfs/build.ts, and the catalog's radius filter,
 * server/catalog/geo.ts). Both forms run the same operations in the same order, so a distance
 * computed in SQL and one computed here agree.
 */

/** Mean earth radius (IUGG), metres. */
export const EARTH_RADIUS_M = 6_371_008.8;

/** Great-circle distance in metres between two points (haversine formula). */
export function haversineM(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const r = Math.PI / 180;
  const a = Math.sin(((lat2 - lat1) * r) / 2) ** 2 + Math.cos(lat1 * r) * Math.cos(lat2 * r) * Math.sin(((lon2 - lon1) * r) / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(a)));
}

/**
 * haversineM as a DuckDB SQL expression over four SQL expressions (columns, parameters, macro
 * arguments), in metres. NULL in, NULL out (as NaN in, NaN out in haversineM): the cap at 1 is a
 * CASE, since DuckDB's least() skips a NULL argument (least(1, NULL) is 1, half the earth's girth).
 */
export function haversineSql(lat1: string, lon1: string, lat2: string, lon2: string): string {
  const root = `sqrt(pow(sin(radians(${lat2} - ${lat1}) / 2), 2) + cos(radians(${lat1})) * cos(radians(${lat2})) * pow(sin(radians(${lon2} - ${lon1}) / 2), 2))`;
  return `2 * ${EARTH_RADIUS_M} * asin(CASE WHEN ${root} > 1 THEN 1 ELSE ${root} END)`;
}
