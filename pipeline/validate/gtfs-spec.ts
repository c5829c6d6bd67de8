/**
 * The GTFS files and fields the validator checks, as data: for each file its columns with their
 * field type (id, text, url, date, time, enum with its values, ...), presence (required,
 * conditionally required, recommended), primary-key part, foreign key, range pairs and mixed-case
 * flag. These are facts of the GTFS Schedule reference in the form MobilityData's gtfs-validator
 * declares them (its table schema interfaces), so that the field-level notices (missing_required_field,
 * invalid_*, number_out_of_range, unexpected_enum_value, duplicate_key, foreign_key_violation,
 * mixed_case_recommended_field, ...) are raised on the same fields. Rules over several rows or files are in rules.ts.
 */

export type FieldType =
  | "id" | "text" | "url" | "email" | "phone_number" | "timezone" | "language_code" | "currency_code" | "color"
  | "date" | "time" | "integer" | "float" | "decimal" | "latitude" | "longitude" | "enum";

export interface FieldSpec {
  name: string;
  type: FieldType;
  /** enum values */
  values?: readonly number[];
  required?: boolean;
  conditionallyRequired?: boolean;
  recommended?: boolean;
  mixedCase?: boolean;
  nonNegative?: boolean;
  positive?: boolean;
  nonZero?: boolean;
  primaryKey?: boolean;
  /** [file, field] */
  foreignKey?: readonly [string, string];
  /** this field is the start of a range ending at [field], equal allowed or not */
  endRange?: readonly [string, boolean];
}

export interface FileSpec {
  file: string;
  required: boolean;
  fields: readonly FieldSpec[];
}

