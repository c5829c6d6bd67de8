/**
 * FEATURE UNDER TEST: the retention policy (`interchange prune`, pipeline/store/prune.ts): each
 * feed keeps its N newest versions and its active one; an unlisted version's folder, and a
 * timetable no manifest points at, are removed only once no generation replaced within the grace
 * period points at them; debris and a crashed prune's trash are cleared; a server started on the
 * folder keeps answering through it all. Real feeds from ../shared/data/gtfs.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { importFeed } from "../../pipeline/import.ts";
import { runImport } from "../../pipeline/cli.ts";
import { activeVersions, readManifest } from "../../pipeline/schema/manifest.ts";
import { prune } from "../../pipeline/store/prune.ts";
import { refreshTimetable } from "../../pipeline/timetable/publish.ts";
import { serverConfigFrom } from "../../server/config.ts";
import { startServer } from "../../server/main.ts";
import { importStreets } from "../../pipeline/street/import-streets.ts";
import { gtfs, osm, tempDir } from "../support/dataset.ts";
import { withZipComment } from "./feed-server.ts";

const quiet = { info() {}, warn() {}, error() {} };
const ls = (dir: string) => (existsSync(dir) ? readdirSync(dir).sort() : []);

/** Three versions of the sample feed (the same files, other zip bytes), written into `dir`. */
async function sampleVersions(dir: string): Promise<string[]> {
  const zip = new Uint8Array(await Bun.file(gtfs("google-sample-feed")).bytes());
  return ["v1", "v2", "v3"].map((v) => {
    const p = join(dir, `sample-${v}.zip`);
    writeFileSync(p, withZipComment(zip, `nightly ${v}`));
    return p;
  });
}

