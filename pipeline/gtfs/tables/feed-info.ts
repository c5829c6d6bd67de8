/**
 * feed_info.txt → feed_info: its first row (0 or 1 row). Warns (`feed_info_dates_outside_calendars`)
 * when its feed_start_date..feed_end_date and the service dates of the calendars that trips use do
 * not overlap (a calendar no trip uses schedules nothing): the catalog's service window follows
 * feed_info (Transitland's rule), the planner the calendars, so the two then disagree about every
 * date. The best week (use_service_window) is then taken from the calendars (derive.ts).
 */
import { jsRows } from "../../duck.ts";
import type { TableModule } from "../build.ts";

export const feedInfo: TableModule = {
  name: "feed_info",
  file: { name: "feed_info.txt", required: false },
  columns: {
    required: [],
    optional: [
      "feed_publisher_name", "feed_publisher_url", "feed_lang", "default_lang", "feed_start_date", "feed_end_date", "feed_version",
      "feed_contact_email", "feed_contact_url",
    ],
  },
  dependsOn: ["calendars", "patterns"],
  async build(ctx) {
    const { conn } = ctx;
    await conn.run(`CREATE TABLE feed_info AS SELECT ${ctx.fvid}::INTEGER AS feed_version_id, feed_publisher_name, feed_publisher_url, feed_lang, default_lang,
        gtfs_date(feed_start_date) AS feed_start_date, gtfs_date(feed_end_date) AS feed_end_date, feed_version, feed_contact_email, feed_contact_url FROM raw_feed_info LIMIT 1`);
    // the span of the calendars trips use: weekly ranges and added dates (removed dates are ignored: a span, not a list)
    const [r] = await jsRows(conn, `
      WITH cal AS (SELECT min(least(start_date, coalesce(list_min(added_dates), start_date))) AS c0,
                          max(greatest(end_date, coalesce(list_max(added_dates), end_date))) AS c1
                   FROM calendars WHERE service_id IN (SELECT service_id FROM trips))
      SELECT strftime(f.feed_start_date, '%Y-%m-%d') AS f0, strftime(f.feed_end_date, '%Y-%m-%d') AS f1,
             strftime(c.c0, '%Y-%m-%d') AS c0, strftime(c.c1, '%Y-%m-%d') AS c1
      FROM feed_info f, cal c WHERE c.c0 IS NOT NULL AND (f.feed_start_date IS NOT NULL OR f.feed_end_date IS NOT NULL)`);
    if (!r) return;
    const [f0, f1, c0, c1] = [r.f0, r.f1, r.c0, r.c1].map((v) => (v == null ? null : String(v)));
    if ((f1 !== null && f1 < c0!) || (f0 !== null && f0 > c1!)) {
      ctx.issues.add("feed_info_dates_outside_calendars", {
        file: "feed_info.txt",
        message:
          `feed_start_date..feed_end_date (${f0 ?? "open"}..${f1 ?? "open"}) do not overlap the calendars' service dates (${c0}..${c1}): ` +
          `the catalog's service window follows feed_info.txt (use_service_window shows the calendars' best week for dates outside it), the planner plans on the calendars' dates`,
      });
    }
  },
};
