/**
 * refreshTimetable and pruneTimetables moved to pipeline/timetable/publish.ts, with everything
 * else that writes the timetable into a dataset. This re-export keeps the callers outside
 * pipeline/ that still import it from here working (test/support/dataset.ts,
 * test/planner/unseen-feeds.test.ts); new code imports publish.ts.
 */
export { pruneTimetables, refreshTimetable } from "./timetable/publish.ts";
