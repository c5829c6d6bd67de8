/**
 * The validator's rules over several rows or files, each as SQL over the loaded tables (load.ts)
 * and derived ones: `vst_trip` and `vst_stop` (each trip's stop-time count and span, the stops
 * served: stop-times.ts, which runs the stop-time rules) and `vsd`, the dates each service runs
 * (calendar.txt weekdays within its range, calendar_dates.txt added and removed). Each rule is implemented from
 * the documentation of MobilityData's notice of the same code (its thresholds included: 12
 * characters for a short name, 72 of luma between route colours, 1.11 m between shape points,
 * the speed limits per route type, 2 and 10 km for transfers).
 */
import type { DuckDBConnection } from "@duckdb/node-api";
import { haversineSql } from "../../shared/geo.ts";
import type { LoadedFile } from "./load.ts";
import type { NoticeCode, Notices } from "./notices.ts";
import { count, sampleRows } from "./sql.ts";
import type { StopTimesColumns } from "../gtfs/stop-times/columns.ts";
import { checkStopTimes, type PreparedStopTimes } from "./stop-times.ts";

export interface RuleContext {
  conn: DuckDBConnection;
  notices: Notices;
  files: Map<string, LoadedFile>;
  /** the validation date (YYYY-MM-DD) */
  today: string;
  /** the stop_times relation to read when stop_times.txt was not loaded into v_stop_times (the import's) */
  stopTimesRelation?: string;
  /** with stopTimesRelation: the same stop times as columns, when the import has them in memory */
  stopTimesContract?: StopTimesColumns | null;
  /** without stopTimesRelation: stop_times.txt's rows as read by the fast reader (v_stop_times is then empty) */
  preparedStopTimes?: PreparedStopTimes | null;
}

/** A rule's query: every row is one notice, its columns the notice's fields. */
async function emit(ctx: RuleContext, code: NoticeCode, sql: string): Promise<void> {
  const n = await count(ctx.conn, sql);
  if (n > 0) ctx.notices.addMany(code, n, await sampleRows(ctx.conn, sql));
}

const has = (ctx: RuleContext, file: string) => ctx.files.get(file)?.present === true && (ctx.files.get(file)!.rows > 0 || file === "stop_times.txt");
const hasColumn = (ctx: RuleContext, file: string, col: string) => ctx.files.get(file)?.columns.includes(col) === true;
/** metres between the points `<a>_lat, <a>_lon` and `<b>_lat, <b>_lon` */
const dist = (a: string, b: string) => haversineSql(`${a}_lat`, `${a}_lon`, `${b}_lat`, `${b}_lon`);

/** The derived tables the rules read. */
async function prepare(ctx: RuleContext): Promise<void> {
  const { conn } = ctx;
  await conn.run(`CREATE OR REPLACE MACRO gsecs(s) AS TRY_CAST(split_part(s, ':', 1) AS INTEGER) * 3600 + TRY_CAST(split_part(s, ':', 2) AS INTEGER) * 60 + TRY_CAST(split_part(s, ':', 3) AS INTEGER)`);
  await conn.run(`CREATE OR REPLACE MACRO gdate(s) AS try_strptime(s, '%Y%m%d')::DATE`);
  await checkStopTimes(conn, ctx.notices, {
    relation: ctx.stopTimesRelation, contract: ctx.stopTimesContract, prepared: ctx.preparedStopTimes, hasTimepointColumn: hasColumn(ctx, "stop_times.txt", "timepoint"),
  });
  await conn.run(`CREATE OR REPLACE TABLE vsd AS
    WITH cal AS (SELECT service_id, gdate(start_date) AS s, gdate(end_date) AS e, [sunday, monday, tuesday, wednesday, thursday, friday, saturday] AS days FROM v_calendar),
    gen AS (SELECT service_id, unnest(generate_series(s, least(e, s + INTERVAL 3660 DAY), INTERVAL 1 DAY))::DATE AS d, days FROM cal WHERE s IS NOT NULL AND e IS NOT NULL AND s <= e),
    ex AS (SELECT service_id, gdate(date) AS d, exception_type AS x FROM v_calendar_dates WHERE gdate(date) IS NOT NULL)
    SELECT service_id, d FROM gen WHERE days[dayofweek(d) + 1] = '1' AND NOT EXISTS (SELECT 1 FROM ex WHERE ex.service_id = gen.service_id AND ex.d = gen.d AND ex.x = '2')
    UNION SELECT service_id, d FROM ex WHERE x = '1'`);
}

