/**
 * The real-feed planner fixture shared by the real-feed tests: BART 2023 + Caltrain imported by
 * the real pipeline (which compiles the timetable), the loaded PlanService, the independent GTFS
 * reference, and a small deterministic PRNG so failures reproduce.
 */
import { join } from "node:path";
import { importedDataset } from "../../support/dataset.ts";
import { readManifest } from "../../../pipeline/schema/manifest.ts";
import { loadTimetableFile } from "../../../server/planner/timetable/arrow-loader.ts";
import { PlanService } from "../../../server/planner/plan-service.ts";
import { GtfsReference } from "./gtfs-reference.ts";

export async function bartCaltrain(): Promise<{ dir: string; svc: PlanService; ref: GtfsReference }> {
  const dir = await importedDataset("planner-bart-caltrain", ["bart-2023", "caltrain"]);
  const tt = readManifest(dir).timetable;
  if (!tt) throw new Error("the import did not compile a timetable");
  const svc = new PlanService(loadTimetableFile(join(dir, tt.path)));
  return { dir, svc, ref: await GtfsReference.load(dir) };
}

export function rng(seed: number) {
  return () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
}
