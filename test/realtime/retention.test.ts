/**
 * FEATURE UNDER TEST: snapshot retention: date partitions older than the retention are removed
 * after each write, never the one holding the current snapshot; 0 keeps everything.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { Ingester } from "../../pipeline/realtime/ingest.ts";
import { FUTURE_TOLERANCE_S } from "../../pipeline/schema/realtime.ts";
import { alertEntity, datasetCopy, encodeFeed, feedIdOf } from "./support.ts";

const DAY = 86400;
const NOW = 1_700_006_400; // 2023-11-15T00:00:00Z

async function datesAfter(retentionDays: number): Promise<string[]> {
  const data = await datasetCopy(`retention-${retentionDays}`, ["bart"]);
  const feed = feedIdOf(data, "bart");
  const db = await DuckDBInstance.create(":memory:", { threads: "1" });
  const conn = await db.connect();
  try {
    const ing = new Ingester({ dataDir: data, maxAgeS: null, futureToleranceS: FUTURE_TOLERANCE_S, retentionDays, refuseBackwards: false }, conn);
    for (const ago of [5, 3, 1]) {
      const [r] = await ing.ingest(feed, "alerts", encodeFeed(NOW - ago * DAY, [alertEntity(`d${ago}`, [{ agencyId: "BART" }])]), "test", new Date(NOW * 1000));
      expect(r!.outcome).toBe("accepted");
    }
  } finally {
    conn.closeSync();
    db.closeSync();
  }
  const dir = join(data, "realtime", "alerts", `feed_id=${feed}`);
  return existsSync(dir) ? readdirSync(dir).sort() : [];
}

describe("retention", () => {
  test("2 days: only the current snapshot's day is left of days 5, 3 and 1 ago", async () => {
    expect(await datesAfter(2)).toEqual(["date=2023-11-14"]);
  });

  test("4 days: the day 5 days ago goes once it is no longer current", async () => {
    expect(await datesAfter(4)).toEqual(["date=2023-11-12", "date=2023-11-14"]);
  });

  test("0 keeps every day", async () => {
    expect(await datesAfter(0)).toEqual(["date=2023-11-10", "date=2023-11-12", "date=2023-11-14"]);
  });
});