type Rule = (ctx: RuleContext) => Promise<void>;

const fileRules: Rule[] = [
  async (ctx) => {
    if (!has(ctx, "calendar.txt") && !has(ctx, "calendar_dates.txt")) ctx.notices.add("missing_calendar_and_calendar_date_files", {});
    if (!ctx.files.get("feed_info.txt")!.present) {
      if (ctx.files.get("translations.txt")!.present) ctx.notices.add("missing_required_file", { filename: "feed_info.txt" });
      else ctx.notices.add("missing_recommended_file", { filename: "feed_info.txt" });
    }
    if (!has(ctx, "shapes.txt")) ctx.notices.add("missing_recommended_file", { filename: "shapes.txt" });
    if (!ctx.files.get("stops.txt")!.present) ctx.notices.add("missing_required_file", { filename: "stops.txt" });
  },
];

const rangeRules: Rule[] = [
  // start_and_end_range_*: calendar and feed_info dates, frequencies times, stop_times arrival/departure
  async (ctx) => {
    for (const [file, a, b, kind, allowEqual] of [
      ["calendar.txt", "start_date", "end_date", "date", true], ["feed_info.txt", "feed_start_date", "feed_end_date", "date", true],
      ["frequencies.txt", "start_time", "end_time", "time", false],
    ] as const) {
      if (!has(ctx, file)) continue;
      const t = `v_${file.replace(".txt", "")}`;
      const conv = (c: string) => (kind === "date" ? `gdate(${c})` : `gsecs(${c})`);
      await emit(ctx, "start_and_end_range_out_of_order", `SELECT '${file}' AS filename, __line AS csvRowNumber FROM ${t} WHERE ${conv(a)} > ${conv(b)} ORDER BY __line`);
      if (!allowEqual) await emit(ctx, "start_and_end_range_equal", `SELECT '${file}' AS filename, __line AS csvRowNumber FROM ${t} WHERE ${conv(a)} = ${conv(b)} ORDER BY __line`);
    }
  },
];

