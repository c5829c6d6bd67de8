/**
 * Derived data computed in TypeScript after the SQL build: Onestop IDs (geohash + normalised name)
 * for stops, routes and agencies, the feed's Onestop ID, and the service window / best week used by
 * the catalog's use_service_window.
 */
import type { DuckDBConnection } from "@duckdb/node-api";
import { areaGeohash, onestopName, stopOnestopId } from "../onestop.ts";

async function rowsOf(conn: DuckDBConnection, sql: string) {
  return (await conn.runAndReadAll(sql)).getRowObjects() as Record<string, unknown>[];
}

async function writeIds(conn: DuckDBConnection, table: string, column: string, ids: Array<[number, string]>) {
  await conn.run(`CREATE OR REPLACE TEMP TABLE osid (id INTEGER, v VARCHAR)`);
  const app = await conn.createAppender("osid");
  for (const [id, v] of ids) {
    app.appendInteger(id);
    app.appendVarchar(v);
    app.endRow();
  }
  app.closeSync();
  await conn.run(`UPDATE ${table} SET ${column} = osid.v FROM osid WHERE ${table}.id = osid.id`);
}

/** Fills stops/routes/agencies.onestop_id and the route/agency link tables; returns the feed's derived Onestop ID. */
export async function deriveOnestopIds(conn: DuckDBConnection): Promise<string> {
  const stops = await rowsOf(conn, `SELECT id, stop_lat, stop_lon, stop_name FROM stops`);
  const coords = new Map<number, [number, number]>();
  const stopIds: Array<[number, string]> = [];
  for (const s of stops) {
    const lat = s.stop_lat == null ? null : Number(s.stop_lat);
    const lon = s.stop_lon == null ? null : Number(s.stop_lon);
    if (lat != null && lon != null) coords.set(Number(s.id), [lat, lon]);
    stopIds.push([Number(s.id), stopOnestopId(lat, lon, s.stop_name as string | null)]);
  }
  await writeIds(conn, "stops", "onestop_id", stopIds);

  const pointsOf = (refs: number[]) => refs.map((r) => coords.get(r)).filter((p): p is [number, number] => !!p);
  const routeStops = new Map<number, number[]>();
  const agencyStops = new Map<number, number[]>();
  for (const r of await rowsOf(conn, `SELECT route_ref, agency_ref, stop_ref FROM route_stops`)) {
    const rr = Number(r.route_ref), ar = Number(r.agency_ref), sr = Number(r.stop_ref);
    (routeStops.get(rr) ?? routeStops.set(rr, []).get(rr)!).push(sr);
    (agencyStops.get(ar) ?? agencyStops.set(ar, []).get(ar)!).push(sr);
  }
  const routeIds: Array<[number, string]> = [];
  for (const r of await rowsOf(conn, `SELECT id, route_short_name, route_long_name, route_id FROM routes`)) {
    const name = (r.route_short_name as string | null) || (r.route_long_name as string | null) || (r.route_id as string);
    const gh = areaGeohash(pointsOf(routeStops.get(Number(r.id)) ?? []));
    routeIds.push([Number(r.id), gh ? `r-${gh}-${onestopName(name)}` : `r-${onestopName(name)}`]); // a route without trips has no area
  }
  await writeIds(conn, "routes", "onestop_id", routeIds);
  const agencyIds: Array<[number, string]> = [];
  for (const a of await rowsOf(conn, `SELECT id, agency_name, agency_id FROM agencies`)) {
    const name = (a.agency_name as string | null) || (a.agency_id as string);
    const gh = areaGeohash(pointsOf(agencyStops.get(Number(a.id)) ?? []));
    agencyIds.push([Number(a.id), gh ? `o-${gh}-${onestopName(name)}` : `o-${onestopName(name)}`]);
  }
  await writeIds(conn, "agencies", "onestop_id", agencyIds);
  await conn.run(`UPDATE route_stops SET route_onestop_id = r.onestop_id FROM routes r WHERE r.id = route_stops.route_ref`);
  await conn.run(`UPDATE agency_stops SET agency_onestop_id = a.onestop_id FROM agencies a WHERE a.id = agency_stops.agency_ref`);

  const firstAgency = (await rowsOf(conn, `SELECT agency_name, agency_id FROM agencies ORDER BY id LIMIT 1`))[0]!;
  const feedName = onestopName((firstAgency.agency_name as string) || (firstAgency.agency_id as string)) || "feed";
  const gh = areaGeohash([...coords.values()]);
  return gh ? `f-${gh}-${feedName}` : `f-${feedName}`;
}

export interface ServiceWindow {
  earliest: string | null;
  latest: string | null;
  windowStart: string | null;
  windowEnd: string | null;
  bestWeekStart: string | null;
}

const MAX_SPAN_DAYS = 366 * 20;

/**
 * Service levels per date (scheduled trip-seconds), then Transitland's rule: weeks (Monday start)
 * from the week containing fetched_at (or the busiest week when that week has < 75 % of the
 * maximum), extended both ways while weeks keep >= 75 % of the maximum; the best week is the
 * busiest inside that window; feed_info start/end dates override the window. The best week always
 * has scheduled service: when the feed_info window holds none (feed_info's dates disagree with the
 * calendars'), it is the busiest week of the window the calendars alone give.
 */
