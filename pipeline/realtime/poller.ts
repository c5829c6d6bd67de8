/**
 * The realtime poller of `interchange serve --realtime FILE`: each feed's alerts, trip updates and
 * vehicle positions URLs fetched every `interval_s`, each answer ingested (ingest.ts): a good
 * snapshot is written and made current (the status file switch is the atomic step the server
 * follows), anything else is counted and the current snapshot stays. A fetch or an ingest that
 * fails never stops the loop.
 */
import { readFileSync } from "node:fs";
import type { z as Z } from "zod";
import type { RealtimeKind } from "../schema/realtime.ts";
import { type FetchFn, isUrl, readFeedBytes } from "./fetch.ts";
import { Ingester, type IngestResult, type IngestSettings } from "./ingest.ts";

export interface RealtimeFeedConfig {
  feed_id: string;
  alerts_url?: string;
  trip_updates_url?: string;
  vehicle_positions_url?: string;
  /** seconds between two fetches of each URL */
  interval_s: number;
}

const URL_FIELD: Record<RealtimeKind, "alerts_url" | "trip_updates_url" | "vehicle_positions_url"> = {
  alerts: "alerts_url",
  trip_updates: "trip_updates_url",
  vehicle_positions: "vehicle_positions_url",
};

function feedsSchema(z: typeof Z) {
  const url = z.string().refine(isUrl, "an http(s) URL");
  return z.array(
    z
      .object({
        feed_id: z.string().regex(/^[a-z0-9~<>.-]{1,64}$/, "a feed Onestop ID (lowercase, at most 64 characters), the static feed's"),
        alerts_url: url.optional(),
        trip_updates_url: url.optional(),
        vehicle_positions_url: url.optional(),
        interval_s: z.number().positive().default(30),
      })
      .strict()
      .refine((f) => f.alerts_url || f.trip_updates_url || f.vehicle_positions_url, "give at least one of alerts_url, trip_updates_url, vehicle_positions_url"),
  );
}

/** Read and check a realtime feeds file; throws an Error naming the file and the problem. */
export async function readRealtimeFeedsFile(path: string): Promise<RealtimeFeedConfig[]> {
  const { z } = await import("zod");
  try {
    const feeds = feedsSchema(z).parse(JSON.parse(readFileSync(path, "utf8")));
    const ids = feeds.map((f) => f.feed_id);
    const dup = ids.find((id, i) => ids.indexOf(id) !== i);
    if (dup) throw new Error(`feed_id ${dup} is listed twice`);
    return feeds;
  } catch (e) {
    const why = e instanceof z.ZodError ? e.issues.map((i) => `[${i.path.join(".")}] ${i.message}`).join("; ") : (e as Error).message;
    throw new Error(`realtime feeds file ${path}: ${why}`);
  }
}

export interface PollerOptions extends Omit<IngestSettings, "refuseBackwards"> {
  feeds: RealtimeFeedConfig[];
  timeoutMs: number;
  fetch?: FetchFn;
  /** the clock (ms since epoch) */
  now?: () => number;
  /** called after every recorded outcome (the server reloads its snapshots) */
  onChange?: (r: IngestResult & { feedId: string }) => void;
  log?: { warn(msg: string, fields?: Record<string, unknown>): void };
}

export interface Poller {
  /** fetch and ingest every URL of every feed once (tests; the loops do the same on their own) */
  pollOnce(): Promise<(IngestResult & { feedId: string })[]>;
  stop(): Promise<void>;
}

interface Job {
  feedId: string;
  kind: RealtimeKind;
  url: string;
  intervalMs: number;
}

/** Start the loops (`loop: false`: only pollOnce, for tests). */
export async function startPoller(opts: PollerOptions, loop = true): Promise<Poller> {
  const { DuckDBInstance } = await import("@duckdb/node-api");
  const db = await DuckDBInstance.create(":memory:", { threads: "1" });
  const conn = await db.connect();
  const poller = new PollLoops(opts, new Ingester({ ...opts, refuseBackwards: true }, conn), () => {
    conn.closeSync();
    db.closeSync();
  });
  if (loop) poller.start();
  return { pollOnce: () => poller.pollOnce(), stop: () => poller.stop() };
}

