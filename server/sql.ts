/**
 * The one SQL-literal helper of server/: quote a string as a DuckDB string literal. Only for
 * values the server itself produced (Parquet file paths in read_parquet); client input is always
 * bound as a parameter (server/catalog/db.ts Params).
 */
export const sqlString = (s: string) => `'${s.replaceAll("'", "''")}'`;
