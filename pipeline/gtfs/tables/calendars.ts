/**
 * calendars (derived): one row per service of calendar.txt or calendar_dates.txt, its weekly
 * pattern with the added and removed dates; a service only in calendar_dates.txt is generated.
 */
import type { TableModule } from "../build.ts";

export const calendars: TableModule = {
  name: "calendars",
  file: null,
  columns: { required: [], optional: [] },
  dependsOn: ["calendar", "calendar_dates"],
  async build(ctx) {
    const { conn } = ctx;
    await conn.run(`CREATE TABLE cal_ids AS
      SELECT service_id, min(o) AS o FROM (SELECT service_id, rid AS o FROM c0 UNION ALL SELECT service_id, 1e12 + rid AS o FROM cd0) GROUP BY service_id`);
    const nCal = await ctx.scalar(`SELECT count(*) FROM cal_ids`);
    const calBase = ctx.allocate("calendars", nCal);
    await conn.run(`CREATE TABLE calendars AS
      WITH ex AS (SELECT service_id, list(d ORDER BY d) FILTER (WHERE et = 1) AS added, list(d ORDER BY d) FILTER (WHERE et = 2) AS removed,
                         min(d) AS mind, max(d) AS maxd FROM cd0 GROUP BY service_id)
      SELECT (${calBase} + row_number() OVER (ORDER BY i.o) - 1)::INTEGER AS id, ${ctx.fvid}::INTEGER AS feed_version_id, i.service_id,
        coalesce(c.mo, 0)::INTEGER AS monday, coalesce(c.tu, 0)::INTEGER AS tuesday, coalesce(c.we, 0)::INTEGER AS wednesday,
        coalesce(c.th, 0)::INTEGER AS thursday, coalesce(c.fr, 0)::INTEGER AS friday, coalesce(c.sa, 0)::INTEGER AS saturday, coalesce(c.su, 0)::INTEGER AS sunday,
        coalesce(c.sd, ex.mind) AS start_date, coalesce(c.ed, ex.maxd) AS end_date,
        coalesce(ex.added, []::DATE[]) AS added_dates, coalesce(ex.removed, []::DATE[]) AS removed_dates, c.service_id IS NULL AS generated
      FROM cal_ids i LEFT JOIN c0 c USING (service_id) LEFT JOIN ex USING (service_id) ORDER BY i.o`);
    ctx.derived.calendars_from_calendar_dates = await ctx.scalar(`SELECT count(*) FROM calendars WHERE generated`);
  },
};
