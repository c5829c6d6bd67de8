/**
 * The street dataset's basemap beside the roads (`STREET_LAYOUT.base`, gzip GeoJSON), written at
 * street import from the same OSM extracts with the street map's PBF reader (street-map.ts): what
 * the `places`, `water`, `waterways`, `parks` and `buildings` vector tile layers (server/map/tiles.ts)
 * are cut from. Each feature has a property `layer` naming its tile layer, `class` (the OSM tag
 * value) and, where the element has one, `name`:
 *
 * - `places`: nodes with `place` = city, town, village, suburb, quarter, neighbourhood, hamlet and a
 *   `name`; Points with `rank` (city 1 … hamlet 7, for label priority).
 * - `water`: areas with natural=water|bay, waterway=riverbank, landuse=reservoir|basin.
 * - `parks`: areas with leisure=park|garden|playground|pitch|nature_reserve,
 *   landuse=grass|forest|meadow|recreation_ground|cemetery|village_green, natural=wood|scrub|grassland.
 * - `buildings`: areas with building=* (not `no`).
 * - `waterways`: LineStrings of waterway=river|stream|canal ways.
 *
 * Areas are closed ways and multipolygon relations (type=multipolygon, the tags on the relation):
 * member ways are joined end to end into rings (role `inner` → holes, others → outer rings; a ring
 * that cannot be closed is left out; a hole goes to the outer ring holding its first point; nodes
 * outside the extract are skipped, so an area cut by the extract's edge is closed along it; an outer
 * way tagged for the same layer as its relation is drawn only as the relation). An old-style
 * multipolygon (no area tags on the relation, the tags on its outer way) takes its layer and class
 * from its first outer way that has them, its name from the relation or else that way, and is
 * drawn with its holes instead of the way. Polygons
 * are written RFC 7946-wise (exterior counter-clockwise, holes clockwise). The sea, which OSM has
 * only as the right-hand side of natural=coastline ways, is traced in each extract's box
 * (coastline.ts; the box of the extract's header, else the extent of what is read of it) and
 * written to `water` with class `sea`.
 * Coordinates rounded to 5 decimals and simplified like the roads (Douglas-Peucker, 1e-5 degrees).
 * Bounded: over MAX_BASE_POINTS points the smallest areas and lines are left out first, whatever
 * their layer (`featureSize`: an area's side, the square root of its area; a line's length; places
 * are always kept), so a capped basemap keeps the large buildings, parks, water and rivers.
 */
import { gzipSync } from "node:zlib";
import { type Box, seaPolygons } from "./coastline.ts";
import { block, dataBlocks, findNode, headerBox, Pb, readNodes, simplify, type Block } from "./street-map.ts";

export type BaseLayer = "places" | "water" | "waterways" | "parks" | "buildings";
/** Points kept at most (rings and lines); the smallest features are dropped until it fits. */
export const MAX_BASE_POINTS = 3_000_000;
/** place=* values kept, with their rank (1 = most important label). */
export const PLACE_RANK: Record<string, number> = { city: 1, town: 2, village: 3, suburb: 4, quarter: 5, neighbourhood: 6, hamlet: 7 };
const WATER: Record<string, string[]> = { natural: ["water", "bay"], waterway: ["riverbank"], landuse: ["reservoir", "basin"] };
const PARKS: Record<string, string[]> = {
  leisure: ["park", "garden", "playground", "pitch", "nature_reserve"],
  landuse: ["grass", "forest", "meadow", "recreation_ground", "cemetery", "village_green"],
  natural: ["wood", "scrub", "grassland"],
};
const WATERWAYS = new Set(["river", "stream", "canal"]);

type Tags = Map<string, string>;
type AreaLayer = "water" | "parks" | "buildings";

/** The area layer and class of an element with these tags, or null. */
export function areaClass(tags: Tags): { layer: AreaLayer; cls: string } | null {
  const b = tags.get("building");
  if (b && b !== "no") return { layer: "buildings", cls: b };
  for (const [layer, table] of [["water", WATER], ["parks", PARKS]] as const) {
    for (const [k, vs] of Object.entries(table)) {
      const v = tags.get(k);
      if (v && vs.includes(v)) return { layer, cls: v };
    }
  }
  return null;
}

