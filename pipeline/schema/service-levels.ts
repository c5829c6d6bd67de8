/**
 * Feed versions' service levels (Transitland's `FeedVersionServiceLevel`), as the dataset keeps
 * them: seconds of scheduled service per day of the week, over runs of consecutive ISO weeks
 * (Monday to Sunday) that have the same seven totals, in `service_levels.json` inside the version
 * folder (a JSON array of ServiceLevel, oldest first). The import computes them with
 * serviceLevelSql over the version's Parquet files; a reader takes the file (readServiceLevels),
 * or runs the same SQL for a version imported before the file existed. Computed the way
 * transitland-lib's service level builder does:
 *
 * - a trip's duration is its last arrival minus its first departure; trips with fewer than two
 *   stop_times and GTFS-Flex trips (a stop_time with a pickup/drop-off window, a zone or a
 *   group of stops) are left out;
 * - a trip with frequencies.txt rows counts once per departure of its frequencies
 *   (floor((end_time - start_time) / headway_secs) + 1 per row, 0 for a headway of 0);
 * - a service's seconds are those of its trips; they are added to every date the service runs
 *   (calendar weekdays between start_date and end_date, plus calendar_dates additions, minus
 *   removals), in that date's week and weekday;
 * - weeks with the same seven totals that follow each other are one level (start_date = the
 *   first Monday, end_date = the last Sunday).
 *
 * Transitland also keeps per-route levels (route_id); these are the feed-wide ones it serves.
 * Part of the dataset contract (pipeline/schema/): imports nothing but Node's fs and path.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** Inside a version folder. */
export const SERVICE_LEVELS_FILE = "service_levels.json";

export interface ServiceLevel {
  start_date: string;
  end_date: string;
  monday: number;
  tuesday: number;
  wednesday: number;
  thursday: number;
  friday: number;
  saturday: number;
  sunday: number;
}

const DAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"] as const;

const fileList = (files: string[]) => `[${files.map((f) => `'${f.replaceAll("'", "''")}'`).join(", ")}]`;

/** A version folder's Parquet files the SQL reads (absent tables left out). */
export function serviceLevelFiles(versionDirs: string[]): { trips: string[]; stopTimes: string[]; frequencies: string[]; calendars: string[] } {
  const present = (name: string) => versionDirs.map((d) => join(d, name)).filter((p) => existsSync(p));
  return { trips: present("trips.parquet"), stopTimes: present("stop_times.parquet"), frequencies: present("frequencies.parquet"), calendars: present("calendars.parquet") };
}

/** Whether the SQL can run over these files (trips, stop_times and calendars present). */
export const canComputeServiceLevels = (files: ReturnType<typeof serviceLevelFiles>) => files.trips.length > 0 && files.stopTimes.length > 0 && files.calendars.length > 0;

