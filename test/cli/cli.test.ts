/**
 * FEATURE UNDER TEST: the `interchange` command line as a user runs it through npx (the Node shim
 * starts Bun): import exit codes and messages, and the `demo` command behind `npm start`.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { ROOT, runCli, startCli } from "../support/cli.ts";
import { gtfs, tempDir } from "../support/dataset.ts";

const run = runCli;

describe("interchange CLI", () => {
  test("import --help lists every flag with its environment variable", async () => {
    const r = await run(["import", "--help"]);
    expect(r.code).toBe(0);
    for (const f of ["--data", "--feed-id", "--feeds", "--activate", "--json", "--quiet", "INTERCHANGE_DATA", "INTERCHANGE_FEEDS"]) expect(r.out).toContain(f);
  });

  test("import: success exits 0, a rejected feed exits 1 naming the problem, bad usage exits 2", async () => {
    const data = tempDir();
    const ok = await run(["import", "--data", data, "--quiet", gtfs("google-sample-feed")]);
    expect(ok.code).toBe(0);
    expect(ok.out).toContain("imported f-9qs-demotransitauthority");
    const again = await run(["import", "--quiet", gtfs("google-sample-feed")], { INTERCHANGE_DATA: data });
    expect(again.out).toContain("unchanged f-9qs-demotransitauthority");
    const bad = await run(["import", "--data", data, "--quiet", join(ROOT, "package.json")]);
    expect(bad.code).toBe(1);
    expect(bad.out).toContain("REJECTED");
    expect(bad.out).toContain("not a readable zip file");
    const usage = await run(["import", "--data", data, "--bogus"]);
    expect(usage.code).toBe(2);
    expect(usage.err).toContain("unknown flag --bogus");
    const json = await run(["import", "--data", data, "--quiet", "--json", gtfs("google-sample-feed")]);
    expect(JSON.parse(json.out)[0]).toMatchObject({ status: "unchanged", feed_onestop_id: "f-9qs-demotransitauthority" });
  });

  test("serve refuses to start without --api-keys unless --no-auth is explicit", async () => {
    const r = await run(["serve", "--data", tempDir(), "--port", "0"]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("--api-keys");
  });

  test("demo (npm start) imports the demo feeds and serves them", async () => {
    const data = tempDir();
    const { proc: p, url, log } = await startCli(["demo", "--port", "0"], { INTERCHANGE_DEMO_DATA: data });
    try {
      expect(log()).toContain("WITHOUT API keys");
      expect(url).not.toBeNull();
      const health = (await (await fetch(`${url}/health`)).json()) as { status: string; auth: boolean };
      expect(health.status).toBe("ok");
      expect(health.auth).toBe(false);
    } finally {
      p.kill("SIGTERM");
      await p.exited;
    }
  });
});
