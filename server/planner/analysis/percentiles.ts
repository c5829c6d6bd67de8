// Purpose: travel-time percentiles by R5's definition, and cumulative accessibility from them.
/**
 * Percentiles as Conveyal R5 defines them (TravelTimeReducer.findPercentileIndex): of the n travel
 * times of a window (one per departure minute), sorted ascending, the p-th percentile is the one at
 * one-based rank ceil(p / 100 * n) (the nearest-rank method: no interpolation, always a value that
 * occurs). Times are whole minutes, rounded down (R5's convertToMinutes); a time of maxDuration
 * minutes or more, and no journey at all, count as unreachable, sorted last: a high percentile may
 * then be unreachable although a low one is not. Accessibility counts a destination within a cutoff
 * when its percentile time is reachable and under the cutoff (R5's `<`: minutes rounded down, so
 * 29:59 counts within 30 minutes and 30:00 does not).
 */

/** A travel time (seconds) that is no journey at all. */
export const NO_JOURNEY = 0x3fffffff;
/** A percentile minute that is unreachable (null in the outputs). */
export const UNREACHABLE = -1;

/** Zero-based index into n sorted times of percentile p (1..100): ceil(p / 100 * n) - 1. */
export function percentileIndex(n: number, p: number): number {
  if (!(p > 0 && p <= 100)) throw new Error(`percentile ${p} is not in 1..100`);
  return Math.max(0, Math.ceil((p / 100) * n - 1e-9) - 1);
}

/**
 * Percentile minutes of the times `sec[0 .. n)` (seconds, NO_JOURNEY for none) into out[o .. o +
 * idx.length), UNREACHABLE where the time is maxDurationMin minutes or more. `idx` ascending
 * (percentileIndex of ascending percentiles); `counts` scratch of maxDurationMin + 1 entries.
 * A counting sort over the minutes, as R5 does.
 */
export function percentileMinutes(sec: Int32Array, n: number, maxDurationMin: number, idx: Int32Array, counts: Int32Array, out: Int16Array, o: number): void {
  counts.fill(0);
  for (let i = 0; i < n; i++) {
    const m = Math.floor(sec[i]! / 60);
    counts[m < maxDurationMin ? m : maxDurationMin]!++;
  }
  let minute = 0;
  let cum = counts[0]!;
  for (let k = 0; k < idx.length; k++) {
    while (cum <= idx[k]!) cum += counts[++minute]!;
    out[o + k] = minute >= maxDurationMin ? UNREACHABLE : minute;
  }
}

/** Minutes of one time (seconds) as percentileMinutes writes them. */
export function minutesOf(sec: number, maxDurationMin: number): number {
  const m = Math.floor(sec / 60);
  return m < maxDurationMin ? m : UNREACHABLE;
}

/**
 * Cumulative accessibility of one origin: for each cutoff c and percentile k, the sum of each
 * opportunity column over the destinations whose k-th percentile time is reachable and under c
 * minutes. `pct`: destination-major percentile minutes (nDest * nPct). Result index: (c * nPct + k)
 * * nCols + col.
 */
export function accessibility(pct: Int16Array, nDest: number, nPct: number, cutoffsMin: number[], opportunities: Float64Array[]): Float64Array {
  const nCols = opportunities.length;
  const out = new Float64Array(cutoffsMin.length * nPct * nCols);
  if (nCols === 0) return out;
  for (let d = 0; d < nDest; d++) {
    for (let k = 0; k < nPct; k++) {
      const m = pct[d * nPct + k]!;
      if (m === UNREACHABLE) continue;
      for (let c = 0; c < cutoffsMin.length; c++) {
        if (m >= cutoffsMin[c]!) continue;
        const base = (c * nPct + k) * nCols;
        for (let j = 0; j < nCols; j++) out[base + j]! += opportunities[j]![d]!;
      }
    }
  }
  return out;
}
