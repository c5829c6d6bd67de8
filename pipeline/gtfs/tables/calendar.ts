/** calendar.txt → c0, its valid weekly services (duplicates, bad dates or weekday flags skipped). */
import type { TableModule } from "../build.ts";

export const calendar: TableModule = {
  name: "calendar",
  // optional, but a feed needs it or calendar_dates.txt (load.ts checks)
  file: { name: "calendar.txt", required: false },
  columns: { required: ["service_id", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "start_date", "end_date"], optional: [] },
  dependsOn: [],
  async build(ctx) {
    const { conn } = ctx;
    await conn.run(`CREATE TABLE c0 AS SELECT rowid AS rid, service_id, gtfs_int(monday) AS mo, gtfs_int(tuesday) AS tu, gtfs_int(wednesday) AS we,
        gtfs_int(thursday) AS th, gtfs_int(friday) AS fr, gtfs_int(saturday) AS sa, gtfs_int(sunday) AS su,
        gtfs_date(start_date) AS sd, gtfs_date(end_date) AS ed, start_date, end_date FROM raw_calendar`);
    if (ctx.skip("calendar.txt", await ctx.reportSkipped("duplicate_key", "calendar.txt",
      `SELECT rid, service_id FROM c0 QUALIFY row_number() OVER (PARTITION BY service_id ORDER BY rid) > 1`, `'duplicate service_id ' || service_id`))) await conn.run(`DELETE FROM c0 WHERE rid IN (SELECT rid FROM c0 QUALIFY row_number() OVER (PARTITION BY service_id ORDER BY rid) > 1)`);
    const badCal = `SELECT rid, service_id, start_date, end_date FROM c0 WHERE service_id IS NULL OR sd IS NULL OR ed IS NULL OR ed < sd
        OR NOT (list_value(mo, tu, we, th, fr, sa, su) <@ [0, 1]) OR mo IS NULL OR tu IS NULL OR we IS NULL OR th IS NULL OR fr IS NULL OR sa IS NULL OR su IS NULL`;
    if (ctx.skip("calendar.txt", await ctx.reportSkipped("invalid_calendar", "calendar.txt", badCal,
      `'service ' || coalesce(service_id, '(empty)') || ': invalid dates or weekday flags (' || coalesce(start_date, '') || '..' || coalesce(end_date, '') || ')'`))) await conn.run(`DELETE FROM c0 WHERE rid IN (SELECT rid FROM (${badCal}))`);
  },
};
