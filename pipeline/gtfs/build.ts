/**
 * Builds the catalog tables from the raw GTFS tables inside one DuckDB database: validation (bad
 * rows skipped and reported by kind, see README "Bad feeds"), integer ids, derived data (calendars,
 * stop patterns, generated shapes, interpolated times, route/agency stop links).
 *
 * The work is split into table modules (pipeline/gtfs/tables/, listed in tables/index.ts), one per
 * GTFS file or derived table, each of one shape (TableModule): the file it reads and the columns it
 * keeps, the modules whose tables it needs, and its build step. startBuild runs them in their
 * listed order, checks that each one's dependencies ran before it, and tells whoever waits for a
 * module (an import lane) when it is done.
 */
import type { DuckDBConnection } from "@duckdb/node-api";
import { haversineSql } from "../../shared/geo.ts";
import { rows, scalar } from "../duck.ts";
import { Issues } from "../report.ts";
import { Task } from "../tasks.ts";
import type { StopTimesColumns } from "./stop-times/columns.ts";
import type { Declined, FastStopTimes } from "./stop-times/fast.ts";
import type { FastRows, FastTripCheck } from "./stop-times/append.ts";
import { lineOf, type RawTable } from "./load.ts";

export type Allocate = (kind: string, count: number) => number;

/** A GTFS file as a table module reads it. */
export interface GtfsFile {
  /** e.g. "stops.txt"; its raw table is raw_stops (load.ts) */
  name: string;
  /** the feed is rejected when the file is missing */
  required: boolean;
}

/**
 * One step of the build: a GTFS file's table, or a table derived from others'.
 * (https://gtfs.org/documentation/schedule/reference/ for the files and columns.)
 */
export interface TableModule {
  /** what other modules name in dependsOn */
  name: string;
  /** the GTFS file it reads (loaded into its raw table before the build), or null for a derived table */
  file: GtfsFile | null;
  /**
   * the file's columns it keeps: a present file without a required one rejects the feed; optional
   * ones the file lacks read as NULL; other columns are ignored
   */
  columns: { required: readonly string[]; optional: readonly string[] };
  /** modules whose tables its build reads (they must come before it) */
  dependsOn: readonly string[];
  build(ctx: BuildContext): Promise<void>;
}

/** What the importer gives the build. */
export interface BuildInputs {
  conn: DuckDBConnection;
  /** another connection to the same database (the fast path inserts stop_times on two at once) */
  connect: () => Promise<DuckDBConnection>;
  raw: Map<string, RawTable>;
  issues: Issues;
  fvid: number;
  allocate: Allocate;
  progress: (msg: string) => void;
  /** shapes.txt read and checked on a connection of its own (tables/shapes.ts loadShapes), joined by the shapes module */
  shapes: Task<ShapesBuilt>;
  /** the fast reader's stop_times.txt (stop-times/fast.ts), when the importer started it */
  fastStopTimes?: () => Promise<FastStopTimes | Declined>;
  /** puts stop_times.txt on disk when DuckDB is to read it (a zip member the fast reader read is in memory only) */
  stopTimesFile?: () => Promise<void>;
  /** the import validates: the stop-time rules read the contract's columns whole (its `rest` too), so trip_check keeps them */
  keepStopTimesRest?: boolean;
}

/** What modules hand to later ones besides tables (each set by the module named). */
export interface BuildFacts {
  /** trips: the trip id of tix 1 (trip ids are allocated for every candidate trip: id = tripBase + tix - 1) */
  tripBase: number;
  /** stop_times: how st0 was made */
  stopTimes: StopTimesState;
  /**
   * trip_check: the stop-times contract's columns when its producer made them (the fast reader's
   * rows, which no check changed), else null: the timetable then reads them from the relation `stop_times`
   */
  stopTimesColumns: StopTimesColumns | null;
}

