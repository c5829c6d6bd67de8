/**
 * FEATURE UNDER TEST: the planner's boundaries (OTP RaptorArchitectureTest): raptor/ imports only
 * the planner api and the timetable interface; timetable/ and the api import no HTTP, DuckDB or
 * Arrow except the Arrow loader; nothing in the planner imports DuckDB; the OTP1 renderer (otp1/)
 * is called only from the routes, and the plan model (model.ts) knows no API.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";

const PLANNER = resolve(import.meta.dir, "..", "..", "server", "planner");

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : p.endsWith(".ts") ? [p] : [];
  });
}
function imports(file: string): string[] {
  const src = readFileSync(file, "utf8");
  return [...src.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s+["']([^"']+)["']/g), ...src.matchAll(/import\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1]!);
}
const resolved = (file: string, spec: string) => (spec.startsWith(".") ? relative(PLANNER, resolve(join(file, ".."), spec)) : spec);

describe("planner architecture", () => {
  test("raptor/ imports only api.ts, the timetable interface and itself", () => {
    for (const f of files(join(PLANNER, "raptor"))) {
      for (const spec of imports(f)) {
        const r = resolved(f, spec);
        expect({ file: relative(PLANNER, f), import: r, allowed: r === "api.ts" || r === "timetable/types.ts" || r.startsWith("raptor/") }).toEqual({ file: relative(PLANNER, f), import: r, allowed: true });
      }
    }
  });

  test("no HTTP, DuckDB or Arrow in the algorithm, the api or the timetable interface", () => {
    const pure = [...files(join(PLANNER, "raptor")), join(PLANNER, "api.ts"), join(PLANNER, "timetable", "types.ts"), join(PLANNER, "timetable", "reverse.ts"), join(PLANNER, "timetable", "calendar.ts")];
    for (const f of pure) {
      for (const spec of imports(f)) expect({ file: relative(PLANNER, f), spec, bad: /elysia|duckdb|apache-arrow|^node:(http|net)|undici/.test(spec) }).toEqual({ file: relative(PLANNER, f), spec, bad: false });
      expect(readFileSync(f, "utf8")).not.toMatch(/\bfetch\(/);
    }
  });

  test("only routes.ts and index.ts import elysia; nothing in the planner imports DuckDB", () => {
    for (const f of files(PLANNER)) {
      const rel = relative(PLANNER, f);
      for (const spec of imports(f)) {
        if (spec === "elysia") expect(["routes.ts", "index.ts"]).toContain(rel);
        expect(spec).not.toMatch(/duckdb/);
      }
    }
  });

  test("otp1/ (the OTP1 renderer) is imported only by routes.ts; the model and the service import no renderer", () => {
    for (const f of files(PLANNER)) {
      const rel = relative(PLANNER, f);
      if (rel.startsWith("otp1/")) continue;
      for (const spec of imports(f)) {
        const r = resolved(f, spec);
        if (r.startsWith("otp1/")) expect({ file: rel, import: r }).toEqual({ file: "routes.ts", import: r });
      }
    }
    for (const f of ["model.ts", "plan-service.ts", "itinerary.ts", "street-legs.ts"]) {
      const src = readFileSync(join(PLANNER, f), "utf8");
      expect({ file: f, otp1: imports(join(PLANNER, f)).some((s) => s.includes("otp1")), polyline: src.includes("@mapbox/polyline") }).toEqual({ file: f, otp1: false, polyline: false });
    }
  });
});
