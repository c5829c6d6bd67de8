/**
 * FEATURE UNDER TEST: derived data of the import (generated shapes, interpolated times, calendars
 * from calendar_dates, frequencies, transfers, block_id, stop patterns, Onestop IDs, service window).
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { importFeed } from "../../pipeline/import.ts";
import { readManifest } from "../../pipeline/schema/manifest.ts";
import { gtfs, tempDir } from "../support/dataset.ts";
import { readRawGtfs } from "../support/raw-gtfs.ts";
import { sql } from "../support/duck.ts";
import { areaGeohash, geohashEncode, onestopName } from "../../pipeline/onestop.ts";
import { interpolateTrip } from "../../pipeline/gtfs/interpolate.ts";
import { unzipAll } from "../../pipeline/zip.ts";

const FIXTURES = resolve(import.meta.dir, "..", "fixtures", "gtfs");

async function imported(source: string, progress?: (msg: string) => void) {
  const data = tempDir();
  const r = await importFeed({ dataDir: data, source, now: () => new Date("2024-07-01T12:00:00Z"), progress });
  expect(r.error).toBeUndefined();
  const v = readManifest(data).versions.find((x) => x.sha1 === r.sha1)!;
  return { report: r, pq: (t: string) => `read_parquet('${join(data, v.path, `${t}.parquet`)}')` };
}

describe("derived data", () => {
  test("stop_times listed in any row order, read directly or through the raw table, import the same, and are written in (trip, stop_sequence) order", async () => {
    // BART's stop_times rows: in trips.txt order trip by trip (read in file order, no sort), reversed
    // (every row out of order), and as the file lists them (trips in another order): both sorted
    const files = await unzipAll(new Uint8Array(await Bun.file(gtfs("bart")).bytes()), () => true);
    const csv = (name: string) => new TextDecoder().decode(files[name]!).split(/\r?\n/).filter((l) => l !== "");
    const [header, ...lines] = csv("stop_times.txt");
    const tripPos = new Map(csv("trips.txt").slice(1).map((l, i) => [l.split(",")[2]!, i]));
    expect(csv("trips.txt")[0]!.split(",")[2]).toBe("trip_id");
    const key = (l: string) => { const f = l.split(","); return tripPos.get(f[0]!)! * 1e6 + Number(f[4]); };
    const inOrder = [...lines].sort((x, y) => key(x) - key(y));
    expect(inOrder).not.toEqual(lines);
    const variant = (body: string[]) => {
      const dir = join(tempDir(), "feed");
      mkdirSync(dir, { recursive: true });
      for (const [name, bytes] of Object.entries(files)) writeFileSync(join(dir, name), bytes);
      writeFileSync(join(dir, "stop_times.txt"), [header, ...body].join("\n") + "\n");
      return dir;
    };
    // the same rows where trimming matters (a trip_id with a trailing space, a line of spaces): read
    // through the raw table of strings (trimmed) instead of straight into the typed table ("direct",
    // or "fast": the fast reader's columns)
    const padded = [...inOrder];
    padded[7] = padded[7]!.replace(",", " ,");
    const blankLine = [...inOrder.slice(0, 3), "   ", ...inOrder.slice(3)];
    // a quoted value: legal CSV the fast reader leaves to DuckDB, which reads it straight ("direct")
    const quoted = (body: string[]) => body.map((l, i) => (i === 5 ? l.replace(/^([^,]*)/, '"$1"') : l));
    const versions = [];
    for (const [body, read] of [
      [inOrder, "in file order, fast"], [[...lines].reverse(), "sorted, fast"], [lines, "sorted, fast"],
      [quoted(inOrder), "in file order, direct"], [quoted(lines), "sorted, direct"], [padded, "in file order"], [blankLine, "in file order"],
    ] as const) {
      const messages: string[] = [];
      versions.push(await imported(variant([...body]), (m) => messages.push(m)));
      expect(messages.find((m) => m.includes("stop_times read:"))).toContain(`(${read})`);
    }
    const cols = "trip_ref, trip_id, stop_sequence, stop_ref, stop_id, arrival_time, departure_time, pickup_type, drop_off_type, interpolated";
    for (const v of versions) {
      const [chk] = await sql<{ n: number; unordered: number }>(`SELECT count(*)::INTEGER AS n,
          count(*) FILTER (WHERE pt IS NOT NULL AND (trip_ref, stop_sequence) <= (pt, ps))::INTEGER AS unordered
        FROM (SELECT trip_ref, stop_sequence, lag(trip_ref) OVER () AS pt, lag(stop_sequence) OVER () AS ps FROM ${v.pq("stop_times")})`);
      expect(chk).toEqual({ n: lines.length, unordered: 0 });
      const [diff] = await sql<{ a: number; b: number }>(`SELECT
        (SELECT count(*)::INTEGER FROM (SELECT ${cols} FROM ${v.pq("stop_times")} EXCEPT ALL SELECT ${cols} FROM ${versions[0]!.pq("stop_times")})) AS a,
        (SELECT count(*)::INTEGER FROM (SELECT ${cols} FROM ${versions[0]!.pq("stop_times")} EXCEPT ALL SELECT ${cols} FROM ${v.pq("stop_times")})) AS b`);
      expect(diff).toEqual({ a: 0, b: 0 });
    }
  });

  test("interpolation fills missing times by distance (straight-line and shape_dist_traveled), past 24:00", async () => {
    const { pq, report } = await imported(join(FIXTURES, "interpolation"));
    const rows = await sql<{ trip_id: string; stop_sequence: number; arrival_time: number; departure_time: number; interpolated: number }>(
      `SELECT trip_id, stop_sequence, arrival_time, departure_time, interpolated FROM ${pq("stop_times")} ORDER BY trip_id, stop_sequence`);
    const h = (s: string) => s.split(":").reduce((a, b) => a * 60 + Number(b), 0);
    expect(rows.map((r) => `${r.trip_id}/${r.stop_sequence} ${r.arrival_time}-${r.departure_time} ${r.interpolated}`)).toEqual([
      `T1/1 ${h("08:00:00")}-${h("08:00:00")} 0`,
      `T1/2 ${h("08:10:00")}-${h("08:10:00")} 1`, // 1/4 of the straight-line distance
      `T1/3 ${h("08:30:00")}-${h("08:30:00")} 1`, // 3/4
      `T1/4 ${h("08:40:00")}-${h("08:40:00")} 0`,
      `T2/10 ${h("24:50:00")}-${h("24:50:00")} 0`,
      `T2/20 ${h("25:00:00")}-${h("25:00:00")} 1`, // shape_dist 100/400
      `T2/30 ${h("25:20:00")}-${h("25:20:00")} 1`, // 300/400
      `T2/40 ${h("25:30:00")}-${h("25:31:00")} 0`,
      `T3/1 ${h("07:00:00")}-${h("07:00:00")} 0`,
      `T3/2 ${h("07:10:00")}-${h("07:10:00")} 0`,
    ]);
    expect(report.derived.interpolated_stop_times).toBe(4);
  });

  test("interpolation follows the shape, not the straight line between stops", () => {
    // shape: 1 km north, then 1 km east; the untimed stop is halfway along the east leg (75 % of the way)
    const north = 1000 / 111195, east = 1000 / (111195 * Math.cos((40 + north) * Math.PI / 180));
    const shape: Array<[number, number]> = [[40, -74], [40 + north, -74], [40 + north, -74 + east]];
    const rows = [
      { rid: 1, arr: 0, dep: 0, lat: 40, lon: -74, sd: null },
      { rid: 2, arr: null, dep: null, lat: 40 + north, lon: -74 + east / 2, sd: null },
      { rid: 3, arr: 1000, dep: 1000, lat: 40 + north, lon: -74 + east, sd: null },
    ];
    expect(interpolateTrip(rows, shape)).toEqual([[2, 750]]);
    expect(interpolateTrip(rows, null)[0]![1]).toBe(691); // straight line: 1118 m of 1618 m
  });

  test("terre-haute: interpolated times lie between their timed neighbours and never decrease", async () => {
    const { pq, report } = await imported(gtfs("terre-haute"));
    expect(report.derived.interpolated_stop_times).toBeGreaterThan(900);
    const bad = await sql<{ trip_id: string }>(`SELECT trip_id FROM (SELECT trip_id, arrival_time, lag(departure_time) OVER (PARTITION BY trip_ref ORDER BY stop_sequence) AS p
      FROM ${pq("stop_times")}) WHERE arrival_time < p`);
    expect(bad).toEqual([]);
  });

  test("calendar_dates-only services become calendars with added dates; removed dates kept", async () => {
    const { pq } = await imported(join(FIXTURES, "interpolation"));
    const cals = await sql<Record<string, unknown>>(`SELECT service_id, monday, saturday, strftime(start_date, '%Y-%m-%d') AS s, strftime(end_date, '%Y-%m-%d') AS e,
      list_transform(added_dates, d -> strftime(d, '%Y-%m-%d')) AS added, list_transform(removed_dates, d -> strftime(d, '%Y-%m-%d')) AS removed, generated FROM ${pq("calendars")} ORDER BY service_id`);
    expect(cals).toEqual([
      { service_id: "CD", monday: 0, saturday: 0, s: "2024-07-06", e: "2024-07-13", added: ["2024-07-06", "2024-07-13"], removed: [], generated: true },
      { service_id: "WK", monday: 1, saturday: 0, s: "2024-01-01", e: "2024-12-31", added: [], removed: ["2024-07-04"], generated: false },
    ]);
  });

  test("wmata-rail (calendar_dates.txt only): every service is a generated calendar with its dates", async () => {
    const { pq } = await imported(gtfs("wmata-rail"));
    const raw = readRawGtfs(gtfs("wmata-rail")).get("calendar_dates.txt")!;
    const added = raw.filter((r) => r.exception_type === "1").length;
    const [c] = await sql<{ n: number; gen: number; added: number }>(`SELECT count(*)::INTEGER AS n, count(*) FILTER (WHERE generated)::INTEGER AS gen,
      sum(len(added_dates))::INTEGER AS added FROM ${pq("calendars")}`);
    expect(c).toEqual({ n: new Set(raw.map((r) => r.service_id)).size, gen: new Set(raw.map((r) => r.service_id)).size, added });
  });

  test("a feed without shapes.txt gets one generated shape per stop pattern through its stops", async () => {
    const { pq, report } = await imported(gtfs("vvs-bus-752"));
    const [t] = await sql<{ n: number; gen: number }>(`SELECT count(*)::INTEGER AS n, count(*) FILTER (WHERE shape_id LIKE 'generated-%')::INTEGER AS gen FROM ${pq("trips")}`);
    expect(t!.gen).toBe(t!.n);
    // the shape of each trip is exactly its stops' coordinates in order
    const mismatches = await sql<{ trip_id: string }>(`
      WITH st AS (SELECT t.trip_id, t.shape_id, list([s.stop_lat, s.stop_lon] ORDER BY x.stop_sequence) AS pts
                  FROM ${pq("trips")} t JOIN ${pq("stop_times")} x ON x.trip_ref = t.id JOIN ${pq("stops")} s ON s.id = x.stop_ref GROUP BY ALL),
           sh AS (SELECT shape_id, list([shape_pt_lat, shape_pt_lon] ORDER BY shape_pt_sequence) AS pts, bool_and(generated) AS g FROM ${pq("shapes")} GROUP BY shape_id)
      SELECT st.trip_id FROM st JOIN sh USING (shape_id) WHERE st.pts <> sh.pts OR NOT sh.g`);
    expect(mismatches).toEqual([]);
    expect(report.derived.generated_shapes).toBe((await sql<{ n: number }>(`SELECT count(DISTINCT stop_pattern_id)::INTEGER AS n FROM ${pq("trips")}`))[0]!.n);
  });

  test("stop patterns: trips with the same stop sequence share an id, numbered in first-seen order", async () => {
    const { pq } = await imported(gtfs("bart"));
    const raw = readRawGtfs(gtfs("bart"));
    const seqByTrip = new Map<string, Array<[number, string]>>();
    for (const r of raw.get("stop_times.txt")!) (seqByTrip.get(r.trip_id!) ?? seqByTrip.set(r.trip_id!, []).get(r.trip_id!)!).push([Number(r.stop_sequence), r.stop_id!]);
    const expected = new Map<string, number>();
    const patternOf = new Map<string, number>();
    for (const t of raw.get("trips.txt")!) {
      const key = seqByTrip.get(t.trip_id!)!.sort((a, b) => a[0] - b[0]).map((x) => x[1]).join(",");
      if (!patternOf.has(key)) patternOf.set(key, patternOf.size + 1);
      expected.set(t.trip_id!, patternOf.get(key)!);
    }
    const got = await sql<{ trip_id: string; p: number }>(`SELECT trip_id, stop_pattern_id AS p FROM ${pq("trips")}`);
    expect(Object.fromEntries(got.map((g) => [g.trip_id, g.p]))).toEqual(Object.fromEntries(expected));
  });

  test("frequencies (usf-bullrunner) and transfers (trimet-2routes) are kept with times in seconds", async () => {
    const f = await imported(gtfs("usf-bullrunner"));
    const rawF = readRawGtfs(gtfs("usf-bullrunner")).get("frequencies.txt")!;
    const freq = await sql<{ trip_id: string; start_time: number; headway_secs: number }>(`SELECT trip_id, start_time, headway_secs FROM ${f.pq("frequencies")} ORDER BY trip_id, start_time`);
    const h = (s: string) => s.split(":").reduce((a, b) => a * 60 + Number(b), 0);
    expect(freq).toEqual(rawF.map((r) => ({ trip_id: r.trip_id!, start_time: h(r.start_time!), headway_secs: Number(r.headway_secs) }))
      .sort((a, b) => (a.trip_id < b.trip_id ? -1 : a.trip_id > b.trip_id ? 1 : a.start_time - b.start_time)));
    const x = await imported(gtfs("trimet-2routes"));
    const rawX = readRawGtfs(gtfs("trimet-2routes")).get("transfers.txt")!;
    const tr = await sql<{ from_stop_id: string; to_stop_id: string; transfer_type: number; min_transfer_time: number | null }>(
      `SELECT from_stop_id, to_stop_id, transfer_type, min_transfer_time FROM ${x.pq("transfers")}`);
    expect(tr.length).toBe(rawX.length);
    expect(tr[0]).toEqual({ from_stop_id: rawX[0]!.from_stop_id!, to_stop_id: rawX[0]!.to_stop_id!, transfer_type: Number(rawX[0]!.transfer_type || 0),
      min_transfer_time: rawX[0]!.min_transfer_time ? Number(rawX[0]!.min_transfer_time) : null });
  });

  test("block_id is carried on every trip (emery-go-round)", async () => {
    const { pq } = await imported(gtfs("emery-go-round"));
    const raw = readRawGtfs(gtfs("emery-go-round")).get("trips.txt")!;
    const got = await sql<{ trip_id: string; block_id: string }>(`SELECT trip_id, block_id FROM ${pq("trips")}`);
    expect(Object.fromEntries(got.map((g) => [g.trip_id, g.block_id]))).toEqual(Object.fromEntries(raw.map((r) => [r.trip_id!, r.block_id!])));
  });

  test("Onestop IDs follow the scheme: stops geohash-10 + name, routes/agencies area geohash + name", async () => {
    const { pq, report } = await imported(gtfs("caltrain"));
    const stops = await sql<{ stop_lat: number; stop_lon: number; stop_name: string; onestop_id: string }>(`SELECT stop_lat, stop_lon, stop_name, onestop_id FROM ${pq("stops")} LIMIT 20`);
    for (const s of stops) expect(s.onestop_id).toBe(`s-${geohashEncode(s.stop_lat, s.stop_lon, 10)}-${onestopName(s.stop_name)}`);
    expect(onestopName("Market St & Sansome St")).toBe("marketst~sansomest");
    const routes = await sql<{ onestop_id: string; pts: [number, number][] }>(`SELECT r.onestop_id, list([s.stop_lat, s.stop_lon]) AS pts FROM ${pq("routes")} r
      JOIN ${pq("route_stops")} rs ON rs.route_ref = r.id JOIN ${pq("stops")} s ON s.id = rs.stop_ref GROUP BY r.onestop_id`);
    for (const r of routes) expect(r.onestop_id.split("-")[1]).toBe(areaGeohash(r.pts));
    expect(report.feed_onestop_id).toBe("f-9q9-caltrain");
  });

  test("feed_version carries the service window, best week and default timezone", async () => {
    const { pq } = await imported(join(FIXTURES, "interpolation"));
    const [fv] = await sql<Record<string, string | null>>(`SELECT strftime(earliest_calendar_date, '%Y-%m-%d') AS e, strftime(latest_calendar_date, '%Y-%m-%d') AS l,
      strftime(best_week_start, '%Y-%m-%d') AS b, dayname(best_week_start) AS bd, default_timezone AS tz, strftime(service_start_date, '%Y-%m-%d') AS s FROM ${pq("feed_version")}`);
    expect(fv).toEqual({ e: "2024-01-01", l: "2024-12-31", b: fv!.b, bd: "Monday", tz: "America/New_York", s: fv!.s });
    expect(fv!.s! <= fv!.b!).toBe(true);
  });
});
