/**
 * FEATURE UNDER TEST: `prepareTimetable` (pipeline/import.ts; the CLI sets it on the last feed of a
 * batch): the planner timetable is built from the import's in-memory tables while its Parquet files
 * are written, and moved into <data>/timetables/ after the manifest switch. It must be the very
 * file the compile from the Parquet files gives (same bytes), whatever the position of the new
 * version among the active ones, and must never appear for a version that is not published and active.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { importFeed } from "../../pipeline/import.ts";
import { refreshTimetable } from "../../pipeline/timetable/publish.ts";
import { pruneTimetableFiles } from "../../pipeline/store/prune.ts";
import { GENERATIONS_DIR } from "../../pipeline/store/generations.ts";
import { timetableRelPath } from "../../pipeline/timetable/file.ts";
import { activeVersions, readManifest } from "../../pipeline/schema/manifest.ts";
import { gtfs, importKilledAt, tempDir } from "../support/dataset.ts";
import { compileFresh, fileSha1 } from "../support/timetable.ts";

/** Every generation record's replacement moved `ms` into the past (what a day between rebuilds does). */
function ageGenerations(dir: string, ms: number): void {
  const gdir = join(dir, GENERATIONS_DIR);
  for (const f of readdirSync(gdir)) {
    const r = JSON.parse(readFileSync(join(gdir, f), "utf8"));
    r.replaced_at = new Date(Date.parse(r.replaced_at) - ms).toISOString();
    writeFileSync(join(gdir, f), JSON.stringify(r));
  }
}
const timetables = (dir: string) => (existsSync(join(dir, "timetables")) ? readdirSync(join(dir, "timetables")).sort() : []);

async function imported(dir: string, source: string, opts: { feedId?: string; prepare?: boolean; activate?: boolean } = {}) {
  const log: string[] = [];
  const r = await importFeed({ dataDir: dir, source, feedId: opts.feedId, activate: opts.activate, prepareTimetable: opts.prepare, progress: (m) => log.push(m) });
  expect(r.status).toBe("imported");
  return log;
}

