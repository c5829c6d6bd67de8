/**
 * The geocoder's search over the index files of the dataset (pipeline/schema/geocode.ts): one
 * GeocodeIndex per file (the street dataset's OSM places, each active feed version's stops), each
 * searched on its own and the hits merged by score.
 *
 * Text search: the query's folded words (shared/geocode-text.ts); every word must match a word of
 * the place (its name, an alias, or a context word: locality, neighbourhood, other names). A word
 * matches exactly, by prefix (the last word; every word ends in a prefix of the place's word as the
 * user types), or with typos (words of 4+ letters: 1 edit, 8+ letters: 2 edits, the first letter
 * kept) when no word of the index starts with it and the words as typed do not fill the answer
 * (searchText). Tokens are sorted, so a prefix is one range of token numbers,
 * its postings one run of the postings array: the cheapest query word drives (its postings are the
 * candidates), the others are checked against each candidate's own word list.
 *
 * Score = 0.75 × match + 0.25 × importance (+ up to 0.25 for nearness to focus.point), where match
 * = 0.75 × mean word quality (exact 1, prefix 0.6-0.95 by how much of the word was typed, 1 typo
 * 0.7, 2 typos 0.5; context words × 0.8) + 0.25 × the share of the name's words matched, and
 * importance is by layer (stations 1 ... addresses 0.4). Confidence = match.
 *
 * Reverse: the places nearest a point (kdbush over each index's points, searched in growing boxes).
 */
import KDBush from "kdbush";
import { haversineM } from "../../shared/geo.ts";
import { CONTEXT_POS, type GeocodeIndexData, type GeocodeProps } from "../../pipeline/schema/geocode.ts";

/** Importance of a layer (0..1): stations above stops above localities ... above addresses. */
export const IMPORTANCE: Record<string, number> = {
  stations: 1, locality: 0.95, stops: 0.8, borough: 0.8, neighbourhood: 0.75, venue: 0.55, street: 0.5, address: 0.4,
};
/** Postings visited at most per index and query (a one- or two-letter query over a large index stops there). */
export const MAX_SCAN = 4_000;

export interface Area {
  rect?: { minLat: number; minLon: number; maxLat: number; maxLon: number };
  circle?: { lat: number; lon: number; radiusKm: number };
  country?: string;
}

export interface TextQuery extends Area {
  words: string[];
  /** the last word may be a prefix (autocomplete; search too, scored lower) */
  prefixLast: boolean;
  /** look for words with typos too (searchText does when the words as typed do not fill the answer) */
  typos?: boolean;
  size: number;
  layers: ReadonlySet<string> | null;
  sources: ReadonlySet<string> | null;
  focus?: { lat: number; lon: number };
}

export interface Hit {
  index: GeocodeIndex;
  doc: number;
  score: number;
  confidence: number;
  /** metres from the focus point (search) or the point (reverse) */
  distanceM?: number;
  matchType?: "exact" | "fallback";
}

interface Matcher {
  lo: number;
  hi: number;
  /** token → typo count */
  fuzzy: Map<number, number> | null;
  word: string;
  prefix: boolean;
  cost: number;
}

export class GeocodeIndex {
  private kd: KDBush | null = null;
  private stamp: Uint32Array;
  private stampNow = 0;
  private readonly decoder = new TextDecoder();
  readonly docs: number;

  /** importance by layer code */
  private readonly importance: Float64Array;

  constructor(readonly d: GeocodeIndexData, readonly name: string) {
    this.docs = d.lon.length;
    this.stamp = new Uint32Array(this.docs);
    this.importance = Float64Array.from(d.layers, (l) => IMPORTANCE[l] ?? 0.3);
  }

  lon(doc: number) { return this.d.lon[doc]! / 1e6; }
  lat(doc: number) { return this.d.lat[doc]! / 1e6; }
  layer(doc: number) { return this.d.layers[this.d.layer[doc]!]!; }
  source(doc: number) { return this.d.sources[this.d.source[doc]!]!; }
  props(doc: number): GeocodeProps {
    return JSON.parse(this.decoder.decode(this.d.props.subarray(this.d.propsOff[doc]!, this.d.propsOff[doc + 1]!))) as GeocodeProps;
  }

