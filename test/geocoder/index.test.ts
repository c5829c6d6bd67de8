/**
 * FEATURE UNDER TEST: the geocoder's index (issue 34, item 1) without the server: the OSM places
 * read from real extracts (Monaco, Mannheim/Heidelberg), the file format written and read back,
 * the text rules (folding, aliases), and the search engine's matching: diacritics and German
 * "Straße" both ways, abbreviations, typos, prefixes, layer importance, reverse.
 */
import { describe, expect, test } from "bun:test";
import { buildGeocodeIndex } from "../../pipeline/geocode/build.ts";
import { osmPlaces } from "../../pipeline/geocode/osm.ts";
import { loadBoundaries } from "../../pipeline/places/boundaries.ts";
import { decodeGeocodeIndex, encodeGeocodeIndex } from "../../pipeline/schema/geocode.ts";
import { editDistance, GeocodeIndex, mergeHits } from "../../server/geocoder/engine.ts";
import { aliases, fold, tokens } from "../../shared/geocode-text.ts";
import { haversineM } from "../../shared/geo.ts";
import { osm } from "../support/dataset.ts";

const boundaries = await loadBoundaries();
const index = (file: string) => {
  const docs = osmPlaces([osm(file)], boundaries);
  const { bytes, report } = buildGeocodeIndex(docs);
  return { docs, report, idx: new GeocodeIndex(decodeGeocodeIndex(bytes), file) };
};
const monaco = index("monaco");
const rnv = index("rnv-mannheim-heidelberg");
const find = (idx: GeocodeIndex, text: string, opts: { layers?: string[]; prefix?: boolean } = {}) =>
  idx.search({ words: tokens(text), prefixLast: opts.prefix ?? true, typos: true, size: 10, layers: opts.layers ? new Set(opts.layers) : null, sources: null }, 10).map((h) => ({ ...h, props: idx.props(h.doc), layer: idx.layer(h.doc) }));

