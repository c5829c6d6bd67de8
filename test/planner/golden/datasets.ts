/**
 * The golden plan answers' datasets (test/planner/golden.test.ts replays them, record.ts records
 * them): each a real dataset imported by the real pipeline, the real server over it on port 0 with
 * a fixed clock, and (for recording) a seeded set of OTP1 plan requests over its stops. The stored
 * answers are the exact body bytes, status and headers of GET /api/v2/routing/otp/plan.
 */
import { cpSync, existsSync, readFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { join, resolve } from "node:path";
import { gunzipSync } from "node:zlib";
import { readManifest } from "../../../pipeline/schema/manifest.ts";
import { runImportRt } from "../../../pipeline/realtime/cli.ts";
import { refreshTimetable } from "../../../pipeline/timetable/publish.ts";
import { serverConfigFrom } from "../../../server/config.ts";
import { startServer, type RunningServer } from "../../../server/main.ts";
import { loadTimetableFile } from "../../../server/planner/timetable/arrow-loader.ts";
import type { Timetable } from "../../../server/planner/timetable/types.ts";
import { importedDataset, streetDataset, tempDir } from "../../support/dataset.ts";
import { rtFile } from "../../realtime/support.ts";

export const GOLDEN_DIR = import.meta.dir;
/** The MTA subway feed the benches use (`ln -s <mta build> bench/.mta`); its dataset is skipped without it. */
export const MTA_SUBWAY = resolve(import.meta.dir, "..", "..", "..", "bench", ".mta", "mta-subway.zip");
export const PLAN_PATH = "/api/v2/routing/otp/plan";

const quiet = { info() {}, warn() {}, error() {} };

export interface GoldenServer {
  server: RunningServer;
  /** the loaded timetable (null: the server has none) */
  tt: Timetable | null;
}

export interface GoldenDataset {
  name: string;
  /** what the answers need besides ../shared/data (the file's sha1 is recorded): null when nothing */
  extraInput?: string;
  start(): Promise<GoldenServer>;
}

/** One recorded answer: the query string sent, the status, the headers that matter, the exact body. */
export interface GoldenAnswer {
  q: string;
  status: number;
  contentType: string | null;
  warning: string | null;
  body: string;
}

export interface GoldenFile {
  dataset: string;
  /** sha1 of the dataset's extra input (MTA zip) when it has one */
  inputSha1: string | null;
  answers: GoldenAnswer[];
}

const timetableOf = (dir: string): Timetable => loadTimetableFile(join(dir, readManifest(dir).timetable!.path));

async function serve(dir: string, nowMs: number, opts: Record<string, unknown> = {}): Promise<RunningServer> {
  return startServer(serverConfigFrom({ data: dir, port: 0, host: "127.0.0.1", noAuth: true, ...opts }), { log: quiet, now: () => nowMs });
}

// 2023-06-07 10:00 PDT: the clock of plans without a date on the BART + Caltrain dataset
const BAY_NOW = Date.UTC(2023, 5, 7, 17, 0, 0);
// bart-trip-updates-20190807.pb's header + 60 s (test/realtime/plans.test.ts)
const RT_NOW = (1565199921 + 60) * 1000;

export const DATASETS: GoldenDataset[] = [
  {
    name: "bart-caltrain",
    async start() {
      const dir = await importedDataset("planner-bart-caltrain", ["bart-2023", "caltrain"]);
      return { server: await serve(dir, BAY_NOW), tt: timetableOf(dir) };
    },
  },
  {
    name: "rnv-streets",
    async start() {
      const dir = await streetDataset("golden-rnv", ["rnv-mannheim-heidelberg"], [], ["rnv"]);
      await refreshTimetable(dir); // footpaths on these streets (the CLI does this after an import)
      return { server: await serve(dir, Date.UTC(2016, 10, 16, 9, 0, 0)), tt: timetableOf(dir) };
    },
  },
  {
    name: "nyc-subway",
    extraInput: MTA_SUBWAY,
    async start() {
      const dir = await importedDataset("golden-nyc-subway", [MTA_SUBWAY]);
      return { server: await serve(dir, Date.UTC(2026, 5, 10, 14, 0, 0)), tt: timetableOf(dir) };
    },
  },
  {
    name: "bart-realtime",
    async start() {
      const data = tempDir("interchange-golden-rt-");
      cpSync(await importedDataset("golden-bart-2019", ["bart"]), data, { recursive: true });
      const bart = readManifest(data).feeds[0]!.onestop_id;
      const log = console.log;
      console.log = () => {};
      try {
        const code = await runImportRt(["--data", data, "--feed-id", bart, "--retention-days", "0", rtFile("bart-trip-updates-20190807.pb"), rtFile("bart-alerts.pb")]);
        if (code !== 0) throw new Error(`import-rt exited ${code}`);
      } finally {
        console.log = log;
      }
      const server = await serve(data, RT_NOW, { realtimeMaxAgeS: 3600 });
      await server.refreshRealtime();
      return { server, tt: timetableOf(data) };
    },
  },
  {
    name: "no-timetable",
    async start() {
      return { server: await serve(tempDir("interchange-golden-empty-"), BAY_NOW), tt: null };
    },
  },
];

export const goldenPath = (name: string) => join(GOLDEN_DIR, `${name}.json.gz`);

export function readGolden(name: string): GoldenFile | null {
  const p = goldenPath(name);
  return existsSync(p) ? (JSON.parse(gunzipSync(readFileSync(p)).toString("utf8")) as GoldenFile) : null;
}

export const sha1Of = (path: string) => createHash("sha1").update(readFileSync(path)).digest("hex");

/** One plan request, answered as stored. */
export async function ask(server: RunningServer, q: string): Promise<GoldenAnswer> {
  const r = await fetch(`${server.url}${PLAN_PATH}?${q}`);
  return { q, status: r.status, contentType: r.headers.get("content-type"), warning: r.headers.get("x-interchange-warning"), body: await r.text() };
}
