/**
 * FEATURE UNDER TEST: the build's table modules (pipeline/gtfs/tables/) and their runner
 * (pipeline/gtfs/build.ts): every module of one shape, listed after the modules it depends on; the
 * GTFS files the import reads are exactly the modules' files, with their columns; the runner
 * refuses an order in which a module comes before a dependency, and a build that fails fails the
 * milestones still waited for (an import's lanes) with the same error.
 */
import { describe, expect, test } from "bun:test";
import { checkOrder, startBuild, type BuildInputs, type TableModule } from "../../pipeline/gtfs/build.ts";
import { GTFS_FILES, TABLE_MODULES } from "../../pipeline/gtfs/tables/index.ts";
import { Issues } from "../../pipeline/report.ts";
import { Task } from "../../pipeline/tasks.ts";

const mod = (name: string, dependsOn: string[], build: TableModule["build"] = async () => {}): TableModule => ({ name, file: null, columns: { required: [], optional: [] }, dependsOn, build });

describe("table modules", () => {
  test("each module comes after the modules it depends on, and every name is one module's", () => {
    expect(() => checkOrder(TABLE_MODULES)).not.toThrow();
    const names = TABLE_MODULES.map((m) => m.name);
    expect(new Set(names).size).toBe(names.length);
  });

  test("the files the import reads are the modules' files, each once, with the module's columns", () => {
    const files = TABLE_MODULES.flatMap((m) => (m.file ? [m] : []));
    expect(GTFS_FILES.map((f) => f.file).sort()).toEqual(files.map((m) => m.file!.name).sort());
    for (const m of files) {
      const spec = GTFS_FILES.find((f) => f.file === m.file!.name)!;
      expect(spec).toEqual({ file: m.file!.name, required: m.file!.required, required_columns: m.columns.required, optional_columns: m.columns.optional });
    }
    // the files GTFS requires (https://gtfs.org/documentation/schedule/reference/) reject a feed without them
    expect(GTFS_FILES.filter((f) => f.required).map((f) => f.file)).toEqual(["agency.txt", "stops.txt", "routes.txt", "trips.txt", "stop_times.txt"]);
  });

  test("the runner refuses a module listed before one it depends on, or twice", () => {
    expect(() => checkOrder([mod("a", ["b"]), mod("b", [])])).toThrow("table module a depends on b, which does not run before it");
    expect(() => checkOrder([mod("a", []), mod("a", [])])).toThrow("listed twice");
  });

  test("a failed build fails the milestones not yet reached with its error; those reached stay reached", async () => {
    const ran: string[] = [];
    const conn = { run: async () => {} } as unknown as BuildInputs["conn"];
    const inputs: BuildInputs = {
      conn, connect: async () => conn, raw: new Map(), issues: new Issues(), fvid: 1, allocate: () => 1, progress: () => {},
      shapes: new Task("shapes", async () => ({ skipped: 0, issues: new Issues() })),
    };
    const build = startBuild([
      mod("first", [], async () => void ran.push("first")),
      mod("second", ["first"], async () => {
        throw new Error("second broke");
      }),
      mod("third", ["second"], async () => void ran.push("third")),
    ], inputs);
    await build.after("first").result();
    await expect(build.after("third").result()).rejects.toThrow("second broke");
    await expect(build.result.result()).rejects.toThrow("second broke");
    expect(ran).toEqual(["first"]);
  });
});
