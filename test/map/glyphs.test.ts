/**
 * Label glyphs (/map/fonts/{fontstack}/{range}.pbf, server/map/glyphs.ts): the real server on port 0
 * (an empty data dir, API keys on: the glyphs need none), the PBF read back with a small protobuf
 * reader written here (independent of the server's encoder), glyph metrics and distance fields
 * checked against the font's shapes; bad input answered 400/404, never 500; a range built once; and
 * MapLibre in headless Chromium drawing labels with them.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startServer, type RunningServer } from "../../server/main.ts";
import { serverConfigFrom } from "../../server/config.ts";
import { glyphStats } from "../../server/map/glyphs.ts";
import { tempDir } from "../support/dataset.ts";
import { ARTIFACTS, hasChromium, launchBrowser, openPage } from "./browser.ts";

const quiet = { info() {}, warn() {}, error: (m: string, f?: unknown) => console.error(m, f) };
let server: RunningServer;

beforeAll(async () => {
  const keys = join(tempDir("interchange-glyphs-keys-"), "keys.json");
  writeFileSync(keys, JSON.stringify([{ key: "glyphs-test-key-0001", account: "glyphs" }]));
  server = await startServer(serverConfigFrom({ data: tempDir(), port: 0, host: "127.0.0.1", apiKeys: keys }), { log: quiet });
});

afterAll(async () => {
  await server?.stop();
});

interface Glyph { id: number; bitmap: Uint8Array | null; width: number; height: number; left: number; top: number; advance: number }
interface Stack { name: string; range: string; glyphs: Glyph[] }

/** A protobuf reader over the glyphs schema: fields by number, varints, zigzag, length-delimited. */
class Reader {
  pos = 0;
  constructor(readonly buf: Uint8Array, readonly end = buf.length) {}
  varint(): number {
    let result = 0, shift = 0, b: number;
    do {
      b = this.buf[this.pos++]!;
      result += (b & 0x7f) * 2 ** shift;
      shift += 7;
    } while (b & 0x80);
    return result;
  }
  /** calls fn(field, wireType) for each field; fn reads the value */
  fields(fn: (field: number, wire: number) => void): void {
    while (this.pos < this.end) {
      const key = this.varint();
      fn(key >> 3, key & 7);
    }
    expect(this.pos).toBe(this.end);
  }
  bytes(): Uint8Array {
    const len = this.varint();
    const out = this.buf.subarray(this.pos, this.pos + len);
    this.pos += len;
    return out;
  }
  sint(): number {
    const n = this.varint();
    return n % 2 === 0 ? n / 2 : -(n + 1) / 2;
  }
}

function decodeAll(buf: Uint8Array): Stack[] {
  const stacks: Stack[] = [];
  const r = new Reader(buf);
  r.fields((f, wire) => {
    expect([f, wire]).toEqual([1, 2]);
    stacks.push(decodeStack(r.bytes()));
  });
  return stacks;
}
function decodeStack(buf: Uint8Array): Stack {
  const s: Stack = { name: "", range: "", glyphs: [] };
  const r = new Reader(buf);
  r.fields((f, wire) => {
    if (f === 1 && wire === 2) s.name = new TextDecoder().decode(r.bytes());
    else if (f === 2 && wire === 2) s.range = new TextDecoder().decode(r.bytes());
    else if (f === 3 && wire === 2) s.glyphs.push(decodeGlyph(r.bytes()));
    else throw new Error(`unexpected field ${f}/${wire} in fontstack`);
  });
  return s;
}

function decodeGlyph(buf: Uint8Array): Glyph {
  const g: Glyph = { id: -1, bitmap: null, width: -1, height: -1, left: NaN, top: NaN, advance: -1 };
  const r = new Reader(buf);
  r.fields((f, wire) => {
    if (f === 2) {
      expect(wire).toBe(2);
      g.bitmap = r.bytes();
      return;
    }
    expect(wire).toBe(0);
    if (f === 1) g.id = r.varint();
    else if (f === 3) g.width = r.varint();
    else if (f === 4) g.height = r.varint();
    else if (f === 5) g.left = r.sint();
    else if (f === 6) g.top = r.sint();
    else if (f === 7) g.advance = r.varint();
    else throw new Error(`unexpected field ${f} in glyph`);
  });
  return g;
}

