/**
 * The geocoder index (pipeline/schema/geocode.ts) from a list of places: each place's name split
 * into folded words (shared/geocode-text.ts) with their aliases, its context words (locality,
 * neighbourhood, other names), the word → places postings and the place → words lists, the
 * places numbered by importance. Written durably by the caller (street import, feed import).
 */
import { aliases, tokens } from "../../shared/geocode-text.ts";
import { CONTEXT_POS, encodeGeocodeIndex, GEOCODE_LAYERS, type GeocodeLayer, type GeocodeProps } from "../schema/geocode.ts";

/** One place to index. */
export interface GeoDoc {
  layer: GeocodeLayer;
  source: string;
  lon: number;
  lat: number;
  props: GeocodeProps;
  /** more names it is known by (other languages, older names): searched as context words */
  otherNames?: string[];
}

/** Layer order = importance: stations first, addresses last (docs are numbered in this order). */
const RANK = new Map<string, number>(GEOCODE_LAYERS.map((l, i) => [l, i]));

export interface GeocodeBuildReport {
  docs: number;
  tokens: number;
  bytes: number;
  by_layer: Record<string, number>;
}

/** The index file's bytes for `docs`, with what it holds. */
export function buildGeocodeIndex(docs: GeoDoc[]): { bytes: Uint8Array; report: GeocodeBuildReport } {
  const kept = docs.filter((d) => Number.isFinite(d.lon) && Number.isFinite(d.lat) && Math.abs(d.lat) <= 90 && Math.abs(d.lon) <= 180 && tokens(d.props.name).length > 0);
  kept.sort((a, b) => RANK.get(a.layer)! - RANK.get(b.layer)! || (a.props.name < b.props.name ? -1 : a.props.name > b.props.name ? 1 : 0));
  const cols = docColumns(kept);
  const lists = invert(cols.words, cols.docWords);
  const bytes = encodeGeocodeIndex({ ...lists, nameWords: cols.nameWords, lon: cols.lon, lat: cols.lat, layer: cols.layer, source: cols.source, ...packProps(kept), layers: cols.layers, sources: cols.sources });
  return { bytes, report: { docs: kept.length, tokens: lists.tokens.length, bytes: bytes.length, by_layer: cols.by_layer } };
}

/**
 * Each document's words (its name's words at their positions, their aliases, and context words of
 * its locality, neighbourhood and other names at CONTEXT_POS; each word once), numbered in a
 * dictionary in order of first use; and the documents' columns (coordinates, layer, source codes).
 */
function docColumns(kept: GeoDoc[]) {
  const n = kept.length;
  const layers: string[] = [];
  const sources: string[] = [];
  const code = (list: string[], v: string) => {
    let i = list.indexOf(v);
    if (i < 0) {
      i = list.push(v) - 1;
      if (i > 255) throw new Error("geocode index: more than 256 sources");
    }
    return i;
  };
  // words of each doc: [token, pos]
  const dict = new Map<string, number>();
  const words: string[] = [];
  const docWords: { t: number[]; p: number[] }[] = new Array(n);
  const nameWords = new Uint8Array(n);
  const lon = new Int32Array(n), lat = new Int32Array(n), layer = new Uint8Array(n), source = new Uint8Array(n);
  const by_layer: Record<string, number> = {};
  const id = (w: string) => {
    let i = dict.get(w);
    if (i === undefined) {
      i = words.push(w) - 1;
      dict.set(w, i);
    }
    return i;
  };
  for (let d = 0; d < n; d++) {
    const doc = kept[d]!;
    const t: number[] = [], p: number[] = [];
    const seen = new Set<string>();
    const add = (w: string, pos: number) => {
      if (seen.has(w)) return;
      seen.add(w);
      t.push(id(w));
      p.push(pos);
    };
    const name = tokens(doc.props.name).slice(0, 250);
    name.forEach((w, i) => add(w, i));
    name.forEach((w, i) => { for (const a of aliases(w)) add(a, i); });
    for (const c of [doc.props.locality, doc.props.neighbourhood, ...(doc.otherNames ?? [])]) if (c) for (const w of tokens(c)) add(w, CONTEXT_POS);
    docWords[d] = { t, p };
    nameWords[d] = name.length;
    lon[d] = Math.round(doc.lon * 1e6);
    lat[d] = Math.round(doc.lat * 1e6);
    layer[d] = code(layers, doc.layer);
    source[d] = code(sources, doc.source);
    by_layer[doc.layer] = (by_layer[doc.layer] ?? 0) + 1;
  }
  return { words, docWords, nameWords, lon, lat, layer, source, layers, sources, by_layer };
}

/** The words sorted (by UTF-16 code units: the server's binary search compares the same way), each document's forward list in the sorted numbering, and the postings (documents ascending within each word). */
function invert(words: string[], docWords: { t: number[]; p: number[] }[]) {
  const n = docWords.length;
  const order = words.map((_, i) => i).sort((a, b) => (words[a]! < words[b]! ? -1 : words[a]! > words[b]! ? 1 : 0));
  const rename = new Uint32Array(words.length);
  order.forEach((old, i) => { rename[old] = i; });
  const sorted = order.map((i) => words[i]!);
  // forward lists, renamed
  let total = 0;
  for (const w of docWords) total += w.t.length;
  const fwdOff = new Uint32Array(n + 1), fwd = new Uint32Array(total), fwdPos = new Uint8Array(total);
  const counts = new Uint32Array(sorted.length);
  let k = 0;
  for (let d = 0; d < n; d++) {
    fwdOff[d] = k;
    const w = docWords[d]!;
    for (let i = 0; i < w.t.length; i++) {
      const t = rename[w.t[i]!]!;
      fwd[k] = t;
      fwdPos[k++] = w.p[i]!;
      counts[t]!++;
    }
  }
  fwdOff[n] = k;
  // postings: docs ascending within each token (docs are visited in order)
  const postOff = new Uint32Array(sorted.length + 1);
  for (let t = 0; t < sorted.length; t++) postOff[t + 1] = postOff[t]! + counts[t]!;
  const fill = postOff.slice(0, sorted.length);
  const post = new Uint32Array(total);
  for (let d = 0; d < n; d++) for (let i = fwdOff[d]!; i < fwdOff[d + 1]!; i++) post[fill[fwd[i]!]!++] = d;
  return { tokens: sorted, postOff, post, fwdOff, fwd, fwdPos };
}

/** The documents' properties, one JSON text each, end to end, with their offsets. */
function packProps(kept: GeoDoc[]): { propsOff: Uint32Array; props: Uint8Array } {
  const n = kept.length;
  const enc = new TextEncoder();
  const texts = kept.map((d) => enc.encode(JSON.stringify(d.props)));
  const propsOff = new Uint32Array(n + 1);
  for (let d = 0; d < n; d++) propsOff[d + 1] = propsOff[d]! + texts[d]!.length;
  const props = new Uint8Array(propsOff[n]!);
  for (let d = 0; d < n; d++) props.set(texts[d]!, propsOff[d]!);
  return { propsOff, props };
}
