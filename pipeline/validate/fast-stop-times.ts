/**
 * stop_times.txt for a validation of its own (`interchange validate`) read by the import's fast
 * reader (../gtfs/stop-times/fast.ts, in a worker thread while DuckDB reads the other files)
 * instead of DuckDB's CSV reader, when that gives the same report: the fast reader accepts only
 * files in the plain form (no quote, no blank line, every row the header's field count, UTF-8,
 * times as H:MM:SS, integers as digits), and this module takes its columns only when, beyond that,
 * none of stop_times.txt's field-level checks fires: no spec column the reader skips (the GTFS-Flex
 * windows, the booking rules), ids and headsigns with nothing to trim, ids in printable ASCII,
 * enum values in their range, every trip_id in trips.txt and stop_id in stops.txt, no duplicate
 * (trip_id, stop_sequence). Otherwise the file is read by DuckDB as before (load.ts), and its checks
 * find what there is. When its columns are taken, they are put in the order and keys the stop-time
 * pass reads from v_stop_times (stop-times.ts): trips and stops keyed by their first row in trips.txt
 * and stops.txt, rows in (trip, stop_sequence) order, each with its CSV row number.
 * (On MTA bus_bk's 153 MB file: DuckDB's read, its checks and the sort into trip order took most of
 * a validation; the fast reader reads it in about a second, on the other core.)
 */
import type { DuckDBConnection } from "@duckdb/node-api";
import { NULL_INT, readStopTimesOffThread, type Declined, type FastStopTimes, type StopTimesOffThread } from "../gtfs/stop-times/fast.ts";
import { tripAndStopDictionaries, type PreparedStopTimes, type StopTimeColumns } from "./stop-times.ts";

/** Files from this size on are read by the fast reader (below, DuckDB's read costs little and a worker's start is not worth it). */
export const FAST_STOP_TIMES_MIN_BYTES = 4 << 20;

/** stop_times.txt's spec columns the fast reader parses (or requires empty); a file with any other spec column is left to DuckDB. */
const READ_COLUMNS = new Set([
  "trip_id", "arrival_time", "departure_time", "stop_id", "stop_sequence", "stop_headsign", "location_id", "location_group_id",
  "pickup_type", "drop_off_type", "continuous_pickup", "continuous_drop_off", "shape_dist_traveled", "timepoint",
]);

/** Each enum column's largest value (the spec's values are 0..max). */
const ENUM_MAX: Record<string, number> = { pickup_type: 3, drop_off_type: 3, continuous_pickup: 3, continuous_drop_off: 3, timepoint: 1 };

/** A value DuckDB's trim() could change (it strips spaces, Unicode spaces included: any leading or trailing \s is taken for one). */
const untrimmed = (v: string) => /^\s|\s$/.test(v);
const printable = (v: string) => /^[\x20-\x7E]*$/.test(v);

/** The fast reader started on a file (a worker thread), to be taken or not once the header is known. */
export class FastStopTimesRead {
  private readonly read: StopTimesOffThread;

  constructor(path: string) {
    this.read = readStopTimesOffThread({ file: path });
  }

  /**
   * The fast reader's columns when they can stand in for the file as far as its own checks go
   * (`header`: the header as load.ts read it, `specColumns`: stop_times.txt's spec columns);
   * null to read it with DuckDB. The checks against trips.txt and stops.txt come later (prepare).
   */
  async take(header: string[], specColumns: ReadonlySet<string>): Promise<FastStopTimes | null> {
    const parsed: FastStopTimes | Declined = await this.read.take();
    if ("declined" in parsed) return null;
    if (parsed.header.length !== header.length || parsed.header.some((h, i) => h !== header[i])) return null;
    if (header.some((h) => specColumns.has(h) && !READ_COLUMNS.has(h))) return null;
    for (const id of [...parsed.tripIds, ...parsed.stopIds]) if (id === "" || untrimmed(id) || !printable(id)) return null;
    if (parsed.headsigns?.some(untrimmed)) return null;
    for (const [c, values] of Object.entries(parsed.ints)) {
      const max = ENUM_MAX[c];
      if (max === undefined) return null;
      for (let i = 0; i < values.length; i++) if (values[i] !== NULL_INT && values[i]! > max) return null;
    }
    return parsed;
  }

  /** stops the worker (when it is not waited for) */
  cancel(): void {
    this.read.cancel();
  }
}

