/**
 * The departures index of the catalog (built at load, held by CatalogData): per stop, its
 * stop_time rows in departure-time order (a counting sort by time, then a stable split by stop:
 * ties stay in trip id order), leaving out the last stop_time of each trip and rows without a stop
 * or a time; rows of trips with frequencies.txt entries kept apart per stop. Queried by
 * departures.ts (GET /stops/{stop_key}/departures).
 */
import type { StopTimesIndex, TripIndex } from "./tripindex.ts";

/** A frequency window of a trip: [start, end) every `headway` seconds (GTFS frequencies.txt). */
interface FrequencyWindow {
  start: number;
  end: number;
  headway: number;
}

export class DepartureIndex {
  /** stop id → slot */
  private readonly slotOf = new Map<number, number>();
  /** rows of slot k are rows[starts[k] .. starts[k + 1]) */
  private starts: Int32Array<ArrayBufferLike> = new Int32Array(1);
  private rows: Int32Array<ArrayBufferLike> = new Int32Array(0);
  /** stop id → rows of trips with frequencies (their times are the template's) */
  private readonly freqRows = new Map<number, number[]>();
  /** trip index → its frequency windows */
  readonly frequencies = new Map<number, FrequencyWindow[]>();
  private st: StopTimesIndex | null = null;
  /** the largest departure time indexed (seconds; how far back a calendar day looks for trips past midnight) */
  maxTime = 0;

  /** false when the dataset's stop_times are not held in memory (very large datasets) */
  get available(): boolean {
    return this.st !== null;
  }

  /** the frequency windows of the trip index's trips with frequencies */
  private parseFrequencies(ix: TripIndex): void {
    for (const [t, json] of ix.frequencies) {
      const list = (JSON.parse(json) as { start_time: string | null; end_time: string | null; headway_secs: number | null }[])
        .map((f) => ({ start: secondsOf(f.start_time), end: secondsOf(f.end_time), headway: Number(f.headway_secs) }))
        .filter((f): f is FrequencyWindow => f.start !== null && f.end !== null && f.headway > 0);
      if (list.length) this.frequencies.set(t, list);
    }
  }

  /** The index's arrays, for the index cache (index-cache.ts): slot → stop, the slot ranges, the rows, the frequency rows per stop. */
  parts(): { slotStops: Int32Array; starts: Int32Array; rows: Int32Array; freqStops: Int32Array; freqStarts: Int32Array; freqRows: Int32Array; maxTime: number } {
    const slotStops = new Int32Array(this.slotOf.size);
    for (const [stop, slot] of this.slotOf) slotStops[slot] = stop;
    const freqStops = new Int32Array(this.freqRows.size);
    const freqStarts = new Int32Array(this.freqRows.size + 1);
    let k = 0;
    for (const [stop, list] of this.freqRows) {
      freqStops[k] = stop;
      freqStarts[k + 1] = freqStarts[k]! + list.length;
      k++;
    }
    const freqRows = new Int32Array(freqStarts[k]!);
    k = 0;
    for (const list of this.freqRows.values()) freqRows.set(list, freqStarts[k++]!);
    return { slotStops, starts: this.starts, rows: this.rows, freqStops, freqStarts, freqRows, maxTime: this.maxTime };
  }

  /** The index over arrays from parts() (e.g. views of the memory-mapped index cache) for the trip index they were built from. */
  static fromParts(ix: TripIndex, p: ReturnType<DepartureIndex["parts"]>): DepartureIndex {
    const out = new DepartureIndex();
    if (!ix.stopTimes) return out;
    out.st = ix.stopTimes;
    out.parseFrequencies(ix);
    for (let k = 0; k < p.slotStops.length; k++) out.slotOf.set(p.slotStops[k]!, k);
    for (let k = 0; k < p.freqStops.length; k++) out.freqRows.set(p.freqStops[k]!, Array.from(p.freqRows.subarray(p.freqStarts[k]!, p.freqStarts[k + 1]!)));
    out.starts = p.starts;
    out.rows = p.rows;
    out.maxTime = p.maxTime;
    return out;
  }

