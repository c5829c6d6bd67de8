/**
 * fare_rules.txt → fare_rules (GTFS Fares v1): rules of a fare that does not exist (or was skipped)
 * or of a route that does not exist skipped. Zone ids are kept as written (stops.zone_id).
 */
import type { TableModule } from "../build.ts";
import { emptyWhenAbsent, skipRows } from "./fare-checks.ts";

const FILE = "fare_rules.txt";

export const fareRules: TableModule = {
  name: "fare_rules",
  file: { name: FILE, required: false },
  columns: { required: ["fare_id"], optional: ["route_id", "origin_id", "destination_id", "contains_id"] },
  dependsOn: ["fare_attributes", "routes"],
  async build(ctx) {
    if (await emptyWhenAbsent(ctx, FILE, "fare_rules")) return;
    const { conn } = ctx;
    await conn.run(`CREATE TABLE fr0 AS SELECT rowid AS rid, * FROM raw_fare_rules`);
    await skipRows(ctx, FILE, "fr0", "unknown_fare", `fare_id IS NULL OR fare_id NOT IN (SELECT fare_id FROM fare_attributes)`,
      `'fare_id ' || coalesce(fare_id, '(empty)') || ' is not in fare_attributes.txt (or was skipped)'`);
    await skipRows(ctx, FILE, "fr0", "unknown_route", `route_id IS NOT NULL AND route_id NOT IN (SELECT route_id FROM routes)`,
      `'fare ' || fare_id || ': route_id ' || route_id || ' does not exist'`);
    await conn.run(`CREATE TABLE fare_rules AS SELECT ${ctx.fvid}::INTEGER AS feed_version_id, fr0.fare_id, fr0.route_id, r.id AS route_ref,
        origin_id, destination_id, contains_id FROM fr0 LEFT JOIN routes r ON r.route_id = fr0.route_id ORDER BY fr0.rid`);
  },
};
