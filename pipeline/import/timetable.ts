/**
 * The timetable prepared with an import (ImportOptions.prepareTimetable): the planner timetable of
 * the active versions as they will be once this version is published, built from this import's
 * in-memory tables (and the other active versions' Parquet files) while its Parquet files are
 * written, staged in the session's folder and placed after the manifest switch
 * (pipeline/timetable/publish.ts). Its lanes: a connection of its own; this version's stop times
 * as soon as the trip_check module is built (the stop-times contract, pipeline/gtfs/stop-times/columns.ts:
 * its columns when its producer made them, else read from its relation, the in-memory `stop_times`);
 * and the timetable itself, once the version is described.
 */
import type { DuckDBConnection } from "@duckdb/node-api";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Build } from "../gtfs/build.ts";
import { readStopTimesColumns, type StopTimesColumns } from "../gtfs/stop-times/columns.ts";
import { activeStreets, activeVersions, type Manifest } from "../schema/manifest.ts";
import { Task } from "../tasks.ts";
import { stageTimetable, type StagedTimetable } from "../timetable/publish.ts";
import { timetableRelPath } from "../timetable/file.ts";
import { inMemoryTables } from "./parquet.ts";
import type { ImportRun } from "./run.ts";
import type { ImportSession } from "./session.ts";
import type { NewVersion } from "./version.ts";

export class PreparedTimetable {
  /** the compiler (and the Arrow writer it loads later), loading while the feed is unpacked */
  private readonly compiler = new Task("load the timetable compiler", () => import("../timetable/compile.ts"));
  private readonly conn: Task<DuckDBConnection>;
  private stopTimes: Task<StopTimesColumns> | null = null;

  constructor(private readonly run: ImportRun, private readonly session: ImportSession) {
    this.conn = session.lanes.start("timetable: connect", () => session.connect());
  }

  /** This version's stop times, taken as soon as the build's trip_check module is done. */
  follow(build: Build): void {
    this.stopTimes = this.session.lanes.add(build.after("trip_check").andThen("timetable: this version's stop times", async () => {
      return build.facts.stopTimesColumns ?? readStopTimesColumns(await this.conn.result(), inMemoryTables("stop_times"));
    }));
  }

  /** Settles once this version's stop times are taken (from the relation `stop_times` when read): nothing here reads that relation after. */
  async stopTimesTaken(): Promise<void> {
    await this.stopTimes?.result().catch(() => {});
  }

  /**
   * Starts building the timetable of the active versions once `version` is published (`manifest`:
   * the manifest before); null when that timetable's file exists already. Its task's value is the
   * staged file, or null when it failed (not fatal: refreshTimetable then compiles it from the
   * Parquet files, and the progress says why).
   */
  start(version: NewVersion, manifest: Manifest): Task<StagedTimetable | null> | null {
    const { run, session } = this;
    const after = structuredClone(manifest);
    version.publish(after);
    const versions = activeVersions(after);
    const streets = activeStreets(after);
    const rel = timetableRelPath(versions.map((v) => v.sha1), undefined, streets?.sha1 ?? null);
    if (existsSync(join(run.dataDir, rel))) return null;
    const stopTimes = this.stopTimes;
    return session.lanes.start("prepare the timetable", async () => {
      const t0 = performance.now();
      const secs = () => ((performance.now() - t0) / 1000).toFixed(2);
      try {
        const { buildTimetable, parquetTables } = await this.compiler.result();
        const conn = await this.conn.result();
        const mine = (sha1: string) => sha1 === version.sha1;
        let size = 0;
        const staged = await stageTimetable(session.dir, rel, async (write) => {
          size = await buildTimetable(
            conn,
            versions.map((v) => (mine(v.sha1) ? inMemoryTables : parquetTables(join(run.dataDir, v.path)))),
            write,
            undefined,
            (m) => run.progress(`${m} (${secs()} s)`),
            versions.map((v) => (mine(v.sha1) && stopTimes ? () => stopTimes.result() : null)),
            streets && { dataDir: run.dataDir, entry: streets },
          );
        });
        run.progress(`timetable prepared: ${(size / 1e6).toFixed(1)} MB in ${secs()} s`);
        return staged;
      } catch (e) {
        run.progress(`timetable not prepared (${(e as Error).message}); it is compiled after the import`);
        return null;
      }
    });
  }
}
