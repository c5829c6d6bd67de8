/**
 * Operations: the service's Prometheus metrics and its request log. server/main.ts builds one Ops
 * and wraps with it what it measures, without the features knowing: the app's fetch handler
 * (requests), the street engine (engine calls), the rate limiter (refusals), the logger (the
 * planner's "timetable loaded" event); dataset versions and realtime snapshot ages are read when
 * scraped. /metrics is served on a port of its own (--metrics-port), never on the API port: the
 * edge (deploy/nginx.conf) publishes only the API port, and a scraper needs no API key.
 */
import type { Server } from "bun";
import type { Account } from "../auth/keys.ts";
import type { RateDecision, RateLimiter } from "../auth/rate-limit.ts";
import type { Feature, Logger, LogLevel } from "../feature.ts";
import type { StreetEngine } from "../street/engine.ts";
import { activeVersions, readManifest } from "../../pipeline/schema/manifest.ts";
import { readRealtimeStatuses } from "../../pipeline/schema/realtime.ts";
import { Counter, type CounterSeries, EXPOSITION_CONTENT_TYPE, Gauge, Histogram, type HistogramSeries, type Labels, Registry } from "./metrics.ts";
import { logRequest, pathOf, RequestAccounts, requestRecorder, ROUTE_FAMILIES, type RequestRecord, type RouteFamily } from "./requests.ts";

/** The planner's log message when a timetable is loaded (server/planner/index.ts), with its `ms`. */
export const TIMETABLE_LOADED = "planner timetable loaded";

export interface OpsOptions {
  dataDir: string;
  /** the request log goes here (one info line per request) */
  log: Logger;
  now: () => number;
  /** least severe level written, by `log` and by tapLog's logger (default info: everything) */
  logLevel?: LogLevel;
  /** share of requests logged: 1 (default) every one, 0 none, 0.1 every 10th (then a 5xx answer always is) */
  requestLog?: number;
}

/** A route family's and status's request series, resolved once. */
interface RequestSeries {
  count: CounterSeries;
  latency: HistogramSeries;
}

export class Ops {
  readonly registry = new Registry();
  private readonly requests = this.registry.register(new Counter("interchange_http_requests_total", "HTTP requests answered, by route family (catalog, plan, street, graphql, analysis, geocode, other) and status", ["family", "status"]));
  private readonly latency = this.registry.register(
    new Histogram("interchange_http_request_duration_seconds", "time from a request's arrival to its answer's headers, by route family and status", ["family", "status"]),
  );
  private readonly refusals = this.registry.register(new Counter("interchange_rate_limit_refusals_total", "requests refused by the per-account rate limit (429), by account", ["account"]));
  private readonly engineCalls = this.registry.register(
    new Histogram(
      "interchange_engine_call_duration_seconds",
      "street engine calls, from the call to the engine's answer (with the wait for a free engine slot), by action, lane (gateway: the street endpoints, planner: plans on the streets) and the engine's status (unavailable: no answer)",
      ["action", "lane", "status"],
    ),
  );
  private readonly engineCrashes = this.registry.register(
    new Counter("interchange_engine_crashes_total", "street engine processes that ended while answering a call (a native crash of the embedded engine; the call is answered with an error, the process replaced), by action", ["action"]),
  );
  private readonly engineTimeouts = this.registry.register(
    new Counter("interchange_engine_timeouts_total", "embedded street engine calls stopped after --engine-timeout-ms (answered 503; with process isolation the engine process is ended and replaced), by action", ["action"]),
  );
  private readonly timetableLoad = this.registry.register(new Gauge("interchange_timetable_load_seconds", "time the last planner timetable load took", []));
  /** what main.ts hands over once the features exist */
  private features: readonly Feature[] = [];
  private engine: StreetEngine | null = null;
  /** the account of each authenticated request, until it is answered (server/app.ts reports it) */
  readonly accounts = new RequestAccounts();
  /** the request series by family, then status (no label lookup per request) */
  private readonly series = Object.fromEntries(ROUTE_FAMILIES.map((f) => [f, new Map<number, RequestSeries>()])) as Record<RouteFamily, Map<number, RequestSeries>>;
  /** log every n-th request (0: none; a 5xx always) */
  private readonly logEvery: number;
  private seen = 0;
  private readonly writes: Record<LogLevel, boolean>;

  constructor(private readonly opts: OpsOptions) {
    const level = opts.logLevel ?? "info";
    this.writes = { info: level === "info", warn: level !== "error", error: true };
    const share = opts.requestLog ?? 1;
    this.logEvery = this.writes.info && share > 0 ? Math.max(1, Math.round(1 / share)) : 0;
    this.registry.register(new Gauge("interchange_dataset_active_info", "the dataset versions served (value 1): feed versions (as the manifest names them; the catalog follows it), the planner timetable and the street dataset (as loaded)", ["component", "feed_onestop_id", "version"], () => this.datasets()));
    this.registry.register(
      new Gauge("interchange_realtime_snapshot_age_seconds", "age of each realtime feed's current snapshot (now less its header timestamp, else its fetch time), by feed and kind", ["feed_onestop_id", "kind"], () => this.realtimeAges()),
    );
    this.registry.register(new Gauge("process_resident_memory_bytes", "resident set size of the server process", [], () => [[{}, process.memoryUsage.rss()]]));
    this.registry.register(new Gauge("process_heap_bytes", "JavaScript heap of the server process, used (live and not yet collected)", [], () => [[{}, process.memoryUsage().heapUsed]]));
    this.registry.register(new Gauge("process_cpu_seconds_total", "user and system CPU time of the server process", [], () => {
      const u = process.cpuUsage();
      return [[{}, (u.user + u.system) / 1e6]];
    }, "counter"));
    const started = Math.round(performance.timeOrigin / 1000);
    this.registry.register(new Gauge("process_start_time_seconds", "start of the server process, seconds since the epoch", [], () => [[{}, started]]));
  }

