/**
 * FEATURE UNDER TEST: the project's layers (docs/architecture.md), from the import statements of
 * every TypeScript file:
 * - the planner core (raptor/, api.ts, the timetable interface) reaches no HTTP or DuckDB code,
 *   directly or through what it imports;
 * - the server's features (catalog/, planner/, street/, realtime/, map/, graphql/, geocoder/) do not import each
 *   other, but for a feature's published surface (its public.ts: server/planner/public.ts);
 * - server/ imports from pipeline/ only the dataset contract, pipeline/schema/;
 * - pipeline/ imports nothing from server/;
 * - the shared layer (shared/: geometry, GTFS time and service days, SQL quoting, opening the
 *   street engine), which both pipeline/ and server/ import, imports only itself, Node's built-ins
 *   and the street engine's binding;
 * - no import cycle: the graph of every project file's imports (static, type-only, dynamic
 *   import(); a worker script is a graph of its own) has no cycle, but for the known ones listed
 *   in KNOWN_CYCLES;
 * - the dataset contract imports only itself and Node's built-ins; config/ (the flag parser both
 *   sides use) imports nothing of the project;
 * - nothing imports bin/ (the entry point).
 * (test/planner/architecture.test.ts holds the planner's own finer rules.)
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "..");

function files(dir: string): string[] {
  const abs = join(ROOT, dir);
  if (!existsSync(abs)) return [];
  return readdirSync(abs).flatMap((f) => {
    const p = join(dir, f);
    return statSync(join(ROOT, p)).isDirectory() ? (f === "node_modules" || f.startsWith(".") ? [] : files(p)) : p.endsWith(".ts") ? [p] : [];
  });
}

/** What a file imports: static imports and re-exports, dynamic imports, worker scripts (unless `workers` is false). */
function specifiers(file: string, workers = true): string[] {
  const src = readFileSync(join(ROOT, file), "utf8");
  return [
    ...src.matchAll(/(?:^|\n)\s*(?:import|export)[^'"`;]*?from\s+["']([^"']+)["']/g),
    ...src.matchAll(/(?:^|\n)\s*import\s+["']([^"']+)["']/g),
    ...src.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g),
    ...(workers ? src.matchAll(/new URL\(\s*["'](\.[^"']+)["']\s*,\s*import\.meta\.url\s*\)/g) : []),
  ].map((m) => m[1]!);
}

interface Edge {
  from: string;
  /** a project path (relative to the root) for a relative specifier, else the package or built-in */
  to: string;
  local: boolean;
}

const ALL = ["bin", "config", "shared", "pipeline", "server", "test", "bench"].flatMap(files);
const edges = (file: string, workers = true): Edge[] =>
  specifiers(file, workers).map((s) => (s.startsWith(".") ? { from: file, to: relative(ROOT, resolve(ROOT, dirname(file), s)), local: true } : { from: file, to: s, local: false }));
const under = (path: string, dir: string) => path === dir || path.startsWith(`${dir}/`);
/**
 * The import cycles of `of` (each a strongly connected component of its import graph, with one
 * cycle through it spelled out: a -> b -> ... -> a), by Tarjan's algorithm.
 */
function cycles(of: string[]): { files: string[]; path: string }[] {
  const inSet = new Set(of);
  // a worker script (new URL(...)) starts a module graph of its own in its own thread: no load-order cycle
  const next = new Map(of.map((f) => [f, [...new Set(edges(f, false).filter((e) => e.local && inSet.has(e.to)).map((e) => e.to))]]));
  const index = new Map<string, number>(), low = new Map<string, number>(), onStack = new Set<string>(), stack: string[] = [];
  const out: { files: string[]; path: string }[] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v)!) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const scc: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      scc.push(w);
    } while (w !== v);
    if (scc.length > 1 || next.get(v)!.includes(v)) out.push({ files: scc.sort(), path: cyclePath(scc, next) });
  };
  for (const f of of) if (!index.has(f)) visit(f);
  return out;
}

/** One cycle through the first file of a strongly connected component (breadth-first, shortest). */
function cyclePath(scc: string[], next: Map<string, string[]>): string {
  const inScc = new Set(scc);
  const start = [...scc].sort()[0]!;
  const from = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    for (const w of next.get(queue[i]!)!) {
      if (!inScc.has(w)) continue;
      if (w === start) {
        const path = [start];
        for (let x: string | undefined = queue[i]; x !== undefined && x !== start; x = from.get(x)) path.splice(1, 0, x);
        return [...path, start].join(" -> ");
      }
      if (!from.has(w) && w !== start) {
        from.set(w, queue[i]!);
        queue.push(w);
      }
    }
  }
  return start;
}

/**
 * Cycles known and owned elsewhere, each removed by its owner (then its line goes): the files of
 * the cycle, sorted, joined by " ".
 */
const KNOWN_CYCLES = new Set([
  // the RAPTOR core's modules: its owner removes it with the rewrite of raptor/
  "server/planner/raptor/heuristic.ts server/planner/raptor/prepare.ts server/planner/raptor/slots.ts server/planner/raptor/state.ts server/planner/raptor/transfer-rules.ts",
]);

