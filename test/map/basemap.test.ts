/**
 * FEATURE UNDER TEST: the basemap vector tile layers (places, water, waterways, parks, buildings;
 * street names in `streets`): written into the street dataset at import from the OSM extracts
 * (pipeline/street/base-map.ts), cut into tiles by server/map/tiles.ts. A real street import of
 * sf-downtown and monaco (which have multipolygon relations with holes); what the tiles hold,
 * decoded with an independent MVT reader, is checked against an independent reading of the
 * extracts (test/support/osm-reader.ts).
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { VectorTile } from "@mapbox/vector-tile";
import { PbfReader } from "pbf";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { activeStreets, emptyManifest, readManifest } from "../../pipeline/schema/manifest.ts";
import { STREET_LAYOUT } from "../../pipeline/schema/street.ts";
import { assembleRings, baseMapGeoJson, PLACE_RANK } from "../../pipeline/street/base-map.ts";
import { clipRing } from "../../server/map/base-layers.ts";
import { serverConfigFrom } from "../../server/config.ts";
import { startServer, type RunningServer } from "../../server/main.ts";
import { worldXY } from "../../server/map/mvt.ts";
import { buildTileSet, tileJson, tileOf, type TileSet } from "../../server/map/tiles.ts";
import { osm, streetDataset, tempDir } from "../support/dataset.ts";
import { area2, decode, paths, type Layer } from "../support/mvt-reader.ts";
import { readOsm, type OsmData, type OsmWay } from "../support/osm-reader.ts";

type Json = Record<string, any>;
const quiet = { info() {}, warn() {}, error: (m: string, f?: unknown) => console.error(m, f) };

let dir: string;
let set: TileSet;
let sf: OsmData, monaco: OsmData;

beforeAll(async () => {
  dir = await streetDataset("basemap-sf-monaco", ["sf-downtown", "monaco"]);
  set = await buildTileSet(dir);
  sf = readOsm(osm("sf-downtown"));
  monaco = readOsm(osm("monaco"));
});

const tileAt = (lon: number, lat: number, z: number) => {
  const [wx, wy] = worldXY(lon, lat);
  return { z, x: Math.floor(wx * 2 ** z), y: Math.floor(wy * 2 ** z) };
};
/** a position in a tile's units */
const inTile = (lon: number, lat: number, t: { z: number; x: number; y: number }): [number, number] => {
  const [wx, wy] = worldXY(lon, lat);
  return [wx * 2 ** t.z * 4096 - t.x * 4096, wy * 2 ** t.z * 4096 - t.y * 4096];
};
const layerOf = (t: { z: number; x: number; y: number }, name: string): Layer | undefined =>
  decode(tileOf(set, [name as never], t.z, t.x, t.y)).find((l) => l.name === name);
