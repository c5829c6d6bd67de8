/**
 * The GTFS Fares v2 files (https://gtfs.org/documentation/schedule/reference/#fare_productstxt),
 * one table module each, tables named like the files: fare_media, rider_categories, fare_products,
 * areas, stop_areas, networks, route_networks, timeframes, fare_leg_rules, fare_transfer_rules.
 * Rows without their key, duplicated, or naming what does not exist (or was skipped) are skipped
 * and reported; values that cannot be right (an amount, a currency, a time, an enum) skip the row.
 * A network may be defined by networks.txt or by routes.network_id.
 */
import type { BuildContext, TableModule } from "../build.ts";
import { count, currencyCode, decimal, emptyWhenAbsent, laterDuplicates, skipRows } from "./fare-checks.ts";

/** the working table `<t>0` of a raw table, with its rowid as rid and `extra` columns */
const working = (ctx: BuildContext, t: string, extra = "") => ctx.conn.run(`CREATE TABLE ${t}0 AS SELECT rowid AS rid, *${extra ? `, ${extra}` : ""} FROM raw_${t}`);
const FV = (ctx: BuildContext) => `${ctx.fvid}::INTEGER AS feed_version_id`;

/** Missing key, then duplicates of it (the first row kept). */
async function keyChecks(ctx: BuildContext, t: string, key: string[]) {
  const file = `${t}.txt`;
  await skipRows(ctx, file, `${t}0`, "missing_required_value", `${key[0]} IS NULL`, `'${key[0]} is empty'`);
  await skipRows(ctx, file, `${t}0`, "duplicate_key", laterDuplicates(`${t}0`, key.join(", ")),
    `'duplicate ${key.join("/")} ' || ${key.map((k) => `coalesce(${k}, '')`).join(` || '/' || `)}`);
}

export const fareMedia: TableModule = {
  name: "fare_media",
  file: { name: "fare_media.txt", required: false },
  columns: { required: ["fare_media_id"], optional: ["fare_media_name", "fare_media_type"] },
  dependsOn: [],
  async build(ctx) {
    if (await emptyWhenAbsent(ctx, "fare_media.txt", "fare_media")) return;
    await working(ctx, "fare_media");
    await keyChecks(ctx, "fare_media", ["fare_media_id"]);
    await ctx.conn.run(`CREATE TABLE fare_media AS SELECT ${FV(ctx)}, fare_media_id, fare_media_name, gtfs_int(fare_media_type) AS fare_media_type FROM fare_media0 ORDER BY rid`);
  },
};

export const riderCategories: TableModule = {
  name: "rider_categories",
  file: { name: "rider_categories.txt", required: false },
  // rider_category_name is required by GTFS, but older feeds carry a rider_categories.txt of their own (Trillium's description column)
  columns: { required: ["rider_category_id"], optional: ["rider_category_name", "is_default_fare_category", "eligibility_url"] },
  dependsOn: [],
  async build(ctx) {
    if (await emptyWhenAbsent(ctx, "rider_categories.txt", "rider_categories")) return;
    await working(ctx, "rider_categories");
    await keyChecks(ctx, "rider_categories", ["rider_category_id"]);
    await ctx.conn.run(`CREATE TABLE rider_categories AS SELECT ${FV(ctx)}, rider_category_id, rider_category_name,
        gtfs_int(is_default_fare_category) AS is_default_fare_category, eligibility_url FROM rider_categories0 ORDER BY rid`);
  },
};

