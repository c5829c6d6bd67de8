/**
 * Label glyphs for the map (MapLibre GL `style.glyphs`), built here from Noto Sans as shipped in the
 * npm package @fontsource/noto-sans, so labels need nothing from the internet.
 *
 * - `glyphRange(stack, start)`: the glyph PBF of one range of 256 code points (start a multiple of
 *   256) in MapLibre's glyphs protobuf (`glyphs { repeated fontstack stacks = 1 }`, `fontstack
 *   { name = 1; range = 2; repeated glyph glyphs = 3 }`, `glyph { id = 1; bitmap = 2; width = 3;
 *   height = 4; left = 5 (sint32); top = 6 (sint32); advance = 7 }`), in fontnik's conventions:
 *   24 px font size, a 3 px buffer around each glyph's bitmap (one byte per pixel,
 *   (width+6)×(height+6)), a signed distance field of radius 8 px with cutoff 0.25 (a byte is
 *   255 − 255·(distance/8 + 0.25), clamped: 191 on the outline, more inside); `left`/`top` are the
 *   glyph box's left side and top relative to the pen and baseline, `top` minus the font's ascender
 *   at 24 px (rounded up to a pixel), as fontnik writes it; `advance` in whole px (rounded).
 * - Each glyph: the outline (opentype.js) flattened to segments, filled with the nonzero rule and
 *   anti-aliased by exact horizontal coverage on 16 sub-scanlines per pixel, then turned into a
 *   distance field by a Euclidean distance transform (Felzenszwalb & Huttenlocher) of the inside and
 *   the outside, partially covered pixels placed at their sub-pixel distance from the edge.
 * - Stacks: "Noto Sans Regular" (400) and "Noto Sans Bold" (700). A code point is taken from the
 *   first script subset whose font has it (latin, latin-ext, cyrillic, cyrillic-ext, greek,
 *   greek-ext, vietnamese); code points no subset has are left out of the range. Devanagari is not
 *   served: MapLibre draws glyph by glyph, without the shaping that script needs.
 *
 * The fonts of a stack are parsed once, on its first request; a range is built on its first
 * request and kept (at most 256 ranges per stack, the whole code space MapLibre asks for).
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
// @ts-expect-error opentype.js 2.0.0 ships no type declarations: the part used here is typed below
import opentypeModule from "opentype.js";
import { invalidParameter } from "../errors.ts";
import { ProtobufWriter, zigzag } from "./protobuf.ts";

/** A path command of opentype.js (font size px, y down from the baseline). */
type PathCommand =
  | { type: "M" | "L"; x: number; y: number }
  | { type: "Q"; x1: number; y1: number; x: number; y: number }
  | { type: "C"; x1: number; y1: number; x2: number; y2: number; x: number; y: number }
  | { type: "Z" };

/** The part of an opentype.js Font used here. */
interface OtFont {
  unitsPerEm: number;
  ascender: number;
  tables: { cmap?: { glyphIndexMap?: Record<number, number> } };
  charToGlyphIndex(char: string): number;
  glyphs: { get(index: number): { advanceWidth?: number; getPath(x: number, y: number, fontSize: number): { commands: PathCommand[] } } };
}

const opentype = opentypeModule as { parse(buffer: ArrayBuffer): OtFont };

/** The stacks served, by name, with their font weight. */
export const GLYPH_STACKS: Readonly<Record<string, number>> = { "Noto Sans Regular": 400, "Noto Sans Bold": 700 };
/** @fontsource/noto-sans subsets, in the order a code point is looked up. */
export const GLYPH_SUBSETS = ["latin", "latin-ext", "cyrillic", "cyrillic-ext", "greek", "greek-ext", "vietnamese"] as const;
/** the largest range start MapLibre asks for (65280-65535) */
export const MAX_RANGE_START = 65280;

const FONT_SIZE = 24;
const BUFFER = 3;
const RADIUS = 8;
const CUTOFF = 0.25;
/** sub-scanlines per pixel row */
const SUBROWS = 16;
/** curve pieces per quadratic / cubic segment (a glyph is ~20 px tall: pieces under 1 px) */
const QUAD_STEPS = 8;
const CUBIC_STEPS = 12;
const INF = 1e20;

interface StackFonts {
  fonts: OtFont[];
}

/** One glyph's metrics and SDF bitmap (empty for a glyph without outline, such as space). */
export interface Glyph {
  id: number;
  width: number;
  height: number;
  left: number;
  top: number;
  advance: number;
  bitmap: Uint8Array;
}

const stacks = new Map<string, StackFonts>();
const ranges = new Map<string, Uint8Array>();
const counters = { built: 0, cached: 0 };

