/**
 * A feed whose feed_info.txt dates disagree with its calendars (test/fixtures/gtfs/feed-info-early:
 * feed_info 2020-03-23..2020-06-12, calendars 2021-07-26..2021-10-01, as a real feed had them):
 * the import warns with both ranges; the catalog keeps Transitland's rule (the service window is
 * feed_info's) but use_service_window's best week is one that has service, also when the
 * feed_info window holds calendars no trip uses.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { appendFileSync, cpSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { importFeed } from "../../pipeline/import.ts";
import type { ImportReport } from "../../pipeline/report.ts";
import { readManifest } from "../../pipeline/schema/manifest.ts";
import { tempDir } from "../support/dataset.ts";
import { sql } from "../support/duck.ts";
import { allPages, catalogServer, type TestServer } from "./harness.ts";

const FIXTURE = resolve(import.meta.dir, "..", "fixtures", "gtfs", "feed-info-early");

/** the fixture, changed by `edit`, in a folder of its own */
function variant(edit: (dir: string) => void): string {
  const dir = join(tempDir("interchange-feed-dates-"), "gtfs");
  cpSync(FIXTURE, dir, { recursive: true });
  edit(dir);
  return dir;
}

/** the report of the dataset's one import */
function importReport(dataDir: string): ImportReport {
  const files = readdirSync(join(dataDir, "reports")).filter((f) => f.endsWith("-imported.json"));
  expect(files).toHaveLength(1);
  return JSON.parse(readFileSync(join(dataDir, "reports", files[0]!), "utf8")) as ImportReport;
}

async function versionDates(dataDir: string) {
  const [fv] = await sql<{ ss: string; se: string; ec: string; lc: string; bw: string }>(
    `SELECT service_start_date::VARCHAR AS ss, service_end_date::VARCHAR AS se, earliest_calendar_date::VARCHAR AS ec,
            latest_calendar_date::VARCHAR AS lc, best_week_start::VARCHAR AS bw FROM read_parquet('${dataDir}/versions/*/feed_version.parquet')`,
  );
  return fv!;
}

let early: TestServer;
/** the fixture plus a calendar.txt service that no trip uses, inside feed_info's window */
let unused: TestServer;
beforeAll(async () => {
  early = await catalogServer("feed-info-early", [FIXTURE]);
  unused = await catalogServer("feed-info-early-unused-calendar", [variant((d) => appendFileSync(join(d, "calendar.txt"), "OLD,1,1,1,1,1,1,1,20200401,20200430\n"))]);
}, 120_000);
afterAll(() => {
  early?.stop();
  unused?.stop();
});

/** trip_ids of route R1 (the dataset's one feed) for a query */
const tripIds = async (s: TestServer, query: string) => {
  const feed = readManifest(s.dataDir).feeds[0]!.onestop_id;
  return (await allPages(s, `/api/v2/rest/routes/${encodeURIComponent(`${feed}:R1`)}/trips?limit=100${query}`, "trips")).rows.map((t: any) => t.trip_id).sort();
};

describe("feed_info dates a year before the calendars", () => {
  test("the import warns: the kind, feed_info's range and the calendars'", () => {
    const r = importReport(early.dataDir);
    expect(r.status).toBe("imported");
    const w = r.warnings.feed_info_dates_outside_calendars;
    expect(w?.count).toBe(1);
    expect(w!.examples[0]!.file).toBe("feed_info.txt");
    expect(w!.examples[0]!.message).toContain("(2020-03-23..2020-06-12)");
    expect(w!.examples[0]!.message).toContain("(2021-07-26..2021-10-01)");
  });

  test("the version's service window is feed_info's (Transitland's rule); its best week has service", async () => {
    const fv = await versionDates(early.dataDir);
    expect([fv.ss, fv.se]).toEqual(["2020-03-23", "2020-06-12"]);
    expect([fv.ec, fv.lc]).toEqual(["2021-07-26", "2021-10-01"]);
    expect(fv.bw >= "2021-07-26" && fv.bw <= "2021-09-27").toBe(true);
    expect(new Date(`${fv.bw}T00:00:00Z`).getUTCDay()).toBe(1); // a Monday
  });

  test("use_service_window: dates outside feed_info's window show the best week's service", async () => {
    for (const sw of ["", "&use_service_window=true"]) {
      expect(await tripIds(early, `&service_date=2031-01-07${sw}`)).toEqual(["WK1", "WK2"]); // a Tuesday
      expect(await tripIds(early, `&service_date=2031-01-11${sw}`)).toEqual(["WE1"]); // a Saturday
      // a date of the calendars is outside feed_info's window too: the best week's same weekday
      expect(await tripIds(early, `&service_date=2021-08-03${sw}`)).toEqual(["WK1", "WK2"]);
    }
    expect(await tripIds(early, "&service_date=2031-01-07&use_service_window=false")).toEqual([]);
    expect(await tripIds(early, "&service_date=2021-08-03&use_service_window=false")).toEqual(["WK1", "WK2"]);
    expect(await tripIds(early, "&service_date=2021-08-07&use_service_window=false")).toEqual(["WE1"]);
  });

  test("a date inside feed_info's window is taken as it is, and the calendars have nothing then", async () => {
    expect(await tripIds(early, "&service_date=2020-04-07")).toEqual([]);
    expect(await tripIds(early, "&service_date=2020-04-07&use_service_window=false")).toEqual([]);
  });

  test("without a date, every trip", async () => {
    expect(await tripIds(early, "")).toEqual(["WE1", "WK1", "WK2"]);
  });
});

describe("feed_info's window holding only a calendar no trip uses", () => {
  test("the import still warns: no trip runs in feed_info's window", () => {
    const w = importReport(unused.dataDir).warnings.feed_info_dates_outside_calendars;
    expect(w?.count).toBe(1);
    expect(w!.examples[0]!.message).toContain("(2021-07-26..2021-10-01)");
  });

  test("the best week is a week with service, not the unused calendar's", async () => {
    const fv = await versionDates(unused.dataDir);
    expect([fv.ss, fv.se]).toEqual(["2020-03-23", "2020-06-12"]);
    expect(fv.ec).toBe("2020-04-01"); // the calendars' first date, the unused one's
    expect(fv.bw >= "2021-07-26" && fv.bw <= "2021-09-27").toBe(true);
    expect(await tripIds(unused, "&service_date=2031-01-07")).toEqual(["WK1", "WK2"]);
    expect(await tripIds(unused, "&service_date=2031-01-11")).toEqual(["WE1"]);
  });
});

describe("feed_info dates that agree with the calendars", () => {
  test("no warning; the window is feed_info's", async () => {
    const source = variant((d) => writeFileSync(join(d, "feed_info.txt"), readFileSync(join(FIXTURE, "feed_info.txt"), "utf8").replace("20200323,20200612", "20210801,20210930")));
    const dataDir = tempDir("interchange-feed-dates-agree-");
    const r = await importFeed({ dataDir, source });
    expect(r.status).toBe("imported");
    expect(r.warnings.feed_info_dates_outside_calendars).toBeUndefined();
    const fv = await versionDates(dataDir);
    expect([fv.ss, fv.se]).toEqual(["2021-08-01", "2021-09-30"]);
    expect(fv.bw >= "2021-07-26" && fv.bw <= "2021-09-27").toBe(true);
  });
});
