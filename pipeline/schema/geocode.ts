/**
 * The geocoder index file: what it holds and its byte layout, for the pipeline that writes it
 * (pipeline/geocode/) and the server that searches it (server/geocoder/). One file per source of
 * places: `geocode.bin` in a street dataset folder (names and addresses of the OSM extracts,
 * written at street import) and in a feed version folder (its stops and stations, written at feed
 * import). Part of the dataset contract (pipeline/schema/): imports nothing but node's built-ins.
 *
 * Layout: the magic `IXGEO\n`, a u32 (little-endian) header length, the header (JSON:
 * GeocodeHeader), then the sections, each starting on an 8-byte boundary of the file:
 *   tokens     the distinct folded tokens (shared/geocode-text.ts), sorted by UTF-16 code units, joined by "\n" (UTF-8)
 *   post_off   u32 × (tokens + 1): where each token's postings start in `post`
 *   post       u32: doc numbers, ascending within a token
 *   fwd_off    u32 × (docs + 1): where each doc's tokens start in `fwd`
 *   fwd        u32: token numbers of a doc (its name's words, their aliases, then its context words)
 *   fwd_pos    u8 parallel to fwd: the word's position in the name (aliases: their word's), CONTEXT_POS for context words
 *   name_words u8 × docs: words in the doc's name
 *   lon, lat   i32 × docs: microdegrees
 *   layer      u8 × docs: index into header.layers
 *   source     u8 × docs: index into header.sources
 *   props_off  u32 × (docs + 1), props: each doc's properties as UTF-8 JSON (GeocodeProps)
 * Docs are numbered by importance (most important first), so postings scanned in order meet
 * stations before streets.
 */

export const GEOCODE_FORMAT = 1;
/** The index file's name, in a street dataset folder and in a feed version folder. */
export const GEOCODE_FILE = "geocode.bin";
/** fwd_pos of a context word (locality, neighbourhood, other names). */
export const CONTEXT_POS = 255;
const MAGIC = "IXGEO\n";

/** Pelias's layers this index can hold, with the transit layers of OTP-UI ("stops", "stations"). */
export const GEOCODE_LAYERS = ["stations", "stops", "locality", "borough", "neighbourhood", "venue", "street", "address"] as const;
export type GeocodeLayer = (typeof GEOCODE_LAYERS)[number];

/** A place's properties as stored (Pelias's names); coordinates are in lon/lat. */
export interface GeocodeProps {
  name: string;
  source_id: string;
  housenumber?: string;
  street?: string;
  postalcode?: string;
  neighbourhood?: string;
  locality?: string;
  region?: string;
  region_a?: string;
  country?: string;
  country_code?: string;
  /** [min_lon, min_lat, max_lon, max_lat] of a street or an area */
  bbox?: [number, number, number, number];
  /** more about the place by source: `gtfs` (feed, stop_id, stop_code), `osm` (tags kept) */
  addendum?: Record<string, Record<string, unknown>>;
}

export interface GeocodeHeader {
  format: number;
  docs: number;
  tokens: number;
  layers: string[];
  sources: string[];
  /** name → [offset, bytes] from the start of the file */
  sections: Record<string, [number, number]>;
}

export interface GeocodeIndexData {
  tokens: string[];
  postOff: Uint32Array;
  post: Uint32Array;
  fwdOff: Uint32Array;
  fwd: Uint32Array;
  fwdPos: Uint8Array;
  nameWords: Uint8Array;
  lon: Int32Array;
  lat: Int32Array;
  layer: Uint8Array;
  source: Uint8Array;
  propsOff: Uint32Array;
  props: Uint8Array;
  layers: string[];
  sources: string[];
}

const SECTIONS = ["tokens", "post_off", "post", "fwd_off", "fwd", "fwd_pos", "name_words", "lon", "lat", "layer", "source", "props_off", "props"] as const;

