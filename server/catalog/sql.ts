/**
 * Derived tables built once per loaded dataset. The trip-side ones (route_json, fv_json,
 * calendar_json, trip_freq), stop_docs and route_docs are read into JS at load (tripindex.ts,
 * store.ts) and dropped; requests only filter stops and stop patterns in DuckDB.
 * Field order inside the struct_pack calls is the field order of the JSON responses.
 * Empty strings from GTFS are served as null for nullable text fields.
 */

export const LOAD_DERIVED_SQL: string[] = [
  // GTFS time (seconds since service-day start) → HH:MM:SS, hours may exceed 24.
  `CREATE MACRO hms(t) AS CASE WHEN t IS NULL THEN NULL ELSE printf('%02d:%02d:%02d', t // 3600, (t % 3600) // 60, t % 60) END`,
  `CREATE MACRO nz(s) AS nullif(s, '')`,

  // feed_version object shared by trips and stops
  `CREATE TABLE fv_json AS
   SELECT fv.id AS feed_version_id,
          to_json(struct_pack(id := fv.id, sha1 := fv.sha1, fetched_at := fs.fetched_at,
                              feed := struct_pack(id := fv.feed_id, onestop_id := fv.feed_onestop_id))) AS json
   FROM feed_version fv JOIN feed_state fs ON fs.feed_version_id = fv.id`,

  // route object embedded in trips (with its agency)
  `CREATE TABLE route_json AS
   SELECT r.id,
          to_json(struct_pack(
            id := r.id, onestop_id := nz(r.onestop_id), route_id := r.route_id,
            route_short_name := nz(r.route_short_name), route_long_name := nz(r.route_long_name),
            route_type := r.route_type, route_color := nz(r.route_color), route_text_color := nz(r.route_text_color),
            alerts := '[]'::JSON,
            agency := struct_pack(id := a.id, agency_id := a.agency_id, agency_name := a.agency_name,
                                  onestop_id := nz(a.onestop_id), alerts := '[]'::JSON))) AS json
   FROM routes r LEFT JOIN agencies a ON a.id = r.agency_ref`,

  // calendar object per service
  `CREATE TABLE calendar_json AS
   SELECT c.id,
          to_json(struct_pack(
            service_id := c.service_id, start_date := c.start_date, end_date := c.end_date,
            monday := c.monday, tuesday := c.tuesday, wednesday := c.wednesday, thursday := c.thursday,
            friday := c.friday, saturday := c.saturday, sunday := c.sunday,
            added_dates := list_sort(coalesce(c.added_dates, []::DATE[])),
            removed_dates := list_sort(coalesce(c.removed_dates, []::DATE[])))) AS json
   FROM calendars c`,

  // frequencies array per trip
  `CREATE TABLE trip_freq AS
   SELECT trip_ref,
          to_json(list(struct_pack(start_time := hms(start_time), end_time := hms(end_time),
                                   headway_secs := headway_secs, exact_times := exact_times) ORDER BY start_time)) AS json
   FROM frequencies GROUP BY trip_ref`,

  // stop documents (every Stop field but geometry); read into the JS index at load
  `CREATE TABLE stop_docs AS
   SELECT s.id, s.feed_version_id, s.stop_id, nz(s.stop_name) AS stop_name, coalesce(s.onestop_id, '') AS onestop_id,
          s.stop_lat, s.stop_lon, coalesce(s.location_type, 0) AS location_type, s.parent_ref,
          coalesce(nz(s.stop_timezone), nz(p.stop_timezone)) AS timezone,
          to_json(struct_pack(
            id := s.id, stop_id := s.stop_id, stop_name := nz(s.stop_name), stop_code := nz(s.stop_code),
            stop_desc := nz(s.stop_desc), stop_url := nz(s.stop_url), tts_stop_name := nz(s.tts_stop_name),
            platform_code := nz(s.platform_code), zone_id := nz(s.zone_id),
            location_type := coalesce(s.location_type, 0), wheelchair_boarding := s.wheelchair_boarding,
            stop_access := s.stop_access,
            stop_timezone := coalesce(nz(s.stop_timezone), nz(p.stop_timezone)),
            level_id := nz(s.level_id),
            onestop_id := coalesce(s.onestop_id, ''),
            parent := CASE WHEN p.id IS NULL THEN NULL
                           ELSE struct_pack(id := p.id, stop_id := p.stop_id, stop_name := nz(p.stop_name), onestop_id := coalesce(p.onestop_id, '')) END,
            feed_version := fv.json,
            place := CASE WHEN s.adm0_name IS NULL AND s.adm1_name IS NULL THEN NULL
                          ELSE struct_pack(adm0_name := s.adm0_name, adm1_name := s.adm1_name, adm0_iso := s.adm0_iso, adm1_iso := s.adm1_iso) END,
            alerts := '[]'::JSON)) AS props
   FROM stops s
   LEFT JOIN stops p ON p.id = s.parent_ref
   JOIN fv_json fv ON fv.feed_version_id = s.feed_version_id
   ORDER BY s.id`,

  // route documents (GET /routes): every Route field but route_stops and geometry, which are added
  // per request; the route's "alerts":[] comes before its agency's (alerts.ts routeWithAlerts)
  `CREATE TABLE route_docs AS
   SELECT r.id,
          to_json(struct_pack(
            id := r.id, onestop_id := nz(r.onestop_id), route_id := r.route_id,
            route_short_name := nz(r.route_short_name), route_long_name := nz(r.route_long_name), route_desc := nz(r.route_desc),
            route_type := r.route_type, route_url := nz(r.route_url), route_color := nz(r.route_color), route_text_color := nz(r.route_text_color),
            route_sort_order := r.route_sort_order, continuous_pickup := r.continuous_pickup, continuous_drop_off := r.continuous_drop_off,
            network_id := nz(r.network_id),
            alerts := '[]'::JSON,
            agency := struct_pack(id := a.id, agency_id := a.agency_id, agency_name := a.agency_name,
                                  onestop_id := nz(a.onestop_id), alerts := '[]'::JSON),
            feed_version := fv.json)) AS props
   FROM routes r LEFT JOIN agencies a ON a.id = r.agency_ref
   JOIN fv_json fv ON fv.feed_version_id = r.feed_version_id`,
];
