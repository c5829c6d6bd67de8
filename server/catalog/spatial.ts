/**
 * In-memory spatial index of the loaded dataset's stops, built once per load: a static k-d tree
 * (kdbush) over every stop that has coordinates, plus, per stop, the stop patterns that visit it.
 *
 * It answers the bbox and lat/lon/radius stop searches and the trips lat/lon filter without a
 * DuckDB round trip. The tree only pre-selects: a bbox is the tree's own inclusive range test on
 * the same doubles DuckDB compares (`BETWEEN`); a circle is the range of its box (geo.ts nearBox)
 * followed by geo.ts's haversine test, exactly the condition the SQL form (nearSql) evaluates.
 *
 * Items are added in stop id order, so an item number sorts like the stop id, and a sorted list of
 * item numbers is a list of stops in id order (the lists' order; the `after` cursor is an id).
 */
import KDBush from "kdbush";
import { isNear, nearBox } from "./geo.ts";
import type { BBox, Near } from "./params.ts";

export class StopSpatialIndex {
  /** stop id of each item, ascending */
  readonly ids: Int32Array;
  readonly lat: Float64Array;
  readonly lon: Float64Array;
  private readonly tree: KDBush;
  /** CSR: item k's stop patterns are patternFv/patternId[patternStart[k] .. patternStart[k + 1]) */
  private patternStart: Int32Array;
  private patternFv: Int32Array = new Int32Array(0);
  private patternId: Int32Array = new Int32Array(0);
  /** (item, version, pattern) triples until finishPatterns */
  private pending: number[] = [];

  /** `points`: [id, lat, lon] of every stop with coordinates, in any order. */
  constructor(points: [number, number, number][]) {
    points.sort((a, b) => a[0] - b[0]);
    const n = points.length;
    this.ids = new Int32Array(n);
    this.lat = new Float64Array(n);
    this.lon = new Float64Array(n);
    // kdbush needs at least one item
    this.tree = new KDBush(Math.max(n, 1), 64, Float64Array);
    for (let k = 0; k < n; k++) {
      const [id, lat, lon] = points[k]!;
      this.ids[k] = id;
      this.lat[k] = lat;
      this.lon[k] = lon;
      this.tree.add(lon, lat);
    }
    if (n === 0) this.tree.add(NaN, NaN); // matches no range
    this.tree.finish();
    this.patternStart = new Int32Array(n + 1);
  }

  get size(): number {
    return this.ids.length;
  }

  /** Item number of a stop id, or -1 when the stop has no coordinates (or does not exist). */
  itemOf(id: number): number {
    const ids = this.ids;
    let lo = 0;
    let hi = ids.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const v = ids[mid]!;
      if (v === id) return mid;
      if (v < id) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  /**
   * Items inside the box and/or the circle (both when both are given), ascending (= stop id order).
   */
  select(bbox: BBox | null, near: Near | null): Uint32Array {
    let found: number[];
    if (bbox) {
      found = this.tree.range(bbox.minLon, bbox.minLat, bbox.maxLon, bbox.maxLat);
    } else if (near) {
      const b = nearBox(near);
      found = this.tree.range(b.minLon ?? -Infinity, b.minLat, b.maxLon ?? Infinity, b.maxLat);
    } else {
      throw new Error("StopSpatialIndex.select needs a bbox or a circle");
    }
    let out = Uint32Array.from(found);
    if (near) {
      const box = nearBox(near);
      let k = 0;
      for (let i = 0; i < out.length; i++) {
        const item = out[i]!;
        if (isNear(near, box, this.lat[item]!, this.lon[item]!)) out[k++] = item;
      }
      out = out.subarray(0, k);
    }
    return out.sort();
  }

  /** Stop ids inside the box and/or circle, ascending. */
  selectIds(bbox: BBox | null, near: Near | null): Int32Array {
    const items = this.select(bbox, near);
    const out = new Int32Array(items.length);
    for (let i = 0; i < items.length; i++) out[i] = this.ids[items[i]!]!;
    return out;
  }

  /** One stop visit of a stop pattern (any order; a stop without coordinates is skipped, as no circle contains it). */
  addPatternStop(fv: number, pattern: number, stopId: number): void {
    const item = this.itemOf(stopId);
    if (item >= 0) this.pending.push(item, fv, pattern);
  }

  /** Index the visits given to addPatternStop (per stop, CSR). */
  finishPatterns(): void {
    const triples = this.pending;
    this.pending = [];
    const n = this.ids.length;
    const start = new Int32Array(n + 1);
    for (let i = 0; i < triples.length; i += 3) start[triples[i]! + 1]!++;
    for (let k = 0; k < n; k++) start[k + 1]! += start[k]!;
    const fill = start.slice(0, n);
    const m = triples.length / 3;
    const fv = new Int32Array(m);
    const pattern = new Int32Array(m);
    for (let i = 0; i < triples.length; i += 3) {
      const at = fill[triples[i]!]!++;
      fv[at] = triples[i + 1]!;
      pattern[at] = triples[i + 2]!;
    }
    this.patternStart = start;
    this.patternFv = fv;
    this.patternId = pattern;
  }

  /** Stop patterns of `versions` that visit a stop within the circle, per version. */
  patternsNear(near: Near, versions: Set<number>): Map<number, Set<number>> {
    const out = new Map<number, Set<number>>();
    if (!versions.size) return out;
    for (const item of this.select(null, near)) {
      for (let j = this.patternStart[item]!, end = this.patternStart[item + 1]!; j < end; j++) {
        const fv = this.patternFv[j]!;
        if (!versions.has(fv)) continue;
        let set = out.get(fv);
        if (!set) out.set(fv, (set = new Set()));
        set.add(this.patternId[j]!);
      }
    }
    return out;
  }

  /** bytes held by the arrays (the tree included) */
  get bytes(): number {
    return this.ids.byteLength + this.lat.byteLength + this.lon.byteLength + this.tree.data.byteLength + this.patternStart.byteLength + this.patternFv.byteLength + this.patternId.byteLength;
  }
}
