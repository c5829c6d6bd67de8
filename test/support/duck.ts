/** DuckDB for tests: read the Parquet catalog back the way an analyst would. */
import { DuckDBInstance, type DuckDBConnection } from "@duckdb/node-api";

let conn: Promise<DuckDBConnection> | null = null;

export async function sql<T = Record<string, unknown>>(query: string): Promise<T[]> {
  conn ??= DuckDBInstance.create(":memory:").then((db) => db.connect());
  const c = await conn;
  return (await c.runAndReadAll(query)).getRowObjectsJson() as T[];
}
