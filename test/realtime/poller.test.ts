/**
 * FEATURE UNDER TEST: the realtime poller of `serve --realtime` against a local HTTP feed (Bun.serve
 * on port 0) that changes, stalls, fails and breaks while catalog requests run: every request is
 * answered 200 with one whole snapshot's alerts, time-outs and errors are counted, the last good
 * snapshot keeps serving until the maximum age, and the Parquet files are never half-written.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { startPoller, type Poller } from "../../pipeline/realtime/poller.ts";
import { FUTURE_TOLERANCE_S } from "../../pipeline/schema/realtime.ts";
import { alertEntity, Clock, datasetCopy, duckRows, encodeFeed, feedIdOf, rtServer, type RtServer, statusOf } from "./support.ts";

const T0 = 1_700_000_000;
const MAX_AGE_S = 120;
const TIMEOUT_MS = 300;

type Mode = "ok" | "stall" | "stall-body" | "break" | "http-500";
let mode: Mode = "ok";
let body: Uint8Array = new Uint8Array(0);
const stalled: (() => void)[] = [];
const feedServer = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch() {
    switch (mode) {
      case "ok":
        return new Response(body, { headers: { "content-type": "application/x-protobuf" } });
      case "stall":
        return new Promise<Response>((resolve) => stalled.push(() => resolve(new Response("late"))));
      case "stall-body": {
        const half = body.subarray(0, body.length >> 1);
        const stream = new ReadableStream({
          start(c) {
            c.enqueue(half);
            stalled.push(() => c.close());
          },
        });
        return new Response(stream, { headers: { "content-type": "application/x-protobuf" } });
      }
      case "break":
        return new Response("<html>maintenance</html>", { headers: { "content-type": "text/html" } });
      case "http-500":
        return new Response("oops", { status: 500 });
    }
  },
});

let data: string;
let feed: string;
let s: RtServer;
let poller: Poller;
const clock = new Clock(T0 * 1000);
const version = (n: number, ts: number) => {
  body = encodeFeed(ts, [alertEntity(`v${n}-a`, [{ agencyId: "BART" }]), alertEntity(`v${n}-b`, [{ agencyId: "BART" }])]);
};
const options = (intervalS: number) => ({
  dataDir: data, feeds: [{ feed_id: feed, alerts_url: `${feedServer.url}alerts.pb`, interval_s: intervalS }],
  timeoutMs: TIMEOUT_MS, maxAgeS: MAX_AGE_S, futureToleranceS: FUTURE_TOLERANCE_S, retentionDays: 0, now: clock.now,
  onChange: () => void s.refreshRealtime(),
});

/** Catalog requests in a loop while `during` runs: every answer must be 200 with one version's two alerts. */
async function whileRequesting<T>(during: () => Promise<T>): Promise<{ result: T; seen: Set<string>; answers: number }> {
  let stop = false;
  const seen = new Set<string>();
  let answers = 0;
  const path = `${s.url}/api/v2/rest/routes/${encodeURIComponent(`${feed}:1`)}/trips?limit=3&include_alerts=true`;
  const worker = async () => {
    while (!stop) {
      const r = await fetch(path);
      expect(r.status).toBe(200);
      const b = (await r.json()) as any;
      for (const t of b.trips) {
        const texts: string[] = t.route.agency.alerts.map((a: any) => a.header_text[0].text);
        // a whole snapshot or none: both alerts of one version
        if (texts.length) {
          expect(texts).toHaveLength(2);
          expect(texts[0]!.replace("-a", "")).toBe(texts[1]!.replace("-b", ""));
        }
        seen.add(texts[0]?.replace(/^alert (v\d+)-a$/, "$1") ?? "none");
      }
      answers++;
    }
  };
  const workers = [worker(), worker()];
  try {
    const result = await during();
    return { result, seen, answers };
  } finally {
    stop = true;
    await Promise.all(workers);
  }
}

const poll = async () => {
  const [r] = await poller.pollOnce();
  await s.refreshRealtime();
  return r!;
};
const served = async () => {
  const b = await s.json(`/api/v2/rest/routes/${encodeURIComponent(`${feed}:1`)}/trips?limit=1&include_alerts=true`);
  return b.trips[0].route.agency.alerts.map((a: any) => a.header_text[0].text);
};

