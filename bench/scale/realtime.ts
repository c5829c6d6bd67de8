/**
 * Realtime snapshots at scale (issue 33: "realtime snapshots applied in under 1 s"): `bun
 * bench/scale/realtime.ts --size 6 [--feeds 12] [--rounds 5]`. On a dataset made by `npm run
 * bench:scale` (bench/.work/scale-N/data), in a work folder that links to its files but has its
 * own realtime folder (the dataset itself is not changed):
 *
 * 1. for each of the first `--feeds` feeds (default: every feed), a GTFS-Realtime TripUpdates
 *    message with every trip of the feed that runs between 08:00 and 09:00 on 2026-09-15 (the
 *    scale sets' year-long calendars run then), each with a delay of 0-300 s at every stop
 *    (stop_sequence, arrival and departure delays), stamped now;
 * 2. the real server (`interchange serve`, a child process) on the work folder; every message
 *    imported by `interchange import-rt` (a child process each; its wall time is reported), then
 *    plans until the planner rides on all of them;
 * 3. `--rounds` times: one feed's snapshot replaced by a new message (other delays); measured:
 *    import-rt's wall time, the time from its end until /health shows the new snapshot served
 *    (the server's file watch and its read of the snapshot's Parquet), and the first plan after
 *    it (the planner applies every served snapshot to the timetable once per set of snapshots)
 *    against the plans before it (the same query, realtime already applied).
 *
 * "Applied" = served + the first plan's extra time; the import-rt time is the pipeline's and is
 * reported apart.
 */
import { mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { loadavg } from "node:os";
import { spawnSync } from "node:child_process";
import GtfsRealtimeBindings from "gtfs-realtime-bindings";
import { DuckDBInstance } from "@duckdb/node-api";
import { readManifest } from "../../pipeline/schema/manifest.ts";
import { flag, hasFlag, pct, rng } from "../lib/args.ts";
import { hostProbeMs, machineInfo } from "../lib/machine.ts";
import { cpuSec, rssKb, startServer } from "../lib/server.ts";

const { transit_realtime: rt } = GtfsRealtimeBindings;
const ROOT = resolve(import.meta.dir, "..", "..");
const SIZE = flag("size", "6");
const ROUNDS = Number(flag("rounds", "5"));
const DATE = "2026-09-15";
/** --keep: leave the work folder (its realtime snapshots) for a closer look */
const ARGS_KEEP = hasFlag("keep");
const FROM_S = 8 * 3600, TO_S = 9 * 3600;
const src = join(ROOT, "bench", ".work", `scale-${SIZE}`, "data");
const manifest = readManifest(src);
const feeds = manifest.feeds.filter((f) => f.active).slice(0, Number(flag("feeds", String(manifest.feeds.length))));

// the work folder: the dataset's files linked, a realtime folder of its own
const work = join(ROOT, "bench", ".work", `scale-${SIZE}-rt`);
rmSync(work, { recursive: true, force: true });
mkdirSync(join(work, "realtime"), { recursive: true });
for (const e of readdirSync(src)) if (e !== "realtime") symlinkSync(join(src, e), join(work, e));

interface TripRow { trip_id: string; seqs: number[] }
interface FeedTrips { onestop: string; trips: TripRow[]; from: [number, number]; to: [number, number] }

/** The trips of each feed running 08:00-09:00 on DATE, with their stop sequences; two stops of a long trip for the plan. */
async function tripsOf(): Promise<FeedTrips[]> {
  const db = await (await DuckDBInstance.create(":memory:")).connect();
  const out: FeedTrips[] = [];
  for (const f of feeds) {
    const v = join(src, "versions", f.active!);
    const q = (name: string) => `'${join(v, `${name}.parquet`)}'`;
    const rows = (
      await db.runAndReadAll(`
      WITH running AS (
        SELECT t.id, t.trip_id FROM ${q("trips")} t JOIN ${q("calendars")} c ON c.id = t.calendar_ref
        WHERE t.first_departure <= ${TO_S} AND t.last_arrival >= ${FROM_S}
          AND (list_contains(c.added_dates, DATE '${DATE}')
            OR (DATE '${DATE}' BETWEEN c.start_date AND c.end_date AND c.tuesday = 1 AND NOT list_contains(c.removed_dates, DATE '${DATE}'))))
      SELECT r.trip_id, list(st.stop_sequence ORDER BY st.stop_sequence)::VARCHAR
      FROM running r JOIN ${q("stop_times")} st ON st.trip_ref = r.id GROUP BY r.trip_id ORDER BY r.trip_id`)
    ).getRows();
    const trips = rows.map(([id, seqs]) => ({ trip_id: String(id), seqs: JSON.parse(String(seqs)) as number[] }));
    // the plan: from the first to the last stop of the running trip with the most stops
    const longest = trips.reduce((a, b) => (b.seqs.length > a.seqs.length ? b : a), trips[0]!);
    const ends = (
      await db.runAndReadAll(`
      SELECT s.stop_lat, s.stop_lon FROM ${q("stop_times")} st JOIN ${q("stops")} s ON s.id = st.stop_ref
      WHERE st.trip_id = '${longest.trip_id.replace(/'/g, "''")}' AND st.stop_sequence IN (${longest.seqs[0]}, ${longest.seqs.at(-1)}) ORDER BY st.stop_sequence`)
    ).getRows();
    out.push({ onestop: f.onestop_id, trips, from: [Number(ends[0]![0]), Number(ends[0]![1])], to: [Number(ends.at(-1)![0]), Number(ends.at(-1)![1])] });
  }
  return out;
}

/** A TripUpdates message for `ft`'s trips, delays drawn from `seed`, stamped now. */
function message(ft: FeedTrips, seed: number): Uint8Array {
  const rand = rng(seed);
  const ymd = DATE.replace(/-/g, "");
  const entity = ft.trips.map((t, i) => {
    const delay = Math.floor(rand() * 300);
    return {
      id: String(i),
      tripUpdate: {
        trip: { tripId: t.trip_id, startDate: ymd, scheduleRelationship: 0 },
        stopTimeUpdate: t.seqs.map((s) => ({ stopSequence: s, arrival: { delay }, departure: { delay } })),
      },
    };
  });
  const msg = rt.FeedMessage.fromObject({ header: { gtfsRealtimeVersion: "2.0", incrementality: 0, timestamp: Math.floor(Date.now() / 1000) }, entity });
  return rt.FeedMessage.encode(msg).finish();
}

/** `interchange import-rt` of one message; its wall ms. */
function importRt(feed: string, bytes: Uint8Array, name: string): number {
  const file = join(work, `${name}.pb`);
  writeFileSync(file, bytes);
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [join(ROOT, "bin", "interchange.ts"), "import-rt", "--data", work, "--feed-id", feed, file], { encoding: "utf8" });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`import-rt failed: ${r.stderr}`);
  rmSync(file);
  return ms;
}

const json = async (url: string) => (await fetch(url)).json() as Promise<any>;

/** ms until /health shows `feed`'s trip updates snapshot served with a path other than `before`. */
async function untilServed(url: string, feed: string, before: string | null): Promise<{ ms: number; path: string }> {
  const t0 = performance.now();
  for (;;) {
    const h = await json(`${url}/health`);
    const tu = h.features?.realtime?.feeds?.[feed]?.trip_updates;
    if (tu?.serving && tu.snapshot?.path !== before) return { ms: performance.now() - t0, path: tu.snapshot.path };
    if (performance.now() - t0 > 120_000) throw new Error(`snapshot of ${feed} not served after 120 s: ${JSON.stringify(tu)}`);
    await Bun.sleep(5);
  }
}

const planUrl = (url: string, ft: FeedTrips) =>
  `${url}/api/v2/routing/otp/plan?fromPlace=${ft.from.join(",")}&toPlace=${ft.to.join(",")}&date=${DATE}&time=08:10&mode=TRANSIT,WALK&maxWalkDistance=1500&numItineraries=3`;