export const GTFS_SPEC: readonly FileSpec[] = [
  { file: "agency.txt", required: true, fields: [
    {name: "agency_id", type: "id", conditionallyRequired: true, primaryKey: true},
    {name: "agency_name", type: "text", required: true, mixedCase: true},
    {name: "agency_url", type: "url", required: true},
    {name: "agency_timezone", type: "timezone", required: true},
    {name: "agency_lang", type: "language_code"},
    {name: "agency_phone", type: "phone_number"},
    {name: "agency_fare_url", type: "url"},
    {name: "agency_email", type: "email"},
    {name: "cemv_support", values: [0, 1, 2], type: "enum"},
  ] },
  { file: "attributions.txt", required: false, fields: [
    {name: "attribution_id", type: "id", primaryKey: true},
    {name: "agency_id", type: "id", foreignKey: ["agency.txt", "agency_id"]},
    {name: "route_id", type: "id", foreignKey: ["routes.txt", "route_id"]},
    {name: "trip_id", type: "id", foreignKey: ["trips.txt", "trip_id"]},
    {name: "organization_name", type: "text", required: true},
    {name: "is_producer", values: [0, 1], type: "enum"},
    {name: "is_operator", values: [0, 1], type: "enum"},
    {name: "is_authority", values: [0, 1], type: "enum"},
    {name: "attribution_url", type: "url"},
    {name: "attribution_email", type: "email"},
    {name: "attribution_phone", type: "phone_number"},
  ] },
  { file: "booking_rules.txt", required: false, fields: [
    {name: "booking_rule_id", type: "id", required: true, primaryKey: true},
    {name: "booking_type", values: [0, 1, 2], type: "enum", required: true},
    {name: "prior_notice_duration_min", type: "integer", conditionallyRequired: true},
    {name: "prior_notice_duration_max", type: "integer", conditionallyRequired: true},
    {name: "prior_notice_start_day", type: "integer", conditionallyRequired: true},
    {name: "prior_notice_start_time", type: "time", conditionallyRequired: true},
    {name: "prior_notice_last_day", type: "integer", conditionallyRequired: true},
    {name: "prior_notice_last_time", type: "time", conditionallyRequired: true},
    {name: "prior_notice_service_id", type: "text", conditionallyRequired: true},
    {name: "message", type: "text", mixedCase: true},
    {name: "pickup_message", type: "text", mixedCase: true},
    {name: "drop_off_message", type: "text", mixedCase: true},
    {name: "phone_number", type: "phone_number"},
    {name: "info_url", type: "url"},
    {name: "booking_url", type: "url"},
  ] },
  { file: "calendar_dates.txt", required: false, fields: [
    {name: "service_id", type: "id", required: true, primaryKey: true},
    {name: "date", type: "date", required: true, primaryKey: true},
    {name: "exception_type", values: [1, 2], type: "enum", required: true},
  ] },
  { file: "calendar.txt", required: false, fields: [
    {name: "service_id", type: "id", required: true, primaryKey: true},
    {name: "monday", values: [0, 1], type: "enum", required: true},
    {name: "tuesday", values: [0, 1], type: "enum", required: true},
    {name: "wednesday", values: [0, 1], type: "enum", required: true},
    {name: "thursday", values: [0, 1], type: "enum", required: true},
    {name: "friday", values: [0, 1], type: "enum", required: true},
    {name: "saturday", values: [0, 1], type: "enum", required: true},
    {name: "sunday", values: [0, 1], type: "enum", required: true},
    {name: "start_date", type: "date", required: true, endRange: ["end_date", true]},
    {name: "end_date", type: "date", required: true},
  ] },
  { file: "fare_attributes.txt", required: false, fields: [
    {name: "fare_id", type: "id", required: true, primaryKey: true},
    {name: "price", type: "decimal", required: true, nonNegative: true},
    {name: "currency_type", type: "currency_code", required: true},
    {name: "payment_method", values: [0, 1], type: "enum", required: true},
    {name: "transfers", values: [0, 1, 2], type: "enum"},
    {name: "agency_id", type: "id", conditionallyRequired: true, foreignKey: ["agency.txt", "agency_id"]},
    {name: "transfer_duration", type: "integer", nonNegative: true},
  ] },
  { file: "fare_leg_join_rules.txt", required: false, fields: [
    {name: "from_network_id", type: "id", required: true},
    {name: "to_network_id", type: "id", required: true},
    {name: "from_stop_id", type: "id", conditionallyRequired: true, foreignKey: ["stops.txt", "stop_id"]},
    {name: "to_stop_id", type: "id", conditionallyRequired: true, foreignKey: ["stops.txt", "stop_id"]},
  ] },
  { file: "fare_leg_rules.txt", required: false, fields: [
    {name: "leg_group_id", type: "id"},
    {name: "network_id", type: "id", primaryKey: true},
    {name: "from_area_id", type: "id", primaryKey: true, foreignKey: ["areas.txt", "area_id"]},
    {name: "to_area_id", type: "id", primaryKey: true, foreignKey: ["areas.txt", "area_id"]},
    {name: "from_timeframe_group_id", type: "id", primaryKey: true, foreignKey: ["timeframes.txt", "timeframe_group_id"]},
    {name: "to_timeframe_group_id", type: "id", primaryKey: true, foreignKey: ["timeframes.txt", "timeframe_group_id"]},
    {name: "fare_product_id", type: "id", required: true, primaryKey: true, foreignKey: ["fare_products.txt", "fare_product_id"]},
    {name: "rule_priority", type: "integer", nonNegative: true},
  ] },
  { file: "fare_media.txt", required: false, fields: [
    {name: "fare_media_id", type: "id", required: true, primaryKey: true},
    {name: "fare_media_name", type: "text"},
    {name: "fare_media_type", values: [0, 1, 2, 3, 4], type: "enum", required: true},
  ] },
  { file: "fare_products.txt", required: false, fields: [
    {name: "fare_product_id", type: "id", required: true, primaryKey: true},
    {name: "fare_product_name", type: "text"},
    {name: "amount", type: "decimal", required: true},
    {name: "currency", type: "currency_code", required: true},
    {name: "fare_media_id", type: "id", primaryKey: true, foreignKey: ["fare_media.txt", "fare_media_id"]},
    {name: "rider_category_id", type: "id", primaryKey: true, foreignKey: ["rider_categories.txt", "rider_category_id"]},
  ] },
  { file: "fare_rules.txt", required: false, fields: [
    {name: "fare_id", type: "id", required: true, primaryKey: true, foreignKey: ["fare_attributes.txt", "fare_id"]},
    {name: "route_id", type: "id", primaryKey: true, foreignKey: ["routes.txt", "route_id"]},
    {name: "origin_id", type: "id", primaryKey: true, foreignKey: ["stops.txt", "zone_id"]},
    {name: "destination_id", type: "id", primaryKey: true, foreignKey: ["stops.txt", "zone_id"]},
    {name: "contains_id", type: "id", primaryKey: true, foreignKey: ["stops.txt", "zone_id"]},
  ] },
  { file: "fare_transfer_rules.txt", required: false, fields: [
    {name: "from_leg_group_id", type: "id", primaryKey: true, foreignKey: ["fare_leg_rules.txt", "leg_group_id"]},
    {name: "to_leg_group_id", type: "id", primaryKey: true, foreignKey: ["fare_leg_rules.txt", "leg_group_id"]},
    {name: "duration_limit", type: "integer", positive: true, primaryKey: true},
    {name: "duration_limit_type", values: [0, 1, 2, 3], type: "enum", conditionallyRequired: true},
    {name: "fare_transfer_type", values: [0, 1, 2], type: "enum", required: true},
    {name: "transfer_count", type: "integer", conditionallyRequired: true, primaryKey: true},
    {name: "fare_product_id", type: "id", primaryKey: true, foreignKey: ["fare_products.txt", "fare_product_id"]},
  ] },
  { file: "feed_info.txt", required: false, fields: [
    {name: "feed_publisher_name", type: "text", required: true},
    {name: "feed_publisher_url", type: "url", required: true},
    {name: "feed_lang", type: "language_code", required: true},
    {name: "default_lang", type: "language_code"},
    {name: "feed_start_date", type: "date", recommended: true, endRange: ["feed_end_date", true]},
    {name: "feed_end_date", type: "date", recommended: true},
    {name: "feed_version", type: "text", recommended: true},
    {name: "feed_contact_email", type: "email"},
    {name: "feed_contact_url", type: "url"},
  ] },
  { file: "frequencies.txt", required: false, fields: [
    {name: "trip_id", type: "text", required: true, primaryKey: true, foreignKey: ["trips.txt", "trip_id"]},
    {name: "start_time", type: "time", required: true, primaryKey: true, endRange: ["end_time", false]},
    {name: "end_time", type: "time", required: true},
    {name: "headway_secs", type: "integer", required: true, positive: true},
    {name: "exact_times", values: [0, 1], type: "enum"},
  ] },
  { file: "levels.txt", required: false, fields: [
    {name: "level_id", type: "id", required: true, primaryKey: true},
    {name: "level_index", type: "float", required: true},
    {name: "level_name", type: "text", mixedCase: true},
  ] },
  { file: "location_group_stops.txt", required: false, fields: [
    {name: "location_group_id", type: "id", required: true},
    {name: "stop_id", type: "id", required: true},
  ] },
  { file: "location_groups.txt", required: false, fields: [
    {name: "location_group_id", type: "id", required: true, primaryKey: true},
    {name: "location_group_name", type: "text", mixedCase: true},
  ] },
  { file: "networks.txt", required: false, fields: [
    {name: "network_id", type: "id", required: true, primaryKey: true},
    {name: "network_name", type: "text", mixedCase: true},
  ] },
  { file: "pathways.txt", required: false, fields: [
    {name: "pathway_id", type: "id", required: true, primaryKey: true},
    {name: "from_stop_id", type: "id", required: true, foreignKey: ["stops.txt", "stop_id"]},
    {name: "to_stop_id", type: "id", required: true, foreignKey: ["stops.txt", "stop_id"]},
    {name: "pathway_mode", values: [1, 2, 3, 4, 5, 6, 7], type: "enum", required: true},
    {name: "is_bidirectional", values: [0, 1], type: "enum", required: true},
    {name: "length", type: "float", nonNegative: true},
    {name: "traversal_time", type: "integer", positive: true},
    {name: "stair_count", type: "integer", nonZero: true},
    {name: "max_slope", type: "float"},
    {name: "min_width", type: "float", positive: true},
    {name: "signposted_as", type: "text", mixedCase: true},
    {name: "reversed_signposted_as", type: "text", mixedCase: true},
  ] },
  { file: "rider_categories.txt", required: false, fields: [
    {name: "rider_category_id", type: "id", required: true, primaryKey: true},
    {name: "rider_category_name", type: "text", required: true},
    {name: "is_default_fare_category", values: [0, 1], type: "enum"},
    {name: "eligibility_url", type: "url"},
  ] },
  { file: "route_networks.txt", required: false, fields: [
    {name: "route_id", type: "id", required: true, primaryKey: true, foreignKey: ["routes.txt", "route_id"]},
    {name: "network_id", type: "id", required: true, foreignKey: ["networks.txt", "network_id"]},
  ] },
  { file: "routes.txt", required: true, fields: [
    {name: "route_id", type: "id", required: true, primaryKey: true},
    {name: "agency_id", type: "id", conditionallyRequired: true, foreignKey: ["agency.txt", "agency_id"]},
    {name: "route_short_name", type: "text", conditionallyRequired: true, mixedCase: true},
    {name: "route_long_name", type: "text", conditionallyRequired: true, mixedCase: true},
    {name: "route_desc", type: "text", mixedCase: true},
    {name: "route_type", values: [0, 1, 2, 3, 4, 5, 6, 7, 11, 12], type: "enum", required: true},
    {name: "route_url", type: "url"},
    {name: "route_color", type: "color"},
    {name: "route_text_color", type: "color"},
    {name: "route_sort_order", type: "integer", nonNegative: true},
    {name: "continuous_pickup", values: [0, 1, 2, 3], type: "enum"},
    {name: "continuous_drop_off", values: [0, 1, 2, 3], type: "enum"},
    {name: "network_id", type: "id", conditionallyRequired: true},
    {name: "cemv_support", values: [0, 1, 2], type: "enum"},
  ] },
  { file: "shapes.txt", required: false, fields: [
    {name: "shape_id", type: "id", required: true, primaryKey: true},
    {name: "shape_pt_lat", type: "latitude", required: true},
    {name: "shape_pt_lon", type: "longitude", required: true},
    {name: "shape_pt_sequence", type: "integer", required: true, nonNegative: true, primaryKey: true},
    {name: "shape_dist_traveled", type: "float", nonNegative: true},
  ] },
  { file: "stop_areas.txt", required: false, fields: [
    {name: "area_id", type: "id", required: true, primaryKey: true, foreignKey: ["areas.txt", "area_id"]},
    {name: "stop_id", type: "id", required: true, primaryKey: true, foreignKey: ["stops.txt", "stop_id"]},
  ] },
  { file: "stops.txt", required: false, fields: [
    {name: "stop_id", type: "id", required: true, primaryKey: true},
    {name: "stop_code", type: "text"},
    {name: "stop_name", type: "text", conditionallyRequired: true, mixedCase: true},
    {name: "tts_stop_name", type: "text"},
    {name: "stop_desc", type: "text"},
    {name: "stop_lat", type: "latitude", conditionallyRequired: true},
    {name: "stop_lon", type: "longitude", conditionallyRequired: true},
    {name: "zone_id", type: "id", conditionallyRequired: true},
    {name: "stop_url", type: "url"},
    {name: "location_type", values: [0, 1, 2, 3, 4], type: "enum"},
    {name: "parent_station", type: "id", conditionallyRequired: true, foreignKey: ["stops.txt", "stop_id"]},
    {name: "stop_timezone", type: "timezone"},
    {name: "wheelchair_boarding", values: [0, 1, 2], type: "enum"},
    {name: "level_id", type: "id", foreignKey: ["levels.txt", "level_id"]},
    {name: "platform_code", type: "text"},
    {name: "stop_access", values: [0, 1], type: "enum"},
  ] },
  { file: "stop_times.txt", required: true, fields: [
    {name: "trip_id", type: "id", required: true, primaryKey: true, foreignKey: ["trips.txt", "trip_id"]},
    {name: "arrival_time", type: "time", conditionallyRequired: true, endRange: ["departure_time", true]},
    {name: "departure_time", type: "time", conditionallyRequired: true},
    {name: "stop_id", type: "id", conditionallyRequired: true, foreignKey: ["stops.txt", "stop_id"]},
    {name: "location_group_id", type: "id", conditionallyRequired: true, foreignKey: ["location_groups.txt", "location_group_id"]},
    {name: "location_id", type: "id", conditionallyRequired: true},
    {name: "stop_sequence", type: "integer", required: true, nonNegative: true, primaryKey: true},
    {name: "stop_headsign", type: "text"},
    {name: "start_pickup_drop_off_window", type: "time"},
    {name: "end_pickup_drop_off_window", type: "time"},
    {name: "pickup_type", values: [0, 1, 2, 3], type: "enum"},
    {name: "drop_off_type", values: [0, 1, 2, 3], type: "enum"},
    {name: "continuous_pickup", values: [0, 1, 2, 3], type: "enum"},
    {name: "continuous_drop_off", values: [0, 1, 2, 3], type: "enum"},
    {name: "shape_dist_traveled", type: "float", nonNegative: true},
    {name: "timepoint", values: [0, 1], type: "enum"},
    {name: "pickup_booking_rule_id", type: "id", foreignKey: ["booking_rules.txt", "booking_rule_id"]},
    {name: "drop_off_booking_rule_id", type: "id", foreignKey: ["booking_rules.txt", "booking_rule_id"]},
  ] },
  { file: "timeframes.txt", required: false, fields: [
    {name: "timeframe_group_id", type: "id", primaryKey: true},
    {name: "start_time", type: "time", conditionallyRequired: true, primaryKey: true, endRange: ["end_time", false]},
    {name: "end_time", type: "time", conditionallyRequired: true, primaryKey: true},
    {name: "service_id", type: "text", required: true, primaryKey: true},
  ] },
  { file: "transfers.txt", required: false, fields: [
    {name: "from_stop_id", type: "id", conditionallyRequired: true, primaryKey: true, foreignKey: ["stops.txt", "stop_id"]},
    {name: "to_stop_id", type: "id", conditionallyRequired: true, primaryKey: true, foreignKey: ["stops.txt", "stop_id"]},
    {name: "transfer_type", values: [0, 1, 2, 3, 4, 5], type: "enum"},
    {name: "min_transfer_time", type: "integer", nonNegative: true},
    {name: "from_trip_id", type: "id", conditionallyRequired: true, primaryKey: true, foreignKey: ["trips.txt", "trip_id"]},
    {name: "to_trip_id", type: "id", conditionallyRequired: true, primaryKey: true, foreignKey: ["trips.txt", "trip_id"]},
    {name: "from_route_id", type: "id", primaryKey: true, foreignKey: ["routes.txt", "route_id"]},
    {name: "to_route_id", type: "id", primaryKey: true, foreignKey: ["routes.txt", "route_id"]},
  ] },
  { file: "translations.txt", required: false, fields: [
    {name: "table_name", type: "text", required: true, primaryKey: true},
    {name: "field_name", type: "text", required: true, primaryKey: true},
    {name: "language", type: "language_code", required: true, primaryKey: true},
    {name: "translation", type: "text", required: true},
    {name: "record_id", type: "text", conditionallyRequired: true, primaryKey: true},
    {name: "record_sub_id", type: "text", conditionallyRequired: true, primaryKey: true},
    {name: "field_value", type: "text", conditionallyRequired: true, primaryKey: true},
  ] },
  { file: "trips.txt", required: true, fields: [
    {name: "trip_id", type: "id", required: true, primaryKey: true},
    {name: "route_id", type: "id", required: true, foreignKey: ["routes.txt", "route_id"]},
    {name: "service_id", type: "id", required: true, foreignKey: ["calendar.txt", "service_id"]},
    {name: "trip_headsign", type: "text", mixedCase: true},
    {name: "trip_short_name", type: "text", mixedCase: true},
    {name: "direction_id", values: [0, 1], type: "enum"},
    {name: "block_id", type: "id"},
    {name: "shape_id", type: "id", conditionallyRequired: true, foreignKey: ["shapes.txt", "shape_id"]},
    {name: "wheelchair_accessible", values: [0, 1, 2], type: "enum"},
    {name: "bikes_allowed", values: [0, 1, 2], type: "enum"},
    {name: "cars_allowed", values: [0, 1, 2], type: "enum"},
    {name: "safe_duration_factor", type: "float"},
    {name: "safe_duration_offset", type: "float"},
  ] },
]

export const SPEC_BY_FILE: ReadonlyMap<string, FileSpec> = new Map(GTFS_SPEC.map((f) => [f.file, f]));

/** Files GTFS names besides the CSV tables (not unknown_file). */
export const OTHER_KNOWN_FILES: ReadonlySet<string> = new Set(["locations.geojson"]);
