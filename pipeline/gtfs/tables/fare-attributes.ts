/**
 * fare_attributes.txt → fare_attributes (GTFS Fares v1): fares without an id or duplicated skipped,
 * and fares whose price, currency, transfers or transfer_duration cannot be right (a fare that
 * cannot be priced is better missing than wrong), or of an agency that does not exist. An empty
 * agency_id belongs to the feed's only agency, when it has one.
 */
import type { TableModule } from "../build.ts";
import { count, currencyCode, decimal, emptyWhenAbsent, laterDuplicates, skipRows } from "./fare-checks.ts";

const FILE = "fare_attributes.txt";

export const fareAttributes: TableModule = {
  name: "fare_attributes",
  file: { name: FILE, required: false },
  columns: { required: ["fare_id"], optional: ["price", "currency_type", "payment_method", "transfers", "agency_id", "transfer_duration"] },
  dependsOn: ["agency"],
  async build(ctx) {
    if (await emptyWhenAbsent(ctx, FILE, "fare_attributes")) return;
    const { conn } = ctx;
    await conn.run(`CREATE TABLE fa0 AS SELECT rowid AS rid, *, ${decimal("price")} AS p, ${currencyCode("currency_type")} AS cur,
        ${count("transfers")} AS tr, ${count("transfer_duration")} AS td FROM raw_fare_attributes`);
    await skipRows(ctx, FILE, "fa0", "missing_required_value", "fare_id IS NULL", `'fare_id is empty'`);
    await skipRows(ctx, FILE, "fa0", "duplicate_key", laterDuplicates("fa0", "fare_id"), `'duplicate fare_id ' || fare_id`);
    await skipRows(ctx, FILE, "fa0", "invalid_fare_attribute",
      `p IS NULL OR p < 0 OR cur IS NULL OR (transfers IS NOT NULL AND (tr IS NULL OR tr > 2)) OR (transfer_duration IS NOT NULL AND td IS NULL)`,
      `'fare ' || fare_id || ': ' || CASE WHEN p IS NULL OR p < 0 THEN 'price ' || coalesce(price, '(empty)') || ' is not a non-negative amount'
        WHEN cur IS NULL THEN 'currency_type ' || coalesce(currency_type, '(empty)') || ' is not an ISO 4217 code'
        WHEN transfers IS NOT NULL AND (tr IS NULL OR tr > 2) THEN 'transfers ' || transfers || ' is not 0, 1, 2 or empty'
        ELSE 'transfer_duration ' || transfer_duration || ' is not a number of seconds' END`);
    // agency_id may be omitted when the feed has one agency (as in routes.txt)
    const nAg = await ctx.scalar(`SELECT count(*) FROM agencies`);
    const single = nAg === 1 ? `(SELECT agency_id FROM agencies LIMIT 1)` : `NULL`;
    await skipRows(ctx, FILE, "fa0", "unknown_agency", `agency_id IS NOT NULL AND agency_id NOT IN (SELECT agency_id FROM agencies)`,
      `'fare ' || fare_id || ': agency_id ' || agency_id || ' does not exist'`);
    await conn.run(`CREATE TABLE fare_attributes AS SELECT ${ctx.fvid}::INTEGER AS feed_version_id, fare_id, p AS price, cur AS currency_type,
        gtfs_int(payment_method) AS payment_method, tr::INTEGER AS transfers, fa0.agency_id, a.id AS agency_ref, td::INTEGER AS transfer_duration
      FROM fa0 LEFT JOIN agencies a ON a.agency_id = coalesce(fa0.agency_id, ${single}) ORDER BY fa0.rid`);
  },
};