/** One plan: ms and how many of its transit legs ride on realtime times. */
async function plan(url: string): Promise<{ ms: number; realtimeLegs: number; legs: number }> {
  const t0 = performance.now();
  const body = await json(url);
  const ms = performance.now() - t0;
  const legs = (body.plan?.itineraries ?? []).flatMap((i: any) => i.legs).filter((l: any) => l.transitLeg);
  return { ms, realtimeLegs: legs.filter((l: any) => l.realTime).length, legs: legs.length };
}

const mi = machineInfo(ROOT);
const load0 = loadavg()[0]!, probe0 = hostProbeMs();
const t0 = performance.now();
const data = await tripsOf();
const nTrips = data.reduce((a, f) => a + f.trips.length, 0), nStops = data.reduce((a, f) => a + f.trips.reduce((b, t) => b + t.seqs.length, 0), 0);
console.log(`scale-${SIZE}: ${feeds.length} feeds, ${nTrips} trips running 08:00-09:00 on ${DATE}, ${nStops} stop time updates (query ${((performance.now() - t0) / 1000).toFixed(1)} s)`);

const server = await startServer(work);
try {
  // every feed's first snapshot
  const firstImport: number[] = [];
  const paths = new Map<string, string>();
  for (const [i, ft] of data.entries()) firstImport.push(importRt(ft.onestop, message(ft, i + 1), `first-${i}`));
  for (const ft of data) paths.set(ft.onestop, (await untilServed(server.url, ft.onestop, null)).path);
  const probe = data[0]!;
  const first = await plan(planUrl(server.url, probe));
  console.log(`first snapshots: import-rt ${pct(firstImport, 50).toFixed(0)} ms p50 per feed (max ${Math.max(...firstImport).toFixed(0)}); first plan riding on all ${data.length}: ${first.ms.toFixed(0)} ms, ${first.realtimeLegs}/${first.legs} transit legs realtime`);
  const rows: string[] = [];
  const served: number[] = [], extra: number[] = [], imports: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const ft = data[r % data.length]!;
    const url = planUrl(server.url, ft);
    const before: number[] = [];
    for (let k = 0; k < 7; k++) before.push((await plan(url)).ms);
    const imp = importRt(ft.onestop, message(ft, 1000 + r), `round-${r}`);
    const s = await untilServed(server.url, ft.onestop, paths.get(ft.onestop)!);
    paths.set(ft.onestop, s.path);
    const after = await plan(url);
    const base = pct(before, 50);
    served.push(s.ms), extra.push(after.ms - base), imports.push(imp);
    rows.push(`| ${r + 1} | ${ft.onestop} | ${ft.trips.length} | ${imp.toFixed(0)} | ${s.ms.toFixed(0)} | ${base.toFixed(1)} | ${after.ms.toFixed(1)} | ${(s.ms + after.ms - base).toFixed(0)} | ${after.realtimeLegs}/${after.legs} |`);
  }
  const cpu = cpuSec(server.pid);
  console.log(`${mi.cpuModel}, ${mi.cores} cores, commit ${mi.gitCommit}, ${new Date().toISOString()}; load average ${load0.toFixed(2)} -> ${loadavg()[0]!.toFixed(2)}; host probe ${probe0.toFixed(2)} -> ${hostProbeMs().toFixed(2)} ms; server CPU ${cpu.user.toFixed(1)} s user, ${cpu.sys.toFixed(1)} s system, RSS ${(rssKb(server.pid) / 1024).toFixed(0)} MB`);
  console.log(`| round | feed replaced | trips | import-rt ms | until served ms | plan before (p50 of 7) ms | first plan after ms | applied ms (served + extra) | realtime legs |`);
  console.log(`|---|---|---|---|---|---|---|---|---|`);
  for (const row of rows) console.log(row);
  console.log(`median: import-rt ${pct(imports, 50).toFixed(0)} ms, served ${pct(served, 50).toFixed(0)} ms, first plan's extra ${pct(extra, 50).toFixed(0)} ms`);
} finally {
  server.stop();
  if (!ARGS_KEEP) rmSync(work, { recursive: true, force: true });
}
