/**
 * The `interchange` command line: import, import-rt, prune, serve, demo, analyze. Flags have environment-variable
 * equivalents (see `interchange <command> --help` and the README).
 */
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { helpText, parseFlags, UsageError } from "../config/flags.ts";
import { runImport } from "../pipeline/cli.ts";
import { SERVE_FLAGS, serverConfigFrom } from "../server/config.ts";
import { FUTURE_TOLERANCE_S } from "../pipeline/schema/realtime.ts";

const USAGE = `usage: interchange <command> [flags]

commands:
  import   import GTFS feeds into a dataset (interchange import --help)
  import-rt  import GTFS-Realtime snapshots of one feed (interchange import-rt --help)
  validate validate GTFS feeds with MobilityData's notice codes, without importing (interchange validate --help)
  prune    remove old feed versions, timetables and street datasets no server reads (interchange prune --help)
  serve    serve a dataset over HTTP (interchange serve --help)
  demo     import the demo feeds into data/demo and serve them without API keys (what npm start runs)
  analyze  travel-time matrices (travel-times) or accessibility (accessibility) over a departure window, to Parquet (interchange analyze --help)
`;

async function serve(argv: string[]): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    console.log(helpText("serve [flags]", "Serve the dataset: REST catalog, transit planner, street routing gateway.", SERVE_FLAGS));
    return 0;
  }
  const { values, positionals } = parseFlags(argv, SERVE_FLAGS);
  if (positionals.length) throw new UsageError(`unexpected argument ${positionals[0]}`);
  const config = serverConfigFrom(values);
  // `serve --workers N`: this process is one of the N (started by the supervisor below) when marked so
  const workerIndex = process.env.INTERCHANGE_WORKER_INDEX === undefined ? null : Number(process.env.INTERCHANGE_WORKER_INDEX);
  const realtime = config.realtimeFeedsFile ? await import("../pipeline/realtime/poller.ts") : null;
  let feeds: Awaited<ReturnType<NonNullable<typeof realtime>["readRealtimeFeedsFile"]>> = [];
  try {
    feeds = realtime && config.realtimeFeedsFile ? await realtime.readRealtimeFeedsFile(config.realtimeFeedsFile) : [];
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  if (workerIndex === null && config.workers > 1) return supervise(argv, config.workers, Boolean(config.apiKeysFile && !config.redisUrl));
  const { startServer } = await import("../server/main.ts");
  const server = await startServer(config, workerIndex === null ? {} : { worker: { index: workerIndex } });
  // the realtime poller (pipeline/realtime) writes snapshots into the dataset; the server follows them.
  // Under --workers N only worker 0 polls: the others follow the status files it writes (a file watch).
  const poller = realtime && feeds.length && !workerIndex
    ? await realtime.startPoller({
        dataDir: config.dataDir, feeds, timeoutMs: config.realtimeTimeoutMs, maxAgeS: config.realtimeMaxAgeS,
        futureToleranceS: FUTURE_TOLERANCE_S, retentionDays: config.realtimeRetentionDays,
        onChange: () => void server.refreshRealtime(),
        log: { warn: (msg, fields) => console.error(JSON.stringify({ level: "warn", msg, ...fields, ...(workerIndex === null ? {} : { worker: workerIndex, pid: process.pid }) })) },
      })
    : null;
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await poller?.stop();
    await server.stop();
    process.exit(0);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  if (workerIndex !== null && process.send) {
    // a worker stops when its supervisor is gone (the IPC channel closes), so none outlives it
    process.on("disconnect", stop);
    process.send({ type: "ready", index: workerIndex, pid: process.pid, url: server.url, port: server.port, metricsUrl: server.metricsUrl });
  }
  return -1; // keep running
}

/** `serve --workers N` (N > 1): N worker processes on one port, restarted when they die (server/workers.ts). */
async function supervise(argv: string[], count: number, limitsPerWorker: boolean): Promise<number> {
  const { superviseWorkers } = await import("../server/workers.ts");
  const { consoleLogger } = await import("../server/feature.ts");
  const log = {
    info: (msg: string, f?: Record<string, unknown>) => consoleLogger.info(msg, { ...f, supervisor: process.pid }),
    warn: (msg: string, f?: Record<string, unknown>) => consoleLogger.warn(msg, { ...f, supervisor: process.pid }),
    error: (msg: string, f?: Record<string, unknown>) => consoleLogger.error(msg, { ...f, supervisor: process.pid }),
  };
  if (limitsPerWorker) log.warn("rate limits are kept by each worker alone (no --redis-url): an account may get up to --workers times its rate_limit_per_minute", { workers: count });
  let sup: Awaited<ReturnType<typeof superviseWorkers>>;
  try {
    sup = await superviseWorkers({
      count,
      // the same command line; once worker 0 has bound it, the port (for --port 0: the one it got)
      command: (_i, port) => [process.execPath, import.meta.path, "serve", ...argv, ...(port === null ? [] : ["--port", String(port)])],
      env: process.env,
      log,
    });
  } catch (e) {
    log.error("workers did not start", { error: (e as Error).message });
    return 1;
  }
  log.info("workers listening", { url: sup.url, workers: count, pids: sup.pids(), ...(sup.metricsUrls()[0] ? { metrics: sup.metricsUrls().map((u) => `${u}/metrics`) } : {}) });
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await sup.stop();
    process.exit(0);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  return -1; // keep running
}