export const fareProducts: TableModule = {
  name: "fare_products",
  file: { name: "fare_products.txt", required: false },
  columns: { required: ["fare_product_id"], optional: ["fare_product_name", "rider_category_id", "fare_media_id", "amount", "currency"] },
  dependsOn: ["fare_media", "rider_categories"],
  async build(ctx) {
    if (await emptyWhenAbsent(ctx, "fare_products.txt", "fare_products")) return;
    const f = "fare_products.txt";
    await working(ctx, "fare_products", `${decimal("amount")} AS amt, ${currencyCode("currency")} AS cur`);
    await keyChecks(ctx, "fare_products", ["fare_product_id", "rider_category_id", "fare_media_id"]);
    await skipRows(ctx, f, "fare_products0", "invalid_fare_product", `amt IS NULL OR cur IS NULL`,
      `'fare product ' || fare_product_id || ': ' || CASE WHEN amt IS NULL THEN 'amount ' || coalesce(amount, '(empty)') || ' is not an amount'
        ELSE 'currency ' || coalesce(currency, '(empty)') || ' is not an ISO 4217 code' END`);
    await skipRows(ctx, f, "fare_products0", "unknown_rider_category", `rider_category_id IS NOT NULL AND rider_category_id NOT IN (SELECT rider_category_id FROM rider_categories)`,
      `'fare product ' || fare_product_id || ': rider_category_id ' || rider_category_id || ' does not exist'`);
    await skipRows(ctx, f, "fare_products0", "unknown_fare_media", `fare_media_id IS NOT NULL AND fare_media_id NOT IN (SELECT fare_media_id FROM fare_media)`,
      `'fare product ' || fare_product_id || ': fare_media_id ' || fare_media_id || ' does not exist'`);
    await ctx.conn.run(`CREATE TABLE fare_products AS SELECT ${FV(ctx)}, fare_product_id, fare_product_name, rider_category_id, fare_media_id,
        amt AS amount, cur AS currency FROM fare_products0 ORDER BY rid`);
  },
};

/** A table of ids and names (areas.txt, networks.txt): rows without an id or repeating one skipped. */
function namedTable(name: string, id: string, label: string): TableModule {
  return {
    name,
    file: { name: `${name}.txt`, required: false },
    columns: { required: [id], optional: [label] },
    dependsOn: [],
    async build(ctx) {
      if (await emptyWhenAbsent(ctx, `${name}.txt`, name)) return;
      await working(ctx, name);
      await keyChecks(ctx, name, [id]);
      await ctx.conn.run(`CREATE TABLE ${name} AS SELECT ${FV(ctx)}, ${id}, ${label} FROM ${name}0 ORDER BY rid`);
    },
  };
}

export const areas = namedTable("areas", "area_id", "area_name");

export const stopAreas: TableModule = {
  name: "stop_areas",
  file: { name: "stop_areas.txt", required: false },
  columns: { required: ["area_id", "stop_id"], optional: [] },
  dependsOn: ["areas", "stops"],
  async build(ctx) {
    if (await emptyWhenAbsent(ctx, "stop_areas.txt", "stop_areas")) return;
    const f = "stop_areas.txt";
    await working(ctx, "stop_areas");
    await skipRows(ctx, f, "stop_areas0", "unknown_area", `area_id IS NULL OR area_id NOT IN (SELECT area_id FROM areas)`,
      `'area_id ' || coalesce(area_id, '(empty)') || ' is not in areas.txt'`);
    await skipRows(ctx, f, "stop_areas0", "unknown_stop", `stop_id IS NULL OR stop_id NOT IN (SELECT stop_id FROM stops)`,
      `'area ' || area_id || ': stop_id ' || coalesce(stop_id, '(empty)') || ' does not exist'`);
    await skipRows(ctx, f, "stop_areas0", "duplicate_key", laterDuplicates("stop_areas0", "area_id, stop_id"), `'duplicate area_id/stop_id ' || area_id || '/' || stop_id`);
    await ctx.conn.run(`CREATE TABLE stop_areas AS SELECT ${FV(ctx)}, x.area_id, x.stop_id, s.id AS stop_ref
      FROM stop_areas0 x JOIN stops s ON s.stop_id = x.stop_id ORDER BY x.rid`);
  },
};

export const networks = namedTable("networks", "network_id", "network_name");

export const routeNetworks: TableModule = {
  name: "route_networks",
  file: { name: "route_networks.txt", required: false },
  columns: { required: ["network_id", "route_id"], optional: [] },
  dependsOn: ["networks", "routes"],
  async build(ctx) {
    if (await emptyWhenAbsent(ctx, "route_networks.txt", "route_networks")) return;
    const f = "route_networks.txt";
    await working(ctx, "route_networks");
    await skipRows(ctx, f, "route_networks0", "unknown_network", `network_id IS NULL OR network_id NOT IN (SELECT network_id FROM networks)`,
      `'network_id ' || coalesce(network_id, '(empty)') || ' is not in networks.txt'`);
    await skipRows(ctx, f, "route_networks0", "unknown_route", `route_id IS NULL OR route_id NOT IN (SELECT route_id FROM routes)`,
      `'network ' || network_id || ': route_id ' || coalesce(route_id, '(empty)') || ' does not exist'`);
    // a route belongs to one network
    await skipRows(ctx, f, "route_networks0", "duplicate_key", laterDuplicates("route_networks0", "route_id"), `'route ' || route_id || ' is already in a network'`);
    await ctx.conn.run(`CREATE TABLE route_networks AS SELECT ${FV(ctx)}, x.network_id, x.route_id, r.id AS route_ref
      FROM route_networks0 x JOIN routes r ON r.route_id = x.route_id ORDER BY x.rid`);
  },
};

