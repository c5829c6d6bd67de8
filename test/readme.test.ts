/**
 * FEATURE UNDER TEST: the README stays true: it documents every command-line flag with its
 * environment variable, and its Parquet schema section is exactly what pipeline/schema says.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { IMPORT_FLAGS } from "../pipeline/cli.ts";
import { SERVE_FLAGS } from "../server/config.ts";
import { docSchemaMarkdown } from "../pipeline/schema/catalog.ts";
import { IMPORT_RT_FLAGS } from "../pipeline/realtime/cli.ts";
import { docRealtimeSchemaMarkdown } from "../pipeline/schema/realtime.ts";

const README = readFileSync(resolve(import.meta.dir, "..", "README.md"), "utf8");

describe("README", () => {
  test("documents every flag of import, import-rt and serve with its environment variable", () => {
    for (const f of [...IMPORT_FLAGS, ...SERVE_FLAGS, ...IMPORT_RT_FLAGS]) {
      expect(README).toContain(`\`--${f.name}`);
      if (f.env) expect(README).toContain(`\`${f.env}\``);
    }
  });

  test("contains the Parquet schema generated from pipeline/schema/catalog.ts", () => {
    expect(README).toContain(docSchemaMarkdown());
  });

  test("contains the realtime Parquet schema generated from pipeline/schema/realtime.ts", () => {
    expect(README).toContain(docRealtimeSchemaMarkdown());
  });

  test("quick start is the two commands", () => {
    expect(README).toContain("npm install && npm start");
    expect(README).toContain("npm test");
  });
});