const stopRules: Rule[] = [
  async (ctx) => {
    const lt = `coalesce(TRY_CAST(location_type AS INTEGER), 0)`;
    await emit(ctx, "missing_stop_name", `SELECT __line AS csvRowNumber, stop_id AS stopId FROM v_stops WHERE stop_name IS NULL AND ${lt} IN (0, 1, 2) ORDER BY __line`);
    await emit(ctx, "stop_without_location", `SELECT __line AS csvRowNumber, ${lt} AS locationType, stop_id AS stopId FROM v_stops WHERE (stop_lat IS NULL OR stop_lon IS NULL) AND ${lt} IN (0, 1, 2) ORDER BY __line`);
    await emit(ctx, "location_without_parent_station", `SELECT __line AS csvRowNumber, stop_id AS stopId, stop_name AS stopName, ${lt} AS locationType FROM v_stops WHERE parent_station IS NULL AND ${lt} IN (2, 3, 4) ORDER BY __line`);
    await emit(ctx, "station_with_parent_station", `SELECT __line AS csvRowNumber, stop_id AS stopId, stop_name AS stopName, parent_station AS parentStation FROM v_stops WHERE parent_station IS NOT NULL AND ${lt} = 1 ORDER BY __line`);
    await emit(ctx, "wrong_parent_location_type", `SELECT c.__line AS csvRowNumber, c.stop_id AS stopId, c.stop_name AS stopName, coalesce(TRY_CAST(c.location_type AS INTEGER), 0) AS locationType,
        p.__line AS parentCsvRowNumber, p.stop_id AS parentStation, p.stop_name AS parentStopName, coalesce(TRY_CAST(p.location_type AS INTEGER), 0) AS parentLocationType,
        CASE WHEN coalesce(TRY_CAST(c.location_type AS INTEGER), 0) = 4 THEN 0 ELSE 1 END AS expectedLocationType
      FROM v_stops c JOIN v_stops p ON p.stop_id = c.parent_station
      WHERE coalesce(TRY_CAST(c.location_type AS INTEGER), 0) IN (0, 2, 3, 4)
        AND coalesce(TRY_CAST(p.location_type AS INTEGER), 0) <> CASE WHEN coalesce(TRY_CAST(c.location_type AS INTEGER), 0) = 4 THEN 0 ELSE 1 END ORDER BY c.__line`);
    await emit(ctx, "platform_without_parent_station", `SELECT __line AS csvRowNumber, stop_id AS stopId, stop_name AS stopName FROM v_stops WHERE platform_code IS NOT NULL AND parent_station IS NULL AND ${lt} = 0 ORDER BY __line`);
    await emit(ctx, "unused_station", `SELECT __line AS csvRowNumber, stop_id AS stopId, stop_name AS stopName FROM v_stops s WHERE ${lt} = 1
      AND NOT EXISTS (SELECT 1 FROM v_stops c WHERE c.parent_station = s.stop_id AND coalesce(TRY_CAST(c.location_type AS INTEGER), 0) = 0 AND c.stop_id IN (SELECT stop_id FROM vst_stop)) ORDER BY __line`);
    await emit(ctx, "stop_without_stop_time", `SELECT __line AS csvRowNumber, stop_id AS stopId, stop_name AS stopName FROM v_stops s WHERE ${lt} = 0
      AND NOT EXISTS (SELECT 1 FROM vst_stop u WHERE u.stop_id = s.stop_id) AND NOT EXISTS (SELECT 1 FROM v_location_group_stops g WHERE g.stop_id = s.stop_id) ORDER BY __line`);
    await emit(ctx, "same_name_and_description_for_stop", `SELECT __line AS csvRowNumber, stop_id AS stopId, stop_desc AS stopDesc FROM v_stops WHERE lower(stop_desc) = lower(stop_name) ORDER BY __line`);
    const lat = `TRY_CAST(stop_lat AS DOUBLE)`, lon = `TRY_CAST(stop_lon AS DOUBLE)`;
    await emit(ctx, "point_near_origin", `SELECT 'stops.txt' AS filename, __line AS csvRowNumber, 'stop_lat' AS latFieldName, ${lat} AS latFieldValue, 'stop_lon' AS lonFieldName, ${lon} AS lonFieldValue FROM v_stops WHERE abs(${lat}) <= 1 AND abs(${lon}) <= 1 ORDER BY __line`);
    await emit(ctx, "point_near_pole", `SELECT 'stops.txt' AS filename, __line AS csvRowNumber, 'stop_lat' AS latFieldName, ${lat} AS latFieldValue, 'stop_lon' AS lonFieldName, ${lon} AS lonFieldValue FROM v_stops WHERE abs(${lat}) >= 89 AND abs(${lat}) <= 90 ORDER BY __line`);
    await emit(ctx, "point_near_origin", `SELECT 'shapes.txt' AS filename, __line AS csvRowNumber, 'shape_pt_lat' AS latFieldName, TRY_CAST(shape_pt_lat AS DOUBLE) AS latFieldValue, 'shape_pt_lon' AS lonFieldName, TRY_CAST(shape_pt_lon AS DOUBLE) AS lonFieldValue FROM v_shapes WHERE abs(TRY_CAST(shape_pt_lat AS DOUBLE)) <= 1 AND abs(TRY_CAST(shape_pt_lon AS DOUBLE)) <= 1 ORDER BY __line`);
    // zones: only when fare_rules.txt names zones for a route serving the stop
    if (has(ctx, "fare_rules.txt")) {
      // (the stops served by any trip, when some fare rule of the feed names zones)
      await emit(ctx, "stop_without_zone_id", `SELECT s.stop_id AS stopId, s.stop_name AS stopName, s.__line AS csvRowNumber FROM v_stops s
        WHERE s.zone_id IS NULL AND coalesce(TRY_CAST(s.location_type AS INTEGER), 0) = 0 AND s.stop_id IN (SELECT stop_id FROM vst_stop)
          AND EXISTS (SELECT 1 FROM v_fare_rules f WHERE f.origin_id IS NOT NULL OR f.destination_id IS NOT NULL OR f.contains_id IS NOT NULL) ORDER BY 3`);
    }
  },
];

