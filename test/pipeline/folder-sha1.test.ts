/**
 * FEATURE UNDER TEST: the version SHA-1 of a feed folder (pipeline/source.ts folderSha1) covers
 * every file the import reads: the .txt files and the GTFS-Flex zones' locations.geojson, so a
 * changed zone makes a new version; other files do not count, and a folder without zones keeps
 * the SHA-1 it had (the .txt files' canonical serialisation).
 */
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { unzipSync } from "fflate";
import { folderSha1 } from "../../pipeline/source.ts";
import { gtfs, tempDir } from "../support/dataset.ts";

/** A shared feed unpacked into a fresh folder. */
async function unpacked(name: string): Promise<string> {
  const folder = join(tempDir(), name);
  mkdirSync(folder);
  for (const [n, b] of Object.entries(unzipSync(await Bun.file(gtfs(name)).bytes()))) writeFileSync(join(folder, n), b);
  return folder;
}

/** The .txt files' canonical serialisation, hashed: sorted names, `name NUL size NUL bytes` each. */
function txtOnly(dir: string): string {
  const h = createHash("sha1");
  for (const n of readdirSync(dir).filter((x) => x.endsWith(".txt")).sort()) {
    const b = readFileSync(join(dir, n));
    h.update(n).update("\0").update(String(b.length)).update("\0").update(b);
  }
  return h.digest("hex");
}

describe("folder SHA-1", () => {
  test("a folder without locations.geojson: the .txt files' hash; other files do not count", async () => {
    const dir = await unpacked("bart");
    expect(folderSha1(dir)).toBe(txtOnly(dir));
    writeFileSync(join(dir, "README.md"), "notes");
    expect(folderSha1(dir)).toBe(txtOnly(dir));
  });

  test("a GTFS-Flex folder: a changed locations.geojson is a new version, the same bytes the same one", async () => {
    const dir = await unpacked("ctran-flex");
    const before = folderSha1(dir);
    expect(before).not.toBe(txtOnly(dir));
    expect(folderSha1(dir)).toBe(before);
    const zones = JSON.parse(readFileSync(join(dir, "locations.geojson"), "utf8"));
    zones.features[0].properties.stop_name = `${zones.features[0].properties.stop_name ?? ""} (moved)`;
    writeFileSync(join(dir, "locations.geojson"), JSON.stringify(zones));
    expect(folderSha1(dir)).not.toBe(before);
  });
});