describe("timetable prepared during the import", () => {
  test("equals the compile from Parquet: new feed last, then a new version of the first feed (frequencies, transfers)", async () => {
    const dir = join(tempDir(), "data");
    await imported(dir, gtfs("bart"), { feedId: "f-9q9-bart" });
    await imported(dir, gtfs("caltrain"), { feedId: "f-9q9-caltrain" });
    const log = await imported(dir, gtfs("google-sample-feed"), { feedId: "f-sample", prepare: true });
    expect(log.some((l) => l.includes("timetable prepared"))).toBe(true);
    const rel = timetableRelPath(activeVersions(readManifest(dir)).map((v) => v.sha1));
    // in place before the hook runs; the hook only points the manifest at it
    expect(timetables(dir)).toEqual([rel.split("/")[1]!]);
    const hookLog: string[] = [];
    expect(await refreshTimetable(dir, (m) => hookLog.push(m))).toBe("compiled");
    expect(hookLog.some((l) => l.includes("stop_times from"))).toBe(false); // nothing was read again
    expect(readManifest(dir).timetable?.path).toBe(rel);
    expect(fileSha1(join(dir, rel))).toBe(fileSha1(await compileFresh(dir)));

    // a new version of the first feed: the in-memory tables are the first of three active versions
    await imported(dir, gtfs("bart-2023"), { feedId: "f-9q9-bart", prepare: true });
    const active = activeVersions(readManifest(dir));
    expect(active.map((v) => v.feed_onestop_id)).toEqual(["f-9q9-bart", "f-9q9-caltrain", "f-sample"]);
    const rel2 = timetableRelPath(active.map((v) => v.sha1));
    expect(existsSync(join(dir, rel2))).toBe(true);
    expect(await refreshTimetable(dir)).toBe("compiled");
    expect(fileSha1(join(dir, rel2))).toBe(fileSha1(await compileFresh(dir)));
  });

  test("feeds with interpolated times, generated shapes and calendar_dates-only services give the same bytes too", async () => {
    const dir = join(tempDir(), "data");
    const feeds = [gtfs("vvs-bus-752"), gtfs("wmata-rail"), resolve(import.meta.dir, "..", "fixtures", "gtfs", "interpolation")];
    for (const f of feeds) await imported(dir, f, { prepare: f === feeds[feeds.length - 1] });
    const last = readManifest(dir).versions.at(-1)!;
    expect(last.counts.stop_times).toBeGreaterThan(0);
    expect(timetables(dir).length).toBe(1);
    await refreshTimetable(dir);
    expect(fileSha1(join(dir, readManifest(dir).timetable!.path))).toBe(fileSha1(await compileFresh(dir)));
  });

  test("kill -9 once the timetable is prepared: never a timetable file for versions that are not active", async () => {
    const dir = join(tempDir(), "data");
    await imported(dir, gtfs("caltrain"), { feedId: "f-caltrain", prepare: true });
    await refreshTimetable(dir);
    const before = readManifest(dir);
    // bydgoszcz: 0.58 M stop_times, so the Parquet files are still being written when the timetable is ready
    const seen = await importKilledAt(["--data", dir, "--feed-id", "f-bydgoszcz", gtfs("bydgoszcz")], "timetable prepared");
    expect(seen).toContain("timetable prepared");
    const after = readManifest(dir);
    const activeRel = timetableRelPath(activeVersions(after).map((v) => v.sha1));
    // killed before the manifest switch (the usual case) or just after it: either way every file in
    // timetables/ is the timetable of a set of versions that was active at some point
    expect(timetables(dir).every((f) => `timetables/${f}` === before.timetable!.path || `timetables/${f}` === activeRel)).toBe(true);
    if (after.generation === before.generation) expect(timetables(dir)).toEqual([before.timetable!.path.split("/")[1]!]);
    // the next import takes the stale lock over, cleans the staging debris and ends with a timetable
    // of exactly the active versions
    const again = await importFeed({ dataDir: dir, source: gtfs("bydgoszcz"), feedId: "f-bydgoszcz", prepareTimetable: true });
    expect(again.status).toBe(after.generation === before.generation ? "imported" : "unchanged");
    await refreshTimetable(dir);
    const m = readManifest(dir);
    expect(existsSync(join(dir, "staging"))).toBe(false);
    expect(m.timetable!.path).toBe(timetableRelPath(activeVersions(m).map((v) => v.sha1)));
    expect(activeVersions(m).map((v) => v.feed_onestop_id)).toEqual(["f-caltrain", "f-bydgoszcz"]);
    expect(fileSha1(join(dir, m.timetable!.path))).toBe(fileSha1(await compileFresh(dir)));
  });

  test("a rebuild removes older timetables once no generation replaced within the grace period points at them, and temp debris at once", async () => {
    const dir = join(tempDir(), "data");
    const rels: string[] = [];
    const logs: string[][] = [];
    for (const [source, feedId] of [[gtfs("bart"), "f-9q9-bart"], [gtfs("caltrain"), "f-9q9-caltrain"], [gtfs("bart-2023"), "f-9q9-bart"]] as const) {
      await imported(dir, source, { feedId, prepare: true });
      if (rels.length === 2) writeFileSync(join(dir, "timetables", "0123456789abcdef.arrow.999.tmp"), "debris of an interrupted compile");
      const log: string[] = [];
      expect(await refreshTimetable(dir, (m) => log.push(m))).toBe("compiled");
      rels.push(readManifest(dir).timetable!.path);
      logs.push(log);
    }
    expect(new Set(rels).size).toBe(3);
    // three rebuilds in a row: every older timetable is pointed at by a generation replaced moments
    // ago (a server may still be loading it), so only the debris goes
    expect(logs[2]!.some((l) => l.includes("removed 1 older file(s)"))).toBe(true);
    expect(timetables(dir)).toEqual(rels.map((r) => r.split("/")[1]!).sort());
    // the nightly rhythm: the generations were replaced a day ago when the next compile runs
    ageGenerations(dir, 24 * 3600_000);
    await imported(dir, gtfs("caltrain-2017"), { feedId: "f-9q9-caltrain", prepare: true });
    expect(await refreshTimetable(dir)).toBe("compiled");
    const current = readManifest(dir).timetable!.path;
    // the one just replaced stays (its generation was replaced now); the older ones are gone
    expect(timetables(dir)).toEqual([current, rels[2]!].map((r) => r.split("/")[1]!).sort());
    expect(await refreshTimetable(dir)).toBe("unchanged");
    // and the retention policy's own step says the same with its grace period over
    expect(pruneTimetableFiles(dir, 0)).toEqual([rels[2]!]);
    expect(timetables(dir)).toEqual([current.split("/")[1]!]);
  });

  test("not with --no-activate, and not for a rejected feed", async () => {
    const dir = join(tempDir(), "data");
    await imported(dir, gtfs("bart"), { feedId: "f-9q9-bart", prepare: true });
    expect(timetables(dir).length).toBe(1);
    const before = timetables(dir);
    await imported(dir, gtfs("bart-2023"), { feedId: "f-9q9-bart", prepare: true, activate: false });
    expect(timetables(dir)).toEqual(before);

    // a rejected feed (a zip that is not one)
    const broken = join(tempDir(), "broken.zip");
    writeFileSync(broken, readFileSync(gtfs("caltrain")).subarray(0, 5000));
    const r = await importFeed({ dataDir: dir, source: broken, prepareTimetable: true });
    expect(r.status).toBe("rejected");
    expect(timetables(dir)).toEqual(before);
    expect(existsSync(join(dir, "staging"))).toBe(false);
  });
});