const routeRules: Rule[] = [
  async (ctx) => {
    await emit(ctx, "route_both_short_and_long_name_missing", `SELECT route_id AS routeId, __line AS csvRowNumber FROM v_routes WHERE route_short_name IS NULL AND route_long_name IS NULL ORDER BY __line`);
    await emit(ctx, "route_short_name_too_long", `SELECT route_id AS routeId, __line AS csvRowNumber, route_short_name AS routeShortName FROM v_routes WHERE length(route_short_name) > 12 ORDER BY __line`);
    await emit(ctx, "route_long_name_contains_short_name", `SELECT route_id AS routeId, __line AS csvRowNumber, route_short_name AS routeShortName, route_long_name AS routeLongName FROM v_routes
      WHERE starts_with(lower(route_long_name), lower(route_short_name))
        AND (length(route_long_name) = length(route_short_name) OR regexp_matches(substr(route_long_name, length(route_short_name) + 1), '^\\s?[\\s\\-\\(\\)]')) ORDER BY __line`);
    await emit(ctx, "same_name_and_description_for_route", `SELECT __line AS csvRowNumber, route_id AS routeId, route_desc AS routeDesc,
        CASE WHEN lower(route_desc) = lower(route_short_name) THEN 'route_short_name' ELSE 'route_long_name' END AS specifiedField
      FROM v_routes WHERE lower(route_desc) = lower(route_short_name) OR lower(route_desc) = lower(route_long_name) ORDER BY __line`);
    await emit(ctx, "duplicate_route_name", `SELECT a.__line AS csvRowNumber1, a.route_id AS routeId1, b.__line AS csvRowNumber2, b.route_id AS routeId2,
        b.route_short_name AS routeShortName, b.route_long_name AS routeLongName, TRY_CAST(b.route_type AS INTEGER) AS routeTypeValue, b.agency_id AS agencyId
      FROM v_routes b JOIN LATERAL (SELECT min(__line) AS l FROM v_routes a WHERE a.route_long_name IS NOT DISTINCT FROM b.route_long_name AND a.route_short_name IS NOT DISTINCT FROM b.route_short_name
        AND a.route_type IS NOT DISTINCT FROM b.route_type AND a.agency_id IS NOT DISTINCT FROM b.agency_id) m ON m.l < b.__line
      JOIN v_routes a ON a.__line = m.l ORDER BY b.__line`);
    const luma = (c: string) => `(0.299 * ('0x' || substr(${c}, 1, 2))::INTEGER + 0.587 * ('0x' || substr(${c}, 3, 2))::INTEGER + 0.114 * ('0x' || substr(${c}, 5, 2))::INTEGER)`;
    await emit(ctx, "route_color_contrast", `SELECT route_id AS routeId, __line AS csvRowNumber, route_color AS routeColor, route_text_color AS routeTextColor FROM v_routes
      WHERE regexp_full_match(route_color, '[0-9A-Fa-f]{6}') AND regexp_full_match(route_text_color, '[0-9A-Fa-f]{6}') AND abs(${luma("route_color")} - ${luma("route_text_color")}) < 72 ORDER BY __line`);
    await emit(ctx, "same_route_and_agency_url", `SELECT r.__line AS routeCsvRowNumber, r.route_id AS routeId, a.agency_name AS agencyName, r.route_url AS routeUrl, a.__line AS agencyCsvRowNumber
      FROM v_routes r JOIN v_agency a ON a.agency_url = r.route_url ORDER BY r.__line`);
    await emit(ctx, "same_stop_and_agency_url", `SELECT s.__line AS stopCsvRowNumber, s.stop_id AS stopId, a.agency_name AS agencyName, s.stop_url AS stopUrl, a.__line AS agencyCsvRowNumber
      FROM v_stops s JOIN v_agency a ON a.agency_url = s.stop_url ORDER BY s.__line`);
    await emit(ctx, "same_stop_and_route_url", `SELECT s.__line AS stopCsvRowNumber, s.stop_id AS stopId, s.stop_url AS stopUrl, r.route_id AS routeId, r.__line AS routeCsvRowNumber
      FROM v_stops s JOIN v_routes r ON r.route_url = s.stop_url ORDER BY s.__line`);
    // agencies: one time zone and one language; agency_id named when there are several
    await emit(ctx, "inconsistent_agency_timezone", `SELECT a.__line AS csvRowNumber, f.agency_timezone AS expected, a.agency_timezone AS actual FROM v_agency a,
      (SELECT agency_timezone FROM v_agency ORDER BY __line LIMIT 1) f WHERE a.agency_timezone IS DISTINCT FROM f.agency_timezone AND a.agency_timezone IS NOT NULL ORDER BY a.__line`);
    await emit(ctx, "inconsistent_agency_lang", `SELECT a.__line AS csvRowNumber, lower(f.agency_lang) AS expected, lower(a.agency_lang) AS actual FROM v_agency a,
      (SELECT agency_lang FROM v_agency WHERE agency_lang IS NOT NULL ORDER BY __line LIMIT 1) f WHERE a.agency_lang IS NOT NULL AND lower(a.agency_lang) <> lower(f.agency_lang) ORDER BY a.__line`);
    if (ctx.files.get("agency.txt")!.rows > 1) {
      await emit(ctx, "missing_required_agency_id", `SELECT 'agency.txt' AS filename, __line AS csvRowNumber, agency_name AS agencyName FROM v_agency WHERE agency_id IS NULL ORDER BY __line`);
      await emit(ctx, "missing_required_field", `SELECT 'routes.txt' AS filename, __line AS csvRowNumber, 'agency_id' AS fieldName FROM v_routes WHERE agency_id IS NULL ORDER BY __line`);
    }
  },
];

