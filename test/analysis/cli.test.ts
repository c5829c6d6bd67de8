/**
 * FEATURE UNDER TEST: `interchange analyze travel-times|accessibility` as an analyst runs it, on the
 * real BART and Caltrain timetables: points from CSV, Parquet and GeoJSON; the Parquet outputs read
 * back with DuckDB (the union of --shard 1/2 and 2/2 equals the single run, and --workers 2 splits a
 * shard into sub-shards that together equal it; the rows equal the
 * analysis core's; accessibility equals the sums an analyst computes from travel_times joined back
 * to the points); the run report; an origin that reaches nothing; a date outside service.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { importedDataset, tempDir } from "../support/dataset.ts";
import { runCli } from "../support/cli.ts";
import { sql } from "../support/duck.ts";
import { readManifest } from "../../pipeline/schema/manifest.ts";
import { loadTimetableFile } from "../../server/planner/timetable/arrow-loader.ts";
import { PlanService } from "../../server/planner/plan-service.ts";
import { isoToDay } from "../../server/planner/timetable/calendar.ts";
import { TravelTimeAnalysis } from "../../server/planner/analysis/travel-times.ts";
import { rng } from "../planner/support/real-dataset.ts";

let data = "";
let dir = "";
let svc: PlanService;
const origins: { id: string; lat: number; lon: number }[] = [];
const dests: { id: string; lat: number; lon: number; jobs: number; shops: number }[] = [];

beforeAll(async () => {
  data = await importedDataset("analysis-cli-bart-caltrain", ["bart", "caltrain-2017"]);
  svc = new PlanService(loadTimetableFile(join(data, readManifest(data).timetable!.path)));
  dir = tempDir("interchange-analyze-");
  const r = rng(5);
  const { stopLat, stopLon } = svc.tt.meta;
  const near = () => {
    const s = Math.floor(r() * stopLat.length);
    return { lat: Math.round((stopLat[s]! + (r() - 0.5) * 0.01) * 1e6) / 1e6, lon: Math.round((stopLon[s]! + (r() - 0.5) * 0.012) * 1e6) / 1e6 };
  };
  for (let i = 0; i < 25; i++) origins.push({ id: `o${i}`, ...near() });
  origins.push({ id: "nowhere", lat: 36.0, lon: -120.0 });
  for (let i = 0; i < 80; i++) dests.push({ id: `d${i}`, ...near(), jobs: Math.floor(r() * 1000), shops: Math.floor(r() * 20) });
  writeFileSync(join(dir, "origins.csv"), `id,lat,lon\n${origins.map((o) => `${o.id},${o.lat},${o.lon}`).join("\n")}\n`);
  writeFileSync(join(dir, "destinations.geojson"), JSON.stringify({
    type: "FeatureCollection",
    features: dests.map((d) => ({ type: "Feature", id: d.id, geometry: { type: "Point", coordinates: [d.lon, d.lat] }, properties: { jobs: d.jobs, shops: d.shops, name: `place ${d.id}` } })),
  }));
  await sql(`COPY (SELECT * FROM read_csv('${join(dir, "origins.csv")}', header = true)) TO '${join(dir, "origins.parquet")}' (FORMAT parquet)`);
});

const common = () => ["--data", data, "--date", "2019-03-12", "--window", "07:00-08:00", "--destinations", join(dir, "destinations.geojson"), "--quiet"];
// DuckDB reads the shard folders (shard=K-of-N) as a hive partition column `shard`
const rowsOf = (glob: string, order = "origin_id, destination_id") => sql<Record<string, unknown>>(`SELECT * EXCLUDE (shard) FROM read_parquet('${glob}') ORDER BY ${order}`);

describe("interchange analyze", () => {
  test("travel-times: the union of --shard 1/2 and 2/2 (read as one table) equals the single run, and both equal the analysis core", async () => {
    const single = await runCli(["analyze", "travel-times", ...common(), "--origins", join(dir, "origins.csv"), "--out", join(dir, "single")]);
    expect(single.err).toBe("");
    expect(single.code).toBe(0);
    for (const k of [1, 2]) {
      const r = await runCli(["analyze", "travel-times", ...common(), "--origins", join(dir, "origins.parquet"), "--out", join(dir, "sharded"), "--shard", `${k}/2`]);
      expect(r.code).toBe(0);
    }
    // shard 2/2 again with two worker processes: sub-shards 2 and 4 of 4, into another folder
    const w = await runCli(["analyze", "travel-times", ...common(), "--origins", join(dir, "origins.csv"), "--out", join(dir, "workers"), "--shard", "2/2", "--workers", "2"]);
    expect(w.code).toBe(0);
    expect(JSON.parse(w.out)).toMatchObject({ workers: 2, origins: 13 });
    expect(readdirSync(join(dir, "workers", "travel_times")).sort()).toEqual(["shard=2-of-4", "shard=4-of-4"]);
    const viaWorkers = await sql(`SELECT * EXCLUDE (shard) FROM read_parquet('${join(dir, "workers", "travel_times", "*", "*.parquet")}') ORDER BY origin_id, destination_id`);
    expect(viaWorkers).toEqual(await sql(`SELECT * EXCLUDE (shard) FROM read_parquet('${join(dir, "sharded", "travel_times", "shard=2-of-2", "*.parquet")}') ORDER BY origin_id, destination_id`));
    const a = await rowsOf(join(dir, "single", "travel_times", "*", "*.parquet"));
    const b = await rowsOf(join(dir, "sharded", "travel_times", "*", "*.parquet"));
    expect(a.length).toBeGreaterThan(300);
    expect(b).toEqual(a);
    // each shard holds its own origins (every other one), ordered by origin in the file
    const s2 = await sql<{ origin_id: string }>(`SELECT origin_id FROM read_parquet('${join(dir, "sharded", "travel_times", "shard=2-of-2", "*.parquet")}')`);
    const idx = s2.map((r) => origins.findIndex((o) => o.id === r.origin_id));
    expect(idx.every((i) => i % 2 === 1)).toBe(true);
    expect(idx).toEqual([...idx].sort((x, y) => x - y));
    // the schema: ids, then one SMALLINT per percentile
    const schema = await sql<{ column_name: string; column_type: string }>(`DESCRIBE SELECT * FROM read_parquet('${join(dir, "single", "travel_times", "*", "*.parquet")}')`);
    expect(schema.map((c) => `${c.column_name} ${c.column_type}`)).toEqual(["origin_id VARCHAR", "destination_id VARCHAR", "p5 SMALLINT", "p25 SMALLINT", "p50 SMALLINT", "p75 SMALLINT", "p95 SMALLINT", "shard VARCHAR"]);
    // the origin that reaches nothing has no row (pairs unreachable at every percentile are left out)
    expect(a.some((r) => r.origin_id === "nowhere")).toBe(false);
    // the rows are the core's percentiles
    const core = new TravelTimeAnalysis(svc, dests, {
      day: isoToDay("2019-03-12"), windowStartSec: 7 * 3600, windowEndSec: 8 * 3600, stepSec: 60, walkSpeed: 1.3, maxWalkSec: 1200, maxDurationMin: 120, maxTransfers: 4, transitModes: null, percentiles: [5, 25, 50, 75, 95],
    });
    const want: Record<string, unknown>[] = [];
    for (const o of origins) {
      const p = core.origin(o).percentiles;
      dests.forEach((d, j) => {
        if (p[j * 5] === -1) return;
        const v = (k: number) => (p[j * 5 + k] === -1 ? null : p[j * 5 + k]);
        want.push({ origin_id: o.id, destination_id: d.id, p5: v(0), p25: v(1), p50: v(2), p75: v(3), p95: v(4) });
      });
    }
    want.sort((x, y) => String(x.origin_id).localeCompare(String(y.origin_id)) || String(x.destination_id).localeCompare(String(y.destination_id)));
    expect(a).toEqual(want);
  });

  test("accessibility: per origin, cutoff and percentile, the sums an analyst gets from travel_times joined back to the destinations", async () => {
    const r = await runCli(["analyze", "accessibility", ...common(), "--origins", join(dir, "origins.csv"), "--out", join(dir, "single"), "--cutoffs", "15,30,60"]);
    expect(r.code).toBe(0);
    const acc = await rowsOf(join(dir, "single", "accessibility", "*", "*.parquet"), "origin_id, cutoff, percentile");
    expect(acc.length).toBe(origins.length * 3 * 5);
    expect(Object.keys(acc[0]!)).toEqual(["origin_id", "cutoff", "percentile", "jobs", "shops"]);
    const tt = join(dir, "single", "travel_times", "*", "*.parquet");
    writeFileSync(join(dir, "dests.csv"), `id,jobs,shops\n${dests.map((d) => `${d.id},${d.jobs},${d.shops}`).join("\n")}\n`);
    const want = await sql(`
      WITH o AS (SELECT id AS origin_id FROM read_csv('${join(dir, "origins.csv")}', header = true)),
           grid AS (SELECT origin_id, cutoff, percentile FROM o, (VALUES (15), (30), (60)) c(cutoff), (VALUES (5), (25), (50), (75), (95)) p(percentile)),
           long AS (UNPIVOT (SELECT * EXCLUDE (shard) FROM read_parquet('${tt}')) ON p5, p25, p50, p75, p95 INTO NAME pname VALUE minutes)
      SELECT g.origin_id, g.cutoff, g.percentile,
             coalesce(sum(d.jobs) FILTER (WHERE l.minutes < g.cutoff), 0)::DOUBLE AS jobs,
             coalesce(sum(d.shops) FILTER (WHERE l.minutes < g.cutoff), 0)::DOUBLE AS shops
      FROM grid g
      LEFT JOIN long l ON l.origin_id = g.origin_id AND l.pname = 'p' || g.percentile
      LEFT JOIN read_csv('${join(dir, "dests.csv")}', header = true) d ON d.id = l.destination_id
      GROUP BY ALL ORDER BY g.origin_id, g.cutoff, g.percentile`);
    expect(acc).toEqual(want);
    expect(acc.filter((x) => x.origin_id === "nowhere").every((x) => x.jobs === 0 && x.shops === 0)).toBe(true);
    expect(acc.some((x) => (x.jobs as number) > 0)).toBe(true);
  });

  test("the run report: inputs with their SHA-1, the dataset's active versions, settings, timings, the work in counts", async () => {
    const rep = JSON.parse(readFileSync(join(dir, "sharded", "reports", "travel_times-shard=1-of-2.json"), "utf8"));
    expect(rep.inputs.origins).toMatchObject({ points: 26, in_shard: 13 });
    expect(rep.inputs.origins.sha1).toMatch(/^[0-9a-f]{40}$/);
    expect(rep.inputs.destinations.opportunity_columns).toEqual(["jobs", "shops"]);
    expect(rep.dataset.versions.map((v: { feed: string }) => v.feed).sort()).toEqual(["f-9q9-bayarearapidtransit", "f-9q9-caltrain"]);
    expect(rep.dataset.versions.every((v: { sha1: string }) => /^[0-9a-f]{40}$/.test(v.sha1))).toBe(true);
    expect(rep.walks).toBe("straight lines");
    expect(rep.settings).toMatchObject({ date: "2019-03-12", time_zone: "America/Los_Angeles", window: "07:00-08:00", departures: 60, percentiles: [5, 25, 50, 75, 95] });
    expect(rep.shard).toEqual({ k: 1, n: 2 });
    expect(rep.timings.origins_per_s).toBeGreaterThan(0);
    // the work in counts: every departure runs at least one round, at most maxTransfers + 1; a stop read
    // is an improved one, a pair read belongs to a stop read, a lowered destination arrival to a pair read
    const w = rep.work_per_origin;
    expect(w.rounds).toBeGreaterThanOrEqual(1);
    expect(w.rounds).toBeLessThanOrEqual(60 * (rep.settings.max_transfers + 1));
    expect(w.routesScanned).toBeGreaterThan(0);
    expect(w.stopReads).toBeGreaterThan(0);
    expect(w.stopReads).toBeLessThanOrEqual(w.stopImprovements);
    expect(w.pairReads).toBeGreaterThanOrEqual(w.stopReads);
    expect(w.destinationImprovements).toBeGreaterThan(0);
    expect(w.destinationImprovements).toBeLessThanOrEqual(w.pairReads);
  });

  test("a progress line on stderr: origins done, rate, time left", async () => {
    const r = await runCli(["analyze", "travel-times", "--data", data, "--date", "2019-03-12", "--window", "07:00-07:10", "--origins", join(dir, "origins.csv"), "--out", join(dir, "progress")]);
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/analyze: 26\/26 origins \(100\.0%\), [\d.]+ origins\/s, done in \d+ s/);
  });

  test("a date outside every feed's service is refused with a clear error, so is cycling without streets; a bad flag is a usage error", async () => {
    const r = await runCli(["analyze", "travel-times", ...common(), "--origins", join(dir, "origins.csv"), "--out", join(dir, "x"), "--date", "2031-05-06"]);
    expect(r.code).toBe(1);
    expect(r.err).toContain("date 2031-05-06 is outside the service of every feed");
    const bike = await runCli(["analyze", "travel-times", ...common(), "--origins", join(dir, "origins.csv"), "--out", join(dir, "x"), "--access-mode", "BICYCLE"]);
    expect(bike.code).toBe(1);
    expect(bike.err).toContain("--access-mode BICYCLE needs a street dataset");
    const egressBike = await runCli(["analyze", "travel-times", ...common(), "--origins", join(dir, "origins.csv"), "--out", join(dir, "x"), "--egress-mode", "bicycle"]);
    expect(egressBike.code).toBe(1);
    expect(egressBike.err).toContain("--egress-mode BICYCLE needs a street dataset");
    const car = await runCli(["analyze", "travel-times", ...common(), "--origins", join(dir, "origins.csv"), "--egress-mode", "CAR"]);
    expect(car.code).toBe(2);
    expect(car.err).toContain("--egress-mode must be WALK or BICYCLE, got CAR");
    const bad = await runCli(["analyze", "travel-times", ...common(), "--origins", join(dir, "origins.csv"), "--shard", "3/2"]);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain("--shard must be K/N");
  });

  test("bad points files are refused naming the file and what is wrong (exit 1)", async () => {
    writeFileSync(join(dir, "no-lat.csv"), "id,x,y\na,1,2\n");
    writeFileSync(join(dir, "dup.csv"), "id,lat,lon\na,37.7,-122.4\na,37.8,-122.4\n");
    writeFileSync(join(dir, "no-opp.csv"), "id,lat,lon\na,37.7,-122.4\n");
    const cases: [string[], string][] = [
      [["travel-times", "--origins", join(dir, "no-lat.csv")], "no-lat.csv: needs columns id, lat and lon (has id, x, y)"],
      [["travel-times", "--origins", join(dir, "dup.csv")], "dup.csv: id a appears twice"],
      [["accessibility", "--origins", join(dir, "origins.csv"), "--destinations", join(dir, "no-opp.csv")], "no-opp.csv: accessibility needs at least one numeric opportunity column"],
    ];
    for (const [args, message] of cases) {
      const r = await runCli(["analyze", ...args, "--data", data, "--date", "2019-03-12", "--out", join(dir, "bad"), "--quiet"]);
      expect({ code: r.code, err: r.err.includes(message) }).toEqual({ code: 1, err: true });
    }
  });
});
