/**
 * The timetable compile of two checkouts of this repository (`--a` and `--b`, each a folder with
 * pipeline/ and node_modules/) on one imported dataset (`--data`): per round both run, the order
 * alternating, each as a child process (bench/scale/timetable-compile.ts) measured from outside
 * (wall, user and system CPU, peak RSS: bench/lib/measure.ts), on the dataset with its timetables/
 * folder emptied first; the sha1 of the file each wrote (they must be equal), the load average and
 * the host's speed probe per round. With `--feed FILE`, the whole `interchange import` of that feed
 * is measured the same way (into a fresh folder under `--work`, removed after each run).
 *
 *   bun bench/scale/timetable-ab.ts --a OLD --b NEW --data DIR [--rounds 3] [--feed FEED.zip --work DIR]
 *
 * Prints one line per run and the per-round ratios b / a of peak RSS and wall time.
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import { flag } from "../lib/args.ts";
import { hostProbeMs, machineInfo } from "../lib/machine.ts";
import { measure, type Measured } from "../lib/measure.ts";

const A = resolve(flag("a", "")), B = resolve(flag("b", ""));
const DATA = flag("data", "") && resolve(flag("data", ""));
const ROUNDS = Number(flag("rounds", "3"));
const FEED = flag("feed", "") && resolve(flag("feed", ""));
const WORK = resolve(flag("work", join(import.meta.dir, "..", ".work", "timetable-ab")));
const RUNNER = join(import.meta.dir, "timetable-compile.ts");

const mb = (b: number) => Math.round(b / 2 ** 20);
const sec = (ms: number) => (ms / 1000).toFixed(1);
const line = (label: string, r: Measured, extra = "") =>
  `${label}: peak ${mb(r.peakRssBytes)} MB, wall ${sec(r.wallMs)} s (user ${sec(r.userMs)} / sys ${sec(r.sysMs)}), load ${loadavg().map((x) => x.toFixed(2)).join(" ")}${extra}`;

/** The sha1 of each timetable file under `dir`/timetables. */
function timetableSha1s(dir: string): string[] {
  const t = join(dir, "timetables");
  if (!existsSync(t)) return [];
  return readdirSync(t).filter((f) => f.endsWith(".arrow")).sort().map((f) => `${f} ${createHash("sha1").update(readFileSync(join(t, f))).digest("hex")}`);
}

async function compileRun(code: string): Promise<{ r: Measured; sha1: string[] }> {
  rmSync(join(DATA, "timetables"), { recursive: true, force: true });
  const r = await measure([process.execPath, RUNNER, "--code", code, "--data", DATA]);
  if (r.exitCode !== 0) throw new Error(`compile with ${code}: ${r.stderr.slice(-2000)}`);
  return { r, sha1: timetableSha1s(DATA) };
}

async function importRun(code: string, round: number): Promise<{ r: Measured; sha1: string[] }> {
  const dir = join(WORK, `import-${round}`);
  rmSync(dir, { recursive: true, force: true });
  const r = await measure([process.execPath, join(code, "bin", "interchange.ts"), "import", "--quiet", "--data", dir, FEED], { cwd: code });
  if (r.exitCode !== 0) throw new Error(`import with ${code}: ${r.stderr.slice(-2000)}`);
  const sha1 = timetableSha1s(dir);
  rmSync(dir, { recursive: true, force: true });
  return { r, sha1 };
}

const m = machineInfo(B);
console.log(`${new Date().toISOString()} ${m.cpuModel}, ${m.cores} cores, a=${A} b=${B}, commit b ${m.gitCommit}`);
for (const [what, run] of [["compile", DATA ? compileRun : null], ["import", FEED ? importRun : null]] as const) {
  if (!run) continue;
  for (let round = 0; round < ROUNDS; round++) {
    const probe = hostProbeMs();
    const order = round % 2 === 0 ? [A, B] : [B, A];
    const got = new Map<string, { r: Measured; sha1: string[] }>();
    for (const code of order) got.set(code, await run(code, round));
    const a = got.get(A)!, b = got.get(B)!;
    console.log(`${what} round ${round + 1} (probe ${probe.toFixed(2)} ms, ${order[0] === A ? "a first" : "b first"})`);
    console.log(`  ${line("a", a.r)}`);
    console.log(`  ${line("b", b.r)}`);
    if (round === 0 && what === "compile") for (const [k, v] of [["a", a], ["b", b]] as const) console.log(v.r.stdout.trim().split("\n").map((l) => `    ${k}| ${l}`).join("\n"));
    console.log(`  b/a: peak ${(b.r.peakRssBytes / a.r.peakRssBytes).toFixed(2)}, wall ${(b.r.wallMs / a.r.wallMs).toFixed(2)}; same file: ${a.sha1.join() === b.sha1.join() && a.sha1.length > 0} (${b.sha1.join("; ")})`);
  }
}