  /** First token ≥ s (UTF-16 code unit order, as written). */
  private lowerBound(s: string): number {
    const t = this.d.tokens;
    let lo = 0, hi = t.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (t[mid]! < s) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Whether some word of this index is `word` (or starts with it, with `prefix`). */
  has(word: string, prefix: boolean): boolean {
    const lo = this.lowerBound(word);
    const t = this.d.tokens[lo];
    return t !== undefined && (prefix ? t.startsWith(word) : t === word);
  }

  private matcher(word: string, prefix: boolean, typos: boolean): Matcher {
    const po = this.d.postOff;
    const lo = this.lowerBound(word);
    const hi = prefix ? this.lowerBound(`${word}\uffff`) : this.d.tokens[lo] === word ? lo + 1 : lo;
    let cost = po[hi]! - po[lo]!;
    let fuzzy: Map<number, number> | null = null;
    if (typos && hi === lo && word.length >= 4 && !/^\d+$/.test(word)) {
      const k = word.length >= 8 ? 2 : 1;
      const first = word[0]!;
      const f1 = this.lowerBound(`${first}\uffff`);
      const bits = letterBits(word);
      for (let t = this.lowerBound(first); t < f1; t++) {
        const tok = this.d.tokens[t]!;
        if (!prefix && Math.abs(tok.length - word.length) > k) continue;
        if (prefix && tok.length < word.length - k) continue;
        // each edit brings at most one letter the other word lacks
        if (popcount(bits & ~letterBits(tok, prefix ? word.length + k : tok.length)) > k) continue;
        // a word being typed is compared with the start of the longer word only
        const e = editDistance(word, tok, k, prefix, prefix ? word.length + k : tok.length);
        if (e <= k) {
          (fuzzy ??= new Map()).set(t, e);
          cost += po[t + 1]! - po[t]!;
        }
      }
    }
    return { lo, hi, fuzzy, word, prefix, cost };
  }

  /** The best hits of a text query in this index, best first (at most `want`). */
  search(q: TextQuery, want: number): Hit[] {
    if (this.docs === 0 || q.words.length === 0) return [];
    const layerOk = this.mask(this.d.layers, q.layers);
    const sourceOk = this.mask(this.d.sources, q.sources);
    if (!layerOk.includes(1) || !sourceOk.includes(1)) return [];
    // the words as typed first: a word that matches nothing and may not be misspelt ends the search here
    const prefixAt = (i: number) => q.prefixLast && i === q.words.length - 1;
    const typos = q.typos ?? false;
    let ms = q.words.map((w, i) => this.matcher(w, prefixAt(i), false));
    if (ms.some((m) => m.cost === 0 && !(typos && typoWord(m.word)))) return [];
    ms = ms.map((m, i) => (m.cost === 0 ? this.matcher(m.word, prefixAt(i), true) : m));
    if (ms.some((m) => m.cost === 0)) return [];
    let driver = 0;
    for (let i = 1; i < ms.length; i++) if (ms[i]!.cost < ms[driver]!.cost) driver = i;
    const dm = ms[driver]!;
    const { post, postOff, fwdOff, fwd, fwdPos, nameWords, layer, source } = this.d;
    const top: Hit[] = [];
    if (++this.stampNow === 0xffffffff) {
      this.stamp.fill(0);
      this.stampNow = 1;
    }
    const stampNow = this.stampNow;
    const importance = this.importance;
    let scanned = 0;
    const visit = (doc: number) => {
      if (this.stamp[doc] === stampNow) return;
      this.stamp[doc] = stampNow;
      if (!layerOk[layer[doc]!] || !sourceOk[source[doc]!]) return;
      if (!this.inArea(doc, q)) return;
      // the best this place can score (every word exact, as many name words matched as the query
      // has, at the focus point): a place that cannot enter the full list is not looked at further
      const full = top.length >= want;
      let best = 0;
      if (full) {
        const words = nameWords[doc]!;
        best = 0.75 * (0.75 + 0.25 * (words ? Math.min(1, ms.length / words) : 0)) + 0.25 * importance[layer[doc]!]!;
        if (best + (q.focus ? 0.25 : 0) <= top[top.length - 1]!.score) return;
      }
      let distanceM: number | undefined;
      let near = 0;
      if (q.focus) {
        distanceM = haversineM(q.focus.lat, q.focus.lon, this.lat(doc), this.lon(doc));
        near = 0.25 * Math.exp(-distanceM / 15_000);
        if (full && best + near <= top[top.length - 1]!.score) return;
      }
      let qualities = 0;
      let posMask = 0;
      let exactAll = true;
      for (const m of ms) {
        let best = 0, bestPos = -1;
        for (let i = fwdOff[doc]!; i < fwdOff[doc + 1]!; i++) {
          const t = fwd[i]!;
          let qual = 0;
          if (t >= m.lo && t < m.hi) {
            const len = this.d.tokens[t]!.length;
            qual = len === m.word.length ? 1 : 0.6 + (0.35 * m.word.length) / len;
          } else if (m.fuzzy) {
            const e = m.fuzzy.get(t);
            if (e !== undefined) qual = e === 1 ? (m.prefix ? 0.6 : 0.7) : 0.5;
          }
          if (qual === 0) continue;
          const pos = fwdPos[i]!;
          if (pos === CONTEXT_POS) qual *= 0.8;
          if (qual > best) [best, bestPos] = [qual, pos];
        }
        if (best === 0) return;
        if (best < 1) exactAll = false;
        qualities += best;
        if (bestPos >= 0 && bestPos < 31) posMask |= 1 << bestPos;
      }
      const words = nameWords[doc]!;
      let covered = 0;
      for (let b = posMask; b; b &= b - 1) covered++;
      const coverage = words ? Math.min(1, covered / Math.min(words, 31)) : 0;
      const match = 0.75 * (qualities / ms.length) + 0.25 * coverage;
      const score = 0.75 * match + 0.25 * importance[layer[doc]!]! + near;
      if (top.length < want || score > top[top.length - 1]!.score) {
        const hit: Hit = { index: this, doc, score, confidence: Math.round(match * 1000) / 1000, matchType: exactAll && coverage === 1 ? "exact" : "fallback", ...(distanceM !== undefined ? { distanceM } : {}) };
        let i = top.length;
        while (i > 0 && top[i - 1]!.score < score) i--;
        top.splice(i, 0, hit);
        if (top.length > want) top.pop();
      }
    };
    // the driver's postings: one run per word; a long prefix range (a word of 1-3 letters typed)
    // shortest words first (they match the typed letters best), so MAX_SCAN cuts the worst ones
    let runs: [number, number][];
    if (dm.hi - dm.lo > 1 && postOff[dm.hi]! - postOff[dm.lo]! > MAX_SCAN) {
      const ts: number[] = [];
      for (let t = dm.lo; t < dm.hi; t++) ts.push(t);
      ts.sort((a, b) => this.d.tokens[a]!.length - this.d.tokens[b]!.length || a - b);
      runs = ts.map((t) => [postOff[t]!, postOff[t + 1]!]);
    } else runs = [[postOff[dm.lo]!, postOff[dm.hi]!]];
    if (dm.fuzzy) for (const t of dm.fuzzy.keys()) runs.push([postOff[t]!, postOff[t + 1]!]);
    for (const [a, b] of runs) {
      for (let i = a; i < b && scanned < MAX_SCAN; i++, scanned++) visit(post[i]!);
    }
    return top;
  }

  /** The places nearest (lat, lon) within maxM metres, nearest first (at most `want`). */
  reverse(lat: number, lon: number, maxM: number, want: number, area: Area, layers: ReadonlySet<string> | null, sources: ReadonlySet<string> | null): Hit[] {
    if (this.docs === 0) return [];
    const layerOk = this.mask(this.d.layers, layers);
    const sourceOk = this.mask(this.d.sources, sources);
    if (!layerOk.includes(1) || !sourceOk.includes(1)) return [];
    const kd = this.spatial();
    const cosLat = Math.max(0.05, Math.cos((lat * Math.PI) / 180));
    let found: Hit[] = [];
    for (let r = 250; ; r *= 4) {
      const rr = Math.min(r, maxM);
      const dLat = rr / 111_195, dLon = dLat / cosLat;
      found = [];
      for (const doc of kd.range(lon - dLon, lat - dLat, lon + dLon, lat + dLat)) {
        if (!layerOk[this.d.layer[doc]!] || !sourceOk[this.d.source[doc]!] || !this.inArea(doc, area)) continue;
        const dm = haversineM(lat, lon, this.lat(doc), this.lon(doc));
        if (dm <= rr) found.push({ index: this, doc, score: -dm, confidence: reverseConfidence(dm), distanceM: dm });
      }
      if (found.length >= want || rr >= maxM) break;
    }
    found.sort((a, b) => a.distanceM! - b.distanceM! || IMPORTANCE[this.layer(b.doc)]! - IMPORTANCE[this.layer(a.doc)]!);
    return found.slice(0, want);
  }

  private spatial(): KDBush {
    if (!this.kd) {
      const kd = new KDBush(this.docs);
      for (let i = 0; i < this.docs; i++) kd.add(this.lon(i), this.lat(i));
      kd.finish();
      this.kd = kd;
    }
    return this.kd;
  }

  /** Builds what the first reverse request would (so it is not slow). */
  warm(): void {
    this.spatial();
  }

  private mask(names: string[], allowed: ReadonlySet<string> | null): Uint8Array {
    const m = new Uint8Array(Math.max(names.length, 1));
    names.forEach((n, i) => { m[i] = !allowed || allowed.has(n) ? 1 : 0; });
    return m;
  }

  private inArea(doc: number, a: Area): boolean {
    if (a.rect) {
      const la = this.lat(doc), lo = this.lon(doc);
      if (la < a.rect.minLat || la > a.rect.maxLat || lo < a.rect.minLon || lo > a.rect.maxLon) return false;
    }
    if (a.circle && haversineM(a.circle.lat, a.circle.lon, this.lat(doc), this.lon(doc)) > a.circle.radiusKm * 1000) return false;
    if (a.country) {
      const p = this.props(doc);
      if ((p.country_code ?? "").toUpperCase() !== a.country) return false;
    }
    return true;
  }
}

/** Pelias's reverse confidence: by distance. */
function reverseConfidence(m: number): number {
  if (m < 1) return 1;
  if (m < 10) return 0.9;
  if (m < 100) return 0.8;
  if (m < 250) return 0.7;
  if (m < 1000) return 0.6;
  if (m < 5000) return 0.5;
  return 0.3;
}

/**
 * Edit distance (insertions, deletions, substitutions) between `a` and `b`, or k + 1 when above k;
 * with `prefix`, between `a` and the closest prefix of `b` (a word still being typed). Only the
 * first `limit` characters of `b` are read.
 */
export function editDistance(a: string, b: string, k: number, prefix: boolean, limit = b.length): number {
  const n = a.length, m = Math.min(b.length, limit);
  if (m + 1 > ROW_A.length) return k + 1; // words are cut at 40 characters: never here
  let prev = ROW_A, cur = ROW_B;
  for (let j = 0; j <= m; j++) prev[j] = j;
  for (let i = 1; i <= n; i++) {
    cur[0] = i;
    let rowMin = i;
    const ca = a.charCodeAt(i - 1);
    for (let j = 1; j <= m; j++) {
      const sub = prev[j - 1]! + (ca === b.charCodeAt(j - 1) ? 0 : 1);
      const del = cur[j - 1]! + 1, ins = prev[j]! + 1;
      const v = sub < del ? (sub < ins ? sub : ins) : del < ins ? del : ins;
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > k) return k + 1;
    const t = prev;
    prev = cur;
    cur = t;
  }
  // prev: the distances from all of `a` to each prefix of `b`
  let best = prev[m]!;
  if (prefix) for (let j = 0; j < m; j++) if (prev[j]! < best) best = prev[j]!;
  return best < k + 1 ? best : k + 1;
}
const ROW_A = new Int32Array(128);
const ROW_B = new Int32Array(128);

/** A word's letters as 32 bits (char code mod 32): a word missing more than k of another's bits is more than k edits from it. */
export function letterBits(w: string, limit = w.length): number {
  let bits = 0;
  for (let i = 0; i < w.length && i < limit; i++) bits |= 1 << (w.charCodeAt(i) & 31);
  return bits;
}

function popcount(x: number): number {
  let c = 0;
  for (let v = x >>> 0; v; v &= v - 1) c++;
  return c;
}

/**
 * A text query over all indexes: the words as typed (exact and prefix) first; when they do not
 * fill the answer, again with typos allowed (so typo search costs only where it is needed).
 */
export function searchText(indexes: readonly GeocodeIndex[], q: TextQuery): Hit[] {
  const want = q.size + 5; // a few more: places of one name close together are given once
  const first = indexes.map((i) => i.search({ ...q, typos: false }, want));
  const hits = mergeHits(first, q.size);
  if (hits.length >= q.size) return hits;
  // again with typos, in the indexes where a word that may be misspelt matches nothing as typed
  const retry = indexes.map((idx) => q.words.some((w, i) => typoWord(w) && !idx.has(w, q.prefixLast && i === q.words.length - 1)));
  if (!retry.includes(true)) return hits;
  return mergeHits(indexes.map((idx, i) => (retry[i] ? idx.search({ ...q, typos: true }, want) : first[i]!)), q.size);
}

/** Whether a word may be looked up with typos: 4 letters or more, not a number. */
const typoWord = (w: string) => w.length >= 4 && !/^\d+$/.test(w);

/** Hits of all indexes merged: by score, the same name and layer within 250 m given once. */
export function mergeHits(lists: Hit[][], size: number, byDistance = false): Hit[] {
  const all = lists.flat();
  all.sort(byDistance ? (a, b) => a.distanceM! - b.distanceM! : (a, b) => b.score - a.score);
  const out: Hit[] = [];
  const seen: { name: string; layer: string; lat: number; lon: number }[] = [];
  for (const h of all) {
    if (out.length >= size) break;
    const name = h.index.props(h.doc).name.toLowerCase();
    const layer = h.index.layer(h.doc);
    const lat = h.index.lat(h.doc), lon = h.index.lon(h.doc);
    if (seen.some((s) => s.name === name && s.layer === layer && haversineM(s.lat, s.lon, lat, lon) < 250)) continue;
    seen.push({ name, layer, lat, lon });
    out.push(h);
  }
  return out;
}