describe("geocoder index", () => {
  test("text rules: diacritics and case folded, ß spelled out, any script's letters kept, street words aliased", () => {
    expect(fold("Düsseldorf")).toBe("dusseldorf");
    expect(fold("ÉGLISE Saint-Nicolas")).toBe("eglise saint-nicolas");
    expect(tokens("Lampertheimer Straße 12a")).toEqual(["lampertheimer", "strasse", "12a"]);
    expect(tokens("Москва, Тверская ул.")).toEqual(["москва", "тверская", "ул"]);
    expect(tokens("甲府駅北口")).toEqual(["甲府駅北口"]);
    expect(aliases("street")).toContain("st");
    expect(aliases("st")).toEqual(expect.arrayContaining(["street", "saint"]));
    expect(aliases("hauptstrasse")).toContain("hauptstr");
  });

  test("edit distance: bounded, and to the closest prefix for words being typed", () => {
    expect(editDistance("embarcadro", "embarcadero", 1, false)).toBe(1);
    expect(editDistance("embarcadero", "embarcadero", 1, false)).toBe(0);
    expect(editDistance("kitten", "sitting", 2, false)).toBe(3); // above k: k + 1
    expect(editDistance("mannhiem", "mannheimer", 2, true)).toBe(2);
    expect(editDistance("heidlb", "heidelberg", 1, true)).toBe(1);
  });

  test("the OSM places of an extract: layers, context and properties", () => {
    expect(monaco.report.by_layer.street).toBeGreaterThan(50);
    expect(monaco.report.by_layer.venue).toBeGreaterThan(50);
    expect(monaco.report.by_layer.address).toBeGreaterThan(5);
    const hood = monaco.docs.find((d) => d.layer === "neighbourhood" && d.props.name === "Monte-Carlo")!;
    expect(hood.props.country_code).toBe("MC");
    for (const d of monaco.docs) {
      expect(d.source).toBe("osm");
      expect(d.props.source_id).toMatch(/^(node|way)\/-?\d+$/);
      if (d.layer === "address") expect(d.props.name).toBe(`${d.props.housenumber} ${d.props.street}`);
    }
    // a street's ways of one name within 2 km are one place, with the box of them all
    const names = rnv.docs.filter((d) => d.layer === "street").map((d) => `${d.props.name}@${d.props.locality ?? ""}`);
    expect(rnv.report.by_layer.street).toBeGreaterThan(3000);
    const boxes = rnv.docs.filter((d) => d.layer === "street" && d.props.bbox);
    for (const d of boxes.slice(0, 500)) {
      const [w, s, e, n] = d.props.bbox!;
      expect(d.lon >= w - 1e-6 && d.lon <= e + 1e-6 && d.lat >= s - 1e-6 && d.lat <= n + 1e-6).toBe(true);
    }
    expect(names.length).toBeGreaterThan(0);
  });

  test("the file reads back to what was written", () => {
    const { bytes } = buildGeocodeIndex(monaco.docs);
    const d = decodeGeocodeIndex(bytes);
    expect(encodeGeocodeIndex(d)).toEqual(bytes);
    expect(d.lon.length).toBe(monaco.report.docs);
    // unaligned bytes are copied, not misread
    const shifted = new Uint8Array(bytes.length + 1);
    shifted.set(bytes, 1);
    expect(decodeGeocodeIndex(shifted.subarray(1)).tokens).toEqual(d.tokens);
    expect(() => decodeGeocodeIndex(new TextEncoder().encode("not an index"))).toThrow(/magic/);
  });

  test("diacritics both ways: Pecheurs finds Pêcheurs, Straße and Strasse and Str. find each other", () => {
    const p = find(monaco.idx, "Chemin des Pecheurs");
    expect(p[0]!.props.name).toBe("Chemin des Pêcheurs");
    expect(find(monaco.idx, "chemin des PÊCHEURS")[0]!.props.name).toBe("Chemin des Pêcheurs");
    const street = rnv.docs.find((d) => d.layer === "street" && /straße$/.test(d.props.name) && tokens(d.props.name).length === 2)!;
    const base = street.props.name.replace(/straße$/, "").trim();
    for (const text of [street.props.name, `${base}strasse`, `${base}str`, `${base}str.`]) {
      const hits = find(rnv.idx, text, { layers: ["street"] });
      expect(`${text}: ${hits.some((h) => h.props.name === street.props.name)}`).toBe(`${text}: true`);
    }
  });

  test("prefixes as the user types, typos in longer words, every word needed", () => {
    const full = find(rnv.idx, "Mannheimer Straße", { layers: ["street"] });
    expect(full[0]!.props.name).toBe("Mannheimer Straße");
    expect(full[0]!.matchType).toBe("exact");
    const typed = find(rnv.idx, "Mannheimer Str", { layers: ["street"] });
    expect(typed.some((h) => h.props.name === "Mannheimer Straße")).toBe(true);
    const typo = find(rnv.idx, "Mannhiemer Straße", { layers: ["street"] });
    expect(typo[0]!.props.name).toBe("Mannheimer Straße");
    expect(typo[0]!.confidence).toBeLessThan(full[0]!.confidence);
    expect(find(rnv.idx, "Mannheimer Zzzzqqq")).toEqual([]);
    // without typos asked for, a misspelt word finds nothing (searchText asks when the answer is short)
    expect(rnv.idx.search({ words: tokens("Mannhiemer"), prefixLast: true, size: 10, layers: null, sources: null }, 10)).toEqual([]);
    // short words get no typo tolerance (too many false friends)
    expect(find(monaco.idx, "Xyz", { prefix: false })).toEqual([]);
  });

  test("ranking: a place whose name is all the query before longer names; merged hits keep one of a name per 250 m", () => {
    const hits = find(monaco.idx, "Monte-Carlo");
    expect(hits[0]!.props.name).toBe("Monte-Carlo");
    expect(hits[0]!.layer).toBe("neighbourhood");
    for (let i = 1; i < hits.length; i++) expect(hits[i]!.score).toBeLessThanOrEqual(hits[i - 1]!.score);
    const merged = mergeHits([monaco.idx.search({ words: ["monaco"], prefixLast: true, size: 40, layers: null, sources: null }, 40)], 40);
    const seen = merged.map((h) => `${monaco.idx.layer(h.doc)}:${monaco.idx.props(h.doc).name}`);
    for (const [i, a] of merged.entries()) {
      for (const b of merged.slice(i + 1)) {
        if (seen[i] === `${monaco.idx.layer(b.doc)}:${monaco.idx.props(b.doc).name}`) {
          expect(haversineM(monaco.idx.lat(a.doc), monaco.idx.lon(a.doc), monaco.idx.lat(b.doc), monaco.idx.lon(b.doc))).toBeGreaterThanOrEqual(250);
        }
      }
    }
  });

  test("reverse: nearest first, within the radius, by layer", () => {
    const d = monaco.docs.find((x) => x.layer === "venue")!;
    const hits = monaco.idx.reverse(d.lat, d.lon, 1000, 10, {}, null, null);
    expect(hits.length).toBe(10);
    expect(hits[0]!.distanceM).toBeLessThan(1);
    for (let i = 1; i < hits.length; i++) expect(hits[i]!.distanceM!).toBeGreaterThanOrEqual(hits[i - 1]!.distanceM!);
    for (const h of hits) expect(h.distanceM!).toBeLessThanOrEqual(1000);
    const streets = monaco.idx.reverse(d.lat, d.lon, 1000, 3, {}, new Set(["street"]), null);
    for (const h of streets) expect(monaco.idx.layer(h.doc)).toBe("street");
    expect(monaco.idx.reverse(0, 0, 5000, 10, {}, null, null)).toEqual([]);
  });
});