/** What every module's build gets. */
export interface BuildContext extends BuildInputs {
  /** rows skipped per file (the report's skipped_rows) */
  skipped: Record<string, number>;
  /** derived rows (the report's derived) */
  derived: Record<string, number>;
  /** adds n skipped rows of `file`; returns n */
  skip(file: string, n: number): number;
  /**
   * Reports the rows of `fromSql` (a query exposing `rid`, the row's rowid in raw_<file>) as
   * `kind`: counts them and records up to 5 examples with their lines. Returns the count.
   */
  reportSkipped(kind: string, file: string, fromSql: string, messageSql: string): Promise<number>;
  /** progress, with the time since the build started */
  step(name: string): void;
  /** a query's rows, its first value as a number (on `conn`) */
  rows(sql: string): Promise<Record<string, unknown>[]>;
  scalar(sql: string): Promise<number>;
  facts: Partial<BuildFacts>;
  /** a fact a module before this one set (an error when it did not: the modules are out of order) */
  fact<K extends keyof BuildFacts>(key: K): BuildFacts[K];
}

export interface BuildResult {
  counts: Record<string, number>;
  derived: Record<string, number>;
  skipped: Record<string, number>;
}

/** A build under way: its modules' milestones and its result. */
export interface Build {
  /** settles when module `name` is built (fails with the build's error when the build fails first) */
  after(name: string): Task<void>;
  /** every module built, then each catalog table's row count */
  result: Task<BuildResult>;
  /** what the modules built so far found (BuildFacts) */
  facts: Readonly<Partial<BuildFacts>>;
}

/** the catalog tables the build makes (their row counts: the version's counts in the manifest) */
const COUNTED = ["agencies", "routes", "stops", "trips", "stop_times", "shapes", "calendars", "frequencies", "transfers", "feed_info", "stop_patterns", "route_stops", "agency_stops",
  "fare_attributes", "fare_rules", "fare_media", "rider_categories", "fare_products", "areas", "stop_areas", "networks", "route_networks", "timeframes",
  "fare_leg_rules", "fare_transfer_rules", "locations", "location_groups", "location_group_stops", "booking_rules"];

/** What the shapes lane did: rows of shapes.txt it skipped, and its warnings (taken by the shapes module). */
export interface ShapesBuilt {
  skipped: number;
  issues: Issues;
}

/** How st0 was made, for the modules after this one. */
export interface StopTimesState {
  /**
   * The stop times as they are, when the fast reader's rows need no check's change
   * (`fastCheck.changesRows` false): the stop-times contract (stop-times/columns.ts), stored as
   * the relation `stop_times` already; there is no st0 then. Else null. (trip_check lets go of it,
   * and of fastRows and fastCheck, once it is built: their memory is not needed after that.)
   */
  final: StopTimesColumns | null;
  /** the fast reader's rows, while st0 (or `final`) holds exactly those, in order; else null */
  fastRows: FastRows | null;
  /** their trip_check, while fastRows is set (stop-times/append.ts fastTripCheck) */
  fastCheck: FastTripCheck | null;
  /** the fast path's code (loaded only when the fast reader ran) */
  fastAppend: typeof import("./stop-times/append.ts") | null;
  /** st0's column, or `absent` (a typed NULL, or false) when st0 does not have it */
  column(col: string, absent: string): string;
  /** whether st0 has the column */
  has(col: string): boolean;
}

/** SQL macros every module may use. */
const MACROS = `
CREATE OR REPLACE MACRO gtfs_time(t) AS CASE WHEN regexp_full_match(t, '[0-9]{1,3}:[0-5][0-9]:[0-5][0-9]')
  THEN CAST(epoch(TRY_CAST(t AS INTERVAL)) AS INTEGER) END;
CREATE OR REPLACE MACRO gtfs_date(d) AS TRY_CAST(TRY_STRPTIME(d, '%Y%m%d') AS DATE);
CREATE OR REPLACE MACRO gtfs_int(x) AS TRY_CAST(x AS INTEGER);
CREATE OR REPLACE MACRO hav_m(lat1, lon1, lat2, lon2) AS ${haversineSql("lat1", "lon1", "lat2", "lon2")};
`;

