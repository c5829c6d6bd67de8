/**
 * FEATURE UNDER TEST: bad feeds. Structural problems reject the feed with an error naming the file
 * (and line); row-level problems skip the row and report it by kind with file and line.
 */
import { describe, expect, test } from "bun:test";
import { cpSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { importFeed } from "../../pipeline/import.ts";
import { readManifest } from "../../pipeline/schema/manifest.ts";
import { gtfs, tempDir } from "../support/dataset.ts";
import { sql } from "../support/duck.ts";

const FIXTURES = resolve(import.meta.dir, "..", "fixtures", "gtfs");

/** The interpolation fixture with its stop_times.txt replaced by `lines` (header included); returns the feed folder. */
function feedWithStopTimes(lines: string[]): string {
  const dir = join(tempDir(), "feed");
  cpSync(join(FIXTURES, "interpolation"), dir, { recursive: true });
  writeFileSync(join(dir, "stop_times.txt"), lines.join("\n") + "\n");
  return dir;
}

describe("rejected feeds", () => {
  test("a corrupt zip is rejected, nothing is activated", async () => {
    const data = tempDir();
    const ok = await importFeed({ dataDir: data, source: gtfs("google-sample-feed") });
    const bytes = await Bun.file(gtfs("caltrain")).bytes();
    const corrupt = join(tempDir(), "corrupt.zip");
    writeFileSync(corrupt, bytes.subarray(0, bytes.length - 5000));
    const before = readManifest(data);
    const r = await importFeed({ dataDir: data, source: corrupt });
    expect(r.status).toBe("rejected");
    expect(r.error!.message).toContain("corrupt.zip");
    expect(r.error!.message).toContain("not a readable zip file");
    expect(readManifest(data)).toEqual(before);
    expect(readManifest(data).feeds.map((f) => f.active)).toEqual([ok.sha1]);
    expect(existsSync(join(data, "reports", `${r.sha1}-rejected.json`))).toBe(true);
  });

  test("a flipped byte inside a member is caught by the checksum", async () => {
    const bytes = new Uint8Array(await Bun.file(gtfs("bart")).bytes());
    bytes[2000] = bytes[2000]! ^ 0xff;
    const p = join(tempDir(), "flipped.zip");
    writeFileSync(p, bytes);
    const r = await importFeed({ dataDir: tempDir(), source: p });
    expect(r.status).toBe("rejected");
    expect(r.error!.message).toMatch(/flipped\.zip: not a readable zip file/);
  });

  test("a member that inflates to more bytes than its directory entry declares is rejected", async () => {
    const bytes = new Uint8Array(await Bun.file(gtfs("bart")).bytes());
    const dv = new DataView(bytes.buffer);
    let eocd = bytes.length - 22;
    while (dv.getUint32(eocd, true) !== 0x06054b50) eocd--;
    let p = dv.getUint32(eocd + 16, true);
    let patched = false;
    for (let i = 0; i < dv.getUint16(eocd + 10, true); i++) {
      const nameLen = dv.getUint16(p + 28, true);
      const name = new TextDecoder().decode(bytes.subarray(p + 46, p + 46 + nameLen));
      if (name.endsWith("stop_times.txt")) {
        dv.setUint32(p + 24, 1000, true); // declared uncompressed size: 1000 bytes
        patched = true;
      }
      p += 46 + nameLen + dv.getUint16(p + 30, true) + dv.getUint16(p + 32, true);
    }
    expect(patched).toBe(true);
    const zip = join(tempDir(), "oversized.zip");
    writeFileSync(zip, bytes);
    const r = await importFeed({ dataDir: tempDir(), source: zip });
    expect(r.status).toBe("rejected");
    expect(r.error!.message).toContain("oversized.zip: not a readable zip file (stop_times.txt: checksum mismatch (corrupt member))");
  });

  test("a missing required file names the file", async () => {
    const r = await importFeed({ dataDir: tempDir(), source: join(FIXTURES, "missing-stops") });
    expect(r.status).toBe("rejected");
    expect(r.error).toMatchObject({ file: "stops.txt", message: "stops.txt: required file is missing" });
  });

  test("a missing required column names the file, the line and the column", async () => {
    const r = await importFeed({ dataDir: tempDir(), source: join(FIXTURES, "missing-column") });
    expect(r.status).toBe("rejected");
    expect(r.error).toMatchObject({ file: "routes.txt", line: 1 });
    expect(r.error!.message).toStartWith('routes.txt:1: required column "route_type" is missing');
  });

  test("an invalid --feed-id is refused before anything is written", async () => {
    const data = tempDir();
    const r = await importFeed({ dataDir: data, source: gtfs("google-sample-feed"), feedId: "Not A Feed" });
    expect(r.status).toBe("rejected");
    expect(r.error!.message).toContain("not a valid Onestop feed id");
    expect(readManifest(data).versions).toEqual([]);
  });
});

describe("skipped rows (broken references and bad values)", () => {
  test("each bad row is skipped and reported by kind with file and line; good rows are kept", async () => {
    const data = tempDir();
    const r = await importFeed({ dataDir: data, source: join(FIXTURES, "broken-refs") });
    expect(r.status).toBe("imported");
    const kinds = Object.fromEntries(Object.entries(r.warnings).map(([k, w]) => [k, w.count]));
    expect(kinds).toEqual({
      csv_unparsable: 1, // stops.txt line 7: too many fields
      duplicate_key: 2, // stop S2 (line 4), trip T1 (line 8)
      invalid_coordinates: 1, // stop S4 without lat/lon
      unknown_agency: 1, // route R2 -> agency ZZ
      invalid_route_type: 1, // route R3 route_type "bus"
      unknown_route: 2, // trips T2 (route R9) and T6 (route R2, itself skipped)
      unknown_service: 1, // trip T3
      unknown_trip: 3, // stop_times of T2 (x2) and T9
      unknown_stop: 1, // T1 -> SX
      invalid_time: 1, // T5 12:7x:00 (interpolated instead)
      decreasing_times: 1, // trip T4
      stop_time_of_skipped_trip: 2, // T4's stop_times
    });
    expect(r.warnings.csv_unparsable!.examples[0]).toMatchObject({ file: "stops.txt", line: 7 });
    expect(r.warnings.duplicate_key!.examples).toEqual([
      { file: "stops.txt", line: 4, message: "duplicate stop_id S2" },
      { file: "trips.txt", line: 8, message: "duplicate trip_id T1" },
    ]);
    expect(r.warnings.unknown_stop!.examples[0]).toEqual({ file: "stop_times.txt", line: 3, message: "trip T1: stop_id SX does not exist" });
    expect(r.warnings.decreasing_times!.examples[0]).toMatchObject({ file: "trips.txt", line: 5 });
    expect(r.warnings.invalid_time!.examples).toEqual([
      { file: "stop_times.txt", line: 10, message: "trip T5 stop_sequence 2: unparsable time 12:7x:00/12:7x:00 (treated as missing and interpolated)" },
    ]);
    expect(r.tables["stops.txt"]).toEqual({ source_rows: 6, imported_rows: 3, skipped_rows: 3 });
    expect(r.tables["trips.txt"]).toEqual({ source_rows: 7, imported_rows: 2, skipped_rows: 5 });
    expect(r.tables["stop_times.txt"]).toEqual({ source_rows: 11, imported_rows: 5, skipped_rows: 6 });
    const v = readManifest(data).versions[0]!;
    const st = await sql<{ trip_id: string; stop_id: string; arrival_time: number; interpolated: number }>(
      `SELECT trip_id, stop_id, arrival_time, interpolated FROM read_parquet('${join(data, v.path, "stop_times.parquet")}') ORDER BY trip_id, stop_sequence`);
    expect(st.map((x) => `${x.trip_id} ${x.stop_id} ${x.arrival_time} ${x.interpolated}`)).toEqual([
      "T1 S1 36000 0", "T1 S3 36600 0", "T5 S1 43200 0", `T5 S2 ${st[3]!.arrival_time} 1`, "T5 S3 44400 0",
    ]);
    expect(st[3]!.arrival_time).toBeGreaterThan(43200);
    expect(st[3]!.arrival_time).toBeLessThan(44400);
  });

  test("a stop_time whose stop_sequence is not a non-negative integer is skipped with its raw value in the message", async () => {
    const dir = feedWithStopTimes([
      "trip_id,arrival_time,departure_time,stop_id,stop_sequence",
      "T3,07:00:00,07:00:00,S1,1",
      "T3,07:05:00,07:05:00,S2,two",
      "T3,07:10:00,07:10:00,S4,3",
    ]);
    const r = await importFeed({ dataDir: tempDir(), source: dir });
    expect(r.status).toBe("imported");
    expect(r.warnings.invalid_stop_sequence!.examples).toEqual([
      { file: "stop_times.txt", line: 3, message: "trip T3: stop_sequence two is not a non-negative integer" },
    ]);
    expect(r.tables["stop_times.txt"]).toEqual({ source_rows: 3, imported_rows: 2, skipped_rows: 1 });
  });

  test("when every trip is skipped, every stop_time is reported as unknown_trip (the stop_times step then joins instead of its ENUM lookups)", async () => {
    const dir = feedWithStopTimes(readFileSync(join(FIXTURES, "interpolation", "stop_times.txt"), "utf8").trimEnd().split("\n"));
    writeFileSync(join(dir, "routes.txt"), "route_id,agency_id,route_short_name,route_long_name,route_type\nZZ,A,1,Line One,3\n");
    const messages: string[] = [];
    const r = await importFeed({ dataDir: tempDir(), source: dir, progress: (m) => messages.push(m) });
    expect(r.status).toBe("imported");
    expect(r.warnings.unknown_route!.count).toBe(3);
    expect(r.warnings.unknown_trip!.count).toBe(10);
    expect(r.warnings.unknown_trip!.examples[0]).toEqual({ file: "stop_times.txt", line: 2, message: "stop_time of trip T1: trip does not exist or was skipped" });
    expect(r.tables["stop_times.txt"]).toEqual({ source_rows: 10, imported_rows: 0, skipped_rows: 10 });
    expect(messages.find((m) => m.includes("stop_times read:"))).toContain("(sorted)");
  });
});

/** The interpolation fixture with trips naming shapes and a shapes.txt (`shapes`: its lines, header included). */
function feedWithShapes(shapes: string[]): string {
  const dir = join(tempDir(), "feed");
  cpSync(join(FIXTURES, "interpolation"), dir, { recursive: true });
  writeFileSync(join(dir, "trips.txt"), ["route_id,service_id,trip_id,trip_headsign,block_id,shape_id", "R1,WK,T1,Fourth,B1,SH1", "R1,WK,T2,Fourth,B1,NOPE", "R1,CD,T3,Fourth,,"].join("\n") + "\n");
  writeFileSync(join(dir, "shapes.txt"), shapes.join("\n") + "\n");
  return dir;
}

describe("shapes (read and checked beside the trips and stop_times)", () => {
  test("invalid and duplicate shape points are skipped and reported with their lines; a trip naming an unknown shape gets a generated one", async () => {
    const data = tempDir();
    const r = await importFeed({
      dataDir: data,
      source: feedWithShapes([
        "shape_id,shape_pt_lat,shape_pt_lon,shape_pt_sequence",
        "SH1,40.0000,-74.0000,1",
        "SH1,40.0100,-74.0000,2",
        "SH1,95.0000,-74.0000,3", // line 4: latitude out of range
        "SH1,40.0100,-74.0010,2", // line 5: second point with sequence 2
        "SH1,40.0400,-74.0000,4",
      ]),
    });
    expect(r.status).toBe("imported");
    expect(r.warnings.invalid_shape_point).toMatchObject({ count: 1, examples: [{ file: "shapes.txt", line: 4 }] });
    expect(r.warnings.duplicate_key).toMatchObject({ count: 1, examples: [{ file: "shapes.txt", line: 5 }] });
    expect(r.warnings.unknown_shape).toMatchObject({ count: 1, examples: [{ file: "trips.txt", line: 3 }] });
    expect(r.tables["shapes.txt"]).toEqual({ source_rows: 5, imported_rows: 3, skipped_rows: 2 });
    const dir = join(data, "versions", r.sha1!);
    const pts = await sql<{ shape_id: string; n: number; generated: boolean }>(
      `SELECT shape_id, count(*)::INTEGER AS n, bool_and(generated) AS generated FROM read_parquet('${dir}/shapes.parquet') GROUP BY shape_id ORDER BY shape_id`);
    expect(pts.find((p) => p.shape_id === "SH1")).toEqual({ shape_id: "SH1", n: 3, generated: false });
    const trips = await sql<{ trip_id: string; shape_id: string }>(`SELECT trip_id, shape_id FROM read_parquet('${dir}/trips.parquet') ORDER BY trip_id`);
    expect(trips[0]).toEqual({ trip_id: "T1", shape_id: "SH1" });
    expect(trips[1]!.shape_id).toStartWith("generated-");
    expect(pts.find((p) => p.shape_id === trips[1]!.shape_id)?.generated).toBe(true);
  });

  test("a shapes.txt without a required column rejects the feed naming it; an earlier file's error comes first", async () => {
    const noLat = ["shape_id,shape_pt_lon,shape_pt_sequence", "SH1,-74.0000,1"];
    const r = await importFeed({ dataDir: tempDir(), source: feedWithShapes(noLat) });
    expect(r.status).toBe("rejected");
    expect(r.error).toMatchObject({ file: "shapes.txt", line: 1 });
    expect(r.error!.message).toStartWith('shapes.txt:1: required column "shape_pt_lat" is missing');
    // routes.txt (missing route_type) comes before shapes.txt in the file order
    const both = join(tempDir(), "feed");
    cpSync(join(FIXTURES, "missing-column"), both, { recursive: true });
    writeFileSync(join(both, "shapes.txt"), noLat.join("\n") + "\n");
    const r2 = await importFeed({ dataDir: tempDir(), source: both });
    expect(r2.status).toBe("rejected");
    expect(r2.error).toMatchObject({ file: "routes.txt", line: 1 });
  });
});

describe("duplicate stop_sequence", () => {
  test("the second stop_time with the same (trip_id, stop_sequence) is skipped as duplicate_key; the trip keeps the first", async () => {
    const dir = feedWithStopTimes([
      "trip_id,arrival_time,departure_time,stop_id,stop_sequence",
      "T3,07:00:00,07:00:00,S1,1",
      "T3,07:05:00,07:05:00,S2,2",
      "T3,07:06:00,07:06:00,S3,2",
      "T3,07:10:00,07:10:00,S4,3",
    ]);
    const data = tempDir();
    const r = await importFeed({ dataDir: data, source: dir });
    expect(r.status).toBe("imported");
    expect(r.warnings.duplicate_key!.examples).toEqual([{ file: "stop_times.txt", line: 4, message: "trip T3: duplicate stop_sequence 2" }]);
    const v = readManifest(data).versions[0]!;
    const st = await sql<{ stop_id: string }>(`SELECT stop_id FROM read_parquet('${join(data, v.path, "stop_times.parquet")}') ORDER BY stop_sequence`);
    expect(st.map((x) => x.stop_id)).toEqual(["S1", "S2", "S4"]);
    const trips = await sql<{ stop_count: number; first_departure: number; last_arrival: number }>(
      `SELECT stop_count, first_departure, last_arrival FROM read_parquet('${join(data, v.path, "trips.parquet")}')`);
    expect(trips).toEqual([{ stop_count: 3, first_departure: 7 * 3600, last_arrival: 7 * 3600 + 600 }]);
  });
});

describe("time values", () => {
  test("only H:MM:SS (1-3 hour digits, minutes and seconds 00-59) is a time; anything else is reported and interpolated", async () => {
    const bad = ["07:05:0x", "-0:05:00", "+7:05:00", "07:5:00", "1e1:00:00", "1000:00:00", "07:05:60"];
    const dir = feedWithStopTimes([
      "trip_id,arrival_time,departure_time,stop_id,stop_sequence",
      "T3,7:00:00,7:00:00,S1,1",
      ...bad.map((t, i) => `T3,${t},${t},S2,${i + 2}`),
      "T3,107:10:00,107:10:00,S4,20",
    ]);
    const data = tempDir();
    const r = await importFeed({ dataDir: data, source: dir });
    expect(r.status).toBe("imported");
    expect(r.warnings.invalid_time!.count).toBe(bad.length);
    const v = readManifest(data).versions[0]!;
    const st = await sql<{ arrival_time: number; interpolated: number }>(
      `SELECT arrival_time, interpolated FROM read_parquet('${join(data, v.path, "stop_times.parquet")}') ORDER BY stop_sequence`);
    expect(st.length).toBe(bad.length + 2);
    expect(st[0]).toEqual({ arrival_time: 7 * 3600, interpolated: 0 });
    expect(st[st.length - 1]).toEqual({ arrival_time: 107 * 3600 + 600, interpolated: 0 });
    expect(st.slice(1, -1).every((x) => x.interpolated === 1 && x.arrival_time > 7 * 3600 && x.arrival_time < 107 * 3600 + 600)).toBe(true);
  });
});

describe("tolerated deviations", () => {
  test("a Latin-1 file is read as Latin-1 with a warning; blank lines, CRLF and a BOM are accepted; routes of a single agency without agency_id resolve", async () => {
    const dir = join(tempDir(), "feed");
    cpSync(join(FIXTURES, "interpolation"), dir, { recursive: true });
    writeFileSync(join(dir, "stops.txt"), Buffer.concat([
      Buffer.from("\ufeffstop_id,stop_name,stop_lat,stop_lon\r\nS1,M"), Buffer.from([0xfc]), Buffer.from("nchen,40.0000,-74.0000\r\n"),
      Buffer.from("S2,Second,40.0090,-74.0000\r\n\r\nS3,Third,40.0270,-74.0000\r\nS4,Fourth,40.0360,-74.0000\r\n"),
    ]));
    writeFileSync(join(dir, "agency.txt"), "agency_name,agency_url,agency_timezone\nSolo Transit,https://example.org,America/New_York\n");
    const data = tempDir();
    const r = await importFeed({ dataDir: data, source: dir });
    expect(r.status).toBe("imported");
    expect(Object.keys(r.warnings)).toEqual(["non_utf8_encoding"]);
    expect(r.tables["stops.txt"]).toEqual({ source_rows: 4, imported_rows: 4, skipped_rows: 0 });
    expect(r.tables["routes.txt"]!.imported_rows).toBe(1);
    const v = readManifest(data).versions[0]!;
    const [s] = await sql<{ stop_name: string }>(`SELECT stop_name FROM read_parquet('${join(data, v.path, "stops.parquet")}') WHERE stop_id = 'S1'`);
    expect(s!.stop_name).toBe("München");
  });
});
