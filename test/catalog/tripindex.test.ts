/**
 * The JS trip index (server/catalog/tripindex.ts): packed columns, calendar evaluation, loading
 * from Parquet that is not in the expected order, and end to end: every single-trip stop_times
 * answer equals the imported stop_times.parquet rows, field by field.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { Database, sqlString } from "../../server/catalog/db.ts";
import { catalogFormatPaths } from "../../server/catalog/routes.ts";
import { activeOn, type CalendarInfo, dayNumber, IntColumn, loadTripIndex, StringColumn } from "../../server/catalog/tripindex.ts";
import { tempDir } from "../support/dataset.ts";
import { sql } from "../support/duck.ts";
import { catalogServer, type TestServer } from "./harness.ts";

describe("IntColumn", () => {
  test("keeps every value of its range and null, in the narrowest array", () => {
    for (const [min, max, bytes] of [
      [1, 115, 1],
      [0, 254, 1],
      [0, 255, 2],
      [-5, 17649, 2],
      [0, 200_000, 4],
      [-2_147_483_647, 2_147_483_647, 4],
    ] as const) {
      const c = new IntColumn(4, min, max);
      expect(c.bytes).toBe(4 * bytes);
      expect(c.get(3)).toBeNull(); // rows start as null
      c.set(0, min);
      c.set(1, max);
      c.set(2, null);
      expect([c.get(0), c.get(1), c.get(2)]).toEqual([min, max, null]);
    }
    const empty = new IntColumn(2, null, null); // a column with no values at all
    empty.set(0, 0);
    expect([empty.get(0), empty.get(1)]).toEqual([0, null]);
  });
});

describe("StringColumn", () => {
  for (const packed of [true, false]) {
    test(`${packed ? "packed text" : "dictionary"}: values, empty strings and nulls come back as given`, () => {
      const values = ["a", null, "", "héllo", "a", null, "zz"];
      const c = new StringColumn(values.length, packed);
      values.forEach((v, i) => c.add(i, v));
      c.finish();
      expect(values.map((_, i) => c.get(i))).toEqual(values);
    });
  }
});

describe("calendar evaluation", () => {
  const d = dayNumber;
  const cal = (over: Partial<CalendarInfo>): CalendarInfo => ({
    id: 1,
    fv: 1,
    json: "{}",
    start: d("2024-01-01"),
    end: d("2024-01-31"),
    weekdays: 0b0011111, // Monday to Friday
    added: new Set(),
    removed: new Set(),
    ...over,
  });
  test("weekdays inside the range, additions anywhere, removals win over weekdays", () => {
    const c = cal({ added: new Set([d("2024-02-03")]), removed: new Set([d("2024-01-15")]) });
    expect(activeOn(c, d("2024-01-02"), 1)).toBe(true); // Tuesday
    expect(activeOn(c, d("2024-01-06"), 5)).toBe(false); // Saturday
    expect(activeOn(c, d("2024-01-15"), 0)).toBe(false); // removed Monday
    expect(activeOn(c, d("2024-02-03"), 5)).toBe(true); // added, outside the range
    expect(activeOn(c, d("2024-02-05"), 0)).toBe(false); // after the range
  });
  test("a date both added and removed does not run (removals win, as in the timetable and the derived service days)", () => {
    const c = cal({ added: new Set([d("2024-01-16"), d("2024-02-10")]), removed: new Set([d("2024-01-16"), d("2024-02-10")]) });
    expect(activeOn(c, d("2024-01-16"), 1)).toBe(false); // a Tuesday in the range
    expect(activeOn(c, d("2024-02-10"), 5)).toBe(false); // outside the range
  });
  test("a calendar without dates only runs on its added dates", () => {
    const c = cal({ start: null, end: null, added: new Set([d("2024-01-03")]) });
    expect(activeOn(c, d("2024-01-03"), 2)).toBe(true);
    expect(activeOn(c, d("2024-01-04"), 3)).toBe(false);
  });
});

describe("loading", () => {
  test("stop_times out of file order, headsigns, nulls and wide values; shapes with a point without coordinates", async () => {
    const dir = tempDir("interchange-tripindex-");
    const f = (name: string) => join(dir, `${name}.parquet`);
    const db = await Database.create({ threads: 1, poolSize: 1 });
    try {
      await db.exec(`COPY (SELECT * FROM (VALUES
          (1, 1, 't1', 10, 5, 'A', NULL, 0, NULL, 'sh1', 1, NULL, NULL, 1),
          (2, 1, 't2', 10, 5, NULL, 'S2', 1, 'b', NULL, NULL, 2, 0, 2),
          (3, 1, 't3', 11, NULL, NULL, NULL, NULL, NULL, 'missing', NULL, NULL, NULL, NULL))
        t(id, feed_version_id, trip_id, route_ref, calendar_ref, trip_headsign, trip_short_name, direction_id, block_id, shape_id,
          wheelchair_accessible, bikes_allowed, cars_allowed, stop_pattern_id)) TO ${sqlString(f("trips"))}`);
      // trip 2's rows come first and out of stop_sequence order; trip 1 is split in two runs; trip 99 does not exist
      await db.exec(`COPY (SELECT * FROM (VALUES
          (2, 30, 7, 100000, 100060, 'via X', 0, 1, 1, 0),
          (2, 10, 8, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
          (1, 1, 7, 3600, 3600, '', 3, 3, 0, 1),
          (99, 1, 7, 0, 0, NULL, 0, 0, 0, 0),
          (2, 20, 9, 90000, 90000, 'via Y', 2, 0, 1, 1),
          (1, 5, 8, 7200, 7300, 'via X', 1000, 0, 1, 0),
          (1, 3, 9, 5000, NULL, NULL, 0, 0, 1, 0))
        t(trip_ref, stop_sequence, stop_ref, arrival_time, departure_time, stop_headsign, pickup_type, drop_off_type, timepoint, interpolated))
        TO ${sqlString(f("stop_times"))}`);
      await db.exec(`COPY (SELECT * FROM (VALUES (1, 'sh1', 2, 40.5, -73.5, false), (1, 'sh1', 1, 40.25, -73.25, false), (1, 'sh1', 3, NULL, NULL, false))
        t(feed_version_id, shape_id, shape_pt_sequence, shape_pt_lat, shape_pt_lon, generated)) TO ${sqlString(f("shapes"))}`);
      await db.exec(`CREATE TABLE calendars AS SELECT 5 AS id, 1 AS feed_version_id, DATE '2024-01-01' AS start_date, DATE '2024-01-31' AS end_date,
          1 AS monday, 1 AS tuesday, 1 AS wednesday, 1 AS thursday, 1 AS friday, 0 AS saturday, 0 AS sunday,
          [DATE '2024-02-03'] AS added_dates, []::DATE[] AS removed_dates`);
      await db.exec(`CREATE TABLE calendar_json AS SELECT 5 AS id, '{"service_id":"c"}'::JSON AS json`);
      await db.exec(`CREATE TABLE trip_freq AS SELECT 2 AS trip_ref, '[{"headway_secs":600}]'::JSON AS json`);
      await db.exec(`CREATE TABLE route_json AS SELECT * FROM (VALUES (10, '{"id":10}'::JSON), (11, '{"id":11}'::JSON)) t(id, json)`);
      await db.exec(`CREATE TABLE fv_json AS SELECT 1 AS feed_version_id, '{"id":1}'::JSON AS json`);
      const ix = await loadTripIndex(db, { trips: [f("trips")], shapes: [f("shapes")], stopTimes: [f("stop_times")] }, sqlString);

      expect(ix.n).toBe(3);
      // the string columns (dictionary-coded and packed), nulls and empty strings as null
      const col = (c: StringColumn) => [0, 1, 2].map((t) => c.get(t));
      expect(col(ix.tripId)).toEqual(["t1", "t2", "t3"]);
      expect(col(ix.headsign)).toEqual(["A", null, null]);
      expect(col(ix.shortName)).toEqual([null, "S2", null]);
      expect(col(ix.blockId)).toEqual([null, "b", null]);
      expect(col(ix.shapeId)).toEqual(["sh1", null, "missing"]);
      expect([...ix.byRoute.get(10)!]).toEqual([0, 1]);
      expect(ix.frequencies.get(1)).toBe('[{"headway_secs":600}]');
      expect(ix.shape[0]).toBe(0);
      expect(ix.shape[2]).toBe(-1); // shape_id without points
      expect(ix.shapes.geometry(0)).toBe('{"type":"LineString","coordinates":[[-73.25,40.25],[-73.5,40.5]]}');
      const c = ix.calendars.get(5)!;
      expect(activeOn(c, dayNumber("2024-02-03"), 5)).toBe(true);

      const st = ix.stopTimes!;
      const rows = (t: number) => {
        const out = [];
        for (let i = st.offsets[t]!; i < st.offsets[t + 1]!; i++) {
          const h = st.headsign.get(i);
          out.push([st.seq.get(i), st.stop.get(i), st.arrival.get(i), st.departure(i), h === null ? null : st.headsigns[h], [0, 1, 2, 3].map((k) => st.flags.get(i, k))]);
        }
        return out;
      };
      expect(rows(0)).toEqual([
        [1, 7, 3600, 3600, null, [3, 3, 0, 1]],
        [3, 9, 5000, null, null, [0, 0, 1, 0]],
        [5, 8, 7200, 7300, "via X", [1000, 0, 1, 0]],
      ]);
      expect(rows(1)).toEqual([
        [10, 8, null, null, null, [null, null, null, null]],
        [20, 9, 90000, 90000, "via Y", [2, 0, 1, 1]],
        [30, 7, 100000, 100060, "via X", [0, 1, 1, 0]],
      ]);
      expect(rows(2)).toEqual([]);
    } finally {
      db.close();
    }
  });
});

describe("trips' string columns", () => {
  test("trip ids of every length, one holding a NUL, across several groups of rows; shapes found per version", async () => {
    const dir = tempDir("interchange-tripindex-ids-");
    const f = (name: string) => join(dir, `${name}.parquet`);
    const db = await Database.create({ threads: 1, poolSize: 1 });
    try {
      // 70,000 trips (more than one group of joined ids), ids out of order in the file, two versions sharing shape ids
      await db.exec(`COPY (SELECT 70000 - i AS id, 1 + (i % 2) AS feed_version_id,
          CASE WHEN i = 5 THEN 'x' || chr(0) || 'y' WHEN i = 6 THEN '' ELSE 'trip-' || i END AS trip_id,
          1 AS route_ref, NULL::INTEGER AS calendar_ref, CASE WHEN i % 3 = 0 THEN 'H' || (i % 7) END AS trip_headsign,
          NULL AS trip_short_name, NULL::INTEGER AS direction_id, CASE WHEN i % 5 = 0 THEN '' ELSE 'b' || (i % 11) END AS block_id,
          'sh' || (i % 4) AS shape_id, NULL::INTEGER AS wheelchair_accessible, NULL::INTEGER AS bikes_allowed, NULL::INTEGER AS cars_allowed, NULL::INTEGER AS stop_pattern_id
        FROM range(70000) r(i)) TO ${sqlString(f("trips"))}`);
      await db.exec(`COPY (SELECT fv AS feed_version_id, 'sh' || s AS shape_id, 1 AS shape_pt_sequence, 40.0 + s AS shape_pt_lat, -73.0 - fv AS shape_pt_lon, false AS generated
        FROM range(1, 3) a(fv), range(0, 3) b(s)) TO ${sqlString(f("shapes"))}`);
      await db.exec(`CREATE TABLE calendars (id INTEGER, feed_version_id INTEGER, start_date DATE, end_date DATE, monday INTEGER, tuesday INTEGER, wednesday INTEGER, thursday INTEGER, friday INTEGER, saturday INTEGER, sunday INTEGER, added_dates DATE[], removed_dates DATE[])`);
      await db.exec(`CREATE TABLE calendar_json (id INTEGER, json JSON)`);
      await db.exec(`CREATE TABLE trip_freq (trip_ref INTEGER, json JSON)`);
      await db.exec(`CREATE TABLE route_json AS SELECT 1 AS id, '{"id":1}'::JSON AS json`);
      await db.exec(`CREATE TABLE fv_json (feed_version_id INTEGER, json JSON)`);
      const ix = await loadTripIndex(db, { trips: [f("trips")], shapes: [f("shapes")], stopTimes: null }, sqlString);
      expect(ix.n).toBe(70000);
      let checked = 0;
      for (let t = 0; t < ix.n; t++) {
        const i = 70000 - ix.ids[t]!; // the row's i
        expect(ix.ids[t]!).toBe(t + 1);
        const want = i === 5 ? "x\u0000y" : i === 6 ? "" : `trip-${i}`;
        if (ix.tripId.get(t) !== want) throw new Error(`trip ${t + 1}: ${ix.tripId.get(t)} != ${want}`);
        if (ix.headsign.get(t) !== (i % 3 === 0 ? `H${i % 7}` : null)) throw new Error(`headsign of ${t + 1}`);
        if (ix.blockId.get(t) !== (i % 5 === 0 ? null : `b${i % 11}`)) throw new Error(`block of ${t + 1}`);
        if (ix.shapeId.get(t) !== `sh${i % 4}`) throw new Error(`shape id of ${t + 1}`);
        // sh3 has no points; the others are their own version's
        const s = ix.shape[t]!;
        if (i % 4 === 3 ? s !== -1 : ix.shapes.byKey.get(`${1 + (i % 2)}\u0000sh${i % 4}`) !== s || s < 0) throw new Error(`shape of ${t + 1}: ${s}`);
        checked++;
      }
      expect(checked).toBe(70000);
    } finally {
      db.close();
    }
  });

  test("StringColumn.coded and packedFrom give back their values", () => {
    const coded = StringColumn.coded(["a", "b"], Int32Array.from([1, -1, 0, 1]));
    expect([0, 1, 2, 3].map((i) => coded.get(i))).toEqual(["b", null, "a", "b"]);
    const packed = StringColumn.packedFrom(["x", null, "", "yz"]);
    expect([0, 1, 2, 3].map((i) => packed.get(i))).toEqual(["x", null, "", "yz"]);
  });
});

describe("served from the index", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await catalogServer();
  }, 120_000);
  afterAll(() => s?.stop());

  test("single-trip stop_times equal stop_times.parquet, field by field (240 sampled trips of all feeds)", async () => {
    const hms = (t: number | null) => (t == null ? null : `${String(Math.floor(t / 3600)).padStart(2, "0")}:${String(Math.floor((t % 3600) / 60)).padStart(2, "0")}:${String(t % 60).padStart(2, "0")}`);
    const trips = await sql<{ id: number; route_ref: number }>(
      `SELECT id, route_ref FROM read_parquet('${s.dataDir}/versions/*/trips.parquet') ORDER BY hash(id) LIMIT 240`,
    );
    expect(trips.length).toBeGreaterThan(100);
    // (GTFS-Flex stop_times, ctran-flex's, have no stop: stop null; their own fields are checked in flex.test.ts)
    const rows = await sql<any>(
      `SELECT st.trip_ref, st.stop_sequence, s.stop_id, st.arrival_time, st.departure_time, nullif(st.stop_headsign, '') AS stop_headsign,
              st.pickup_type, st.drop_off_type, st.timepoint, st.interpolated
       FROM read_parquet('${s.dataDir}/versions/*/stop_times.parquet') st LEFT JOIN read_parquet('${s.dataDir}/versions/*/stops.parquet') s ON s.id = st.stop_ref
       WHERE st.trip_ref IN (${trips.map((t) => t.id).join(",")}) ORDER BY st.trip_ref, st.stop_sequence`,
    );
    let compared = 0;
    for (const t of trips) {
      const body = await s.json(`/api/v2/rest/routes/${t.route_ref}/trips/${t.id}`);
      const got = body.trips[0].stop_times.map((x: any) => [x.stop_sequence, x.stop?.stop_id ?? null, x.arrival_time, x.departure_time, x.stop_headsign, x.pickup_type, x.drop_off_type, x.timepoint, x.interpolated]);
      const want = rows
        .filter((r: any) => r.trip_ref === t.id)
        .map((r: any) => [r.stop_sequence, r.stop_id, hms(r.arrival_time), hms(r.departure_time), r.stop_headsign, r.pickup_type, r.drop_off_type, r.timepoint, r.interpolated]);
      expect({ trip: t.id, stop_times: got }).toEqual({ trip: t.id, stop_times: want });
      compared += want.length;
    }
    expect(compared).toBeGreaterThan(1000);
  });

  test("OpenAPI: the base paths name their .{format} forms; the dotted path items are ready for the app's documentation", async () => {
    const doc = await s.json("/docs/json");
    const base = ["/api/v2/rest/routes", "/api/v2/rest/routes/{route_key}", "/api/v2/rest/routes/{route_key}/trips", "/api/v2/rest/routes/{route_key}/trips/{id}", "/api/v2/rest/stops", "/api/v2/rest/stops/{stop_key}",
      "/api/v2/rest/feeds", "/api/v2/rest/feeds/{feed_key}", "/api/v2/rest/feed_versions", "/api/v2/rest/feed_versions/{feed_version_key}", "/api/v2/rest/agencies", "/api/v2/rest/agencies/{agency_key}",
      "/api/v2/rest/operators", "/api/v2/rest/operators/{operator_key}"];
    for (const p of base) expect(doc.paths[p].get.description).toContain(`${p}.{format}`);
    const extra = catalogFormatPaths();
    // every .{format} form, and the validation reports' .json / .html paths
    const reports = ["/api/v2/rest/feed_versions/{feed_version_key}/validation.json", "/api/v2/rest/feed_versions/{feed_version_key}/validation.html"];
    expect(Object.keys(extra).sort()).toEqual([...base.map((p) => `${p}.{format}`), ...reports].sort());
    for (const [p, item] of Object.entries(extra)) {
      const pathParams = item.get.parameters.filter((x) => x.in === "path").map((x) => x.name);
      expect(pathParams.sort()).toEqual([...p.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!).sort());
      // once merged into the app's documentation.paths, /docs shows them like the base forms
      if (doc.paths[p]) expect(doc.paths[p].get.summary).toBe(item.get.summary);
    }
  });
});