/** How many ranges were built and how many were answered from memory (for tests and health). */
export const glyphStats = () => ({ ...counters, ranges: ranges.size });

/** The range start of "N-M" text (N a multiple of 256, M = N + 255, N ≤ 65280); 400 otherwise. */
export function parseGlyphRange(text: string): number {
  const m = /^(\d{1,5})-(\d{1,5})$/.exec(text);
  const allowed = "N-(N+255), N a multiple of 256 from 0 to 65280, e.g. 0-255 or 1024-1279";
  if (!m) throw invalidParameter("range", `range must be two numbers "N-M", got "${text.slice(0, 40)}"`, allowed);
  const start = Number(m[1]), end = Number(m[2]);
  if (start % 256 !== 0 || start > MAX_RANGE_START || end !== start + 255) {
    throw invalidParameter("range", `range ${start}-${end} is not one of the 256-code-point ranges`, allowed);
  }
  return start;
}

/** The first name of a comma-separated font stack that is served here, or null. */
export function servedStack(fontstack: string): string | null {
  for (const part of fontstack.split(",")) {
    const name = part.trim().toLowerCase();
    const hit = Object.keys(GLYPH_STACKS).find((s) => s.toLowerCase() === name);
    if (hit) return hit;
  }
  return null;
}

function fontDir(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve("@fontsource/noto-sans/package.json")), "files");
}

function stackFonts(stack: string): StackFonts {
  const known = stacks.get(stack);
  if (known) return known;
  const weight = GLYPH_STACKS[stack];
  const dir = fontDir();
  const fonts: OtFont[] = [];
  for (const subset of GLYPH_SUBSETS) {
    const path = join(dir, `noto-sans-${subset}-${weight}-normal.woff`);
    if (!existsSync(path)) continue;
    const buf = readFileSync(path);
    fonts.push(opentype.parse(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength) as ArrayBuffer));
  }
  const out = { fonts };
  stacks.set(stack, out);
  return out;
}

/** The glyph PBF of `stack` (a name of GLYPH_STACKS) for code points start..start+255, kept after the first build. */
export function glyphRange(stack: string, start: number): Uint8Array {
  const key = `${stack}\n${start}`;
  const hit = ranges.get(key);
  if (hit) {
    counters.cached++;
    return hit;
  }
  const { fonts } = stackFonts(stack);
  const glyphs: Glyph[] = [];
  for (let cp = start; cp <= start + 255; cp++) {
    const font = fonts.find((f) => fontHas(f, cp));
    if (font) glyphs.push(renderGlyph(font, cp));
  }
  const pbf = encodeGlyphs(stack, `${start}-${start + 255}`, glyphs);
  ranges.set(key, pbf);
  counters.built++;
  return pbf;
}

function fontHas(font: OtFont, cp: number): boolean {
  const map = font.tables.cmap?.glyphIndexMap;
  return !!map && (map[cp] ?? 0) > 0;
}

/** One code point of a font: metrics in fontnik's conventions and the SDF bitmap. */
export function renderGlyph(font: OtFont, cp: number): Glyph {
  const glyph = font.glyphs.get(font.charToGlyphIndex(String.fromCodePoint(cp)));
  const scale = FONT_SIZE / font.unitsPerEm;
  const advance = Math.round((glyph.advanceWidth ?? 0) * scale);
  const ascender = Math.ceil(font.ascender * scale);
  const rings = flatten(glyph.getPath(0, 0, FONT_SIZE).commands);
  let xMin = Infinity, yMin = Infinity, xMax = -Infinity, yMax = -Infinity;
  for (const ring of rings) {
    for (let i = 0; i < ring.length; i += 2) {
      xMin = Math.min(xMin, ring[i]!); xMax = Math.max(xMax, ring[i]!);
      yMin = Math.min(yMin, ring[i + 1]!); yMax = Math.max(yMax, ring[i + 1]!);
    }
  }
  const empty: Glyph = { id: cp, width: 0, height: 0, left: 0, top: -ascender, advance, bitmap: new Uint8Array(0) };
  if (rings.length === 0) return empty;
  // the box in whole pixels, y up from the baseline (fontnik rounds each side)
  xMin = Math.round(xMin); xMax = Math.round(xMax); yMin = Math.round(yMin); yMax = Math.round(yMax);
  const width = xMax - xMin, height = yMax - yMin;
  if (width <= 0 || height <= 0) return empty;
  const w = width + 2 * BUFFER, h = height + 2 * BUFFER;
  // outline in bitmap coordinates: x right from the bitmap's left, y down from its top
  const ox = xMin - BUFFER, oy = yMax + BUFFER;
  const bitmapRings = rings.map((ring) => {
    const out = new Float64Array(ring.length);
    for (let i = 0; i < ring.length; i += 2) {
      out[i] = ring[i]! - ox;
      out[i + 1] = oy - ring[i + 1]!;
    }
    return out;
  });
  const coverage = rasterize(bitmapRings, w, h);
  return { id: cp, width, height, left: xMin, top: yMax - ascender, advance, bitmap: sdf(coverage, w, h) };
}

