/**
 * FEATURE UNDER TEST: scale-out across machines (README "Deployment: several machines"). One
 * import job publishes into folder A; folder B (another machine's copy) is kept in step by a sync
 * that copies the data files first and the manifest last (test/support/sync.ts does what the
 * documented `rsync` commands do, in the same order). `interchange serve` runs on A and on B as
 * child processes. While requests run against both, a new version of the feed is imported into A
 * and synced to B: every answer is a 200 with the old or the new version (each answer one version,
 * never a mix), B moves to the new version and never back. Then the wrong order (manifest first):
 * B answers no error and does not crash; its catalog refuses the manifest while a version it lists
 * is incomplete (keeps serving the previous generation, says why in /health) and takes it once the
 * files have arrived (it tries again every 2 s).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { utimesSync } from "node:fs";
import { join } from "node:path";
import { gtfs, tempDir } from "../support/dataset.ts";
import { syncDataset } from "../support/sync.ts";
import { BIN, CIVIC_CENTER, type ChildServer, serveChild, until } from "./support.ts";

const FEED = "f-9q9-bart";
const OAKLAND = { lat: 37.8044, lon: -122.2712 };

async function importInto(dir: string, feed: string, id: string): Promise<void> {
  const p = Bun.spawn([process.execPath, BIN, "import", "--quiet", "--data", dir, "--feed-id", id, gtfs(feed)], { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  if (code !== 0) throw new Error(`import ${feed} into ${dir} exited ${code}: ${out}${err}`);
}

interface Health {
  features: { catalog: { generation: number; active: number; error?: string }; planner: { timetable: string; loaded: boolean } };
}

/** The feed version sha1s of one stops answer (one per stop). */
async function stopVersions(url: string): Promise<{ status: number; sha1s: string[] }> {
  const r = await fetch(`${url}/api/v2/rest/stops?feed_onestop_id=${FEED}&limit=100`);
  if (r.status !== 200) return { status: r.status, sha1s: [] };
  const b = (await r.json()) as { stops: { feed_version: { sha1: string } }[] };
  return { status: 200, sha1s: [...new Set(b.stops.map((s) => s.feed_version.sha1))] };
}

interface Sample {
  server: string;
  at: number;
  family: "catalog" | "plan" | "health";
  status: number;
  /** catalog: the versions in the answer */
  sha1s?: string[];
  error?: string;
}

/** Requests in `loops` concurrent loops against each server until stop() is called. */
function load(servers: Record<string, string>, loops = 2) {
  const samples: Sample[] = [];
  let running = true;
  const plan = `/api/v2/routing/otp/plan?fromPlace=${CIVIC_CENTER.lat},${CIVIC_CENTER.lon}&toPlace=${OAKLAND.lat},${OAKLAND.lon}&date=2019-06-05&time=08:30:00&mode=TRANSIT,WALK`;
  const one = async (name: string, url: string, i: number) => {
    const at = Date.now();
    const family = (["catalog", "plan", "health"] as const)[i % 3]!;
    try {
      if (family === "catalog") {
        const { status, sha1s } = await stopVersions(url);
        samples.push({ server: name, at, family, status, sha1s });
      } else {
        const r = await fetch(url + (family === "plan" ? plan : "/health"));
        const text = await r.text();
        JSON.parse(text); // a whole JSON answer
        samples.push({ server: name, at, family, status: r.status });
      }
    } catch (e) {
      samples.push({ server: name, at, family, status: 0, error: String(e) });
    }
  };
  const done = Promise.all(
    Object.entries(servers).flatMap(([name, url]) =>
      Array.from({ length: loops }, async (_, l) => {
        for (let i = l; running; i++) await one(name, url, i);
      }),
    ),
  );
  return {
    samples,
    async stop() {
      running = false;
      await done;
      return samples;
    },
  };
}