/** `file`: the extract (index into the files) it came from */
interface Area { layer: AreaLayer; cls: string; name: string | null; outer: number[][]; inner: number[][]; file: number }
interface Relation { layer: AreaLayer; cls: string; name: string | null; members: { id: number; inner: boolean }[]; file: number }
interface Place { name: string; cls: string; lon: number; lat: number }
interface Waterway { cls: string; name: string | null; refs: number[] }
/** a natural=coastline way, and the extract (index into the files) it came from */
interface Coast { file: number; refs: number[] }

function tagsOf(blk: Block, keys: number[], vals: number[]): Tags {
  const t: Tags = new Map();
  for (let i = 0; i < keys.length; i++) t.set(blk.strings[keys[i]!]!, blk.strings[vals[i]!]!);
  return t;
}

interface Visit {
  node?(id: number, lon: number, lat: number, tags: Tags): void;
  way?(id: number, refs: number[], keys: number[], vals: number[]): void;
  relation?(id: number, tags: Tags, members: { id: number; type: number; role: string }[]): void;
}

/** One block's tagged nodes, ways (refs un-delta-coded) and relations, to the visitor's callbacks. */
function scan(blk: Block, v: Visit): void {
  const data = blk.pb.buf;
  const coord = (raw: number, offset: number) => 1e-9 * (offset + blk.granularity * raw);
  for (const [gs, ge] of blk.groups) {
    const g = new Pb(data, gs, ge);
    for (let t; (t = g.tag()); ) {
      const [f, wt] = t;
      if (wt !== 2 || !((f === 2 && v.node) || (f === 1 && v.node) || (f === 3 && v.way) || (f === 4 && v.relation))) {
        g.skip(wt);
        continue;
      }
      const [s, e] = g.bytes();
      const m = new Pb(data, s, e);
      if (f === 2) {
        // DenseNodes: id 1, lat 8, lon 9 (delta-coded), keys_vals 10 (0-separated)
        let ids: number[] = [], la: number[] = [], lo: number[] = [], kv: number[] = [];
        for (let u; (u = m.tag()); ) {
          if (u[0] === 1 && u[1] === 2) ids = m.packed(true);
          else if (u[0] === 8 && u[1] === 2) la = m.packed(true);
          else if (u[0] === 9 && u[1] === 2) lo = m.packed(true);
          else if (u[0] === 10 && u[1] === 2) kv = m.packed(false);
          else m.skip(u[1]);
        }
        if (!kv.length) continue;
        let id = 0, a = 0, b = 0, j = 0;
        for (let i = 0; i < ids.length; i++) {
          id += ids[i]!; a += la[i]!; b += lo[i]!;
          const keys: number[] = [], vals: number[] = [];
          while (j < kv.length && kv[j] !== 0) { keys.push(kv[j]!); vals.push(kv[j + 1]!); j += 2; }
          j++;
          if (keys.length) v.node!(id, coord(b, blk.lonOffset), coord(a, blk.latOffset), tagsOf(blk, keys, vals));
        }
      } else if (f === 1) {
        let id = 0, a = 0, b = 0, keys: number[] = [], vals: number[] = [];
        for (let u; (u = m.tag()); ) {
          if (u[0] === 1 && u[1] === 0) id = m.svarint();
          else if (u[0] === 2 && u[1] === 2) keys = m.packed(false);
          else if (u[0] === 3 && u[1] === 2) vals = m.packed(false);
          else if (u[0] === 8 && u[1] === 0) a = m.svarint();
          else if (u[0] === 9 && u[1] === 0) b = m.svarint();
          else m.skip(u[1]);
        }
        if (keys.length) v.node!(id, coord(b, blk.lonOffset), coord(a, blk.latOffset), tagsOf(blk, keys, vals));
      } else if (f === 3) {
        let id = 0, keys: number[] = [], vals: number[] = [], refs: number[] = [];
        for (let u; (u = m.tag()); ) {
          if (u[0] === 1 && u[1] === 0) id = m.varint();
          else if (u[0] === 2 && u[1] === 2) keys = m.packed(false);
          else if (u[0] === 3 && u[1] === 2) vals = m.packed(false);
          else if (u[0] === 8 && u[1] === 2) refs = m.packed(true);
          else m.skip(u[1]);
        }
        for (let i = 1; i < refs.length; i++) refs[i] = refs[i]! + refs[i - 1]!;
        v.way!(id, refs, keys, vals);
      } else {
        // Relation: id 1, keys 2, vals 3, roles_sid 8, memids 9 (zigzag, delta-coded), types 10
        let id = 0, keys: number[] = [], vals: number[] = [], roles: number[] = [], memids: number[] = [], types: number[] = [];
        for (let u; (u = m.tag()); ) {
          if (u[0] === 1 && u[1] === 0) id = m.varint();
          else if (u[0] === 2 && u[1] === 2) keys = m.packed(false);
          else if (u[0] === 3 && u[1] === 2) vals = m.packed(false);
          else if (u[0] === 8 && u[1] === 2) roles = m.packed(false);
          else if (u[0] === 9 && u[1] === 2) memids = m.packed(true);
          else if (u[0] === 10 && u[1] === 2) types = m.packed(false);
          else m.skip(u[1]);
        }
        let mid = 0;
        const members = memids.map((d, i) => ({ id: (mid += d), type: types[i] ?? 0, role: blk.strings[roles[i] ?? 0] ?? "" }));
        v.relation!(id, tagsOf(blk, keys, vals), members);
      }
    }
  }
}