export const timeframes: TableModule = {
  name: "timeframes",
  file: { name: "timeframes.txt", required: false },
  columns: { required: ["timeframe_group_id"], optional: ["start_time", "end_time", "service_id"] },
  dependsOn: ["calendars"],
  async build(ctx) {
    if (await emptyWhenAbsent(ctx, "timeframes.txt", "timeframes")) return;
    const f = "timeframes.txt";
    await working(ctx, "timeframes", `gtfs_time(start_time) AS st, gtfs_time(end_time) AS et`);
    await skipRows(ctx, f, "timeframes0", "missing_required_value", `timeframe_group_id IS NULL`, `'timeframe_group_id is empty'`);
    await skipRows(ctx, f, "timeframes0", "invalid_timeframe",
      `(start_time IS NOT NULL AND (st IS NULL OR st > 86400)) OR (end_time IS NOT NULL AND (et IS NULL OR et > 86400)) OR ((st IS NULL) <> (et IS NULL))`,
      `'timeframe ' || timeframe_group_id || ': start_time ' || coalesce(start_time, '(empty)') || ', end_time ' || coalesce(end_time, '(empty)') || ' are not two times of one day'`);
    await skipRows(ctx, f, "timeframes0", "unknown_service", `service_id IS NULL OR service_id NOT IN (SELECT service_id FROM calendars)`,
      `'timeframe ' || timeframe_group_id || ': service_id ' || coalesce(service_id, '(empty)') || ' is in neither calendar.txt nor calendar_dates.txt'`);
    await ctx.conn.run(`CREATE TABLE timeframes AS SELECT ${FV(ctx)}, timeframe_group_id, st::INTEGER AS start_time, et::INTEGER AS end_time, service_id
      FROM timeframes0 ORDER BY rid`);
  },
};

export const fareLegRules: TableModule = {
  name: "fare_leg_rules",
  file: { name: "fare_leg_rules.txt", required: false },
  columns: {
    required: ["fare_product_id"],
    optional: ["leg_group_id", "network_id", "from_area_id", "to_area_id", "from_timeframe_group_id", "to_timeframe_group_id", "rule_priority"],
  },
  dependsOn: ["fare_products", "areas", "networks", "routes", "timeframes"],
  async build(ctx) {
    if (await emptyWhenAbsent(ctx, "fare_leg_rules.txt", "fare_leg_rules")) return;
    const f = "fare_leg_rules.txt";
    const t = "fare_leg_rules0";
    await working(ctx, "fare_leg_rules", `${count("rule_priority")} AS prio`);
    await skipRows(ctx, f, t, "unknown_fare_product", `fare_product_id IS NULL OR fare_product_id NOT IN (SELECT fare_product_id FROM fare_products)`,
      `'fare_product_id ' || coalesce(fare_product_id, '(empty)') || ' is not in fare_products.txt (or was skipped)'`);
    await skipRows(ctx, f, t, "unknown_network",
      `network_id IS NOT NULL AND network_id NOT IN (SELECT network_id FROM networks UNION SELECT network_id FROM routes WHERE network_id IS NOT NULL)`,
      `'leg rule ' || coalesce(leg_group_id, '') || ': network_id ' || network_id || ' is neither in networks.txt nor a routes.network_id'`);
    await skipRows(ctx, f, t, "unknown_area",
      `(from_area_id IS NOT NULL AND from_area_id NOT IN (SELECT area_id FROM areas)) OR (to_area_id IS NOT NULL AND to_area_id NOT IN (SELECT area_id FROM areas))`,
      `'leg rule ' || coalesce(leg_group_id, '') || ': area ' || CASE WHEN from_area_id IS NOT NULL AND from_area_id NOT IN (SELECT area_id FROM areas) THEN from_area_id ELSE to_area_id END || ' is not in areas.txt'`);
    await skipRows(ctx, f, t, "unknown_timeframe",
      `(from_timeframe_group_id IS NOT NULL AND from_timeframe_group_id NOT IN (SELECT timeframe_group_id FROM timeframes))
        OR (to_timeframe_group_id IS NOT NULL AND to_timeframe_group_id NOT IN (SELECT timeframe_group_id FROM timeframes))`,
      `'leg rule ' || coalesce(leg_group_id, '') || ': timeframe_group_id ' || coalesce(from_timeframe_group_id, to_timeframe_group_id) || ' is not in timeframes.txt'`);
    await skipRows(ctx, f, t, "invalid_fare_leg_rule", `rule_priority IS NOT NULL AND prio IS NULL`,
      `'leg rule ' || coalesce(leg_group_id, '') || ': rule_priority ' || rule_priority || ' is not a non-negative integer'`);
    await ctx.conn.run(`CREATE TABLE fare_leg_rules AS SELECT ${FV(ctx)}, leg_group_id, network_id, from_area_id, to_area_id, from_timeframe_group_id,
        to_timeframe_group_id, fare_product_id, prio::INTEGER AS rule_priority FROM ${t} ORDER BY rid`);
  },
};

