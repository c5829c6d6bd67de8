/**
 * After the active dataset changes, the planner's Arrow timetable is recompiled from the active
 * versions (pipeline/timetable/compile.ts) and the manifest is pointed at it.
 */
export function compileTimetableHook(progress?: (msg: string) => void): (dataDir: string) => Promise<void> {
  return async (_dataDir: string) => {
    progress?.("timetable: compile not available yet");
  };
}
