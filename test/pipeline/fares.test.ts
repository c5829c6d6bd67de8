/**
 * FEATURE UNDER TEST: the fare tables of the Parquet catalog (GTFS Fares v1 fare_attributes and
 * fare_rules; Fares v2 fare_products, fare_leg_rules, fare_transfer_rules, fare_media,
 * rider_categories, areas, stop_areas, networks, route_networks, timeframes): on real feeds each
 * table equals its file row for row (read back with DuckDB, the files read by the test's own zip and
 * CSV reader); a feed without fare files has the tables, empty; bad fare rows are skipped and
 * reported like other tables' (README "Bad feeds").
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { importFeed } from "../../pipeline/import.ts";
import { readManifest } from "../../pipeline/schema/manifest.ts";
import { gtfs, tempDir } from "../support/dataset.ts";
import { sql } from "../support/duck.ts";
import { readRawGtfs, type Row } from "../support/raw-gtfs.ts";
import { FARE_TIMETABLE_TABLES } from "../../pipeline/schema/timetable.ts";
import { compileTimetable } from "../../pipeline/timetable/compile.ts";
import { tablesToIpc } from "../../pipeline/timetable/arrow-io.ts";
import { loadTimetable } from "../../server/planner/timetable/arrow-loader.ts";
import { fareOf } from "../../server/planner/fares.ts";

const FARE_TABLES = ["fare_attributes", "fare_rules", "fare_media", "rider_categories", "fare_products", "areas", "stop_areas", "networks", "route_networks", "timeframes", "fare_leg_rules", "fare_transfer_rules"];

/** Import one feed into a fresh data dir; its version folder and report. */
async function imported(source: string) {
  const data = tempDir("interchange-fares-");
  const report = await importFeed({ dataDir: data, source });
  expect(report.error).toBeUndefined();
  const v = readManifest(data).versions.find((x) => x.sha1 === report.sha1)!;
  const dir = join(data, v.path);
  const rowsOf = <T = Record<string, unknown>>(table: string, cols: string, where = "true") => sql<T>(`SELECT ${cols} FROM read_parquet('${join(dir, `${table}.parquet`)}') WHERE ${where}`);
  return { report, dir, rowsOf };
}

const orNull = (v: string | undefined) => (v === undefined || v === "" ? null : v);
const numOrNull = (v: string | undefined) => (v === undefined || v === "" ? null : Number(v));

/** A file's rows projected on `cols` the way the catalog stores them (empty → null, `nums` as numbers). */
function expected(rows: Row[], cols: string[], nums: string[] = []): Record<string, unknown>[] {
  return rows.map((r) => Object.fromEntries(cols.map((c) => [c, nums.includes(c) ? numOrNull(r[c]) : orNull(r[c])])));
}