  static build(ix: TripIndex): DepartureIndex {
    const out = new DepartureIndex();
    const st = ix.stopTimes;
    if (!st) return out;
    out.st = st;
    out.parseFrequencies(ix);
    // eligible rows: a stop, a departure time, not the trip's last stop_time; their time and stop
    // slot kept per row for the sorting passes (-1: not a departure of the sorted rows)
    const total = st.offsets[ix.n]!;
    const depOf = new Int32Array(total).fill(-1);
    const slotOfRow = new Int32Array(total);
    let m = 0;
    let min = Infinity;
    let max = -Infinity;
    const counts: number[] = [];
    for (let t = 0; t < ix.n; t++) {
      const freq = out.frequencies.has(t);
      for (let i = st.offsets[t]!, end = st.offsets[t + 1]! - 1; i < end; i++) {
        const stop = st.stop.get(i);
        const dep = st.departure(i);
        if (stop === null || dep === null) continue;
        if (freq) {
          const list = out.freqRows.get(stop);
          if (list) list.push(i);
          else out.freqRows.set(stop, [i]);
          continue;
        }
        let slot = out.slotOf.get(stop);
        if (slot === undefined) {
          slot = counts.length;
          out.slotOf.set(stop, slot);
          counts.push(0);
        }
        counts[slot]!++;
        depOf[i] = dep;
        slotOfRow[i] = slot;
        m++;
        if (dep < min) min = dep;
        if (dep > max) max = dep;
      }
    }
    // frequency instances run until their window's end plus the trip's running time to the stop
    for (const [t, windows] of out.frequencies) {
      const first = st.departure(st.offsets[t]!) ?? 0;
      const last = st.arrival.get(st.offsets[t + 1]! - 1) ?? first;
      for (const f of windows) out.maxTime = Math.max(out.maxTime, f.end + last - first);
    }
    if (m === 0) return out;
    out.maxTime = Math.max(out.maxTime, max);
    // counting sort of the rows by departure time (stable: row order, i.e. trip id order, within a time)
    const span = max - min + 1;
    const byTime = new Int32Array(m);
    if (span <= 20_000_000) {
      const pos = new Int32Array(span + 1);
      for (let i = 0; i < total; i++) if (depOf[i]! >= 0) pos[depOf[i]! - min + 1]!++;
      for (let k = 0; k < span; k++) pos[k + 1]! += pos[k]!;
      for (let i = 0; i < total; i++) if (depOf[i]! >= 0) byTime[pos[depOf[i]! - min]!++] = i;
    } else {
      let k = 0;
      for (let i = 0; i < total; i++) if (depOf[i]! >= 0) byTime[k++] = i;
      const sorted = Array.from(byTime).sort((a, b) => depOf[a]! - depOf[b]! || a - b);
      byTime.set(sorted);
    }
    // stable split by stop
    const starts = new Int32Array(counts.length + 1);
    for (let k = 0; k < counts.length; k++) starts[k + 1] = starts[k]! + counts[k]!;
    const fill = starts.slice(0, counts.length);
    const rows = new Int32Array(m);
    for (const i of byTime) rows[fill[slotOfRow[i]!]!++] = i;
    out.starts = starts;
    out.rows = rows;
    return out;
  }

  get bytes(): number {
    return this.rows.byteLength + this.starts.byteLength + this.slotOf.size * 16;
  }

  /** Trip index of stop_time row `i`. */
  tripOf(i: number): number {
    const off = this.st!.offsets;
    let lo = 0;
    let hi = off.length - 1;
    // the last t with offsets[t] <= i (empty trips share their offset with the next trip)
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (off[mid]! <= i) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** Rows at `stop` departing in [from, to] (service-day seconds), in time order (frequency trips not included). */
  *scheduled(stop: number, from: number, to: number): Generator<number> {
    const slot = this.slotOf.get(stop);
    if (slot === undefined) return;
    const st = this.st!;
    let lo = this.starts[slot]!;
    let hi = this.starts[slot + 1]!;
    const end = hi;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (st.departure(this.rows[mid]!)! < from) lo = mid + 1;
      else hi = mid;
    }
    for (let k = lo; k < end; k++) {
      const i = this.rows[k]!;
      if (st.departure(i)! > to) return;
      yield i;
    }
  }

  /** Rows at `stop` of trips with frequencies. */
  frequencyRows(stop: number): number[] {
    return this.freqRows.get(stop) ?? [];
  }
}

function secondsOf(hms: string | null): number | null {
  if (hms === null) return null;
  const m = /^(\d+):(\d{2}):(\d{2})$/.exec(hms);
  return m ? Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]) : null;
}
