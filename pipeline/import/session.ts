/**
 * An import session: the one owner of what an import of one feed version holds while it runs, and
 * releases when it ends, whatever the outcome (`await using`):
 * - its staging folder, `<data>/staging/<sha1>.<pid>/` (the unpacked feed, the version folder being
 *   written, DuckDB's spill files, a prepared timetable), removed at the end;
 * - its DuckDB database (in memory) and every connection opened on it;
 * - its lanes, the tasks running beside the main line (pipeline/tasks.ts), all awaited before the
 *   database closes;
 * - the worker thread reading stop_times.txt, stopped if still running.
 */
import type { DuckDBConnection, DuckDBInstance } from "@duckdb/node-api";
import { existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { Lanes, Task } from "../tasks.ts";

/** The staging area of a data dir (only an import holding the lock writes there). */
export const stagingRoot = (dataDir: string) => join(dataDir, "staging");

export class ImportSession implements AsyncDisposable {
  /** this import's staging folder */
  readonly dir: string;
  /** where the version's Parquet files are written, renamed into `<data>/versions/<sha1>/` when published */
  readonly versionDir: string;
  readonly lanes = new Lanes();
  /** DuckDB's module (a 70 MB library: ~50 ms of loading), loading while the feed is unpacked */
  private readonly engine = new Task("load DuckDB", () => import("@duckdb/node-api"));
  private db: Promise<DuckDBInstance> | null = null;
  private readonly connections: DuckDBConnection[] = [];
  private readonly workers: { cancel(): void }[] = [];
  private closed = false;

  constructor(private readonly dataDir: string, sha1: string) {
    this.dir = join(stagingRoot(dataDir), `${sha1}.${process.pid}`);
    this.versionDir = join(this.dir, "version");
    mkdirSync(this.versionDir, { recursive: true });
  }

  /** The session's database, created on first use. */
  database(): Promise<DuckDBInstance> {
    if (this.closed) return Promise.reject(new Error("the import session is closed"));
    return (this.db ??= this.engine.result().then(({ DuckDBInstance }) =>
      DuckDBInstance.create(":memory:", {
        threads: "2",
        memory_limit: "3GB",
        temp_directory: join(this.dir, "duckdb.tmp"),
        preserve_insertion_order: "true",
        // An in-memory database still checkpoints (compressing every table) once 16 MB of changes
        // accumulate; in an import that is a full extra pass over the raw CSV tables (1-2 s of CPU on
        // a 2.4 M stop_times feed) for tables that are dropped minutes later. The import never needs one.
        checkpoint_threshold: "1TB",
      })));
  }

  /** A new connection to the session's database (closed with it, if its user has not closed it). */
  async connect(): Promise<DuckDBConnection> {
    const conn = await (await this.database()).connect();
    this.connections.push(conn);
    return conn;
  }

  /** A worker the session stops when it ends (the fast reader of stop_times.txt). */
  adopt(worker: { cancel(): void }): void {
    this.workers.push(worker);
  }

  /**
   * Waits for the lanes, then closes the connections and the database, freeing its memory. The
   * session's end does it too; an import calls it before publishing.
   */
  async closeDatabase(): Promise<void> {
    await this.lanes.settled();
    this.closed = true;
    for (const c of this.connections.splice(0)) {
      try { c.closeSync(); } catch { /* closed by its user */ }
    }
    const opening = this.db;
    this.db = null;
    let db: DuckDBInstance | null = null;
    try {
      db = await opening;
    } catch { /* never created: whoever asked for it got the error */ }
    try { db?.closeSync(); } catch { /* closed */ }
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.closeDatabase();
    // no worker keeps unpacking or reading after we are done
    for (const w of this.workers) w.cancel();
    rmSync(this.dir, { recursive: true, force: true });
    try {
      const root = stagingRoot(this.dataDir);
      if (existsSync(root) && readdirSync(root).length === 0) rmSync(root, { recursive: true, force: true });
    } catch { /* ignore */ }
  }
}
