/**
 * The GTFS-Flex v2 files (https://gtfs.org/documentation/schedule/reference/#locationsgeojson), one
 * table module each: locations (locations.geojson: zones, each feature's geometry kept as GeoJSON
 * text), location_groups, location_group_stops and booking_rules. Rows without their key,
 * duplicated, or naming what does not exist are skipped and reported. Flex stop_times (a
 * location_id or location_group_id instead of a stop_id, pickup/drop-off windows instead of times)
 * are kept by stop-times.ts and trip-check.ts, which check them against these tables.
 *
 * locations.geojson is JSON, not CSV: it is not one of the import's raw tables; its module reads the
 * file from the folder of the feed's files (beside stops.txt) itself.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { BuildContext, TableModule } from "../build.ts";
import { emptyWhenAbsent, laterDuplicates, skipRows } from "./fare-checks.ts";

export const LOCATIONS_FILE = "locations.geojson";

const FV = (ctx: BuildContext) => `${ctx.fvid}::INTEGER AS feed_version_id`;
const working = (ctx: BuildContext, t: string, extra = "") => ctx.conn.run(`CREATE TABLE ${t}0 AS SELECT rowid AS rid, *${extra ? `, ${extra}` : ""} FROM raw_${t}`);

async function keyChecks(ctx: BuildContext, t: string, key: string[]) {
  const file = `${t}.txt`;
  await skipRows(ctx, file, `${t}0`, "missing_required_value", key.map((k) => `${k} IS NULL`).join(" OR "), `'${key.join("/")} is empty'`);
  await skipRows(ctx, file, `${t}0`, "duplicate_key", laterDuplicates(`${t}0`, key.join(", ")),
    `'duplicate ${key.join("/")} ' || ${key.map((k) => `coalesce(${k}, '')`).join(` || '/' || `)}`);
}

const ZONE_TYPES = new Set(["Polygon", "MultiPolygon"]);
const text = (v: unknown): string | null => (typeof v === "string" && v.trim() !== "" ? v.trim() : null);

/** One feature of locations.geojson as kept, or why it is skipped. */
type Feature = { id: string; name: string | null; desc: string | null; geometry: string; properties: string } | { skip: string; message: string };

function readFeatures(path: string): { features: Feature[] } | { error: string } {
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(path, "utf8").replace(/^\uFEFF/, ""));
  } catch (e) {
    return { error: `not valid JSON (${(e as Error).message})` };
  }
  const fs = (doc as { type?: unknown; features?: unknown } | null)?.features;
  if ((doc as { type?: unknown } | null)?.type !== "FeatureCollection" || !Array.isArray(fs)) return { error: "not a GeoJSON FeatureCollection" };
  return {
    features: fs.map((f: unknown, i): Feature => {
      const o = (f ?? {}) as { id?: unknown; properties?: unknown; geometry?: { type?: unknown; coordinates?: unknown } | null };
      const id = typeof o.id === "number" ? String(o.id) : text(o.id);
      if (id === null) return { skip: "missing_required_value", message: `feature ${i + 1}: id is empty` };
      if (!o.geometry || !ZONE_TYPES.has(String(o.geometry.type)) || !Array.isArray(o.geometry.coordinates)) {
        return { skip: "invalid_location_geometry", message: `location ${id}: geometry is not a Polygon or MultiPolygon` };
      }
      const props = (o.properties && typeof o.properties === "object" ? o.properties : {}) as Record<string, unknown>;
      return { id, name: text(props.stop_name), desc: text(props.stop_desc), geometry: JSON.stringify(o.geometry), properties: JSON.stringify(props) };
    }),
  };
}

/** locations.geojson → locations: one row per zone (feature), in file order. */
export const locations: TableModule = {
  name: "locations",
  file: null,
  columns: { required: [], optional: [] },
  dependsOn: ["stops"],
  async build(ctx) {
    const { conn } = ctx;
    await conn.run(`CREATE TABLE locations (feed_version_id INTEGER, location_id VARCHAR, stop_name VARCHAR, stop_desc VARCHAR, geometry VARCHAR, properties VARCHAR)`);
    const stopsPath = ctx.raw.get("stops.txt")?.path;
    const path = stopsPath ? join(dirname(stopsPath), LOCATIONS_FILE) : null;
    if (!path || !existsSync(path)) return;
    const read = readFeatures(path);
    if ("error" in read) {
      // the file is one unreadable row: its zones are unknown, and flex stop_times naming them are skipped as such
      ctx.issues.add("invalid_locations_geojson", { file: LOCATIONS_FILE, message: `${LOCATIONS_FILE}: ${read.error}` });
      ctx.skip(LOCATIONS_FILE, 1);
      return;
    }
    const seen = new Set<string>();
    const app = await conn.createAppender("locations");
    for (const f of read.features) {
      let skip = "skip" in f ? f : null;
      if (!skip && "id" in f && seen.has(f.id)) skip = { skip: "duplicate_key", message: `duplicate location_id ${f.id}` };
      if (skip) {
        ctx.issues.add(skip.skip, { file: LOCATIONS_FILE, message: skip.message });
        ctx.skip(LOCATIONS_FILE, 1);
        continue;
      }
      const z = f as Exclude<Feature, { skip: string }>;
      seen.add(z.id);
      app.appendInteger(ctx.fvid);
      app.appendVarchar(z.id);
      for (const v of [z.name, z.desc]) if (v === null) app.appendNull(); else app.appendVarchar(v);
      app.appendVarchar(z.geometry);
      app.appendVarchar(z.properties);
      app.endRow();
    }
    app.closeSync();
  },
};

