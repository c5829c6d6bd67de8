/**
 * route_stops and agency_stops (derived): which stops each route and each agency serves, for the
 * catalog's served_by_* filters.
 */
import type { TableModule } from "../build.ts";

export const links: TableModule = {
  name: "links",
  file: null,
  columns: { required: [], optional: [] },
  dependsOn: ["patterns", "routes"],
  async build(ctx) {
    const { conn } = ctx;
    await conn.run(`CREATE TABLE route_stops AS
      SELECT DISTINCT ${ctx.fvid}::INTEGER AS feed_version_id, t.route_ref, u.stop_ref, r.agency_ref, r.route_type, NULL::VARCHAR AS route_onestop_id
      FROM (SELECT DISTINCT route_ref, stop_pattern_id FROM trips) t JOIN stop_patterns p USING (stop_pattern_id),
           unnest(p.stop_refs) AS u(stop_ref), routes r WHERE r.id = t.route_ref ORDER BY u.stop_ref, t.route_ref`);
    await conn.run(`CREATE TABLE agency_stops AS SELECT DISTINCT ${ctx.fvid}::INTEGER AS feed_version_id, agency_ref, stop_ref, NULL::VARCHAR AS agency_onestop_id
      FROM route_stops ORDER BY stop_ref, agency_ref`);
    ctx.step("links");
  },
};
