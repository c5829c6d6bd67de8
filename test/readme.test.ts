/**
 * FEATURE UNDER TEST: the README stays short and true: its quick start is the two commands, it
 * stays under 400 lines, and its dependency table names every package of package.json; the
 * command-line reference (docs/cli.md) documents every flag of import, prune, import-rt, serve and analyze
 * with its environment variable.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { IMPORT_FLAGS } from "../pipeline/cli.ts";
import { PRUNE_FLAGS } from "../pipeline/prune.ts";
import { SERVE_FLAGS } from "../server/config.ts";
import { IMPORT_RT_FLAGS } from "../pipeline/realtime/cli.ts";
import { ANALYZE_FLAGS } from "../server/analysis/config.ts";

const ROOT = resolve(import.meta.dir, "..");
const README = readFileSync(resolve(ROOT, "README.md"), "utf8");
const CLI = readFileSync(resolve(ROOT, "docs", "cli.md"), "utf8");

describe("README", () => {
  test("quick start is the two commands", () => {
    expect(README).toContain("npm install && npm start");
    expect(README).toContain("npm test");
  });

  test("is at most 400 lines", () => {
    expect(README.split("\n").length).toBeLessThanOrEqual(400);
  });

  test("names every dependency of package.json in its dependency table", () => {
    const pkg = JSON.parse(readFileSync(resolve(ROOT, "package.json"), "utf8"));
    const names = [...Object.keys(pkg.dependencies), ...Object.keys(pkg.devDependencies)];
    const table = README.slice(README.indexOf("## Dependencies"));
    const rows = table.split("\n").filter((l) => l.startsWith("| `"));
    for (const name of names) expect(rows.some((r) => r.includes(`\`${name}\``))).toBe(true);
  });
});

describe("docs/cli.md", () => {
  test("documents every flag of import, prune, import-rt, serve and analyze with its environment variable", () => {
    for (const f of [...IMPORT_FLAGS, ...PRUNE_FLAGS, ...SERVE_FLAGS, ...IMPORT_RT_FLAGS, ...ANALYZE_FLAGS]) {
      expect(CLI).toContain(`\`--${f.name}`);
      if (f.env) expect(CLI).toContain(`\`${f.env}\``);
    }
  });
});
