/**
 * A small pool of DuckDB connections over one in-memory instance, with a per-connection cache of
 * prepared statements (keyed by SQL text) and bound parameters only. Streams lease a connection for
 * their whole life from a separate pool so a slow download never starves the lookups.
 */
import {
  DuckDBConnection,
  type DuckDBDataChunk,
  DuckDBInstance,
  type DuckDBPreparedStatement,
  type DuckDBResult,
  type DuckDBType,
  type DuckDBValue,
} from "@duckdb/node-api";

/** SQL text plus its bound parameters ($1, $2, ... in order). */
export interface Query {
  sql: string;
  values: DuckDBValue[];
  types?: (DuckDBType | undefined)[];
}

/** Accumulates bound parameters while a query string is built. */
export class Params {
  readonly values: DuckDBValue[] = [];
  readonly types: (DuckDBType | undefined)[] = [];
  /** Bind a value and return its placeholder. */
  add(value: DuckDBValue, type?: DuckDBType): string {
    this.values.push(value);
    this.types.push(type);
    return `$${this.values.length}`;
  }
  query(sql: string): Query {
    return { sql, values: this.values, types: this.types.some((t) => t) ? this.types : undefined };
  }
}

const MAX_PREPARED = 128;

class PooledConnection {
  private readonly prepared = new Map<string, DuckDBPreparedStatement>();
  constructor(readonly connection: DuckDBConnection) {}

  async statement(q: Query): Promise<DuckDBPreparedStatement> {
    let ps = this.prepared.get(q.sql);
    if (ps) {
      // refresh LRU position
      this.prepared.delete(q.sql);
      this.prepared.set(q.sql, ps);
    } else {
      ps = await this.connection.prepare(q.sql);
      this.prepared.set(q.sql, ps);
      if (this.prepared.size > MAX_PREPARED) {
        const [oldSql, old] = this.prepared.entries().next().value as [string, DuckDBPreparedStatement];
        this.prepared.delete(oldSql);
        old.destroySync();
      }
    }
    ps.clearBindings();
    if (q.values.length) ps.bind(q.values, q.types as DuckDBType[] | undefined);
    return ps;
  }

  close(): void {
    for (const ps of this.prepared.values()) ps.destroySync();
    this.prepared.clear();
    this.connection.closeSync();
  }
}

class Pool {
  private readonly idle: PooledConnection[] = [];
  private readonly waiters: ((c: PooledConnection) => void)[] = [];
  private created = 0;
  constructor(
    private readonly instance: DuckDBInstance,
    private readonly max: number,
  ) {}

  async acquire(): Promise<PooledConnection> {
    const c = this.idle.pop();
    if (c) return c;
    if (this.created < this.max) {
      this.created++;
      return new PooledConnection(await this.instance.connect());
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  release(c: PooledConnection): void {
    const w = this.waiters.shift();
    if (w) w(c);
    else this.idle.push(c);
  }

  close(): void {
    for (const c of this.idle) c.close();
    this.idle.length = 0;
  }
}

export type Row = Record<string, unknown>;

export class Database {
  private readonly pool: Pool;
  private readonly streamPool: Pool;
  private constructor(readonly instance: DuckDBInstance, poolSize: number) {
    this.pool = new Pool(instance, poolSize);
    this.streamPool = new Pool(instance, poolSize);
  }

  static async create(opts: { threads: number; poolSize: number; memoryLimit?: string }): Promise<Database> {
    const config: Record<string, string> = { threads: String(opts.threads) };
    if (opts.memoryLimit) config.memory_limit = opts.memoryLimit;
    const instance = await DuckDBInstance.create(":memory:", config);
    return new Database(instance, opts.poolSize);
  }

  /** Run one statement without parameters (DDL, loading). */
  async exec(sql: string): Promise<void> {
    const c = await this.pool.acquire();
    try {
      await c.connection.run(sql);
    } finally {
      this.pool.release(c);
    }
  }

  /** Run a query and return its rows as plain JS objects (BIGINT → bigint, DATE → string via SQL). */
  async all(q: Query): Promise<Row[]> {
    const c = await this.pool.acquire();
    try {
      const ps = await c.statement(q);
      const reader = await ps.runAndReadAll();
      return reader.getRowObjectsJS() as Row[];
    } finally {
      this.pool.release(c);
    }
  }

  /** Run a query and return its rows as arrays, in column order. */
  async rows(q: Query): Promise<unknown[][]> {
    const c = await this.pool.acquire();
    try {
      const ps = await c.statement(q);
      const reader = await ps.runAndReadAll();
      return reader.getRowsJS() as unknown[][];
    } finally {
      this.pool.release(c);
    }
  }

  /**
   * Start a streaming query: yields arrays of rows chunk by chunk (about 2048 rows each), so a
   * response can be written while DuckDB is still producing it. The connection is released when
   * the iterator finishes or is returned early.
   */
  async *stream(q: Query): AsyncGenerator<unknown[][]> {
    for await (const chunk of this.chunks(q)) yield chunk.getRows() as unknown[][];
  }

  /** The DuckDB chunks of a query (column vectors; bulk loading uses them directly). */
  async *chunks(q: Query): AsyncGenerator<DuckDBDataChunk> {
    const c = await this.streamPool.acquire();
    try {
      const ps = await c.statement(q);
      const result: DuckDBResult = await ps.stream();
      for (;;) {
        const chunk = await result.fetchChunk();
        if (!chunk || chunk.rowCount === 0) break;
        yield chunk;
      }
    } finally {
      this.streamPool.release(c);
    }
  }

  close(): void {
    this.pool.close();
    this.streamPool.close();
    this.instance.closeSync();
  }
}

/** The SQL-literal helper, for the callers (and tests) that take it from here. */
export { sqlString } from "../../shared/sql.ts";