const feedInfoRules: Rule[] = [
  async (ctx) => {
    if (!has(ctx, "feed_info.txt")) return;
    const rows = ctx.files.get("feed_info.txt")!.rows;
    if (rows > 1) ctx.notices.add("more_than_one_entity", { filename: "feed_info.txt", entityCount: rows });
    await emit(ctx, "feed_info_lang_and_agency_lang_mismatch", `SELECT f.__line AS csvRowNumber, a.agency_id AS agencyId, a.agency_name AS agencyName, a.agency_lang AS agencyLang, f.feed_lang AS feedLang
      FROM v_feed_info f, v_agency a WHERE lower(f.feed_lang) <> 'mul' AND a.agency_lang IS NOT NULL AND f.feed_lang IS NOT NULL AND lower(a.agency_lang) <> lower(f.feed_lang) ORDER BY a.__line`);
    const today = `DATE '${ctx.today}'`;
    await emit(ctx, "feed_expiration_date7_days", `SELECT __line AS csvRowNumber, strftime(${today}, '%Y%m%d') AS currentDate, feed_end_date AS feedEndDate, strftime(${today} + 7, '%Y%m%d') AS suggestedExpirationDate
      FROM v_feed_info WHERE gdate(feed_end_date) < ${today} + 7 ORDER BY __line`);
    await emit(ctx, "feed_expiration_date30_days", `SELECT __line AS csvRowNumber, strftime(${today}, '%Y%m%d') AS currentDate, feed_end_date AS feedEndDate, strftime(${today} + 30, '%Y%m%d') AS suggestedExpirationDate
      FROM v_feed_info WHERE gdate(feed_end_date) >= ${today} + 7 AND gdate(feed_end_date) < ${today} + 30 ORDER BY __line`);
    await emit(ctx, "missing_feed_info_date", `SELECT __line AS csvRowNumber, CASE WHEN feed_start_date IS NULL THEN 'feed_start_date' ELSE 'feed_end_date' END AS fieldName
      FROM v_feed_info WHERE (feed_start_date IS NULL) <> (feed_end_date IS NULL) ORDER BY __line`);
    await emit(ctx, "missing_recommended_field", `SELECT 'feed_info.txt' AS filename, __line AS csvRowNumber, 'feed_version' AS fieldName FROM v_feed_info WHERE feed_version IS NULL ORDER BY __line`);
    await emit(ctx, "missing_feed_contact_email_and_url", `SELECT __line AS csvRowNumber FROM v_feed_info WHERE feed_contact_email IS NULL AND feed_contact_url IS NULL ORDER BY __line`);
  },
];

