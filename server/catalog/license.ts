/**
 * The five licence fields of a feed, from their one definition: the dataset contract's License
 * (pipeline/schema/manifest.ts), in its order. The catalog filters on them (`license_<field>`
 * query parameters) and copies them into DuckDB's feed_state table.
 */
export { LICENSE_FIELDS, type License, type LicenseField, type LicenseValue } from "../../pipeline/schema/manifest.ts";