/** One job per URL of each feed: the feed, the kind of snapshot, its URL and its interval. */
function pollJobs(feeds: RealtimeFeedConfig[]): Job[] {
  return feeds.flatMap((f) =>
    (Object.keys(URL_FIELD) as RealtimeKind[]).flatMap((kind) => {
      const url = f[URL_FIELD[kind]];
      return url ? [{ feedId: f.feed_id, kind, url, intervalMs: f.interval_s * 1000 }] : [];
    }),
  );
}

/** The poller's jobs, each fetched every interval and ingested in one lane (one DuckDB connection), until stop(). */
class PollLoops {
  private readonly jobs: Job[];
  private readonly now: () => number;
  private readonly stopping = new AbortController();
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();
  // one DuckDB connection: ingests run one at a time (fetches do not wait for each other)
  private lane: Promise<unknown> = Promise.resolve();

  constructor(private readonly opts: PollerOptions, private readonly ingester: Ingester, private readonly close: () => void) {
    this.jobs = pollJobs(opts.feeds);
    this.now = opts.now ?? Date.now;
  }

  /** Run `fn` after the ingests before it. */
  private inLane<T>(fn: () => Promise<T>): Promise<T> {
    const p = this.lane.then(fn, fn);
    this.lane = p.catch(() => {});
    return p;
  }

  /** Fetch one job's URL and ingest the answer (or record the failed fetch); logs what was not accepted. */
  private async run(job: Job): Promise<IngestResult & { feedId: string }> {
    const { opts, ingester, stopping } = this;
    const got = await readFeedBytes(job.url, { timeoutMs: opts.timeoutMs, fetch: opts.fetch, signal: stopping.signal });
    if (stopping.signal.aborted) return { feedId: job.feedId, kind: job.kind, outcome: "fetch_error", message: "stopped" };
    const at = new Date(this.now());
    let results: IngestResult[];
    try {
      results = await this.inLane(async (): Promise<IngestResult[]> => {
        if (stopping.signal.aborted) return [{ kind: job.kind, outcome: "fetch_error", message: "stopped" }];
        return got.ok ? ingester.ingest(job.feedId, job.kind, got.bytes, job.url, at) : [ingester.fail(job.feedId, job.kind, job.url, got.outcome, got.message, at)];
      });
    } catch (e) {
      // a write that failed (disk full, ...): logged; the current snapshot stays
      opts.log?.warn("realtime ingest failed", { feed_id: job.feedId, kind: job.kind, error: String((e as Error)?.message ?? e) });
      results = [{ kind: job.kind, outcome: "fetch_error", message: String((e as Error)?.message ?? e) }];
    }
    const r = { ...results[0]!, feedId: job.feedId };
    if (r.outcome !== "accepted" && r.outcome !== "unchanged") opts.log?.warn("realtime snapshot not accepted", { feed_id: job.feedId, kind: job.kind, outcome: r.outcome, message: r.message });
    opts.onChange?.(r);
    return r;
  }

  /** Run the job again after its interval, unless stopping. */
  private schedule(job: Job): void {
    if (this.stopping.signal.aborted) return;
    const t = setTimeout(async () => {
      this.timers.delete(t);
      await this.run(job).catch(() => {});
      this.schedule(job);
    }, job.intervalMs);
    this.timers.add(t);
  }

  /** Every job now, then each on its interval. */
  start(): void {
    for (const job of this.jobs) {
      void this.run(job).catch(() => {}).then(() => this.schedule(job));
    }
  }

  /** Every job once, all at once. */
  pollOnce(): Promise<(IngestResult & { feedId: string })[]> {
    return Promise.all(this.jobs.map((job) => this.run(job)));
  }

  /** Stop the loops, wait for the ingest under way, close the connection. */
  async stop(): Promise<void> {
    this.stopping.abort();
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    await this.lane.catch(() => {});
    this.close();
  }
}