/** location_groups.txt → location_groups. */
export const locationGroups: TableModule = {
  name: "location_groups",
  file: { name: "location_groups.txt", required: false },
  columns: { required: ["location_group_id"], optional: ["location_group_name"] },
  dependsOn: [],
  async build(ctx) {
    if (await emptyWhenAbsent(ctx, "location_groups.txt", "location_groups")) return;
    await working(ctx, "location_groups");
    await keyChecks(ctx, "location_groups", ["location_group_id"]);
    await ctx.conn.run(`CREATE TABLE location_groups AS SELECT ${FV(ctx)}, location_group_id, location_group_name FROM location_groups0 ORDER BY rid`);
  },
};

/** location_group_stops.txt → location_group_stops: the stops of each group (groups and stops that exist). */
export const locationGroupStops: TableModule = {
  name: "location_group_stops",
  file: { name: "location_group_stops.txt", required: false },
  columns: { required: ["location_group_id", "stop_id"], optional: [] },
  dependsOn: ["stops", "location_groups"],
  async build(ctx) {
    const f = "location_group_stops.txt";
    if (await emptyWhenAbsent(ctx, f, "location_group_stops")) return;
    await working(ctx, "location_group_stops");
    await keyChecks(ctx, "location_group_stops", ["location_group_id", "stop_id"]);
    await skipRows(ctx, f, "location_group_stops0", "unknown_location_group", `location_group_id NOT IN (SELECT location_group_id FROM location_groups)`,
      `'location_group_id ' || location_group_id || ' does not exist'`);
    await skipRows(ctx, f, "location_group_stops0", "unknown_stop", `stop_id NOT IN (SELECT stop_id FROM stops)`, `'stop_id ' || stop_id || ' does not exist'`);
    await ctx.conn.run(`CREATE TABLE location_group_stops AS SELECT ${FV(ctx)}, g.location_group_id, g.stop_id, s.id AS stop_ref
      FROM location_group_stops0 g JOIN stops s ON s.stop_id = g.stop_id ORDER BY g.rid`);
  },
};

/** booking_rules.txt → booking_rules (times in seconds, like stop_times). */
export const bookingRules: TableModule = {
  name: "booking_rules",
  file: { name: "booking_rules.txt", required: false },
  columns: {
    required: ["booking_rule_id"],
    optional: [
      "booking_type", "prior_notice_duration_min", "prior_notice_duration_max", "prior_notice_last_day", "prior_notice_last_time", "prior_notice_start_day",
      "prior_notice_start_time", "prior_notice_service_id", "message", "pickup_message", "drop_off_message", "phone_number", "info_url", "booking_url",
    ],
  },
  dependsOn: [],
  async build(ctx) {
    const f = "booking_rules.txt";
    if (await emptyWhenAbsent(ctx, f, "booking_rules")) return;
    await working(ctx, "booking_rules");
    await keyChecks(ctx, "booking_rules", ["booking_rule_id"]);
    await skipRows(ctx, f, "booking_rules0", "invalid_booking_type", `gtfs_int(booking_type) IS NULL OR gtfs_int(booking_type) NOT IN (0, 1, 2)`,
      `'booking_rule ' || booking_rule_id || ': booking_type ' || coalesce(booking_type, '(empty)') || ' is not 0, 1 or 2'`);
    await ctx.conn.run(`CREATE TABLE booking_rules AS SELECT ${FV(ctx)}, booking_rule_id, gtfs_int(booking_type) AS booking_type,
        gtfs_int(prior_notice_duration_min) AS prior_notice_duration_min, gtfs_int(prior_notice_duration_max) AS prior_notice_duration_max,
        gtfs_int(prior_notice_last_day) AS prior_notice_last_day, gtfs_time(prior_notice_last_time) AS prior_notice_last_time,
        gtfs_int(prior_notice_start_day) AS prior_notice_start_day, gtfs_time(prior_notice_start_time) AS prior_notice_start_time,
        prior_notice_service_id, message, pickup_message, drop_off_message, phone_number, info_url, booking_url
      FROM booking_rules0 ORDER BY rid`);
  },
};
