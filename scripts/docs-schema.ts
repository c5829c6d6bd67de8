/**
 * Regenerates the generated sections of docs/dataset-schema.md from the dataset contract
 * (`npm run docs:schema`): the catalog's Parquet tables (pipeline/schema/catalog.ts) and the
 * realtime Parquet tables (pipeline/schema/realtime.ts), each between its BEGIN/END markers.
 * test/docs.test.ts checks that the page holds exactly what this script would write.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { docSchemaMarkdown } from "../pipeline/schema/catalog.ts";
import { docRealtimeSchemaMarkdown } from "../pipeline/schema/realtime.ts";

export const SCHEMA_PAGE = resolve(import.meta.dir, "..", "docs", "dataset-schema.md");

/** The generated sections: marker name → the text between its markers. */
export function generatedSections(): Record<string, string> {
  return { catalog: docSchemaMarkdown(), realtime: docRealtimeSchemaMarkdown() };
}

export const beginMarker = (name: string) => `<!-- BEGIN GENERATED ${name}: npm run docs:schema -->`;
export const endMarker = (name: string) => `<!-- END GENERATED ${name} -->`;

/** The text between a section's markers in `page` (without the newline after the begin marker), or undefined. */
export function sectionOf(page: string, name: string): string | undefined {
  const b = page.indexOf(beginMarker(name));
  const e = page.indexOf(endMarker(name));
  if (b < 0 || e < 0 || e < b) return undefined;
  return page.slice(b + beginMarker(name).length + 1, e);
}

/** `page` with every generated section replaced by what the contract gives now. */
export function regenerate(page: string): string {
  let out = page;
  for (const [name, text] of Object.entries(generatedSections())) {
    const old = sectionOf(out, name);
    if (old === undefined) throw new Error(`docs/dataset-schema.md: markers of the ${name} section are missing`);
    const b = out.indexOf(beginMarker(name)) + beginMarker(name).length + 1;
    out = out.slice(0, b) + text + out.slice(b + old.length);
  }
  return out;
}

if (import.meta.main) {
  const page = readFileSync(SCHEMA_PAGE, "utf8");
  const next = regenerate(page);
  if (next === page) console.log("docs/dataset-schema.md is up to date");
  else {
    writeFileSync(SCHEMA_PAGE, next);
    console.log("docs/dataset-schema.md regenerated");
  }
}
