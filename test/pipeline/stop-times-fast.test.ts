/**
 * FEATURE UNDER TEST: the fast reader of stop_times.txt (pipeline/gtfs/stop-times/fast.ts) and its
 * place in the import: it takes a file only in the plain form, gives exactly the values DuckDB's
 * reading gives, declines anything else (the import then reads the file with DuckDB), and reads a
 * file handed over piece by piece (a zip member as it is unpacked) as it reads it whole. On real
 * feeds, an import with it and one without write the same stop_times.parquet (and the same
 * timetable, which on the fast path takes the stop_times from the reader's columns).
 */
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { importFeed } from "../../pipeline/import.ts";
import { NULL_INT, parseStopTimes, readStopTimesOffThread, StopTimesReader, type Declined, type FastStopTimes } from "../../pipeline/gtfs/stop-times/fast.ts";
import { readManifest } from "../../pipeline/schema/manifest.ts";
import { listMembers, unzipAll } from "../../pipeline/zip.ts";
import { gtfs, tempDir } from "../support/dataset.ts";
import { sql } from "../support/duck.ts";

const bytes = (text: string) => new TextEncoder().encode(text);
const parse = (text: string) => parseStopTimes(bytes(text));
const ok = (text: string): FastStopTimes => {
  const r = parse(text);
  if ("declined" in r) throw new Error(`declined: ${r.declined}`);
  return r;
};
const HEADER = "trip_id,arrival_time,departure_time,stop_id,stop_sequence";