/** Checks the modules' order: every dependency is a module listed before its dependent. */
export function checkOrder(modules: readonly TableModule[]): void {
  const seen = new Set<string>();
  for (const m of modules) {
    if (seen.has(m.name)) throw new Error(`table module ${m.name} is listed twice`);
    for (const d of m.dependsOn) if (!seen.has(d)) throw new Error(`table module ${m.name} depends on ${d}, which does not run before it`);
    seen.add(m.name);
  }
}

/** Starts building the tables: `modules` in their order, over `inputs`. */
export function startBuild(modules: readonly TableModule[], inputs: BuildInputs): Build {
  checkOrder(modules);
  const ctx = buildContext(inputs);
  const done = new Map<string, { resolve: () => void; reject: (e: unknown) => void; task: Task<void> }>();
  for (const m of modules) {
    let resolve!: () => void, reject!: (e: unknown) => void;
    const p = new Promise<void>((res, rej) => ([resolve, reject] = [res, rej]));
    done.set(m.name, { resolve, reject, task: new Task(`${m.name} built`, () => p) });
  }
  const result = new Task("build the catalog tables", async () => {
    try {
      await ctx.conn.run(MACROS);
      for (const [file, r] of ctx.raw) if (r.rejectedLines.length) ctx.skip(file, r.rejectedLines.length); // csv_unparsable rows
      for (const m of modules) {
        await m.build(ctx);
        done.get(m.name)!.resolve();
      }
    } catch (e) {
      for (const d of done.values()) d.reject(e); // (those already built stay built)
      throw e;
    }
    const counts: Record<string, number> = {};
    for (const t of COUNTED) counts[t] = await scalar(ctx.conn, `SELECT count(*) FROM ${t}`);
    return { counts, derived: ctx.derived, skipped: ctx.skipped };
  });
  return {
    after: (name) => {
      const d = done.get(name);
      if (!d) throw new Error(`no table module ${name}`);
      return d.task;
    },
    result,
    facts: ctx.facts,
  };
}

/**
 * Reports the rows of `fromSql` (a query over `raw`'s table exposing `rid`) under `kind` in
 * `issues`: counts them, records up to 5 examples with their lines. Returns the count.
 */
export async function reportRows(conn: DuckDBConnection, raw: RawTable, issues: Issues, kind: string, fromSql: string, messageSql: string): Promise<number> {
  const n = await scalar(conn, `SELECT count(*) FROM (${fromSql})`);
  if (n === 0) return 0;
  const ex = await rows(conn, `SELECT rid, ${messageSql} AS msg FROM (${fromSql}) ORDER BY rid LIMIT 5`);
  const file = raw.spec.file;
  issues.addMany(kind, n, ex.map((r) => ({ file, line: lineOf(raw, Number(r.rid)), message: String(r.msg) })));
  return n;
}

function buildContext(inputs: BuildInputs): BuildContext {
  const t0 = performance.now();
  const skipped: Record<string, number> = {};
  const facts: Partial<BuildFacts> = {};
  const ctx: BuildContext = {
    ...inputs,
    skipped,
    derived: {},
    skip: (file, n) => {
      skipped[file] = (skipped[file] ?? 0) + n;
      return n;
    },
    reportSkipped: (kind, file, fromSql, messageSql) => reportRows(inputs.conn, inputs.raw.get(file)!, inputs.issues, kind, fromSql, messageSql),
    step: (name) => inputs.progress(`${name} (${((performance.now() - t0) / 1000).toFixed(2)} s)`),
    rows: (sql) => rows(inputs.conn, sql),
    scalar: (sql) => scalar(inputs.conn, sql),
    facts,
    fact: (key) => {
      const v = facts[key];
      if (v === undefined) throw new Error(`the build has no ${key} yet: a table module runs before the one that sets it`);
      return v as BuildFacts[typeof key];
    },
  };
  return ctx;
}