/**
 * Rings from ways given as node id lists: joined end to end (reversed where needed) until closed;
 * what cannot be closed is left out.
 */
export function assembleRings(ways: number[][]): number[][] {
  const rings: number[][] = [];
  const open: number[][] = [];
  for (const w of ways) {
    if (w.length < 2) continue;
    if (w.length >= 4 && w[0] === w[w.length - 1]) rings.push(w);
    else open.push(w);
  }
  const used = new Uint8Array(open.length);
  const byEnd = new Map<number, number[]>();
  open.forEach((w, i) => {
    for (const n of [w[0]!, w[w.length - 1]!]) {
      const l = byEnd.get(n);
      if (l) l.push(i); else byEnd.set(n, [i]);
    }
  });
  for (let i = 0; i < open.length; i++) {
    if (used[i]) continue;
    used[i] = 1;
    const ring = [...open[i]!];
    for (;;) {
      const end = ring[ring.length - 1]!;
      if (end === ring[0]) break;
      const next = (byEnd.get(end) ?? []).find((j) => !used[j]);
      if (next === undefined) break;
      used[next] = 1;
      const w = open[next]!;
      const seg = w[0] === end ? w : [...w].reverse();
      for (let k = 1; k < seg.length; k++) ring.push(seg[k]!);
    }
    if (ring.length >= 4 && ring[0] === ring[ring.length - 1]) rings.push(ring);
  }
  return rings;
}

/** Twice the signed area of a ring of [lon, lat] (positive: counter-clockwise). */
function area2(r: [number, number][]): number {
  let a = 0;
  for (let i = 0; i + 1 < r.length; i++) a += r[i]![0] * r[i + 1]![1] - r[i + 1]![0] * r[i]![1];
  return a;
}

