/**
 * FEATURE UNDER TEST: the documents stay true and navigable: docs/dataset-schema.md holds exactly
 * the tables the dataset contract generates (`npm run docs:schema`), every relative link of
 * README.md, BENCHMARKS.md and docs/*.md reaches an existing file (and heading), and no document or
 * source file names an absolute path of one machine.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { generatedSections, regenerate, SCHEMA_PAGE, sectionOf } from "../scripts/docs-schema.ts";

const ROOT = resolve(import.meta.dir, "..");
const DOCS = [join(ROOT, "README.md"), join(ROOT, "BENCHMARKS.md"), ...readdirSync(join(ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => join(ROOT, "docs", f))];

/** GitHub's heading anchor: lower case, punctuation but `-` and `_` dropped, spaces to `-`, repeats numbered. */
export function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (line.trimStart().startsWith("```")) fenced = !fenced;
    const m = !fenced && /^#{1,6} (.*)$/.exec(line);
    if (!m) continue;
    const base = m[1]!.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, "").replace(/ /g, "-");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** The relative links `[text](target)` of a markdown text, outside code blocks and inline code. */
export function linksOf(markdown: string): string[] {
  const out: string[] = [];
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (line.trimStart().startsWith("```")) {
      fenced = !fenced;
      continue;
    }
    if (fenced) continue;
    const text = line.replace(/`[^`]*`/g, "``");
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) if (!/^[a-z]+:/i.test(m[1]!)) out.push(m[1]!);
  }
  return out;
}

describe("docs/dataset-schema.md", () => {
  test("each generated section is exactly what pipeline/schema generates", () => {
    const page = readFileSync(SCHEMA_PAGE, "utf8");
    for (const [name, text] of Object.entries(generatedSections())) expect(sectionOf(page, name)).toBe(text);
    expect(regenerate(page)).toBe(page);
  });

  test("a changed table fails the check (the comparison is exact)", () => {
    const page = readFileSync(SCHEMA_PAGE, "utf8");
    const edited = page.replace("| feed_version_id | INTEGER |", "| feed_version_id | BIGINT |");
    expect(edited).not.toBe(page);
    expect(sectionOf(edited, "catalog")).not.toBe(generatedSections().catalog);
  });
});

describe("links", () => {
  test("the anchor and link readers follow GitHub's rules", () => {
    expect([...anchorsOf("# A: b (c)\n## `GET /x/y`\n## A: b (c)\n```\n# not a heading\n```")]).toEqual(["a-b-c", "get-xy", "a-b-c-1"]);
    expect(linksOf("[a](x.md#y) `[b](no.md)` [c](https://e.org)\n```\n[d](no.md)\n```")).toEqual(["x.md#y"]);
  });

  test("every relative link of the documents reaches an existing file and heading", () => {
    const broken: string[] = [];
    for (const file of DOCS) {
      for (const link of linksOf(readFileSync(file, "utf8"))) {
        const [path, anchor] = link.split("#") as [string, string | undefined];
        const target = path === "" ? file : resolve(dirname(file), decodeURIComponent(path));
        if (!existsSync(target)) broken.push(`${relative(ROOT, file)}: ${link} (no such file)`);
        else if (anchor && !(statSync(target).isFile() && target.endsWith(".md") && anchorsOf(readFileSync(target, "utf8")).has(anchor)))
          broken.push(`${relative(ROOT, file)}: ${link} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });
});

describe("no absolute machine paths", () => {
  test("no document or source file names a path under a home, root or work folder", () => {
    const bad = new RegExp(["work", "root", "home"].map((w) => `\\/${w}\\/`).join("|"));
    const found: string[] = [];
    const check = (p: string) => readFileSync(p, "utf8").split("\n").forEach((l, i) => bad.test(l) && found.push(`${relative(ROOT, p)}:${i + 1}`));
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        if (name === "node_modules" || name.startsWith(".")) continue;
        const p = join(dir, name);
        if (statSync(p).isDirectory()) walk(p);
        else if (/\.(ts|md|json|sh|cjs|js|conf)$/.test(name)) check(p);
      }
    };
    for (const top of ["bin", "config", "pipeline", "server", "test", "bench", "scripts", "deploy", "docs"]) if (existsSync(join(ROOT, top))) walk(join(ROOT, top));
    for (const f of ["README.md", "BENCHMARKS.md", "package.json"]) check(join(ROOT, f));
    expect(found).toEqual([]);
  });
});
