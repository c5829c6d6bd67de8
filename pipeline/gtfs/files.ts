/**
 * The GTFS files the importer reads (https://gtfs.org/documentation/schedule/reference/), with the
 * columns it keeps. `required` columns missing from a present file reject the feed; optional
 * columns missing are read as NULL. Extra columns are ignored.
 */

export interface GtfsFileSpec {
  file: string;
  /** the feed is rejected when this file is missing */
  required: boolean;
  required_columns: string[];
  optional_columns: string[];
}

export const GTFS_FILES: GtfsFileSpec[] = [
  {
    file: "agency.txt",
    required: true,
    required_columns: ["agency_name"],
    optional_columns: ["agency_id", "agency_url", "agency_timezone", "agency_lang", "agency_phone", "agency_fare_url", "agency_email"],
  },
  {
    file: "stops.txt",
    required: true,
    required_columns: ["stop_id"],
    optional_columns: [
      "stop_code", "stop_name", "tts_stop_name", "stop_desc", "stop_lat", "stop_lon", "zone_id", "stop_url", "location_type",
      "parent_station", "stop_timezone", "wheelchair_boarding", "level_id", "platform_code", "stop_access",
    ],
  },
  {
    file: "routes.txt",
    required: true,
    required_columns: ["route_id", "route_type"],
    optional_columns: [
      "agency_id", "route_short_name", "route_long_name", "route_desc", "route_url", "route_color", "route_text_color",
      "route_sort_order", "continuous_pickup", "continuous_drop_off", "network_id",
    ],
  },
  {
    file: "trips.txt",
    required: true,
    required_columns: ["route_id", "service_id", "trip_id"],
    optional_columns: ["trip_headsign", "trip_short_name", "direction_id", "block_id", "shape_id", "wheelchair_accessible", "bikes_allowed", "cars_allowed"],
  },
  {
    file: "stop_times.txt",
    required: true,
    required_columns: ["trip_id", "stop_sequence"],
    optional_columns: [
      "arrival_time", "departure_time", "stop_id", "stop_headsign", "pickup_type", "drop_off_type", "continuous_pickup",
      "continuous_drop_off", "shape_dist_traveled", "timepoint", "location_id", "location_group_id",
      "start_pickup_drop_off_window", "end_pickup_drop_off_window",
    ],
  },
  {
    file: "calendar.txt",
    required: false,
    required_columns: ["service_id", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "start_date", "end_date"],
    optional_columns: [],
  },
  { file: "calendar_dates.txt", required: false, required_columns: ["service_id", "date", "exception_type"], optional_columns: [] },
  {
    file: "shapes.txt",
    required: false,
    required_columns: ["shape_id", "shape_pt_lat", "shape_pt_lon", "shape_pt_sequence"],
    optional_columns: ["shape_dist_traveled"],
  },
  { file: "frequencies.txt", required: false, required_columns: ["trip_id", "start_time", "end_time", "headway_secs"], optional_columns: ["exact_times"] },
  {
    file: "transfers.txt",
    required: false,
    required_columns: [],
    optional_columns: ["from_stop_id", "to_stop_id", "from_route_id", "to_route_id", "from_trip_id", "to_trip_id", "transfer_type", "min_transfer_time"],
  },
  {
    file: "feed_info.txt",
    required: false,
    required_columns: [],
    optional_columns: [
      "feed_publisher_name", "feed_publisher_url", "feed_lang", "default_lang", "feed_start_date", "feed_end_date", "feed_version",
      "feed_contact_email", "feed_contact_url",
    ],
  },
];