  /** The exposition text of every metric. */
  render(): string {
    return this.registry.render();
  }

  /** The features and the engine to read dataset versions from (main.ts, once they are built). */
  follow(features: readonly Feature[], engine: StreetEngine): void {
    this.features = features;
    this.engine = engine;
  }

  /** A logger that writes the lines of the log level and above, and notes the timetable load time from the planner's "timetable loaded" line. */
  tapLog(log: Logger): Logger {
    const writes = this.writes;
    return {
      info: (msg, fields) => {
        if (msg === TIMETABLE_LOADED && typeof fields?.ms === "number") this.timetableLoad.set({}, fields.ms / 1000);
        if (writes.info) log.info(msg, fields);
      },
      warn: (msg, fields) => writes.warn && log.warn(msg, fields),
      error: (msg, fields) => log.error(msg, fields),
    };
  }

  /** The engine, with each call timed. */
  timeEngine(engine: StreetEngine): StreetEngine {
    const calls = this.engineCalls;
    return {
      get kind() {
        return engine.kind;
      },
      async handle(call) {
        const t0 = performance.now();
        let status = "unavailable";
        try {
          const answer = await engine.handle(call);
          status = String(answer.status);
          return answer;
        } finally {
          calls.observe({ action: call.action, lane: call.lane ?? "gateway", status }, (performance.now() - t0) / 1000);
        }
      },
      health: () => engine.health(),
      ...(engine.reload ? { reload: () => engine.reload!() } : {}),
      ...(engine.close ? { close: () => engine.close!() } : {}),
    };
  }

  /** The embedded engine's hook: one of its processes ended while running a call of `action`. */
  engineCrashed = (action: string): void => {
    this.engineCrashes.inc({ action });
  };

  engineTimedOut = (action: string): void => {
    this.engineTimeouts.inc({ action });
  };

  /** The rate limiter, with its refusals counted per account. */
  countRefusals(limiter: RateLimiter): RateLimiter {
    const count = (account: Account, d: RateDecision) => {
      if (!d.allowed) this.refusals.inc({ account: account.account });
      return d;
    };
    return {
      take(account, nowMs) {
        const d = limiter.take(account, nowMs);
        return d instanceof Promise ? d.then((x) => count(account, x)) : count(account, d);
      },
      ...(limiter.health ? { health: () => limiter.health!() } : {}),
      ...(limiter.close ? { close: () => limiter.close!() } : {}),
    };
  }

  /** server/app.ts: the request was authenticated as `account`. */
  noteAccount = (request: Request, account: string): void => {
    this.accounts.set(request, account);
  };

  /** One request answered with `status`, arrived at performance.now() `t0`: metrics and its log line (server/gate.ts AroundAnswers.done). */
  readonly requestDone = requestRecorder(this.accounts, this);

  /** The metrics and log line of one request (RequestSink). */
  record(r: RequestRecord): void {
    const byStatus = this.series[r.family];
    let s = byStatus.get(r.status);
    if (!s) {
      const labels = { family: r.family, status: String(r.status) };
      s = { count: this.requests.child(labels), latency: this.latency.child(labels) };
      byStatus.set(r.status, s);
    }
    s.count.inc();
    s.latency.observe(r.duration_ms / 1000);
    if (this.logEvery > 0 && (this.logEvery === 1 || r.status >= 500 || ++this.seen % this.logEvery === 0)) logRequest(this.opts.log, r);
  }

  /** /metrics (and /health's details, when `health` is given) on its own listener; anything else there is a 404. */
  listen(hostname: string, port: number, health?: () => unknown): Server<undefined> {
    return Bun.serve({
      hostname,
      port,
      development: false,
      fetch: (req) => {
        const path = pathOf(req.url);
        if (path === "/health" && health) return Response.json(health());
        if (path !== "/metrics") return new Response("not found: the metrics listener serves GET /metrics and GET /health only\n", { status: 404, headers: { "content-type": "text/plain; charset=utf-8" } });
        if (req.method !== "GET" && req.method !== "HEAD") return new Response("method not allowed\n", { status: 405, headers: { allow: "GET, HEAD" } });
        return new Response(this.render(), { headers: { "content-type": EXPOSITION_CONTENT_TYPE } });
      },
    });
  }

  private *datasets(): Iterable<[Labels, number]> {
    try {
      for (const v of activeVersions(readManifest(this.opts.dataDir))) yield [{ component: "feed_version", feed_onestop_id: v.feed_onestop_id, version: v.sha1 }, 1];
    } catch {
      // no manifest yet (an empty data folder): no feed versions
    }
    const timetable = this.features.find((f) => f.name === "planner")?.health?.().timetable;
    if (typeof timetable === "string") yield [{ component: "timetable", feed_onestop_id: "", version: timetable }, 1];
    const street = this.engine?.health().street_dataset as { sha1?: unknown } | null | undefined;
    if (street && typeof street.sha1 === "string") yield [{ component: "street_dataset", feed_onestop_id: "", version: street.sha1 }, 1];
  }

  private *realtimeAges(): Iterable<[Labels, number]> {
    const nowS = this.opts.now() / 1000;
    for (const s of readRealtimeStatuses(this.opts.dataDir)) {
      for (const [kind, k] of Object.entries(s.kinds)) {
        const cur = k?.current;
        if (!cur) continue;
        const stampS = cur.header_timestamp ?? Date.parse(cur.fetched_at) / 1000;
        if (Number.isFinite(stampS)) yield [{ feed_onestop_id: s.feed_id, kind }, Math.round(nowS - stampS)];
      }
    }
  }
}
