/**
 * transfers.txt → transfers: transfers between stops that exist; an unparsable min_transfer_time is
 * reported and left out (the transfer kept).
 */
import type { TableModule } from "../build.ts";

export const transfers: TableModule = {
  name: "transfers",
  file: { name: "transfers.txt", required: false },
  columns: {
    required: [],
    optional: ["from_stop_id", "to_stop_id", "from_route_id", "to_route_id", "from_trip_id", "to_trip_id", "transfer_type", "min_transfer_time"],
  },
  dependsOn: ["stops"],
  async build(ctx) {
    const { conn } = ctx;
    await conn.run(`CREATE TABLE x0 AS SELECT x.rowid AS rid, x.*, fs.id AS from_ref, ts.id AS to_ref FROM raw_transfers x
        LEFT JOIN stops fs ON fs.stop_id = x.from_stop_id LEFT JOIN stops ts ON ts.stop_id = x.to_stop_id`);
    const unkX = `SELECT * FROM x0 WHERE (from_stop_id IS NOT NULL AND from_ref IS NULL) OR (to_stop_id IS NOT NULL AND to_ref IS NULL)`;
    if (ctx.skip("transfers.txt", await ctx.reportSkipped("unknown_stop", "transfers.txt", unkX,
      `'transfer ' || coalesce(from_stop_id, '') || ' -> ' || coalesce(to_stop_id, '') || ': stop does not exist'`))) await conn.run(`DELETE FROM x0 WHERE rid IN (SELECT rid FROM (${unkX}))`);
    // an unparsable (or negative) min_transfer_time is reported and left out; the transfer is kept
    const mtt = `CASE WHEN gtfs_int(min_transfer_time) >= 0 THEN gtfs_int(min_transfer_time) END`;
    await ctx.reportSkipped("invalid_min_transfer_time", "transfers.txt", `SELECT * FROM x0 WHERE min_transfer_time IS NOT NULL AND ${mtt} IS NULL`,
      `'transfer ' || coalesce(from_stop_id, '') || ' -> ' || coalesce(to_stop_id, '') || ': min_transfer_time ' || min_transfer_time || ' is not a non-negative integer (kept without it)'`);
    await conn.run(`CREATE TABLE transfers AS SELECT ${ctx.fvid}::INTEGER AS feed_version_id, from_stop_id, to_stop_id, from_ref AS from_stop_ref, to_ref AS to_stop_ref,
        from_route_id, to_route_id, from_trip_id, to_trip_id, coalesce(gtfs_int(transfer_type), 0) AS transfer_type, ${mtt} AS min_transfer_time
      FROM x0 ORDER BY rid`);
  },
};