const tripRules: Rule[] = [
  async (ctx) => {
    await emit(ctx, "unused_trip", `SELECT trip_id AS tripId, __line AS csvRowNumber FROM v_trips t WHERE NOT EXISTS (SELECT 1 FROM vst_trip s WHERE s.trip_id = t.trip_id)
      AND NOT EXISTS (SELECT 1 FROM vst_flex f WHERE f.trip_id = t.trip_id) ORDER BY __line`);
    await emit(ctx, "unusable_trip", `SELECT t.__line AS csvRowNumber, t.trip_id AS tripId FROM v_trips t LEFT JOIN vst_trip s USING (trip_id) WHERE coalesce(s.n, 0) <= 1
      AND NOT EXISTS (SELECT 1 FROM vst_flex f WHERE f.trip_id = t.trip_id) ORDER BY t.__line`);
    if (has(ctx, "shapes.txt")) {
      await emit(ctx, "unused_shape", `SELECT shape_id AS shapeId, min(__line) AS csvRowNumber FROM v_shapes s WHERE NOT EXISTS (SELECT 1 FROM v_trips t WHERE t.shape_id = s.shape_id) GROUP BY shape_id ORDER BY 2`);
    }
    await emit(ctx, "missing_bike_allowance", `SELECT t.__line AS csvRowNumber, t.route_id AS routeId, t.trip_id AS tripId FROM v_trips t JOIN v_routes r USING (route_id)
      WHERE TRY_CAST(r.route_type AS INTEGER) = 4 AND t.bikes_allowed IS NULL ORDER BY t.__line`);
  },
];