function inRing(p: [number, number], r: [number, number][]): boolean {
  let inside = false;
  for (let i = 0, j = r.length - 1; i < r.length; j = i++) {
    const [xi, yi] = r[i]!, [xj, yj] = r[j]!;
    if (yi > p[1] !== yj > p[1] && p[0] < ((xj - xi) * (p[1] - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

const round5 = (x: number) => Math.round(x * 1e5) / 1e5;

export interface BaseMapReport {
  points: number;
  bytes: number;
  /** features per layer */
  features: Record<BaseLayer, number>;
  /** features per layer left out for the point budget (the smallest) */
  dropped: Record<BaseLayer, number>;
  /** with features left out: the size (m, featureSize) of the smallest kept; else null */
  minSize: number | null;
}

/** Metres per degree of latitude (mean Earth radius). */
const M_PER_DEG = (6_371_008.8 * Math.PI) / 180;

/**
 * A feature's size in metres, what the point budget keeps the largest of: for an area, the square
 * root of its exteriors' area (a square's side); for a line, its length; a place, Infinity (always
 * kept). Measured on a local equirectangular projection (longitudes scaled by the cosine of the
 * latitude), which is within a fraction of a per cent at these sizes.
 */
export function featureSize(geometry: { type: string; coordinates: unknown }): number {
  const k = (lat: number) => Math.cos((lat * Math.PI) / 180);
  if (geometry.type === "LineString") {
    const c = geometry.coordinates as [number, number][];
    let len = 0;
    for (let i = 1; i < c.length; i++) len += Math.hypot((c[i]![0] - c[i - 1]![0]) * k((c[i]![1] + c[i - 1]![1]) / 2), c[i]![1] - c[i - 1]![1]);
    return len * M_PER_DEG;
  }
  if (geometry.type === "Polygon" || geometry.type === "MultiPolygon") {
    const polys = (geometry.type === "Polygon" ? [geometry.coordinates] : geometry.coordinates) as [number, number][][][];
    let a = 0;
    for (const p of polys) if (p[0]) a += Math.abs(area2(p[0])) / 2 * k(p[0][0]![1]);
    return Math.sqrt(a) * M_PER_DEG;
  }
  return Infinity;
}

/** The basemap's GeoJSON text from OSM PBF extracts (merged; an element in several extracts once), with what it holds. */
export function baseMapGeoJson(files: string[], maxPoints = MAX_BASE_POINTS): { text: string; report: Omit<BaseMapReport, "bytes"> } {
  const { places, areas, waterways, coasts } = readElements(files);
  const nodes = readCoordinates(files, areas, waterways, coasts);
  const out = baseFeatures(places, areas, waterways, nodes);
  out.push(...seaFeatures(files, coasts, areas, nodes));
  const { kept, minSize } = withinBudget(out, maxPoints);
  const features: Record<BaseLayer, number> = { places: 0, water: 0, waterways: 0, parks: 0, buildings: 0 };
  const dropped: Record<BaseLayer, number> = { places: 0, water: 0, waterways: 0, parks: 0, buildings: 0 };
  for (const f of kept) features[f.layer]++;
  for (const f of out) dropped[f.layer]++;
  for (const l of Object.keys(dropped) as BaseLayer[]) dropped[l] -= features[l];
  const lines = kept.map((f) => {
    const props: Record<string, unknown> = { layer: f.layer };
    for (const [k, v] of Object.entries(f.props)) if (v !== null && v !== undefined) props[k] = v;
    return JSON.stringify({ type: "Feature", properties: props, geometry: f.geometry });
  });
  const text = `{"type":"FeatureCollection","features":[\n${lines.join(",\n")}\n]}\n`;
  return { text, report: { points: kept.reduce((s, f) => s + f.points, 0), features, dropped, minSize } };
}

/**
 * The features within `maxPoints` points: all when they fit; else the largest (featureSize, ties
 * in the features' order), as many as fit, taken largest first: the smallest are the ones left out.
 * The kept features stay in their order.
 */
function withinBudget(out: BaseFeature[], maxPoints: number): { kept: BaseFeature[]; minSize: number | null } {
  if (out.reduce((s, f) => s + f.points, 0) <= maxPoints) return { kept: out, minSize: null };
  const sized = out.map((f, i) => ({ i, size: featureSize(f.geometry), points: f.points })).sort((a, b) => b.size - a.size || a.i - b.i);
  const keep = new Uint8Array(out.length);
  let total = 0, minSize: number | null = null;
  for (const s of sized) {
    if (total + s.points > maxPoints && s.size !== Infinity) break;
    total += s.points;
    keep[s.i] = 1;
    minSize = s.size;
  }
  return { kept: out.filter((_, i) => keep[i]), minSize };
}

/**
 * Passes 1 and 2 over the extracts: places, closed ways and waterways with their tags, and
 * multipolygon relations assembled from their member ways (which replace an outer way tagged like
 * its relation, so that it is not drawn again over the holes). Areas of relations are keyed -id.
 */
function readElements(files: string[]): { places: Map<number, Place>; areas: Map<number, Area>; waterways: Map<number, Waterway>; coasts: Coast[] } {
  const places = new Map<number, Place>();
  const areas = new Map<number, Area>();
  const waterways = new Map<number, Waterway>();
  const coasts: Coast[] = [];
  let fileNo = 0;
  const relations = new Map<number, Relation>();
  // pass 1: places, closed ways and waterways with their tags, multipolygon relations
  const visit1: Visit = {
    node(id, lon, lat, tags) {
      const cls = tags.get("place"), name = tags.get("name");
      if (cls && name && PLACE_RANK[cls] !== undefined) places.set(id, { name, cls, lon, lat });
    },
    way(id, refs, keys, vals) {
      if (!keys.length || refs.length < 2) return;
      const tags = tagsOf(blk!, keys, vals);
      const name = tags.get("name") || null;
      const ww = tags.get("waterway");
      if (ww && WATERWAYS.has(ww)) waterways.set(id, { cls: ww, name, refs });
      if (tags.get("natural") === "coastline") coasts.push({ file: fileNo, refs });
      const a = areaClass(tags);
      if (a && refs.length >= 4 && refs[0] === refs[refs.length - 1]) areas.set(id, { ...a, name, outer: [refs], inner: [], file: fileNo });
    },
    relation(id, tags, members) {
      if (tags.get("type") !== "multipolygon") return;
      const a = areaClass(tags);
      const ways = members.filter((m) => m.type === 1).map((m) => ({ id: m.id, inner: m.role === "inner" }));
      if (a) relations.set(id, { ...a, name: tags.get("name") || null, members: ways, file: fileNo });
      else oldStyle.set(id, { name: tags.get("name") || null, members: ways, file: fileNo });
    },
  };
  /** multipolygon relations without area tags: old-style, their tags on an outer way */
  const oldStyle = new Map<number, Omit<Relation, "layer" | "cls">>();
  let blk: Block | null = null;
  for (const [i, f] of files.entries()) {
    fileNo = i;
    for (const data of dataBlocks(f)) scan((blk = block(data)), visit1);
  }
  for (const [id, r] of oldStyle) {
    const outer = r.members.filter((m) => !m.inner).map((m) => areas.get(m.id)).find((a) => a !== undefined);
    if (outer) relations.set(id, { layer: outer.layer, cls: outer.cls, name: r.name ?? outer.name, members: r.members, file: r.file });
  }
  // pass 2 (only with relations): the member ways' node ids
  const memberRefs = new Map<number, number[]>();
  for (const r of relations.values()) for (const m of r.members) memberRefs.set(m.id, []);
  if (memberRefs.size) {
    const visit2: Visit = { way(id, refs) { if (memberRefs.has(id)) memberRefs.set(id, refs); } };
    for (const f of files) for (const data of dataBlocks(f)) scan(block(data), visit2);
  }
  for (const [id, r] of relations) {
    const ways = (inner: boolean) => r.members.filter((m) => m.inner === inner).map((m) => memberRefs.get(m.id) ?? []);
    const outer = assembleRings(ways(false));
    if (!outer.length) continue;
    areas.set(-id, { layer: r.layer, cls: r.cls, name: r.name, outer, inner: assembleRings(ways(true)), file: r.file });
    // an outer way tagged like its relation would be drawn again, over the holes
    for (const m of r.members) if (!m.inner && areas.get(m.id)?.layer === r.layer) areas.delete(m.id);
  }
  return { places, areas, waterways, coasts };
}

/** Node lists as coordinates: rounded, deduplicated, simplified lines and closed, wound rings. */
interface NodeCoords {
  /** a node list as rounded, deduplicated, simplified [lon, lat] (nodes outside the extract left out) */
  coords(refs: number[]): [number, number][];
  /** a closed ring wound counter-clockwise (`ccw`) or clockwise, or null when it encloses nothing */
  ring(refs: number[], ccw: boolean): [number, number][] | null;
}

/** Pass 3 over the extracts: the coordinates of every node the areas and waterways use. */
function readCoordinates(files: string[], areas: Map<number, Area>, waterways: Map<number, Waterway>, coasts: Coast[]): NodeCoords {
  let n = 0;
  for (const a of areas.values()) for (const r of [...a.outer, ...a.inner]) n += r.length;
  for (const w of waterways.values()) n += w.refs.length;
  for (const c of coasts) n += c.refs.length;
  const all = new Float64Array(n);
  n = 0;
  for (const a of areas.values()) for (const r of [...a.outer, ...a.inner]) for (const x of r) all[n++] = x;
  for (const w of waterways.values()) for (const x of w.refs) all[n++] = x;
  for (const c of coasts) for (const x of c.refs) all[n++] = x;
  all.sort();
  let u = 0;
  for (let i = 0; i < all.length; i++) if (i === 0 || all[i] !== all[i - 1]) all[u++] = all[i]!;
  const ids = all.subarray(0, u);
  const lat = new Float64Array(u).fill(NaN), lon = new Float64Array(u).fill(NaN);
  if (u) for (const f of files) for (const data of dataBlocks(f)) readNodes(block(data), ids, lat, lon);
  const coords = (refs: number[]): [number, number][] => {
    const pts: [number, number][] = [];
    for (const r of refs) {
      const i = findNode(ids, r);
      if (i < 0 || Number.isNaN(lat[i]!)) continue;
      const p: [number, number] = [round5(lon[i]!), round5(lat[i]!)];
      const last = pts[pts.length - 1];
      if (!last || last[0] !== p[0] || last[1] !== p[1]) pts.push(p);
    }
    return simplify(pts);
  };
  const ring = (refs: number[], ccw: boolean): [number, number][] | null => {
    // nodes outside the extract are skipped: an area cut by the extract's edge is closed along it
    const r = coords(refs);
    if (r.length >= 2 && (r[0]![0] !== r[r.length - 1]![0] || r[0]![1] !== r[r.length - 1]![1])) r.push(r[0]!);
    if (r.length < 4) return null;
    const a = area2(r);
    if (a === 0) return null;
    return a > 0 === ccw ? r : r.reverse();
  };
  return { coords, ring };
}

type BaseFeature = { layer: BaseLayer; props: Record<string, unknown>; geometry: { type: string; coordinates: unknown }; points: number };

/** The features: places as points, waterways as lines, areas as polygons with their holes (each hole in the outer ring that holds it). */
function baseFeatures(places: Map<number, Place>, areas: Map<number, Area>, waterways: Map<number, Waterway>, nodes: NodeCoords): BaseFeature[] {
  const out: BaseFeature[] = [];
  for (const p of places.values()) {
    out.push({ layer: "places", props: { class: p.cls, name: p.name, rank: PLACE_RANK[p.cls] }, geometry: { type: "Point", coordinates: [round5(p.lon), round5(p.lat)] }, points: 1 });
  }
  for (const w of waterways.values()) {
    const c = nodes.coords(w.refs);
    if (c.length >= 2) out.push({ layer: "waterways", props: { class: w.cls, name: w.name }, geometry: { type: "LineString", coordinates: c }, points: c.length });
  }
  for (const a of areas.values()) {
    const outers = a.outer.map((r) => nodes.ring(r, true)).filter((r) => r !== null);
    if (!outers.length) continue;
    const polys = outers.map((o) => [o]);
    for (const r of a.inner) {
      const h = nodes.ring(r, false);
      const home = h && polys.find((p) => inRing(h[0]!, p[0]!));
      if (h && home) home.push(h);
    }
    const points = polys.reduce((s, p) => s + p.reduce((t, r) => t + r.length, 0), 0);
    const geometry = polys.length === 1 ? { type: "Polygon", coordinates: polys[0] } : { type: "MultiPolygon", coordinates: polys };
    out.push({ layer: a.layer, props: { class: a.cls, name: a.name }, geometry, points });
  }
  return out;
}

/**
 * The sea of each extract with coastlines (coastline.ts), in the extract's box: its header's, else
 * the extent of its coastlines and areas as read (an extract cut by a box holds things up to it).
 */
function seaFeatures(files: string[], coasts: Coast[], areas: Map<number, Area>, nodes: NodeCoords): BaseFeature[] {
  const out: BaseFeature[] = [];
  for (let f = 0; f < files.length; f++) {
    const lines = coasts.filter((c) => c.file === f).map((c) => nodes.coords(c.refs)).filter((l) => l.length >= 2);
    if (!lines.length) continue;
    const box = headerBox(files[f]!) ?? extentOf([...lines, ...[...areas.values()].filter((a) => a.file === f).flatMap((a) => a.outer.map((r) => nodes.coords(r)))]);
    if (!box) continue;
    for (const poly of seaPolygons(lines, box).polygons) {
      const rings = poly.map((r) => r.map(([x, y]) => [round5(x), round5(y)] as [number, number]));
      out.push({ layer: "water", props: { class: "sea", name: null }, geometry: { type: "Polygon", coordinates: rings }, points: rings.reduce((s, r) => s + r.length, 0) });
    }
  }
  return out;
}

function extentOf(lines: [number, number][][]): Box | null {
  let w = Infinity, s = Infinity, e = -Infinity, n = -Infinity;
  for (const l of lines) for (const [x, y] of l) {
    if (x < w) w = x;
    if (x > e) e = x;
    if (y < s) s = y;
    if (y > n) n = y;
  }
  return w < e && s < n ? { w, s, e, n } : null;
}

/** Writes the basemap (gzip) of the extracts to `path`. */
export function writeBaseMap(files: string[], path: string, write: (path: string, data: Uint8Array) => void): BaseMapReport {
  const { text, report } = baseMapGeoJson(files);
  const gz = gzipSync(text, { level: 6 });
  write(path, gz);
  return { ...report, bytes: gz.length };
}
