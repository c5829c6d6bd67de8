/**
 * The Parquet catalog schema: one immutable folder per feed version, `data/versions/<sha1>/`, one
 * Parquet file per table below. This is a public interface (analysts query it with DuckDB), so
 * column names are stable and follow GTFS where GTFS has a name. Conventions:
 * - `id` columns are integers unique within the dataset (all versions), stable once written.
 * - `<entity>_ref` columns hold the `id` of the referenced row (e.g. trips.route_ref = routes.id).
 * - every table carries `feed_version_id` (= feed_version.id).
 * - GTFS times are INTEGER seconds since the start of the service day ("noon minus 12h"), so
 *   25:10:00 is 90600; GTFS dates are DATE.
 * docs/dataset-schema.md's catalog tables are generated from this file (`docSchemaMarkdown`, `npm run docs:schema`).
 */
import { LICENSE_FIELDS } from "./manifest.ts";

export interface ColumnDef {
  name: string;
  type: string; // DuckDB type
  doc: string;
}
export interface TableDef {
  name: string;
  doc: string;
  sortedBy: string;
  columns: ColumnDef[];
}

const c = (name: string, type: string, doc = ""): ColumnDef => ({ name, type, doc });
const FV = c("feed_version_id", "INTEGER", "feed_version.id of the version this row belongs to");