/** Path commands (y down, as opentype.js draws) → closed rings of x, y pairs, y up. */
function flatten(commands: PathCommand[]): number[][] {
  const rings: number[][] = [];
  let ring: number[] = [];
  let cx = 0, cy = 0, sx = 0, sy = 0;
  const close = () => {
    if (ring.length >= 6) {
      if (ring[0] !== ring[ring.length - 2] || ring[1] !== ring[ring.length - 1]) ring.push(ring[0]!, ring[1]!);
      rings.push(ring);
    }
    ring = [];
  };
  for (const c of commands) {
    if (c.type === "M") {
      close();
      cx = sx = c.x; cy = sy = c.y;
      ring.push(cx, -cy);
    } else if (c.type === "L") {
      cx = c.x; cy = c.y;
      ring.push(cx, -cy);
    } else if (c.type === "Q") {
      for (let i = 1; i <= QUAD_STEPS; i++) {
        const t = i / QUAD_STEPS, u = 1 - t;
        ring.push(u * u * cx + 2 * u * t * c.x1 + t * t * c.x, -(u * u * cy + 2 * u * t * c.y1 + t * t * c.y));
      }
      cx = c.x; cy = c.y;
    } else if (c.type === "C") {
      for (let i = 1; i <= CUBIC_STEPS; i++) {
        const t = i / CUBIC_STEPS, u = 1 - t;
        const a = u * u * u, b = 3 * u * u * t, d = 3 * u * t * t, e = t * t * t;
        ring.push(a * cx + b * c.x1 + d * c.x2 + e * c.x, -(a * cy + b * c.y1 + d * c.y2 + e * c.y));
      }
      cx = c.x; cy = c.y;
    } else if (c.type === "Z") {
      close();
      cx = sx; cy = sy;
    }
  }
  close();
  return rings;
}

/**
 * Coverage (0..1) of each pixel by the rings under the nonzero rule: on each of SUBROWS sub-scanlines
 * per row, the crossings of the edges sorted by x, and the spans of nonzero winding added exactly
 * along x.
 */
function rasterize(rings: Float64Array[], w: number, h: number): Float32Array {
  const edges: number[] = []; // x0, y0, x1, y1, direction; y0 < y1
  for (const r of rings) {
    for (let i = 0; i + 3 < r.length; i += 2) {
      const x0 = r[i]!, y0 = r[i + 1]!, x1 = r[i + 2]!, y1 = r[i + 3]!;
      if (y0 === y1) continue;
      if (y0 < y1) edges.push(x0, y0, x1, y1, 1);
      else edges.push(x1, y1, x0, y0, -1);
    }
  }
  // the edges each pixel row meets, so a sub-scanline looks only at those
  const rowsOf: number[][] = Array.from({ length: h }, () => []);
  for (let e = 0; e < edges.length; e += 5) {
    const r0 = Math.max(0, Math.floor(edges[e + 1]!)), r1 = Math.min(h - 1, Math.floor(edges[e + 3]!));
    for (let r = r0; r <= r1; r++) rowsOf[r]!.push(e);
  }
  const cover = new Float32Array(w * h);
  const xs: number[] = [];
  const dirs: number[] = [];
  const order: number[] = [];
  const part = 1 / SUBROWS;
  for (let row = 0; row < h; row++) {
    const base = row * w;
    for (let s = 0; s < SUBROWS; s++) {
      const y = row + (s + 0.5) * part;
      xs.length = 0; dirs.length = 0;
      for (const e of rowsOf[row]!) {
        const y0 = edges[e + 1]!, y1 = edges[e + 3]!;
        if (y < y0 || y >= y1) continue;
        const x0 = edges[e]!, x1 = edges[e + 2]!;
        xs.push(x0 + ((y - y0) * (x1 - x0)) / (y1 - y0));
        dirs.push(edges[e + 4]!);
      }
      if (xs.length < 2) continue;
      order.length = 0;
      for (let i = 0; i < xs.length; i++) order.push(i);
      order.sort((a, b) => xs[a]! - xs[b]!);
      let winding = 0, from = 0;
      for (const i of order) {
        const before = winding;
        winding += dirs[i]!;
        if (before === 0 && winding !== 0) from = xs[i]!;
        else if (before !== 0 && winding === 0) addSpan(cover, base, w, from, xs[i]!, part);
      }
    }
  }
  return cover;
}

