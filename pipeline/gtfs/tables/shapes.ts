/**
 * shapes.txt → sh0 (the valid shape points, by rid) and shape_ids. The file is read and checked
 * on a connection of its own while the other files, the trips and the stop_times are (an import
 * lane: loadRawTable, then checkShapes); this module joins it: its warnings and skipped rows are taken, and trips naming
 * a shape that does not exist lose it (a shape is generated for them from their stops, patterns.ts).
 */
import type { DuckDBConnection } from "@duckdb/node-api";
import { Issues } from "../../report.ts";
import { reportRows, type ShapesBuilt, type TableModule } from "../build.ts";
import type { RawTable } from "../load.ts";


export const shapes: TableModule = {
  name: "shapes",
  file: { name: "shapes.txt", required: false },
  columns: { required: ["shape_id", "shape_pt_lat", "shape_pt_lon", "shape_pt_sequence"], optional: ["shape_dist_traveled"] },
  dependsOn: ["trips"],
  async build(ctx) {
    // the shapes, and trips naming a shape that does not exist (their shape is generated)
    const sh = await ctx.shapes.result();
    ctx.issues.absorb(sh.issues);
    ctx.skip("shapes.txt", sh.skipped);
    await ctx.reportSkipped("unknown_shape", "trips.txt", `SELECT rid, trip_id, shape_id FROM t1 WHERE shape_id IS NOT NULL AND shape_id NOT IN (SELECT shape_id FROM shape_ids)`,
      `'trip ' || trip_id || ': shape_id ' || shape_id || ' does not exist (a shape is generated from the stops)'`);
    await ctx.conn.run(`UPDATE t1 SET shape_id = NULL WHERE shape_id IS NOT NULL AND shape_id NOT IN (SELECT shape_id FROM shape_ids)`);
  },
};

/**
 * The shapes lane's second half, on `conn` (the connection of its own that read shapes.txt into
 * raw_shapes with loadRawTable, whose result loadRawTables takes at the file's place in the
 * reading order): sh0 and shape_ids, with warnings of their own. No macros (the main connection
 * may be creating them meanwhile).
 */
export async function checkShapes(conn: DuckDBConnection, raw: RawTable): Promise<ShapesBuilt> {
  const issues = new Issues();
  const report = (kind: string, fromSql: string, messageSql: string) => reportRows(conn, raw, issues, kind, fromSql, messageSql);
  await conn.run(`CREATE TABLE sh0 AS SELECT rowid AS rid, shape_id, TRY_CAST(shape_pt_sequence AS INTEGER) AS seq, TRY_CAST(shape_pt_lat AS DOUBLE) AS lat,
      TRY_CAST(shape_pt_lon AS DOUBLE) AS lon, TRY_CAST(shape_dist_traveled AS DOUBLE) AS dist, shape_pt_sequence FROM raw_shapes`);
  const badSh = `SELECT rid, shape_id, shape_pt_sequence FROM sh0 WHERE shape_id IS NULL OR seq IS NULL OR seq < 0 OR lat IS NULL OR lon IS NULL OR lat NOT BETWEEN -90 AND 90 OR lon NOT BETWEEN -180 AND 180`;
  const nBad = await report("invalid_shape_point", badSh,
    `'shape ' || coalesce(shape_id, '(empty)') || ' point ' || coalesce(shape_pt_sequence, '(empty)') || ': invalid sequence or coordinates'`);
  if (nBad) await conn.run(`DELETE FROM sh0 WHERE rid IN (SELECT rid FROM (${badSh}))`);
  const nDup = await report("duplicate_key",
    `SELECT rid, shape_id, seq FROM sh0 QUALIFY row_number() OVER (PARTITION BY shape_id, seq ORDER BY rid) > 1`, `'duplicate shape_id/shape_pt_sequence ' || shape_id || ' ' || seq`);
  if (nDup) await conn.run(`DELETE FROM sh0 WHERE rid IN (SELECT rid FROM sh0 QUALIFY row_number() OVER (PARTITION BY shape_id, seq ORDER BY rid) > 1)`);
  await conn.run(`CREATE TABLE shape_ids AS SELECT DISTINCT shape_id FROM sh0`);
  return { skipped: nBad + nDup, issues };
}