describe("prune", () => {
  test("keeps each feed's N newest versions and its active one; removes the rest once no recent generation points at them", async () => {
    const dir = tempDir();
    const data = join(dir, "data");
    const [p1, p2, p3] = await sampleVersions(dir);
    const v1 = await importFeed({ dataDir: data, source: p1!, feedId: "f-sample" });
    await refreshTimetable(data);
    const t1 = readManifest(data).timetable!.path;
    const v2 = await importFeed({ dataDir: data, source: p2!, feedId: "f-sample" });
    const ct = await importFeed({ dataDir: data, source: gtfs("caltrain-2017"), feedId: "f-ct" });
    await refreshTimetable(data);
    // the newest version, not activated: v2 stays the active one
    const v3 = await importFeed({ dataDir: data, source: p3!, feedId: "f-sample", activate: false });
    await refreshTimetable(data);
    const t2 = readManifest(data).timetable!.path;
    expect(new Set([v1, v2, v3, ct].map((r) => r.status))).toEqual(new Set(["imported"]));
    expect(activeVersions(readManifest(data)).map((v) => v.sha1)).toEqual([v2.sha1!, ct.sha1!]);
    expect(ls(join(data, "versions"))).toEqual([v1.sha1!, v2.sha1!, v3.sha1!, ct.sha1!].sort());

    // keep 1 (default grace): v1 is unlisted at once, its folder waits (the generation that listed it was replaced just now)
    const dry = await prune({ dataDir: data, keep: 1, dryRun: true });
    expect(dry.unlisted.versions.map((v) => v.sha1)).toEqual([v1.sha1!]);
    expect(readManifest(data).versions).toHaveLength(4); // a dry run changes nothing
    const first = await prune({ dataDir: data, keep: 1 });
    expect(first.unlisted).toEqual({ versions: [{ sha1: v1.sha1!, feed_onestop_id: "f-sample" }], streets: [] });
    expect(first.removed).toEqual({ versions: [], timetables: [], streets: [] });
    expect(first.waiting.map((w) => w.path)).toEqual([`versions/${v1.sha1}`, t1].sort());
    let m = readManifest(data);
    expect(m.versions.map((v) => v.sha1).sort()).toEqual([v2.sha1!, v3.sha1!, ct.sha1!].sort());
    expect(m.timetable!.path).toBe(t2);
    expect(ls(join(data, "versions"))).toEqual([v1.sha1!, v2.sha1!, v3.sha1!, ct.sha1!].sort());

    // once the grace period is over (here: 0), the unlisted folder and the old timetable go; the active v2 never does
    const second = await prune({ dataDir: data, keep: 1, graceMs: 0 });
    expect(second.unlisted.versions).toEqual([]);
    expect(second.removed).toEqual({ versions: [`versions/${v1.sha1}`], timetables: [t1], streets: [] });
    expect(second.waiting).toEqual([]);
    expect(ls(join(data, "versions"))).toEqual([v2.sha1!, v3.sha1!, ct.sha1!].sort());
    expect(ls(join(data, "timetables"))).toEqual([t2.split("/").pop()!]);
    expect(ls(join(data, ".trash"))).toEqual([]);
    m = readManifest(data);
    expect(activeVersions(m).map((v) => v.sha1)).toEqual([v2.sha1!, ct.sha1!]);
    for (const v of m.versions) expect(existsSync(join(data, v.path, "stops.parquet"))).toBe(true);

    // keep 1 again: nothing more (v3 is the newest, v2 active, f-ct has one version)
    const third = await prune({ dataDir: data, keep: 1, graceMs: 0 });
    expect(third.unlisted.versions).toEqual([]);
    expect(third.removed).toEqual({ versions: [], timetables: [], streets: [] });
  });

  test("removes debris no manifest listed once older than the grace period, and what a crashed prune left in the trash", async () => {
    const data = await (async () => {
      const d = join(tempDir(), "data");
      await importFeed({ dataDir: d, source: gtfs("google-sample-feed"), feedId: "f-sample" });
      await refreshTimetable(d);
      return d;
    })();
    const active = readManifest(data).versions[0]!.sha1;
    // a version folder renamed into place by an import killed before its manifest switch, an hour ago
    const old = join(data, "versions", "0".repeat(40));
    mkdirSync(old);
    writeFileSync(join(old, "stops.parquet"), "debris");
    utimesSync(old, new Date(Date.now() - 3600_000), new Date(Date.now() - 3600_000));
    // one being published right now (as far as prune can tell)
    const fresh = join(data, "versions", "f".repeat(40));
    mkdirSync(fresh);
    // half-deleted by a prune killed in the middle of its rm
    mkdirSync(join(data, ".trash", "versions-abc-1-2"), { recursive: true });
    writeFileSync(join(data, ".trash", "versions-abc-1-2", "trips.parquet"), "x");

    const r = await prune({ dataDir: data, graceMs: 60_000 });
    expect(r.keep).toBeNull();
    expect(r.unlisted.versions).toEqual([]);
    expect(r.removed.versions).toEqual([`versions/${"0".repeat(40)}`]);
    expect(r.waiting).toEqual([{ path: `versions/${"f".repeat(40)}`, reason: "recent (listed by no manifest)", until: expect.any(String) }]);
    expect(ls(join(data, "versions"))).toEqual([active, "f".repeat(40)].sort());
    expect(ls(join(data, ".trash"))).toEqual([]);
  });

  test("import reports: a listed version's stay, an unlisted one's go once older than 30 days", async () => {
    const data = join(tempDir(), "data");
    await importFeed({ dataDir: data, source: gtfs("google-sample-feed"), feedId: "f-sample" });
    const active = readManifest(data).versions[0]!.sha1;
    const reports = join(data, "reports");
    const old = new Date(Date.now() - 31 * 24 * 3600_000);
    // the active version's own report, aged: it stays with its version
    utimesSync(join(reports, `${active}-imported.json`), old, old);
    // a feed refused 31 days ago, and one refused yesterday
    writeFileSync(join(reports, `${"a".repeat(40)}-rejected.json`), "{}");
    utimesSync(join(reports, `${"a".repeat(40)}-rejected.json`), old, old);
    writeFileSync(join(reports, `${"b".repeat(40)}-rejected.json`), "{}");
    writeFileSync(join(reports, "notes.txt"), "not a report");
    utimesSync(join(reports, "notes.txt"), old, old);
    const dry = await prune({ dataDir: data, dryRun: true });
    expect(dry.reports_removed).toEqual([`reports/${"a".repeat(40)}-rejected.json`]);
    expect(ls(reports)).toHaveLength(4);
    const r = await prune({ dataDir: data });
    expect(r.reports_removed).toEqual([`reports/${"a".repeat(40)}-rejected.json`]);
    expect(ls(reports)).toEqual([`${active}-imported.json`, `${"b".repeat(40)}-rejected.json`, "notes.txt"].sort());
  });

  test("street datasets: the active one and those built after it stay; older inactive ones go", async () => {
    const data = join(tempDir(), "data");
    const beatty = await importStreets({ dataDir: data, osm: [osm("beatty")] });
    // built without switching: newer than the active one, kept for the switch to come
    const monaco = await importStreets({ dataDir: data, osm: [osm("monaco")], activate: false });
    expect([beatty.status, monaco.status]).toEqual(["imported", "imported"]);
    const kept = await prune({ dataDir: data, graceMs: 0 });
    expect(kept.unlisted.streets).toEqual([]);
    expect(ls(join(data, "streets"))).toEqual([beatty.sha1!, monaco.sha1!].sort());
    // switched on (the same inputs: no build); beatty is now older than the active dataset
    expect((await importStreets({ dataDir: data, osm: [osm("monaco")] })).status).toBe("unchanged");
    const r = await prune({ dataDir: data, graceMs: 0 });
    expect(r.unlisted.streets).toEqual([beatty.sha1!]);
    expect(r.removed.streets).toEqual([`streets/${beatty.sha1}`]);
    const m = readManifest(data);
    expect(m.streets!.map((s) => s.sha1)).toEqual([monaco.sha1!]);
    expect(m.active_streets).toBe(monaco.sha1!);
    expect(ls(join(data, "streets"))).toEqual([monaco.sha1!]);
  });

  test("a server on the folder keeps answering while the versions it served are unlisted and removed", async () => {
    const dir = tempDir();
    const data = join(dir, "data");
    const old = await importFeed({ dataDir: data, source: gtfs("caltrain-2017"), feedId: "f-live" });
    await refreshTimetable(data);
    const server = await startServer(serverConfigFrom({ data, port: 0, host: "127.0.0.1", noAuth: true }), { log: quiet });
    try {
      const generation = async () => ((await (await fetch(`${server.url}/health`)).json()) as { features: { catalog: { generation: number } } }).features.catalog.generation;
      /** the server has loaded the manifest on disk (it watches it) */
      const caughtUp = async () => {
        const want = readManifest(data).generation;
        for (let i = 0; i < 200 && (await generation()) !== want; i++) await Bun.sleep(50);
        expect(await generation()).toBe(want);
      };
      const stops = async () => {
        const res = await fetch(`${server.url}/api/v2/rest/stops?feed_onestop_id=f-live&limit=1000`);
        expect(res.status).toBe(200);
        const body = (await res.json()) as { stops: Array<{ feed_version: { sha1: string } }> };
        return { n: body.stops.length, sha1s: [...new Set(body.stops.map((s) => s.feed_version.sha1))] };
      };
      expect((await stops()).sha1s).toEqual([old.sha1!]);

      // tonight's run: a new version of the feed, then prune with keep 1, as the nightly job does
      const feedsFile = join(dir, "feeds.json");
      writeFileSync(feedsFile, JSON.stringify({ keep: 1, feeds: [{ id: "f-live", path: gtfs("caltrain") }] }));
      expect(await runImport(["--data", data, "--feeds", feedsFile, "--quiet"])).toBe(0);
      const fresh = activeVersions(readManifest(data))[0]!;
      expect(fresh.sha1).not.toBe(old.sha1);
      // unlisted at once, but its folder stays: the server may have loaded a generation listing it a moment ago
      expect(readManifest(data).versions.map((v) => v.sha1)).toEqual([fresh.sha1]);
      expect(existsSync(join(data, "versions", old.sha1!, "stops.parquet"))).toBe(true);
      expect((await stops()).n).toBeGreaterThan(0);
      await caughtUp();
      expect((await stops()).sha1s).toEqual([fresh.sha1]);

      // a later prune past the grace period removes it; the server, on the new generation, does not notice
      const later = await prune({ dataDir: data, keep: 1, graceMs: 0 });
      expect(later.removed.versions).toEqual([`versions/${old.sha1}`]);
      expect(ls(join(data, "versions"))).toEqual([fresh.sha1]);
      expect(existsSync(join(data, readManifest(data).timetable!.path))).toBe(true);
      expect((await stops()).sha1s).toEqual([fresh.sha1]);
      const trips = (await (await fetch(`${server.url}/api/v2/rest/routes/f-live:L5/trips?service_date=2023-11-07&limit=1`)).json()) as { trips: { id: number }[] };
      const trip = await fetch(`${server.url}/api/v2/rest/routes/f-live:L5/trips/${trips.trips[0]!.id}`);
      expect(trip.status).toBe(200);
      expect(((await trip.json()) as { trips: { stop_times: unknown[] }[] }).trips[0]!.stop_times.length).toBeGreaterThan(1);
      const plan = await fetch(`${server.url}/api/v2/routing/otp/plan?fromPlace=37.7765,-122.3942&toPlace=37.4434,-122.1649&date=2023-11-07&time=08:00`);
      expect(plan.status).toBe(200);
    } finally {
      await server.stop();
    }
  });
});
