/**
 * patterns (derived): the final trip ids, stop_patterns (a trip's stop pattern is its stop
 * sequence; GTFS-Flex stop_times, which have no stop, are not in it), shapes (shapes.txt's points plus
 * one generated shape per stop pattern used by trips without a shape, unless the pattern has no stop:
 * a trip of flex stop_times only has no shape) and trips (the candidate trips that remain, with their pattern, first departure,
 * last arrival and stop count).
 */
import type { TableModule } from "../build.ts";
import { reportShapesNotReachingStops } from "./shape-coverage.ts";

export const patterns: TableModule = {
  name: "patterns",
  file: null,
  columns: { required: [], optional: [] },
  dependsOn: ["trip_check", "shapes", "stops", "routes", "calendars"],
  async build(ctx) {
    const { conn } = ctx;
    const nTrips = await ctx.scalar(`SELECT count(*) FROM t1`);
    await conn.run(`CREATE TABLE trip_ids AS SELECT tix, (${ctx.fact("tripBase")} + tix - 1)::INTEGER AS id FROM t1`);
    // A trip's stop pattern is its stop sequence. Building a list per trip (an ordered aggregate over
    // every stop_time) costs a sort per group; instead trips are grouped by a 128-bit digest of their
    // (position, stop) pairs (two independent 64-bit hashes, plus the count; trip-check.ts) and the
    // list is built once per pattern, from its first trip.
    await conn.run(`CREATE TABLE pat_key AS SELECT n, h1, h2, min(tix) AS rep, row_number() OVER (ORDER BY min(tix))::INTEGER AS stop_pattern_id,
        count(*)::INTEGER AS trip_count FROM trip_check GROUP BY n, h1, h2`);
    await conn.run(`CREATE TABLE trip_pat AS SELECT c.tix, c.first_dep, c.last_arr, c.n, k.stop_pattern_id FROM trip_check c JOIN pat_key k USING (n, h1, h2)`);
    await conn.run(`CREATE TABLE patterns AS SELECT k.stop_pattern_id, k.trip_count, coalesce(list(st.stop_ref ORDER BY st.stop_sequence) FILTER (WHERE st.stop_ref IS NOT NULL), []) AS pat
      FROM pat_key k JOIN stop_times st ON st.trip_ref = ${ctx.fact("tripBase") - 1} + k.rep GROUP BY k.stop_pattern_id, k.trip_count`);
    await conn.run(`DROP TABLE pat_key`);
    await reportShapesNotReachingStops(ctx);
    await conn.run(`CREATE TABLE stop_patterns AS SELECT ${ctx.fvid}::INTEGER AS feed_version_id, stop_pattern_id, pat AS stop_refs, trip_count FROM patterns ORDER BY stop_pattern_id`);
    // generated shapes: one per stop pattern used by trips without a shape
    await conn.run(`CREATE TABLE gen_pat AS SELECT DISTINCT p.stop_pattern_id, p.pat FROM t1 JOIN trip_pat tp USING (tix) JOIN patterns p USING (stop_pattern_id) WHERE t1.shape_id IS NULL AND len(p.pat) > 0`);
    ctx.derived.generated_shapes = await ctx.scalar(`SELECT count(*) FROM gen_pat`);
    await conn.run(`CREATE TABLE shapes AS
      SELECT ${ctx.fvid}::INTEGER AS feed_version_id, shape_id, seq::INTEGER AS shape_pt_sequence, lat AS shape_pt_lat, lon AS shape_pt_lon,
             dist AS shape_dist_traveled, false AS generated FROM sh0
      UNION ALL
      SELECT ${ctx.fvid}::INTEGER, 'generated-' || stop_pattern_id, (k - 1)::INTEGER, lat, lon,
             coalesce(sum(hop) OVER (PARTITION BY stop_pattern_id ORDER BY k ROWS UNBOUNDED PRECEDING), 0), true
      FROM (SELECT *, coalesce(hav_m(lag(lat) OVER w, lag(lon) OVER w, lat, lon), 0) AS hop FROM (
              SELECT g.stop_pattern_id, u.k, s.stop_lat AS lat, s.stop_lon AS lon
              FROM gen_pat g, unnest(g.pat) WITH ORDINALITY AS u(sref, k) JOIN stops s ON s.id = u.sref) WINDOW w AS (PARTITION BY stop_pattern_id ORDER BY k))
      ORDER BY shape_id, shape_pt_sequence`);
    await conn.run(`CREATE TABLE trips AS
      SELECT i.id, ${ctx.fvid}::INTEGER AS feed_version_id, t.trip_id, t.route_id, r.id AS route_ref, t.service_id, c.id AS calendar_ref,
        t.trip_headsign, t.trip_short_name, gtfs_int(t.direction_id) AS direction_id, t.block_id,
        coalesce(t.shape_id, CASE WHEN len(p.pat) > 0 THEN 'generated-' || p.stop_pattern_id END) AS shape_id,
        gtfs_int(t.wheelchair_accessible) AS wheelchair_accessible, gtfs_int(t.bikes_allowed) AS bikes_allowed, gtfs_int(t.cars_allowed) AS cars_allowed,
        p.stop_pattern_id, tp.first_dep AS first_departure, tp.last_arr AS last_arrival, tp.n AS stop_count
      FROM t1 t JOIN trip_ids i USING (tix) JOIN trip_pat tp USING (tix) JOIN patterns p USING (stop_pattern_id)
        JOIN routes r ON r.route_id = t.route_id JOIN calendars c ON c.service_id = t.service_id
      ORDER BY i.id`);
    ctx.step(`trips: ${nTrips}, stop_times: ${await ctx.scalar("SELECT count(*) FROM stop_times")}`);
  },
};
