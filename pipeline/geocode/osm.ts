/**
 * Places of the OSM extracts for the geocoder, read at street import with the street map's PBF
 * reader (pipeline/street/street-map.ts): named streets (a street's ways of one name within about
 * 2 km merged into one place), addresses (addr:housenumber with addr:street or addr:place, on
 * nodes and buildings), points of interest (named amenity, shop, tourism, leisure, office,
 * historic, craft, healthcare, stations, named buildings) and places (place=city/town/village/
 * hamlet → locality, suburb/quarter/neighbourhood → neighbourhood, borough). A way's point is its
 * middle node (streets) or the mean of its nodes (buildings, areas).
 *
 * Context: locality from addr:city, else the nearest city/town/village/hamlet node within 15 km;
 * neighbourhood from the nearest suburb/neighbourhood node within 1.5 km; region and country from
 * the Natural Earth admin-1 polygons (pipeline/places/boundaries.ts), looked up once per 0.01°
 * cell (so a point within about 1 km of a state line may get its neighbour's).
 */
import KDBush from "kdbush";
import { block, dataBlocks, findNode, Pb, readNodes, type Block } from "../street/street-map.ts";
import { fold } from "../../shared/geocode-text.ts";
import { haversineM } from "../../shared/geo.ts";
import type { Boundaries } from "../places/boundaries.ts";
import type { GeocodeLayer, GeocodeProps } from "../schema/geocode.ts";
import type { GeoDoc } from "./build.ts";

type Tags = Map<string, string>;

const STREET_HIGHWAYS = new Set([
  "motorway", "trunk", "primary", "secondary", "tertiary", "unclassified", "residential", "living_street", "pedestrian",
  "road", "service", "footway", "path", "cycleway", "steps", "busway", "track", "motorway_link", "trunk_link", "primary_link", "secondary_link", "tertiary_link",
]);
const VENUE_KEYS = ["amenity", "shop", "tourism", "leisure", "office", "historic", "craft", "healthcare", "aeroway", "club", "sport"];
const LOCALITY_PLACES = new Set(["city", "town", "village", "hamlet"]);
const NEIGHBOURHOOD_PLACES = new Set(["suburb", "quarter", "neighbourhood"]);
const OTHER_NAME_KEYS = ["name:en", "int_name", "alt_name", "old_name", "official_name", "short_name", "loc_name"];

/** What an element with these tags is in the geocoder, if anything. */
function kinds(tags: Tags, isWay: boolean): { layer: GeocodeLayer; name: string }[] {
  const out: { layer: GeocodeLayer; name: string }[] = [];
  const name = tags.get("name");
  const place = tags.get("place");
  if (name && place) {
    if (LOCALITY_PLACES.has(place)) out.push({ layer: "locality", name });
    else if (NEIGHBOURHOOD_PLACES.has(place)) out.push({ layer: "neighbourhood", name });
    else if (place === "borough") out.push({ layer: "borough", name });
  }
  const hn = tags.get("addr:housenumber");
  const street = tags.get("addr:street") ?? tags.get("addr:place");
  if (hn && street) out.push({ layer: "address", name: `${hn} ${street}` });
  const highway = tags.get("highway");
  if (name && isWay && highway && STREET_HIGHWAYS.has(highway)) out.push({ layer: "street", name });
  else if (name && !highway && !place) {
    const railway = tags.get("railway");
    const pt = tags.get("public_transport");
    if (VENUE_KEYS.some((k) => tags.has(k)) || railway === "station" || railway === "halt" || pt === "station" || (isWay && tags.has("building"))) out.push({ layer: "venue", name });
  }
  return out;
}

function tagsOf(blk: Block, keys: number[], vals: number[]): Tags {
  const t: Tags = new Map();
  for (let i = 0; i < keys.length; i++) t.set(blk.strings[keys[i]!]!, blk.strings[vals[i]!]!);
  return t;
}

interface Found {
  layer: GeocodeLayer;
  name: string;
  tags: Tags;
  osmType: "node" | "way";
  id: number;
  lon: number;
  lat: number;
  /** ways: their node ids, until the coordinates are read */
  refs?: number[];
  bbox?: [number, number, number, number];
  /** streets: node count of the way chosen for the point */
  weight?: number;
}

