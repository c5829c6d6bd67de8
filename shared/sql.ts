/**
 * The project's one SQL-literal helper: a string as a DuckDB string literal. Only for values the
 * program itself holds (file paths, ids it read, enum members); client input is always bound as a
 * parameter (server/catalog/db.ts Params).
 */
export const sqlString = (s: string) => `'${s.replaceAll("'", "''")}'`;