/**
 * The stop-time pass's input from the fast reader's columns, keyed and ordered as from v_stop_times
 * (trips.txt and stops.txt loaded); null when some trip_id or stop_id has no row in those files or a
 * (trip_id, stop_sequence) repeats (notices the DuckDB read finds: the file is read with it then).
 */
export async function prepareFastStopTimes(conn: DuckDBConnection, fast: FastStopTimes): Promise<PreparedStopTimes | null> {
  const { trips, stops } = await tripAndStopDictionaries(conn, undefined);
  const keyOf = (m: Map<number, { id: string }>) => new Map([...m].map(([k, v]) => [v.id, k]));
  const tripKey = keyOf(trips), stopKey = keyOf(stops);
  const tripKeys = new Int32Array(fast.tripIds.length), stopKeys = new Int32Array(fast.stopIds.length);
  for (const [ids, keys, by] of [[fast.tripIds, tripKeys, tripKey], [fast.stopIds, stopKeys, stopKey]] as const) {
    for (let c = 0; c < ids.length; c++) {
      const k = by.get(ids[c]!);
      if (k === undefined) return null;
      keys[c] = k;
    }
  }
  const order = tripOrder(fast, tripKeys);
  const n = fast.rows;
  const cols: StopTimeColumns = {
    tk: new Int32Array(n), seq: new Int32Array(n), sk: new Int32Array(n), arr: new Int32Array(n), dep: new Int32Array(n),
    tp: new Int32Array(n), line: new Int32Array(n), dist: new Float64Array(n),
  };
  const tp = fast.ints.timepoint, dist = fast.shapeDist;
  for (let j = 0; j < n; j++) {
    const i = order ? order[j]! : j;
    cols.tk[j] = tripKeys[fast.trip[i]!]!;
    cols.seq[j] = fast.seq[i]!;
    if (j > 0 && cols.tk[j] === cols.tk[j - 1] && cols.seq[j] === cols.seq[j - 1]) return null; // duplicate_key
    cols.sk[j] = stopKeys[fast.stop[i]!]!;
    cols.arr[j] = fast.arr[i] === NULL_INT ? -1 : fast.arr[i]!;
    cols.dep[j] = fast.dep[i] === NULL_INT ? -1 : fast.dep[i]!;
    cols.tp[j] = !tp || tp[i] === NULL_INT ? -1 : tp[i]!;
    cols.line[j] = i + 2; // (no blank line, no quoted newline: row i is on line i + 2)
    cols.dist[j] = !dist || Number.isNaN(dist[i]!) ? -1 : dist[i]!;
  }
  return { cols, trips, stops };
}

/**
 * The rows' order by (trip key, stop_sequence), as the pass's query sorts them; null when the file's
 * order is that already. The rows of each trip are gathered in trip-key order (a counting sort,
 * stable), then each trip's rows sorted by stop_sequence when they are not.
 */
function tripOrder(fast: FastStopTimes, tripKeys: Int32Array): Int32Array | null {
  const n = fast.rows, trip = fast.trip, seq = fast.seq;
  let sorted = true;
  for (let i = 1; i < n && sorted; i++) {
    const a = tripKeys[trip[i - 1]!]!, b = tripKeys[trip[i]!]!;
    if (b < a || (b === a && seq[i]! < seq[i - 1]!)) sorted = false;
  }
  if (sorted) return null;
  const codes = tripKeys.length;
  const byKey = Array.from({ length: codes }, (_, c) => c).sort((x, y) => tripKeys[x]! - tripKeys[y]!);
  const count = new Int32Array(codes);
  for (let i = 0; i < n; i++) count[trip[i]!]!++;
  // each code's first place: the codes in key order
  const first = new Int32Array(codes);
  let at = 0;
  for (const c of byKey) {
    first[c] = at;
    at += count[c]!;
  }
  const order = new Int32Array(n);
  const next = first.slice();
  for (let i = 0; i < n; i++) order[next[trip[i]!]!++] = i;
  for (const c of byKey) {
    const s = first[c]!, e = next[c]!;
    let inOrder = true;
    for (let j = s + 1; j < e && inOrder; j++) if (seq[order[j]!]! < seq[order[j - 1]!]!) inOrder = false;
    if (!inOrder) order.set(Array.from(order.subarray(s, e)).sort((x, y) => seq[x]! - seq[y]!), s);
  }
  return order;
}