/** Pass 1: tagged nodes (with their coordinates) and the ways wanted (with their node ids). */
function readTagged(blk: Block, found: Found[], seenWays: Set<number>, seenNodes: Set<number>): void {
  const data = blk.pb.buf;
  const coord = (raw: number, offset: number) => 1e-9 * (offset + blk.granularity * raw);
  for (const [gs, ge] of blk.groups) {
    const g = new Pb(data, gs, ge);
    for (let t; (t = g.tag()); ) {
      if (t[0] === 2 && t[1] === 2) {
        const [s, e] = g.bytes();
        const d = new Pb(data, s, e);
        let ids: number[] = [], la: number[] = [], lo: number[] = [], kv: number[] = [];
        for (let u; (u = d.tag()); ) {
          if (u[0] === 1 && u[1] === 2) ids = d.packed(true);
          else if (u[0] === 8 && u[1] === 2) la = d.packed(true);
          else if (u[0] === 9 && u[1] === 2) lo = d.packed(true);
          else if (u[0] === 10 && u[1] === 2) kv = d.packed(false);
          else d.skip(u[1]);
        }
        if (kv.length === 0) continue;
        let id = 0, a = 0, b = 0, j = 0;
        for (let i = 0; i < ids.length; i++) {
          id += ids[i]!;
          a += la[i]!;
          b += lo[i]!;
          const keys: number[] = [], vals: number[] = [];
          while (j < kv.length && kv[j] !== 0) {
            keys.push(kv[j]!);
            vals.push(kv[j + 1]!);
            j += 2;
          }
          j++;
          if (keys.length === 0 || seenNodes.has(id)) continue;
          const tags = tagsOf(blk, keys, vals);
          const ks = kinds(tags, false);
          if (ks.length === 0) continue;
          seenNodes.add(id);
          for (const k of ks) found.push({ ...k, tags, osmType: "node", id, lat: coord(a, blk.latOffset), lon: coord(b, blk.lonOffset) });
        }
      } else if ((t[0] === 1 || t[0] === 3) && t[1] === 2) {
        const isWay = t[0] === 3;
        const [s, e] = g.bytes();
        const w = new Pb(data, s, e);
        let id = 0, a = 0, b = 0;
        let keys: number[] = [], vals: number[] = [], refs: number[] = [];
        for (let u; (u = w.tag()); ) {
          if (u[0] === 1 && u[1] === 0) id = isWay ? w.varint() : w.svarint();
          else if (u[0] === 2 && u[1] === 2) keys = w.packed(false);
          else if (u[0] === 3 && u[1] === 2) vals = w.packed(false);
          else if (isWay && u[0] === 8 && u[1] === 2) refs = w.packed(true);
          else if (!isWay && u[0] === 8 && u[1] === 0) a = w.svarint();
          else if (!isWay && u[0] === 9 && u[1] === 0) b = w.svarint();
          else w.skip(u[1]);
        }
        if (keys.length === 0) continue;
        if (isWay ? seenWays.has(id) : seenNodes.has(id)) continue;
        const tags = tagsOf(blk, keys, vals);
        const ks = kinds(tags, isWay);
        if (ks.length === 0) continue;
        if (isWay) {
          if (refs.length === 0) continue;
          seenWays.add(id);
          for (let i = 1; i < refs.length; i++) refs[i] = refs[i]! + refs[i - 1]!;
          for (const k of ks) found.push({ ...k, tags, osmType: "way", id, lat: NaN, lon: NaN, refs });
        } else {
          seenNodes.add(id);
          for (const k of ks) found.push({ ...k, tags, osmType: "node", id, lat: coord(a, blk.latOffset), lon: coord(b, blk.lonOffset) });
        }
      } else g.skip(t[1]);
    }
  }
}

/** Street ways of one name are merged when their points are this close (metres). */
const STREET_MERGE_M = 2000;

