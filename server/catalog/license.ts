/**
 * The five licence fields of a feed, from their one definition: the dataset contract's License
 * (pipeline/schema/manifest.ts), in its order. The catalog filters on them (`license_<field>`
 * query parameters) and copies them into DuckDB's feed_state table.
 */
import { type License, type LicenseValue, UNKNOWN_LICENSE } from "../../pipeline/schema/manifest.ts";

export type LicenseField = keyof License;
export const LICENSE_FIELDS = Object.keys(UNKNOWN_LICENSE) as LicenseField[];
export type { License, LicenseValue };
