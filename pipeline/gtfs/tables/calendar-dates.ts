/** calendar_dates.txt → cd0, its valid service exceptions (bad dates or types, duplicates skipped). */
import type { TableModule } from "../build.ts";

export const calendarDates: TableModule = {
  name: "calendar_dates",
  // optional, but a feed needs it or calendar.txt (load.ts checks)
  file: { name: "calendar_dates.txt", required: false },
  columns: { required: ["service_id", "date", "exception_type"], optional: [] },
  dependsOn: [],
  async build(ctx) {
    const { conn } = ctx;
    await conn.run(`CREATE TABLE cd0 AS SELECT rowid AS rid, service_id, gtfs_date(date) AS d, gtfs_int(exception_type) AS et, date FROM raw_calendar_dates`);
    const badCd = `SELECT rid, service_id, date FROM cd0 WHERE service_id IS NULL OR d IS NULL OR et IS NULL OR et NOT IN (1, 2)`;
    if (ctx.skip("calendar_dates.txt", await ctx.reportSkipped("invalid_calendar_date", "calendar_dates.txt", badCd,
      `'service ' || coalesce(service_id, '(empty)') || ': invalid date or exception_type on ' || coalesce(date, '(empty)')`))) await conn.run(`DELETE FROM cd0 WHERE rid IN (SELECT rid FROM (${badCd}))`);
    if (ctx.skip("calendar_dates.txt", await ctx.reportSkipped("duplicate_key", "calendar_dates.txt",
      `SELECT rid, service_id, date FROM cd0 QUALIFY row_number() OVER (PARTITION BY service_id, d ORDER BY rid) > 1`, `'duplicate service_id/date ' || service_id || ' ' || date`))) await conn.run(`DELETE FROM cd0 WHERE rid IN (SELECT rid FROM cd0 QUALIFY row_number() OVER (PARTITION BY service_id, d ORDER BY rid) > 1)`);
  },
};