export async function serviceWindow(conn: DuckDBConnection, fetchedAt: Date): Promise<ServiceWindow> {
  await conn.run(`CREATE OR REPLACE TABLE service_dates AS
    WITH cal AS (SELECT id, service_id, monday, tuesday, wednesday, thursday, friday, saturday, sunday, start_date,
                        least(end_date, start_date + ${MAX_SPAN_DAYS}) AS end_date, added_dates, removed_dates, generated FROM calendars),
    days AS (SELECT c.service_id, CAST(g.d AS DATE) AS date FROM cal c, generate_series(CAST(c.start_date AS TIMESTAMP), CAST(c.end_date AS TIMESTAMP), INTERVAL 1 DAY) AS g(d)
             WHERE NOT c.generated AND [c.monday, c.tuesday, c.wednesday, c.thursday, c.friday, c.saturday, c.sunday][isodow(g.d)] = 1),
    added AS (SELECT service_id, unnest(added_dates) AS date FROM cal),
    removed AS (SELECT service_id, unnest(removed_dates) AS date FROM cal)
    SELECT * FROM (SELECT * FROM days UNION SELECT * FROM added) EXCEPT SELECT * FROM removed`);
  const levels = await rowsOf(conn, `
    WITH svc AS (SELECT t.service_id, sum(CASE WHEN f.n IS NULL THEN t.last_arrival - t.first_departure ELSE (t.last_arrival - t.first_departure) * f.n END) AS secs
                 FROM trips t LEFT JOIN (SELECT trip_ref, sum(greatest((end_time - start_time) / headway_secs, 1)) AS n FROM frequencies GROUP BY trip_ref) f ON f.trip_ref = t.id
                 GROUP BY t.service_id)
    SELECT strftime(date_trunc('week', d.date), '%Y-%m-%d') AS week, sum(coalesce(svc.secs, 0)) AS secs, strftime(min(d.date), '%Y-%m-%d') AS first, strftime(max(d.date), '%Y-%m-%d') AS last
    FROM service_dates d LEFT JOIN svc USING (service_id) GROUP BY 1 ORDER BY 1`);
  const fi = (await rowsOf(conn, `SELECT strftime(feed_start_date, '%Y-%m-%d') AS s, strftime(feed_end_date, '%Y-%m-%d') AS e FROM feed_info`))[0];
  if (levels.length === 0) return { earliest: null, latest: null, windowStart: fi?.s as string ?? null, windowEnd: fi?.e as string ?? null, bestWeekStart: null };
  const weeks = levels.map((l) => ({ week: String(l.week), secs: Number(l.secs) }));
  const earliest = String(levels[0]!.first);
  const latest = String(levels[levels.length - 1]!.last);
  const max = Math.max(...weeks.map((w) => w.secs));
  const addDays = (iso: string, n: number) => new Date(Date.parse(iso + "T00:00:00Z") + n * 86400000).toISOString().slice(0, 10);
  const fetchedMonday = (() => {
    const d = new Date(Date.UTC(fetchedAt.getUTCFullYear(), fetchedAt.getUTCMonth(), fetchedAt.getUTCDate()));
    const dow = (d.getUTCDay() + 6) % 7;
    return new Date(d.getTime() - dow * 86400000).toISOString().slice(0, 10);
  })();
  if (!(max > 0)) return { earliest, latest, windowStart: (fi?.s as string) ?? earliest, windowEnd: (fi?.e as string) ?? latest, bestWeekStart: null };
  const byWeek = new Map(weeks.map((w) => [w.week, w.secs]));
  let start = fetchedMonday;
  if ((byWeek.get(start) ?? 0) < 0.75 * max) start = weeks.find((w) => w.secs === max)!.week;
  let lo = start, hi = start;
  while ((byWeek.get(addDays(lo, -7)) ?? 0) >= 0.75 * max) lo = addDays(lo, -7);
  while ((byWeek.get(addDays(hi, 7)) ?? 0) >= 0.75 * max) hi = addDays(hi, 7);
  let windowStart = lo < earliest ? earliest : lo;
  let windowEnd = addDays(hi, 6) > latest ? latest : addDays(hi, 6);
  // the busiest week with service touching [from, to]; null when none has any
  const busiestIn = (from: string, to: string) => {
    let best: string | null = null, bestSecs = 0;
    for (const w of weeks) {
      if (addDays(w.week, 6) < from || w.week > to) continue;
      if (w.secs > bestSecs) { best = w.week; bestSecs = w.secs; }
    }
    return best;
  };
  // the calendars' own window always holds a week with service (`start` at least)
  const calendarBest = busiestIn(windowStart, windowEnd) ?? start;
  if (fi?.s) windowStart = String(fi.s);
  if (fi?.e) windowEnd = String(fi.e);
  // feed_info's window may hold no scheduled service at all (its dates a year before the
  // calendars', or only services no trip uses): the best week is then the calendars' own
  return { earliest, latest, windowStart, windowEnd, bestWeekStart: busiestIn(windowStart, windowEnd) ?? calendarBest };
}
