/**
 * Shapes that do not reach their trips' stops (part of the patterns module): a shape whose nearest
 * point or segment is farther than SHAPE_STOP_TOLERANCE_M from the first or the last stop of a stop
 * pattern whose trips use it, e.g. BART's 01_shp, which ends at Pittsburg/Bay Point while its trips
 * start at Antioch, 14 km on. Such a shape is kept (it is the feed's); the planner draws the legs
 * straight to the stops it does not reach (route_stops.shape_idx -1 in the timetable), and the
 * report says so: warning `shape_does_not_reach_stops`, one per shape, the worst end stop as
 * example (not a skip). Only first and last stops are measured (one pair of stops per pattern and
 * shape): the cost stays small on large feeds.
 */
import { EARTH_RADIUS_M } from "../../../shared/geo.ts";
import { SHAPE_STOP_TOLERANCE_M } from "../../schema/timetable.ts";
import type { BuildContext } from "../build.ts";

/** metres per degree of latitude on the shared earth radius, to the centimetre (111195.08) */
const M_PER_DEG = Math.round((Math.PI / 180) * EARTH_RADIUS_M * 100) / 100;

/** Needs t1 (trips, shape_id), trip_pat, patterns, stops and sh0: run after the patterns are built. */
export async function reportShapesNotReachingStops(ctx: BuildContext): Promise<number> {
  if (!ctx.raw.get("shapes.txt")?.present) return 0;
  // the first and last stop of every (shape, stop pattern) used by trips, with a trip as example
  const ends = `
    SELECT t.shape_id, p.pat[1] AS sref, 'first' AS which, count(*) AS trips, min(t.trip_id) AS trip_id
      FROM t1 t JOIN trip_pat tp USING (tix) JOIN patterns p USING (stop_pattern_id) WHERE t.shape_id IS NOT NULL GROUP BY ALL
    UNION ALL
    SELECT t.shape_id, p.pat[len(p.pat)], 'last', count(*), min(t.trip_id)
      FROM t1 t JOIN trip_pat tp USING (tix) JOIN patterns p USING (stop_pattern_id) WHERE t.shape_id IS NOT NULL GROUP BY ALL`;
  // each pair's distance to the nearest segment of its shape (equirectangular, as the compiler measures)
  const dist = `
    WITH e AS (SELECT shape_id, sref, arg_max(which, trips) AS which, sum(trips) AS trips, min(trip_id) AS trip_id FROM (${ends}) GROUP BY shape_id, sref),
    seg AS (SELECT shape_id, rid, lat, lon, coalesce(lead(lat) OVER w, lat) AS lat2, coalesce(lead(lon) OVER w, lon) AS lon2
      FROM sh0 WHERE shape_id IN (SELECT shape_id FROM e) WINDOW w AS (PARTITION BY shape_id ORDER BY seq)),
    v AS (SELECT e.shape_id, e.sref, e.which, e.trips, e.trip_id, s.stop_id, seg.rid,
        (seg.lon - s.stop_lon) * ${M_PER_DEG} * cos(radians(s.stop_lat)) AS ax, (seg.lat - s.stop_lat) * ${M_PER_DEG} AS ay,
        (seg.lon2 - seg.lon) * ${M_PER_DEG} * cos(radians(s.stop_lat)) AS dx, (seg.lat2 - seg.lat) * ${M_PER_DEG} AS dy
      FROM e JOIN seg USING (shape_id) JOIN stops s ON s.id = e.sref),
    d AS (SELECT *, CASE WHEN dx * dx + dy * dy > 0 THEN greatest(0, least(1, -(ax * dx + ay * dy) / (dx * dx + dy * dy))) ELSE 0 END AS f FROM v)
    SELECT shape_id, sref, any_value(which) AS which, any_value(trips) AS trips, any_value(trip_id) AS trip_id, any_value(stop_id) AS stop_id,
      min(rid) AS first_rid, min(sqrt(pow(ax + f * dx, 2) + pow(ay + f * dy, 2))) AS m
    FROM d GROUP BY shape_id, sref`;
  // one row per shape beyond the tolerance: its farthest end stop
  const far = `SELECT shape_id, min(first_rid) AS rid, arg_max(stop_id, m) AS stop_id, arg_max(which, m) AS which, arg_max(trips, m) AS trips,
      arg_max(trip_id, m) AS trip_id, max(m) AS m FROM (${dist}) WHERE m > ${SHAPE_STOP_TOLERANCE_M} GROUP BY shape_id`;
  return ctx.reportSkipped("shape_does_not_reach_stops", "shapes.txt", far,
    `'shape ' || shape_id || ' does not reach stop ' || stop_id || ', the ' || which || ' stop of ' || trips || ' trip(s) (e.g. ' || trip_id || '): ' ||
     CASE WHEN m >= 1000 THEN round(m / 1000, 1) || ' km' ELSE round(m)::INTEGER || ' m' END ||
     ' away; plans draw those legs straight to the stops it does not reach'`);
}
