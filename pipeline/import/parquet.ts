/**
 * The catalog tables as the import holds them and writes them: each in the catalog's column types
 * (pipeline/schema/catalog.ts), written to `<table>.parquet` in the version folder.
 */
import type { DuckDBConnection } from "@duckdb/node-api";
import { join } from "node:path";
import { TABLE_BY_NAME, type TableDef } from "../schema/catalog.ts";
import type { VersionTables } from "../timetable/source.ts";

/** A table as written to Parquet: its columns in the catalog's types. */
const asCatalog = (t: TableDef) => `SELECT ${t.columns.map((c) => `CAST("${c.name}" AS ${c.type}) AS "${c.name}"`).join(", ")} FROM ${t.name}`;

/** The import's tables in the catalog's types (a subquery each): the new version's tables for the timetable. */
export const inMemoryTables: VersionTables = (table) => `(${asCatalog(TABLE_BY_NAME.get(table)!)})`;

/**
 * Writes one table to `<dir>/<table>.parquet`. Tables are created in their documented sort order,
 * so there is no ORDER BY (and no second sort) here.
 */
export async function writeParquet(conn: DuckDBConnection, dir: string, t: TableDef): Promise<void> {
  await conn.run(`COPY (${asCatalog(t)}) TO '${join(dir, `${t.name}.parquet`)}' (FORMAT parquet, COMPRESSION zstd, COMPRESSION_LEVEL 1, ROW_GROUP_SIZE 122880, DICTIONARY_SIZE_LIMIT 0)`);
}
