/**
 * FEATURE UNDER TEST: the project's layers (docs/architecture.md), from the import statements of
 * every TypeScript file:
 * - the planner core (raptor/, api.ts, the timetable interface) reaches no HTTP or DuckDB code,
 *   directly or through what it imports;
 * - the server's features (catalog/, planner/, street/, realtime/, map/, graphql/) do not import each other;
 * - server/ imports from pipeline/ only the dataset contract, pipeline/schema/;
 * - pipeline/ imports nothing from server/;
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

/** What a file imports: static imports and re-exports, dynamic imports, worker scripts. */
function specifiers(file: string): string[] {
  const src = readFileSync(join(ROOT, file), "utf8");
  return [
    ...src.matchAll(/(?:^|\n)\s*(?:import|export)[^'"`;]*?from\s+["']([^"']+)["']/g),
    ...src.matchAll(/(?:^|\n)\s*import\s+["']([^"']+)["']/g),
    ...src.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g),
    ...src.matchAll(/new URL\(\s*["'](\.[^"']+)["']\s*,\s*import\.meta\.url\s*\)/g),
  ].map((m) => m[1]!);
}

interface Edge {
  from: string;
  /** a project path (relative to the root) for a relative specifier, else the package or built-in */
  to: string;
  local: boolean;
}

const ALL = ["bin", "config", "pipeline", "server", "test", "bench"].flatMap(files);
const edges = (file: string): Edge[] =>
  specifiers(file).map((s) => (s.startsWith(".") ? { from: file, to: relative(ROOT, resolve(ROOT, dirname(file), s)), local: true } : { from: file, to: s, local: false }));
const under = (path: string, dir: string) => path === dir || path.startsWith(`${dir}/`);
/** The edges of `files` that break `ok`, as readable lines (an empty list passes). */
const violations = (of: string[], ok: (e: Edge) => boolean) => of.flatMap(edges).filter((e) => !ok(e)).map((e) => `${e.from} imports ${e.to}`);

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

  test("server features (catalog, planner, street, realtime, map, graphql) do not import each other", () => {
    const features = ["catalog", "planner", "street", "realtime", "map", "graphql"];
    for (const f of features) {
      const others = features.filter((o) => o !== f).map((o) => `server/${o}`);
      expect(violations(ALL.filter((x) => under(x, `server/${f}`)), (e) => !others.some((o) => under(e.to, o)))).toEqual([]);
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

  test("nothing imports bin/", () => {
    expect(violations(ALL, (e) => !under(e.to, "bin"))).toEqual([]);
  });
});