describe("two machines on two synced copies of the dataset folder", () => {
  let A: string;
  let B: string;
  let onA: ChildServer;
  let onB: ChildServer;
  let oldSha: string;
  let newSha: string;

  beforeAll(async () => {
    A = tempDir("interchange-machine-a-");
    B = join(tempDir("interchange-machine-b-"), "data"); // created by the first sync
    await importInto(A, "bart", FEED);
    syncDataset(A, B);
    [onA, onB] = await Promise.all([serveChild(["--data", A, "--no-auth"]), serveChild(["--data", B, "--no-auth"])]);
    oldSha = (await stopVersions(onB.url)).sha1s[0]!;
  });
  afterAll(async () => {
    await Promise.all([onA?.stop(), onB?.stop()]);
  });

  test("the nightly job publishes a new version into A and syncs (data first, manifest last): B switches, every answer is 200 and one version", async () => {
    expect((await stopVersions(onA.url)).sha1s).toEqual([oldSha]);
    expect((await stopVersions(onB.url)).sha1s).toEqual([oldSha]);
    const run = load({ A: onA.url, B: onB.url });
    await Bun.sleep(500);
    await importInto(A, "bart-2023", FEED); // the job on machine A
    newSha = (await stopVersions(onA.url)).sha1s[0]!; // A may still be reloading: wait below
    await until("A serves the new version", async () => {
      const v = (await stopVersions(onA.url)).sha1s;
      return v.length === 1 && v[0] !== oldSha;
    });
    newSha = (await stopVersions(onA.url)).sha1s[0]!;
    const copied = syncDataset(A, B);
    expect(copied.at(-1)).toBe("manifest.json"); // the manifest is the last file written on B
    expect(copied.some((f) => f.startsWith(`versions/${newSha}/`))).toBe(true);
    const switchMs = await until("B serves the new version", async () => (await stopVersions(onB.url)).sha1s[0] === newSha);
    await Bun.sleep(1000);
    const samples = await run.stop();

    const bad = samples.filter((s) => s.status !== 200);
    expect(bad).toEqual([]);
    for (const s of samples.filter((x) => x.family === "catalog")) {
      expect(s.sha1s!.length).toBe(1); // never a mix of versions in one answer
      expect([oldSha, newSha]).toContain(s.sha1s![0]!);
    }
    // B: old, then new, never back (one process: answers in the order they were asked)
    const onBCatalog = samples.filter((s) => s.server === "B" && s.family === "catalog").sort((a, b) => a.at - b.at);
    const firstNew = onBCatalog.findIndex((s) => s.sha1s![0] === newSha);
    expect(firstNew).toBeGreaterThan(0);
    expect(onBCatalog.slice(firstNew).every((s) => s.sha1s![0] === newSha)).toBe(true);
    // B serves exactly what A serves: the same catalog generation and planner timetable
    const [hA, hB] = await Promise.all([onA.url, onB.url].map(async (u) => (await (await fetch(`${u}/health`)).json()) as Health));
    expect(hB.features.catalog.generation).toBe(hA.features.catalog.generation);
    expect(hB.features.planner.timetable).toBe(hA.features.planner.timetable);
    expect(hB.features.planner.loaded).toBe(true);
    console.log(`scale-out: ${samples.length} requests (${samples.filter((s) => s.server === "B").length} on B), 0 failed; B switched ${switchMs} ms after the sync`);
    expect(onA.exited()).toBeNull();
    expect(onB.exited()).toBeNull();
  });

  test("the wrong order (manifest first): B keeps serving what it had, with no error, and takes the new feed once its files arrive", async () => {
    await importInto(A, "caltrain", "f-9q9-caltrain"); // a second feed
    const health = async () => ((await (await fetch(`${onB.url}/health`)).json()) as Health).features;
    const before = await health();
    const run = load({ B: onB.url });
    syncDataset(A, B, { only: "manifest" }); // the manifest arrives before the files it names
    await Bun.sleep(2500); // B notices the manifest (watched; debounced 100 ms) and loads what it can
    const midway = await health();
    syncDataset(A, B, { only: "data" });
    // the catalog tries again every 2 s: it takes the new feed once the files are there (a load of
    // both feeds takes a while on a busy machine: waited for, up to 20 s, not slept on)
    await until("B's catalog takes the second feed after its files arrive", async () => (await health()).catalog.active === 2);
    const afterData = await health();
    // copying the manifest again (a new modification time) does not help: same generation
    const now = new Date();
    utimesSync(join(A, "manifest.json"), now, now);
    syncDataset(A, B, { only: "manifest" });
    await Bun.sleep(1500);
    const afterRecopy = await health();
    const samples = await run.stop();
    expect(samples.filter((s) => s.status !== 200)).toEqual([]); // harmless: no error answer
    for (const s of samples.filter((x) => x.family === "catalog")) expect(s.sha1s).toEqual([newSha]);
    expect(onB.exited()).toBeNull(); // no crash
    // the catalog refuses a manifest whose versions are not all there (it keeps serving the previous
    // generation, and says why in /health) and tries again every 2 s until the files have arrived
    console.log(`wrong order: catalog feeds active ${before.catalog.active} (gen ${before.catalog.generation}) -> ${midway.catalog.active} (gen ${midway.catalog.generation}, manifest first) -> ${afterData.catalog.active} (gen ${afterData.catalog.generation}, data after) -> ${afterRecopy.catalog.active} (manifest again); planner ${before.planner.timetable} -> ${afterData.planner.timetable}; ${samples.length} requests, 0 failed`);
    expect(midway.catalog.active).toBe(before.catalog.active);
    expect(midway.catalog.generation).toBe(before.catalog.generation);
    expect(String(midway.catalog.error)).toContain("incomplete");
    expect(afterData.catalog.active).toBe(2);
    expect(afterData.catalog.error ?? null).toBeNull();
    expect(afterRecopy.catalog.active).toBe(2);
  });
  test("a new replica whose first sync brings the manifest before the data answers 503, then serves once the files arrive (no restart)", async () => {
    const C = join(tempDir("interchange-machine-c-"), "data");
    syncDataset(A, C, { only: "manifest" });
    const onC = await serveChild(["--data", C, "--no-auth"]);
    try {
      const stops = () => fetch(`${onC.url}/api/v2/rest/stops?limit=1`);
      expect((await stops()).status).toBe(503); // no catalog yet: its first load refused the incomplete manifest
      syncDataset(A, C, { only: "data" });
      let status = 0;
      for (let i = 0; i < 100 && status !== 200; i++) {
        status = (await stops()).status;
        if (status !== 200) await Bun.sleep(100);
      }
      expect(status).toBe(200); // the catalog tried again (every 2 s) and loaded it
      expect(onC.exited()).toBeNull();
    } finally {
      await onC.stop();
    }
  });
});
