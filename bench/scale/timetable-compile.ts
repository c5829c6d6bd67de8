/**
 * One planner timetable compile, for bench/scale/timetable-ab.ts to measure from outside:
 *
 *   bun bench/scale/timetable-compile.ts --code CHECKOUT --data DIR
 *
 * Compiles the timetable of DIR's active versions with CHECKOUT's pipeline/timetable/compile.ts
 * (the file is written only when it does not exist: empty DIR/timetables first) and prints its progress.
 */
import { join, resolve } from "node:path";
import { flag } from "../lib/args.ts";

const code = resolve(flag("code", join(import.meta.dir, "..", "..")));
const data = resolve(flag("data", ""));
const { compileTimetable } = (await import(join(code, "pipeline", "timetable", "compile.ts"))) as typeof import("../../pipeline/timetable/compile.ts");
const r = await compileTimetable(data, { progress: (m) => console.log(m) });
console.log(r.path);
