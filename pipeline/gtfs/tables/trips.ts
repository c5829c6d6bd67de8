/**
 * trips.txt → t1, the candidate trips (tix: rank in file order): trips without an id, duplicated,
 * of a route or service that does not exist skipped. Trip ids are allocated here for every
 * candidate (id = tripBase + tix - 1), so stop_times get their trip_ref by arithmetic instead of a
 * join; trips skipped later leave gaps, which is harmless. The final `trips` table: patterns.ts.
 */
import type { TableModule } from "../build.ts";

export const trips: TableModule = {
  name: "trips",
  file: { name: "trips.txt", required: true },
  columns: {
    required: ["route_id", "service_id", "trip_id"],
    optional: ["trip_headsign", "trip_short_name", "direction_id", "block_id", "shape_id", "wheelchair_accessible", "bikes_allowed", "cars_allowed"],
  },
  dependsOn: ["routes", "calendars"],
  async build(ctx) {
    const { conn } = ctx;
    // the raw table itself, with its rowid (the line) as rid: no copy of every string
    await conn.run(`ALTER TABLE raw_trips RENAME TO t0; ALTER TABLE t0 ADD COLUMN rid BIGINT; UPDATE t0 SET rid = rowid`);
    if (ctx.skip("trips.txt", await ctx.reportSkipped("missing_required_value", "trips.txt", `SELECT rid FROM t0 WHERE trip_id IS NULL`, `'trip_id is empty'`))) await conn.run(`DELETE FROM t0 WHERE trip_id IS NULL`);
    if (ctx.skip("trips.txt", await ctx.reportSkipped("duplicate_key", "trips.txt",
      `SELECT rid, trip_id FROM t0 QUALIFY row_number() OVER (PARTITION BY trip_id ORDER BY rid) > 1`, `'duplicate trip_id ' || trip_id`))) await conn.run(`DELETE FROM t0 WHERE rid IN (SELECT rid FROM t0 QUALIFY row_number() OVER (PARTITION BY trip_id ORDER BY rid) > 1)`);
    const unkRoute = `SELECT rid, trip_id, route_id FROM t0 WHERE route_id IS NULL OR route_id NOT IN (SELECT route_id FROM routes)`;
    if (ctx.skip("trips.txt", await ctx.reportSkipped("unknown_route", "trips.txt", unkRoute, `'trip ' || trip_id || ': route_id ' || coalesce(route_id, '(empty)') || ' does not exist'`))) await conn.run(`DELETE FROM t0 WHERE rid IN (SELECT rid FROM (${unkRoute}))`);
    const unkSvc = `SELECT rid, trip_id, service_id FROM t0 WHERE service_id IS NULL OR service_id NOT IN (SELECT service_id FROM calendars)`;
    if (ctx.skip("trips.txt", await ctx.reportSkipped("unknown_service", "trips.txt", unkSvc, `'trip ' || trip_id || ': service_id ' || coalesce(service_id, '(empty)') || ' is in neither calendar.txt nor calendar_dates.txt'`))) await conn.run(`DELETE FROM t0 WHERE rid IN (SELECT rid FROM (${unkSvc}))`);
    // tix = the trip's rank in file order; when no row was deleted (rid runs 0 .. n - 1, t0 is in rid
    // order) that is rid + 1, with no window, no sort and no copy of the table (a column added)
    const dense = await ctx.scalar(`SELECT (count(*) = 0 OR (min(rid) = 0 AND max(rid) = count(*) - 1))::INTEGER FROM t0`);
    await conn.run(dense
      ? `ALTER TABLE t0 RENAME TO t1; ALTER TABLE t1 ADD COLUMN tix INTEGER; UPDATE t1 SET tix = (rid + 1)::INTEGER`
      : `CREATE TABLE t1 AS SELECT row_number() OVER (ORDER BY rid)::INTEGER AS tix, * FROM t0 ORDER BY rid`);
    ctx.step(`trips: ${await ctx.scalar("SELECT count(*) FROM t1")}`);
    ctx.facts.tripBase = ctx.allocate("trips", await ctx.scalar(`SELECT count(*) FROM t1`));
  },
};