/** The edges of `files` that break `ok`, as readable lines (an empty list passes). */
const violations = (of: string[], ok: (e: Edge) => boolean) => of.flatMap((f) => edges(f)).filter((e) => !ok(e)).map((e) => `${e.from} imports ${e.to}`);

describe("architecture", () => {
  test("the scan sees the project", () => {
    for (const dir of ["pipeline", "server", "config", "bin"]) expect(ALL.some((f) => under(f, dir))).toBe(true);
    expect(edges("pipeline/import.ts").some((e) => e.to === "pipeline/gtfs/build.ts")).toBe(true);
  });

  test("the planner core reaches no HTTP or DuckDB code, through anything it imports", () => {
    const core = ALL.filter((f) => under(f, "server/planner/raptor") || ["server/planner/api.ts", "server/planner/timetable/types.ts", "server/planner/timetable/reverse.ts", "server/planner/timetable/calendar.ts"].includes(f));
    expect(core.length).toBeGreaterThan(3);
    const seen = new Set<string>();
    const bad: string[] = [];
    const visit = (file: string, path: string[]) => {
      if (seen.has(file) || !existsSync(join(ROOT, file))) return;
      seen.add(file);
      for (const e of edges(file)) {
        if (e.local) visit(e.to, [...path, e.to]);
        else if (/elysia|duckdb|^node:(http|https|net)$|undici/.test(e.to)) bad.push(`${[...path, e.to].join(" -> ")}`);
      }
      if (/\bfetch\(/.test(readFileSync(join(ROOT, file), "utf8"))) bad.push(`${path.join(" -> ")} calls fetch()`);
    };
    for (const f of core) visit(f, [f]);
    expect(bad).toEqual([]);
  });

  test("server features (catalog, planner, street, realtime, map, graphql, geocoder) do not import each other (but a feature's public.ts)", () => {
    const features = ["catalog", "planner", "street", "realtime", "map", "graphql", "geocoder"];
    for (const f of features) {
      const others = features.filter((o) => o !== f).map((o) => `server/${o}`);
      // a feature's published surface (its public.ts) is the one file another may import
      expect(violations(ALL.filter((x) => under(x, `server/${f}`)), (e) => !others.some((o) => under(e.to, o) && e.to !== `${o}/public.ts`))).toEqual([]);
    }
  });

  test("server/ imports from pipeline/ only the dataset contract (pipeline/schema/)", () => {
    expect(violations(ALL.filter((f) => under(f, "server")), (e) => !under(e.to, "pipeline") || under(e.to, "pipeline/schema"))).toEqual([]);
  });

  test("pipeline/ imports nothing from server/", () => {
    expect(violations(ALL.filter((f) => under(f, "pipeline")), (e) => !under(e.to, "server"))).toEqual([]);
  });

  test("the dataset contract imports only itself and Node's built-ins; config/ imports nothing of the project", () => {
    expect(violations(ALL.filter((f) => under(f, "pipeline/schema")), (e) => (e.local ? under(e.to, "pipeline/schema") : e.to.startsWith("node:")))).toEqual([]);
    expect(violations(ALL.filter((f) => under(f, "config")), (e) => !e.local)).toEqual([]);
  });

  test("the shared layer (shared/) imports only itself, Node's built-ins and the street engine's binding", () => {
    expect(ALL.filter((f) => under(f, "shared")).length).toBeGreaterThan(2);
    expect(violations(ALL.filter((f) => under(f, "shared")), (e) => (e.local ? under(e.to, "shared") : e.to.startsWith("node:") || e.to === "@valhallajs/valhallajs"))).toEqual([]);
  });

  test("the cycle finder finds a cycle, through a dynamic import too, and spells it out", () => {
    // a fixture of three files: a imports b, b imports c with import(), c imports a's type
    const found = cycles(["test/fixtures/cycle/a.ts", "test/fixtures/cycle/b.ts", "test/fixtures/cycle/c.ts", "test/fixtures/cycle/leaf.ts"]);
    expect(found).toEqual([{ files: ["test/fixtures/cycle/a.ts", "test/fixtures/cycle/b.ts", "test/fixtures/cycle/c.ts"], path: "test/fixtures/cycle/a.ts -> test/fixtures/cycle/b.ts -> test/fixtures/cycle/c.ts -> test/fixtures/cycle/a.ts" }]);
  });

  test("no import cycle (but the known ones, which their owners remove)", () => {
    const project = ALL.filter((f) => !under(f, "test/fixtures/cycle"));
    const found = cycles(project);
    const unknown = found.filter((c) => !KNOWN_CYCLES.has(c.files.join(" "))).map((c) => c.path);
    expect(unknown).toEqual([]);
    // a known cycle that is gone is taken off the list
    const stillThere = new Set(found.map((c) => c.files.join(" ")));
    expect([...KNOWN_CYCLES].filter((k) => !stillThere.has(k))).toEqual([]);
  });

  test("nothing imports bin/", () => {
    expect(violations(ALL, (e) => !under(e.to, "bin"))).toEqual([]);
  });
});