/** The geocoder's places in OSM PBF extracts (merged; an element in several extracts counts once). */
export function osmPlaces(files: string[], boundaries: Boundaries | null): GeoDoc[] {
  const found: Found[] = [];
  const seenWays = new Set<number>(), seenNodes = new Set<number>();
  for (const f of files) for (const data of dataBlocks(f)) readTagged(block(data), found, seenWays, seenNodes);
  locateWays(files, found);
  const located = found.filter((x) => Number.isFinite(x.lat) && Number.isFinite(x.lon));
  const streets = mergeStreets(located.filter((x) => x.layer === "street"));
  const others = located.filter((x) => x.layer !== "street");
  const context = placeContext(others, boundaries);
  return [...others, ...streets].map((x) => geoDoc(x, context));
}

/** The ways' points: a street at its middle node, any other way at its nodes' mean; their bbox, and their node count as weight. */
function locateWays(files: string[], found: Found[]): void {
  let n = 0;
  for (const x of found) if (x.refs) n += x.refs.length;
  const all = new Float64Array(n);
  n = 0;
  for (const x of found) if (x.refs) for (const r of x.refs) all[n++] = r;
  all.sort();
  let u = 0;
  for (let i = 0; i < all.length; i++) if (i === 0 || all[i] !== all[i - 1]) all[u++] = all[i]!;
  const ids = all.subarray(0, u);
  const lat = new Float64Array(u).fill(NaN), lon = new Float64Array(u).fill(NaN);
  if (u > 0) for (const f of files) for (const data of dataBlocks(f)) readNodes(block(data), ids, lat, lon);
  for (const x of found) {
    if (!x.refs) continue;
    const pts: [number, number][] = [];
    for (const r of x.refs) {
      const i = findNode(ids, r);
      if (i >= 0 && !Number.isNaN(lat[i]!)) pts.push([lon[i]!, lat[i]!]);
    }
    if (pts.length === 0) continue;
    let [w, s, e, nn] = [Infinity, Infinity, -Infinity, -Infinity];
    let sx = 0, sy = 0;
    for (const [x0, y0] of pts) {
      w = Math.min(w, x0); e = Math.max(e, x0); s = Math.min(s, y0); nn = Math.max(nn, y0);
      sx += x0; sy += y0;
    }
    if (x.layer === "street") [x.lon, x.lat] = pts[Math.floor(pts.length / 2)]!;
    else [x.lon, x.lat] = [sx / pts.length, sy / pts.length];
    x.bbox = [w, s, e, nn];
    x.weight = pts.length;
    x.refs = undefined;
  }
}

/** Where a place is: the nearest locality (15 km) and neighbourhood (1.5 km) among the places, and its region and country from the boundaries. */
interface PlaceContext {
  nearLocality(x: Found): Found | null;
  nearHood(x: Found): Found | null;
  regionOf(x: Found): ReturnType<Boundaries["lookup"]> | null;
}

function placeContext(others: Found[], boundaries: Boundaries | null): PlaceContext {
  const nearest = (list: Found[], maxM: number) => {
    if (list.length === 0) return () => null;
    const kd = new KDBush(list.length);
    for (const p of list) kd.add(p.lon, p.lat);
    kd.finish();
    return (x: Found): Found | null => {
      const r = maxM / 111_000;
      const cosLat = Math.max(0.1, Math.cos((x.lat * Math.PI) / 180));
      let best: Found | null = null, bestD = maxM;
      for (const i of kd.range(x.lon - r / cosLat, x.lat - r, x.lon + r / cosLat, x.lat + r)) {
        const p = list[i]!;
        const dm = haversineM(x.lat, x.lon, p.lat, p.lon);
        if (dm <= bestD) [best, bestD] = [p, dm];
      }
      return best;
    };
  };
  const regionCache = new Map<number, ReturnType<Boundaries["lookup"]>>();
  return {
    nearLocality: nearest(others.filter((x) => x.layer === "locality"), 15_000),
    nearHood: nearest(others.filter((x) => x.layer === "neighbourhood"), 1_500),
    regionOf(x) {
      if (!boundaries) return null;
      const key = Math.round((x.lat + 90) * 100) * 100_000 + Math.round((x.lon + 180) * 100);
      if (!regionCache.has(key)) regionCache.set(key, boundaries.lookup(Math.round(x.lat * 100) / 100, Math.round(x.lon * 100) / 100) ?? boundaries.lookup(x.lat, x.lon));
      return regionCache.get(key) ?? null;
    },
  };
}