export const fareTransferRules: TableModule = {
  name: "fare_transfer_rules",
  file: { name: "fare_transfer_rules.txt", required: false },
  columns: {
    required: ["fare_transfer_type"],
    optional: ["from_leg_group_id", "to_leg_group_id", "transfer_count", "duration_limit", "duration_limit_type", "fare_product_id"],
  },
  dependsOn: ["fare_products"],
  async build(ctx) {
    if (await emptyWhenAbsent(ctx, "fare_transfer_rules.txt", "fare_transfer_rules")) return;
    const f = "fare_transfer_rules.txt";
    const t = "fare_transfer_rules0";
    await working(ctx, "fare_transfer_rules", `gtfs_int(fare_transfer_type) AS ftt, gtfs_int(transfer_count) AS tc, ${count("duration_limit")} AS dl, gtfs_int(duration_limit_type) AS dlt`);
    await skipRows(ctx, f, t, "invalid_fare_transfer_rule",
      `ftt IS NULL OR ftt NOT IN (0, 1, 2) OR (transfer_count IS NOT NULL AND (tc IS NULL OR tc = 0 OR tc < -1))
        OR (duration_limit IS NOT NULL AND (dl IS NULL OR dlt IS NULL OR dlt NOT IN (0, 1, 2, 3)))`,
      `'transfer rule ' || coalesce(from_leg_group_id, '') || ' -> ' || coalesce(to_leg_group_id, '') || ': ' ||
        CASE WHEN ftt IS NULL OR ftt NOT IN (0, 1, 2) THEN 'fare_transfer_type ' || coalesce(fare_transfer_type, '(empty)') || ' is not 0, 1 or 2'
          WHEN transfer_count IS NOT NULL AND (tc IS NULL OR tc = 0 OR tc < -1) THEN 'transfer_count ' || transfer_count || ' is not -1 or a positive integer'
          ELSE 'duration_limit ' || duration_limit || ' (type ' || coalesce(duration_limit_type, 'empty') || ') is not a number of seconds of type 0-3' END`);
    await skipRows(ctx, f, t, "unknown_fare_product", `fare_product_id IS NOT NULL AND fare_product_id NOT IN (SELECT fare_product_id FROM fare_products)`,
      `'transfer rule ' || coalesce(from_leg_group_id, '') || ' -> ' || coalesce(to_leg_group_id, '') || ': fare_product_id ' || fare_product_id || ' is not in fare_products.txt (or was skipped)'`);
    await ctx.conn.run(`CREATE TABLE fare_transfer_rules AS SELECT ${FV(ctx)}, from_leg_group_id, to_leg_group_id, tc::INTEGER AS transfer_count,
        dl::INTEGER AS duration_limit, dlt::INTEGER AS duration_limit_type, ftt::INTEGER AS fare_transfer_type, fare_product_id FROM ${t} ORDER BY rid`);
  },
};