const nodesOf = (d: OsmData, w: OsmWay) => w.refs.map((r) => d.nodes.get(r)!).filter(Boolean);
const centre = (d: OsmData, w: OsmWay): [number, number] => {
  const ns = nodesOf(d, w);
  return [ns.reduce((a, n) => a + n.lon, 0) / ns.length, ns.reduce((a, n) => a + n.lat, 0) / ns.length];
};
const inRing = ([x, y]: [number, number], r: [number, number][]) => {
  let inside = false;
  for (let i = 0, j = r.length - 1; i < r.length; j = i++) {
    const [xi, yi] = r[i]!, [xj, yj] = r[j]!;
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
};
/** A polygon feature's rings, each checked closed (ClosePath), grouped exterior (clockwise) + holes (counter-clockwise). */
const polygonsOf = (geometry: number[]) => {
  const out: [number, number][][][] = [];
  for (const p of paths(geometry)) {
    expect(p.closed).toBe(true);
    expect(p.pts.length).toBeGreaterThanOrEqual(3);
    const a = area2(p.pts);
    expect(a).not.toBe(0);
    if (a > 0) out.push([p.pts]);
    else {
      expect(out.length).toBeGreaterThan(0); // a hole follows its exterior
      out[out.length - 1]!.push(p.pts);
    }
  }
  return out;
};

describe("basemap tile layers from the street import", () => {
  test("the import writes the basemap file into the street dataset", () => {
    const entry = activeStreets(readManifest(dir))!;
    const file = join(dir, entry.path, STREET_LAYOUT.base);
    expect(existsSync(file)).toBe(true);
    const fc = JSON.parse(gunzipSync(readFileSync(file)).toString()) as Json;
    const layers = new Set(fc.features.map((f: Json) => f.properties.layer));
    for (const l of ["places", "water", "waterways", "parks", "buildings"]) expect(layers.has(l)).toBe(true);
  });

  test("streets carry the way's name: every named residential/tertiary/secondary/primary way's name is drawn, and its tile holds it", () => {
    const entry = activeStreets(readManifest(dir))!;
    const fc = JSON.parse(gunzipSync(readFileSync(join(dir, entry.path, STREET_LAYOUT.map))).toString()) as Json;
    const names = new Set(fc.features.map((f: Json) => f.properties.name).filter(Boolean));
    // (a way with fewer than two of its nodes in the extract is not drawn)
    const named = [sf, monaco].flatMap((d) => [...d.ways.values()].filter((w) => ["residential", "tertiary", "secondary", "primary"].includes(w.tags.highway ?? "") && w.tags.name && nodesOf(d, w).length >= 2));
    expect(named.length).toBeGreaterThan(50);
    for (const w of named) expect(names.has(w.tags.name)).toBe(true);
    // a named street in its z16 tile, with its name
    const way = named.find((w) => w.tags.name === "Market Street") ?? named[0]!;
    const mid = sf.nodes.get(way.refs[way.refs.length >> 1]!) ?? monaco.nodes.get(way.refs[way.refs.length >> 1]!)!;
    const layer = layerOf(tileAt(mid.lon, mid.lat, 16), "streets")!;
    expect(layer.features.map((f) => f.props.name)).toContain(way.tags.name);
  });

  test("places: the named place nodes of the tile's area, with class and rank; thinned below zoom 12 to the best ranked per cell", () => {
    const all = [sf, monaco].flatMap((d) => [...d.nodes.values()].filter((n) => n.tags.name && PLACE_RANK[n.tags.place ?? ""] !== undefined));
    expect(all.length).toBeGreaterThanOrEqual(10);
    const city = all.find((n) => n.tags.place === "city")!;
    expect(city.tags.name).toBe("San Francisco");
    for (const z of [13, 15]) {
      const t = tileAt(city.lon, city.lat, z);
      const expected = all.filter((n) => {
        const [x, y] = inTile(n.lon, n.lat, t);
        return x >= -64 && y >= -64 && x <= 4160 && y <= 4160;
      });
      const layer = layerOf(t, "places")!;
      expect(layer.features.map((f) => f.props.name).sort()).toEqual(expected.map((n) => n.tags.name).sort());
      for (const f of layer.features) {
        const n = expected.find((e) => e.tags.name === f.props.name)!;
        expect(f.type).toBe(1);
        expect(f.props.class).toBe(n.tags.place);
        expect(f.props.rank).toBe(PLACE_RANK[n.tags.place!]);
      }
    }
    // zoom 6: one place per 128-unit cell, the best ranked
    const t = tileAt(city.lon, city.lat, 6);
    const best = new Map<string, number>();
    for (const n of all) {
      const [x, y] = inTile(n.lon, n.lat, t);
      if (x < -64 || y < -64 || x > 4160 || y > 4160) continue;
      const cell = `${Math.floor((x + 64) / 128)}/${Math.floor((y + 64) / 128)}`;
      best.set(cell, Math.min(best.get(cell) ?? 99, PLACE_RANK[n.tags.place!]!));
    }
    const layer = layerOf(t, "places")!;
    expect(layer.features.map((f) => f.props.rank as number).sort()).toEqual([...best.values()].sort());
    expect(layer.features.map((f) => f.props.name)).toContain("San Francisco");
  });

  test("parks: a known park by name with its class, its polygon closed, clockwise, of the park's area", () => {
    // a named park lying wholly inside its z16 tile (so the tile holds it uncut)
    const fits = (w: OsmWay) => {
      const t = tileAt(...centre(sf, w), 16);
      return nodesOf(sf, w).every((n) => { const [x, y] = inTile(n.lon, n.lat, t); return x > 64 && y > 64 && x < 4032 && y < 4032; });
    };
    const park = [...sf.ways.values()].find((w) => w.tags.leisure === "park" && w.tags.name && w.refs[0] === w.refs[w.refs.length - 1] && nodesOf(sf, w).length === w.refs.length && fits(w))!;
    expect(park).toBeDefined();
    const [lon, lat] = centre(sf, park);
    const t = tileAt(lon, lat, 16);
    const layer = layerOf(t, "parks")!;
    const f = layer.features.find((x) => x.props.name === park.tags.name)!;
    expect(f).toBeDefined();
    expect(f.type).toBe(3);
    expect(f.props.class).toBe("park");
    const [poly] = polygonsOf(f.geometry);
    const expected = Math.abs(area2(nodesOf(sf, park).map((n) => inTile(n.lon, n.lat, t))));
    expect(Math.abs(area2(poly![0]!) - expected) / expected).toBeLessThan(0.03);
    // every class in the layer is one of the park tags
    for (const g of layer.features) expect(["park", "garden", "playground", "pitch", "nature_reserve", "grass", "forest", "meadow", "recreation_ground", "cemetery", "village_green", "wood", "scrub", "grassland"]).toContain(g.props.class as string);
  });

  test("the sea off Monaco (natural=coastline, land on its left): a water polygon of class sea over the sea, none over the land", () => {
    // the sea in front of Monte Carlo, and the casino and the palace, on land
    const seaAt = (lon: number, lat: number) => {
      const t = tileAt(lon, lat, 16);
      const p = inTile(lon, lat, t);
      const sea = (layerOf(t, "water")?.features ?? []).filter((f) => f.props.class === "sea");
      return sea.some((f) => polygonsOf(f.geometry).some((poly) => inRing(p, poly[0]!) && !poly.slice(1).some((h) => inRing(p, h))));
    };
    expect([seaAt(7.435, 43.738), seaAt(7.4276, 43.7394), seaAt(7.4199, 43.7314)]).toEqual([true, false, false]);
  });

  test("water and waterways: a lake of the extract and a waterway line, with their class", () => {
    const lake = [...monaco.ways.values(), ...sf.ways.values()].find((w) => w.tags.natural === "water" && w.refs.length >= 4 && w.refs[0] === w.refs[w.refs.length - 1]);
    expect(lake).toBeDefined();
    const d = monaco.ways.has(lake!.id) ? monaco : sf;
    const [lon, lat] = centre(d, lake!);
    const water = layerOf(tileAt(lon, lat, 16), "water")!;
    const f = water.features.find((x) => x.props.class === "water" && (lake!.tags.name === undefined || x.props.name === lake!.tags.name));
    expect(f).toBeDefined();
    expect(f!.type).toBe(3);
    polygonsOf(f!.geometry);
    const ww = [...monaco.ways.values()].find((w) => ["river", "stream", "canal"].includes(w.tags.waterway ?? ""))!;
    expect(ww).toBeDefined();
    const mid = monaco.nodes.get(ww.refs[ww.refs.length >> 1]!)!;
    const lines = layerOf(tileAt(mid.lon, mid.lat, 15), "waterways")!;
    const g = lines.features.find((x) => x.props.class === ww.tags.waterway && (x.props.name ?? null) === (ww.tags.name ?? null));
    expect(g).toBeDefined();
    expect(g!.type).toBe(2);
  });

  test("a multipolygon relation with an inner ring gives a polygon with a hole", () => {
    // a building relation whose inner way lies uncut in a z16 or z17 tile
    const holeTile = (w: OsmWay) => [17, 16].map((z) => tileAt(...centre(sf, w), z)).find((tt) =>
      nodesOf(sf, w).length === w.refs.length && nodesOf(sf, w).every((n) => { const [x, y] = inTile(n.lon, n.lat, tt); return x > 0 && y > 0 && x < 4096 && y < 4096; }));
    const rel = [...sf.relations.values()].find((r) => r.tags.type === "multipolygon" && r.tags.building && r.members.some((m) => m.role === "inner" && sf.ways.has(m.ref) && holeTile(sf.ways.get(m.ref)!)))!;
    expect(rel).toBeDefined();
    const innerWay = sf.ways.get(rel.members.find((m) => m.role === "inner" && sf.ways.has(m.ref) && holeTile(sf.ways.get(m.ref)!))!.ref)!;
    const t = holeTile(innerWay)!;
    const layer = layerOf(t, "buildings")!;
    // a point inside the hole (the inner ring's vertex centroid), and one on the exterior's vertex
    const hole = nodesOf(sf, innerWay).map((n) => inTile(n.lon, n.lat, t));
    const inHole: [number, number] = [hole.reduce((a, p) => a + p[0], 0) / hole.length, hole.reduce((a, p) => a + p[1], 0) / hole.length];
    const candidates = layer.features.flatMap((f) => polygonsOf(f.geometry)).filter((p) => p.length >= 2 && inRing(hole[0]!, p[0]!));
    expect(candidates.length).toBeGreaterThan(0);
    // the hole is the inner way: same area within rounding, and a point inside it is in the hole
    const expected = Math.abs(area2(hole));
    const match = candidates.find((p) => p.slice(1).some((h) => Math.abs(Math.abs(area2(h)) - expected) / expected < 0.05))!;
    expect(match).toBeDefined();
    const [exterior, ...holes] = match;
    expect(area2(exterior!)).toBeGreaterThan(0); // clockwise (y down)
    for (const h of holes) expect(area2(h)).toBeLessThan(0); // counter-clockwise
    expect(inRing(inHole, holes.find((h) => Math.abs(Math.abs(area2(h)) - expected) / expected < 0.05)!)).toBe(true);
    // MapLibre's own decoder (@mapbox/vector-tile) reads the same feature as a Polygon with that hole
    const vt = new VectorTile(new PbfReader(tileOf(set, ["buildings"], t.z, t.x, t.y))).layers.buildings!;
    const geo = Array.from({ length: vt.length }, (_, i) => vt.feature(i).toGeoJSON(t.x, t.y, t.z));
    const [hlon, hlat] = centre(sf, innerWay);
    const holed = geo.flatMap((g) => (g.geometry.type === "Polygon" ? [g.geometry.coordinates as [number, number][][]] : []))
      .filter((rings) => rings.length >= 2 && inRing([hlon, hlat], rings[0]!));
    expect(holed.length).toBeGreaterThan(0);
    expect(holed.some((rings) => rings.slice(1).some((h) => inRing([hlon, hlat], h)))).toBe(true);
    // and no copy of the building without its hole (an outer way tagged like its relation) covers it
    const whole = Math.abs(area2(exterior!));
    const copies = layer.features.flatMap((f) => polygonsOf(f.geometry)).filter((p) => p.length === 1 && inRing(inHole, p[0]!) && Math.abs(area2(p[0]!) - whole) / whole < 0.01);
    expect(copies).toEqual([]);
  });

  test("buildings: from zoom 14 on; the tile's closed building ways inside it are there, every ring closed and wound per MVT", () => {
    const square = [...sf.ways.values()].find((w) => w.tags.leisure === "park" && w.tags.name === "Union Square")!;
    const [lon, lat] = centre(sf, square);
    expect(tileOf(set, ["buildings"], 13, tileAt(lon, lat, 13).x, tileAt(lon, lat, 13).y).byteLength).toBe(0);
    const t = tileAt(lon, lat, 15);
    const layer = layerOf(t, "buildings")!;
    const closed = [...sf.ways.values()].filter((w) => w.tags.building && w.tags.building !== "no" && w.refs.length >= 4 && w.refs[0] === w.refs[w.refs.length - 1]);
    const pts = (w: OsmWay) => nodesOf(sf, w).map((n) => inTile(n.lon, n.lat, t));
    const inside = closed.filter((w) => pts(w).every(([x, y]) => x > 0 && y > 0 && x < 4096 && y < 4096));
    const touching = closed.filter((w) => pts(w).some(([x, y]) => x > -64 && y > -64 && x < 4160 && y < 4160));
    const rels = [...sf.relations.values()].filter((r) => r.tags.type === "multipolygon" && r.tags.building && r.tags.building !== "no");
    expect(inside.length).toBeGreaterThan(100);
    expect(layer.features.length).toBeGreaterThanOrEqual(inside.length);
    expect(layer.features.length).toBeLessThanOrEqual(touching.length + rels.length);
    for (const f of layer.features) {
      expect(f.type).toBe(3);
      expect(polygonsOf(f.geometry).length).toBeGreaterThan(0);
    }
  });

  test("served over HTTP: the TileJSON lists the new layers' fields; bad layer names are still 400", async () => {
    let server: RunningServer | null = null;
    try {
      server = await startServer(serverConfigFrom({ data: dir, port: 0, host: "127.0.0.1", noAuth: true }), { log: quiet });
      const tj = (await (await fetch(`${server.url}/tiles/places,water,waterways,parks,buildings/tilejson.json`)).json()) as Json;
      expect(tj.vector_layers.map((l: Json) => l.id)).toEqual(["places", "water", "waterways", "parks", "buildings"]);
      expect(Object.keys(tj.vector_layers[0].fields).sort()).toEqual(["class", "name", "rank"]);
      expect(Object.keys(tj.vector_layers[3].fields).sort()).toEqual(["class", "name"]);
      const park = [...sf.ways.values()].find((w) => w.tags.leisure === "park" && w.tags.name === "Union Square")!;
      const t = tileAt(...centre(sf, park), 15);
      const r = await fetch(`${server.url}/tiles/parks,buildings,places/${t.z}/${t.x}/${t.y}.pbf`);
      expect(r.status).toBe(200);
      expect(decode(new Uint8Array(await r.arrayBuffer())).map((l) => l.name)).toEqual(["parks", "buildings", "places"]);
      for (const bad of ["water,lakes", "park", "buildings,"]) {
        const b = await fetch(`${server.url}/tiles/${bad}/1/0/0.pbf`);
        expect(b.status, bad).toBe(400);
        expect(await b.text()).toContain("unknown layer");
      }
    } finally {
      await server?.stop();
    }
  });

  test("a street dataset built before the basemap: the layers are empty, no error", async () => {
    const old = tempDir("interchange-old-basemap-");
    const m = emptyManifest();
    mkdirSync(join(old, "streets", "old"), { recursive: true });
    m.streets = [{ sha1: "old", path: "streets/old", built_at: "", engine_version: "3.6.1", osm: [], elevation: [], elevation_tiles: [], tiles: {}, bbox: null }];
    m.active_streets = "old";
    writeFileSync(join(old, "manifest.json"), JSON.stringify(m));
    const oldSet = await buildTileSet(old);
    const t = tileAt(-122.4075, 37.788, 15);
    expect(tileOf(oldSet, ["places", "water", "waterways", "parks", "buildings", "streets"], t.z, t.x, t.y).byteLength).toBe(0);
    expect(tileJson(oldSet, ["water"], "").vector_layers).toEqual([{ id: "water", fields: { class: "String", name: "String" } }]);
  });
});

describe("basemap geometry helpers", () => {
  test("over the point budget the smallest areas and lines go first, whatever their layer: every layer keeps its large ones; places stay", () => {
    const all = baseMapGeoJson([osm("monaco")]);
    expect(all.report.minSize).toBeNull();
    expect(Object.values(all.report.dropped).every((n) => n === 0)).toBe(true);
    expect(all.report.features.buildings).toBeGreaterThan(100);
    /** a feature's size measured here: an area's side (the square root of its exteriors' area, haversine-scaled), a line's haversine length */
    const R = 6_371_008.8, rad = Math.PI / 180;
    const hav = ([x1, y1]: number[], [x2, y2]: number[]) => 2 * R * Math.asin(Math.sqrt(Math.sin(((y2! - y1!) * rad) / 2) ** 2 + Math.cos(y1! * rad) * Math.cos(y2! * rad) * Math.sin(((x2! - x1!) * rad) / 2) ** 2));
    const ringArea = (r: number[][]) => {
      const [x0, y0] = r[0]!;
      const xy = r.map(([x, y]) => [(x! - x0!) * rad * R * Math.cos(y0! * rad), (y! - y0!) * rad * R]);
      let a = 0;
      for (let i = 0; i + 1 < xy.length; i++) a += xy[i]![0]! * xy[i + 1]![1]! - xy[i + 1]![0]! * xy[i]![1]!;
      return Math.abs(a) / 2;
    };
    const size = (g: Json): number => g.type === "LineString" ? g.coordinates.slice(1).reduce((s: number, c: number[], i: number) => s + hav(g.coordinates[i], c), 0)
      : Math.sqrt((g.type === "Polygon" ? [g.coordinates] : g.coordinates).reduce((s: number, p: number[][][]) => s + ringArea(p[0]!), 0));
    const fcAll = JSON.parse(all.text) as Json;
    const budget = Math.floor(all.report.points / 2);
    const half = baseMapGeoJson([osm("monaco")], budget);
    expect(half.report.points).toBeLessThanOrEqual(budget);
    expect(half.report.features.places).toBe(all.report.features.places);
    // every layer keeps features (its largest), buildings too; some of each area layer went
    for (const l of ["water", "waterways", "parks", "buildings"] as const) {
      expect(all.report.features[l], l).toBeGreaterThan(0);
      expect(half.report.features[l], l).toBeGreaterThan(0);
      expect(half.report.features[l] + half.report.dropped[l], l).toBe(all.report.features[l]);
    }
    expect(half.report.dropped.buildings).toBeGreaterThan(0);
    // what is kept is larger than what went (within 1 %: the two measures differ slightly)
    const keyOf = (f: Json) => JSON.stringify([f.properties.layer, f.geometry]);
    const keptKeys = new Set((JSON.parse(half.text) as Json).features.map(keyOf));
    const sized = fcAll.features.filter((f: Json) => f.properties.layer !== "places").map((f: Json) => ({ f, size: size(f.geometry), kept: keptKeys.has(keyOf(f)) }));
    const kept = sized.filter((x: Json) => x.kept), gone = sized.filter((x: Json) => !x.kept);
    expect(kept.length + gone.length).toBe(sized.length);
    expect(keptKeys.size).toBe(kept.length + all.report.features.places);
    expect(Math.min(...kept.map((x: Json) => x.size))).toBeGreaterThanOrEqual(0.99 * Math.max(...gone.map((x: Json) => x.size)));
    expect(half.report.minSize! / Math.min(...kept.map((x: Json) => x.size))).toBeCloseTo(1, 1);
    // the largest building of the extract is kept
    const buildings = sized.filter((x: Json) => x.f.properties.layer === "buildings").sort((a: Json, b: Json) => b.size - a.size);
    expect(buildings[0].kept).toBe(true);
    // a budget of 10 points: the places alone (each a point), every area and line gone
    const tiny = baseMapGeoJson([osm("monaco")], 10);
    expect(tiny.report.features.places).toBe(all.report.features.places);
    expect(tiny.report.features.buildings + tiny.report.features.parks + tiny.report.features.water + tiny.report.features.waterways).toBe(0);
  });

  test("an old-style multipolygon (tags on its outer way, none on the relation) is drawn with its holes, once", () => {
    const text = baseMapGeoJson([osm("monaco")]).text;
    const fc = JSON.parse(text) as Json;
    const isArea = (t: Record<string, string>) => (t.building && t.building !== "no") || ["park", "garden", "playground", "pitch", "nature_reserve"].includes(t.leisure ?? "") || ["water", "wood", "scrub", "grassland", "bay"].includes(t.natural ?? "");
    const complete = (w: OsmWay | undefined) => w !== undefined && nodesOf(monaco, w).length === w.refs.length && w.refs.length >= 4 && w.refs[0] === w.refs[w.refs.length - 1];
    const old = [...monaco.relations.values()].filter((r) => {
      if (r.tags.type !== "multipolygon" || isArea(r.tags)) return false;
      const outers = r.members.filter((m) => m.type === "way" && m.role !== "inner");
      const inners = r.members.filter((m) => m.type === "way" && m.role === "inner");
      return outers.length === 1 && complete(monaco.ways.get(outers[0]!.ref)) && isArea(monaco.ways.get(outers[0]!.ref)!.tags) && inners.length > 0 && inners.every((m) => complete(monaco.ways.get(m.ref)));
    });
    expect(old.length).toBeGreaterThan(2);
    const ll = (w: OsmWay) => nodesOf(monaco, w).map((n) => [n.lon, n.lat] as [number, number]);
    const shoelace = (r: [number, number][]) => Math.abs(r.slice(1).reduce((a, p, i) => a + r[i]![0] * p[1] - p[0] * r[i]![1], 0)) / 2;
    const polys: [number, number][][][] = fc.features.filter((f: Json) => f.geometry.type === "Polygon" || f.geometry.type === "MultiPolygon")
      .flatMap((f: Json) => (f.geometry.type === "Polygon" ? [f.geometry.coordinates] : f.geometry.coordinates) as [number, number][][][]);
    for (const r of old) {
      const outer = monaco.ways.get(r.members.find((m) => m.role !== "inner")!.ref)!;
      const outerArea = shoelace(ll(outer));
      // drawn as one polygon of the outer way's area and box (within the rounding to 5 decimals and the simplification) ...
      const box = (r: [number, number][]) => [0, 1].flatMap((i) => [Math.min(...r.map((c) => c[i]!)), Math.max(...r.map((c) => c[i]!))]);
      const outerBox = box(ll(outer));
      const same = polys.filter((p) => Math.abs(shoelace(p[0]!) - outerArea) / outerArea < 0.15 && box(p[0]!).every((v, i) => Math.abs(v - outerBox[i]!) < 3e-5));
      expect(same.length, `relation ${r.id}`).toBe(1);
      // ... with every inner way as a hole of that area: of its area, or (a hole of a few metres,
      // changed by the rounding to 5 decimals) holding the inner way's middle
      for (const m of r.members.filter((x) => x.role === "inner")) {
        const inner = ll(monaco.ways.get(m.ref)!);
        const a = shoelace(inner);
        const mid: [number, number] = [inner.slice(1).reduce((t, c) => t + c[0], 0) / (inner.length - 1), inner.slice(1).reduce((t, c) => t + c[1], 0) / (inner.length - 1)];
        expect(same[0]!.slice(1).some((h) => Math.abs(shoelace(h) - a) / a < 0.05 || (inRing(mid, h) && inRing(mid, inner))), `relation ${r.id}, inner way ${m.ref}`).toBe(true);
      }
    }
  });

  test("rings are joined from ways end to end (reversed where needed); what cannot close is left out", () => {
    expect(assembleRings([[1, 2, 3], [5, 4, 3], [5, 6, 1]])).toEqual([[1, 2, 3, 4, 5, 6, 1]]);
    expect(assembleRings([[1, 2, 3], [3, 4]])).toEqual([]);
    expect(assembleRings([[7, 8, 9, 7], [1, 2], [2, 3, 1]])).toEqual([[7, 8, 9, 7], [1, 2, 3, 1]]);
  });

  test("Sutherland–Hodgman: a square half out of the box is cut at the box edge; one wholly out is gone", () => {
    const ring = clipRing([-100, 0, 100, 0, 100, 100, -100, 100, -100, 0], -10, 4106);
    const pts: [number, number][] = [];
    for (let i = 0; i < ring.length; i += 2) pts.push([ring[i]!, ring[i + 1]!]);
    expect(Math.min(...pts.map((p) => p[0]))).toBe(-10);
    expect(Math.abs(area2(pts)) / 2).toBeCloseTo(110 * 100, 6);
    expect(clipRing([-300, 0, -200, 0, -200, 100, -300, 0], -10, 4106)).toEqual([]);
  });
});