const serviceRules: Rule[] = [
  async (ctx) => {
    const today = `DATE '${ctx.today}'`;
    // expired_calendar: calendar.txt services all past; services of calendar_dates.txt only when every service is past
    await emit(ctx, "expired_calendar", `WITH last AS (SELECT service_id, max(d) AS e FROM vsd GROUP BY service_id)
      SELECT c.__line AS csvRowNumber, c.service_id AS serviceId FROM v_calendar c JOIN last USING (service_id) WHERE last.e < ${today}
      UNION ALL
      SELECT min(cd.__line) AS csvRowNumber, cd.service_id AS serviceId FROM v_calendar_dates cd JOIN last USING (service_id)
        WHERE NOT EXISTS (SELECT 1 FROM v_calendar) AND (SELECT max(e) FROM last) < ${today} GROUP BY cd.service_id ORDER BY 1`);
    await emit(ctx, "service_has_no_active_day_of_the_week", `SELECT __line AS csvRowNumber, service_id AS serviceId FROM v_calendar
      WHERE coalesce(monday, '0') = '0' AND coalesce(tuesday, '0') = '0' AND coalesce(wednesday, '0') = '0' AND coalesce(thursday, '0') = '0'
        AND coalesce(friday, '0') = '0' AND coalesce(saturday, '0') = '0' AND coalesce(sunday, '0') = '0' ORDER BY __line`);
    // the trips' service dates must cover the next 7 days
    await emit(ctx, "trip_coverage_not_active_for_next7_days", `WITH w AS (SELECT min(d) AS s, max(d) AS e FROM vsd WHERE service_id IN (SELECT service_id FROM v_trips))
      SELECT strftime(${today}, '%Y%m%d') AS currentDate, strftime(s, '%Y%m%d') AS serviceWindowStartDate, strftime(e, '%Y%m%d') AS serviceWindowEndDate
      FROM w WHERE s IS NOT NULL AND (s > ${today} OR e < ${today} + 6)`);
    await emit(ctx, "overlapping_frequency", `SELECT prev_line AS prevCsvRowNumber, prev_end AS prevEndTime, __line AS currCsvRowNumber, start_time AS currStartTime, trip_id AS tripId FROM (
        SELECT trip_id, __line, start_time, lag(end_time) OVER w AS prev_end, lag(__line) OVER w AS prev_line, gsecs(start_time) AS s, lag(gsecs(end_time)) OVER w AS pe
        FROM v_frequencies WINDOW w AS (PARTITION BY trip_id ORDER BY gsecs(start_time))) WHERE s < pe ORDER BY __line`);
    // trips of one block whose times overlap on a day both run
    await emit(ctx, "block_trips_with_overlapping_stop_times", `WITH bt AS (SELECT t.trip_id, t.service_id, t.block_id, t.__line, s.t0, s.t1 FROM v_trips t JOIN vst_trip s USING (trip_id) WHERE t.block_id IS NOT NULL),
      pairs AS (SELECT a.__line AS csvRowNumberA, a.trip_id AS tripIdA, a.service_id AS serviceIdA, b.__line AS csvRowNumberB, b.trip_id AS tripIdB, b.service_id AS serviceIdB, a.block_id AS blockId
        FROM bt a JOIN bt b ON a.block_id = b.block_id AND a.__line < b.__line AND a.t0 < b.t1 AND b.t0 < a.t1),
      services AS (SELECT DISTINCT serviceIdA, serviceIdB FROM pairs),
      -- the first date both services of a pair run (joined pair by pair: a correlated subquery over vsd
      -- became vsd joined with itself on the date, billions of rows on a feed with thousands of services)
      common AS (SELECT s.serviceIdA, s.serviceIdB, min(x.d) AS d FROM services s
        JOIN vsd x ON x.service_id = s.serviceIdA JOIN vsd y ON y.service_id = s.serviceIdB AND y.d = x.d GROUP BY s.serviceIdA, s.serviceIdB)
      SELECT p.*, strftime(c.d, '%Y%m%d') AS intersection
      FROM pairs p LEFT JOIN common c ON c.serviceIdA = p.serviceIdA AND c.serviceIdB = p.serviceIdB
      WHERE p.serviceIdA = p.serviceIdB OR c.d IS NOT NULL ORDER BY csvRowNumberA, csvRowNumberB`);
  },
];