describe("fast reader of stop_times.txt", () => {
  test("values: times, integers, decimals, headsigns, empty values as NULL, dictionary codes", () => {
    const r = ok(
      "\uFEFFtrip_id,arrival_time,departure_time,stop_id,stop_sequence,stop_headsign,pickup_type,shape_dist_traveled,note\r\n" +
        "t1,8:00:00,08:00:30,s1,1,Downtown,0,0,x\r\n" +
        "t1,,,s2,02,,,12.5,\r\n" +
        "t1,125:59:59,125:59:59,s1,3,Down town,1,1234.000001,y z\r\n" +
        "t2,00:00:00,00:00:00,s2,0,Downtown,,,", // no final newline
    );
    expect(r.rows).toBe(4);
    expect(r.header).toEqual(["trip_id", "arrival_time", "departure_time", "stop_id", "stop_sequence", "stop_headsign", "pickup_type", "shape_dist_traveled", "note"]);
    expect([...r.trip].map((c) => r.tripIds[c])).toEqual(["t1", "t1", "t1", "t2"]);
    expect([...r.stop].map((c) => r.stopIds[c])).toEqual(["s1", "s2", "s1", "s2"]);
    expect([...r.seq]).toEqual([1, 2, 3, 0]);
    expect([...r.arr]).toEqual([8 * 3600, NULL_INT, 125 * 3600 + 59 * 60 + 59, 0]);
    expect([...r.dep]).toEqual([8 * 3600 + 30, NULL_INT, 125 * 3600 + 59 * 60 + 59, 0]);
    expect([...r.ints.pickup_type!]).toEqual([0, NULL_INT, 1, NULL_INT]);
    expect(r.ints.drop_off_type).toBeUndefined();
    expect([...r.shapeDist!].map((v) => (Number.isNaN(v) ? null : v))).toEqual([0, 12.5, 1234.000001, null]);
    expect([...r.headsign!].map((c) => (c < 0 ? null : r.headsigns![c]))).toEqual(["Downtown", null, "Down town", "Downtown"]);
  });

  test("trip ids: a row's trip_id is compared with the previous row's whole (a prefix is another trip), also as the last field", () => {
    const r = ok("trip_id,arrival_time,departure_time,stop_id,stop_sequence\nT1,1:00:00,1:00:00,s,1\nT1,1:00:00,1:00:00,s,2\nT10,1:00:00,1:00:00,s,1\nT1,1:00:00,1:00:00,s,3\nT,1:00:00,1:00:00,s,1\n");
    expect([...r.trip].map((c) => r.tripIds[c])).toEqual(["T1", "T1", "T10", "T1", "T"]);
    const last = ok("stop_id,arrival_time,departure_time,stop_sequence,trip_id\r\ns,1:00:00,1:00:00,1,T1\r\ns,1:00:00,1:00:00,2,T1\r\ns,1:00:00,1:00:00,1,T10\r\ns,1:00:00,1:00:00,3,T1");
    expect([...last.trip].map((c) => last.tripIds[c])).toEqual(["T1", "T1", "T10", "T1"]);
  });

  test("declines what DuckDB has to decide, saying why", () => {
    const row = (fields: string) => `${HEADER}\nt1,08:00:00,08:00:00,s1,1\n${fields}\n`;
    const declined: [string, string, RegExp][] = [
      ["a quote", row('"t1",08:01:00,08:01:00,s2,2'), /quote/],
      ["a blank line", `${HEADER}\nt1,08:00:00,08:00:00,s1,1\n\nt1,08:01:00,08:01:00,s2,2\n`, /blank line/],
      ["minutes past 59", row("t1,08:61:00,08:61:00,s2,2"), /H:MM:SS/],
      ["a time without seconds", row("t1,08:01,08:01,s2,2"), /H:MM:SS/],
      ["a four-digit hour", row("t1,1000:00:00,1000:00:00,s2,2"), /H:MM:SS/],
      ["a padded time", row("t1, 08:01:00,08:01:00,s2,2"), /field count/],
      ["an empty stop_sequence", row("t1,08:01:00,08:01:00,s2,"), /stop_sequence/],
      ["a negative stop_sequence", row("t1,08:01:00,08:01:00,s2,-2"), /stop_sequence/],
      ["a ten-digit stop_sequence", row("t1,08:01:00,08:01:00,s2,1234567890"), /stop_sequence/],
      ["too few fields", row("t1,08:01:00,08:01:00,s2"), /field count/],
      ["too many fields", row("t1,08:01:00,08:01:00,s2,2,9"), /field count/],
      ["a repeated column", `${HEADER},stop_id\nt1,08:00:00,08:00:00,s1,1,s1\n`, /repeated/],
      ["no stop_id column", "trip_id,arrival_time,departure_time,stop_sequence\nt1,08:00:00,08:00:00,1\n", /no stop_id/],
      ["no rows", `${HEADER}\n`, /no rows/],
    ];
    for (const [name, text, why] of declined) expect(`${name}: ${JSON.stringify(parse(text))}`).toMatch(new RegExp(`^${name}: \\{"declined":".*${why.source}`));
    const latin1 = new Uint8Array([...bytes(`${HEADER}\nt1,08:00:00,08:00:00,s`), 0xe9, ...bytes(",1\n")]);
    expect(parseStopTimes(latin1)).toEqual({ declined: expect.stringMatching(/UTF-8/) });
    // ids are kept as their bytes: a padded one is an id of its own, which the import finds in no table (and declines)
    expect((ok(row("t1 ,08:01:00,08:01:00,s2,2")) as FastStopTimes).tripIds).toEqual(["t1", "t1 "]);
    const flex = "trip_id,arrival_time,departure_time,stop_id,location_id,stop_sequence\nt1,08:00:00,08:00:00,,area1,1\n";
    expect(parse(flex)).toEqual({ declined: expect.stringMatching(/GTFS-Flex/) });
    const decimals: [string, RegExp][] = [["1.", /point/], [".5", /integer digits/], ["1234567890.1234567", /15 digits/], ["1e3", /field count/], ["-1.5", /field count/]];
    for (const [v, why] of decimals) {
      expect(parse(`${HEADER},shape_dist_traveled\nt1,08:00:00,08:00:00,s1,1,${v}\n`)).toEqual({ declined: expect.stringMatching(why) });
    }
    expect(parse(`${HEADER},stop_headsign\nt1,08:00:00,08:00:00,s1,1, Downtown\n`)).toEqual({ declined: expect.stringMatching(/leading or trailing/) });
  });

  test("a file handed over piece by piece reads as the whole file does", async () => {
    const whole = (await unzipAll(new Uint8Array(await Bun.file(gtfs("bart")).bytes()), (n) => n === "stop_times.txt"))["stop_times.txt"]!;
    const expected = parseStopTimes(whole) as FastStopTimes;
    expect(expected.rows).toBeGreaterThan(30_000);
    for (const piece of [1, 7, 4096, 65_537, 1 << 20]) {
      const buf = new Uint8Array(whole.length);
      const reader = new StopTimesReader(buf);
      for (let at = 0; at < whole.length; at += piece) {
        const end = Math.min(whole.length, at + piece);
        buf.set(whole.subarray(at, end), at);
        reader.advance(end);
        if (piece === 1 && at > 5000) {
          // the rest at once (a byte at a time over the whole file is slow, and the start is what matters)
          buf.set(whole.subarray(end), end);
          reader.advance(whole.length);
          break;
        }
      }
      const got = reader.finish() as FastStopTimes;
      const plain = (r: FastStopTimes) => JSON.stringify(r, (_, v) => (ArrayBuffer.isView(v) ? Array.from(v as Int32Array) : v));
      expect(`${piece}: ${plain(got)}`).toBe(`${piece}: ${plain(expected)}`);
    }
  });

  test("a file pushed a piece at a time, never whole in memory, reads as the whole file does; so does a large zip member in the worker", async () => {
    const zip = new Uint8Array(await Bun.file(gtfs("bart")).bytes());
    const whole = (await unzipAll(zip, (n) => n === "stop_times.txt"))["stop_times.txt"]!;
    const plain = (r: FastStopTimes | Declined) => JSON.stringify(r, (_, v) => (ArrayBuffer.isView(v) ? Array.from(v as Int32Array) : v));
    const expected = plain(parseStopTimes(whole));
    for (const piece of [1, 7, 4096, 65_537, 1 << 20]) {
      // (a small first buffer: lines read are dropped, and the buffer grows when a piece needs it)
      const reader = new StopTimesReader(new Uint8Array(16), whole.length);
      for (let at = 0; at < whole.length; at += piece) {
        reader.push(whole.subarray(at, Math.min(whole.length, at + piece)));
        if (piece === 1 && at > 5000) {
          reader.push(whole.subarray(at + 1));
          break;
        }
      }
      expect(`${piece}: ${plain(reader.finish())}`).toBe(`${piece}: ${expected}`);
    }
    // a last line without its newline, and a declined file, read in pieces
    const tail = (text: string) => {
      const reader = new StopTimesReader(new Uint8Array(4), text.length);
      for (let at = 0; at < text.length; at += 3) reader.push(bytes(text.slice(at, at + 3)));
      return plain(reader.finish());
    };
    expect(tail(`${HEADER}\nt1,08:00:00,08:00:00,s1,1\nt1,08:05:00,08:05:00,s2,2`)).toBe(plain(parse(`${HEADER}\nt1,08:00:00,08:00:00,s1,1\nt1,08:05:00,08:05:00,s2,2`)));
    expect(tail(`${HEADER}\nt1,08:00:00,08:00:00,s1,1\nt1,08:05:0`)).toBe(plain(parse(`${HEADER}\nt1,08:00:00,08:00:00,s1,1\nt1,08:05:0`)));
    expect(tail(`${HEADER}\nt1,08:00:00,08:00:00,"s1",1\n`)).toBe(plain({ declined: "a quote" }));
    // the worker, told that this member is large: unpacked and read a piece at a time, no bytes kept
    const member = listMembers(zip)!.find((m) => m.name === "stop_times.txt")!;
    const off = readStopTimesOffThread({ member, path: join(tempDir(), "stop_times.txt"), wholeLimit: 0 });
    await off.unpacked.result();
    expect(plain(await off.take())).toBe(expected);
    // a damaged member is refused as the whole-member path refuses it
    const damaged = { ...member, crc: (member.crc + 1) >>> 0 };
    const bad = readStopTimesOffThread({ member: damaged, path: join(tempDir(), "stop_times.txt"), wholeLimit: 0 });
    await expect(bad.unpacked.result()).rejects.toThrow(/corrupt member/);
    bad.cancel();
  });

  test("columns refused after the read (a trip the feed lacks): the member is unpacked again for DuckDB, as without the fast reader", async () => {
    // BART with one more stop_time, of a trip trips.txt does not have: the fast reader reads the file,
    // the import refuses its columns, and DuckDB reads the member, which the reader did not keep
    const files = await unzipAll(new Uint8Array(await Bun.file(gtfs("bart")).bytes()), (n) => n.endsWith(".txt"));
    const st = new TextDecoder().decode(files["stop_times.txt"]!);
    const header = st.slice(0, st.indexOf("\n")).replace(/\r$/, "").split(",");
    const row = header.map((c) => ({ trip_id: "no-such-trip", stop_id: header.includes("stop_id") ? st.split("\n")[1]!.split(",")[header.indexOf("stop_id")] : "", arrival_time: "08:00:00", departure_time: "08:00:00", stop_sequence: "1" })[c] ?? "");
    files["stop_times.txt"] = bytes(`${st.replace(/\n?$/, "\n")}${row.join(",")}\n`);
    const { zipSync } = await import("fflate");
    const zip = join(tempDir(), "bart-extra.zip");
    writeFileSync(zip, zipSync(files));
    const counts: string[] = [];
    for (const fastReader of [true, false]) {
      const data = tempDir();
      const log: string[] = [];
      const r = await importFeed({ dataDir: data, source: zip, fastReader, now: () => new Date("2024-07-01T12:00:00Z"), progress: (m) => log.push(m) });
      expect(r.status).toBe("imported");
      if (fastReader) expect(log.some((m) => m.includes("the fast reader declined: trip_id no-such-trip is not a trip"))).toBe(true);
      const [c] = await sql<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM read_parquet('${join(data, readManifest(data).versions[0]!.path)}/stop_times.parquet')`);
      counts.push(`${c!.n} rows, ${JSON.stringify(r.tables["stop_times.txt"])}`);
    }
    expect(counts[0]).toBe(counts[1]!);
    expect(counts[0]).toContain('"skipped_rows":1');
  });

  test("real feeds: an import with the fast reader writes what an import without it writes", async () => {
    for (const feed of ["bart", "caltrain", "hart", "rnv", "terre-haute", "vvs-bus-752", "emery-go-round", "amtrak"]) {
      const out: string[] = [];
      const paths: string[] = [];
      const timetables: string[] = [];
      for (const fastReader of [true, false]) {
        const data = tempDir();
        const log: string[] = [];
        // (the timetable prepared with the import: on the fast path it takes the stop_times from the reader's columns)
        const r = await importFeed({ dataDir: data, source: gtfs(feed), fastReader, prepareTimetable: true, now: () => new Date("2024-07-01T12:00:00Z"), progress: (m) => log.push(m) });
        expect(`${feed}: ${r.status}`).toBe(`${feed}: imported`);
        out.push(log.find((m) => m.includes("stop_times read:"))!);
        paths.push(join(data, readManifest(data).versions[0]!.path));
        const tt = readdirSync(join(data, "timetables")).filter((f) => f.endsWith(".arrow"));
        expect(`${feed}: ${tt.length} timetable`).toBe(`${feed}: 1 timetable`);
        timetables.push(createHash("sha1").update(readFileSync(join(data, "timetables", tt[0]!))).digest("hex"));
      }
      expect(`${feed}: ${out[1]!.includes(", fast)")}`).toBe(`${feed}: false`);
      expect(`${feed} timetable: ${timetables[0]}`).toBe(`${feed} timetable: ${timetables[1]}`);
      for (const table of ["stop_times", "trips", "stop_patterns", "shapes"]) {
        const [d] = await sql<{ a: number; b: number }>(`SELECT
          (SELECT count(*)::INTEGER FROM (SELECT * FROM read_parquet('${paths[0]}/${table}.parquet') EXCEPT ALL SELECT * FROM read_parquet('${paths[1]}/${table}.parquet'))) AS a,
          (SELECT count(*)::INTEGER FROM (SELECT * FROM read_parquet('${paths[1]}/${table}.parquet') EXCEPT ALL SELECT * FROM read_parquet('${paths[0]}/${table}.parquet'))) AS b`);
        expect(`${feed} ${table}: ${JSON.stringify(d)}`).toBe(`${feed} ${table}: {"a":0,"b":0}`);
      }
      // the ones in plain form go through the fast reader
      if (["bart", "caltrain", "hart", "amtrak"].includes(feed)) expect(`${feed}: ${out[0]}`).toContain(", fast)");
    }
  });

  test("a file not in trip order is sorted by the fast path as DuckDB sorts it, each row keeping its line", async () => {
    const files = await unzipAll(new Uint8Array(await Bun.file(gtfs("bart")).bytes()), (n) => n.endsWith(".txt"));
    const [header, ...rows] = new TextDecoder().decode(files["stop_times.txt"]).trimEnd().split(/\r?\n/);
    // every row reversed (trips interleaved, stop_sequences descending), then the same with one row
    // repeated at the end (a duplicate stop_sequence, reported with its own line)
    const variants = { reversed: [...rows].reverse(), "reversed with a duplicate": [...rows].reverse().concat(rows[5]!) };
    for (const [name, lines] of Object.entries(variants)) {
      const dir = tempDir();
      for (const [f, b] of Object.entries(files)) writeFileSync(join(dir, f), f === "stop_times.txt" ? [header, ...lines].join("\n") + "\n" : b);
      const got: { log: string; warnings: string; path: string }[] = [];
      for (const fastReader of [true, false]) {
        const data = tempDir();
        const log: string[] = [];
        const r = await importFeed({ dataDir: data, source: dir, fastReader, prepareTimetable: true, now: () => new Date("2024-07-01T12:00:00Z"), progress: (m) => log.push(m) });
        expect(`${name}: ${r.status} ${r.error?.message ?? ""}`).toBe(`${name}: imported `);
        got.push({ log: log.find((m) => m.includes("stop_times read:"))!, warnings: JSON.stringify(r.warnings), path: join(data, readManifest(data).versions[0]!.path) });
      }
      expect(`${name}: ${got[0]!.log}`).toContain("(sorted, fast)");
      expect(`${name}: ${got[0]!.warnings}`).toBe(`${name}: ${got[1]!.warnings}`);
      if (name.includes("duplicate")) expect(got[0]!.warnings).toContain(`"line":${lines.length + 1}`);
      for (const table of ["stop_times", "trips", "stop_patterns"]) {
        const [d] = await sql<{ a: number; b: number }>(`SELECT
          (SELECT count(*)::INTEGER FROM (SELECT * FROM read_parquet('${got[0]!.path}/${table}.parquet') EXCEPT ALL SELECT * FROM read_parquet('${got[1]!.path}/${table}.parquet'))) AS a,
          (SELECT count(*)::INTEGER FROM (SELECT * FROM read_parquet('${got[1]!.path}/${table}.parquet') EXCEPT ALL SELECT * FROM read_parquet('${got[0]!.path}/${table}.parquet'))) AS b`);
        expect(`${name} ${table}: ${JSON.stringify(d)}`).toBe(`${name} ${table}: {"a":0,"b":0}`);
      }
    }
  });
});