/** Demo feeds: BART + Caltrain from ../shared/data when present, else the hand-written fixture. */
function demoFeeds(): string[] {
  const root = resolve(import.meta.dir, "..");
  const shared = join(root, "..", "shared", "data", "gtfs");
  const real = ["bart.zip", "caltrain.zip"].map((f) => join(shared, f)).filter((p) => existsSync(p));
  return real.length ? real : [join(root, "test", "fixtures", "gtfs", "interpolation")];
}

/**
 * Demo streets: downtown San Francisco (under the BART demo feed) and Monaco with its elevation
 * tile, merged into one street dataset; nothing without ../shared/data.
 */
function demoStreets(): string[] {
  const shared = join(resolve(import.meta.dir, ".."), "..", "shared", "data");
  const osm = ["sf-downtown.osm.pbf", "monaco.osm.pbf"].map((f) => join(shared, "osm", f)).filter((p) => existsSync(p));
  const elevation = [join(shared, "elevation", "N43E007.hgt.gz")].filter((p) => existsSync(p));
  if (!osm.length) return [];
  return ["--osm", ...osm, ...(elevation.length ? ["--elevation", ...elevation] : [])];
}

async function demo(argv: string[]): Promise<number> {
  // the demo serves without keys: on this machine only (127.0.0.1) unless --host says otherwise
  const flags = SERVE_FLAGS.filter((s) => s.name !== "data").map((s) => (s.name === "host" ? { ...s, default: "127.0.0.1" } : s));
  const { values } = parseFlags(argv, flags, process.env);
  const dataDir = resolve(process.env.INTERCHANGE_DEMO_DATA ?? "data/demo");
  const streets = values.valhallaUrl ? [] : demoStreets();
  const code = await runImport(["--data", dataDir, ...demoFeeds(), ...streets]);
  if (code !== 0) return code;
  if (!existsSync(join(resolve(import.meta.dir, ".."), "..", "shared", "data"))) {
    console.error("demo: ../shared/data is missing: serving the hand-written fixture feed only; street routing has no street dataset and answers 503 (import one with `interchange import --osm FILE.osm.pbf`)");
  }
  console.error("demo: serving WITHOUT API keys (--no-auth); use `interchange serve --api-keys FILE` for a real deployment");
  // one process: the demo is for trying the service on a laptop (one import, one readable log)
  const args = ["--data", dataDir, "--no-auth", "--workers", "1", "--host", String(values.host)];
  if (values.port !== undefined) args.push("--port", String(values.port));
  if (values.valhallaUrl) args.push("--valhalla-url", String(values.valhallaUrl));
  const served = await serve(args);
  // the web map (server/map): the demo's datasets on a map, planned on and measured from the browser
  const shownHost = values.host === "0.0.0.0" ? "localhost" : String(values.host).includes(":") ? `[${values.host}]` : String(values.host);
  if (served < 0) console.error(`demo: open the map at http://${shownHost}:${values.port ?? 8080}/map (API docs: /docs)`);
  return served;
}

/**
 * `interchange import`, then, when INTERCHANGE_CATALOG_INDEX=true, the catalog index cache of the
 * new content written (server/catalog/store.ts buildCatalogIndexes: a whole catalog load, ~10 s on
 * New York, so not by default: the import's own speed is measured without it) so the next server
 * start maps it; a failure to write it only warns. Without it, the first server to load the content
 * writes the file.
 */
async function importAndIndex(argv: string[]): Promise<number> {
  const code = await runImport(argv);
  if (code !== 0 || argv.includes("--help") || argv.includes("-h")) return code;
  if (!/^(1|true|yes)$/i.test(process.env.INTERCHANGE_CATALOG_INDEX ?? "")) return code;
  const at = argv.findIndex((a) => a === "--data" || a.startsWith("--data="));
  const dataDir = at < 0 ? (process.env.INTERCHANGE_DATA ?? "data") : argv[at]!.startsWith("--data=") ? argv[at]!.slice(7) : argv[at + 1]!;
  try {
    const { buildCatalogIndexes } = await import("../server/catalog/store.ts");
    const { consoleLogger } = await import("../server/feature.ts");
    await buildCatalogIndexes(dataDir, consoleLogger, process.env.INTERCHANGE_INDEX_DIR || undefined);
  } catch (e) {
    console.error(`interchange import: catalog index cache not written (the server builds it at start): ${(e as Error).message}`);
  }
  return code;
}

async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  switch (cmd) {
    case "import":
      return importAndIndex(rest);
    case "import-rt":
      return (await import("../pipeline/realtime/cli.ts")).runImportRt(rest);
    case "prune":
      return (await import("../pipeline/prune.ts")).runPrune(rest);
    case "validate":
      return (await import("../pipeline/validate/cli.ts")).runValidate(rest);
    case "serve":
      return serve(rest);
    case "demo":
      return demo(rest);
    case "analyze":
      return (await import("../server/analysis/cli.ts")).runAnalyze(rest);
    case undefined:
    case "help":
    case "--help":
    case "-h":
      console.log(USAGE);
      return cmd ? 0 : 2;
    default:
      throw new UsageError(`unknown command "${cmd}"\n\n${USAGE}`);
  }
}

try {
  const code = await main(process.argv.slice(2));
  if (code >= 0) process.exit(code);
} catch (e) {
  if (e instanceof UsageError) {
    console.error(`interchange: ${e.message}`);
    process.exit(2);
  }
  console.error(`interchange: ${(e as Error).message}`);
  process.exit(1);
}
