#!/usr/bin/env node
/**
 * Imports one GTFS zip with node-gtfs (the `gtfs` npm package: SQLite via better-sqlite3), under
 * Node. Used by bench/import.bench.ts as the comparison baseline; run it as a child process so its
 * wall time and peak RSS can be measured from outside.
 *
 *   node bench/node-gtfs-import.mjs FEED.zip DB.sqlite
 *
 * Prints one JSON line on stdout: { ok, elapsed_ms, stop_times, error? }. stop_times is counted in
 * the SQLite file after the import (what node-gtfs really stored).
 */
import { importGtfs, openDb, closeDb } from "gtfs";

const [zip, sqlitePath] = process.argv.slice(2);
if (!zip || !sqlitePath) {
  console.error("usage: node bench/node-gtfs-import.mjs FEED.zip DB.sqlite");
  process.exit(2);
}

const config = {
  agencies: [{ path: zip }],
  sqlitePath,
  verbose: false,
  logFunction: () => {},
};

const t0 = performance.now();
try {
  await importGtfs(config);
  const elapsed_ms = Math.round(performance.now() - t0);
  const db = openDb(config);
  const { n } = db.prepare("SELECT count(*) AS n FROM stop_times").get();
  closeDb(db);
  console.log(JSON.stringify({ ok: true, elapsed_ms, stop_times: n }));
} catch (e) {
  console.log(JSON.stringify({ ok: false, elapsed_ms: Math.round(performance.now() - t0), error: String(e?.stack ?? e) }));
  process.exit(1);
}
