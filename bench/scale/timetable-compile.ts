/**
 * One planner timetable compile, for bench/scale/timetable-ab.ts to measure from outside:
 *
 *   bun bench/scale/timetable-compile.ts --code CHECKOUT --data DIR
 *
 * Compiles the timetable of DIR's active versions with CHECKOUT's pipeline/timetable/compile.ts
 * (the file is written only when it does not exist: empty DIR/timetables first) and prints its
 * progress, each line with the resident memory then and the peak so far.
 */
import { join, resolve } from "node:path";
import { flag } from "../lib/args.ts";

const code = resolve(flag("code", join(import.meta.dir, "..", "..")));
const data = resolve(flag("data", ""));
const { compileTimetable } = (await import(join(code, "pipeline", "timetable", "compile.ts"))) as typeof import("../../pipeline/timetable/compile.ts");
// each progress line with the resident memory then and the highest so far (MB)
const rss = () => `rss ${Math.round(process.memoryUsage.rss() / 2 ** 20)} MB, peak ${Math.round(process.resourceUsage().maxRSS / 1024)} MB`;
const r = await compileTimetable(data, { progress: (m) => console.log(`${m} [${rss()}]`) });
console.log(r.path);