export const TABLES: TableDef[] = [
  {
    name: "feed_version",
    doc: "One row: the feed version itself.",
    sortedBy: "",
    columns: [
      c("id", "INTEGER", "feed version id (unique in the dataset)"),
      c("sha1", "VARCHAR", "SHA-1 of the zip bytes (for a folder import: of a canonical serialisation of its .txt files and locations.geojson), 40 lowercase hex"),
      c("feed_id", "INTEGER", "integer id of the feed"),
      c("feed_onestop_id", "VARCHAR", "Onestop-style feed id, f-<geohash>-<name>"),
      c("fetched_at", "TIMESTAMPTZ", "when the bytes were fetched/read"),
      c("source", "VARCHAR", "URL or path imported from"),
      c("default_timezone", "VARCHAR", "timezone of the first agency"),
      c("service_start_date", "DATE", "service window start (feed_info.feed_start_date if set, else derived)"),
      c("service_end_date", "DATE", "service window end"),
      c("earliest_calendar_date", "DATE", "first date with any service in calendar/calendar_dates"),
      c("latest_calendar_date", "DATE", "last date with any service"),
      c("best_week_start", "DATE", "Monday of the week with the most scheduled service inside the window; when the window has none (feed_info dates outside the calendars'), inside the window the calendars alone give (use_service_window)"),
      ...LICENSE_FIELDS.map((f, i) => c(`license_${f}`, "VARCHAR", i === 0 ? "yes | no | unknown (from the feeds file)" : "yes | no | unknown")),
    ],
  },
  {
    name: "agencies",
    doc: "agency.txt",
    sortedBy: "id",
    columns: [
      c("id", "INTEGER"), FV,
      c("agency_id", "VARCHAR", "GTFS agency_id (empty string when the feed omits it)"),
      c("agency_name", "VARCHAR"), c("agency_url", "VARCHAR"), c("agency_timezone", "VARCHAR"),
      c("agency_lang", "VARCHAR"), c("agency_phone", "VARCHAR"), c("agency_fare_url", "VARCHAR"), c("agency_email", "VARCHAR"),
      c("onestop_id", "VARCHAR", "o-<geohash>-<normalized agency_name>"),
    ],
  },
  {
    name: "routes",
    doc: "routes.txt",
    sortedBy: "id",
    columns: [
      c("id", "INTEGER"), FV,
      c("route_id", "VARCHAR"), c("agency_id", "VARCHAR", "GTFS agency_id as written (resolved to the only agency when empty)"),
      c("agency_ref", "INTEGER", "agencies.id"),
      c("route_short_name", "VARCHAR"), c("route_long_name", "VARCHAR"), c("route_desc", "VARCHAR"),
      c("route_type", "INTEGER"), c("route_url", "VARCHAR"), c("route_color", "VARCHAR"), c("route_text_color", "VARCHAR"),
      c("route_sort_order", "INTEGER"), c("continuous_pickup", "INTEGER"), c("continuous_drop_off", "INTEGER"), c("network_id", "VARCHAR"),
      c("onestop_id", "VARCHAR", "r-<geohash>-<normalized short or long name>"),
    ],
  },
  {
    name: "stops",
    doc: "stops.txt",
    sortedBy: "id",
    columns: [
      c("id", "INTEGER"), FV,
      c("stop_id", "VARCHAR"), c("stop_code", "VARCHAR"), c("stop_name", "VARCHAR"), c("tts_stop_name", "VARCHAR"), c("stop_desc", "VARCHAR"),
      c("stop_lat", "DOUBLE"), c("stop_lon", "DOUBLE"), c("zone_id", "VARCHAR"), c("stop_url", "VARCHAR"),
      c("location_type", "INTEGER", "0 stop/platform (default), 1 station, 2 entrance, 3 generic node, 4 boarding area"),
      c("parent_station", "VARCHAR"), c("parent_ref", "INTEGER", "stops.id of parent_station"),
      c("stop_timezone", "VARCHAR"), c("wheelchair_boarding", "INTEGER"), c("level_id", "VARCHAR"), c("platform_code", "VARCHAR"),
      c("stop_access", "INTEGER"),
      c("onestop_id", "VARCHAR", "s-<geohash10>-<normalized stop_name>"),
      c("adm0_name", "VARCHAR", "country of the Natural Earth admin-1 polygon containing the stop (its `admin`); null when none covers it or no coordinates"),
      c("adm0_iso", "VARCHAR", "that country's ISO 3166-1 alpha-2 code (`iso_a2`)"),
      c("adm1_name", "VARCHAR", "that admin-1 unit (state, province, region; its `name`)"),
      c("adm1_iso", "VARCHAR", "its ISO 3166-2 code (`iso_3166_2`); null where Natural Earth has none (its `~` placeholders)"),
    ],
  },
  {
    name: "trips",
    doc: "trips.txt plus derived columns",
    sortedBy: "id",
    columns: [
      c("id", "INTEGER"), FV,
      c("trip_id", "VARCHAR"), c("route_id", "VARCHAR"), c("route_ref", "INTEGER", "routes.id"),
      c("service_id", "VARCHAR"), c("calendar_ref", "INTEGER", "calendars.id"),
      c("trip_headsign", "VARCHAR"), c("trip_short_name", "VARCHAR"), c("direction_id", "INTEGER"), c("block_id", "VARCHAR"),
      c("shape_id", "VARCHAR", "GTFS shape_id, or the generated shape's id (shapes.generated = true) when the feed gives none; NULL for a GTFS-Flex trip without a stop"),
      c("wheelchair_accessible", "INTEGER"), c("bikes_allowed", "INTEGER"), c("cars_allowed", "INTEGER"),
      c("stop_pattern_id", "INTEGER", "distinct stop sequence, numbered in first-seen order within the version"),
      c("first_departure", "INTEGER", "departure_time of the first stop_time (seconds); GTFS-Flex stop_times count with their window's start"),
      c("last_arrival", "INTEGER", "arrival_time of the last stop_time (seconds); GTFS-Flex stop_times count with their window's end"),
      c("stop_count", "INTEGER"),
    ],
  },
  {
    name: "stop_times",
    doc: "stop_times.txt, every time filled (interpolated = 1 where the feed had none)",
    sortedBy: "trip_ref, stop_sequence",
    columns: [
      FV, c("trip_ref", "INTEGER", "trips.id"), c("trip_id", "VARCHAR"),
      c("stop_sequence", "INTEGER"), c("stop_ref", "INTEGER", "stops.id"), c("stop_id", "VARCHAR"),
      c("arrival_time", "INTEGER", "seconds since service-day start"), c("departure_time", "INTEGER", "seconds since service-day start"),
      c("stop_headsign", "VARCHAR"), c("pickup_type", "INTEGER"), c("drop_off_type", "INTEGER"),
      c("continuous_pickup", "INTEGER"), c("continuous_drop_off", "INTEGER"),
      c("shape_dist_traveled", "DOUBLE"), c("timepoint", "INTEGER"),
      c("interpolated", "INTEGER", "1 when the times were filled in on import, else 0"),
      // GTFS-Flex (a zone or a group of stops instead of a stop, a window instead of times): NULL on other rows
      c("location_id", "VARCHAR", "GTFS-Flex: locations.location_id of the zone (stop_ref, stop_id and the times are then NULL)"),
      c("location_group_id", "VARCHAR", "GTFS-Flex: location_groups.location_group_id (stop_ref, stop_id and the times are then NULL)"),
      c("start_pickup_drop_off_window", "INTEGER", "GTFS-Flex: seconds since service-day start"),
      c("end_pickup_drop_off_window", "INTEGER", "GTFS-Flex: seconds since service-day start"),
      c("pickup_booking_rule_id", "VARCHAR", "GTFS-Flex: booking_rules.booking_rule_id"),
      c("drop_off_booking_rule_id", "VARCHAR", "GTFS-Flex: booking_rules.booking_rule_id"),
    ],
  },
  {
    name: "shapes",
    doc: "shapes.txt, one row per point, plus generated shapes (one per stop pattern of trips without shape_id)",
    sortedBy: "shape_id, shape_pt_sequence",
    columns: [
      FV, c("shape_id", "VARCHAR"), c("shape_pt_sequence", "INTEGER"), c("shape_pt_lat", "DOUBLE"), c("shape_pt_lon", "DOUBLE"),
      c("shape_dist_traveled", "DOUBLE", "as given; for generated shapes cumulative meters"),
      c("generated", "BOOLEAN", "true when built from stop locations"),
    ],
  },
  {
    name: "calendars",
    doc: "one row per service_id from calendar.txt and calendar_dates.txt",
    sortedBy: "id",
    columns: [
      c("id", "INTEGER"), FV, c("service_id", "VARCHAR"),
      c("monday", "INTEGER"), c("tuesday", "INTEGER"), c("wednesday", "INTEGER"), c("thursday", "INTEGER"),
      c("friday", "INTEGER"), c("saturday", "INTEGER"), c("sunday", "INTEGER"),
      c("start_date", "DATE"), c("end_date", "DATE"),
      c("added_dates", "DATE[]", "calendar_dates exception_type 1"), c("removed_dates", "DATE[]", "calendar_dates exception_type 2"),
      c("generated", "BOOLEAN", "true when the service exists only in calendar_dates (weekday flags 0, dates span the exceptions)"),
    ],
  },
  {
    name: "frequencies",
    doc: "frequencies.txt",
    sortedBy: "trip_ref, start_time",
    columns: [
      FV, c("trip_ref", "INTEGER"), c("trip_id", "VARCHAR"), c("start_time", "INTEGER", "seconds"), c("end_time", "INTEGER", "seconds"),
      c("headway_secs", "INTEGER"), c("exact_times", "INTEGER"),
    ],
  },
  {
    name: "transfers",
    doc: "transfers.txt",
    sortedBy: "",
    columns: [
      FV, c("from_stop_id", "VARCHAR"), c("to_stop_id", "VARCHAR"), c("from_stop_ref", "INTEGER"), c("to_stop_ref", "INTEGER"),
      c("from_route_id", "VARCHAR"), c("to_route_id", "VARCHAR"), c("from_trip_id", "VARCHAR"), c("to_trip_id", "VARCHAR"),
      c("transfer_type", "INTEGER"), c("min_transfer_time", "INTEGER"),
    ],
  },
  {
    name: "feed_info",
    doc: "feed_info.txt (0 or 1 row)",
    sortedBy: "",
    columns: [
      FV, c("feed_publisher_name", "VARCHAR"), c("feed_publisher_url", "VARCHAR"), c("feed_lang", "VARCHAR"), c("default_lang", "VARCHAR"),
      c("feed_start_date", "DATE"), c("feed_end_date", "DATE"), c("feed_version", "VARCHAR"), c("feed_contact_email", "VARCHAR"), c("feed_contact_url", "VARCHAR"),
    ],
  },
  {
    name: "stop_patterns",
    doc: "one row per stop pattern",
    sortedBy: "stop_pattern_id",
    columns: [FV, c("stop_pattern_id", "INTEGER"), c("stop_refs", "INTEGER[]", "stops.id in visiting order"), c("trip_count", "INTEGER")],
  },
  {
    name: "route_stops",
    doc: "which stops each route serves (for served_by_onestop_ids / served_by_route_types)",
    sortedBy: "stop_ref",
    columns: [FV, c("route_ref", "INTEGER"), c("stop_ref", "INTEGER"), c("agency_ref", "INTEGER"), c("route_type", "INTEGER"), c("route_onestop_id", "VARCHAR")],
  },
  {
    name: "agency_stops",
    doc: "which stops each agency serves",
    sortedBy: "stop_ref",
    columns: [FV, c("agency_ref", "INTEGER"), c("stop_ref", "INTEGER"), c("agency_onestop_id", "VARCHAR")],
  },
  // ---- fares: GTFS Fares v1 (fare_attributes, fare_rules) and v2; every version has these tables, empty when the feed has no such file
  {
    name: "fare_attributes",
    doc: "fare_attributes.txt (GTFS Fares v1), in file order.",
    sortedBy: "",
    columns: [
      FV, c("fare_id", "VARCHAR"), c("price", "DOUBLE", "in currency_type units (2.50 = $2.50, 200 = ¥200)"),
      c("currency_type", "VARCHAR", "ISO 4217 code, upper case"), c("payment_method", "INTEGER", "0 on board, 1 before boarding"),
      c("transfers", "INTEGER", "transfers allowed: 0, 1, 2; NULL = unlimited"),
      c("agency_id", "VARCHAR", "as written (NULL when empty)"), c("agency_ref", "INTEGER", "agencies.id (the feed's only agency when agency_id is empty)"),
      c("transfer_duration", "INTEGER", "seconds a transfer is valid; NULL = no limit"),
    ],
  },
  {
    name: "fare_rules",
    doc: "fare_rules.txt (GTFS Fares v1), in file order.",
    sortedBy: "",
    columns: [
      FV, c("fare_id", "VARCHAR", "fare_attributes.fare_id"), c("route_id", "VARCHAR"), c("route_ref", "INTEGER", "routes.id"),
      c("origin_id", "VARCHAR", "a stops.zone_id"), c("destination_id", "VARCHAR", "a stops.zone_id"), c("contains_id", "VARCHAR", "a stops.zone_id"),
    ],
  },
  {
    name: "fare_media",
    doc: "fare_media.txt (GTFS Fares v2).",
    sortedBy: "",
    columns: [FV, c("fare_media_id", "VARCHAR"), c("fare_media_name", "VARCHAR"), c("fare_media_type", "INTEGER", "0 none (cash), 1 paper ticket, 2 transit card, 3 cEMV, 4 mobile app")],
  },
  {
    name: "rider_categories",
    doc: "rider_categories.txt (GTFS Fares v2).",
    sortedBy: "",
    columns: [
      FV, c("rider_category_id", "VARCHAR"), c("rider_category_name", "VARCHAR"),
      c("is_default_fare_category", "INTEGER", "1 = the category a fare is shown for by default"), c("eligibility_url", "VARCHAR"),
    ],
  },
  {
    name: "fare_products",
    doc: "fare_products.txt (GTFS Fares v2): one row per product, rider category and fare media.",
    sortedBy: "",
    columns: [
      FV, c("fare_product_id", "VARCHAR"), c("fare_product_name", "VARCHAR"), c("rider_category_id", "VARCHAR"), c("fare_media_id", "VARCHAR"),
      c("amount", "DOUBLE", "in currency units; may be negative (a discount)"), c("currency", "VARCHAR", "ISO 4217 code, upper case"),
    ],
  },
  {
    name: "areas",
    doc: "areas.txt (GTFS Fares v2).",
    sortedBy: "",
    columns: [FV, c("area_id", "VARCHAR"), c("area_name", "VARCHAR")],
  },
  {
    name: "stop_areas",
    doc: "stop_areas.txt (GTFS Fares v2): stops (or stations, standing for their stops) in areas.",
    sortedBy: "",
    columns: [FV, c("area_id", "VARCHAR"), c("stop_id", "VARCHAR"), c("stop_ref", "INTEGER", "stops.id")],
  },
  {
    name: "networks",
    doc: "networks.txt (GTFS Fares v2); routes.network_id names networks too.",
    sortedBy: "",
    columns: [FV, c("network_id", "VARCHAR"), c("network_name", "VARCHAR")],
  },
  {
    name: "route_networks",
    doc: "route_networks.txt (GTFS Fares v2).",
    sortedBy: "",
    columns: [FV, c("network_id", "VARCHAR"), c("route_id", "VARCHAR"), c("route_ref", "INTEGER", "routes.id")],
  },
  {
    name: "timeframes",
    doc: "timeframes.txt (GTFS Fares v2).",
    sortedBy: "",
    columns: [
      FV, c("timeframe_group_id", "VARCHAR"), c("start_time", "INTEGER", "seconds since midnight; NULL with end_time = the whole day"),
      c("end_time", "INTEGER", "seconds since midnight (at most 86400)"), c("service_id", "VARCHAR"),
    ],
  },
  {
    name: "fare_leg_rules",
    doc: "fare_leg_rules.txt (GTFS Fares v2): NULL network/area/timeframe columns are the GTFS empty values.",
    sortedBy: "",
    columns: [
      FV, c("leg_group_id", "VARCHAR"), c("network_id", "VARCHAR"), c("from_area_id", "VARCHAR"), c("to_area_id", "VARCHAR"),
      c("from_timeframe_group_id", "VARCHAR"), c("to_timeframe_group_id", "VARCHAR"), c("fare_product_id", "VARCHAR"),
      c("rule_priority", "INTEGER", "NULL when not given"),
    ],
  },
  {
    name: "fare_transfer_rules",
    doc: "fare_transfer_rules.txt (GTFS Fares v2).",
    sortedBy: "",
    columns: [
      FV, c("from_leg_group_id", "VARCHAR"), c("to_leg_group_id", "VARCHAR"), c("transfer_count", "INTEGER", "-1 = unlimited; NULL when not given"),
      c("duration_limit", "INTEGER", "seconds; NULL = no limit"),
      c("duration_limit_type", "INTEGER", "0 departure to arrival, 1 departure to departure, 2 arrival to departure, 3 arrival to arrival"),
      c("fare_transfer_type", "INTEGER", "0 A + AB, 1 A + AB + B, 2 AB"), c("fare_product_id", "VARCHAR", "cost of the transfer (AB); NULL = free"),
    ],
  },
  // ---- GTFS-Flex v2: every version has these tables, empty when the feed has no such file
  {
    name: "locations",
    doc: "locations.geojson (GTFS-Flex): the zones flex stop_times name, one row per feature, in file order.",
    sortedBy: "",
    columns: [
      FV, c("location_id", "VARCHAR", "the feature's id"), c("stop_name", "VARCHAR", "properties.stop_name"), c("stop_desc", "VARCHAR", "properties.stop_desc"),
      c("geometry", "VARCHAR", "the feature's geometry as GeoJSON text (Polygon or MultiPolygon)"), c("properties", "VARCHAR", "the feature's properties as JSON text"),
    ],
  },
  {
    name: "location_groups",
    doc: "location_groups.txt (GTFS-Flex).",
    sortedBy: "",
    columns: [FV, c("location_group_id", "VARCHAR"), c("location_group_name", "VARCHAR")],
  },
  {
    name: "location_group_stops",
    doc: "location_group_stops.txt (GTFS-Flex): the stops of each location group.",
    sortedBy: "",
    columns: [FV, c("location_group_id", "VARCHAR"), c("stop_id", "VARCHAR"), c("stop_ref", "INTEGER", "stops.id")],
  },
  {
    name: "booking_rules",
    doc: "booking_rules.txt (GTFS-Flex).",
    sortedBy: "",
    columns: [
      FV, c("booking_rule_id", "VARCHAR"), c("booking_type", "INTEGER", "0 real time, 1 up to same-day, 2 up to prior day(s)"),
      c("prior_notice_duration_min", "INTEGER", "minutes"), c("prior_notice_duration_max", "INTEGER", "minutes"),
      c("prior_notice_last_day", "INTEGER", "days"), c("prior_notice_last_time", "INTEGER", "seconds since midnight"),
      c("prior_notice_start_day", "INTEGER", "days"), c("prior_notice_start_time", "INTEGER", "seconds since midnight"),
      c("prior_notice_service_id", "VARCHAR"), c("message", "VARCHAR"), c("pickup_message", "VARCHAR"), c("drop_off_message", "VARCHAR"),
      c("phone_number", "VARCHAR"), c("info_url", "VARCHAR"), c("booking_url", "VARCHAR"),
    ],
  },
];

export const TABLE_BY_NAME = new Map(TABLES.map((t) => [t.name, t]));

export function docSchemaMarkdown(): string {
  const out: string[] = [];
  for (const t of TABLES) {
    out.push(`#### \`${t.name}.parquet\``, "", `${t.doc}${t.sortedBy ? ` Sorted by ${t.sortedBy}.` : ""}`, "", "| column | type | notes |", "|---|---|---|");
    for (const col of t.columns) out.push(`| ${col.name} | ${col.type} | ${col.doc} |`);
    out.push("");
  }
  return out.join("\n");
}
