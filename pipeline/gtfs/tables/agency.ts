/** agency.txt → agencies. A feed needs at least one agency; the first timezone stands in for missing ones. */
import { DataError } from "../../report.ts";
import type { TableModule } from "../build.ts";

export const agency: TableModule = {
  name: "agency",
  file: { name: "agency.txt", required: true },
  columns: {
    required: ["agency_name"],
    optional: ["agency_id", "agency_url", "agency_timezone", "agency_lang", "agency_phone", "agency_fare_url", "agency_email"],
  },
  dependsOn: [],
  async build(ctx) {
    const { conn } = ctx;
    await conn.run(`CREATE TABLE a0 AS SELECT rowid AS rid, coalesce(agency_id, '') AS agency_id, * EXCLUDE (agency_id) FROM raw_agency`);
    if (ctx.skip("agency.txt", await ctx.reportSkipped("duplicate_key", "agency.txt",
      `SELECT rid, agency_id FROM a0 QUALIFY row_number() OVER (PARTITION BY agency_id ORDER BY rid) > 1`, `'duplicate agency_id ' || agency_id`))) await conn.run(`DELETE FROM a0 WHERE rid IN (SELECT rid FROM a0 QUALIFY row_number() OVER (PARTITION BY agency_id ORDER BY rid) > 1)`);
    const nAg = await ctx.scalar(`SELECT count(*) FROM a0`);
    if (nAg === 0) throw new DataError("no agency rows", "agency.txt");
    await ctx.reportSkipped("missing_agency_timezone", "agency.txt", `SELECT rid FROM a0 WHERE agency_timezone IS NULL`, `'agency_timezone is empty; using the first agency timezone or UTC'`);
    const agBase = ctx.allocate("agencies", nAg);
    await conn.run(`CREATE TABLE agencies AS SELECT (${agBase} + row_number() OVER (ORDER BY rid) - 1)::INTEGER AS id, ${ctx.fvid}::INTEGER AS feed_version_id,
        agency_id, coalesce(agency_name, agency_id, '') AS agency_name, agency_url,
        coalesce(agency_timezone, (SELECT agency_timezone FROM a0 WHERE agency_timezone IS NOT NULL ORDER BY rid LIMIT 1), 'UTC') AS agency_timezone,
        agency_lang, agency_phone, agency_fare_url, agency_email, NULL::VARCHAR AS onestop_id, rid
      FROM a0 ORDER BY rid`);
  },
};
