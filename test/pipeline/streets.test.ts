/**
 * FEATURE UNDER TEST: street datasets: OSM extracts (+ elevation) built into Valhalla routing tiles
 * by the real engine's tools, keyed by the SHA-1 of the inputs, published by the atomic manifest
 * switch; re-import is a no-op; bad input and a kill -9 during the tile build change nothing.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runImport } from "../../pipeline/cli.ts";
import { importStreets } from "../../pipeline/street/import-streets.ts";
import { activeStreets, readManifest } from "../../pipeline/schema/manifest.ts";
import { elevationFile, importKilledAt, osm, tempDir } from "../support/dataset.ts";

describe("street datasets", () => {
  test("an extract becomes the active street dataset; the same bytes again change nothing", async () => {
    const data = tempDir();
    const a = await importStreets({ dataDir: data, osm: [osm("sf-downtown")] });
    expect(a).toMatchObject({ status: "imported", activated: true });
    expect(a.sha1).toMatch(/^[0-9a-f]{40}$/);
    const m = readManifest(data);
    const entry = activeStreets(m)!;
    expect(entry.sha1).toBe(a.sha1!);
    expect(entry.osm).toEqual([{ source: osm("sf-downtown"), sha1: new Bun.CryptoHasher("sha1").update(readFileSync(osm("sf-downtown"))).digest("hex"), bytes: 465130 }]);
    expect(entry.tiles["2"]).toBeGreaterThan(0);
    // the tiles' level-2 grid covers the extract's node bbox (-122.41954,37.77536 .. -122.39577,37.79178)
    const [w, s, e, n] = entry.bbox!;
    expect(w <= -122.41954 && s <= 37.77536 && e >= -122.39577 && n >= 37.79178).toBe(true);
    expect(existsSync(join(data, entry.path, "valhalla.json"))).toBe(true);
    expect(existsSync(join(data, "staging"))).toBe(false);

    const b = await importStreets({ dataDir: data, osm: [osm("sf-downtown")] });
    expect(b).toMatchObject({ status: "unchanged", sha1: a.sha1, activated: true });
    expect(readManifest(data)).toEqual(m);
  });

  test("the key is the inputs: elevation changes it, the order of extracts does not; old datasets stay until replaced", async () => {
    const data = tempDir();
    const ab = await importStreets({ dataDir: data, osm: [osm("monaco"), osm("beatty")] });
    const withDem = await importStreets({ dataDir: data, osm: [osm("monaco"), osm("beatty")], elevation: [elevationFile("N43E007.hgt.gz")] });
    const ba = await importStreets({ dataDir: data, osm: [osm("beatty"), osm("monaco")], activate: false });
    expect(ab.status).toBe("imported");
    expect(withDem.status).toBe("imported");
    expect(withDem.sha1).not.toBe(ab.sha1);
    expect(withDem.elevation_tiles).toEqual(["N43E007"]);
    // same inputs in another order: the dataset already built, left inactive as asked
    expect(ba).toMatchObject({ status: "unchanged", sha1: ab.sha1, activated: false });
    const m = readManifest(data);
    expect(m.active_streets).toBe(withDem.sha1!);
    expect((m.streets ?? []).map((s) => s.sha1)).toEqual([ab.sha1!, withDem.sha1!]);
    expect(readdirSync(join(data, "streets")).sort()).toEqual([ab.sha1!, withDem.sha1!].sort());
    // two extracts merged into one tile set: Monaco and Beatty, NV each have their level-2 tiles
    const entry = activeStreets(m)!;
    expect(entry.bbox![0]).toBeLessThan(-116);
    expect(entry.bbox![2]).toBeGreaterThan(7.4);
  });

  test("bad input is rejected and changes nothing", async () => {
    const data = tempDir();
    const good = await importStreets({ dataDir: data, osm: [osm("monaco")] });
    const before = readManifest(data);
    const notPbf = join(tempDir(), "not.osm.pbf");
    writeFileSync(notPbf, "this is not an OSM extract\n".repeat(100));
    const truncated = join(tempDir(), "truncated.osm.pbf");
    writeFileSync(truncated, readFileSync(osm("monaco")).subarray(0, 20_000));
    const badDem = join(tempDir(), "N43E007.hgt");
    writeFileSync(badDem, Buffer.alloc(1000));
    const cases: [{ osm: string[]; elevation?: string[] }, RegExp][] = [
      [{ osm: [notPbf] }, /not an OSM PBF extract/],
      [{ osm: [join(tempDir(), "missing.osm.pbf")] }, /no such file/],
      [{ osm: [truncated] }, /valhalla_build|no routable streets/],
      [{ osm: [osm("monaco")], elevation: [badDem] }, /N43E007\.hgt/],
    ];
    for (const [inputs, why] of cases) {
      const r = await importStreets({ dataDir: data, ...inputs });
      expect(r.status).toBe("rejected");
      expect(r.error!.message).toMatch(why);
      expect(readManifest(data)).toEqual(before);
      expect(existsSync(join(data, "staging"))).toBe(false);
    }
    expect(readdirSync(join(data, "streets"))).toEqual([good.sha1!]);
  });

  test("kill -9 during the tile build leaves the previous street dataset active, and the next import works", async () => {
    const data = tempDir();
    const first = await importStreets({ dataDir: data, osm: [osm("monaco")] });
    const before = readManifest(data);
    const seen = await importKilledAt(["--data", data, "--osm", osm("rnv-mannheim-heidelberg")], "valhalla_build_tiles:");
    expect(seen).toContain("building routing tiles");
    expect(readManifest(data)).toEqual(before);
    expect(readdirSync(join(data, "streets"))).toEqual([first.sha1!]);
    // the builder died with the import (no orphan keeps writing into staging/)
    await Bun.sleep(200);
    const orphans = Bun.spawnSync(["pgrep", "-f", `valhalla_build_tiles.*${data}`]).stdout.toString().trim();
    expect(orphans).toBe("");
    const next = await importStreets({ dataDir: data, osm: [osm("beatty")] });
    expect(next.status).toBe("imported");
    expect(existsSync(join(data, "staging"))).toBe(false);
    expect(readManifest(data).active_streets).toBe(next.sha1!);
  });

  test("the CLI takes --osm and --elevation lists, and OSM entries of a feeds file", async () => {
    const data = tempDir();
    expect(await runImport(["--data", data, "--quiet", "--osm", osm("monaco"), "--elevation", elevationFile("N43E007.hgt.gz")])).toBe(0);
    const viaFlags = readManifest(data).active_streets;
    const feedsFile = join(tempDir(), "feeds.json");
    writeFileSync(feedsFile, JSON.stringify([{ osm: osm("monaco") }, { elevation: elevationFile("N43E007.hgt.gz") }]));
    const other = tempDir();
    expect(await runImport(["--data", other, "--quiet", "--feeds", feedsFile])).toBe(0);
    expect(readManifest(other).active_streets).toBe(viaFlags!);
    await expect(runImport(["--data", other, "--elevation", elevationFile("N43E007.hgt.gz")])).rejects.toThrow(/--osm/);
  });
});
