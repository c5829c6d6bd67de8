/**
 * routes.txt → routes: routes without an id, duplicated, of no GTFS route type or of an agency
 * that does not exist skipped; agency_id may be omitted when the feed has one agency.
 */
import type { TableModule } from "../build.ts";

export const routes: TableModule = {
  name: "routes",
  file: { name: "routes.txt", required: true },
  columns: {
    required: ["route_id", "route_type"],
    optional: [
      "agency_id", "route_short_name", "route_long_name", "route_desc", "route_url", "route_color", "route_text_color",
      "route_sort_order", "continuous_pickup", "continuous_drop_off", "network_id",
    ],
  },
  dependsOn: ["agency"],
  async build(ctx) {
    const { conn } = ctx;
    await conn.run(`CREATE TABLE r0 AS SELECT rowid AS rid, *, gtfs_int(route_type) AS rt FROM raw_routes`);
    if (ctx.skip("routes.txt", await ctx.reportSkipped("missing_required_value", "routes.txt", `SELECT rid FROM r0 WHERE route_id IS NULL`, `'route_id is empty'`))) await conn.run(`DELETE FROM r0 WHERE route_id IS NULL`);
    if (ctx.skip("routes.txt", await ctx.reportSkipped("duplicate_key", "routes.txt",
      `SELECT rid, route_id FROM r0 QUALIFY row_number() OVER (PARTITION BY route_id ORDER BY rid) > 1`, `'duplicate route_id ' || route_id`))) await conn.run(`DELETE FROM r0 WHERE rid IN (SELECT rid FROM r0 QUALIFY row_number() OVER (PARTITION BY route_id ORDER BY rid) > 1)`);
    if (ctx.skip("routes.txt", await ctx.reportSkipped("invalid_route_type", "routes.txt", `SELECT rid, route_id, route_type FROM r0 WHERE rt IS NULL OR rt < 0`,
      `'route ' || route_id || ': route_type ' || coalesce(route_type, '(empty)') || ' is not a GTFS route type'`))) await conn.run(`DELETE FROM r0 WHERE rt IS NULL OR rt < 0`);
    // agency_id may be omitted when the feed has one agency
    const nAg = await ctx.scalar(`SELECT count(*) FROM agencies`);
    const single = nAg === 1 ? `(SELECT agency_id FROM agencies LIMIT 1)` : `NULL`;
    await conn.run(`ALTER TABLE r0 ADD COLUMN ag VARCHAR; UPDATE r0 SET ag = coalesce(agency_id, ${single}, '')`);
    // a feed whose only agency has no agency_id: routes naming one still belong to it
    if (nAg === 1 && (await ctx.scalar(`SELECT count(*) FROM agencies WHERE agency_id = ''`)) === 1) await conn.run(`UPDATE r0 SET ag = ''`);
    const unkAg = `SELECT rid, route_id, ag FROM r0 WHERE ag NOT IN (SELECT agency_id FROM agencies)`;
    if (ctx.skip("routes.txt", await ctx.reportSkipped("unknown_agency", "routes.txt", unkAg, `'route ' || route_id || ': agency_id ' || ag || ' does not exist'`))) await conn.run(`DELETE FROM r0 WHERE rid IN (SELECT rid FROM (${unkAg}))`);
    const nRoutes = await ctx.scalar(`SELECT count(*) FROM r0`);
    const rtBase = ctx.allocate("routes", nRoutes);
    await conn.run(`CREATE TABLE routes AS SELECT (${rtBase} + row_number() OVER (ORDER BY r0.rid) - 1)::INTEGER AS id, ${ctx.fvid}::INTEGER AS feed_version_id,
        r0.route_id, r0.ag AS agency_id, a.id AS agency_ref, route_short_name, route_long_name, route_desc, rt::INTEGER AS route_type, route_url,
        upper(route_color) AS route_color, upper(route_text_color) AS route_text_color, gtfs_int(route_sort_order) AS route_sort_order,
        gtfs_int(continuous_pickup) AS continuous_pickup, gtfs_int(continuous_drop_off) AS continuous_drop_off, network_id, NULL::VARCHAR AS onestop_id
      FROM r0 JOIN agencies a ON a.agency_id = r0.ag ORDER BY r0.rid`);
    ctx.step(`routes: ${nRoutes}`);
  },
};
