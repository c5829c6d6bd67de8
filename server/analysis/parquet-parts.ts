/**
 * Parquet output written as it goes: rows are appended (whole typed-array columns, a data chunk of
 * 2048 rows at a time through the DuckDB appender) to a small buffer table of an in-memory DuckDB,
 * and every `partRows` rows the buffer is written as one Parquet file, `<dir>/part-NNNNN.parquet`,
 * with the point ids joined back in, and emptied. Memory holds at most one part, whatever the
 * number of origins; the parts of a folder (and the folders of several shards) read as one table
 * with DuckDB's read_parquet('<out>/travel_times/*' + '/*.parquet'). Parquet is built into DuckDB
 * (no extension download).
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { DuckDBAppender, DuckDBConnection, DuckDBInstance } from "@duckdb/node-api";
import duckdb from "@duckdb/node-bindings";
import { sqlString } from "../../shared/sql.ts";

const CHUNK = 2048;

/** A column of the buffer: SMALLINT columns map -1 to NULL. */
export interface PartColumn {
  name: string;
  type: "INTEGER" | "SMALLINT" | "DOUBLE";
}

type Data = Int32Array | Int16Array | Float64Array;

const quoteIdent = (s: string) => `"${s.replaceAll('"', '""')}"`;

/** Point ids by index, loaded once into a table `<name>(idx INTEGER, id VARCHAR)`. */
export async function loadIds(conn: DuckDBConnection, name: string, ids: string[]): Promise<void> {
  await conn.run(`CREATE OR REPLACE TABLE ${name} (idx INTEGER, id VARCHAR)`);
  const app = await conn.createAppender(name);
  for (let i = 0; i < ids.length; i++) {
    app.appendInteger(i);
    app.appendVarchar(ids[i]!);
    app.endRow();
  }
  app.closeSync();
}

export class ParquetParts {
  private app: DuckDBAppender | null = null;
  private chunk: duckdb.DataChunk | null = null;
  private buffered = 0;
  private part = 0;
  private readonly validity = new Uint8Array(CHUNK / 8);
  /** rows and files written */
  rows = 0;
  files: string[] = [];
  writeMs = 0;

  /** `query(buffer)`: the SELECT that turns the buffer table into a part's rows, in their order (ids joined back in). */
  private constructor(
    private readonly conn: DuckDBConnection,
    private readonly table: string,
    private readonly columns: PartColumn[],
    private readonly dir: string,
    private readonly query: (buffer: string) => string,
    private readonly partRows: number,
  ) {}

  static async open(conn: DuckDBConnection, table: string, columns: PartColumn[], dir: string, query: (buffer: string) => string, partRows = 1 << 20): Promise<ParquetParts> {
    mkdirSync(dir, { recursive: true });
    await conn.run(`CREATE OR REPLACE TABLE ${table} (${columns.map((c) => `${quoteIdent(c.name)} ${c.type}`).join(", ")})`);
    return new ParquetParts(conn, table, columns, dir, query, partRows);
  }

  /** Appends rows [0, n) of `data` (one typed array per column, in the columns' order); writes a part when the buffer is full. */
  async append(data: Data[], n: number): Promise<void> {
    const t0 = performance.now();
    if (!this.app) {
      this.app = await this.conn.createAppender(this.table);
      const raw = this.rawAppender();
      this.chunk = duckdb.create_data_chunk(this.columns.map((_, j) => duckdb.appender_column_type(raw, j)));
    }
    const raw = this.rawAppender();
    const chunk = this.chunk!;
    for (let s = 0; s < n; s += CHUNK) {
      const m = Math.min(CHUNK, n - s);
      duckdb.data_chunk_set_size(chunk, m);
      for (let j = 0; j < this.columns.length; j++) {
        const d = data[j]!;
        const v = duckdb.data_chunk_get_vector(chunk, j);
        duckdb.copy_data_to_vector(v, 0, d.buffer as ArrayBuffer, d.byteOffset + s * d.BYTES_PER_ELEMENT, m * d.BYTES_PER_ELEMENT);
        if (this.columns[j]!.type === "SMALLINT") {
          // chunks are reused: the validity is written whole every time (-1 = NULL)
          const val = this.validity;
          val.fill(0);
          for (let i = 0; i < m; i++) if (d[s + i] !== -1) val[i >> 3] = val[i >> 3]! | (1 << (i & 7));
          duckdb.vector_ensure_validity_writable(v);
          duckdb.copy_data_to_vector_validity(v, 0, val.buffer as ArrayBuffer, 0, Math.ceil(m / 64) * 8);
        }
      }
      duckdb.append_data_chunk(raw, chunk);
    }
    this.buffered += n;
    this.rows += n;
    this.writeMs += performance.now() - t0;
    if (this.buffered >= this.partRows) await this.flush();
  }

  /** Writes the buffered rows as the next part (none when the buffer is empty). */
  async flush(): Promise<void> {
    const t0 = performance.now();
    if (this.app) {
      this.app.closeSync();
      this.app = null;
      this.chunk = null;
    }
    if (this.buffered > 0) {
      const file = join(this.dir, `part-${String(this.part++).padStart(5, "0")}.parquet`);
      await this.conn.run(`COPY (${this.query(this.table)}) TO ${sqlString(file)} (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 122880)`);
      await this.conn.run(`DELETE FROM ${this.table}`);
      this.files.push(file);
      this.buffered = 0;
    }
    this.writeMs += performance.now() - t0;
  }

  private rawAppender(): duckdb.Appender {
    const raw = (this.app as unknown as { appender?: duckdb.Appender }).appender;
    if (!raw) throw new Error("the appender's binding handle is not reachable");
    return raw;
  }
}

/** An in-memory DuckDB for the writers (memory capped; a part is small). */
export async function openDuck(memoryLimit = "1GB"): Promise<{ instance: DuckDBInstance; conn: DuckDBConnection }> {
  const { DuckDBInstance } = await import("@duckdb/node-api");
  const instance = await DuckDBInstance.create(":memory:", { threads: "1", memory_limit: memoryLimit });
  return { instance, conn: await instance.connect() };
}