/** A place as the geocoder's document: Pelias's properties (address, locality, neighbourhood, region, country, bbox, OSM tags) and its other names. */
function geoDoc(x: Found, context: PlaceContext): GeoDoc {
  const props: GeocodeProps = { name: x.name, source_id: `${x.osmType}/${x.id}` };
  const hn = x.tags.get("addr:housenumber");
  const st = x.tags.get("addr:street") ?? x.tags.get("addr:place");
  if (hn && st) Object.assign(props, { housenumber: hn, street: st });
  const pc = x.tags.get("addr:postcode");
  if (pc) props.postalcode = pc;
  if (x.layer !== "locality" && x.layer !== "neighbourhood" && x.layer !== "borough") {
    const city = x.tags.get("addr:city") ?? context.nearLocality(x)?.name;
    if (city) props.locality = city;
    const hood = x.layer === "street" || x.layer === "address" || x.layer === "venue" ? context.nearHood(x)?.name : undefined;
    if (hood && hood !== city) props.neighbourhood = hood;
  } else if (x.layer === "neighbourhood") {
    const city = context.nearLocality(x)?.name;
    if (city) props.locality = city;
  } else props.locality = x.name;
  const place = context.regionOf(x);
  if (place?.adm1_name) props.region = place.adm1_name;
  if (place?.adm1_iso) props.region_a = place.adm1_iso.replace(/^[A-Z]{2}-/, "");
  if (place?.adm0_name) props.country = place.adm0_name;
  if (place?.adm0_iso) props.country_code = place.adm0_iso;
  if (x.bbox && (x.layer === "street" || x.bbox[2] - x.bbox[0] > 0.001 || x.bbox[3] - x.bbox[1] > 0.001)) props.bbox = x.bbox.map((v) => Math.round(v * 1e6) / 1e6) as [number, number, number, number];
  const osmTags: Record<string, string> = {};
  for (const k of ["amenity", "shop", "tourism", "leisure", "railway", "public_transport", "highway", "place", "website", "wikidata"]) {
    const v = x.tags.get(k);
    if (v) osmTags[k] = v;
  }
  if (Object.keys(osmTags).length) props.addendum = { osm: osmTags };
  const otherNames = OTHER_NAME_KEYS.map((k) => x.tags.get(k)).filter((v): v is string => Boolean(v) && v !== x.name);
  return { layer: x.layer, source: "osm", lon: x.lon, lat: x.lat, props, ...(otherNames.length ? { otherNames } : {}) };
}

/** Ways of one (folded) name whose points are within STREET_MERGE_M of a kept one become one street: the longest way's point, the union of the boxes. */
function mergeStreets(ways: Found[]): Found[] {
  const byName = new Map<string, Found[]>();
  for (const w of ways) {
    const k = fold(w.name);
    const list = byName.get(k);
    if (list) list.push(w);
    else byName.set(k, [w]);
  }
  const out: Found[] = [];
  for (const list of byName.values()) {
    list.sort((a, b) => (b.weight ?? 0) - (a.weight ?? 0) || a.id - b.id);
    const groups: Found[] = [];
    for (const w of list) {
      const g = groups.find((x) => haversineM(x.lat, x.lon, w.lat, w.lon) <= STREET_MERGE_M || (x.bbox && w.bbox && overlaps(x.bbox, w.bbox)));
      if (!g) {
        groups.push({ ...w });
        continue;
      }
      if (g.bbox && w.bbox) g.bbox = [Math.min(g.bbox[0], w.bbox[0]), Math.min(g.bbox[1], w.bbox[1]), Math.max(g.bbox[2], w.bbox[2]), Math.max(g.bbox[3], w.bbox[3])];
    }
    out.push(...groups);
  }
  return out;
}

const overlaps = (a: number[], b: number[]) => a[0]! <= b[2]! && b[0]! <= a[2]! && a[1]! <= b[3]! && b[1]! <= a[3]!;