/** The SQL of the service levels over these versions' Parquet files: rows of `fv` (feed_version_id), start_date, end_date and the seven days' seconds. */
export function serviceLevelSql(files: { trips: string[]; stopTimes: string[]; frequencies: string[]; calendars: string[] }): string {
  const read = (list: string[]) => `read_parquet(${fileList(list)}, union_by_name = true)`;
  const freq = files.frequencies.length
    ? `SELECT trip_ref, sum(CASE WHEN headway_secs > 0 AND end_time >= start_time THEN (end_time - start_time) // headway_secs + 1 ELSE 0 END) AS n
       FROM ${read(files.frequencies)} GROUP BY trip_ref`
    : `SELECT NULL::INTEGER AS trip_ref, NULL::BIGINT AS n WHERE false`;
  return `
    WITH flex AS (
      SELECT DISTINCT trip_ref FROM ${read(files.stopTimes)}
      WHERE start_pickup_drop_off_window IS NOT NULL OR end_pickup_drop_off_window IS NOT NULL OR location_id IS NOT NULL OR location_group_id IS NOT NULL
    ),
    freq AS (${freq}),
    svc AS (
      SELECT t.feed_version_id AS fv, t.service_id, sum((t.last_arrival - t.first_departure)::BIGINT * coalesce(f.n, 1)) AS secs
      FROM ${read(files.trips)} t LEFT JOIN freq f ON f.trip_ref = t.id
      WHERE t.stop_count > 1 AND t.first_departure IS NOT NULL AND t.last_arrival IS NOT NULL AND t.id NOT IN (SELECT trip_ref FROM flex WHERE trip_ref IS NOT NULL)
      GROUP BY ALL
    ),
    cal AS (
      SELECT feed_version_id AS fv, service_id, [monday, tuesday, wednesday, thursday, friday, saturday, sunday] AS flags, start_date, end_date,
        coalesce(added_dates, []) AS added, coalesce(removed_dates, []) AS removed
      FROM ${read(files.calendars)} c0
      WHERE EXISTS (SELECT 1 FROM svc s WHERE s.fv = c0.feed_version_id AND s.service_id = c0.service_id)
    ),
    days AS (
      SELECT fv, service_id, day FROM (
        SELECT c.fv, c.service_id, g.d::DATE AS day, c.flags, c.removed
        FROM cal c, LATERAL generate_series(c.start_date::TIMESTAMP, c.end_date::TIMESTAMP, INTERVAL 1 DAY) AS g(d)
        WHERE c.start_date IS NOT NULL AND c.end_date IS NOT NULL
      ) WHERE flags[isodow(day)] = 1 AND NOT list_contains(removed, day)
      UNION
      SELECT fv, service_id, unnest(added) AS day FROM cal
    ),
    week_days AS (
      SELECT d.fv, date_trunc('week', d.day)::DATE AS week, isodow(d.day) AS dow, sum(s.secs)::BIGINT AS secs
      FROM days d JOIN svc s ON s.fv = d.fv AND s.service_id = d.service_id
      GROUP BY ALL
    ),
    weeks AS (
      SELECT fv, week, ${DAYS.map((name, i) => `coalesce(sum(secs) FILTER (WHERE dow = ${i + 1}), 0)::BIGINT AS ${name}`).join(", ")}
      FROM week_days GROUP BY fv, week
    ),
    runs AS (
      SELECT *, (week - DATE '1970-01-05') // 7 - row_number() OVER (PARTITION BY fv, ${DAYS.join(", ")} ORDER BY week) AS run
      FROM weeks
    )
    SELECT fv, min(week)::VARCHAR AS start_date, (max(week) + 6)::VARCHAR AS end_date, ${DAYS.join(", ")}
    FROM runs GROUP BY fv, run, ${DAYS.join(", ")}
    ORDER BY fv, start_date`;
}


/** The levels of each version (by feed_version_id, oldest first) from the SQL's rows. */
export function serviceLevelsFromRows(rows: Record<string, unknown>[]): Map<number, ServiceLevel[]> {
  const out = new Map<number, ServiceLevel[]>();
  for (const r of rows) {
    const fv = Number(r.fv);
    const level: ServiceLevel = { start_date: String(r.start_date), end_date: String(r.end_date), monday: 0, tuesday: 0, wednesday: 0, thursday: 0, friday: 0, saturday: 0, sunday: 0 };
    for (const d of DAYS) level[d] = Number(r[d]);
    (out.get(fv) ?? out.set(fv, []).get(fv)!).push(level);
  }
  return out;
}

/** A version folder's service levels as the import wrote them, or null when it has no file (imported before it existed). */
export function readServiceLevels(versionDir: string): ServiceLevel[] | null {
  const path = join(versionDir, SERVICE_LEVELS_FILE);
  if (!existsSync(path)) return null;
  try {
    const levels = JSON.parse(readFileSync(path, "utf8")) as unknown;
    return Array.isArray(levels) ? (levels as ServiceLevel[]) : null;
  } catch {
    return null;
  }
}
