/**
 * frequencies.txt → frequencies: headways of trips that exist (after the checks), with valid
 * start/end times and a positive headway.
 */
import type { TableModule } from "../build.ts";

export const frequencies: TableModule = {
  name: "frequencies",
  file: { name: "frequencies.txt", required: false },
  columns: { required: ["trip_id", "start_time", "end_time", "headway_secs"], optional: ["exact_times"] },
  dependsOn: ["patterns"],
  async build(ctx) {
    const { conn } = ctx;
    await conn.run(`CREATE TABLE f0 AS SELECT f.rowid AS rid, f.*, gtfs_time(start_time) AS st, gtfs_time(end_time) AS et, gtfs_int(headway_secs) AS hw,
        gtfs_int(exact_times) AS ex, t.id AS trip_ref FROM raw_frequencies f LEFT JOIN trips t USING (trip_id)`);
    const fSkip = async (kind: string, where: string, msg: string) => {
      const n = await ctx.reportSkipped(kind, "frequencies.txt", `SELECT * FROM f0 WHERE ${where}`, msg);
      ctx.skip("frequencies.txt", n);
      if (n) await conn.run(`DELETE FROM f0 WHERE ${where}`);
    };
    await fSkip("unknown_trip", "trip_ref IS NULL", `'frequency of trip ' || coalesce(trip_id, '(empty)') || ': trip does not exist or was skipped'`);
    await fSkip("invalid_frequency", "st IS NULL OR et IS NULL OR hw IS NULL OR hw <= 0 OR et < st",
      `'trip ' || trip_id || ': invalid start_time/end_time/headway_secs ' || coalesce(start_time, '') || ' ' || coalesce(end_time, '') || ' ' || coalesce(headway_secs, '')`);
    await conn.run(`CREATE TABLE frequencies AS SELECT ${ctx.fvid}::INTEGER AS feed_version_id, trip_ref, trip_id, st::INTEGER AS start_time, et::INTEGER AS end_time,
        hw::INTEGER AS headway_secs, ex::INTEGER AS exact_times FROM f0 ORDER BY trip_ref, start_time`);
  },
};