beforeAll(async () => {
  data = await datasetCopy("poller", ["bart"]);
  feed = feedIdOf(data, "bart");
  s = await rtServer(data, clock, MAX_AGE_S);
  poller = await startPoller(options(3600), false);
});
afterAll(async () => {
  for (const f of stalled) {
    try {
      f();
    } catch {
      /* the poller's time-out already closed it */
    }
  }
  await poller?.stop();
  await s?.stop();
  feedServer.stop(true);
});

describe("poller against a live HTTP feed", () => {
  test("a new snapshot is swapped in whole while requests run", async () => {
    version(1, T0);
    expect((await poll()).outcome).toBe("accepted");
    expect(await served()).toEqual(["alert v1-a", "alert v1-b"]);
    const { seen, answers } = await whileRequesting(async () => {
      for (let n = 2; n <= 6; n++) {
        clock.setS(T0 + n);
        version(n, T0 + n);
        expect((await poll()).outcome).toBe("accepted");
      }
    });
    expect(answers).toBeGreaterThan(0);
    for (const v of seen) expect(["v1", "v2", "v3", "v4", "v5", "v6"]).toContain(v);
    expect(await served()).toEqual(["alert v6-a", "alert v6-b"]);
  });

  test("a feed that stalls (no answer, or half a body) times out; the current snapshot keeps serving", async () => {
    const { result } = await whileRequesting(async () => {
      mode = "stall";
      const a = await poll();
      mode = "stall-body";
      clock.setS(T0 + 7);
      version(7, T0 + 7);
      const b = await poll();
      return [a, b];
    });
    for (const r of result) {
      expect(r.outcome).toBe("timeout");
      expect(r.message).toContain(`within ${TIMEOUT_MS} ms`);
    }
    expect(await served()).toEqual(["alert v6-a", "alert v6-b"]);
  });

  test("a feed that breaks (HTML, HTTP 500, connection refused) is counted; the current snapshot keeps serving", async () => {
    mode = "break";
    expect((await poll()).outcome).toBe("decode_error");
    mode = "http-500";
    const r = await poll();
    expect(r.outcome).toBe("fetch_error");
    expect(r.message).toContain("HTTP 500");
    const refused = await startPoller({ ...options(3600), feeds: [{ feed_id: feed, alerts_url: "http://127.0.0.1:9/alerts.pb", interval_s: 3600 }] }, false);
    try {
      expect((await refused.pollOnce())[0]!.outcome).toBe("fetch_error");
    } finally {
      await refused.stop();
    }
    expect(await served()).toEqual(["alert v6-a", "alert v6-b"]);
    const st = statusOf(data, feed).kinds.alerts!;
    expect(st.counts).toEqual({ accepted: 6, timeout: 2, decode_error: 1, fetch_error: 2 });
    const h = (await s.json("/health")) as any;
    expect(h.features.realtime.feeds[feed].alerts).toMatchObject({ serving: true, alerts: 2, counts: st.counts, last: { outcome: "fetch_error" } });
  });

  test("a feed that stays broken: the snapshot is dropped at the maximum age, then a good answer is served again", async () => {
    mode = "break";
    clock.setS(T0 + 6 + MAX_AGE_S + 1);
    expect((await poll()).outcome).toBe("decode_error");
    expect(await served()).toEqual([]);
    mode = "ok";
    version(8, T0 + 6 + MAX_AGE_S);
    expect((await poll()).outcome).toBe("accepted");
    expect(await served()).toEqual(["alert v8-a", "alert v8-b"]);
  });

  test("the loops poll on their own and the server follows", async () => {
    const looping = await startPoller(options(0.05), true);
    try {
      clock.setS(T0 + 6 + MAX_AGE_S + 5);
      version(9, T0 + 6 + MAX_AGE_S + 5);
      let got: string[] = [];
      for (let i = 0; i < 200 && got[0] !== "alert v9-a"; i++) {
        await Bun.sleep(25);
        got = await served();
      }
      expect(got).toEqual(["alert v9-a", "alert v9-b"]);
    } finally {
      await looping.stop();
    }
  });

  test("every snapshot file is whole Parquet, and no temporary file is left", async () => {
    const rows = await duckRows(`SELECT count(*) AS n, count(DISTINCT filename) AS files FROM read_parquet('${data}/realtime/alerts/*/*/*.parquet', filename = true)`);
    // v1..v6, v8, v9: v7 was only ever half sent
    expect(rows[0]).toEqual({ n: String(2 * 8), files: "8" });
    const tmp = join(data, "realtime", ".tmp");
    expect(existsSync(tmp) ? readdirSync(tmp) : []).toEqual([]);
  });
});
