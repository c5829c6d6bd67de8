/**
 * stops.txt → stops: stops without an id, duplicated or with impossible coordinates skipped; a
 * parent_station that does not exist, or whose chain leads back to the stop, dropped (the stop kept).
 * adm0_* / adm1_* (the stop's administrative place) are left null for the places module
 * (places.ts); the boundaries it needs start loading here, so the read overlaps the modules between.
 */
import { loadBoundaries } from "../../places/boundaries.ts";
import type { TableModule } from "../build.ts";

export const stops: TableModule = {
  name: "stops",
  file: { name: "stops.txt", required: true },
  columns: {
    required: ["stop_id"],
    optional: [
      "stop_code", "stop_name", "tts_stop_name", "stop_desc", "stop_lat", "stop_lon", "zone_id", "stop_url", "location_type",
      "parent_station", "stop_timezone", "wheelchair_boarding", "level_id", "platform_code", "stop_access",
    ],
  },
  dependsOn: [],
  async build(ctx) {
    const { conn } = ctx;
    void loadBoundaries(); // read once per process, in the background (places.ts awaits it)
    await conn.run(`CREATE TABLE s0 AS SELECT rowid AS rid, *, TRY_CAST(stop_lat AS DOUBLE) AS lat, TRY_CAST(stop_lon AS DOUBLE) AS lon,
        coalesce(gtfs_int(location_type), 0) AS lt FROM raw_stops`);
    if (ctx.skip("stops.txt", await ctx.reportSkipped("missing_required_value", "stops.txt", `SELECT rid FROM s0 WHERE stop_id IS NULL`, `'stop_id is empty'`))) await conn.run(`DELETE FROM s0 WHERE stop_id IS NULL`);
    if (ctx.skip("stops.txt", await ctx.reportSkipped("duplicate_key", "stops.txt",
      `SELECT rid, stop_id FROM s0 QUALIFY row_number() OVER (PARTITION BY stop_id ORDER BY rid) > 1`, `'duplicate stop_id ' || stop_id`))) await conn.run(`DELETE FROM s0 WHERE rid IN (SELECT rid FROM s0 QUALIFY row_number() OVER (PARTITION BY stop_id ORDER BY rid) > 1)`);
    const badCoord = `SELECT rid, stop_id, stop_lat, stop_lon FROM s0 WHERE lt IN (0, 1, 2) AND (lat IS NULL OR lon IS NULL OR lat NOT BETWEEN -90 AND 90 OR lon NOT BETWEEN -180 AND 180 OR (lat = 0 AND lon = 0))`;
    if (ctx.skip("stops.txt", await ctx.reportSkipped("invalid_coordinates", "stops.txt", badCoord,
      `'stop ' || stop_id || ': invalid stop_lat/stop_lon (' || coalesce(stop_lat, '') || ',' || coalesce(stop_lon, '') || ')'`))) await conn.run(`DELETE FROM s0 WHERE rid IN (SELECT rid FROM (${badCoord}))`);
    await ctx.reportSkipped("unknown_parent_station", "stops.txt",
      `SELECT rid, stop_id, parent_station FROM s0 WHERE parent_station IS NOT NULL AND parent_station NOT IN (SELECT stop_id FROM s0)`,
      `'stop ' || stop_id || ': parent_station ' || parent_station || ' does not exist (kept without parent)'`);
    // a stop whose parent_station chain leads back to it (its own parent, stations parented to each
    // other): the links on the cycle are dropped, the stops kept. UNION walks each (stop, ancestor)
    // pair once, so the walk ends on cycles.
    const cyclic = `SELECT rid, stop_id, parent_station FROM s0 WHERE stop_id IN (
        WITH RECURSIVE up(start, cur) AS (
          SELECT stop_id, parent_station FROM s0 WHERE parent_station IS NOT NULL
          UNION SELECT up.start, s.parent_station FROM up JOIN s0 s ON s.stop_id = up.cur WHERE s.parent_station IS NOT NULL)
        SELECT start FROM up WHERE cur = start)`;
    if (await ctx.reportSkipped("circular_parent_station", "stops.txt", cyclic,
      `'stop ' || stop_id || ': parent_station ' || parent_station || CASE WHEN parent_station = stop_id THEN ' is the stop itself ('
        ELSE ' leads back to ' || stop_id || ' (a cycle; ' END || 'kept without parent)'`)) {
      await conn.run(`UPDATE s0 SET parent_station = NULL WHERE rid IN (SELECT rid FROM (${cyclic}))`);
    }
    const nStops = await ctx.scalar(`SELECT count(*) FROM s0`);
    const stBase = ctx.allocate("stops", nStops);
    await conn.run(`CREATE TABLE stops AS
      WITH s1 AS (SELECT (${stBase} + row_number() OVER (ORDER BY rid) - 1)::INTEGER AS id, * FROM s0)
      SELECT s1.id, ${ctx.fvid}::INTEGER AS feed_version_id, s1.stop_id, s1.stop_code, s1.stop_name, s1.tts_stop_name, s1.stop_desc,
        coalesce(s1.lat, p.lat) AS stop_lat, coalesce(s1.lon, p.lon) AS stop_lon, s1.zone_id, s1.stop_url, s1.lt::INTEGER AS location_type,
        CASE WHEN p.id IS NULL THEN NULL ELSE s1.parent_station END AS parent_station, p.id AS parent_ref,
        s1.stop_timezone, gtfs_int(s1.wheelchair_boarding) AS wheelchair_boarding, s1.level_id, s1.platform_code,
        gtfs_int(s1.stop_access) AS stop_access, NULL::VARCHAR AS onestop_id,
        NULL::VARCHAR AS adm0_name, NULL::VARCHAR AS adm0_iso, NULL::VARCHAR AS adm1_name, NULL::VARCHAR AS adm1_iso
      FROM s1 LEFT JOIN s1 p ON p.stop_id = s1.parent_station ORDER BY s1.id`);
    ctx.step(`stops: ${nStops}`);
  },
};
