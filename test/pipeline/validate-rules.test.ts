/**
 * FEATURE UNDER TEST: the validator's rules, one by one. A tiny clean feed raises no notice at all
 * (so no rule fires where it should not); for each notice code an edit of it that breaks exactly
 * that rule raises the code, with MobilityData's field names in its samples.
 */
import { describe, expect, test } from "bun:test";
import { NOTICE_SEVERITY, type NoticeCode } from "../../pipeline/validate/notices.ts";
import { add, CLEAN, codesOf, edit, sub, validate, type Feed } from "./validate-support.ts";

const stopsWith = (col: string, values: Record<string, string>) => (t: string) =>
  t.split("\n").map((l, i) => (l === "" ? l : i === 0 ? `${l},${col}` : `${l},${values[l.split(",")[0]!] ?? ""}`)).join("\n");
const FARES = "fare_id,price,currency_type,payment_method,transfers\nF1,2.50,USD,0,0\n";

/** Each code, the edit that triggers it, and fields its first sample must have. */
const CASES: [NoticeCode, Feed, string[]][] = [
  ["missing_required_file", edit(CLEAN, { "routes.txt": null }), ["filename"]],
  ["missing_recommended_file", edit(CLEAN, { "feed_info.txt": null }), ["filename"]],
  ["missing_calendar_and_calendar_date_files", edit(CLEAN, { "calendar.txt": null }), []],
  ["unknown_file", edit(CLEAN, { "extra.txt": "a,b\n1,2\n" }), ["filename"]],
  ["empty_file", edit(CLEAN, { "routes.txt": "" }), ["filename"]],
  ["empty_column_name", edit(CLEAN, { "agency.txt": (t) => t.replace("agency_lang\n", "agency_lang,\n").replace(",en\n", ",en,\n") }), ["filename", "index"]],
  ["duplicated_column", edit(CLEAN, { "agency.txt": (t) => t.replace("agency_lang\n", "agency_lang,agency_lang\n").replace(",en\n", ",en,en\n") }), ["filename", "fieldName", "firstIndex", "secondIndex"]],
  ["unknown_column", edit(CLEAN, { "routes.txt": (t) => t.replace("route_text_color\n", "route_text_color,colour\n").replace("FFFFFF\n", "FFFFFF,blue\n") }), ["filename", "fieldName", "index"]],
  ["missing_required_column", edit(CLEAN, { "agency.txt": "agency_id,agency_name,agency_url,agency_lang\nA1,Demo Transit,https://demo.example/,en\n" }), ["filename", "fieldName"]],
  ["invalid_row_length", edit(CLEAN, { "stops.txt": add("S9,Far Stop") }), ["filename", "csvRowNumber", "rowLength", "headerCount"]],
  ["csv_parsing_failed", edit(CLEAN, { "agency.txt": Buffer.from(String(CLEAN["agency.txt"]).replace("Demo Transit", "D\u00e9mo Transit"), "latin1") }), ["filename", "message"]],
  ["leading_or_trailing_whitespaces", edit(CLEAN, { "stops.txt": sub("S1,Main Street", "S1,Main Street ") }), ["filename", "csvRowNumber", "fieldName", "fieldValue"]],
  ["new_line_in_value", edit(CLEAN, { "stops.txt": sub("S1,Main Street", "S1,\"Main\nStreet\"") }), ["filename", "csvRowNumber", "fieldName"]],
  ["non_ascii_or_non_printable_char", edit(CLEAN, { "routes.txt": add("R\u00e9,A1,11,Uptown Loop,3,,") }), ["filename", "csvRowNumber", "columnName", "fieldValue"]],
  ["missing_required_field", edit(CLEAN, { "agency.txt": sub("A1,Demo Transit", "A1,") }), ["filename", "csvRowNumber", "fieldName"]],
  ["missing_recommended_field", edit(CLEAN, { "feed_info.txt": sub(",v1,", ",,") }), ["filename", "csvRowNumber", "fieldName"]],
  ["invalid_url", edit(CLEAN, { "agency.txt": sub("https://demo.example/,America", "demo dot example,America") }), ["filename", "csvRowNumber", "fieldName", "fieldValue"]],
  ["invalid_email", edit(CLEAN, { "feed_info.txt": sub("ops@demo.example", "nobody") }), ["fieldValue"]],
  ["invalid_timezone", edit(CLEAN, { "agency.txt": sub("America/New_York", "Mars/Olympus") }), ["fieldValue"]],
  ["invalid_language_code", edit(CLEAN, { "agency.txt": sub(",en\n", ",english!\n") }), ["fieldValue"]],
  ["invalid_currency", edit(CLEAN, { "fare_attributes.txt": FARES.replace("USD", "XYZ") }), ["fieldValue"]],
  ["invalid_color", edit(CLEAN, { "routes.txt": sub("0000FF", "blue") }), ["fieldValue"]],
  ["invalid_date", edit(CLEAN, { "calendar.txt": sub("20260101", "2026-01-01") }), ["fieldValue"]],
  ["invalid_time", edit(CLEAN, { "stop_times.txt": sub("T1,06:02:00,06:02:00", "T1,6am,06:02:00") }), ["fieldValue"]],
  ["invalid_integer", edit(CLEAN, { "stops.txt": sub("-74.0000,0,,\nS2", "-74.0000,x,,\nS2") }), ["fieldValue"]],
  ["invalid_float", edit(CLEAN, { "stops.txt": sub("40.7000,-74.0000", "north,-74.0000") }), ["fieldValue"]],
  ["number_out_of_range", edit(CLEAN, { "stops.txt": sub("40.7000,-74.0000", "95.0,-74.0000") }), ["fieldType", "fieldValue"]],
  ["unexpected_enum_value", edit(CLEAN, { "routes.txt": sub("Downtown Loop,3,", "Downtown Loop,99,") }), ["fieldValue"]],
  ["mixed_case_recommended_field", edit(CLEAN, { "stops.txt": sub("Main Street", "MAIN STREET") }), ["filename", "fieldName", "fieldValue", "csvRowNumber"]],
  ["duplicate_key", edit(CLEAN, { "stops.txt": add("S3,Park Road Again,40.7100,-74.0000,0,,") }), ["filename", "oldCsvRowNumber", "newCsvRowNumber", "fieldName1", "fieldValue1"]],
  ["foreign_key_violation", edit(CLEAN, { "trips.txt": sub("R1,WK,T2", "R9,WK,T2") }), ["childFilename", "childFieldName", "parentFilename", "parentFieldName", "fieldValue", "csvRowNumber"]],
  ["start_and_end_range_out_of_order", edit(CLEAN, { "feed_info.txt": sub("20260101,20271231", "20271231,20260101") }), ["filename", "csvRowNumber"]],
  ["start_and_end_range_equal", edit(CLEAN, { "frequencies.txt": "trip_id,start_time,end_time,headway_secs\nT1,06:00:00,06:00:00,600\n" }), ["filename", "csvRowNumber"]],
  ["missing_stop_name", edit(CLEAN, { "stops.txt": sub("S1,Main Street", "S1,") }), ["csvRowNumber", "stopId"]],
  ["stop_without_location", edit(CLEAN, { "stops.txt": sub("40.7000,-74.0000", ",") }), ["csvRowNumber", "stopId"]],
  ["location_without_parent_station", edit(CLEAN, { "stops.txt": add("E1,Main Entrance,40.7000,-74.0001,2,,") }), ["csvRowNumber", "stopId", "locationType"]],
  ["station_with_parent_station", edit(CLEAN, { "stops.txt": add("ST1,Central Station,40.7,-74.0,1,ST2,", "ST2,North Station,40.7,-74.0,1,,") }), ["csvRowNumber", "stopId", "parentStation"]],
  ["wrong_parent_location_type", edit(CLEAN, { "stops.txt": sub("-74.0000,0,,\nS2", "-74.0000,0,S2,\nS2") }), ["csvRowNumber", "stopId", "parentStation", "parentLocationType", "expectedLocationType"]],
  ["platform_without_parent_station", edit(CLEAN, { "stops.txt": stopsWith("platform_code", { S1: "A" }) }), ["csvRowNumber", "stopId"]],
  ["unused_station", edit(CLEAN, { "stops.txt": add("ST1,Central Station,40.7,-74.0,1,,") }), ["csvRowNumber", "stopId"]],
  ["stop_without_stop_time", edit(CLEAN, { "stops.txt": add("S9,Elm Street,40.7200,-74.0000,0,,") }), ["csvRowNumber", "stopId"]],
  ["same_name_and_description_for_stop", edit(CLEAN, { "stops.txt": stopsWith("stop_desc", { S1: "Main Street" }) }), ["csvRowNumber", "stopId", "stopDesc"]],
  ["point_near_origin", edit(CLEAN, { "stops.txt": add("S9,Null Island,0.1,0.1,1,,") }), ["filename", "csvRowNumber"]],
  ["point_near_pole", edit(CLEAN, { "stops.txt": add("S9,North Pole,89.5,0.0,1,,") }), ["filename", "csvRowNumber"]],
  ["stop_without_zone_id", edit(CLEAN, { "fare_attributes.txt": FARES, "fare_rules.txt": "fare_id,route_id,origin_id\nF1,R1,Z1\n" }), ["stopId", "csvRowNumber"]],
  ["route_both_short_and_long_name_missing", edit(CLEAN, { "routes.txt": sub("A1,10,Downtown Loop", "A1,,") }), ["routeId", "csvRowNumber"]],
  ["route_short_name_too_long", edit(CLEAN, { "routes.txt": sub("A1,10,", "A1,Downtown Express Line,") }), ["routeId", "routeShortName"]],
  ["route_long_name_contains_short_name", edit(CLEAN, { "routes.txt": sub("Downtown Loop", "10 - Downtown Loop") }), ["routeId", "routeShortName", "routeLongName"]],
  ["same_name_and_description_for_route", edit(CLEAN, { "routes.txt": (t) => t.replace("route_text_color\n", "route_text_color,route_desc\n").replace("FFFFFF\n", "FFFFFF,downtown loop\n") }), ["routeId", "routeDesc", "specifiedField"]],
  ["duplicate_route_name", edit(CLEAN, { "routes.txt": add("R2,A1,10,Downtown Loop,3,0000FF,FFFFFF") }), ["routeId1", "routeId2", "routeShortName"]],
  ["route_color_contrast", edit(CLEAN, { "routes.txt": sub("0000FF,FFFFFF", "0000FF,0000EE") }), ["routeId", "routeColor", "routeTextColor"]],
  ["same_route_and_agency_url", edit(CLEAN, { "routes.txt": (t) => t.replace("route_text_color\n", "route_text_color,route_url\n").replace("FFFFFF\n", "FFFFFF,https://demo.example/\n") }), ["routeId", "routeUrl"]],
  ["same_stop_and_agency_url", edit(CLEAN, { "stops.txt": sub("-74.0000,0,,\nS2", "-74.0000,0,,https://demo.example/\nS2") }), ["stopId", "stopUrl"]],
  ["same_stop_and_route_url", edit(CLEAN, {
    "stops.txt": sub("-74.0000,0,,\nS2", "-74.0000,0,,https://demo.example/10\nS2"),
    "routes.txt": (t) => t.replace("route_text_color\n", "route_text_color,route_url\n").replace("FFFFFF\n", "FFFFFF,https://demo.example/10\n"),
  }), ["stopId", "routeId"]],
  ["inconsistent_agency_timezone", edit(CLEAN, { "agency.txt": add("A2,Other Transit,https://other.example/,Europe/Paris,en") }), ["csvRowNumber", "expected", "actual"]],
  ["inconsistent_agency_lang", edit(CLEAN, { "agency.txt": add("A2,Other Transit,https://other.example/,America/New_York,fr") }), ["csvRowNumber", "expected", "actual"]],
  ["missing_required_agency_id", edit(CLEAN, { "agency.txt": add(",Other Transit,https://other.example/,America/New_York,en") }), ["csvRowNumber", "agencyName"]],
  ["feed_info_lang_and_agency_lang_mismatch", edit(CLEAN, { "feed_info.txt": sub(",en,", ",fr,") }), ["agencyLang", "feedLang"]],
  ["more_than_one_entity", edit(CLEAN, { "feed_info.txt": add("Demo Transit,https://demo.example/,en,20260101,20271231,v2,ops@demo.example") }), ["filename", "entityCount"]],
  ["feed_expiration_date7_days", edit(CLEAN, { "feed_info.txt": sub("20271231", "20260603") }), ["csvRowNumber", "currentDate", "feedEndDate", "suggestedExpirationDate"]],
  ["feed_expiration_date30_days", edit(CLEAN, { "feed_info.txt": sub("20271231", "20260620") }), ["csvRowNumber", "feedEndDate"]],
  ["missing_feed_info_date", edit(CLEAN, { "feed_info.txt": sub(",20260101,", ",,") }), ["csvRowNumber", "fieldName"]],
  ["missing_feed_contact_email_and_url", edit(CLEAN, { "feed_info.txt": sub("ops@demo.example", "") }), ["csvRowNumber"]],
  ["unused_trip", edit(CLEAN, { "trips.txt": add("R1,WK,T3,SH1,,Park Road") }), ["tripId", "csvRowNumber"]],
  ["unusable_trip", edit(CLEAN, { "trips.txt": add("R1,WK,T3,SH1,,Park Road"), "stop_times.txt": add("T3,08:00:00,08:00:00,S1,1,1,0") }), ["csvRowNumber", "tripId"]],
  ["unused_shape", edit(CLEAN, { "shapes.txt": add("SH2,40.7,-74.0,1,0", "SH2,40.71,-74.0,2,1100") }), ["shapeId", "csvRowNumber"]],
  ["missing_bike_allowance", edit(CLEAN, { "routes.txt": sub("Downtown Loop,3,", "Downtown Loop,4,") }), ["csvRowNumber", "routeId", "tripId"]],
  ["stop_time_with_arrival_before_previous_departure_time", edit(CLEAN, { "stop_times.txt": sub("T1,06:02:00,06:02:00", "T1,05:59:00,05:59:00") }), ["csvRowNumber", "prevCsvRowNumber", "tripId", "arrivalTime", "departureTime"]],
  ["stop_time_with_only_arrival_or_departure_time", edit(CLEAN, { "stop_times.txt": sub("T1,06:02:00,06:02:00,S2,2,1", "T1,06:02:00,,S2,2,0") }), ["csvRowNumber", "tripId", "stopSequence", "specifiedField"]],
  ["missing_trip_edge", edit(CLEAN, { "stop_times.txt": sub("T1,06:04:00,06:04:00,S3,3,1", "T1,,,S3,3,0") }), ["csvRowNumber", "stopSequence", "tripId", "specifiedField"]],
  ["decreasing_or_equal_stop_time_distance", edit(CLEAN, { "stop_times.txt": sub("S3,3,1,1100\nT2", "S3,3,1,500\nT2") }), ["tripId", "csvRowNumber", "shapeDistTraveled", "prevShapeDistTraveled"]],
  ["stop_time_timepoint_without_times", edit(CLEAN, { "stop_times.txt": sub("T1,06:02:00,06:02:00,S2,2,1", "T1,,,S2,2,1") }), ["csvRowNumber", "tripId", "stopSequence", "specifiedField"]],
  ["missing_timepoint_value", edit(CLEAN, { "stop_times.txt": sub("T1,06:02:00,06:02:00,S2,2,1", "T1,06:02:00,06:02:00,S2,2,") }), ["csvRowNumber", "tripId", "stopSequence"]],
  ["fast_travel_between_consecutive_stops", edit(CLEAN, { "stops.txt": sub("S3,Park Road,40.7100", "S3,Park Road,41.7100") }), ["tripId", "speedKph", "distanceKm", "stopId1", "stopId2"]],
  ["block_trips_with_overlapping_stop_times", edit(CLEAN, { "stop_times.txt": (t) => t.replace("T2,07:00:00,07:00:00", "T2,06:01:00,06:01:00") }), ["tripIdA", "tripIdB", "blockId", "intersection"]],
  ["expired_calendar", edit(CLEAN, { "calendar.txt": sub("20271231", "20260301") }), ["csvRowNumber", "serviceId"]],
  ["service_has_no_active_day_of_the_week", edit(CLEAN, { "calendar.txt": sub("WK,1,1,1,1,1,1,1", "WK,0,0,0,0,0,0,0"), "calendar_dates.txt": "service_id,date,exception_type\nWK,20260601,1\n" }), ["csvRowNumber", "serviceId"]],
  ["trip_coverage_not_active_for_next7_days", edit(CLEAN, { "calendar.txt": sub("20271231", "20260603") }), ["currentDate", "serviceWindowStartDate", "serviceWindowEndDate"]],
  ["overlapping_frequency", edit(CLEAN, { "frequencies.txt": "trip_id,start_time,end_time,headway_secs\nT1,06:00:00,08:00:00,600\nT1,07:00:00,09:00:00,600\n" }), ["prevCsvRowNumber", "currCsvRowNumber", "tripId"]],
  ["transfer_distance_too_large", edit(CLEAN, { "stops.txt": add("S9,Far Stop,40.9000,-74.0000,1,,"), "transfers.txt": "from_stop_id,to_stop_id,transfer_type\nS1,S9,0\n" }), ["csvRowNumber", "fromStopId", "toStopId", "distanceKm"]],
  ["transfer_distance_above_2_km", edit(CLEAN, { "stops.txt": add("S9,Near Stop,40.7300,-74.0000,1,,"), "transfers.txt": "from_stop_id,to_stop_id,transfer_type\nS1,S9,0\n" }), ["distanceKm"]],
  ["transfer_with_invalid_stop_location_type", edit(CLEAN, { "stops.txt": add("ST1,Central Station,40.7,-74.0,1,,", "E1,Main Entrance,40.7,-74.0,2,ST1,"), "transfers.txt": "from_stop_id,to_stop_id,transfer_type\nS1,E1,0\n" }), ["csvRowNumber", "stopIdFieldName", "stopId", "locationTypeValue"]],
  ["decreasing_shape_distance", edit(CLEAN, { "shapes.txt": sub("40.7100,-74.0000,3,1100", "40.7100,-74.0000,3,300") }), ["shapeId", "csvRowNumber", "shapeDistTraveled", "prevShapeDistTraveled"]],
  ["equal_shape_distance_same_coordinates", edit(CLEAN, { "shapes.txt": add("SH1,40.7100,-74.0000,4,1100") }), ["shapeId", "csvRowNumber", "shapePtSequence"]],
  ["equal_shape_distance_diff_coordinates", edit(CLEAN, { "shapes.txt": sub("40.7100,-74.0000,3,1100", "40.7100,-74.0000,3,550") }), ["shapeId", "actualDistanceBetweenShapePoints"]],
  ["equal_shape_distance_diff_coordinates_distance_below_threshold", edit(CLEAN, { "shapes.txt": add("SH1,40.710004,-74.0000,4,1100") }), ["shapeId", "actualDistanceBetweenShapePoints"]],
  ["attribution_without_role", edit(CLEAN, { "attributions.txt": "attribution_id,organization_name,is_producer\nAT1,Map Makers,0\n" }), ["csvRowNumber", "attributionId"]],
];

describe("validator rules", () => {
  test("the clean feed raises no notice", async () => {
    const r = await validate(CLEAN);
    expect(r.notices).toEqual([]);
    expect(r.summary.counts).toMatchObject({ Stops: 3, Routes: 1, Trips: 2, Agencies: 1, Shapes: 1, Blocks: 1 });
  });

  test("every code has a case below", () => {
    expect(new Set(CASES.map(([c]) => c))).toEqual(new Set(Object.keys(NOTICE_SEVERITY) as NoticeCode[]));
  });

  for (const [code, feed, fields] of CASES) {
    test(`${code} (${NOTICE_SEVERITY[code]})`, async () => {
      const r = await validate(feed);
      const group = r.notices.find((n) => n.code === code);
      expect(codesOf(r)).toContain(code);
      expect(group!.severity).toBe(NOTICE_SEVERITY[code]);
      expect(group!.totalNotices).toBeGreaterThan(0);
      expect(group!.sampleNotices.length).toBeGreaterThan(0);
      for (const f of fields) expect(Object.keys(group!.sampleNotices[0]!)).toContain(f);
    });
  }
});