async function range(stack: string, r: string): Promise<Stack> {
  const res = await fetch(`${server.url}/map/fonts/${encodeURIComponent(stack)}/${r}.pbf`);
  expect(res.status, `${stack} ${r}`).toBe(200);
  expect(res.headers.get("content-type")).toBe("application/x-protobuf");
  expect(res.headers.get("cache-control")).toBe("public, max-age=86400");
  const stacks = decodeAll(new Uint8Array(await res.arrayBuffer()));
  expect(stacks.length).toBe(1);
  expect(stacks[0]!.range).toBe(r);
  return stacks[0]!;
}

const glyphOf = (s: Stack, ch: string) => {
  const g = s.glyphs.find((x) => x.id === ch.codePointAt(0));
  expect(g, `glyph ${ch}`).toBeDefined();
  return g!;
};
const pixel = (g: Glyph, x: number, y: number) => g.bitmap![y * (g.width + 6) + x]!;

describe("label glyphs", () => {
  test("range 0-255 of Noto Sans Regular: Latin letters, digits and accents with plausible metrics, without a key", async () => {
    const s = await range("Noto Sans Regular", "0-255");
    expect(s.name).toBe("Noto Sans Regular");
    const ids = s.glyphs.map((g) => g.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(ids.every((id) => id >= 0 && id <= 255)).toBe(true);
    expect(ids.length).toBeGreaterThan(180);
    // the font maps a few control characters (NUL, CR) to empty glyphs: nothing to draw
    for (const g of s.glyphs.filter((x) => x.id < 32)) expect(g.width, `${g.id}`).toBe(0);
    for (const ch of ["A", "a", "é", "ü", "0"]) {
      const g = glyphOf(s, ch);
      expect(g.width, ch).toBeGreaterThan(0);
      expect(g.height, ch).toBeGreaterThan(0);
      expect(g.bitmap!.length, ch).toBe((g.width + 6) * (g.height + 6));
      expect(g.advance, ch).toBeGreaterThanOrEqual(g.width);
    }
    const A = glyphOf(s, "A"), a = glyphOf(s, "a"), e = glyphOf(s, "é"), plainE = glyphOf(s, "e"), l = glyphOf(s, "l"), p = glyphOf(s, "p");
    expect(A.advance).toBeGreaterThan(12);
    expect(A.advance).toBeLessThan(20);
    // top is measured from the ascender line (fontnik): letters standing on the baseline share top - height
    const baseline = A.top - A.height;
    expect(baseline).toBeLessThanOrEqual(-24);
    expect(baseline).toBeGreaterThanOrEqual(-28);
    expect(l.top - l.height).toBe(baseline);
    expect(Math.abs(a.top - a.height - baseline)).toBeLessThanOrEqual(1); // the bowl overshoots by a fraction
    expect(A.top - a.top).toBeGreaterThanOrEqual(3); // cap height above x-height
    expect(p.top - p.height).toBeLessThan(baseline - 4); // the descender goes below
    expect(e.top).toBeGreaterThan(plainE.top + 2); // the accent is above the e
    expect(e.width).toBeGreaterThanOrEqual(plainE.width - 1);
  });

  test("the bitmaps are signed distance fields: high inside the strokes, low away from them", async () => {
    const s = await range("Noto Sans Regular", "0-255");
    for (const ch of ["l", "I"]) {
      const g = glyphOf(s, ch);
      const mid = Math.floor((g.height + 6) / 2);
      let best = 0;
      for (let x = 0; x < g.width + 6; x++) best = Math.max(best, pixel(g, x, mid));
      expect(best, ch).toBeGreaterThan(200);
    }
    // round letters: their bitmap's corners are far (> 4 px) from the outline
    for (const ch of ["o", "O", "0"]) {
      const g = glyphOf(s, ch);
      const [w, h] = [g.width + 6, g.height + 6];
      for (const [x, y] of [[0, 0], [w - 1, 0], [0, h - 1], [w - 1, h - 1]] as const) expect(pixel(g, x, y), `${ch} ${x},${y}`).toBeLessThan(60);
      // the middle of the counter (the hole) is outside the glyph
      expect(pixel(g, Math.floor(w / 2), Math.floor(h / 2)), ch).toBeLessThan(191);
    }
    // every glyph: the 3 px border ring is outside (below the outline's 191) and something is inside
    for (const g of s.glyphs.filter((x) => x.width > 0)) {
      const [w, h] = [g.width + 6, g.height + 6];
      for (let x = 0; x < w; x++) {
        expect(pixel(g, x, 0), `${g.id}`).toBeLessThan(150);
        expect(pixel(g, x, h - 1), `${g.id}`).toBeLessThan(150);
      }
      for (let y = 0; y < h; y++) {
        expect(pixel(g, 0, y), `${g.id}`).toBeLessThan(150);
        expect(pixel(g, w - 1, y), `${g.id}`).toBeLessThan(150);
      }
      expect(Math.max(...g.bitmap!), `${g.id}`).toBeGreaterThan(191);
    }
  });

  test("space has an advance and no bitmap", async () => {
    const s = await range("Noto Sans Regular", "0-255");
    const sp = glyphOf(s, " ");
    expect(sp.advance).toBeGreaterThan(0);
    expect(sp.width).toBe(0);
    expect(sp.height).toBe(0);
    expect(sp.bitmap === null || sp.bitmap.length === 0).toBe(true);
  });

  test("Cyrillic and Greek come from their subsets; a CJK range answers with no glyphs", async () => {
    const cyr = await range("Noto Sans Regular", "1024-1279");
    const zhe = glyphOf(cyr, "Ж");
    expect(zhe.width).toBeGreaterThan(10);
    expect(zhe.bitmap!.length).toBe((zhe.width + 6) * (zhe.height + 6));
    expect(cyr.glyphs.length).toBeGreaterThan(200);
    const greek = await range("Noto Sans Regular", "768-1023");
    const omega = glyphOf(greek, "Ω");
    expect(omega.height).toBeGreaterThan(10);
    const cjk = await range("Noto Sans Regular", "19968-20223");
    expect(cjk.name).toBe("Noto Sans Regular");
    expect(cjk.glyphs.length).toBe(0);
    const last = await range("Noto Sans Regular", "65280-65535");
    expect(last.glyphs.every((g) => g.id >= 65280 && g.id <= 65535)).toBe(true);
  });

  test("Noto Sans Bold is served, and a comma stack answers with the first font served here", async () => {
    const regular = await range("Noto Sans Regular", "0-255");
    const bold = await range("Arial Unicode MS Regular,Noto Sans Bold", "0-255");
    expect(bold.name).toBe("Noto Sans Bold");
    expect(glyphOf(bold, "l").width).toBeGreaterThan(glyphOf(regular, "l").width);
    expect(glyphOf(bold, "A").advance).toBeGreaterThanOrEqual(glyphOf(regular, "A").advance);
    const first = await range("Noto Sans Regular, Noto Sans Bold", "0-255");
    expect(first.name).toBe("Noto Sans Regular");
  });

  test("a range is built once and then answered from memory", async () => {
    const before = glyphStats();
    const path = `${server.url}/map/fonts/Noto%20Sans%20Regular/512-767.pbf`;
    const first = new Uint8Array(await (await fetch(path)).arrayBuffer());
    const mid = glyphStats();
    expect(mid.built).toBe(before.built + 1);
    const second = new Uint8Array(await (await fetch(path)).arrayBuffer());
    const after = glyphStats();
    expect(after.built).toBe(mid.built);
    expect(after.cached).toBe(mid.cached + 1);
    expect(second).toEqual(first);
  });

  test("bad input: 400 naming the range or 404, with a clear JSON body, never 500", async () => {
    const cases: [string, number, string][] = [
      ["/map/fonts/Noto%20Sans%20Regular/0-256.pbf", 400, "range"],
      ["/map/fonts/Noto%20Sans%20Regular/1-256.pbf", 400, "range"],
      ["/map/fonts/Noto%20Sans%20Regular/256-255.pbf", 400, "range"],
      ["/map/fonts/Noto%20Sans%20Regular/65536-65791.pbf", 400, "range"],
      ["/map/fonts/Noto%20Sans%20Regular/99999999999-100000000254.pbf", 400, "range"],
      ["/map/fonts/Noto%20Sans%20Regular/a-b.pbf", 400, "range"],
      ["/map/fonts/Noto%20Sans%20Regular/-256-0.pbf", 400, "range"],
      ["/map/fonts/Noto%20Sans%20Regular/0-255.png", 404, ".pbf"],
      ["/map/fonts/Noto%20Sans%20Regular/0-255", 404, ".pbf"],
      ["/map/fonts/Comic%20Sans%20MS/0-255.pbf", 404, "Noto Sans Regular"],
      ["/map/fonts/Arial%20Regular,Helvetica/0-255.pbf", 404, "Noto Sans Regular"],
      [`/map/fonts/${"x".repeat(600)}/0-255.pbf`, 400, "fontstack"],
      ["/map/fonts/%c0/0-255.pbf", 400, "fontstack"],
    ];
    for (const [path, status, text] of cases) {
      const r = await fetch(server.url + path);
      const body = await r.text();
      expect(r.status, path).toBe(status);
      expect(body, path).toContain(text);
      expect(r.headers.get("content-type") ?? "", path).toContain("json");
      expect(() => JSON.parse(body), path).not.toThrow();
    }
  });
});

describe.skipIf(!hasChromium)("MapLibre draws labels with these glyphs (headless Chromium)", () => {
  test("Latin, Cyrillic and Greek labels are drawn; a CJK label, with no glyphs served, is not", async () => {
    const browser = await launchBrowser();
    try {
      const { page, log } = await openPage(browser, server.url);
      // a bare page on the server's origin: maplibre from /map/vendor, glyphs from /map/fonts
      const html = `<!doctype html><html><head><meta charset="utf-8"><link rel="stylesheet" href="/map/vendor/maplibre-gl.css"></head>
<body style="margin:0"><div id="m" style="width:800px;height:400px"></div><script type="module">
import * as maplibregl from "/map/vendor/maplibre-gl.mjs";
const point = (lon, text) => ({ type: "Feature", properties: { text }, geometry: { type: "Point", coordinates: [lon, 0] } });
const map = new maplibregl.Map({ container: "m", center: [0, 0], zoom: 2, localIdeographFontFamily: false, canvasContextAttributes: { preserveDrawingBuffer: true }, style: {
  version: 8, glyphs: location.origin + "/map/fonts/{fontstack}/{range}.pbf",
  sources: { p: { type: "geojson", data: { type: "FeatureCollection", features: [point(-20, "AéЖΩ"), point(20, "中文字")] } } },
  layers: [{ id: "bg", type: "background", paint: { "background-color": "#ffffff" } },
    { id: "t", type: "symbol", source: "p", layout: { "text-field": ["get", "text"], "text-font": ["Noto Sans Regular"], "text-size": 40, "text-allow-overlap": true }, paint: { "text-color": "#000000" } }] } });
globalThis.__interchange = { map };
</script></body></html>`;
      await page.route(`${server.url}/glyph-check`, (r) => r.fulfill({ contentType: "text/html; charset=utf-8", body: html }));
      await page.goto(`${server.url}/glyph-check`);
      await page.waitForFunction(() => (globalThis as any).__interchange?.map);
      await page.evaluate(() => new Promise<void>((done) => {
        const m = (globalThis as any).__interchange.map;
        if (m.loaded() && m.areTilesLoaded()) done();
        else m.once("idle", () => done());
      }));
      // dark pixels around each label's anchor (the labels are centred on their points)
      const dark = await page.evaluate(() => {
        const m = (globalThis as any).__interchange.map;
        const gl = m.getCanvas();
        const c = (globalThis as any).document.createElement("canvas");
        c.width = gl.width; c.height = gl.height;
        const ctx = c.getContext("2d");
        ctx.drawImage(gl, 0, 0);
        const ratio = gl.width / gl.clientWidth;
        const count = (lon: number) => {
          const p = m.project([lon, 0]);
          const [x0, y0] = [Math.round((p.x - 90) * ratio), Math.round((p.y - 35) * ratio)];
          const d = ctx.getImageData(x0, y0, Math.round(180 * ratio), Math.round(70 * ratio)).data;
          const w = Math.round(180 * ratio);
          let n = 0, ySum = 0;
          for (let i = 0; i < d.length; i += 4) {
            if (d[i]! < 100 && d[i + 1]! < 100 && d[i + 2]! < 100) {
              n++;
              ySum += Math.floor(i / 4 / w);
            }
          }
          // how far the ink's middle is below the anchor, in CSS px
          return { n: n / (ratio * ratio), dy: n ? (y0 + ySum / n) / ratio - p.y : NaN };
        };
        return { latin: count(-20), cjk: count(20) };
      });
      expect(log.errors).toEqual([]);
      expect(log.external).toEqual([]);
      const fonts = log.requests.filter((u) => u.includes("/map/fonts/")).map((u) => decodeURIComponent(new URL(u).pathname));
      for (const r of ["0-255", "768-1023", "1024-1279", "19968-20223"]) expect(fonts, r).toContain(`/map/fonts/Noto Sans Regular/${r}.pbf`);
      // four 40 px letters cover well over a thousand pixels; nothing is drawn without glyphs
      expect(dark.latin.n).toBeGreaterThan(1000);
      expect(dark.cjk.n).toBe(0);
      // centred on its point: the ink of capitals sits around the anchor (a `top` off by the
      // ascender, 26 px at 24 px, would move it by ~40 px at this size)
      expect(Math.abs(dark.latin.dy)).toBeLessThan(8);
      await page.screenshot({ path: join(ARTIFACTS, "glyphs.png") });
    } finally {
      await browser.close();
    }
  }, 120_000);
});
