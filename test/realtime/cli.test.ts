/**
 * FEATURE UNDER TEST: the realtime commands as a user runs them through npx (the Node shim starts
 * Bun): `import-rt` exit codes, and `serve --realtime FILE` polling a live feed (Bun.serve on port
 * 0) with the real clock, its alerts in the catalog and its counts in /health.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCli, startCli } from "../support/cli.ts";
import { tempDir } from "../support/dataset.ts";
import { alertEntity, datasetCopy, encodeFeed, feedIdOf, ROOT, rtFile } from "./support.ts";

const run = (args: string[]) => runCli(args);

const feedServer = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch: () => new Response(encodeFeed(Math.floor(Date.now() / 1000), [alertEntity("live", [{ agencyId: "BART" }])])),
});
afterAll(() => feedServer.stop(true));

describe("interchange import-rt", () => {
  test("--help, exit codes: 0 imported, 1 refused input, 2 bad usage", async () => {
    const help = await run(["import-rt", "--help"]);
    expect(help.code).toBe(0);
    for (const f of ["--feed-id", "--kind", "--retention-days", "INTERCHANGE_REALTIME_RETENTION_DAYS"]) expect(help.out).toContain(f);
    const data = await datasetCopy("cli", ["bart"]);
    const feed = feedIdOf(data, "bart");
    const ok = await run(["import-rt", "--data", data, "--feed-id", feed, rtFile("bart-alerts.pb")]);
    expect(ok.code).toBe(0);
    expect(ok.out).toContain("accepted");
    const again = await run(["import-rt", "--data", data, "--feed-id", feed, "--json", rtFile("bart-alerts.pb")]);
    expect(JSON.parse(again.out)).toEqual([{ kind: "alerts", outcome: "unchanged", source: rtFile("bart-alerts.pb") }]);
    const bad = await run(["import-rt", "--data", data, "--feed-id", feed, "--kind", "alerts", join(ROOT, "package.json")]);
    expect(bad.code).toBe(1);
    expect(bad.out).toContain("DECODE_ERROR");
    expect((await run(["import-rt", "--data", data, rtFile("bart-alerts.pb")])).code).toBe(2);
    expect((await run(["import-rt", "--data", data, "--feed-id", feed, "--kind", "bogus", rtFile("bart-alerts.pb")])).code).toBe(2);
  });
});

describe("interchange serve --realtime", () => {
  test("a bad realtime feeds file stops serve before it listens (exit 2)", async () => {
    const file = join(tempDir(), "rt.json");
    writeFileSync(file, JSON.stringify([{ feed_id: "f-x", alerts_url: "not a url" }]));
    const r = await run(["serve", "--data", tempDir(), "--no-auth", "--port", "0", "--realtime", file]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("realtime feeds file");
  });

  test("polls the feed and serves its alerts", async () => {
    const data = await datasetCopy("cli-serve", ["bart"]);
    const feed = feedIdOf(data, "bart");
    const file = join(tempDir(), "rt.json");
    writeFileSync(file, JSON.stringify([{ feed_id: feed, alerts_url: `${feedServer.url}alerts.pb`, interval_s: 0.2 }]));
    // (the environment is this process's: test/setup.ts INTERCHANGE_WORKERS=1)
    const { proc: p, url } = await startCli(["serve", "--data", data, "--no-auth", "--port", "0", "--realtime", file]);
    try {
      expect(url).not.toBeNull();
      let alerts: any[] = [];
      // until served: a poll every 0.2 s, the snapshot taken in on the next reload (a minute at most, on a loaded host)
      for (const t0 = Date.now(); Date.now() - t0 < 60_000 && !alerts.length; ) {
        const b = (await (await fetch(`${url}/api/v2/rest/routes/${encodeURIComponent(`${feed}:1`)}/trips?limit=1&include_alerts=true`)).json()) as any;
        alerts = b.trips[0].route.agency.alerts;
        if (!alerts.length) await Bun.sleep(50);
      }
      expect(alerts.map((a) => a.header_text[0].text)).toEqual(["alert live"]);
      const h = (await (await fetch(`${url}/health`)).json()) as any;
      expect(h.features.realtime.feeds[feed].alerts.serving).toBe(true);
      expect(h.features.realtime.feeds[feed].alerts.counts.accepted).toBeGreaterThan(0);
    } finally {
      p.kill("SIGTERM");
      await p.exited;
    }
  });
});