const otherRules: Rule[] = [
  async (ctx) => {
    if (has(ctx, "transfers.txt")) {
      const tr = `SELECT t.__line AS csvRowNumber, t.from_stop_id AS fromStopId, t.to_stop_id AS toStopId,
          round(${dist("a", "b")} / 1000, 3) AS distanceKm FROM v_transfers t
        JOIN (SELECT stop_id, TRY_CAST(stop_lat AS DOUBLE) AS a_lat, TRY_CAST(stop_lon AS DOUBLE) AS a_lon FROM v_stops) fa ON fa.stop_id = t.from_stop_id
        JOIN (SELECT stop_id, TRY_CAST(stop_lat AS DOUBLE) AS b_lat, TRY_CAST(stop_lon AS DOUBLE) AS b_lon FROM v_stops) fb ON fb.stop_id = t.to_stop_id`;
      await emit(ctx, "transfer_distance_too_large", `SELECT * FROM (${tr}) WHERE distanceKm > 10 ORDER BY csvRowNumber`);
      await emit(ctx, "transfer_distance_above_2_km", `SELECT * FROM (${tr}) WHERE distanceKm > 2 AND distanceKm <= 10 ORDER BY csvRowNumber`);
      await emit(ctx, "transfer_with_invalid_stop_location_type", `SELECT t.__line AS csvRowNumber, f.name AS stopIdFieldName, f.id AS stopId, coalesce(TRY_CAST(s.location_type AS INTEGER), 0) AS locationTypeValue
        FROM v_transfers t, LATERAL (VALUES ('from_stop_id', t.from_stop_id), ('to_stop_id', t.to_stop_id)) f(name, id) JOIN v_stops s ON s.stop_id = f.id
        WHERE coalesce(TRY_CAST(s.location_type AS INTEGER), 0) NOT IN (0, 1) ORDER BY 1, 2`);
    }
    if (has(ctx, "shapes.txt")) {
      const w = `SELECT shape_id, __line, TRY_CAST(shape_dist_traveled AS DOUBLE) AS d, TRY_CAST(shape_pt_sequence AS INTEGER) AS s,
          TRY_CAST(shape_pt_lat AS DOUBLE) AS b_lat, TRY_CAST(shape_pt_lon AS DOUBLE) AS b_lon,
          lag(TRY_CAST(shape_dist_traveled AS DOUBLE)) OVER w AS pd, lag(TRY_CAST(shape_pt_sequence AS INTEGER)) OVER w AS ps, lag(__line) OVER w AS pl,
          lag(TRY_CAST(shape_pt_lat AS DOUBLE)) OVER w AS a_lat, lag(TRY_CAST(shape_pt_lon AS DOUBLE)) OVER w AS a_lon
        FROM v_shapes WINDOW w AS (PARTITION BY shape_id ORDER BY TRY_CAST(shape_pt_sequence AS INTEGER))`;
      await ctx.conn.run(`CREATE OR REPLACE TABLE vshape_w AS SELECT * FROM (${w}) WHERE d IS NOT NULL AND pd IS NOT NULL AND d <= pd`);
      const f = `shape_id AS shapeId, __line AS csvRowNumber, d AS shapeDistTraveled, s AS shapePtSequence, pl AS prevCsvRowNumber, pd AS prevShapeDistTraveled, ps AS prevShapePtSequence`;
      await emit(ctx, "decreasing_shape_distance", `SELECT ${f} FROM vshape_w WHERE d < pd ORDER BY __line`);
      await emit(ctx, "equal_shape_distance_same_coordinates", `SELECT ${f} FROM vshape_w WHERE d = pd AND a_lat = b_lat AND a_lon = b_lon ORDER BY __line`);
      await emit(ctx, "equal_shape_distance_diff_coordinates", `SELECT ${f}, round(${dist("a", "b")}, 2) AS actualDistanceBetweenShapePoints FROM vshape_w
        WHERE d = pd AND NOT (a_lat = b_lat AND a_lon = b_lon) AND ${dist("a", "b")} >= 1.11 ORDER BY __line`);
      await emit(ctx, "equal_shape_distance_diff_coordinates_distance_below_threshold", `SELECT ${f}, round(${dist("a", "b")}, 2) AS actualDistanceBetweenShapePoints FROM vshape_w
        WHERE d = pd AND NOT (a_lat = b_lat AND a_lon = b_lon) AND ${dist("a", "b")} < 1.11 ORDER BY __line`);
    }
    if (has(ctx, "attributions.txt")) {
      await emit(ctx, "attribution_without_role", `SELECT __line AS csvRowNumber, attribution_id AS attributionId FROM v_attributions
        WHERE coalesce(is_producer, '0') <> '1' AND coalesce(is_operator, '0') <> '1' AND coalesce(is_authority, '0') <> '1' ORDER BY __line`);
    }
  },
];

/** Every rule, in order (the derived tables first). */
export async function runRules(ctx: RuleContext): Promise<void> {
  await prepare(ctx);
  for (const rule of [...fileRules, ...rangeRules, ...stopRules, ...routeRules, ...feedInfoRules, ...tripRules, ...serviceRules, ...otherRules]) await rule(ctx);
}
