/**
 * The validator's notices: every code it raises with its severity (MobilityData's gtfs-validator
 * codes and severities), and the container the rules add to (a total per code and the first
 * samples, each sample an object with the notice's fields under MobilityData's field names).
 */

export type Severity = "ERROR" | "WARNING" | "INFO";

/** Every code this validator raises, with its severity as MobilityData's validator gives it. */
export const NOTICE_SEVERITY = {
  // files and columns
  missing_required_file: "ERROR",
  missing_recommended_file: "WARNING",
  missing_calendar_and_calendar_date_files: "ERROR",
  unknown_file: "INFO",
  empty_file: "ERROR",
  empty_column_name: "ERROR",
  duplicated_column: "ERROR",
  unknown_column: "INFO",
  missing_required_column: "ERROR",
  invalid_row_length: "ERROR",
  csv_parsing_failed: "ERROR",
  // field values
  leading_or_trailing_whitespaces: "WARNING",
  new_line_in_value: "ERROR",
  non_ascii_or_non_printable_char: "WARNING",
  missing_required_field: "ERROR",
  missing_recommended_field: "WARNING",
  invalid_url: "ERROR",
  invalid_email: "ERROR",
  invalid_timezone: "ERROR",
  invalid_language_code: "ERROR",
  invalid_currency: "ERROR",
  invalid_color: "ERROR",
  invalid_date: "ERROR",
  invalid_time: "ERROR",
  invalid_integer: "ERROR",
  invalid_float: "ERROR",
  number_out_of_range: "ERROR",
  unexpected_enum_value: "WARNING",
  mixed_case_recommended_field: "WARNING",
  duplicate_key: "ERROR",
  foreign_key_violation: "ERROR",
  start_and_end_range_out_of_order: "ERROR",
  start_and_end_range_equal: "ERROR",
  // stops
  missing_stop_name: "ERROR",
  stop_without_location: "ERROR",
  location_without_parent_station: "ERROR",
  station_with_parent_station: "ERROR",
  wrong_parent_location_type: "ERROR",
  platform_without_parent_station: "INFO",
  unused_station: "INFO",
  stop_without_stop_time: "WARNING",
  same_name_and_description_for_stop: "WARNING",
  point_near_origin: "ERROR",
  point_near_pole: "ERROR",
  stop_without_zone_id: "INFO",
  // routes and agencies
  route_both_short_and_long_name_missing: "ERROR",
  route_short_name_too_long: "WARNING",
  route_long_name_contains_short_name: "WARNING",
  same_name_and_description_for_route: "WARNING",
  duplicate_route_name: "WARNING",
  route_color_contrast: "WARNING",
  same_route_and_agency_url: "WARNING",
  same_stop_and_agency_url: "WARNING",
  same_stop_and_route_url: "WARNING",
  inconsistent_agency_timezone: "ERROR",
  inconsistent_agency_lang: "WARNING",
  missing_required_agency_id: "ERROR",
  // feed_info
  feed_info_lang_and_agency_lang_mismatch: "WARNING",
  more_than_one_entity: "WARNING",
  feed_expiration_date7_days: "WARNING",
  feed_expiration_date30_days: "WARNING",
  missing_feed_info_date: "WARNING",
  missing_feed_contact_email_and_url: "WARNING",
  // trips and stop times
  unused_trip: "WARNING",
  unusable_trip: "WARNING",
  unused_shape: "WARNING",
  missing_bike_allowance: "WARNING",
  stop_time_with_arrival_before_previous_departure_time: "ERROR",
  stop_time_with_only_arrival_or_departure_time: "ERROR",
  missing_trip_edge: "ERROR",
  decreasing_or_equal_stop_time_distance: "ERROR",
  stop_time_timepoint_without_times: "ERROR",
  missing_timepoint_value: "WARNING",
  fast_travel_between_consecutive_stops: "WARNING",
  block_trips_with_overlapping_stop_times: "ERROR",
  // service
  expired_calendar: "WARNING",
  service_has_no_active_day_of_the_week: "WARNING",
  trip_coverage_not_active_for_next7_days: "WARNING",
  overlapping_frequency: "ERROR",
  // transfers, shapes, attributions
  transfer_distance_too_large: "WARNING",
  transfer_distance_above_2_km: "INFO",
  transfer_with_invalid_stop_location_type: "ERROR",
  decreasing_shape_distance: "ERROR",
  equal_shape_distance_same_coordinates: "WARNING",
  equal_shape_distance_diff_coordinates: "ERROR",
  equal_shape_distance_diff_coordinates_distance_below_threshold: "INFO",
  attribution_without_role: "WARNING",
} as const satisfies Record<string, Severity>;

export type NoticeCode = keyof typeof NOTICE_SEVERITY;

export const SEVERITY_ORDER: Record<Severity, number> = { ERROR: 0, WARNING: 1, INFO: 2 };

/** Samples kept per code (MobilityData keeps a bounded number per code too). */
export const MAX_SAMPLES = 50;

export type NoticeFields = Record<string, string | number | boolean | null>;

export interface NoticeGroup {
  code: NoticeCode;
  severity: Severity;
  totalNotices: number;
  sampleNotices: NoticeFields[];
}

/** The notices of one validation: a total per code and its first samples. */
export class Notices {
  private readonly groups = new Map<NoticeCode, NoticeGroup>();

  add(code: NoticeCode, fields: NoticeFields): void {
    this.addMany(code, 1, [fields]);
  }

  /** `count` notices of a code of which `samples` are the first few. */
  addMany(code: NoticeCode, count: number, samples: NoticeFields[]): void {
    if (count <= 0) return;
    const g = this.groups.get(code) ?? { code, severity: NOTICE_SEVERITY[code], totalNotices: 0, sampleNotices: [] };
    this.groups.set(code, g);
    g.totalNotices += count;
    for (const s of samples) if (g.sampleNotices.length < MAX_SAMPLES) g.sampleNotices.push(s);
  }

  /** `other`'s notices after these (as if each had been added here in turn). */
  addAll(other: Notices): void {
    for (const g of other.groups.values()) this.addMany(g.code, g.totalNotices, g.sampleNotices);
  }

  has(code: NoticeCode): boolean {
    return this.groups.has(code);
  }

  /** Groups by severity (ERROR first), then by code. */
  list(): NoticeGroup[] {
    return [...this.groups.values()].sort((a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] || a.code.localeCompare(b.code));
  }
}