/** Adds `weight` × the length of [a, b] inside each pixel of one row. */
function addSpan(cover: Float32Array, base: number, w: number, a: number, b: number, weight: number): void {
  a = Math.max(0, a); b = Math.min(w, b);
  if (b <= a) return;
  const ia = Math.floor(a), ib = Math.floor(b);
  if (ia === ib) {
    cover[base + ia]! += (b - a) * weight;
    return;
  }
  cover[base + ia]! += (ia + 1 - a) * weight;
  for (let k = ia + 1; k < ib; k++) cover[base + k]! += weight;
  if (ib < w) cover[base + ib]! += (b - ib) * weight;
}

/** The SDF bytes of a coverage grid: distance to the outline, partial pixels at their sub-pixel offset. */
function sdf(coverage: Float32Array, w: number, h: number): Uint8Array {
  const n = w * h;
  const outer = new Float64Array(n); // squared distance to the inside, from outside pixels
  const inner = new Float64Array(n); // squared distance to the outside, from inside pixels
  for (let i = 0; i < n; i++) {
    const a = Math.min(1, coverage[i]!);
    if (a >= 1 - 1e-6) {
      outer[i] = 0; inner[i] = INF;
    } else if (a <= 1e-6) {
      outer[i] = INF; inner[i] = 0;
    } else {
      const d = 0.5 - a; // > 0: the pixel's centre is outside the edge by about d
      outer[i] = d > 0 ? d * d : 0;
      inner[i] = d < 0 ? d * d : 0;
    }
  }
  edt(outer, w, h);
  edt(inner, w, h);
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const d = Math.sqrt(outer[i]!) - Math.sqrt(inner[i]!);
    out[i] = Math.max(0, Math.min(255, Math.round(255 - 255 * (d / RADIUS + CUTOFF))));
  }
  return out;
}

/** In-place 2D squared Euclidean distance transform: columns, then rows (Felzenszwalb & Huttenlocher). */
function edt(grid: Float64Array, w: number, h: number): void {
  const len = Math.max(w, h);
  const f = new Float64Array(len);
  const v = new Int32Array(len);
  const z = new Float64Array(len + 1);
  for (let x = 0; x < w; x++) edt1d(grid, x, w, h, f, v, z);
  for (let y = 0; y < h; y++) edt1d(grid, y * w, 1, w, f, v, z);
}

/** One line of the transform: the lower envelope of the parabolas rooted at each sample. */
function edt1d(grid: Float64Array, offset: number, stride: number, n: number, f: Float64Array, v: Int32Array, z: Float64Array): void {
  for (let q = 0; q < n; q++) f[q] = grid[offset + q * stride]!;
  let k = 0;
  v[0] = 0; z[0] = -Infinity; z[1] = Infinity;
  for (let q = 1; q < n; q++) {
    let s: number;
    for (;;) {
      const r = v[k]!;
      s = (f[q]! + q * q - (f[r]! + r * r)) / (2 * (q - r));
      if (s > z[k]! || k === 0) break;
      k--;
    }
    k++;
    v[k] = q; z[k] = s; z[k + 1] = Infinity;
  }
  k = 0;
  for (let q = 0; q < n; q++) {
    while (z[k + 1]! < q) k++;
    const r = v[k]!;
    grid[offset + q * stride] = (q - r) * (q - r) + f[r]!;
  }
}

/** The `glyphs` message of one fontstack and range. */
export function encodeGlyphs(name: string, range: string, glyphs: Glyph[]): Uint8Array {
  const stack = new ProtobufWriter();
  stack.string(1, name);
  stack.string(2, range);
  const uint = (w: ProtobufWriter, field: number, v: number) => {
    w.tag(field, 0);
    w.varint(v);
  };
  for (const g of glyphs) {
    const m = new ProtobufWriter();
    uint(m, 1, g.id);
    if (g.width > 0) m.bytes(2, g.bitmap);
    uint(m, 3, g.width);
    uint(m, 4, g.height);
    uint(m, 5, zigzag(g.left)); // sint32
    uint(m, 6, zigzag(g.top)); // sint32
    uint(m, 7, g.advance);
    stack.bytes(3, m.done());
  }
  const top = new ProtobufWriter();
  top.bytes(1, stack.done());
  return top.done();
}