/** The file's bytes. */
export function encodeGeocodeIndex(d: GeocodeIndexData): Uint8Array {
  const parts: Record<(typeof SECTIONS)[number], Uint8Array> = {
    tokens: new TextEncoder().encode(d.tokens.join("\n")),
    post_off: bytes(d.postOff), post: bytes(d.post), fwd_off: bytes(d.fwdOff), fwd: bytes(d.fwd), fwd_pos: d.fwdPos,
    name_words: d.nameWords, lon: bytes(d.lon), lat: bytes(d.lat), layer: d.layer, source: d.source, props_off: bytes(d.propsOff), props: d.props,
  };
  // the header: the sections laid out from `start`, padded to 64 bytes
  const header = (start: number) => {
    const sections: Record<string, [number, number]> = {};
    let off = start;
    for (const s of SECTIONS) {
      off = align8(off);
      sections[s] = [off, parts[s].length];
      off += parts[s].length;
    }
    const h: GeocodeHeader = { format: GEOCODE_FORMAT, docs: d.lon.length, tokens: d.tokens.length, layers: d.layers, sources: d.sources, sections };
    const text = JSON.stringify(h);
    return { json: new TextEncoder().encode(text.padEnd(64 * Math.ceil(text.length / 64))), end: off };
  };
  // the sections start after the header, whose length depends on their offsets: laid out until it holds still
  let start = 0;
  let h = header(start);
  for (let i = 0; i < 8 && align8(MAGIC.length + 4 + h.json.length) !== start; i++) {
    start = align8(MAGIC.length + 4 + h.json.length);
    h = header(start);
  }
  if (align8(MAGIC.length + 4 + h.json.length) !== start) throw new Error("geocode index: the header's layout does not settle");
  const out = new Uint8Array(h.end);
  out.set(new TextEncoder().encode(MAGIC), 0);
  new DataView(out.buffer).setUint32(MAGIC.length, h.json.length, true);
  out.set(h.json, MAGIC.length + 4);
  const parsed = JSON.parse(new TextDecoder().decode(h.json)) as GeocodeHeader;
  for (const s of SECTIONS) out.set(parts[s], parsed.sections[s]![0]);
  return out;
}

/** The index in a file's bytes (views over them, no copy when the bytes are 8-byte aligned). */
export function decodeGeocodeIndex(input: Uint8Array): GeocodeIndexData {
  const buf = input.byteOffset % 8 === 0 ? input : new Uint8Array(input);
  if (new TextDecoder().decode(buf.subarray(0, MAGIC.length)) !== MAGIC) throw new Error("not a geocoder index (bad magic)");
  const hlen = new DataView(buf.buffer, buf.byteOffset).getUint32(MAGIC.length, true);
  const h = JSON.parse(new TextDecoder().decode(buf.subarray(MAGIC.length + 4, MAGIC.length + 4 + hlen))) as GeocodeHeader;
  if (h.format !== GEOCODE_FORMAT) throw new Error(`geocoder index format ${h.format}, this program reads ${GEOCODE_FORMAT}`);
  const sec = (name: string) => {
    const [off, len] = h.sections[name] ?? [0, -1];
    if (len < 0 || off + len > buf.length) throw new Error(`geocoder index: section ${name} missing or truncated`);
    return { off: buf.byteOffset + off, len };
  };
  const u32 = (n: string) => { const s = sec(n); return new Uint32Array(buf.buffer, s.off, s.len / 4); };
  const i32 = (n: string) => { const s = sec(n); return new Int32Array(buf.buffer, s.off, s.len / 4); };
  const u8 = (n: string) => { const s = sec(n); return new Uint8Array(buf.buffer, s.off, s.len); };
  const tokenText = new TextDecoder().decode(u8("tokens"));
  const d: GeocodeIndexData = {
    tokens: h.tokens === 0 ? [] : tokenText.split("\n"),
    postOff: u32("post_off"), post: u32("post"), fwdOff: u32("fwd_off"), fwd: u32("fwd"), fwdPos: u8("fwd_pos"), nameWords: u8("name_words"),
    lon: i32("lon"), lat: i32("lat"), layer: u8("layer"), source: u8("source"), propsOff: u32("props_off"), props: u8("props"),
    layers: h.layers, sources: h.sources,
  };
  if (d.tokens.length !== h.tokens || d.postOff.length !== h.tokens + 1 || d.lon.length !== h.docs || d.fwdOff.length !== h.docs + 1 || d.propsOff.length !== h.docs + 1) {
    throw new Error("geocoder index: section sizes do not match the header");
  }
  return d;
}

const align8 = (n: number) => (n + 7) & ~7;
const bytes = (a: Uint32Array | Int32Array) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