describe("fare tables of the catalog", () => {
  for (const name of ["bart", "caltrain", "caltrain-2017", "trimet-2routes", "hart", "google-sample-feed", "yamanashi"]) {
    test(`${name}: fare_attributes and fare_rules equal the files`, async () => {
      const raw = readRawGtfs(gtfs(name));
      const { report, rowsOf } = await imported(gtfs(name));
      const fa = raw.get("fare_attributes.txt")!;
      const fr = raw.get("fare_rules.txt") ?? [];
      expect(report.tables["fare_attributes.txt"]).toEqual({ source_rows: fa.length, imported_rows: fa.length, skipped_rows: 0 });
      expect(report.tables["fare_rules.txt"]).toEqual({ source_rows: fr.length, imported_rows: fr.length, skipped_rows: 0 });
      const attrs = await rowsOf("fare_attributes", "fare_id, price, currency_type, payment_method, transfers, agency_id, transfer_duration");
      expect(attrs).toEqual(
        fa.map((r) => ({
          fare_id: r.fare_id, price: Number(r.price), currency_type: r.currency_type!.toUpperCase(), payment_method: numOrNull(r.payment_method),
          transfers: numOrNull(r.transfers), agency_id: orNull(r.agency_id), transfer_duration: numOrNull(r.transfer_duration),
        })),
      );
      expect(await rowsOf("fare_rules", "fare_id, route_id, origin_id, destination_id, contains_id")).toEqual(expected(fr, ["fare_id", "route_id", "origin_id", "destination_id", "contains_id"]));
      // every rule with a route points at it
      expect(await rowsOf("fare_rules", "count(*)::INTEGER AS n", "route_id IS NOT NULL AND route_ref IS NULL")).toEqual([{ n: 0 }]);
      // no Fares v2 files: the v2 tables exist, empty (every version has every table)
      for (const t of ["fare_products", "fare_leg_rules", "fare_transfer_rules", "areas", "stop_areas", "networks", "route_networks", "timeframes"]) {
        expect(await rowsOf(t, "count(*)::INTEGER AS n")).toEqual([{ n: 0 }]);
      }
    });
  }

  test("ctran-flex (GTFS Fares v2): fare_products, fare_leg_rules, fare_transfer_rules, fare_media, rider_categories equal the files", async () => {
    const raw = readRawGtfs(gtfs("ctran-flex"));
    const { report, dir, rowsOf } = await imported(gtfs("ctran-flex"));
    for (const f of ["fare_products", "fare_leg_rules", "fare_transfer_rules", "fare_media", "rider_categories"]) {
      const n = raw.get(`${f}.txt`)!.length;
      expect(report.tables[`${f}.txt`]).toEqual({ source_rows: n, imported_rows: n, skipped_rows: 0 });
    }
    expect(await rowsOf("fare_products", "fare_product_id, fare_product_name, rider_category_id, fare_media_id, amount, currency")).toEqual(
      expected(raw.get("fare_products.txt")!, ["fare_product_id", "fare_product_name", "rider_category_id", "fare_media_id", "amount", "currency"], ["amount"]),
    );
    const legCols = ["leg_group_id", "network_id", "from_area_id", "to_area_id", "from_timeframe_group_id", "to_timeframe_group_id", "fare_product_id", "rule_priority"];
    expect(await rowsOf("fare_leg_rules", legCols.join(", "))).toEqual(expected(raw.get("fare_leg_rules.txt")!, legCols, ["rule_priority"]));
    const trCols = ["from_leg_group_id", "to_leg_group_id", "transfer_count", "duration_limit", "duration_limit_type", "fare_transfer_type", "fare_product_id"];
    expect(await rowsOf("fare_transfer_rules", trCols.join(", "))).toEqual(
      expected(raw.get("fare_transfer_rules.txt")!, trCols, ["transfer_count", "duration_limit", "duration_limit_type", "fare_transfer_type"]),
    );
    expect(await rowsOf("fare_media", "fare_media_id, fare_media_name, fare_media_type")).toEqual(expected(raw.get("fare_media.txt")!, ["fare_media_id", "fare_media_name", "fare_media_type"], ["fare_media_type"]));
    expect(await rowsOf("rider_categories", "rider_category_id, rider_category_name, is_default_fare_category, eligibility_url")).toEqual(
      expected(raw.get("rider_categories.txt")!, ["rider_category_id", "rider_category_name", "is_default_fare_category", "eligibility_url"], ["is_default_fare_category"]),
    );
    // the catalog has every fare table, and a feed without v1 files has them empty
    for (const t of FARE_TABLES) expect(existsSync(join(dir, `${t}.parquet`))).toBe(true);
    expect(await rowsOf("fare_attributes", "count(*)::INTEGER AS n")).toEqual([{ n: 0 }]);
    // the manifest counts them
    expect(readManifest(join(dir, "..", "..")).versions[0]!.counts.fare_products).toBe(14);
  });

  test("bad fare rows are skipped and reported; the rest imported (README 'Bad feeds')", async () => {
    const dir = join(tempDir(), "feed");
    mkdirSync(dir, { recursive: true });
    const files: Record<string, string[]> = {
      "agency.txt": ["agency_id,agency_name,agency_url,agency_timezone", "A,Agency A,https://a.example,America/Los_Angeles", "B,Agency B,https://b.example,America/Los_Angeles"],
      "stops.txt": ["stop_id,stop_name,stop_lat,stop_lon,zone_id,parent_station,location_type", "S1,One,37.0,-122.0,Z1,ST,0", "S2,Two,37.01,-122.0,Z2,,0", "ST,Station,37.0,-122.0,,,1"],
      "routes.txt": ["route_id,agency_id,route_type,route_short_name,network_id", "R1,A,3,1,bus", "R2,B,3,2,"],
      "calendar.txt": ["service_id,monday,tuesday,wednesday,thursday,friday,saturday,sunday,start_date,end_date", "WK,1,1,1,1,1,0,0,20260101,20261231"],
      "trips.txt": ["trip_id,route_id,service_id", "T1,R1,WK", "T2,R2,WK"],
      "stop_times.txt": ["trip_id,stop_sequence,stop_id,arrival_time,departure_time", "T1,1,S1,08:00:00,08:00:00", "T1,2,S2,08:10:00,08:10:00", "T2,1,S2,08:20:00,08:20:00", "T2,2,S1,08:30:00,08:30:00"],
      "fare_attributes.txt": [
        "fare_id,price,currency_type,payment_method,transfers,agency_id,transfer_duration",
        "ok,2.50,usd,0,,A,7200", // kept: currency upper-cased
        "ok,3.00,USD,0,,A,", // duplicate_key
        "cheap,-1,USD,0,0,A,", // invalid_fare_attribute: price
        "yen,abc,JPY,0,0,A,", // invalid_fare_attribute: price
        "eur,1.5,EURO,0,0,A,", // invalid_fare_attribute: currency
        "tr,1.5,USD,0,5,A,", // invalid_fare_attribute: transfers
        "td,1.5,USD,0,1,A,1h", // invalid_fare_attribute: transfer_duration
        "other,1.5,USD,0,1,C,", // unknown_agency
        "b,1.25,USD,0,1,B,",
      ],
      "fare_rules.txt": ["fare_id,route_id,origin_id,destination_id,contains_id", "ok,R1,Z1,Z2,", "b,R2,,,", "gone,R1,,,", "cheap,,,,", "ok,R9,,,"],
      "fare_products.txt": [
        "fare_product_id,fare_product_name,rider_category_id,fare_media_id,amount,currency",
        "P,Single,ADULT,CASH,1.25,USD", "P,Single,ADULT,CASH,1.50,USD", "Q,Bad,ADULT,CASH,lots,USD", "R,Unknown category,SENIOR,CASH,1.00,USD", "S,Neg,ADULT,,-0.50,usd",
      ],
      "rider_categories.txt": ["rider_category_id,rider_category_name,is_default_fare_category", "ADULT,Adult,1"],
      "fare_media.txt": ["fare_media_id,fare_media_name,fare_media_type", "CASH,Cash,0"],
      "areas.txt": ["area_id,area_name", "north,North"],
      "stop_areas.txt": ["area_id,stop_id", "north,ST", "south,S1", "north,S9"],
      "networks.txt": ["network_id,network_name", "rail,Rail"],
      "route_networks.txt": ["network_id,route_id", "rail,R2", "tram,R1"],
      "timeframes.txt": ["timeframe_group_id,start_time,end_time,service_id", "peak,07:00:00,09:00:00,WK", "bad,07:00:00,,WK", "nosvc,00:00:00,24:00:00,XX"],
      "fare_leg_rules.txt": [
        "leg_group_id,network_id,from_area_id,to_area_id,fare_product_id,from_timeframe_group_id",
        "L,bus,north,,P,", "L,rail,,,P,peak", "L,bus,,,Z,", "L,metro,,,P,", "L,,east,,P,", "L,,,,P,never",
      ],
      "fare_transfer_rules.txt": [
        "from_leg_group_id,to_leg_group_id,transfer_count,duration_limit,duration_limit_type,fare_transfer_type,fare_product_id",
        "L,L,-1,5400,1,0,", "L,L,-1,5400,1,3,", "L,L,0,,,0,", "L,L,1,90,,0,", "L,L,1,,,0,Z",
      ],
    };
    for (const [f, lines] of Object.entries(files)) writeFileSync(join(dir, f), lines.join("\n") + "\n");
    const { report, rowsOf } = await imported(dir);
    expect(report.status).toBe("imported");
    const tables = Object.fromEntries(FARE_TABLES.map((t) => [`${t}.txt`, report.tables[`${t}.txt`]]));
    expect(tables).toEqual({
      "fare_attributes.txt": { source_rows: 9, imported_rows: 2, skipped_rows: 7 },
      "fare_rules.txt": { source_rows: 5, imported_rows: 2, skipped_rows: 3 },
      "fare_media.txt": { source_rows: 1, imported_rows: 1, skipped_rows: 0 },
      "rider_categories.txt": { source_rows: 1, imported_rows: 1, skipped_rows: 0 },
      "fare_products.txt": { source_rows: 5, imported_rows: 2, skipped_rows: 3 },
      "areas.txt": { source_rows: 1, imported_rows: 1, skipped_rows: 0 },
      "stop_areas.txt": { source_rows: 3, imported_rows: 1, skipped_rows: 2 },
      "networks.txt": { source_rows: 1, imported_rows: 1, skipped_rows: 0 },
      "route_networks.txt": { source_rows: 2, imported_rows: 1, skipped_rows: 1 },
      "timeframes.txt": { source_rows: 3, imported_rows: 1, skipped_rows: 2 },
      "fare_leg_rules.txt": { source_rows: 6, imported_rows: 2, skipped_rows: 4 },
      "fare_transfer_rules.txt": { source_rows: 5, imported_rows: 1, skipped_rows: 4 },
    });
    const w = report.warnings;
    expect(w.invalid_fare_attribute!.examples.map((e) => [e.line, e.message])).toEqual([
      [4, "fare cheap: price -1 is not a non-negative amount"],
      [5, "fare yen: price abc is not a non-negative amount"],
      [6, "fare eur: currency_type EURO is not an ISO 4217 code"],
      [7, "fare tr: transfers 5 is not 0, 1, 2 or empty"],
      [8, "fare td: transfer_duration 1h is not a number of seconds"],
    ]);
    expect(w.duplicate_key!.examples.filter((e) => e.file.startsWith("fare")).map((e) => [e.file, e.line])).toEqual([["fare_attributes.txt", 3], ["fare_products.txt", 3]]);
    expect(w.unknown_agency!.examples).toEqual([{ file: "fare_attributes.txt", line: 9, message: "fare other: agency_id C does not exist" }]);
    expect(w.unknown_fare!.examples.map((e) => e.line)).toEqual([4, 5]);
    expect(w.unknown_route!.examples).toEqual([{ file: "fare_rules.txt", line: 6, message: "fare ok: route_id R9 does not exist" }]);
    expect(w.invalid_fare_product!.examples.map((e) => e.line)).toEqual([4]);
    expect(w.unknown_rider_category!.examples.map((e) => e.line)).toEqual([5]);
    expect(w.unknown_area!.examples.map((e) => [e.file, e.line])).toEqual([["stop_areas.txt", 3], ["fare_leg_rules.txt", 6]]);
    expect(w.unknown_stop!.examples.map((e) => [e.file, e.line])).toEqual([["stop_areas.txt", 4]]);
    expect(w.unknown_network!.examples.map((e) => [e.file, e.line])).toEqual([["route_networks.txt", 3], ["fare_leg_rules.txt", 5]]);
    expect(w.invalid_timeframe!.examples.map((e) => e.line)).toEqual([3]);
    expect(w.unknown_service!.examples.map((e) => [e.file, e.line])).toEqual([["timeframes.txt", 4]]);
    expect(w.unknown_fare_product!.examples.map((e) => [e.file, e.line])).toEqual([["fare_leg_rules.txt", 4], ["fare_transfer_rules.txt", 6]]);
    expect(w.unknown_timeframe!.examples.map((e) => e.line)).toEqual([7]);
    expect(w.invalid_fare_transfer_rule!.examples.map((e) => e.line)).toEqual([3, 4, 5]);

    expect(await rowsOf("fare_attributes", "fare_id, price, currency_type, transfers, agency_id, agency_ref IS NOT NULL AS has_agency, transfer_duration")).toEqual([
      { fare_id: "ok", price: 2.5, currency_type: "USD", transfers: null, agency_id: "A", has_agency: true, transfer_duration: 7200 },
      { fare_id: "b", price: 1.25, currency_type: "USD", transfers: 1, agency_id: "B", has_agency: true, transfer_duration: null },
    ]);
    expect(await rowsOf("fare_rules", "fare_id, route_id, route_ref IS NOT NULL AS has_route, origin_id, destination_id, contains_id")).toEqual([
      { fare_id: "ok", route_id: "R1", has_route: true, origin_id: "Z1", destination_id: "Z2", contains_id: null },
      { fare_id: "b", route_id: "R2", has_route: true, origin_id: null, destination_id: null, contains_id: null },
    ]);
    expect(await rowsOf("fare_products", "fare_product_id, amount, currency")).toEqual([
      { fare_product_id: "P", amount: 1.25, currency: "USD" },
      { fare_product_id: "S", amount: -0.5, currency: "USD" },
    ]);
    expect(await rowsOf("fare_leg_rules", "network_id, from_area_id, from_timeframe_group_id")).toEqual([
      { network_id: "bus", from_area_id: "north", from_timeframe_group_id: null },
      { network_id: "rail", from_area_id: null, from_timeframe_group_id: "peak" },
    ]);
    expect(await rowsOf("timeframes", "timeframe_group_id, start_time, end_time")).toEqual([{ timeframe_group_id: "peak", start_time: 7 * 3600, end_time: 9 * 3600 }]);
    expect(await rowsOf("stop_areas", "area_id, stop_id")).toEqual([{ area_id: "north", stop_id: "ST" }]);
    expect(await rowsOf("route_networks", "network_id, route_id")).toEqual([{ network_id: "rail", route_id: "R2" }]);
    // every skipped row is under one warning kind (the import report's rule)
    const skipped = Object.values(report.tables).reduce((s, t) => s + t.skipped_rows, 0);
    const warned = Object.entries(w).filter(([k]) => k !== "derived_feed_id_taken").reduce((s, [, x]) => s + x.count, 0);
    expect(warned).toBe(skipped);
  });

  test("a version imported before the fare tables existed compiles without fares; a timetable file without fare tables loads without fares", async () => {
    const data = tempDir("interchange-fares-old-");
    for (const f of ["caltrain", "bart"]) expect((await importFeed({ dataDir: data, source: gtfs(f) })).status).toBe("imported");
    const m = readManifest(data);
    const old = join(data, m.versions[0]!.path);
    for (const f of readdirSync(old)) if (FARE_TABLES.some((t) => f === `${t}.parquet`)) rmSync(join(old, f));
    rmSync(join(data, "timetables"), { recursive: true, force: true });
    const { path } = await compileTimetable(data);
    const bytes = new Uint8Array(readFileSync(join(data, path)));
    const tt = loadTimetable(bytes);
    expect(tt.meta.feeds.map((f) => f.onestopId)).toEqual(["f-9q9-caltrain", "f-9q9-bayarearapidtransit"]);
    expect(Array.from(tt.meta.fares.fare_feeds.system)).toEqual([0, 1]); // Caltrain: none; BART: Fares v1
    expect(tt.meta.fares.fare_attributes.fare_id.length).toBe(170);
    // the same timetable without its fare tables (an older layout): no fares at all
    const { DataType, RecordBatchReader, Table } = await import("apache-arrow");
    const kept: Record<string, Record<string, unknown>> = {};
    for (const reader of RecordBatchReader.readAll(bytes)) {
      const name = reader.schema.metadata.get("table")!;
      const t = new Table(reader.schema, [...reader]); // (each stream read to its end before the next)
      if (name in FARE_TIMETABLE_TABLES) continue;
      kept[name] = Object.fromEntries(t.schema.fields.map((f) => {
        const v = t.getChild(f.name)!;
        return [f.name, DataType.isUtf8(f.type) ? Array.from(v as Iterable<unknown>, (x) => String(x ?? "")) : v.toArray()];
      }));
    }
    const bare = loadTimetable(tablesToIpc(kept as never));
    for (const [t, cols] of Object.entries(bare.meta.fares)) for (const [c, v] of Object.entries(cols)) expect(`${t}.${c}: ${(v as { length: number }).length}`).toBe(`${t}.${c}: 0`);
    const r = tt.core.routeStopStart;
    expect(fareOf(bare.meta, [{ route: bare.meta.routeGtfsRoute[0]!, stops: bare.core.routeStops.subarray(r[0]!, r[1]!), startSec: 0, endSec: 600 }])).toBeNull();
  });
});
